//! Shared fixtures: the real MiniLM embedder (loaded once per test binary), the sample
//! knowledge base, and one engine over it built once per test binary.
#![allow(dead_code)] // each test binary uses a different subset

use navigator_core::{Embedder, FastEmbedder, Item};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::sync::{Arc, OnceLock};

/// "Today" in the sample knowledge base's world.
pub fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-11-21T12:00:00Z")
        .unwrap()
        .to_utc()
}

pub fn config() -> EngineConfig {
    EngineConfig {
        clock: Arc::new(FixedClock(now())),
        ..EngineConfig::default()
    }
}

pub fn embedder() -> Arc<dyn Embedder> {
    static E: OnceLock<Arc<FastEmbedder>> = OnceLock::new();
    E.get_or_init(|| {
        Arc::new(
            FastEmbedder::default_model()
                .expect("the MiniLM model is installed (scripts/setup-embeddings.sh)"),
        )
    })
    .clone()
}

pub fn kb_items() -> Vec<Item> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/data/para_kb.json");
    navigator_core::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One engine over the sample knowledge base, shared by the tests of a binary (indexing the
/// 200 items with the real model once keeps the suite fast).
pub fn kb_engine() -> Arc<SearchEngine> {
    static ENGINE: OnceLock<(Arc<SearchEngine>, tempfile::TempDir)> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            // Built on its own thread and runtime: the tests themselves run inside one.
            std::thread::spawn(|| {
                let rt = tokio::runtime::Runtime::new().unwrap();
                rt.block_on(async {
                    let dir = tempfile::tempdir().unwrap();
                    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
                        .await
                        .unwrap();
                    engine.bulk_load(&kb_items(), |_| {}).await.unwrap();
                    (Arc::new(engine), dir)
                })
            })
            .join()
            .unwrap()
        })
        .0
        .clone()
}
