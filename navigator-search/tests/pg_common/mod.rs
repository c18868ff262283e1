//! Shared by the PostgreSQL tests: the server URL (from `scripts/postgres.sh`, which
//! `scripts/test.sh` starts), a fresh schema per test, and a small deterministic embedder.
#![allow(dead_code)] // each test binary uses a different subset

use navigator_search::pg::{PgConfig, PgStore};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The server's URL. Under CI (`CI` set) a missing URL fails the test: the suite must run
/// against a real server there. By hand it skips with a message.
pub fn url() -> Option<String> {
    match std::env::var("NAVIGATOR_PG_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => panic!(
            "NAVIGATOR_PG_URL is not set under CI: run ./scripts/test.sh, which starts \
             PostgreSQL with scripts/postgres.sh"
        ),
        _ => {
            eprintln!(
                "skipping: NAVIGATOR_PG_URL is not set (eval \"$(bash scripts/postgres.sh start)\")"
            );
            None
        }
    }
}

/// A schema name no other test (or test run) uses.
pub fn unique_schema(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "t_{tag}_{}_{}_{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A config on a fresh schema with `dims`-dimensional vectors.
pub fn config(url: &str, tag: &str, dims: usize) -> PgConfig {
    PgConfig::new(url)
        .schema(unique_schema(tag))
        .dimensions(dims)
        .max_connections(8)
}

/// A store on a fresh schema, or `None` when the test is skipped.
pub async fn store(tag: &str, dims: usize) -> Option<PgStore> {
    let url = url()?;
    Some(PgStore::connect(config(&url, tag, dims)).await.unwrap())
}

#[path = "../contract/words.rs"]
pub mod words;
#[allow(unused_imports)] // each test binary uses a different subset
pub use words::{word_vector, WordHash, DIMS};
