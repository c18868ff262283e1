//! The Butler end to end over the 50 evaluation conversations
//! (`examples/data/butler/conversations.json`) with its real specialists: intent accuracy,
//! tool-call validity and task success, by kind, and for each turn's classification call the
//! prompt tokens the server had cached and the call's wall time (first turn against later
//! turns).
//!
//! ```sh
//! # the recorded model answers (the default)
//! cargo run --release -p navigator-eval --bin butler_conversations
//! # a live OpenAI-compatible server, e.g. the loopback llama.cpp of scripts/llm-server.sh
//! cargo run --release -p navigator-eval --bin butler_conversations -- \
//!     --llm-url http://127.0.0.1:8765/v1 --model gemma-3-270m [--limit 10] [--timeout 300]
//! ```
//!
//! `--limit N` runs N conversations spread evenly over the set; `--timeout` bounds each model
//! call in seconds (a failed call counts as an error of its turn, never hidden).
//!
//! Needs the local MiniLM model (`scripts/setup-embeddings.sh`).

use anyhow::{bail, Context as _};
use navigator_core::{Embedder, FastEmbedder, HttpOptions, JsonMode, OpenAiClient, OpenAiConfig};
use navigator_eval::butler_conversations::{load, run, run_recorded, Report, World};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data");

struct Args {
    url: Option<String>,
    model: String,
    limit: usize,
    timeout: u64,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        url: None,
        model: "gemma-3-270m".into(),
        limit: usize::MAX,
        timeout: 300,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--recorded" => a.url = None,
            "--llm-url" => a.url = Some(value()?),
            "--model" => a.model = value()?,
            "--limit" => a.limit = value()?.parse()?,
            "--timeout" => a.timeout = value()?.parse()?,
            other => bail!("unknown argument {other} (--recorded | --llm-url URL --model NAME [--limit N] [--timeout S])"),
        }
    }
    Ok(a)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    navigator_eval::help::exit_on_help(include_str!("butler_conversations.rs"));
    let args = args()?;
    let data = Path::new(DATA).join("butler");
    let conversations = load(&data.join("conversations.json"))?;
    let embedder: Arc<dyn Embedder> = Arc::new(FastEmbedder::default_model()?);
    let world = World::open(&data, &Path::new(DATA).join("para_kb.json"), embedder).await?;
    let llm = match &args.url {
        None => None,
        Some(url) => {
            let http = HttpOptions {
                timeout: Duration::from_secs(args.timeout),
                ..HttpOptions::default()
            };
            let config = OpenAiConfig::compatible(url.clone(), args.model.clone())
                .with_provider("llama.cpp")
                .with_http(http);
            Some(Arc::new(OpenAiClient::new(config)?))
        }
    };
    match &args.url {
        None => println!(
            "recorded model answers, {} conversations",
            conversations.len()
        ),
        Some(url) => println!("live: {} at {url}", args.model),
    }
    let started = Instant::now();
    let mut results = Vec::new();
    // A limit takes conversations evenly spaced over the set, so every kind is represented.
    let step = conversations.len().div_ceil(args.limit.max(1)).max(1);
    for c in conversations.iter().step_by(step).take(args.limit) {
        let t = Instant::now();
        let result = match &llm {
            None => {
                let (result, left) = run_recorded(&world, c).await?;
                if left > 0 {
                    println!("{}: {left} recorded answers not used", c.id);
                }
                result
            }
            Some(llm) => run(&world, c, llm.clone(), JsonMode::JsonSchema).await?,
        };
        println!(
            "{} ({}): {} in {:.1} s",
            c.id,
            c.kind,
            match result.succeeded() {
                true => "ok",
                false => "FAILED",
            },
            t.elapsed().as_secs_f64()
        );
        results.push(result);
    }
    println!(
        "\n{} conversations in {:.0} s\n",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", Report::of(&results));
    Ok(())
}
