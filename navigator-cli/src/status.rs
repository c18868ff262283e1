//! `navigator status`: what the index holds.

use crate::exit::Outcome;
use crate::home::{runtime, Home};
use navigator_core::{Category, ItemScan, ItemStore};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Show the data directory, the embedding model, how many items each category holds and
/// what the last `index` run did.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Re-embed every indexed note with the configured model, from the text the index keeps.
#[derive(Debug, clap::Args)]
pub struct ReindexArgs {}

/// Runs `navigator reindex`.
pub fn reindex(_args: ReindexArgs) -> Outcome {
    let home = Home::resolve()?;
    home.require_index()?;
    let started = std::time::Instant::now();
    let (items, chunks, model) = runtime()?.block_on(async {
        let engine = home.reindexed_engine().await?;
        let chunks = engine.chunk_count().map_err(crate::exit::Failure::from)?;
        Ok::<_, crate::exit::Failure>((engine.len(), chunks, engine.embedder().fingerprint()))
    })?;
    println!(
        "re-embedded {items} notes as {chunks} chunks with {model} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    let home = Home::resolve()?;
    let (model, chunks, counts) = if home.index_dir().exists() {
        runtime()?.block_on(async {
            let engine = home.engine().await?;
            let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
            for c in Category::ALL {
                counts.insert(c.as_str(), 0);
            }
            for item in engine
                .store()
                .scan_items(&ItemScan::default())
                .await
                .map_err(crate::exit::Failure::from)?
            {
                *counts.entry(item.category.as_str()).or_default() += 1;
            }
            let model = engine.embedder().fingerprint();
            let chunks = engine.chunk_count().map_err(crate::exit::Failure::from)?;
            Ok::<_, crate::exit::Failure>((Some(model), chunks, counts))
        })?
    } else {
        (None, 0, BTreeMap::new())
    };
    // Read once the index is open: a run this command waited for has recorded itself.
    let last = home.last_index();
    let total: u64 = counts.values().sum();
    if args.json {
        let v = serde_json::json!({
            "dataDir": home.dir(),
            "index": home.index_dir(),
            "items": total,
            "byCategory": counts,
            "chunks": chunks,
            "model": model,
            "lastIndex": last,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    println!("data directory  {}", home.dir().display());
    match &model {
        None => println!("index           none yet: run `navigator index <folder>`"),
        Some(m) => {
            let parts: Vec<String> = counts.iter().map(|(c, n)| format!("{n} {c}")).collect();
            println!("items           {total} ({})", parts.join(", "));
            println!("chunks          {chunks} embedded passages");
            println!("model           {m}");
        }
    }
    match last {
        Some(l) => println!(
            "last index      {} at {} ({} ms): {} added, {} updated, {} deleted, {} skipped",
            l.source,
            l.finished_at.format("%Y-%m-%d %H:%M:%S UTC"),
            l.duration_ms,
            l.report["added"],
            l.report["updated"],
            l.report["deleted"],
            l.report["skipped"].as_array().map_or(0, Vec::len),
        ),
        None => println!("last index      never"),
    }
    Ok(ExitCode::SUCCESS)
}
