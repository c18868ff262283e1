//! [`PgSearchService`]: the embedded engine's read path on PostgreSQL. The server filters and
//! retrieves the two ranked lists (full-text and pgvector kNN); fusion, calibration, paging
//! and snippets run in the library, with the embedded engine's own code where it can be shared.

use super::rows::{item_from_row, ITEM_COLUMNS};
use super::{pg_err, PgStore};
use crate::catalog::ItemMeta;
use crate::filter::{checked_query_vector, Filter};
use crate::fusion::{FusionInput, Scored};
use crate::snippet;
use crate::{EngineConfig, Error, Result};
use navigator_core::{Embedder, Item, SearchPage, SearchRequest, SearchResult, SearchService};
use pgvector::Vector;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The filter of a request as SQL over parameters `$1`..`$5` (categories, status, parent,
/// updated from, updated to); the same conditions as the embedded engine's `Filter`.
const FILTER: &str = "category = ANY($1::text[])
    AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR parent_id = $3)
    AND ($4::timestamptz IS NULL OR updated_at >= $4)
    AND ($5::timestamptz IS NULL OR updated_at <= $5)";

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

    /// Runs `request` with an already embedded query (`None` is fine for keyword mode).
    pub async fn search_with_vector(
        &self,
        request: &SearchRequest,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchPage> {
        request.validate()?;
        let mode = request.search_mode;
        let query_vector = checked_query_vector(
            mode,
            query_vector,
            self.store.config().dimensions,
            self.embedder.model_id(),
        )?
        .map(|v| Vector::from(v.to_vec()));
        let filter = Filter::from_request(request);
        let wanted = request.offset as usize + request.limit as usize;
        let pool = self.config.candidates.max(wanted) as i64;
        let categories: Vec<&str> = filter.categories.iter().map(|c| c.as_str()).collect();
        let (start, end) = filter
            .updated
            .as_ref()
            .map_or((None, None), |r| (r.start, r.end));
        let (status, parent) = (filter.status.as_deref(), filter.parent_id.as_deref());
        let mut client = self.store.client().await?;

        let mut keyword_hits: Vec<(u64, f32)> = Vec::new();
        let mut keyword_total = None;
        if mode.uses_keywords() {
            let err = pg_err("keyword search");
            // OR of the query's lexemes (the embedded engine's SHOULD clauses); ts_rank with
            // weights D, C (body), B (tags), A (title) and length normalisation 1.
            let stmt = client
                .prepare_cached(&format!(
                    "SELECT key, ts_rank('{{0.1, 0.5, 0.75, 1.0}}', tsv, q, 1)::real AS rank,
                            count(*) OVER () AS total
                     FROM items, (SELECT replace(plainto_tsquery('english', $6)::text, ' & ', ' | ')
                                             ::tsquery AS q) AS query
                     WHERE tsv @@ q AND {FILTER}
                     ORDER BY rank DESC, key LIMIT $7"
                ))
                .await
                .map_err(&err)?;
            let rows = client
                .query(
                    &stmt,
                    &[
                        &categories,
                        &status,
                        &parent,
                        &start,
                        &end,
                        &request.query,
                        &pool,
                    ],
                )
                .await
                .map_err(&err)?;
            let scale = self.store.config().keyword_scale;
            keyword_total = Some(
                rows.first()
                    .map_or(0, |r| r.get::<_, i64>(2).max(0) as usize),
            );
            keyword_hits = rows
                .iter()
                .map(|r| {
                    let rank: f32 = r.get(1);
                    (r.get::<_, i64>(0) as u64, (f64::from(rank) * scale) as f32)
                })
                .collect();
        }

        let mut vector_hits: Vec<(u64, f32)> = Vec::new();
        if let Some(q) = &query_vector {
            let err = pg_err("vector search");
            let tx = client.transaction().await.map_err(&err)?;
            // The HNSW scan returns at most ef_search rows; iterative scans keep looking when
            // filters reject some (order fixed below).
            tx.execute(
                "SELECT set_config('hnsw.ef_search', $1, true),
                        set_config('hnsw.iterative_scan', 'relaxed_order', true)",
                &[&pool.clamp(40, 1000).to_string()],
            )
            .await
            .map_err(&err)?;
            let stmt = tx
                .prepare_cached(&format!(
                    "SELECT key, (1 - (embedding <=> $6))::real AS sim FROM items
                     WHERE embedding IS NOT NULL AND {FILTER}
                     ORDER BY embedding <=> $6 LIMIT $7"
                ))
                .await
                .map_err(&err)?;
            let rows = tx
                .query(
                    &stmt,
                    &[&categories, &status, &parent, &start, &end, q, &pool],
                )
                .await
                .map_err(&err)?;
            tx.commit().await.map_err(&err)?;
            vector_hits = rows
                .iter()
                .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, f32>(1)))
                .collect();
            vector_hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            vector_hits.retain(|(_, s)| *s >= self.config.min_similarity);
        }

        // Every candidate's row and, when the query is embedded, its exact similarity.
        let mut keys: Vec<i64> = keyword_hits
            .iter()
            .chain(&vector_hits)
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
        let mut similarity: HashMap<u64, f32> = vector_hits.iter().copied().collect();
        for row in &rows {
            let (key, item) = item_from_row(row)?;
            if let Some(sim) = row.get::<_, Option<f32>>(14) {
                similarity.entry(key).or_insert(sim);
            }
            metas.insert(key, ItemMeta::new(key, &item));
            items.insert(key, item);
        }

        let input = FusionInput {
            mode,
            query: &request.query,
            query_terms: query_terms(&request.query).len(),
            now: self.config.clock.now(),
        };
        let fused =
            self.config
                .calibration
                .fuse(&input, &keyword_hits, &vector_hits, &similarity, |k| {
                    metas.get(&k)
                });
        let total = match keyword_total {
            // Keyword matches beyond the candidate pool still count as matches.
            Some(k) => {
                let in_keyword: HashSet<u64> = keyword_hits.iter().map(|(k, _)| *k).collect();
                let extra = fused
                    .iter()
                    .filter(|s| !in_keyword.contains(&s.key))
                    .count();
                (k + extra).max(fused.len())
            }
            None => fused.len(),
        };

        let terms = query_terms(&request.query);
        let mut results = Vec::with_capacity(request.limit as usize);
        for scored in fused
            .iter()
            .skip(request.offset as usize)
            .take(request.limit as usize)
        {
            if let Some(item) = items.get(&scored.key) {
                results.push(result(item, scored, &terms)?);
            }
        }
        Ok(SearchPage {
            results,
            total_results: total as u64,
            embedding_used: mode.uses_embeddings(),
        })
    }
}

fn result(item: &Item, scored: &Scored, terms: &[String]) -> Result<SearchResult> {
    Ok(scored.to_result(item, snippet_for(item, scored, terms))?)
}

/// The embedded engine's snippet rules, with the library's light analyser instead of the
/// keyword index's: a keyword hit shows the body sentence with the most query terms, else the
/// lead when the title matched, else the tags; a semantic-only hit shows the best passage.
fn snippet_for(item: &Item, scored: &Scored, terms: &[String]) -> (String, &'static str) {
    let shares_a_term = |text: &str| query_terms(text).iter().any(|t| terms.contains(t));
    if scored.keyword.is_some() {
        if shares_a_term(&item.body) {
            if let Some(p) = snippet::best_passage(&item.body, terms, query_terms) {
                return (p, "body");
            }
        }
        if shares_a_term(&item.title) {
            return (snippet::lead(item), "title");
        }
        if let Some(tags) = snippet::tags(item) {
            return (tags, "tags");
        }
    }
    snippet::best_passage(&item.body, terms, query_terms)
        .map_or_else(|| (snippet::lead(item), "title"), |p| (p, "body"))
}

/// The distinct terms of `text` as the embedded engine counts them (lower-cased alphanumeric
/// runs of at most 40 bytes), with a plural `s` dropped so that snippets match inflections.
fn query_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || word.len() > 40 {
            continue;
        }
        let mut w = word.to_lowercase();
        if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
            w.pop();
        }
        if !terms.contains(&w) {
            terms.push(w);
        }
    }
    terms
}

#[async_trait::async_trait]
impl SearchService for PgSearchService {
    async fn search(&self, request: &SearchRequest) -> navigator_core::Result<SearchPage> {
        request.validate()?;
        let vector = if request.search_mode.uses_embeddings() {
            Some(self.embedder.embed_query(&request.query).await?)
        } else {
            None
        };
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

#[cfg(test)]
mod tests {
    use super::query_terms;

    #[test]
    fn terms_are_distinct_lowercase_words() {
        assert_eq!(
            query_terms("Quarterly REPORTS, quarterly report!"),
            vec!["quarterly", "report"]
        );
        assert_eq!(query_terms("  ...  "), Vec::<String>::new());
        assert_eq!(query_terms("class"), vec!["class"]);
    }
}
