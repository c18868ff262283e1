//! The embedded engine at scale on the synthetic knowledge base of `benches/search.rs`
//! (precomputed 384-d vectors: no embedding is timed), in two steps so that opening is
//! measured in a fresh process:
//!
//! ```text
//! cargo run --release -p navigator-eval --bin scale_bench -- build 1000000 /data/kb-1m
//! cargo run --release -p navigator-eval --bin scale_bench -- open 1000000 /data/kb-1m
//! ```
//!
//! `build` writes the items in batches of 5 000 and compacts, printing the throughput (items
//! durable and searchable); then times 20 semantic searches while the vectors still wait in
//! the graph backlog (scanned exactly), and finishes the graph, printing how long it took.
//! `open-only` opens and closes the index, printing both times (the open time with a cold page
//! cache is measured this way after `echo 3 > /proc/sys/vm/drop_caches`). `finish` builds what
//! waits in the graph backlog and saves.
//! `open` opens the index, printing the open time and the process's resident memory split
//! into heap (anonymous) and mapped files, then runs the corpus's 200 queries in each mode
//! and prints p50 / p99; then, for search beams of 160 to 2 560 (400 is the default), recall@10 of
//! the raw neighbour search against an exact scan (100 queries) with semantic and hybrid p50
//! at that beam. The queries and their exact neighbours are computed by a child process (the
//! whole corpus has to be generated to make them), so the memory printed is the engine's
//! alone.

use navigator_core::{Embedder, FastEmbedder, ItemType, SearchMode, SearchRequest};
use navigator_search::SearchEngine;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

const TYPES: [ItemType; 3] = [ItemType::Task, ItemType::Resource, ItemType::Project];
const USAGE: &str = "usage: scale_bench build|open|open-only|finish|queries <items> <dir>";

type Queries = Vec<(String, Vec<f32>)>;
/// Queries whose exact neighbours are computed for recall.
const PROBES: usize = 100;
/// Search beams `open` measures recall and latency at.
const BEAMS: [usize; 7] = [160, 320, 400, 480, 640, 1280, 2560];

fn main() {
    navigator_eval::help::exit_on_help(include_str!("scale_bench.rs"));
    if let Err(e) = run() {
        eprintln!("scale_bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, n, dir] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let n: usize = n.parse().map_err(|_| USAGE)?;
    let dir = PathBuf::from(dir);
    match command.as_str() {
        "build" => build(n, &dir),
        "open" => open_and_query(n, &dir),
        "open-only" => open_only(&dir),
        "finish" => finish(&dir),
        "queries" => write_queries(&navigator_eval::synthetic::corpus(n, &TYPES), &dir),
        _ => Err(USAGE.into()),
    }
}

fn queries_file(dir: &Path) -> PathBuf {
    dir.join("bench-queries.json")
}

fn truth_file(dir: &Path) -> PathBuf {
    dir.join("bench-truth.json")
}

/// Writes the corpus's queries and the exact 10 nearest items of the first [`PROBES`].
fn write_queries(
    corpus: &navigator_eval::synthetic::Corpus,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(queries_file(dir), serde_json::to_vec(&corpus.queries)?)?;
    let truth = corpus.exact_neighbours(PROBES, 10);
    std::fs::write(truth_file(dir), serde_json::to_vec(&truth)?)?;
    Ok(())
}

fn open(dir: &Path, rt: &tokio::runtime::Runtime) -> navigator_search::Result<SearchEngine> {
    rt.block_on(navigator_eval::synthetic::bench_engine(dir, model()?))
}

/// The embedding model (its vectors are not used: the bench's are precomputed).
fn model() -> navigator_search::Result<Arc<dyn Embedder>> {
    Ok(Arc::new(FastEmbedder::default_model()?))
}

fn build(n: usize, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    if dir.join("store.redb").exists() {
        return Err(format!("{} already holds an index", dir.display()).into());
    }
    let corpus = navigator_eval::synthetic::corpus(n, &TYPES);
    let rt = tokio::runtime::Runtime::new()?;
    let engine = open(dir, &rt)?;
    let t = Instant::now();
    for (items, vectors) in corpus.items.chunks(5_000).zip(corpus.vectors.chunks(5_000)) {
        rt.block_on(engine.upsert_with_vectors(items, vectors))?;
    }
    let written = t.elapsed();
    engine.compact()?;
    let total = t.elapsed();
    println!(
        "{n} items: writes {:.1} s, compact {:.1} s: {:.0} items/s, durable and searchable",
        written.as_secs_f64(),
        (total - written).as_secs_f64(),
        n as f64 / total.as_secs_f64()
    );
    // The vector graph is built behind the writes: meanwhile semantic searches scan the
    // backlog exactly. What that costs, then this thread finishes the graph.
    let backlog = engine.graph_backlog()?;
    let mut ms: Vec<f64> = corpus
        .queries
        .iter()
        .take(20)
        .map(|(text, vector)| {
            let request = SearchRequest::new(text)?
                .mode(SearchMode::Semantic)
                .limit(10);
            let t = Instant::now();
            engine.search_with_vector(&request, Some(vector))?;
            Ok(t.elapsed().as_secs_f64() * 1000.0)
        })
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    ms.sort_by(f64::total_cmp);
    println!(
        "semantic search with {backlog} chunks in the backlog: p50 {:.1} ms ({} queries)",
        ms[ms.len() / 2],
        ms.len()
    );
    let g = Instant::now();
    engine.finish_graph()?;
    engine.flush()?;
    let graph = g.elapsed();
    println!(
        "graph: {backlog} chunks left after the writes, built and saved in {:.1} s ({:.0} items/s with the graph)",
        graph.as_secs_f64(),
        n as f64 / (total + graph).as_secs_f64()
    );
    write_queries(&corpus, dir)
}

/// Opens the index, prints how long that took and the resident memory, and closes it.
/// Builds whatever waits in the graph backlog of the index in `dir` and saves it (an index
/// whose vector files were rebuilt from the store on open starts with a large backlog).
fn finish(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Runtime::new()?;
    let engine = opened(dir, &rt)?;
    let t = Instant::now();
    engine.finish_graph()?;
    engine.flush()?;
    println!(
        "graph finished and saved in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

fn open_only(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let rt = tokio::runtime::Runtime::new()?;
    let engine = opened(dir, &rt)?;
    let t = Instant::now();
    drop(engine);
    println!("closed in {:.2} s", t.elapsed().as_secs_f64());
    Ok(())
}

/// The engine in `dir`, opened with its open time and resident memory printed.
fn opened(
    dir: &Path,
    rt: &tokio::runtime::Runtime,
) -> Result<SearchEngine, Box<dyn std::error::Error>> {
    let (before, _, _) = navigator_eval::synthetic::resident_mib();
    let t = Instant::now();
    let embedder = model()?;
    let model = t.elapsed();
    let t = Instant::now();
    let engine = rt.block_on(navigator_eval::synthetic::bench_engine(dir, embedder))?;
    let opened = t.elapsed();
    let (rss, anon, files) = navigator_eval::synthetic::resident_mib();
    println!(
        "{} items: open {:.2} s (the embedding model loaded before it: {:.2} s); resident {:.0} MiB ({:.0} heap, {:.0} mapped files; {:.0} before opening); graph backlog {}",
        engine.len(),
        opened.as_secs_f64(),
        model.as_secs_f64(),
        rss,
        anon,
        files,
        before,
        engine.graph_backlog()?
    );
    if !engine.repairs().is_empty() {
        println!("repairs: {:?}", engine.repairs());
    }
    Ok(engine)
}

fn open_and_query(n: usize, dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    if !truth_file(dir).exists() {
        let status = std::process::Command::new(std::env::current_exe()?)
            .args(["queries", &n.to_string(), &dir.to_string_lossy()])
            .status()?;
        if !status.success() {
            return Err("generating the queries failed".into());
        }
    }
    let queries: Queries = serde_json::from_slice(&std::fs::read(queries_file(dir))?)?;
    let truth: Vec<Vec<String>> = serde_json::from_slice(&std::fs::read(truth_file(dir))?)?;
    let rt = tokio::runtime::Runtime::new()?;
    let engine = opened(dir, &rt)?;
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        let (p50, p99) = latency(&engine, &queries, mode)?;
        println!("{mode:?}: p50 {p50:.3} ms, p99 {p99:.3} ms");
    }
    let (rss, anon, files) = navigator_eval::synthetic::resident_mib();
    println!(
        "after {} queries: resident {:.0} MiB ({:.0} heap, {:.0} mapped files)",
        3 * ROUNDS * queries.len(),
        rss,
        anon,
        files
    );
    for beam in BEAMS {
        engine.set_search_beam(beam);
        let mut recall = 0.0;
        for ((_, vector), t) in queries.iter().zip(&truth) {
            recall += navigator_eval::synthetic::recall(&engine.nearest(vector, 10)?, t);
        }
        let (semantic, _) = latency(&engine, &queries, SearchMode::Semantic)?;
        let (hybrid, hybrid99) = latency(&engine, &queries, SearchMode::Hybrid)?;
        println!(
            "beam {beam}: recall@10 {:.4} ({} queries); semantic p50 {semantic:.3} ms, hybrid p50 {hybrid:.3} ms, p99 {hybrid99:.3} ms",
            recall / truth.len() as f64,
            truth.len()
        );
    }
    Ok(())
}

/// Times each query is run when measuring latency: one pass of 100 queries moved the p50 by
/// up to a millisecond between otherwise identical runs at a million items.
const ROUNDS: usize = 3;

/// p50 and p99 in milliseconds of `queries` in `mode` ([`ROUNDS`] passes), ten results each.
fn latency(
    engine: &SearchEngine,
    queries: &Queries,
    mode: SearchMode,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let mut ms = Vec::with_capacity(queries.len() * ROUNDS);
    for (text, vector) in queries.iter().cycle().take(queries.len() * ROUNDS) {
        let request = SearchRequest::new(text)?.mode(mode).limit(10);
        let t = Instant::now();
        engine.search_with_vector(&request, Some(vector))?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() as f64 * p) as usize).min(ms.len() - 1)];
    Ok((at(0.5), at(0.99)))
}
