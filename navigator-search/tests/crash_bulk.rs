//! Kill -9 a writer process at random points while it bulk-loads large batches with
//! precomputed vectors (the path whose vectors wait for the graph in a backlog, searched
//! exactly, and whose keyword documents are analysed while the store writes), 8 times over
//! one engine directory; the writer also saves the vector files every third batch, so kills
//! land before, during and after saves of a graph that holds only part of the vectors.
//! After each kill: every acknowledged item is in the store, found by its keyword and by
//! its vector, the counts of store and indexes agree; then the graph is finished and the
//! vectors are still found.
//!
//! The writer is this test binary re-invoked (`bulk_writer`, ignored in normal runs) with
//! `NAV_BULK_DIR` set; it prints `ACK <run> <n>` after each batch returns.

mod common;

use common::{config, embedder, now};
use navigator_core::{Item, ItemType, SearchMode, SearchRequest, SearchService};
use navigator_search::SearchEngine;
use std::time::Duration;

const RUNS: u64 = 8;
/// Larger than the batch size from which vectors go to the graph backlog (256).
const BATCH: usize = 300;
const DIMS: usize = 384;

fn bulk_item(run: u64, n: usize) -> Item {
    Item::new(
        format!("bulk_{run}_{n}"),
        ItemType::Resource,
        format!("Bulk note r{run}x{n}"),
        now(),
    )
    .unwrap()
    .with_body(format!("Imported by writer {run} as item {n}."))
}

/// A pseudo-random unit vector per item (far from every other item's).
fn bulk_vector(run: u64, n: usize) -> Vec<f32> {
    let mut state = (run << 32 | n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f32> = (0..DIMS)
        .map(|_| (common::next_random(&mut state) % 2001) as f32 / 1000.0 - 1.0)
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

#[tokio::test]
#[ignore = "writer process for kill_9_during_bulk_loads_with_a_graph_backlog_loses_nothing"]
async fn bulk_writer() {
    let engine = common::writer_engine("NAV_BULK_DIR").await;
    let run = common::writer_run("NAV_BULK_RUN");
    for (i, start) in (0..6_000).step_by(BATCH).enumerate() {
        let items: Vec<Item> = (start..start + BATCH).map(|n| bulk_item(run, n)).collect();
        let vectors: Vec<Vec<f32>> = (start..start + BATCH)
            .map(|n| bulk_vector(run, n))
            .collect();
        engine.upsert_with_vectors(&items, &vectors).await.unwrap();
        common::ack(run, start + BATCH);
        if i % 3 == 2 {
            engine.flush().unwrap();
        }
    }
}

/// Whether `id` is the best semantic hit for its own vector; when not, what was found
/// instead (the top hits with their scores and the graph's backlog), for the failure message.
fn found_by_vector(engine: &SearchEngine, run: u64, n: usize) -> Result<(), String> {
    let request = SearchRequest::new("imported note")
        .unwrap()
        .mode(SearchMode::Semantic)
        .limit(5);
    let page = engine
        .search_with_vector(&request, Some(&bulk_vector(run, n)))
        .unwrap();
    let id = format!("bulk_{run}_{n}");
    if page.results.first().is_some_and(|hit| hit.item_id == id) {
        return Ok(());
    }
    let top: Vec<String> = page
        .results
        .iter()
        .map(|h| format!("{} {:.4}", h.item_id, h.relevance_score))
        .collect();
    let nearest = engine.nearest(&bulk_vector(run, n), 5);
    let beam = engine.search_beam();
    engine.set_search_beam(100_000);
    let wide = engine.nearest(&bulk_vector(run, n), 2);
    engine.set_search_beam(beam);
    Err(format!(
        "{id} by vector: top hits {top:?}, nearest {nearest:?}, with the widest beam {wide:?}, backlog {:?}, stored {}, {} items",
        engine.graph_backlog(),
        engine.item(&id).is_ok_and(|i| i.is_some()),
        engine.len()
    ))
}

#[tokio::test]
async fn kill_9_during_bulk_loads_with_a_graph_backlog_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = 0xb01d_u64;
    let mut acked: Vec<(u64, usize)> = Vec::new();
    let log = dir.path().join("writer.log");
    for run in 0..RUNS {
        let run_id = run.to_string();
        let (writer, mut lines) = common::Writer::start(
            "bulk_writer",
            &[
                ("NAV_BULK_DIR", dir.path().as_os_str()),
                ("NAV_BULK_RUN", run_id.as_ref()),
            ],
            &log,
        );
        std::thread::sleep(Duration::from_millis(common::next_random(&mut rng) % 2_000));
        lines.extend(writer.kill());
        let last_ack = common::last_ack(&lines, run);
        acked.extend((0..last_ack).map(|n| (run, n)));

        let engine = SearchEngine::open_with(dir.path(), embedder(), config())
            .await
            .unwrap();
        assert!(engine.len() >= acked.len(), "run {run}");
        assert_eq!(engine.chunk_count().unwrap(), engine.len(), "run {run}");
        // Every acknowledged item is stored; the newest batch and a sample of the rest are
        // checked by keyword and by vector (the newest are in the backlog or were replayed).
        for &(r, n) in &acked {
            let id = format!("bulk_{r}_{n}");
            assert!(engine.item(&id).unwrap().is_some(), "run {run}: {id} lost");
        }
        let sample: Vec<(u64, usize)> = acked
            .iter()
            .rev()
            .take(100)
            .chain(acked.iter().step_by(197))
            .copied()
            .collect();
        for &(r, n) in &sample {
            let page = engine
                .search(
                    &SearchRequest::new(format!("r{r}x{n}"))
                        .unwrap()
                        .mode(SearchMode::Keyword),
                )
                .await
                .unwrap();
            let ids: Vec<&str> = page.results.iter().map(|h| h.item_id.as_str()).collect();
            assert_eq!(ids, [format!("bulk_{r}_{n}")], "run {run}: keyword");
            if let Err(why) = found_by_vector(&engine, r, n) {
                panic!("run {run}: {why}");
            }
        }
        let all = engine
            .search(
                &SearchRequest::new("bulk note")
                    .unwrap()
                    .mode(SearchMode::Keyword)
                    .limit(1),
            )
            .await
            .unwrap();
        assert_eq!(all.total_results as usize, engine.len(), "run {run}");
        // The graph takes the whole backlog and answers the same.
        engine.finish_graph().unwrap();
        assert_eq!(engine.graph_backlog().unwrap(), 0);
        for &(r, n) in sample.iter().step_by(7) {
            if let Err(why) = found_by_vector(&engine, r, n) {
                panic!("run {run}, through the graph: {why}");
            }
        }
    }
    eprintln!("{} items acknowledged over {RUNS} writers", acked.len());
    assert!(
        acked.len() >= 3 * BATCH,
        "the writers acknowledged too little to test: {}",
        acked.len()
    );
}
