//! The Butler over the evaluation's 50 conversations with the recorded model answers and the
//! real specialists (embedded engine + MiniLM, context explorer, workflow engine over MCP).
//! Only the model's words are recorded: a tool that starts returning other results, an
//! intent routed elsewhere or a task left in another state fails here.
//!
//! Needs the local MiniLM model (`scripts/setup-embeddings.sh`).

use navigator_core::{Embedder, FastEmbedder};
use navigator_eval::butler_conversations::{load, run_recorded, Report, World};
use std::path::Path;
use std::sync::Arc;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data");

/// Tool calls in the recorded answers, and the five deliberately invalid ones (a string for a
/// number twice, an unknown field three times) that the model corrects after the error result.
const CALLS: usize = 86;
const INVALID: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_conversations_all_succeed_with_the_real_specialists() {
    let data = Path::new(DATA).join("butler");
    let conversations = load(&data.join("conversations.json")).unwrap();
    assert_eq!(conversations.len(), 50);
    let embedder: Arc<dyn Embedder> = Arc::new(
        FastEmbedder::default_model().expect("MiniLM installed (scripts/setup-embeddings.sh)"),
    );
    let world = World::open(&data, &Path::new(DATA).join("para_kb.json"), embedder)
        .await
        .unwrap();
    let mut results = Vec::new();
    for c in &conversations {
        let (result, left) = run_recorded(&world, c).await.unwrap();
        assert_eq!(left, 0, "{}: {left} recorded answers were not used", c.id);
        results.push(result);
    }
    let report = Report::of(&results);
    println!("{report}");
    assert!(report.failures.is_empty(), "{report}");
    let t = report.total;
    assert_eq!((t.succeeded, t.conversations), (50, 50));
    assert_eq!(t.intents_correct, t.turns);
    assert_eq!((t.valid_calls, t.calls), (CALLS - INVALID, CALLS));
    assert_eq!(
        report.call_statuses.get("invalid_arguments"),
        Some(&INVALID)
    );
    assert_eq!((t.errors, t.fallbacks, t.failed_llm_calls), (0, 0, 0));
}
