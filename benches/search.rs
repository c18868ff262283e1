//! Search engine benchmarks: index throughput, query latency (p50/p99) for keyword, semantic
//! and hybrid search at 10k and 100k items, HNSW recall@10 against exact search, and — in the
//! same run over the same data — the SQLite FTS5 + sqlite-vec stack such applications often
//! start with.
//!
//! ```text
//! cargo bench -p navigator-eval --bench search            # everything (several minutes: builds 100k indexes)
//! NAV_BENCH_SIZES=10000 cargo bench -p navigator-eval --bench search
//! NAV_BENCH_SIZES=1000000 cargo bench -p navigator-eval --bench search   # 1M: ~15 min, ~8 GB disk
//! ```
//!
//! Besides latency it prints, per size, how long reopening the built index takes and the
//! process's resident memory before and after that open: the difference is what the
//! opened engine holds (the corpus itself stays in memory for the queries).
//!
//! The data is synthetic but shaped like a knowledge base: 64 topics, Zipf-distributed words
//! with topic-specific vocabulary, 384-d vectors clustered by topic (MiniLM's width), queries
//! of 2–3 words taken from an item with a vector near that item's. Vectors are precomputed:
//! embedding is excluded everywhere (it is measured by `benches/embedding.rs`).
//!
//! Each timed build starts after a `sync`, so neither side pays for writing back what ran
//! before it (the other side's files, an earlier size's index).

use criterion::{criterion_group, criterion_main, Criterion};
use navigator_core::{Embedder, FastEmbedder, ItemType, SearchMode, SearchRequest};
use navigator_search::SearchEngine;
use rusqlite::Connection;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use navigator_eval::synthetic::{bench_engine, corpus, resident_mib, Corpus, DIMS, QUERIES};

/// The item-type mix of the benchmark's knowledge base.
const TYPES: [ItemType; 12] = [
    ItemType::Task,
    ItemType::Task,
    ItemType::Task,
    ItemType::Project,
    ItemType::Resource,
    ItemType::Resource,
    ItemType::Contact,
    ItemType::Area,
    ItemType::ArchivedProject,
    ItemType::ArchivedResource,
    ItemType::Template,
    ItemType::Organization,
];

fn open(dir: &std::path::Path, embedder: Arc<dyn Embedder>) -> SearchEngine {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(bench_engine(dir, embedder)).unwrap()
}

/// Writes every dirty page back (untimed), so the next timed build starts from a quiet disk.
fn settle_disk() {
    if let Err(e) = std::process::Command::new("sync").status() {
        eprintln!("sync: {e}");
    }
}

/// The engine built over `c` in batches of 5 000, with how long until every item was durable
/// and searchable (the writes and the closing compaction), and how long the vector graph then
/// took to take the backlog the writes left (searched exactly until then).
fn engine(
    c: &Corpus,
    embedder: Arc<dyn Embedder>,
) -> (SearchEngine, tempfile::TempDir, Duration, Duration) {
    // Beside the target directory rather than in /tmp: a 1M index takes several GB.
    let dir = tempfile::tempdir_in(
        std::env::var_os("NAV_BENCH_DIR").unwrap_or_else(|| std::env::temp_dir().into_os_string()),
    )
    .unwrap();
    let engine = open(dir.path(), embedder);
    let rt = tokio::runtime::Runtime::new().unwrap();
    settle_disk();
    let t = Instant::now();
    for (items, vectors) in c.items.chunks(5_000).zip(c.vectors.chunks(5_000)) {
        rt.block_on(engine.upsert_with_vectors(items, vectors))
            .unwrap();
    }
    // What an import ends with (as `bulk_load` does): one keyword segment, the vectors saved.
    engine.compact().unwrap();
    let searchable = t.elapsed();
    let t = Instant::now();
    engine.finish_graph().unwrap();
    engine.flush().unwrap();
    (engine, dir, searchable, t.elapsed())
}

/// The SQLite baseline: FTS5 (porter stemming) for keywords, sqlite-vec `vec0` for vectors,
/// hybrid = both lists merged with reciprocal rank fusion.
struct Sqlite {
    conn: Connection,
}

impl Sqlite {
    fn build(c: &Corpus, dir: &std::path::Path) -> (Self, Duration) {
        // SAFETY: registers sqlite-vec's entry point for every new connection, as its docs show.
        unsafe {
            #[allow(clippy::missing_transmute_annotations)]
            rusqlite::ffi::sqlite3_auto_extension(Some(std::mem::transmute(
                sqlite_vec::sqlite3_vec_init as *const (),
            )));
        }
        let conn = Connection::open(dir.join("baseline.sqlite")).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
             CREATE TABLE items(id INTEGER PRIMARY KEY, item_id TEXT, category TEXT, updated INTEGER, access INTEGER);
             CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize='porter');
             CREATE VIRTUAL TABLE vecs USING vec0(embedding float[{DIMS}]);"
        ))
        .unwrap();
        settle_disk();
        let t = Instant::now();
        let tx = conn.unchecked_transaction().unwrap();
        {
            let mut ins = tx
                .prepare("INSERT INTO items VALUES (?1, ?2, ?3, ?4, ?5)")
                .unwrap();
            let mut fts = tx
                .prepare("INSERT INTO fts(rowid, title, body) VALUES (?1, ?2, ?3)")
                .unwrap();
            let mut vec = tx
                .prepare("INSERT INTO vecs(rowid, embedding) VALUES (?1, ?2)")
                .unwrap();
            for (i, (item, v)) in c.items.iter().zip(&c.vectors).enumerate() {
                let row = i as i64 + 1;
                ins.execute(rusqlite::params![
                    row,
                    item.id,
                    item.category.as_str(),
                    item.updated_at.timestamp(),
                    item.access_count as i64
                ])
                .unwrap();
                fts.execute(rusqlite::params![row, item.title, item.body])
                    .unwrap();
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                vec.execute(rusqlite::params![row, bytes]).unwrap();
            }
        }
        tx.commit().unwrap();
        // The same end of import as the engine's: FTS5 merges its index b-trees into one.
        conn.execute("INSERT INTO fts(fts) VALUES('optimize')", [])
            .unwrap();
        (Self { conn }, t.elapsed())
    }

    fn keyword(&self, q: &str) -> Vec<i64> {
        let expr = q
            .split_whitespace()
            .map(|w| format!("\"{w}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY bm25(fts, 2.0, 1.0) LIMIT 100",
            )
            .unwrap();
        st.query_map([expr], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn vector(&self, v: &[f32]) -> Vec<i64> {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT rowid FROM vecs WHERE embedding MATCH ?1 AND k = 100 ORDER BY distance",
            )
            .unwrap();
        st.query_map([bytes], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn hybrid(&self, q: &str, v: &[f32]) -> Vec<i64> {
        let mut rrf: HashMap<i64, f64> = HashMap::new();
        for list in [self.keyword(q), self.vector(v)] {
            for (rank, id) in list.into_iter().enumerate() {
                *rrf.entry(id).or_default() += 1.0 / (61.0 + rank as f64);
            }
        }
        let mut fused: Vec<(i64, f64)> = rrf.into_iter().collect();
        fused.sort_by(|a, b| b.1.total_cmp(&a.1));
        fused.truncate(10);
        fused.into_iter().map(|(id, _)| id).collect()
    }
}

fn request(q: &str, mode: SearchMode) -> SearchRequest {
    SearchRequest::new(q).unwrap().mode(mode).limit(10)
}

fn percentiles(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |p: f64| {
        samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
}

fn time_each(n: usize, mut f: impl FnMut(usize)) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .collect()
}

/// Recall@10 of the raw HNSW neighbour search ([`SearchEngine::nearest`]) against an exact
/// scan of every vector, over the first 100 queries.
fn hnsw_recall(engine: &SearchEngine, c: &Corpus) -> f64 {
    let truth = c.exact_neighbours(100, 10);
    let total: f64 = c
        .queries
        .iter()
        .zip(&truth)
        .map(|((_, qv), t)| navigator_eval::synthetic::recall(&engine.nearest(qv, 10).unwrap(), t))
        .sum();
    total / truth.len() as f64
}

fn bench(cr: &mut Criterion) {
    let sizes: Vec<usize> = std::env::var("NAV_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| {
            // `cargo test --all-targets` runs each bench once as a smoke test (no `--bench`
            // argument): keep that run small; real runs measure 10k and 100k.
            if std::env::args().any(|a| a == "--bench") {
                vec![10_000, 100_000]
            } else {
                vec![1_000]
            }
        });
    let embedder: Arc<dyn Embedder> = Arc::new(
        FastEmbedder::default_model().expect("MiniLM installed (scripts/setup-embeddings.sh)"),
    );
    let mut table = Vec::new();
    for &n in &sizes {
        let c = corpus(n, &TYPES);
        let (built, dir, index_time, graph_time) = engine(&c, embedder.clone());
        drop(built);
        let rss_before = resident_mib().0;
        let t = Instant::now();
        let engine = open(dir.path(), embedder.clone());
        let open_time = t.elapsed();
        assert!(engine.repairs().is_empty(), "{:?}", engine.repairs());
        let (sqlite, sqlite_time) = Sqlite::build(&c, dir.path());
        table.push(format!(
            "| {n} | index throughput, durable and searchable (items/s) | {:.0} | {:.0} | |",
            n as f64 / index_time.as_secs_f64(),
            n as f64 / sqlite_time.as_secs_f64()
        ));
        table.push(format!(
            "| {n} | vector graph built after the writes (s); throughput with it (items/s) | {:.1}; {:.0} | (no graph) | |",
            graph_time.as_secs_f64(),
            n as f64 / (index_time + graph_time).as_secs_f64()
        ));
        let q = &c.queries;
        let mut group = cr.benchmark_group(format!("search_{n}"));
        group
            .sample_size(20)
            .measurement_time(Duration::from_secs(4));
        for mode in [
            SearchMode::Keyword,
            SearchMode::Semantic,
            SearchMode::Hybrid,
        ] {
            let mut i = 0;
            group.bench_function(format!("navigator_{mode:?}").to_lowercase(), |b| {
                b.iter(|| {
                    let (text, v) = &q[i % q.len()];
                    i += 1;
                    engine
                        .search_with_vector(&request(text, mode), Some(v))
                        .unwrap()
                })
            });
        }
        group.finish();
        let rss_after = resident_mib().0;

        let ours = |mode: SearchMode| {
            percentiles(time_each(QUERIES, |i| {
                let (text, v) = &q[i];
                engine
                    .search_with_vector(&request(text, mode), Some(v))
                    .unwrap();
            }))
        };
        // The baseline is slow at 100k: fewer queries keep the run in minutes.
        let baseline_queries = match n {
            0..=20_000 => QUERIES,
            20_001..=200_000 => 40,
            _ => 20,
        };
        let theirs = |f: &dyn Fn(usize)| percentiles(time_each(baseline_queries, f));
        let rows = [
            (
                "keyword",
                ours(SearchMode::Keyword),
                theirs(&|i| {
                    sqlite.keyword(&q[i].0);
                }),
            ),
            (
                "semantic",
                ours(SearchMode::Semantic),
                theirs(&|i| {
                    sqlite.vector(&q[i].1);
                }),
            ),
            (
                "hybrid",
                ours(SearchMode::Hybrid),
                theirs(&|i| {
                    sqlite.hybrid(&q[i].0, &q[i].1);
                }),
            ),
        ];
        for (name, (p50, p99), (s50, s99)) in rows {
            table.push(format!(
                "| {n} | {name} p50 / p99 (ms) | {p50:.3} / {p99:.3} | {s50:.1} / {s99:.1} | {:.0}x |",
                s50 / p50
            ));
        }
        table.push(format!(
            "| {n} | HNSW recall@10 vs exact | {:.4} | 1.0 (exact scan) | |",
            hnsw_recall(&engine, &c)
        ));
        table.push(format!(
            "| {n} | reopening the built index (s) | {:.2} | | |",
            open_time.as_secs_f64()
        ));
        table.push(format!(
            "| {n} | engine memory after open and queries (MiB, RSS − RSS before open) | {:.0} (process {:.0}) | | |",
            rss_after - rss_before,
            rss_after
        ));
    }
    println!("\n| items | measure | navigator (tantivy + usearch) | SQLite FTS5 + sqlite-vec | speed-up (p50) |");
    println!("|---|---|---|---|---|");
    for row in table {
        println!("{row}");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
