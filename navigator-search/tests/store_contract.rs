//! The `Store` contract ([`contract::store_contract`]) on every store the workspace ships:
//! in memory, redb on disk, and PostgreSQL (started by `scripts/postgres.sh`; skipped by hand
//! without `NAVIGATOR_PG_URL`, required under CI).

mod contract;
#[cfg(feature = "postgres")]
mod pg_common;

use navigator_core::MemoryStore;
use navigator_search::RedbStore;

#[tokio::test]
async fn memory_store_keeps_the_store_contract() {
    contract::store_contract(&MemoryStore::new()).await;
}

#[tokio::test]
async fn redb_store_keeps_the_store_contract() {
    let dir = tempfile::tempdir().unwrap();
    let store = RedbStore::open(dir.path().join("store.redb")).unwrap();
    contract::store_contract(&store).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_store_keeps_the_store_contract() {
    let Some(store) = pg_common::store("store_contract", 4).await else {
        return;
    };
    contract::store_contract(&store).await;
    store.drop_schema().await.unwrap();
}
