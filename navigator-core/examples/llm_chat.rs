//! Talks to a chat model through the `Llm` trait and prints what it measured: latency,
//! time to first streamed text, output tokens per second, structured-output success, cost.
//!
//! Picks the provider from the environment, first match wins:
//! - `NAVIGATOR_LLM_SERVER_URL` — an OpenAI-compatible server (the loopback llama.cpp one from
//!   `scripts/llm-server.sh start`, Ollama, vLLM, LM Studio), no key;
//! - `ANTHROPIC_API_KEY` — Anthropic, `claude-haiku-4-5` (override with `NAVIGATOR_LLM_MODEL`);
//! - `OPENAI_API_KEY` — OpenAI, `gpt-4.1-mini` (same override).
//!
//! ```text
//! bash scripts/setup-llm-server.sh && eval "$(bash scripts/llm-server.sh start)"
//! NAVIGATOR_LLM_SERVER_URL=http://127.0.0.1:8765 cargo run --release -p navigator-core --example llm_chat
//! ```

use navigator_core::{
    AnthropicClient, AnthropicConfig, ChatRequest, CostTracker, Extractor, Llm, OpenAiClient,
    OpenAiConfig, Pricing, PricingTable, SystemBlock, TrackedLlm,
};
use std::time::{Duration, Instant};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Greeting,
    Question,
    Request,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Classified {
    kind: Kind,
    urgent: bool,
}

const CALLS: usize = 5;

fn provider() -> Result<Box<dyn Llm>, Box<dyn std::error::Error>> {
    let model = std::env::var("NAVIGATOR_LLM_MODEL").ok();
    if let Ok(url) = std::env::var("NAVIGATOR_LLM_SERVER_URL") {
        let base = format!("{}/v1", url.trim_end_matches('/'));
        let model = model.unwrap_or_else(|| "gemma-3-270m".into());
        return Ok(Box::new(OpenAiClient::new(
            OpenAiConfig::compatible(base, model).with_provider("llama.cpp"),
        )?));
    }
    if std::env::var("ANTHROPIC_API_KEY").is_ok() {
        let model = model.unwrap_or_else(|| "claude-haiku-4-5".into());
        return Ok(Box::new(AnthropicClient::new(AnthropicConfig::new(model))?));
    }
    if std::env::var("OPENAI_API_KEY").is_ok() {
        let model = model.unwrap_or_else(|| "gpt-4.1-mini".into());
        return Ok(Box::new(OpenAiClient::new(OpenAiConfig::openai(model))?));
    }
    Err("set NAVIGATOR_LLM_SERVER_URL, ANTHROPIC_API_KEY or OPENAI_API_KEY".into())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let inner = provider()?;
    let mut pricing = PricingTable::default();
    // Local models cost nothing per token; name them so the tracker can price them.
    pricing.set("gemma", Pricing::free());
    let tracker = CostTracker::new(pricing);
    let llm = TrackedLlm::new(inner, tracker.clone());
    println!("provider {} / model {}", llm.provider(), llm.model());

    let system = SystemBlock::cached("You are a concise assistant. Answer in one sentence.");
    let mut latencies = Vec::new();
    let (mut out_tokens, mut busy) = (0u64, Duration::ZERO);
    for i in 0..CALLS {
        let request = ChatRequest {
            temperature: Some(0.0),
            ..ChatRequest::new(format!("Give me tip number {} for a tidy desk.", i + 1))
                .with_system(system.clone())
                .with_max_tokens(32)
        };
        let started = Instant::now();
        let answer = llm.chat(&request).await?;
        let took = started.elapsed();
        latencies.push(took);
        out_tokens += answer.usage.output_tokens;
        busy += took;
        if i == 0 {
            println!("first answer: {:?}", answer.text.trim());
        }
    }

    let mut ttft = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        let mut first = None;
        llm.chat_stream(
            &ChatRequest::new("Name three colours.").with_max_tokens(16),
            &mut |_: &str| {
                first.get_or_insert_with(|| started.elapsed());
            },
        )
        .await?;
        ttft.extend(first);
    }

    let extractor = Extractor::<Classified>::new().retries(1);
    let mut ok = 0;
    let mut attempts = 0;
    let messages = [
        "Hello!",
        "Where is the budget sheet?",
        "Send the invoice now, it's urgent.",
        "Good night",
        "Can you book a table?",
    ];
    for m in messages {
        let request = ChatRequest {
            temperature: Some(0.0),
            ..ChatRequest::new(format!("Classify this message: {m}")).with_max_tokens(48)
        };
        match extractor.extract(&llm, request).await {
            Ok(got) => {
                ok += 1;
                attempts += got.attempts;
                println!(
                    "  {m:?} -> {:?}{}",
                    got.value.kind,
                    if got.value.urgent { " (urgent)" } else { "" }
                );
            }
            Err(e) => println!("  {m:?} -> error: {e}"),
        }
    }

    println!(
        "chat      : {CALLS} calls, median latency {} ms, {:.1} output tokens/s (end to end)",
        median(latencies).as_millis(),
        out_tokens as f64 / busy.as_secs_f64()
    );
    if !ttft.is_empty() {
        println!(
            "streaming : median time to first text {} ms",
            median(ttft).as_millis()
        );
    }
    println!(
        "structured: {ok}/{} valid, {attempts} attempts in all",
        messages.len()
    );
    let usage = tracker.total_usage();
    println!(
        "usage     : {} calls, {} in ({} cache read, {} cache write), {} out, ${:.6}",
        tracker.calls(),
        usage.total_input(),
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.output_tokens,
        tracker.total_usd()
    );
    Ok(())
}
