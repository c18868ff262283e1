//! PostgreSQL + pgvector against the embedded engine, in one run over the same data: write
//! throughput and query latency (p50/p99) per search mode.
//!
//! ```text
//! eval "$(bash scripts/postgres.sh start)"
//! cargo run --release -p navigator-search --features postgres --example pg_bench            # 100k items
//! NAV_PG_BENCH_ITEMS=10000 cargo run --release -p navigator-search --features postgres --example pg_bench
//! ```
//!
//! The data is synthetic and shaped like `benches/search.rs`'s: 64 topics, Zipf-distributed
//! words with topic vocabulary, 384-d unit vectors clustered by topic, 200 queries of 2–3 words
//! taken from an item with a vector near it. Vectors are precomputed, so embedding is excluded
//! on both sides. Both backends rank with the same `EngineConfig` (100 candidates per list).
//! Writes go in batches of 5 000 items (one transaction each on PostgreSQL, with the GIN and
//! HNSW indexes maintained as rows arrive). Queries run one at a time from one client.

use async_trait::async_trait;
use navigator_core::{Embedder, Item, ItemType, SearchMode, SearchPage, SearchRequest};
use navigator_search::pg::{PgConfig, PgSearchService, PgStore};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use std::sync::Arc;
use std::time::{Duration, Instant};

const DIMS: usize = 384;
const TOPICS: usize = 64;
const VOCAB: usize = 20_000;
const QUERIES: usize = 200;
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

/// SplitMix64: the same data on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn normal(&mut self) -> f32 {
        let (u1, u2) = (self.unit().max(1e-12), self.unit());
        ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
    }
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    navigator_core::l2_normalize(&mut v);
    v
}

fn word(i: usize) -> String {
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ren", "tas", "vo", "pel", "dra", "sun", "qui", "bar", "nex", "ol", "fi",
        "gam", "tor",
    ];
    let mut s = String::new();
    let mut x = i + 17;
    while x > 0 {
        s.push_str(SYL[x % 16]);
        x /= 16;
    }
    s
}

struct Corpus {
    items: Vec<Item>,
    vectors: Vec<Vec<f32>>,
    queries: Vec<(String, Vec<f32>)>,
}

fn corpus(n: usize) -> Corpus {
    let mut rng = Rng(42);
    let cumulative: Vec<f64> = (1..=VOCAB)
        .scan(0.0, |acc, r| {
            *acc += 1.0 / r as f64;
            Some(*acc)
        })
        .collect();
    let total = cumulative[VOCAB - 1];
    let centroids: Vec<Vec<f32>> = (0..TOPICS)
        .map(|_| normalize((0..DIMS).map(|_| rng.normal()).collect()))
        .collect();
    let topic_words: Vec<Vec<usize>> = (0..TOPICS)
        .map(|_| (0..60).map(|_| 200 + rng.below(VOCAB - 200)).collect())
        .collect();
    let types = [
        ItemType::Task,
        ItemType::Task,
        ItemType::Project,
        ItemType::Resource,
        ItemType::Contact,
        ItemType::Area,
        ItemType::ArchivedProject,
        ItemType::Template,
    ];
    let base: chrono::DateTime<chrono::Utc> = "2025-01-01T00:00:00Z".parse().unwrap();
    let (mut items, mut vectors, mut texts) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let topic = rng.below(TOPICS);
        let words: Vec<String> = (0..20 + rng.below(40))
            .map(|_| {
                let w = if rng.unit() < 0.3 {
                    topic_words[topic][rng.below(60)]
                } else {
                    let x = rng.unit() * total;
                    cumulative.partition_point(|c| *c < x).min(VOCAB - 1)
                };
                word(w)
            })
            .collect();
        let created = base + chrono::Duration::minutes(rng.below(900 * 24 * 60) as i64);
        let mut item = Item::new(
            format!("item_{i}"),
            types[rng.below(types.len())],
            words[..4].join(" "),
            created,
        )
        .unwrap()
        .with_body(words[4..].join(" "));
        item.updated_at = created + chrono::Duration::days(rng.below(30) as i64);
        item.access_count = rng.below(50) as u64;
        vectors.push(normalize(
            centroids[topic]
                .iter()
                .map(|c| c + 0.09 * rng.normal())
                .collect(),
        ));
        texts.push(words);
        items.push(item);
    }
    let queries = (0..QUERIES)
        .map(|_| {
            let d = rng.below(n);
            let q: Vec<&str> = (0..2 + rng.below(2))
                .map(|_| texts[d][rng.below(texts[d].len())].as_str())
                .collect();
            let v = vectors[d].iter().map(|x| x + 0.03 * rng.normal()).collect();
            (q.join(" "), normalize(v))
        })
        .collect();
    Corpus {
        items,
        vectors,
        queries,
    }
}

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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    let c = corpus(n);
    eprintln!("corpus: {n} items in {:.1} s", t.elapsed().as_secs_f64());

    let dir = tempfile::tempdir()?;
    let engine = SearchEngine::open_with(dir.path(), Arc::new(Precomputed), config.clone()).await?;
    let t = Instant::now();
    for (items, vectors) in c.items.chunks(BATCH).zip(c.vectors.chunks(BATCH)) {
        engine.upsert_with_vectors(items, vectors)?;
    }
    engine.flush()?;
    let embedded_write = t.elapsed();
    eprintln!(
        "embedded: wrote {n} in {:.1} s",
        embedded_write.as_secs_f64()
    );

    let schema = format!("bench_{}", std::process::id());
    let store = PgStore::connect(PgConfig::new(url).schema(schema)).await?;
    let pg = PgSearchService::new(store, Arc::new(Precomputed), config)?;
    let t = Instant::now();
    for (items, vectors) in c.items.chunks(BATCH).zip(c.vectors.chunks(BATCH)) {
        pg.upsert_with_vectors(items, vectors).await?;
        eprint!(".");
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
    for (m, (name, mode)) in modes.iter().enumerate() {
        let (mut emb, mut pgt) = (Vec::new(), Vec::new());
        // One warm-up pass each, then the timed pass.
        for pass in 0..2 {
            for (q, v) in &c.queries {
                let r = request(q, *mode);
                let v = mode.uses_embeddings().then_some(v.as_slice());
                let t = Instant::now();
                let a = engine.search_with_vector(&r, v)?;
                let ta = t.elapsed();
                let t = Instant::now();
                let b = pg.search_with_vector(&r, v).await?;
                let tb = t.elapsed();
                if pass == 1 {
                    emb.push(ta);
                    pgt.push(tb);
                    agree[m] += usize::from(top(&a) == top(&b));
                }
            }
        }
        let (p50, p99) = percentiles(emb);
        println!("| embedded | {name} | {p50:.2} | {p99:.2} |");
        let (p50, p99) = percentiles(pgt);
        println!("| postgres | {name} | {p50:.2} | {p99:.2} |");
    }
    println!();
    println!("| backend | items written | seconds | items/s |");
    println!("|---|---|---|---|");
    for (name, d) in [("embedded", embedded_write), ("postgres", pg_write)] {
        println!(
            "| {name} | {n} | {:.1} | {:.0} |",
            d.as_secs_f64(),
            n as f64 / d.as_secs_f64()
        );
    }
    println!();
    println!(
        "top-1 agreement over {QUERIES} queries: keyword {}%, semantic {}%, hybrid {}%",
        agree[0] * 100 / QUERIES,
        agree[1] * 100 / QUERIES,
        agree[2] * 100 / QUERIES
    );
    pg.store().drop_schema().await?;
    Ok(())
}
