//! [`PgSearchService`]: the retrieval core ([`crate::retrieval`]) on PostgreSQL. The server
//! filters and retrieves the two candidate lists (full-text, `fulltext.rs`, and a pgvector
//! kNN walk over chunk vectors, `vectors.rs`), the candidates' rows and their chunks'
//! cosines; the plan, chunk roll-up, filtering rules, fusion and calibration, totals, paging
//! and snippets are the core's, the same code the embedded engine runs.

use super::rows::{item_from_row, ITEM_COLUMNS, META_COLUMNS};
use super::sql_filter::{SqlFilter, FILTER};
use super::{chunks, fulltext, pg_err, vectors, PgStore};
use crate::catalog::ItemMeta;
use crate::retrieval::{embed_query, Candidates, Plan};
use crate::snippet::LightSnippets;
use crate::{EngineConfig, Error, ItemVectors, Result};
use navigator_core::{Embedder, Item, SearchPage, SearchRequest, SearchService};
use pgvector::Vector;
use std::collections::HashMap;
use std::sync::Arc;

/// Search [`PgStore`] items with the embedded engine's request semantics and scores.
///
/// Writes through [`upsert`](Self::upsert) chunk and embed the items as the embedded engine
/// does; items written through the plain [`Store`](navigator_core::Store) interface get
/// their chunk vectors from [`embed_missing`](Self::embed_missing) (until then they are found
/// by keyword only). An item's similarity to a query is rolled up from all its chunks
/// ([`EngineConfig::chunk_rollup`]) and a chunked result's snippet comes from its best chunk,
/// as on the embedded engine.
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

    /// Embeds and writes items, all in one transaction: durable and searchable on `Ok`. As
    /// the embedded engine does, an item too long for the model's window
    /// ([`EngineConfig::chunk_tokens`] at most) is cut into chunks, each embedded as title,
    /// heading path and passage, and only chunks whose text has no stored vector are
    /// embedded (editing one section of a long note embeds that section again).
    pub async fn upsert(&self, items: &[Item]) -> Result<()> {
        for item in items {
            item.validate()?;
        }
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let previous = self.store.vectors_by_id(&ids).await?;
        let vectors =
            crate::chunk_embed::embed_items(&self.embedder, &self.config, items, previous.values())
                .await?;
        self.upsert_embedded(items, &vectors).await
    }

    /// Writes items with precomputed vectors (one per item, in order, from the same model),
    /// each standing for its whole item (one chunk).
    pub async fn upsert_with_vectors(&self, items: &[Item], vectors: &[Vec<f32>]) -> Result<()> {
        self.store
            .put_items_with_vectors(items, Some(vectors))
            .await
    }

    /// Writes items with their chunk vectors (one [`ItemVectors`] per item, in order, each
    /// with at least one chunk of the store's dimensions), as
    /// [`SearchEngine::stored_vectors`](crate::SearchEngine::stored_vectors) and
    /// [`PgStore::stored_vectors`] return them: nothing is embedded.
    pub async fn upsert_embedded(&self, items: &[Item], vectors: &[ItemVectors]) -> Result<()> {
        self.store.put_items_embedded(items, Some(vectors)).await
    }

    /// Embeds (chunked, as [`upsert`](Self::upsert) does) every item stored without chunk
    /// vectors; how many it embedded.
    pub async fn embed_missing(&self) -> Result<usize> {
        let mut done = 0;
        loop {
            let batch = self
                .store
                .items_without_chunks(self.config.embed_batch.max(1) as i64)
                .await?;
            if batch.is_empty() {
                return Ok(done);
            }
            done += batch.len();
            self.upsert(&batch).await?;
        }
    }

    /// The `k` items nearest to `query` by cosine similarity, best first, as `(item id,
    /// cosine)`: the raw pgvector HNSW walk over chunk vectors (the beam searches use, no
    /// filters, floor or fusion), each item scored over all its chunks with the configured
    /// [`ChunkRollup`](crate::ChunkRollup); for "more like this" and for measuring recall
    /// against an exact scan.
    pub async fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<(String, f32)>> {
        let plan_vector = crate::filter::checked_query_vector(
            navigator_core::SearchMode::Semantic,
            Some(query),
            self.embedder.dimensions(),
            self.embedder.model_id(),
        )?;
        let query = Vector::from(plan_vector.unwrap_or_default().to_vec());
        let all = crate::filter::Filter::everything();
        let filter = SqlFilter::new(&all, self.store.owner());
        let config = self.store.config();
        let ef = k.max(self.config.candidates).max(config.ef_search);
        let mut client = self.store.client().await?;
        let walked = vectors::walk(&mut client, &query, &filter, k, ef, config).await?;
        let keys: Vec<i64> = walked.iter().map(|k| *k as i64).collect();
        let owner = self.store.owner();
        let chunks = chunks::read(&client, owner, &keys, Some(&query)).await?;
        let hits = vectors::vector_hits(self.config.chunk_rollup, &chunks, &walked, k);
        let err = pg_err("nearest ids");
        let rows = client
            .query(
                "SELECT key, id FROM items WHERE owner = $1 AND key = ANY($2)",
                &[owner, &keys],
            )
            .await
            .map_err(&err)?;
        let ids: HashMap<u64, String> = rows
            .iter()
            .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, String>(1)))
            .collect();
        Ok(hits
            .into_iter()
            .filter_map(|(key, sim)| ids.get(&key).map(|id| (id.clone(), sim)))
            .collect())
    }

    /// Runs `request` with an already embedded query (`None` is fine for keyword mode).
    pub async fn search_with_vector(
        &self,
        request: &SearchRequest,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchPage> {
        let plan = Plan::new(request, query_vector, &*self.embedder, &self.config)?;
        let owner = self.store.owner();
        let filter = SqlFilter::new(&plan.filter, owner);
        if plan.is_listing() {
            let client = self.store.client().await?;
            return list(&client, &plan, &filter).await;
        }
        let config = self.store.config();
        let query_vector = plan.vector.map(|v| Vector::from(v.to_vec()));
        // The two candidate lists come from two connections at once: two server processes
        // working side by side, so a hybrid search waits for the slower list, not both. Each
        // side gives its connection back as it finishes (a pool of one still works).
        let keyword = async {
            match plan.mode.uses_keywords() {
                true => {
                    let client = self.store.client().await?;
                    let hits = fulltext::keyword_candidates(&client, &plan, &filter, config);
                    hits.await.map(Some)
                }
                false => Ok(None),
            }
        };
        let walk = async {
            match &query_vector {
                Some(q) => {
                    let mut client = self.store.client().await?;
                    let ef = plan.pool.max(config.ef_search);
                    vectors::walk(&mut client, q, &filter, plan.pool, ef, config).await
                }
                None => Ok(Vec::new()),
            }
        };
        let (keyword, walked) = tokio::try_join!(keyword, walk)?;
        let mut candidates = Candidates {
            keyword,
            ..Candidates::default()
        };

        // Every candidate's facts and, when the query is embedded, its chunks' cosines: the
        // walked items and the keyword hits are scored over all their chunks alike.
        let keyword_keys: Vec<u64> = candidates
            .keyword
            .iter()
            .flat_map(|k| k.hits.iter().map(|(key, _)| *key))
            .collect();
        let mut keys: Vec<i64> = keyword_keys
            .iter()
            .chain(&walked)
            .map(|k| *k as i64)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        // The candidates' catalog facts (no bodies) and their chunks' cosines, from two
        // connections at once; only the page's rows are then read whole.
        let store = &self.store;
        let (metas, mut chunks) = match &query_vector {
            Some(q) => tokio::try_join!(read_metas(store, &keys), async {
                let client = store.client().await?;
                chunks::read(&client, owner, &keys, Some(q)).await
            })?,
            None => (read_metas(store, &keys).await?, HashMap::new()),
        };
        if query_vector.is_some() {
            let rollup = self.config.chunk_rollup;
            candidates.vector = vectors::vector_hits(rollup, &chunks, &walked, plan.pool);
            candidates.keyword_similarities = vectors::rolled_up(rollup, &chunks, keyword_keys);
        }

        let ranked = plan.rank(&self.config, candidates, |k| metas.get(&k));
        let page_keys: Vec<u64> = ranked.page().iter().map(|s| s.key).collect();
        let page: Vec<i64> = page_keys.iter().map(|k| *k as i64).collect();
        let client = store.client().await?;
        let mut items = match query_vector.is_none() {
            // Two statements pipelined on one connection: one round trip.
            true => {
                let (items, page_chunks) = tokio::try_join!(
                    read_items(&client, owner, &page, ITEM_COLUMNS),
                    chunks::read(&client, owner, &page, None)
                )?;
                chunks = page_chunks;
                items
            }
            false => read_items(&client, owner, &page, ITEM_COLUMNS).await?,
        };
        drop(client);
        let page: Vec<Option<Item>> = page_keys.iter().map(|k| items.remove(k)).collect();
        let terms = navigator_core::text::terms(&request.query);
        let passages = vectors::best_passages(&page_keys, &page, &chunks, &terms);
        ranked.into_page(page, &passages, &terms, &mut LightSnippets)
    }
}

/// The rows of `owner`'s items with `keys`: `columns` is [`ITEM_COLUMNS`] for whole items or
/// [`META_COLUMNS`] for their catalog facts (no body or metadata).
async fn read_items(
    client: &deadpool_postgres::Client,
    owner: &str,
    keys: &[i64],
    columns: &str,
) -> Result<HashMap<u64, Item>> {
    let err = pg_err("read items");
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {columns} FROM items WHERE owner = $1 AND key = ANY($2)"
        ))
        .await
        .map_err(&err)?;
    let rows = client.query(&stmt, &[&owner, &keys]).await.map_err(&err)?;
    rows.iter().map(item_from_row).collect()
}

/// The catalog facts of `store`'s items with `keys` (what ranking and filters look at), on a
/// connection of their own.
async fn read_metas(store: &PgStore, keys: &[i64]) -> Result<HashMap<u64, ItemMeta>> {
    let client = store.client().await?;
    let items = read_items(&client, store.owner(), keys, META_COLUMNS).await?;
    Ok(items
        .into_iter()
        .map(|(key, item)| (key, ItemMeta::from_item(key, item)))
        .collect())
}

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
             ORDER BY updated_at DESC, id LIMIT $9"
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
