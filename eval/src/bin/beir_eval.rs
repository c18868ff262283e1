//! Retrieval quality on a BEIR dataset: nDCG@10 and Recall@100 for keyword, semantic and
//! hybrid search through the real engine (tantivy + usearch + fusion).
//!
//! ```text
//! cargo run --release -p navigator-eval --bin beir_eval -- ../shared/eval/scifact --split train
//! ```
//!
//! Reads `corpus.jsonl`, `queries.jsonl` and `qrels/<split>.tsv`. Documents go through the
//! engine's own write path ([`SearchEngine::upsert`]: long documents are chunked there), with
//! an embedder that caches vectors on disk (default `target/beir-cache/`), keyed by model and a
//! SHA-256 of the text, so only the first run pays for embedding thousands of passages.
//!
//! `--postgres` runs the queries on PostgreSQL instead (`NAVIGATOR_PG_URL`, from
//! `eval "$(bash scripts/postgres.sh start)"`): the embedded index is copied there with
//! `sync_from_engine` (same chunks and vectors) into a schema of its own, dropped afterwards.

use anyhow::{bail, Context, Result};
use navigator_core::{
    Embedder, FastEmbedder, Item, ItemType, SearchMode, SearchPage, SearchRequest,
};
use navigator_search::pg::{sync_from_engine, PgConfig, PgSearchService, PgStore};
use navigator_search::{ChunkRollup, EngineConfig, FixedClock, SearchEngine};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Every document gets the same dates and access count, so recency and access frequency are
/// constant and the ranking is decided by relevance alone.
const DOC_TIME: &str = "2026-01-01T00:00:00Z";
/// Results per page (the contract's maximum); two pages give the top 100.
const PAGE: u32 = 50;

struct Args {
    dataset: PathBuf,
    split: String,
    cache: PathBuf,
    /// Which queries to run: all, or the odd/even half by position (tune on one, report the
    /// other).
    half: Half,
    /// Instead of the three modes, evaluate hybrid nDCG@10 over a grid of calibrations.
    sweep: bool,
    /// How chunk similarities roll up to a document's (`max`, `top2`, `blend0.3`, ...).
    rollup: ChunkRollup,
    /// Search through PostgreSQL (a copy of the embedded index) instead of the engine.
    postgres: bool,
}

/// The backend the queries run on.
enum Backend {
    Embedded(SearchEngine),
    Postgres(Box<PgSearchService>),
}

impl Backend {
    async fn search(&self, req: &SearchRequest, vector: &[f32]) -> Result<SearchPage> {
        Ok(match self {
            Backend::Embedded(engine) => engine.search_with_vector(req, Some(vector))?,
            Backend::Postgres(pg) => pg.search_with_vector(req, Some(vector)).await?,
        })
    }
}

fn parse_rollup(s: &str) -> Result<ChunkRollup> {
    if s == "max" {
        return Ok(ChunkRollup::Max);
    }
    if let Some(k) = s.strip_prefix("top") {
        return Ok(ChunkRollup::TopMean(k.parse().context("--rollup topK")?));
    }
    if let Some(w) = s.strip_prefix("blend") {
        return Ok(ChunkRollup::MaxWithMean(
            w.parse().context("--rollup blendW")?,
        ));
    }
    bail!("--rollup takes max, topK or blendW, not {s}")
}

#[derive(Clone, Copy, PartialEq)]
enum Half {
    All,
    Odd,
    Even,
}

fn parse_args() -> Result<Args> {
    let mut dataset = PathBuf::from("../shared/eval/scifact");
    let mut split = "train".to_string();
    let mut cache = PathBuf::from("target/beir-cache");
    let mut half = Half::All;
    let mut sweep = false;
    let mut rollup = ChunkRollup::Max;
    let mut postgres = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--split" => split = it.next().context("--split needs a value")?,
            "--cache" => cache = it.next().context("--cache needs a value")?.into(),
            "--queries" => {
                half = match it.next().as_deref() {
                    Some("all") => Half::All,
                    Some("odd") => Half::Odd,
                    Some("even") => Half::Even,
                    other => bail!("--queries takes all, odd or even, not {other:?}"),
                }
            }
            "--sweep" => sweep = true,
            "--postgres" => postgres = true,
            "--rollup" => rollup = parse_rollup(&it.next().context("--rollup needs a value")?)?,
            flag if flag.starts_with("--") => bail!("unknown flag {flag}"),
            path => dataset = path.into(),
        }
    }
    Ok(Args {
        dataset,
        split,
        cache,
        half,
        sweep,
        rollup,
        postgres,
    })
}

fn read_jsonl(path: &Path) -> Result<Vec<serde_json::Value>> {
    let file = std::fs::File::open(path).with_context(|| format!("open {}", path.display()))?;
    BufReader::new(file)
        .lines()
        .enumerate()
        .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()))
        .map(|(i, l)| {
            let l = l?;
            serde_json::from_str(&l).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect()
}

fn str_field<'a>(v: &'a serde_json::Value, key: &str) -> &'a str {
    v.get(key).and_then(|x| x.as_str()).unwrap_or("")
}

/// qrels: query id → (doc id → grade).
fn read_qrels(path: &Path) -> Result<HashMap<String, HashMap<String, f64>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("open {}", path.display()))?;
    let mut qrels: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if i == 0 && cols.first() == Some(&"query-id") {
            continue;
        }
        if let [q, d, s] = cols.as_slice() {
            let grade: f64 = s
                .trim()
                .parse()
                .with_context(|| format!("{} line {}", path.display(), i + 1))?;
            if grade > 0.0 {
                qrels
                    .entry(q.to_string())
                    .or_default()
                    .insert(d.to_string(), grade);
            }
        }
    }
    Ok(qrels)
}

/// The real embedder behind the disk cache: what the engine indexes with.
struct CachedEmbedder {
    inner: Arc<dyn Embedder>,
    cache: tokio::sync::Mutex<VectorCache>,
}

#[async_trait::async_trait]
impl Embedder for CachedEmbedder {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    fn fingerprint(&self) -> String {
        self.inner.fingerprint()
    }
    fn max_input_tokens(&self) -> Option<usize> {
        self.inner.max_input_tokens()
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        self.cache
            .lock()
            .await
            .vectors(self.inner.as_ref(), &owned, "passages")
            .await
            .map_err(|e| navigator_core::Error::Embedding {
                model: self.inner.model_id().to_string(),
                message: e.to_string(),
            })
    }
}

/// Vectors cached on disk: records of a 16-byte text hash followed by the vector.
struct VectorCache {
    path: PathBuf,
    dims: usize,
    map: HashMap<[u8; 16], Vec<f32>>,
}

impl VectorCache {
    fn open(dir: &Path, model: &str, dims: usize) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let name: String = model
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        let path = dir.join(format!("{name}-{dims}.vec"));
        let mut map = HashMap::new();
        if let Ok(mut f) = std::fs::File::open(&path) {
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)?;
            let record = 16 + dims * 4;
            // A torn last record (interrupted run) is ignored.
            for rec in bytes.chunks_exact(record) {
                let key: [u8; 16] = rec[..16].try_into()?;
                let v = rec[16..]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                map.insert(key, v);
            }
        }
        Ok(Self { path, dims, map })
    }

    fn key(text: &str) -> [u8; 16] {
        let digest = Sha256::digest(text.as_bytes());
        let mut k = [0u8; 16];
        k.copy_from_slice(&digest.as_slice()[..16]);
        k
    }

    /// Vectors for `texts`, embedding (in batches, with progress) only the uncached ones.
    async fn vectors(
        &mut self,
        embedder: &dyn Embedder,
        texts: &[String],
        what: &str,
    ) -> Result<Vec<Vec<f32>>> {
        let missing: Vec<&String> = {
            let mut seen = HashSet::new();
            texts
                .iter()
                .filter(|t| !self.map.contains_key(&Self::key(t)) && seen.insert(Self::key(t)))
                .collect()
        };
        if !missing.is_empty() {
            eprintln!(
                "embedding {} {what} ({} cached)…",
                missing.len(),
                texts.len() - missing.len()
            );
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?;
            let started = Instant::now();
            for (i, chunk) in missing.chunks(64).enumerate() {
                let refs: Vec<&str> = chunk.iter().map(|s| s.as_str()).collect();
                let vs = embedder.embed_documents(&refs).await?;
                for (t, v) in chunk.iter().zip(vs) {
                    anyhow::ensure!(v.len() == self.dims, "model returned {} dims", v.len());
                    let key = Self::key(t);
                    file.write_all(&key)?;
                    for x in &v {
                        file.write_all(&x.to_le_bytes())?;
                    }
                    self.map.insert(key, v);
                }
                let done = ((i + 1) * 64).min(missing.len());
                if i % 10 == 9 || done == missing.len() {
                    eprintln!(
                        "  {done}/{} ({:.0}/s)",
                        missing.len(),
                        done as f64 / started.elapsed().as_secs_f64()
                    );
                }
            }
        }
        Ok(texts
            .iter()
            .map(|t| self.map[&Self::key(t)].clone())
            .collect())
    }
}

fn ndcg_at(ranked: &[String], relevant: &HashMap<String, f64>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| relevant.get(d).copied().unwrap_or(0.0) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<f64> = relevant.values().copied().collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, g)| g / (i as f64 + 2.0).log2())
        .sum();
    if idcg == 0.0 {
        0.0
    } else {
        dcg / idcg
    }
}

fn recall_at(ranked: &[String], relevant: &HashMap<String, f64>, k: usize) -> f64 {
    let hit = ranked
        .iter()
        .take(k)
        .filter(|d| relevant.contains_key(*d))
        .count();
    hit as f64 / relevant.len().max(1) as f64
}

#[tokio::main]
async fn main() -> Result<()> {
    navigator_eval::help::exit_on_help(include_str!("beir_eval.rs"));
    let args = parse_args()?;
    let model: Arc<dyn Embedder> = Arc::new(FastEmbedder::default_model()?);
    let corpus = read_jsonl(&args.dataset.join("corpus.jsonl"))?;
    let queries = read_jsonl(&args.dataset.join("queries.jsonl"))?;
    let qrels = read_qrels(
        &args
            .dataset
            .join("qrels")
            .join(format!("{}.tsv", args.split)),
    )?;
    let queries: Vec<(String, String)> = queries
        .iter()
        .map(|q| {
            (
                str_field(q, "_id").to_string(),
                str_field(q, "text").to_string(),
            )
        })
        .filter(|(id, _)| qrels.contains_key(id))
        .enumerate()
        .filter(|(i, _)| match args.half {
            Half::All => true,
            Half::Odd => i % 2 == 1,
            Half::Even => i % 2 == 0,
        })
        .map(|(_, q)| q)
        .collect();
    println!(
        "{}: {} documents, {} {} queries with judgments, model {}",
        args.dataset.display(),
        corpus.len(),
        queries.len(),
        args.split,
        model.model_id()
    );

    let at: chrono::DateTime<chrono::Utc> = DOC_TIME.parse()?;
    let items: Vec<Item> = corpus
        .iter()
        .map(|d| {
            let title = str_field(d, "title").trim();
            let title = if title.is_empty() {
                "(untitled)"
            } else {
                title
            };
            Ok(
                Item::new(str_field(d, "_id"), ItemType::Resource, title, at)?
                    .with_body(str_field(d, "text")),
            )
        })
        .collect::<Result<_>>()?;
    let mut cache = VectorCache::open(&args.cache, model.model_id(), model.dimensions())?;
    let query_texts: Vec<String> = queries.iter().map(|(_, t)| t.clone()).collect();
    let query_vectors = cache
        .vectors(model.as_ref(), &query_texts, "queries")
        .await?;
    let embedder: Arc<dyn Embedder> = Arc::new(CachedEmbedder {
        inner: model,
        cache: tokio::sync::Mutex::new(cache),
    });

    let dir = tempfile::tempdir()?;
    let config = EngineConfig {
        clock: Arc::new(FixedClock(at)),
        chunk_rollup: args.rollup,
        ..EngineConfig::default()
    };
    let engine = SearchEngine::open_with(dir.path(), embedder.clone(), config.clone()).await?;
    let started = Instant::now();
    for batch in items.chunks(1000) {
        engine.upsert(batch).await?;
    }
    engine.flush()?;
    println!(
        "indexed {} documents as {} chunks in {:.2} s (cached vectors)",
        items.len(),
        engine.chunk_count()?,
        started.elapsed().as_secs_f64()
    );

    if args.sweep {
        drop(engine);
        return sweep(dir.path(), embedder, at, &queries, &query_vectors, &qrels).await;
    }

    let backend = match args.postgres {
        false => Backend::Embedded(engine),
        true => {
            let url = std::env::var("NAVIGATOR_PG_URL").context(
                "--postgres needs NAVIGATOR_PG_URL: eval \"$(bash scripts/postgres.sh start)\"",
            )?;
            let pg_config = PgConfig::new(url)
                .schema(format!("beir_{}", std::process::id()))
                .dimensions(embedder.dimensions());
            let pg = PgSearchService::new(PgStore::connect(pg_config).await?, embedder, config)?;
            let started = Instant::now();
            let copied = sync_from_engine(&engine, &pg).await?;
            pg.store().analyze().await?;
            println!(
                "copied to PostgreSQL: {copied:?} in {:.2} s",
                started.elapsed().as_secs_f64()
            );
            Backend::Postgres(Box::new(pg))
        }
    };

    println!("\n| mode | nDCG@10 | Recall@100 | mean query ms (embedding excluded) |");
    println!("|---|---|---|---|");
    // Each query's keyword and semantic top 100, for the plain-RRF baseline row.
    let mut lists: HashMap<(usize, usize), Vec<String>> = HashMap::new();
    for (m, mode) in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ]
    .into_iter()
    .enumerate()
    {
        let (mut ndcg, mut recall, mut elapsed) = (0.0, 0.0, 0.0);
        for (q, ((qid, text), qv)) in queries.iter().zip(&query_vectors).enumerate() {
            let mut ranked: Vec<String> = Vec::new();
            let t = Instant::now();
            for offset in [0, PAGE] {
                let req = SearchRequest::new(text.as_str())?
                    .mode(mode)
                    .limit(PAGE)
                    .offset(offset);
                let page = backend.search(&req, qv).await?;
                ranked.extend(page.results.into_iter().map(|r| r.item_id));
            }
            elapsed += t.elapsed().as_secs_f64();
            ndcg += ndcg_at(&ranked, &qrels[qid], 10);
            recall += recall_at(&ranked, &qrels[qid], 100);
            lists.insert((m, q), ranked);
        }
        let n = queries.len() as f64;
        println!(
            "| {mode:?} | {:.4} | {:.4} | {:.2} |",
            ndcg / n,
            recall / n,
            elapsed * 1000.0 / n / 2.0
        );
    }
    // Baseline: plain reciprocal rank fusion (k = 60) of the same keyword and semantic lists,
    // what most hybrid stacks do instead of a calibrated score.
    let (mut ndcg, mut recall) = (0.0, 0.0);
    for (q, (qid, _)) in queries.iter().enumerate() {
        let mut rrf: HashMap<&str, f64> = HashMap::new();
        for m in 0..2 {
            for (rank, id) in lists[&(m, q)].iter().enumerate() {
                *rrf.entry(id.as_str()).or_default() += 1.0 / (60.0 + rank as f64 + 1.0);
            }
        }
        let mut ranked: Vec<(&str, f64)> = rrf.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let ranked: Vec<String> = ranked.into_iter().map(|(id, _)| id.to_string()).collect();
        ndcg += ndcg_at(&ranked, &qrels[qid], 10);
        recall += recall_at(&ranked, &qrels[qid], 100);
    }
    let n = queries.len() as f64;
    println!(
        "| plain RRF of the keyword and semantic lists (baseline) | {:.4} | {:.4} | – |",
        ndcg / n,
        recall / n
    );
    if let Backend::Postgres(pg) = &backend {
        pg.store().drop_schema().await?;
    }
    Ok(())
}

/// Hybrid nDCG@10 over a grid of calibration constants, each on the same index (reopened with
/// the new configuration): the vector span (`ceiling - floor`), keyword saturation and the
/// cosine floor for vector candidates.
async fn sweep(
    dir: &Path,
    embedder: Arc<dyn Embedder>,
    at: chrono::DateTime<chrono::Utc>,
    queries: &[(String, String)],
    vectors: &[Vec<f32>],
    qrels: &HashMap<String, HashMap<String, f64>>,
) -> Result<()> {
    let grid = std::env::var("BEIR_SWEEP").unwrap_or_else(|_| {
        "0.15:0.75:2.0:0.3 0.15:0.55:2.0:0.3 0.15:0.95:2.0:0.3 \
         0.15:0.75:0.5:0.3 0.15:0.75:1.0:0.3 0.15:0.75:4.0:0.3 0.15:0.75:2.0:0.0"
            .to_string()
    });
    println!("\n| floor | ceiling | saturation | min sim | hybrid nDCG@10 |");
    println!("|---|---|---|---|---|");
    for spec in grid.split_whitespace() {
        let v: Vec<f64> = spec
            .split(':')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .with_context(|| format!("bad sweep point {spec}"))?;
        let [floor, ceiling, saturation, min_sim] = v[..] else {
            bail!("a sweep point is floor:ceiling:saturation:min_sim, not {spec}");
        };
        let mut config = EngineConfig {
            clock: Arc::new(FixedClock(at)),
            min_similarity: min_sim as f32,
            ..EngineConfig::default()
        };
        config.calibration.similarity_floor = floor;
        config.calibration.similarity_ceiling = ceiling;
        config.calibration.keyword_saturation = saturation;
        let engine = SearchEngine::open_with(dir, embedder.clone(), config).await?;
        let mut ndcg = 0.0;
        for ((qid, text), qv) in queries.iter().zip(vectors) {
            let req = SearchRequest::new(text.as_str())?.limit(10);
            let page = engine.search_with_vector(&req, Some(qv))?;
            let ranked: Vec<String> = page.results.into_iter().map(|r| r.item_id).collect();
            ndcg += ndcg_at(&ranked, &qrels[qid], 10);
        }
        println!(
            "| {floor} | {ceiling} | {saturation} | {min_sim} | {:.4} |",
            ndcg / queries.len() as f64
        );
    }
    Ok(())
}
