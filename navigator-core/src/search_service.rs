//! The [`SearchService`] trait: the one interface agents search PARA items through.

use crate::{Category, Result, SearchMode, SearchRequest, SearchResult};
use async_trait::async_trait;

/// One page of ranked hits and what it took to get them.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    /// The hits on this page, best first, scores in `[0, 1]`.
    pub results: Vec<SearchResult>,
    /// How many items matched in all (before `limit`/`offset`).
    pub total_results: u64,
    /// Whether the query was embedded.
    pub embedding_used: bool,
}

/// Searches PARA items.
///
/// Object-safe. Implementations (the embedded engine, PostgreSQL) honour every field of
/// [`SearchRequest`] and return calibrated scores that mean the same on every backend.
/// The three narrower methods have default implementations in terms of
/// [`search`](SearchService::search).
#[async_trait]
pub trait SearchService: Send + Sync {
    /// Runs a full request.
    async fn search(&self, request: &SearchRequest) -> Result<SearchPage>;

    /// Searches several categories at once and merges the hits.
    async fn search_multiple(
        &self,
        query: &str,
        categories: &[Category],
        limit: u32,
        mode: SearchMode,
    ) -> Result<Vec<SearchResult>> {
        let req = SearchRequest::new(query)?
            .categories(categories.iter().copied())
            .limit(limit)
            .mode(mode);
        req.validate()?;
        Ok(self.search(&req).await?.results)
    }

    /// Semantic (vector-only) search over everything.
    async fn vector_search(&self, query: &str, limit: u32) -> Result<Vec<SearchResult>> {
        let req = SearchRequest::new(query)?
            .limit(limit)
            .mode(SearchMode::Semantic);
        req.validate()?;
        Ok(self.search(&req).await?.results)
    }

    /// Keyword-only search, optionally scoped.
    async fn keyword_search(
        &self,
        query: &str,
        categories: Option<&[Category]>,
        limit: u32,
    ) -> Result<Vec<SearchResult>> {
        let mut req = SearchRequest::new(query)?
            .limit(limit)
            .mode(SearchMode::Keyword);
        if let Some(c) = categories {
            req = req.categories(c.iter().copied());
        }
        req.validate()?;
        Ok(self.search(&req).await?.results)
    }
}
