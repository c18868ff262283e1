//! The retrieval core both backends run: request → [`Plan`] → candidates from the sources →
//! [`Plan::rank`] (filtering rules, fusion and calibration, totals) → page → snippets →
//! [`SearchPage`].
//!
//! A backend only supplies candidates: a [`KeywordSource`] (tantivy BM25 embedded,
//! PostgreSQL full-text) and a [`VectorSource`] (usearch HNSW embedded, pgvector HNSW), each
//! filtered by the plan's [`Filter`], plus the catalog facts ([`ItemMeta`]) and the stored
//! items of the candidates. Everything that decides what a result is and how it scores is
//! here, once, so a relevance score, a total and a snippet mean the same on every backend.
//!
//! The sources are synchronous: the embedded engine calls them on its own threads (the
//! keyword side on the retrieval helper while it walks the graph). The PostgreSQL backend,
//! whose sources are network round trips, runs the same plan with its two queries and hands
//! the rows to the same [`Plan::rank`].

use crate::catalog::ItemMeta;
use crate::filter::{checked_query_vector, Filter};
use crate::fusion::{FusionInput, Scored};
use crate::snippet;
use crate::{EngineConfig, Result};
use navigator_core::{Embedder, Item, SearchMode, SearchPage, SearchRequest};
use std::collections::{HashMap, HashSet};

/// The keyword candidates of a query: hits best first with their raw scores (BM25 or its
/// stand-in), how many items matched in all, and how many distinct terms the query has.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KeywordCandidates {
    /// `(item key, raw score)`, best first, at most the plan's pool.
    pub(crate) hits: Vec<(u64, f32)>,
    /// Every item that matched the query and the filter (at least `hits.len()`).
    pub(crate) total: usize,
    /// Distinct analysed query terms (fusion's keyword damping counts them).
    pub(crate) terms: usize,
}

/// A source of keyword candidates (in process; the PostgreSQL backend's source is its
/// full-text query, see `pg::search`).
pub(crate) trait KeywordSource {
    /// The best `pool` keyword matches of `query` among the items passing `filter`.
    fn keyword_candidates(
        &self,
        query: &str,
        filter: &Filter,
        pool: usize,
    ) -> Result<KeywordCandidates>;
}

/// A source of vector candidates (in process; PostgreSQL's is its pgvector query).
pub(crate) trait VectorSource {
    /// The (approximately) nearest `pool` items to `query` among those passing `filter`, as
    /// `(key, cosine)`.
    fn vector_candidates(
        &self,
        query: &[f32],
        filter: &Filter,
        pool: usize,
    ) -> Result<Vec<(u64, f32)>>;
}

/// Exact similarities of given items to a query (what keyword hits are scored with).
pub(crate) trait ExactSimilarity {
    /// The exact cosine of `query` to each of `keys` that has a vector.
    fn similarities(&self, query: &[f32], keys: &[u64]) -> Result<Vec<(u64, f32)>>;
}

/// The keyword side of a search: the keyword candidates and, when the query is embedded,
/// their exact similarities. Owned arguments so it can run on another thread.
pub(crate) fn keyword_side(
    keyword: &impl KeywordSource,
    vectors: &impl ExactSimilarity,
    query: &str,
    filter: &Filter,
    pool: usize,
    query_vector: Option<&[f32]>,
) -> Result<(KeywordCandidates, Vec<(u64, f32)>)> {
    let hits = keyword.keyword_candidates(query, filter, pool)?;
    let sims = match query_vector {
        Some(q) => {
            let keys: Vec<u64> = hits.hits.iter().map(|(k, _)| *k).collect();
            vectors.similarities(q, &keys)?
        }
        None => Vec::new(),
    };
    Ok((hits, sims))
}

/// What both sources returned for one plan.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    /// `None` when the mode does not search keywords.
    pub(crate) keyword: Option<KeywordCandidates>,
    /// Vector hits (any order; empty when the query is not embedded).
    pub(crate) vector: Vec<(u64, f32)>,
    /// Exact cosines of keyword hits (a keyword hit the vector side did not return still
    /// needs one); a vector hit keeps the similarity its own search measured.
    pub(crate) keyword_similarities: Vec<(u64, f32)>,
}

/// A validated request ready for the candidate sources.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub(crate) request: &'a SearchRequest,
    pub(crate) mode: SearchMode,
    pub(crate) filter: Filter,
    /// Candidates per source: the configured pool, at least `offset + limit`.
    pub(crate) pool: usize,
    /// The query vector (`None` when the mode does not embed).
    pub(crate) vector: Option<&'a [f32]>,
}

impl<'a> Plan<'a> {
    /// Validates `request` and its query vector (as wide as `embedder`'s, needed when the
    /// mode embeds).
    pub(crate) fn new(
        request: &'a SearchRequest,
        vector: Option<&'a [f32]>,
        embedder: &dyn Embedder,
        config: &EngineConfig,
    ) -> Result<Self> {
        request.validate()?;
        let mode = request.search_mode;
        // A listing has no query to embed: whatever vector came is not used.
        let vector = if request.is_listing() {
            None
        } else {
            checked_query_vector(mode, vector, embedder.dimensions(), embedder.model_id())?
        };
        let wanted = (request.offset as usize).saturating_add(request.limit as usize);
        Ok(Self {
            request,
            mode,
            filter: Filter::from_request(request),
            pool: config.candidates.max(wanted),
            vector,
        })
    }

    /// Whether the request lists (no query): see [`Plan::listed`].
    pub(crate) fn is_listing(&self) -> bool {
        self.request.is_listing()
    }

    /// How many of the newest matching items a listing needs: the page and everything before it.
    pub(crate) fn wanted(&self) -> usize {
        (self.request.offset as usize).saturating_add(self.request.limit as usize)
    }

    /// A listing's ranked list from the keys of the newest items passing the filter, newest
    /// first (at least [`wanted`](Self::wanted) of them when there are), and how many pass
    /// in all. Each has relevance 1.0: it meets every condition of the request, and there is
    /// no query to be more or less relevant to.
    pub(crate) fn listed(&self, newest: Vec<u64>, total: usize) -> Ranked {
        Ranked {
            fused: newest
                .into_iter()
                .map(|key| Scored {
                    key,
                    score: 1.0,
                    rrf: 0.0,
                    keyword: None,
                    similarity: None,
                })
                .collect(),
            total,
            offset: self.request.offset as usize,
            limit: self.request.limit as usize,
            embedding_used: false,
        }
    }

    /// Runs both sources one after the other (the embedded engine can overlap them
    /// instead: see [`keyword_side`]).
    pub(crate) fn candidates(
        &self,
        keyword: &impl KeywordSource,
        vectors: &(impl VectorSource + ExactSimilarity),
    ) -> Result<Candidates> {
        let mut out = Candidates::default();
        if self.mode.uses_keywords() {
            let (hits, sims) = keyword_side(
                keyword,
                vectors,
                &self.request.query,
                &self.filter,
                self.pool,
                self.vector,
            )?;
            out.keyword = Some(hits);
            out.keyword_similarities = sims;
        }
        if let Some(q) = self.vector {
            out.vector = vectors.vector_candidates(q, &self.filter, self.pool)?;
        }
        Ok(out)
    }

    /// Fuses the candidates into the ranked list of every result. `meta` gives the catalog
    /// facts of a candidate and has the final word on what is live and passes the filter (an
    /// item being written may be in an index a moment before it is in the catalog); vector
    /// hits below the configured similarity floor are not results.
    pub(crate) fn rank<'m>(
        &self,
        config: &EngineConfig,
        candidates: Candidates,
        meta: impl Fn(u64) -> Option<&'m ItemMeta>,
    ) -> Ranked {
        let visible = |key: u64| meta(key).is_some_and(|m| self.filter.matches(m));
        let keyword = candidates.keyword;
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
        let mut vector_hits = candidates.vector;
        vector_hits.retain(|&(key, s)| {
            meta(key).is_some_and(|m| {
                let folder = m.id.ends_with('/');
                let floor = if folder {
                    config.min_folder_similarity.max(config.min_similarity)
                } else {
                    config.min_similarity
                };
                s >= floor && self.filter.matches(m)
            })
        });
        vector_hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut similarity: HashMap<u64, f32> =
            candidates.keyword_similarities.into_iter().collect();
        similarity.extend(vector_hits.iter().copied());

        let input = FusionInput {
            mode: self.mode,
            query: &self.request.query,
            query_terms: keyword.as_ref().map_or(0, |k| k.terms),
            now: config.clock.now(),
        };
        let fused =
            config
                .calibration
                .fuse(&input, &keyword_hits, &vector_hits, &similarity, &meta);
        let total = match &keyword {
            // Keyword matches beyond the candidate pool still count as matches; vector-only
            // results add to them.
            Some(k) => {
                let in_keyword: HashSet<u64> = keyword_hits.iter().map(|(k, _)| *k).collect();
                let extra = fused
                    .iter()
                    .filter(|s| !in_keyword.contains(&s.key))
                    .count();
                (k.total.saturating_sub(k.hits.len() - keyword_hits.len()) + extra).max(fused.len())
            }
            None => fused.len(),
        };
        Ranked {
            fused,
            total,
            offset: self.request.offset as usize,
            limit: self.request.limit as usize,
            embedding_used: self.mode.uses_embeddings(),
        }
    }
}

/// Every result of a plan, best first, and how many matched in all.
#[derive(Debug)]
pub(crate) struct Ranked {
    fused: Vec<Scored>,
    total: usize,
    offset: usize,
    limit: usize,
    embedding_used: bool,
}

impl Ranked {
    /// The results on the requested page.
    pub(crate) fn page(&self) -> &[Scored] {
        let start = self.offset.min(self.fused.len());
        let end = (start + self.limit).min(self.fused.len());
        &self.fused[start..end]
    }

    /// Whether any result on the page is a keyword hit (whose snippet is highlighted).
    pub(crate) fn page_has_keyword_hits(&self) -> bool {
        self.page().iter().any(|s| s.keyword.is_some())
    }

    /// The page as the contract's [`SearchPage`]: `items` are the page's stored items in page
    /// order (`None` for one deleted meanwhile, which is skipped), `passages` the passage of
    /// each that a snippet comes from (`None`: the whole body; may be shorter than the
    /// page), `query_terms` and `snippets` the backend's text analysis for
    /// [`snippet::for_hit`].
    pub(crate) fn into_page(
        self,
        items: Vec<Option<Item>>,
        passages: &[Option<String>],
        query_terms: &[String],
        snippets: &mut impl snippet::Snippets,
    ) -> Result<SearchPage> {
        let results = self
            .page()
            .iter()
            .zip(items)
            .enumerate()
            .filter_map(|(i, (scored, item))| item.map(|item| (i, scored, item)))
            .map(|(i, scored, item)| {
                let passage = passages.get(i).and_then(Option::as_deref);
                let snippet = snippet::for_hit(
                    &item,
                    passage,
                    scored.keyword.is_some(),
                    query_terms,
                    snippets,
                );
                Ok(scored.to_result(&item, snippet)?)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SearchPage {
            results,
            total_results: self.total as u64,
            embedding_used: self.embedding_used,
        })
    }
}

/// The query vector a request needs: embedded with `embedder` when the mode uses
/// embeddings, else `None`. What each backend's `SearchService::search` does before its
/// `search_with_vector`.
pub(crate) async fn embed_query(
    embedder: &dyn Embedder,
    request: &SearchRequest,
) -> navigator_core::Result<Option<Vec<f32>>> {
    request.validate()?;
    if request.search_mode.uses_embeddings() && !request.is_listing() {
        Ok(Some(embedder.embed_query(&request.query).await?))
    } else {
        Ok(None)
    }
}
