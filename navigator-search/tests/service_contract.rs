//! The `SearchService` contract ([`contract::search_contract`]) on both backends over the
//! same items and the same deterministic embedder: the embedded engine and PostgreSQL
//! (started by `scripts/postgres.sh`; skipped by hand without `NAVIGATOR_PG_URL`, required
//! under CI).

mod contract;
#[cfg(feature = "postgres")]
mod pg_common;
#[cfg(feature = "postgres")]
use pg_common::words;
#[cfg(not(feature = "postgres"))]
#[path = "contract/words.rs"]
mod words;

use navigator_search::{EngineConfig, SearchEngine};
use std::sync::Arc;
use words::WordHash;

#[tokio::test]
async fn embedded_engine_keeps_the_search_contract() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), Arc::new(WordHash), EngineConfig::default())
        .await
        .unwrap();
    engine.upsert(&contract::corpus()).await.unwrap();
    contract::search_contract(&engine).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_keeps_the_search_contract() {
    use navigator_search::pg::PgSearchService;
    let Some(store) = pg_common::store("service_contract", words::DIMS).await else {
        return;
    };
    let pg = PgSearchService::new(store, Arc::new(WordHash), EngineConfig::default()).unwrap();
    pg.upsert(&contract::corpus()).await.unwrap();
    contract::search_contract(&pg).await;
    pg.store().drop_schema().await.unwrap();
}
