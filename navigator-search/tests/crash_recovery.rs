//! Kill -9 a writer process at random points while it indexes, 20 times over one engine
//! directory; after each kill, reopen and check that every acknowledged item is searchable
//! (keyword and vector) and that store and indexes agree.
//!
//! The writer is this test binary re-invoked (`crash_writer`, ignored in normal runs) with
//! `NAV_CRASH_DIR` set; it prints `ACK <run> <n>` after each batch `upsert` returns.

mod common;

use common::{config, embedder, now};
use navigator_core::{Item, ItemType, SearchMode, SearchRequest, SearchService};
use navigator_search::SearchEngine;
use std::time::{Duration, Instant};

const RUNS: u64 = 20;
const BATCH: usize = 4;

fn crash_item(run: u64, n: usize) -> Item {
    Item::new(
        format!("crash_{run}_{n}"),
        ItemType::Resource,
        format!("Crash note k{run}n{n}"),
        now(),
    )
    .unwrap()
    .with_body(format!(
        "Batch written by writer run {run}, item {n}: notes about topic {}.",
        n % 7
    ))
}

#[tokio::test]
#[ignore = "writer process for kill_9_during_bulk_indexing_loses_nothing"]
async fn crash_writer() {
    let engine = common::writer_engine("NAV_CRASH_DIR").await;
    let run = common::writer_run("NAV_CRASH_RUN");
    for start in (0..400).step_by(BATCH) {
        let batch: Vec<Item> = (start..start + BATCH).map(|n| crash_item(run, n)).collect();
        engine.upsert(&batch).await.unwrap();
        common::ack(run, start + BATCH);
    }
}

#[tokio::test]
async fn kill_9_during_bulk_indexing_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = 0x5eed_u64;
    let mut acked: Vec<(u64, usize)> = Vec::new();
    let log = dir.path().join("writer.log");
    for run in 0..RUNS {
        // Wait until the writer has opened the engine, then let it write for a random time
        // (sometimes zero: killed before its first acknowledgement).
        let started = Instant::now();
        let run_id = run.to_string();
        let (writer, mut lines) = common::Writer::start(
            "crash_writer",
            &[
                ("NAV_CRASH_DIR", dir.path().as_os_str()),
                ("NAV_CRASH_RUN", run_id.as_ref()),
            ],
            &log,
        );
        let delay = Duration::from_millis(common::next_random(&mut rng) % 1500);
        std::thread::sleep(delay);
        lines.extend(writer.kill());
        let last_ack = common::last_ack(&lines, run);
        acked.extend((0..last_ack).map(|n| (run, n)));
        assert!(started.elapsed() < Duration::from_secs(300));

        let engine = SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap();
        for &(r, n) in &acked {
            let id = format!("crash_{r}_{n}");
            assert!(
                engine.item(&id).unwrap().is_some(),
                "run {run}: {id} lost from the store"
            );
            let page = engine
                .search(
                    &SearchRequest::new(format!("k{r}n{n}"))
                        .unwrap()
                        .mode(SearchMode::Keyword),
                )
                .await
                .unwrap();
            assert_eq!(
                page.results.len(),
                1,
                "run {run}: {id} keyword hits {:?}",
                page.results
            );
            assert_eq!(page.results[0].item_id, id);
        }
        // Vectors: the newest acknowledged items are found by their own text.
        for &(r, n) in acked.iter().rev().take(2) {
            let it = crash_item(r, n);
            let page = engine
                .search(
                    &SearchRequest::new(it.embedding_text())
                        .unwrap()
                        .mode(SearchMode::Semantic)
                        .limit(3),
                )
                .await
                .unwrap();
            assert!(
                page.results.iter().any(|h| h.item_id == it.id),
                "run {run}: {} not found by meaning",
                it.id
            );
        }
        // Nothing half-written: every stored item is searchable and the counts agree.
        let all = engine
            .search(
                &SearchRequest::new("crash note")
                    .unwrap()
                    .mode(SearchMode::Keyword)
                    .limit(1),
            )
            .await
            .unwrap();
        assert_eq!(all.total_results as usize, engine.len(), "run {run}");
        assert!(engine.len() >= acked.len());
    }
    assert!(
        acked.len() > 20,
        "the writers acknowledged too little to test: {}",
        acked.len()
    );
}
