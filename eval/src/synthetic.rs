//! The synthetic knowledge base both search benchmarks run on (`benches/search.rs` at the
//! workspace root and `src/bin/pg_bench.rs`): 64 topics, Zipf-distributed words with
//! topic-specific vocabulary, 384-d unit vectors clustered by topic (MiniLM's width), and
//! queries of 2–3 words taken from an item with a vector near that item's. Deterministic: the
//! same data on every run.

use navigator_core::{Embedder, Item, ItemType};
use navigator_search::{EngineConfig, FixedClock, SearchEngine, VectorReads};
use std::path::Path;
use std::sync::Arc;

/// The vectors' width.
pub const DIMS: usize = 384;
const TOPICS: usize = 64;
const VOCAB: usize = 20_000;
/// How many queries [`corpus`] makes.
pub const QUERIES: usize = 200;

/// SplitMix64: a tiny deterministic generator so every run benchmarks the same data.
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

/// The generated data.
pub struct Corpus {
    /// The items.
    pub items: Vec<Item>,
    /// One unit vector per item, in order.
    pub vectors: Vec<Vec<f32>>,
    /// `(text, query vector)` pairs.
    pub queries: Vec<(String, Vec<f32>)>,
}

/// `n` items whose types are drawn uniformly from `types` (a type listed twice is twice as
/// likely), their vectors, and [`QUERIES`] queries.
pub fn corpus(n: usize, types: &[ItemType]) -> Corpus {
    let mut rng = Rng(42);
    let cumulative: Vec<f64> = (1..=VOCAB)
        .scan(0.0, |acc, r| {
            *acc += 1.0 / r as f64;
            Some(*acc)
        })
        .collect();
    let total = *cumulative.last().unwrap();
    let zipf = |rng: &mut Rng| {
        let x = rng.unit() * total;
        cumulative.partition_point(|c| *c < x).min(VOCAB - 1)
    };
    let centroids: Vec<Vec<f32>> = (0..TOPICS)
        .map(|_| normalize((0..DIMS).map(|_| rng.normal()).collect()))
        .collect();
    let topic_words: Vec<Vec<usize>> = (0..TOPICS)
        .map(|_| (0..60).map(|_| 200 + rng.below(VOCAB - 200)).collect())
        .collect();
    let base: chrono::DateTime<chrono::Utc> = "2025-01-01T00:00:00Z".parse().unwrap();
    let mut items = Vec::with_capacity(n);
    let mut vectors = Vec::with_capacity(n);
    let mut texts = Vec::with_capacity(n);
    for i in 0..n {
        let topic = rng.below(TOPICS);
        let mut words = Vec::new();
        for _ in 0..(20 + rng.below(40)) {
            let w = if rng.unit() < 0.3 {
                topic_words[topic][rng.below(60)]
            } else {
                zipf(&mut rng)
            };
            words.push(word(w));
        }
        let title = words[..4].join(" ");
        let body = words[4..].join(" ");
        let created = base + chrono::Duration::minutes(rng.below(900 * 24 * 60) as i64);
        let mut item = Item::new(
            format!("item_{i}"),
            types[rng.below(types.len())],
            title,
            created,
        )
        .unwrap()
        .with_body(body);
        item.updated_at = created + chrono::Duration::days(rng.below(30) as i64);
        item.access_count = rng.below(50) as u64;
        let v: Vec<f32> = centroids[topic]
            .iter()
            .map(|c| c + 0.09 * rng.normal())
            .collect();
        vectors.push(normalize(v));
        texts.push(words);
        items.push(item);
    }
    let queries = (0..QUERIES)
        .map(|_| {
            let d = rng.below(n);
            let w = &texts[d];
            let q: Vec<&str> = (0..2 + rng.below(2))
                .map(|_| w[rng.below(w.len())].as_str())
                .collect();
            let v: Vec<f32> = vectors[d].iter().map(|x| x + 0.03 * rng.normal()).collect();
            (q.join(" "), normalize(v))
        })
        .collect();
    Corpus {
        items,
        vectors,
        queries,
    }
}

impl Corpus {
    /// The ids of the exact `k` nearest items (cosine) to each of the first `probes` queries'
    /// vectors: the truth recall is measured against. A scan of every vector per query, on
    /// all cores.
    pub fn exact_neighbours(&self, probes: usize, k: usize) -> Vec<Vec<String>> {
        let queries: Vec<&Vec<f32>> = self.queries.iter().take(probes).map(|q| &q.1).collect();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per = queries.len().div_ceil(threads).max(1);
        std::thread::scope(|scope| {
            let parts: Vec<_> = queries
                .chunks(per)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|q| {
                                let mut best: Vec<(usize, f32)> = self
                                    .vectors
                                    .iter()
                                    .enumerate()
                                    .map(|(i, v)| (i, navigator_core::cosine(q, v)))
                                    .collect();
                                if best.len() > k && k > 0 {
                                    best.select_nth_unstable_by(k - 1, |a, b| b.1.total_cmp(&a.1));
                                }
                                best.truncate(k);
                                best.into_iter().map(|(i, _)| format!("item_{i}")).collect()
                            })
                            .collect::<Vec<Vec<String>>>()
                    })
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|h| h.join().expect("an exact scan thread"))
                .collect()
        })
    }
}

/// The share of `truth` (the exact nearest ids) that `got` holds.
pub fn recall(got: &[(String, f32)], truth: &[String]) -> f64 {
    got.iter().filter(|(id, _)| truth.contains(id)).count() as f64 / truth.len().max(1) as f64
}

/// Opens (or creates) an engine in `dir` as the benchmarks over this corpus do: with
/// `embedder` (the corpus's vectors are precomputed, so it embeds nothing), a clock fixed
/// after the corpus's dates, so recency scores the same on every run, the graph degree
/// `NAV_GRAPH_DEGREE` names when set (the default otherwise; it matters only when the index is
/// created), and the exact vectors read as `NAV_VECTOR_READS` says (`mapped` or `positioned`;
/// the default, mapped up to 512 MiB, otherwise); `NAV_WARM=0` leaves the vector files cold
/// after the open (they are read through in the background by default).
pub async fn bench_engine(
    dir: &Path,
    embedder: Arc<dyn Embedder>,
) -> navigator_search::Result<SearchEngine> {
    let clock = Arc::new(FixedClock(
        "2027-06-01T00:00:00Z".parse().expect("a valid date"),
    ));
    let defaults = EngineConfig::default();
    let graph_degree = std::env::var("NAV_GRAPH_DEGREE")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(defaults.graph_degree);
    let vector_reads = match std::env::var("NAV_VECTOR_READS").as_deref() {
        Ok("positioned") => VectorReads::Positioned,
        Ok("mapped") => VectorReads::Mapped,
        _ => defaults.vector_reads,
    };
    let warm_vector_files =
        std::env::var("NAV_WARM").map_or(defaults.warm_vector_files, |v| v != "0");
    SearchEngine::open_with(
        dir,
        embedder,
        EngineConfig {
            clock,
            graph_degree,
            vector_reads,
            warm_vector_files,
            ..defaults
        },
    )
    .await
}

/// This process's resident memory in MiB from `/proc/self/smaps_rollup`, as (all, anonymous
/// (heap), mapped files); zeros where /proc is not there.
pub fn resident_mib() -> (f64, f64, f64) {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    let (rss, anon) = (field("Rss:"), field("Anonymous:"));
    (rss, anon, rss - anon)
}
