//! The embedded read path: the retrieval core ([`crate::retrieval`]) over the engine's own
//! sources — tantivy for keywords, the usearch graph (or an exact scan of a small filtered
//! set) for vectors — with the keyword side on the retrieval helper thread in hybrid mode.

use super::SearchEngine;
use crate::catalog::Catalog;
use crate::chunk::{argmax, term_overlaps};
use crate::filter::{checked_query_vector, Filter};
use crate::retrieval::{
    embed_query, keyword_side, Candidates, ExactSimilarity, Plan, VectorSource,
};
use crate::snippet::MAX_SNIPPET_CHARS;
use crate::vector::VectorIndex;
use crate::Result;
use navigator_core::{NavigationTarget, SearchPage, SearchRequest, SearchService};

/// The engine's vector source: the graph walk filtered through the catalog, or an exact scan
/// when the filter leaves few items.
struct CatalogVectors<'a> {
    vectors: &'a VectorIndex,
    catalog: &'a Catalog,
    exact_scan_below: usize,
}

impl VectorSource for CatalogVectors<'_> {
    fn vector_candidates(
        &self,
        query: &[f32],
        filter: &Filter,
        pool: usize,
    ) -> Result<Vec<(u64, f32)>> {
        let catalog = self.catalog;
        if !filter.is_unrestricted()
            && catalog.count_matching(filter, self.exact_scan_below + 1) <= self.exact_scan_below
        {
            let keys = catalog.matching_keys(filter);
            let mut exact = self.vectors.item_similarities(query, &keys)?;
            exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            exact.truncate(pool);
            return Ok(exact);
        }
        if filter.is_unrestricted() {
            // Every item passes: the walk needs no check per node (`Plan::rank` still has the
            // final word on what is live).
            return self.vectors.search_all_items(query, pool);
        }
        if filter.is_category_only() {
            let mask = crate::catalog::category_mask(&filter.categories);
            return self
                .vectors
                .search_items(query, pool, |item| catalog.in_categories(item, mask));
        }
        self.vectors.search_items(query, pool, |item| {
            catalog.get(item).is_some_and(|m| filter.matches(m))
        })
    }
}

impl ExactSimilarity for CatalogVectors<'_> {
    fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>> {
        self.vectors.item_similarities(query, keys)
    }
}

impl SearchEngine {
    /// Runs `request` with an already embedded query (`None` is fine for keyword mode):
    /// what [`SearchService::search`] does after embedding. Benchmarks use it to time the
    /// engine without the model.
    pub fn search_with_vector(
        &self,
        request: &SearchRequest,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchPage> {
        let plan = Plan::new(request, query_vector, &*self.embedder, &self.config)?;
        let catalog = self.catalog.read().map_err(|e| self.lock_err(e))?;
        let vectors = CatalogVectors {
            vectors: &self.vectors,
            catalog: &catalog,
            exact_scan_below: self.config.exact_scan_below,
        };
        if plan.is_listing() {
            let (newest, total) = catalog.newest(&plan.filter, plan.wanted());
            drop(catalog);
            let ranked = plan.listed(newest, total);
            let keys: Vec<u64> = ranked.page().iter().map(|s| s.key).collect();
            let items = self.store.items_by_keys(&keys)?;
            let mut snippets = self.keyword.snippets(&[], false, MAX_SNIPPET_CHARS)?;
            return ranked.into_page(items, &[], &[], &mut snippets);
        }
        let candidates = match (plan.vector, &self.helper) {
            // Hybrid: the two sides are independent; the helper thread takes the keyword side
            // while this one walks the vector graph (see `helper`).
            (Some(q), Some(helper)) if plan.mode.uses_keywords() => {
                let (keyword, index) = (self.keyword.clone(), self.vectors.clone());
                let (query, filter, pool) = (request.query.clone(), plan.filter.clone(), plan.pool);
                let owned_q = q.to_vec();
                let task = helper.submit(move || {
                    keyword_side(&*keyword, &*index, &query, &filter, pool, Some(&owned_q))
                });
                let vector = vectors.vector_candidates(q, &plan.filter, plan.pool);
                let (hits, sims) = task.finish().map_err(|_| crate::Error::Storage {
                    path: self.dir.clone(),
                    message: "the keyword search thread panicked".into(),
                    source: None,
                })??;
                Candidates {
                    keyword: Some(hits),
                    vector: vector?,
                    keyword_similarities: sims,
                }
            }
            _ => plan.candidates(&*self.keyword, &vectors)?,
        };
        let ranked = plan.rank(&self.config, candidates, |k| catalog.get(k));
        drop(catalog);

        let keys: Vec<u64> = ranked.page().iter().map(|s| s.key).collect();
        let items = self.store.items_by_keys(&keys)?;
        let query_terms = self.keyword.analyze(&request.query)?;
        let passages = self.best_passages(&keys, &items, plan.vector, &query_terms)?;
        let mut snippets = self.keyword.snippets(
            &query_terms,
            ranked.page_has_keyword_hits(),
            MAX_SNIPPET_CHARS,
        )?;
        ranked.into_page(items, &passages, &query_terms, &mut snippets)
    }

    /// For each chunked item of a page, the passage its snippet comes from: the chunk most
    /// similar to the query vector, or without one the chunk sharing the most query terms.
    /// `None` for one-chunk items (their snippet looks at the whole body).
    fn best_passages(
        &self,
        keys: &[u64],
        items: &[Option<navigator_core::Item>],
        query: Option<&[f32]>,
        query_terms: &[String],
    ) -> Result<Vec<Option<String>>> {
        keys.iter()
            .zip(items)
            .map(|(&key, item)| {
                let Some(item) = item else { return Ok(None) };
                // The index holds the same chunks as the store: a one-chunk item is known
                // without reading its stored vectors.
                if !self.vectors.has_several_chunks(key)? {
                    return Ok(None);
                }
                let Some(stored) = self.store.vector(key)? else {
                    return Ok(None);
                };
                if stored.chunks.len() < 2 {
                    return Ok(None);
                }
                let best = match query {
                    Some(q) => argmax(&self.vectors.chunk_similarities(q, key)?),
                    None => argmax(&term_overlaps(&item.body, &stored, query_terms)),
                };
                Ok(best.map(|i| stored.passage(&item.body, i).to_string()))
            })
            .collect()
    }

    /// The `k` stored items whose vectors are nearest to `query` by cosine similarity,
    /// best first, as `(item id, cosine)`: the raw approximate (HNSW) neighbour search, with
    /// no filters, no similarity floor and no fusion. For "more like this" lookups and for
    /// measuring the index's recall against an exact scan.
    pub fn nearest(&self, query: &[f32], k: usize) -> Result<Vec<(String, f32)>> {
        checked_query_vector(
            navigator_core::SearchMode::Semantic,
            Some(query),
            self.vectors.dims(),
            self.embedder.model_id(),
        )?;
        let catalog = self.catalog.read().map_err(|e| self.lock_err(e))?;
        let hits = self.vectors.search_all_items(query, k)?;
        Ok(hits
            .into_iter()
            .filter_map(|(key, sim)| catalog.get(key).map(|m| (m.id.clone(), sim)))
            .collect())
    }

    /// The item a query names exactly, by id or by title (case- and spacing-insensitive);
    /// `None` when nothing or more than one item matches.
    pub fn find_exact(&self, query: &str) -> Option<NavigationTarget> {
        let catalog = self.catalog.read().ok()?;
        let target = |m: &crate::catalog::ItemMeta| NavigationTarget {
            item_id: m.id.clone(),
            item_type: m.item_type,
            category: m.category,
        };
        if let Some(m) = catalog.by_id(query.trim()) {
            return Some(target(m));
        }
        match catalog.by_title(query).as_slice() {
            [only] => Some(target(only)),
            _ => None,
        }
    }
}

#[async_trait::async_trait]
impl SearchService for SearchEngine {
    async fn search(&self, request: &SearchRequest) -> navigator_core::Result<SearchPage> {
        let vector = embed_query(self.embedder.as_ref(), request).await?;
        // tantivy, usearch and redb block: off the executor.
        let request = request.clone();
        Ok(self
            .blocking(move |engine| engine.search_with_vector(&request, vector.as_deref()))
            .await?)
    }

    async fn find_exact(&self, query: &str) -> navigator_core::Result<Option<NavigationTarget>> {
        Ok(SearchEngine::find_exact(self, query))
    }

    async fn title_words(&self) -> navigator_core::Result<Vec<String>> {
        let catalog = self.catalog.read().map_err(|e| self.lock_err(e))?;
        Ok(crate::catalog::title_words(catalog.titles()))
    }
}
