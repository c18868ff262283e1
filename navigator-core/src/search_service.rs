//! The [`SearchService`] trait: the one interface agents search PARA items through.

use crate::{Category, NavigationTarget, Result, SearchMode, SearchRequest, SearchResult};
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
/// [`search`](SearchService::search). [`find_exact`](SearchService::find_exact) and
/// [`title_words`](SearchService::title_words) let the Navigator agent navigate straight to
/// a named item and suggest near spellings; their defaults find nothing, so a service that
/// only implements `search` still works behind the agent (it just never navigates).
///
/// ```
/// use navigator_core::{Result, SearchPage, SearchRequest, SearchService};
///
/// /// A service with nothing in it: `search` is the one method to write.
/// struct Empty;
///
/// #[async_trait::async_trait]
/// impl SearchService for Empty {
///     async fn search(&self, _request: &SearchRequest) -> Result<SearchPage> {
///         Ok(SearchPage { results: Vec::new(), total_results: 0, embedding_used: false })
///     }
/// }
/// # let page = block_on(Empty.search(&SearchRequest::new("x")?))?;
/// # assert!(page.results.is_empty());
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// # Ok::<(), navigator_core::Error>(())
/// ```
#[async_trait]
pub trait SearchService: Send + Sync {
    /// Runs a full request.
    async fn search(&self, request: &SearchRequest) -> Result<SearchPage>;

    /// The item `query` names exactly: its id (surrounding spaces ignored), else its title
    /// compared case- and spacing-insensitively when exactly one item has it. `None` when
    /// nothing, or more than one item, matches. The default finds nothing.
    async fn find_exact(&self, query: &str) -> Result<Option<NavigationTarget>> {
        let _ = query;
        Ok(None)
    }

    /// The distinct lower-cased words (three bytes or more) of all titles, sorted: the
    /// vocabulary near spellings are suggested from when nothing matches. The default is
    /// empty (no spelling suggestions).
    async fn title_words(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

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
