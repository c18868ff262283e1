//! The read path: validate → retrieve (keyword, vector) → fuse → page → snippets.

use super::SearchEngine;
use crate::catalog::Catalog;
use crate::filter::{checked_query_vector, Filter};
use crate::fusion::{FusionInput, Scored};
use crate::keyword::{analyze_with, BodySnippets, KeywordHits};
use crate::snippet::{self, MAX_SNIPPET_CHARS};
use crate::Result;
use navigator_core::{Item, NavigationTarget, SearchPage, SearchRequest, SearchService};
use std::collections::{HashMap, HashSet};
use tantivy::tokenizer::TextAnalyzer;

/// The keyword side of a search: the BM25 hits (none in semantic mode) and their exact cosine
/// similarities to the query (none when the query is not embedded).
type KeywordSide = (Option<KeywordHits>, Vec<(u64, f32)>);

impl SearchEngine {
    /// Runs `request` with an already embedded query (`None` is fine for keyword mode):
    /// what [`SearchService::search`] does after embedding. Benchmarks use it to time the
    /// engine without the model.
    pub fn search_with_vector(
        &self,
        request: &SearchRequest,
        query_vector: Option<&[f32]>,
    ) -> Result<SearchPage> {
        request.validate()?;
        let mode = request.search_mode;
        let query_vector = checked_query_vector(
            mode,
            query_vector,
            self.vectors.dims(),
            self.embedder.model_id(),
        )?;
        let filter = Filter::from_request(request);
        let wanted = (request.offset as usize).saturating_add(request.limit as usize);
        let pool = self.config.candidates.max(wanted);

        // The keyword side: the BM25 candidates and, when the query is embedded, their exact
        // cosine similarities (a keyword hit the vector search did not return still needs
        // one).
        let keyword_side = {
            let (keyword, vectors) = (self.keyword.clone(), self.vectors.clone());
            let (query, filter) = (request.query.clone(), filter.clone());
            let query_vector = query_vector.map(<[f32]>::to_vec);
            move || -> Result<KeywordSide> {
                if !mode.uses_keywords() {
                    return Ok((None, Vec::new()));
                }
                let hits = keyword.search(&query, &filter, pool)?;
                let sims = match &query_vector {
                    Some(q) => {
                        let keys: Vec<u64> = hits.hits.iter().map(|(key, _)| *key).collect();
                        vectors.similarities(q, &keys)?
                    }
                    None => Vec::new(),
                };
                Ok((Some(hits), sims))
            }
        };
        let catalog = self.catalog.read().map_err(|e| self.lock_err(e))?;
        let ((keyword, keyword_sims), vector_hits) = match (query_vector, &self.helper) {
            // Hybrid: the two sides are independent; the helper thread takes the keyword side
            // while this one walks the vector graph (see `helper`).
            (Some(q), Some(helper)) if mode.uses_keywords() => {
                let task = helper.submit(keyword_side);
                let vector = self.vector_candidates(q, &filter, &catalog, pool);
                let keyword = task.finish().map_err(|_| crate::Error::Storage {
                    path: self.dir.clone(),
                    message: "the keyword search thread panicked".into(),
                    source: None,
                })?;
                (keyword?, vector?)
            }
            _ => {
                let keyword = keyword_side()?;
                let vector = match query_vector {
                    Some(q) => self.vector_candidates(q, &filter, &catalog, pool)?,
                    None => Vec::new(),
                };
                (keyword, vector)
            }
        };
        // The catalog has the final word on what is live and what passes the filter: an item
        // being written may be in one index a moment before it is in the catalog.
        let visible = |key: u64| catalog.get(key).is_some_and(|m| filter.matches(m));
        let keyword_hits: Vec<(u64, f32)> = keyword
            .as_ref()
            .map(|k| {
                k.hits
                    .iter()
                    .copied()
                    .filter(|(key, _)| visible(*key))
                    .collect()
            })
            .unwrap_or_default();

        // Exact similarities of the keyword hits, then the vector hits above the floor (a
        // vector hit keeps the similarity its own search measured).
        let mut similarity: HashMap<u64, f32> = keyword_sims.into_iter().collect();
        let mut vector_hits = vector_hits;
        vector_hits.retain(|(_, s)| *s >= self.config.min_similarity);
        similarity.extend(vector_hits.iter().copied());

        let input = FusionInput {
            mode,
            query: &request.query,
            query_terms: keyword.as_ref().map_or(0, |k| k.terms),
            now: self.config.clock.now(),
        };
        let fused =
            self.config
                .calibration
                .fuse(&input, &keyword_hits, &vector_hits, &similarity, |k| {
                    catalog.get(k)
                });
        let in_keyword: HashSet<u64> = keyword_hits.iter().map(|(k, _)| *k).collect();
        let total = match &keyword {
            // Keyword matches beyond the candidate pool still count as matches.
            Some(k) => {
                let extra = fused
                    .iter()
                    .filter(|s| !in_keyword.contains(&s.key))
                    .count();
                (k.total.saturating_sub(k.hits.len() - keyword_hits.len()) + extra).max(fused.len())
            }
            None => fused.len(),
        };
        drop(catalog);

        let page: Vec<&Scored> = fused
            .iter()
            .skip(request.offset as usize)
            .take(request.limit as usize)
            .collect();
        let query_terms = self.keyword.analyze(&request.query)?;
        let body_snippets = match &keyword {
            Some(k) if page.iter().any(|s| s.keyword.is_some()) => {
                Some(self.keyword.body_snippets(k, MAX_SNIPPET_CHARS)?)
            }
            _ => None,
        };
        let keys: Vec<u64> = page.iter().map(|s| s.key).collect();
        let items = self.store.items_by_keys(&keys)?;
        let hits: Vec<(&Scored, Item)> = page
            .into_iter()
            .zip(items)
            .filter_map(|(scored, item)| item.map(|item| (scored, item)))
            .collect();
        let mut analyzer = self.keyword.analyzer()?;
        let results = hits
            .iter()
            .map(|(scored, item)| {
                let snippet = self.snippet_for(
                    item,
                    scored,
                    body_snippets.as_ref(),
                    &query_terms,
                    &mut analyzer,
                );
                Ok(scored.to_result(item, snippet)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SearchPage {
            results,
            total_results: total as u64,
            embedding_used: mode.uses_embeddings(),
        })
    }

    fn vector_candidates(
        &self,
        query: &[f32],
        filter: &Filter,
        catalog: &Catalog,
        pool: usize,
    ) -> Result<Vec<(u64, f32)>> {
        if !filter.is_unrestricted()
            && catalog.count_matching(filter, self.config.exact_scan_below + 1)
                <= self.config.exact_scan_below
        {
            let keys = catalog.matching_keys(filter);
            let mut exact = self.vectors.similarities(query, &keys)?;
            exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            exact.truncate(pool);
            return Ok(exact);
        }
        if filter.is_category_only() {
            let mask = crate::catalog::category_mask(&filter.categories);
            return self
                .vectors
                .search(query, pool, |key| catalog.in_categories(key, mask));
        }
        self.vectors.search(query, pool, |key| {
            catalog.get(key).is_some_and(|m| filter.matches(m))
        })
    }

    fn snippet_for(
        &self,
        item: &Item,
        scored: &Scored,
        body_snippets: Option<&BodySnippets>,
        query_terms: &[String],
        analyzer: &mut TextAnalyzer,
    ) -> (String, &'static str) {
        let mut analyze = |text: &str| analyze_with(analyzer, text);
        if let (Some(body_snippets), Some(_)) = (body_snippets, scored.keyword) {
            let (body, body_hit) = body_snippets.snippet(&item.body);
            if body_hit {
                return (snippet::truncate(&body, MAX_SNIPPET_CHARS), "body");
            }
            if analyze(&item.title).iter().any(|t| query_terms.contains(t)) {
                return (snippet::lead(item), "title");
            }
            if let Some(tags) = snippet::tags(item) {
                return (tags, "tags");
            }
        }
        // Semantic-only hit: the passage that best matches the query, else the lead.
        snippet::best_passage(&item.body, query_terms, analyze)
            .map_or_else(|| (snippet::lead(item), "title"), |p| (p, "body"))
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
        let hits = self
            .vectors
            .search(query, k, |key| catalog.in_categories(key, u8::MAX))?;
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
        request.validate()?;
        let vector = if request.search_mode.uses_embeddings() {
            Some(self.embedder.embed_query(&request.query).await?)
        } else {
            None
        };
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
