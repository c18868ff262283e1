//! [`PgSearchService`]: the retrieval core ([`crate::retrieval`]) on PostgreSQL. The server
//! filters and retrieves the two candidate lists (full-text and pgvector kNN) and the
//! candidates' rows; the plan, filtering rules, fusion and calibration, totals, paging and
//! snippets are the core's, the same code the embedded engine runs.

use super::rows::{item_from_row, ITEM_COLUMNS};
use super::{pg_err, PgStore};
use crate::catalog::ItemMeta;
use crate::retrieval::{embed_query, Candidates, KeywordCandidates, Plan};
use crate::snippet::LightSnippets;
use crate::{EngineConfig, Error, Result};
use navigator_core::{Embedder, Item, SearchPage, SearchRequest, SearchService};
use pgvector::Vector;
use std::collections::HashMap;
use std::sync::Arc;

/// The filter of a request as SQL over parameters `$1`..`$7` (categories, status, parent,
/// updated from, updated to, any of these tags, all of these tags); the same conditions as
/// the embedded engine's `Filter` (tags compared as `TagFilter::normalize` does).
const FILTER: &str = "category = ANY($1::text[])
    AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR parent_id = $3)
    AND ($4::timestamptz IS NULL OR updated_at >= $4)
    AND ($5::timestamptz IS NULL OR updated_at <= $5)
    AND ($6::text[] IS NULL
         OR ARRAY(SELECT lower(ltrim(btrim(t), '#')) FROM unnest(tags) AS t) && $6)
    AND ($7::text[] IS NULL
         OR ARRAY(SELECT lower(ltrim(btrim(t), '#')) FROM unnest(tags) AS t) @> $7)";

/// Search [`PgStore`] items with the embedded engine's request semantics and scores.
///
/// Writes through [`upsert`](Self::upsert) embed the items; items written through the plain
/// [`Store`](navigator_core::Store) interface get their embeddings from
/// [`embed_missing`](Self::embed_missing) (until then they are found by keyword only).
pub struct PgSearchService {
    store: PgStore,
    embedder: Arc<dyn Embedder>,
    config: EngineConfig,
}

impl std::fmt::Debug for PgSearchService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgSearchService")
            .field("store", &self.store)
            .field("model", &self.embedder.model_id())
            .finish()
    }
}

impl PgSearchService {
    /// A search service over `store` that embeds with `embedder` (of the store's dimensions)
    /// and ranks with `config` (candidates, similarity floor, calibration, clock).
    pub fn new(store: PgStore, embedder: Arc<dyn Embedder>, config: EngineConfig) -> Result<Self> {
        if embedder.dimensions() != store.config().dimensions {
            return Err(Error::Dimensions {
                expected: store.config().dimensions,
                got: embedder.dimensions(),
                model: embedder.model_id().to_string(),
            });
        }
        Ok(Self {
            store,
            embedder,
            config,
        })
    }

    /// The store underneath.
    pub fn store(&self) -> &PgStore {
        &self.store
    }

    /// The ranking configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Embeds and writes items, all in one transaction: durable and searchable on `Ok`.
    pub async fn upsert(&self, items: &[Item]) -> Result<()> {
        for item in items {
            item.validate()?;
        }
        let mut vectors = Vec::with_capacity(items.len());
        for chunk in items.chunks(self.config.embed_batch.max(1)) {
            let texts: Vec<String> = chunk.iter().map(Item::embedding_text).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            vectors.extend(self.embedder.embed_documents(&refs).await?);
        }
        self.upsert_with_vectors(items, &vectors).await
    }

    /// Writes items with precomputed vectors (one per item, in order, from the same model).
    pub async fn upsert_with_vectors(&self, items: &[Item], vectors: &[Vec<f32>]) -> Result<()> {
        self.store
            .put_items_with_vectors(items, Some(vectors))
            .await
    }

    /// Embeds every item stored without an embedding; how many it embedded.
    pub async fn embed_missing(&self) -> Result<usize> {
        let mut done = 0;
        loop {
            let batch = self
                .store
                .items_without_embedding(self.config.embed_batch.max(1) as i64)
                .await?;
            if batch.is_empty() {
                return Ok(done);
            }
            done += batch.len();
            self.upsert(&batch).await?;
        }
    }

    /// The `k` items whose embeddings are nearest to `query` by cosine similarity, best
    /// first, as `(item id, cosine)`: the raw pgvector HNSW search (the beam searches use,
    /// no filters, floor or fusion), for "more like this" and for measuring recall against an
    /// exact scan.
    pub async fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<(String, f32)>> {
        let plan_vector = crate::filter::checked_query_vector(
            navigator_core::SearchMode::Semantic,
            Some(query),
            self.embedder.dimensions(),
            self.embedder.model_id(),
        )?;
        let query = Vector::from(plan_vector.unwrap_or_default().to_vec());
        let all = crate::filter::Filter::everything();
        let filter = SqlFilter::new(&all);
        let ef = k
            .max(self.config.candidates)
            .max(self.store.config().ef_search);
        let mut client = self.store.client().await?;
        let hits = vector_candidates(&mut client, &query, &filter, k, ef).await?;
        let keys: Vec<i64> = hits.iter().map(|(k, _)| *k as i64).collect();
        let err = pg_err("nearest ids");
        let rows = client
            .query("SELECT key, id FROM items WHERE key = ANY($1)", &[&keys])
            .await
            .map_err(&err)?;
        let ids: HashMap<u64, String> = rows
            .iter()
            .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, String>(1)))
            .collect();
        let mut out: Vec<(String, f32)> = hits
            .into_iter()
            .filter_map(|(key, sim)| ids.get(&key).map(|id| (id.clone(), sim)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(out)
    }

    /// Runs `request` with an already embedded query (`None` is fine for keyword mode).
    pub async fn search_with_vector(
        &self,
        request: &SearchRequest,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchPage> {
        let plan = Plan::new(request, query_vector, &*self.embedder, &self.config)?;
        let filter = SqlFilter::new(&plan.filter);
        let mut client = self.store.client().await?;
        if plan.is_listing() {
            return list(&client, &plan, &filter).await;
        }
        let mut candidates = Candidates::default();
        if plan.mode.uses_keywords() {
            candidates.keyword = Some(self.keyword_candidates(&client, &plan, &filter).await?);
        }
        let query_vector = plan.vector.map(|v| Vector::from(v.to_vec()));
        if let Some(q) = &query_vector {
            let ef = plan.pool.max(self.store.config().ef_search);
            candidates.vector = vector_candidates(&mut client, q, &filter, plan.pool, ef).await?;
        }

        // Every candidate's row and, when the query is embedded, its exact similarity.
        let keyword_keys = candidates.keyword.iter().flat_map(|k| &k.hits);
        let mut keys: Vec<i64> = keyword_keys
            .chain(&candidates.vector)
            .map(|(k, _)| *k as i64)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let err = pg_err("read candidates");
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {ITEM_COLUMNS},
                        CASE WHEN $2::vector IS NULL OR embedding IS NULL THEN NULL
                             ELSE (1 - (embedding <=> $2))::real END
                 FROM items WHERE key = ANY($1)"
            ))
            .await
            .map_err(&err)?;
        let rows = client
            .query(&stmt, &[&keys, &query_vector])
            .await
            .map_err(&err)?;
        drop(client);
        let mut items: HashMap<u64, Item> = HashMap::with_capacity(rows.len());
        let mut metas: HashMap<u64, ItemMeta> = HashMap::with_capacity(rows.len());
        for row in &rows {
            let (key, item) = item_from_row(row)?;
            if let Some(sim) = row.get::<_, Option<f32>>(14) {
                candidates.keyword_similarities.push((key, sim));
            }
            metas.insert(key, ItemMeta::new(key, &item));
            items.insert(key, item);
        }

        let ranked = plan.rank(&self.config, candidates, |k| metas.get(&k));
        let page: Vec<Option<Item>> = ranked.page().iter().map(|s| items.remove(&s.key)).collect();
        let terms = navigator_core::text::terms(&request.query);
        ranked.into_page(page, &[], &terms, &mut LightSnippets)
    }

    /// The keyword source: PostgreSQL full-text, ranked over a bounded candidate set (see
    /// the module docs of [`crate::pg`]).
    async fn keyword_candidates(
        &self,
        client: &deadpool_postgres::Client,
        plan: &Plan<'_>,
        filter: &SqlFilter<'_>,
    ) -> Result<KeywordCandidates> {
        let err = pg_err("keyword search");
        let stmt = client
            .prepare_cached(
                &KEYWORD_SQL
                    .replace("{ANY_WORD}", ANY_WORD)
                    .replace("{FILTER}", FILTER),
            )
            .await
            .map_err(&err)?;
        let config = self.store.config();
        let limits = [
            plan.pool as i64,
            config.keyword_term_limit as i64,
            config.count_limit as i64,
        ];
        let rows = client
            .query(
                &stmt,
                &filter.params(&[&plan.request.query, &limits[0], &limits[1], &limits[2]]),
            )
            .await
            .map_err(&err)?;
        let scale = config.keyword_scale;
        Ok(KeywordCandidates {
            total: rows
                .first()
                .map_or(0, |r| r.get::<_, i64>(2).max(0) as usize),
            hits: rows
                .iter()
                .map(|r| {
                    let rank: f32 = r.get(1);
                    (r.get::<_, i64>(0) as u64, (f64::from(rank) * scale) as f32)
                })
                .collect(),
            terms: navigator_core::text::terms(&plan.request.query).len(),
        })
    }
}

/// Keyword candidates without ranking every match: `ts_rank` (weights D, C body, B tags,
/// A title; length normalisation 1) runs only over a bounded set found through the GIN
/// index — every item of each query lexeme that matches at most `$10` items (the rare,
/// telling words: what BM25's IDF ranks first; lexemes the table statistics already know to
/// be commoner are not even fetched), up to `$10` items matching all lexemes, and up to `$9`
/// (the pool) matching any. Lexemes are OR-ed, as the embedded engine's clauses are. The
/// total counts matches up to `$11` and is a lower bound beyond.
const KEYWORD_SQL: &str = "
WITH lexemes AS (
    SELECT t.lexeme FROM unnest(to_tsvector('english', $8)) AS t(lexeme)
    WHERE NOT EXISTS (
        SELECT 1 FROM pg_stats s,
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(elem, freq)
        WHERE s.schemaname = current_schema() AND s.tablename = 'items' AND s.attname = 'tsv'
          AND e.elem = t.lexeme
          AND e.freq * (SELECT reltuples FROM pg_class WHERE oid = 'items'::regclass) > $10::bigint)),
per_lexeme AS (
    SELECT m.key, m.tsv, count(*) OVER (PARTITION BY l.lexeme) AS n
    FROM lexemes l CROSS JOIN LATERAL (
        SELECT key, tsv FROM items
        WHERE tsv @@ quote_literal(l.lexeme)::tsquery AND {FILTER}
        LIMIT $10::bigint + 1) m),
candidates AS (
    SELECT key, tsv FROM per_lexeme WHERE n <= $10::bigint
    UNION ALL (SELECT key, tsv FROM items
               WHERE tsv @@ plainto_tsquery('english', $8) AND {FILTER} LIMIT $10::bigint)
    UNION ALL (SELECT key, tsv FROM items WHERE tsv @@ {ANY_WORD} AND {FILTER} LIMIT $9)),
ranked AS (
    SELECT DISTINCT ON (key) key,
           ts_rank('{0.1, 0.5, 0.75, 1.0}', tsv, {ANY_WORD}, 1)::real AS rank
    FROM candidates ORDER BY key)
SELECT key, rank,
       (SELECT count(*) FROM (SELECT 1 FROM items WHERE tsv @@ {ANY_WORD} AND {FILTER}
                              LIMIT $11::bigint) AS c) AS total
FROM ranked ORDER BY rank DESC, key LIMIT $9::bigint";

/// The query's lexemes OR-ed (`$8` is the query text).
const ANY_WORD: &str = "replace(plainto_tsquery('english', $8)::text, ' & ', ' | ')::tsquery";

/// A plan's [`Filter`](crate::filter::Filter) as the parameters `$1`..`$7` of [`FILTER`].
struct SqlFilter<'a> {
    categories: Vec<&'static str>,
    status: Option<&'a str>,
    parent: Option<&'a str>,
    start: Option<chrono::DateTime<chrono::Utc>>,
    end: Option<chrono::DateTime<chrono::Utc>>,
    any_tags: Option<Vec<String>>,
    all_tags: Option<Vec<String>>,
}

impl<'a> SqlFilter<'a> {
    fn new(filter: &'a crate::filter::Filter) -> Self {
        let (start, end) = filter
            .updated
            .as_ref()
            .map_or((None, None), |r| (r.start, r.end));
        let tags = |list: fn(&navigator_core::TagFilter) -> &Vec<String>| {
            filter
                .tags
                .as_ref()
                .map(list)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    l.iter()
                        .map(|t| navigator_core::TagFilter::normalize(t))
                        .collect()
                })
        };
        Self {
            categories: filter.categories.iter().map(|c| c.as_str()).collect(),
            status: filter.status.as_deref(),
            parent: filter.parent_id.as_deref(),
            start,
            end,
            any_tags: tags(|t| &t.any),
            all_tags: tags(|t| &t.all),
        }
    }

    /// `$1`..`$7`, then `rest` from `$8` on.
    fn params<'p>(&'p self, rest: &[&'p Param<'p>]) -> Vec<&'p Param<'p>> {
        let mut params: Vec<&'p Param<'p>> = vec![
            &self.categories,
            &self.status,
            &self.parent,
            &self.start,
            &self.end,
            &self.any_tags,
            &self.all_tags,
        ];
        params.extend_from_slice(rest);
        params
    }
}

type Param<'p> = dyn tokio_postgres::types::ToSql + Sync + 'p;

/// The vector source: a pgvector HNSW scan with search beam `ef`, in one transaction (for
/// its `SET LOCAL`s).
/// A listing (no query): the newest items passing the filter, read whole, with how many
/// pass in all; the same order as the embedded catalog's (updated, then id).
async fn list(
    client: &deadpool_postgres::Client,
    plan: &Plan<'_>,
    filter: &SqlFilter<'_>,
) -> Result<SearchPage> {
    let err = pg_err("list items");
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {ITEM_COLUMNS}, count(*) OVER () FROM items WHERE {FILTER}
             ORDER BY updated_at DESC, id LIMIT $8"
        ))
        .await
        .map_err(&err)?;
    let wanted = plan.wanted() as i64;
    let rows = client
        .query(&stmt, &filter.params(&[&wanted]))
        .await
        .map_err(&err)?;
    let total = rows.first().map_or(0, |r| r.get::<_, i64>(14)) as usize;
    let mut keys = Vec::with_capacity(rows.len());
    let mut items: HashMap<u64, Item> = HashMap::with_capacity(rows.len());
    for row in &rows {
        let (key, item) = item_from_row(row)?;
        keys.push(key);
        items.insert(key, item);
    }
    let ranked = plan.listed(keys, total);
    let page: Vec<Option<Item>> = ranked.page().iter().map(|s| items.remove(&s.key)).collect();
    ranked.into_page(page, &[], &[], &mut LightSnippets)
}

async fn vector_candidates(
    client: &mut deadpool_postgres::Client,
    query: &Vector,
    filter: &SqlFilter<'_>,
    pool: usize,
    ef: usize,
) -> Result<Vec<(u64, f32)>> {
    let err = pg_err("vector search");
    let pool = pool as i64;
    let tx = client.transaction().await.map_err(&err)?;
    // The HNSW scan returns at most ef_search rows; iterative scans keep looking when
    // filters reject some (the core re-sorts what relaxed order returns).
    tx.execute(
        "SELECT set_config('hnsw.ef_search', $1, true),
                set_config('hnsw.iterative_scan', 'relaxed_order', true)",
        &[&ef.clamp(40, 1000).to_string()],
    )
    .await
    .map_err(&err)?;
    let stmt = tx
        .prepare_cached(&format!(
            "SELECT key, (1 - (embedding <=> $8))::real AS sim FROM items
             WHERE embedding IS NOT NULL AND {FILTER}
             ORDER BY embedding <=> $8 LIMIT $9"
        ))
        .await
        .map_err(&err)?;
    let rows = tx
        .query(&stmt, &filter.params(&[query, &pool]))
        .await
        .map_err(&err)?;
    tx.commit().await.map_err(&err)?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, f32>(1)))
        .collect())
}

#[async_trait::async_trait]
impl SearchService for PgSearchService {
    async fn search(&self, request: &SearchRequest) -> navigator_core::Result<SearchPage> {
        let vector = embed_query(self.embedder.as_ref(), request).await?;
        Ok(self.search_with_vector(request, vector.as_deref()).await?)
    }

    async fn find_exact(
        &self,
        query: &str,
    ) -> navigator_core::Result<Option<navigator_core::NavigationTarget>> {
        Ok(self.store.find_exact(query).await?)
    }

    async fn title_words(&self) -> navigator_core::Result<Vec<String>> {
        Ok(self.store.title_words().await?)
    }
}
