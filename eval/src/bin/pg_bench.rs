//! PostgreSQL + pgvector against the embedded engine, in one run over the same data: write
//! throughput and query latency (p50/p99) per search mode.
//!
//! ```text
//! eval "$(bash scripts/postgres.sh start)"
//! cargo run --release -p navigator-eval --bin pg_bench            # 100k items
//! NAV_PG_BENCH_ITEMS=10000 cargo run --release -p navigator-eval --bin pg_bench
//! ```
//!
//! The data is synthetic and shaped like `benches/search.rs`'s: 64 topics, Zipf-distributed
//! words with topic vocabulary, 384-d unit vectors clustered by topic, 200 queries of 2–3 words
//! taken from an item with a vector near it. Vectors are precomputed, so embedding is excluded
//! on both sides. Both backends rank with the same `EngineConfig` (100 candidates per list).
//! Writes go in batches of 5 000 items (one transaction each on PostgreSQL, with the GIN and
//! HNSW indexes maintained as rows arrive). Queries run one at a time from one client.
//!
//! Besides latency it reports how close the two backends' answers are (mean top-10 overlap
//! and top-1 agreement per mode) and the HNSW recall@10 of each backend's raw neighbour
//! search (`nearest`) against an exact scan. `NAV_PG_BENCH_KEEP=1` keeps the PostgreSQL
//! schema afterwards (to look at plans by hand); `NAV_PG_BENCH_SCHEMA=name` writes into that
//! schema, and a later run with the same name and size finds the items there and times only
//! the queries (the data is deterministic, so it is the same knowledge base).
//! `NAV_PG_BENCH_EMBEDDED=0` leaves the embedded engine out (PostgreSQL alone, for sizes
//! where building both at once would not fit the disk); `NAV_PG_BENCH_PROGRESS=1` prints the
//! time after each written batch; `NAV_PG_BENCH_DEFER_INDEX=1` drops the HNSW index before
//! the load and builds it after ([`PgStore::drop_vector_index`], 4 GB of
//! `maintenance_work_mem`), as pgvector advises for initial loads. `NAV_PG_BENCH_EF` overrides [`PgConfig::ef_search`], `NAV_PG_BENCH_TERM_LIMIT`
//! [`PgConfig::keyword_term_limit`].

use async_trait::async_trait;
use navigator_core::{Embedder, ItemStore, ItemType, SearchMode, SearchPage, SearchRequest};
use navigator_search::pg::{PgConfig, PgSearchService, PgStore};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::sync::Arc;
use std::time::{Duration, Instant};

use navigator_eval::synthetic::{corpus, DIMS, QUERIES};

const BATCH: usize = 5_000;

/// The vectors are precomputed: nothing is ever embedded.
struct Precomputed;

#[async_trait]
impl Embedder for Precomputed {
    fn model_id(&self) -> &str {
        "precomputed-384"
    }
    fn dimensions(&self) -> usize {
        DIMS
    }
    async fn embed(&self, _: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        Err(navigator_core::Error::Embedding {
            model: "precomputed-384".into(),
            message: "the benchmark passes vectors in".into(),
        })
    }
}

/// The item-type mix of this benchmark's knowledge base.
const TYPES: [ItemType; 8] = [
    ItemType::Task,
    ItemType::Task,
    ItemType::Project,
    ItemType::Resource,
    ItemType::Contact,
    ItemType::Area,
    ItemType::ArchivedProject,
    ItemType::Template,
];

fn percentiles(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let at = |p: f64| {
        samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1000.0
    };
    (at(0.50), at(0.99))
}

fn request(q: &str, mode: SearchMode) -> SearchRequest {
    SearchRequest::new(q).unwrap().mode(mode).limit(10)
}

fn top(page: &SearchPage) -> Option<&str> {
    page.results.first().map(|r| r.item_id.as_str())
}

/// How many of `a`'s hits `b` also has.
fn overlap(a: &SearchPage, b: &SearchPage) -> usize {
    a.results
        .iter()
        .filter(|x| b.results.iter().any(|y| y.item_id == x.item_id))
        .count()
}

/// The ids of the exact 10 nearest items to `q` (vectors are unit length: cosine = dot).
fn exact_top10(c: &navigator_eval::synthetic::Corpus, q: &[f32]) -> Vec<String> {
    let mut scored: Vec<(f32, usize)> = c
        .vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum::<f32>(), i))
        .collect();
    scored.select_nth_unstable_by(10, |a, b| b.0.total_cmp(&a.0));
    scored[..10]
        .iter()
        .map(|(_, i)| c.items[*i].id.clone())
        .collect()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    navigator_eval::help::exit_on_help(include_str!("pg_bench.rs"));
    let n: usize = std::env::var("NAV_PG_BENCH_ITEMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let url = std::env::var("NAVIGATOR_PG_URL").map_err(|_| {
        "NAVIGATOR_PG_URL is not set: eval \"$(bash scripts/postgres.sh start)\" first"
    })?;
    let config = EngineConfig {
        clock: Arc::new(FixedClock("2027-06-01T00:00:00Z".parse()?)),
        ..EngineConfig::default()
    };
    let t = Instant::now();
    let c = corpus(n, &TYPES);
    eprintln!("corpus: {n} items in {:.1} s", t.elapsed().as_secs_f64());

    let dir = tempfile::tempdir()?;
    let with_embedded = std::env::var("NAV_PG_BENCH_EMBEDDED").map_or(true, |v| v != "0");
    let engine = match with_embedded {
        true => {
            let engine =
                SearchEngine::open_with(dir.path(), Arc::new(Precomputed), config.clone()).await?;
            Some(engine)
        }
        false => None,
    };
    let t = Instant::now();
    if let Some(engine) = &engine {
        for (items, vectors) in c.items.chunks(BATCH).zip(c.vectors.chunks(BATCH)) {
            engine.upsert_with_vectors(items, vectors).await?;
        }
        engine.flush()?;
    }
    let embedded_write = t.elapsed();
    if engine.is_some() {
        eprintln!(
            "embedded: wrote {n} in {:.1} s",
            embedded_write.as_secs_f64()
        );
    }

    let named = std::env::var("NAV_PG_BENCH_SCHEMA").ok();
    let schema = named
        .clone()
        .unwrap_or_else(|| format!("bench_{}", std::process::id()));
    let mut pg_config = PgConfig::new(url).schema(schema);
    let env_number = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    if let Some(ef) = env_number("NAV_PG_BENCH_EF") {
        pg_config.ef_search = ef;
    }
    if let Some(n) = env_number("NAV_PG_BENCH_TERM_LIMIT") {
        pg_config.keyword_term_limit = n;
    }
    let store = PgStore::connect(pg_config).await?;
    let pg = PgSearchService::new(store, Arc::new(Precomputed), config)?;
    let defer_index = std::env::var_os("NAV_PG_BENCH_DEFER_INDEX").is_some();
    let progress = std::env::var_os("NAV_PG_BENCH_PROGRESS").is_some();
    let reused = named.is_some() && pg.store().count_items().await? == n as u64;
    let t = Instant::now();
    if reused {
        eprintln!("postgres: reusing the {n} items already in the schema");
    } else {
        if defer_index {
            pg.store().drop_vector_index().await?;
        }
        for (items, vectors) in c.items.chunks(BATCH).zip(c.vectors.chunks(BATCH)) {
            pg.upsert_with_vectors(items, vectors).await?;
            eprint!(".");
            if progress {
                eprintln!(" {:.1} s", t.elapsed().as_secs_f64());
            }
        }
        if defer_index {
            let loaded = t.elapsed();
            pg.store().build_vector_index(4096).await?;
            eprintln!(
                "postgres: rows loaded in {:.1} s, HNSW index built in {:.1} s",
                loaded.as_secs_f64(),
                (t.elapsed() - loaded).as_secs_f64()
            );
        }
        pg.store().analyze().await?;
    }
    let pg_write = t.elapsed();
    eprintln!("\npostgres: wrote {n} in {:.1} s", pg_write.as_secs_f64());

    let modes = [
        ("keyword", SearchMode::Keyword),
        ("semantic", SearchMode::Semantic),
        ("hybrid", SearchMode::Hybrid),
    ];
    println!("| backend | mode | p50 ms | p99 ms |");
    println!("|---|---|---|---|");
    let mut agree = [0usize; 3];
    let mut shared = [0usize; 3];
    let mut returned = [0usize; 3];
    for (m, (name, mode)) in modes.iter().enumerate() {
        let (mut emb, mut pgt) = (Vec::new(), Vec::new());
        // One warm-up pass each, then the timed pass.
        for pass in 0..2 {
            for (q, v) in &c.queries {
                let r = request(q, *mode);
                let v = mode.uses_embeddings().then_some(v.as_slice());
                let t = Instant::now();
                let a = engine
                    .as_ref()
                    .map(|e| e.search_with_vector(&r, v))
                    .transpose()?;
                let ta = t.elapsed();
                let t = Instant::now();
                let b = pg.search_with_vector(&r, v).await?;
                let tb = t.elapsed();
                if pass == 1 {
                    pgt.push(tb);
                    if let Some(a) = a {
                        emb.push(ta);
                        agree[m] += usize::from(top(&a) == top(&b));
                        shared[m] += overlap(&a, &b);
                        returned[m] += a.results.len();
                    }
                }
            }
        }
        if engine.is_some() {
            let (p50, p99) = percentiles(emb);
            println!("| embedded | {name} | {p50:.2} | {p99:.2} |");
        }
        let (p50, p99) = percentiles(pgt);
        println!("| postgres | {name} | {p50:.2} | {p99:.2} |");
    }
    println!();
    println!("| backend | items written | seconds | items/s |");
    println!("|---|---|---|---|");
    let written = [("embedded", embedded_write), ("postgres", pg_write)];
    for (name, d) in written
        .into_iter()
        .filter(|(name, _)| !reused || *name != "postgres")
        .filter(|(name, _)| engine.is_some() || *name != "embedded")
    {
        println!(
            "| {name} | {n} | {:.1} | {:.0} |",
            d.as_secs_f64(),
            n as f64 / d.as_secs_f64()
        );
    }
    println!();
    if engine.is_some() {
        println!(
            "top-1 agreement over {QUERIES} queries: keyword {}%, semantic {}%, hybrid {}%",
            agree[0] * 100 / QUERIES,
            agree[1] * 100 / QUERIES,
            agree[2] * 100 / QUERIES
        );
        println!(
        "top-10 overlap with the embedded engine: keyword {:.1}%, semantic {:.1}%, hybrid {:.1}%",
        shared[0] as f64 * 100.0 / returned[0].max(1) as f64,
        shared[1] as f64 * 100.0 / returned[1].max(1) as f64,
        shared[2] as f64 * 100.0 / returned[2].max(1) as f64
    );
    }

    // Raw neighbour search against an exact scan, on both backends.
    let (mut found_emb, mut found_pg) = (0, 0);
    for (_, q) in c.queries.iter().take(100) {
        let exact = exact_top10(&c, q);
        let hit = |ids: Vec<String>| ids.iter().filter(|id| exact.contains(id)).count();
        if let Some(engine) = &engine {
            found_emb += hit(engine.nearest(q, 10)?.into_iter().map(|h| h.0).collect());
        }
        found_pg += hit(pg.nearest(q, 10).await?.into_iter().map(|h| h.0).collect());
    }
    let total = 10 * c.queries.len().min(100);
    let embedded_recall = match engine.is_some() {
        true => format!("{:.3}", found_emb as f64 / total as f64),
        false => "not run".to_string(),
    };
    println!(
        "HNSW recall@10 vs exact over {} queries: embedded {embedded_recall}, postgres {:.3}",
        c.queries.len().min(100),
        found_pg as f64 / total as f64
    );
    if std::env::var_os("NAV_PG_BENCH_KEEP").is_none() && named.is_none() {
        pg.store().drop_schema().await?;
    }
    Ok(())
}
