//! [`NavigatorAgent`]: the PARA search agent. It understands a natural query (rules, no LLM
//! needed), searches through any [`SearchService`] (the embedded engine, PostgreSQL, or one
//! of the application's own), and answers with a validated [`NavigatorResponse`]: an exact
//! id or title navigates, nothing found gives suggestions, results spread thinly over
//! categories ask which one, anything else returns ranked results (archived hits with a
//! restore hint).

mod llm;
mod suggest;
mod understand;

pub use suggest::did_you_mean;
pub use understand::{QueryUnderstanding, UnderstoodQuery};

use crate::{Clock, Result};
use navigator_core::{
    Category, Clarification, Llm, NavigatorResponse, SearchFilters, SearchMetadata, SearchPage,
    SearchRequest, SearchResult, SearchService,
};
use std::sync::Arc;
use std::time::Instant;

/// The prompt template that describes the Navigator to an LLM (persona, search strategy,
/// ranking, formatting, navigation and archive handling).
pub const NAVIGATOR_TEMPLATE: &str = include_str!("../../templates/navigator.md");

/// Results ask for clarification only when the best score is below this...
const CLARIFY_BELOW: f64 = 0.45;
/// ...the third best is within this of the best...
const CLARIFY_SPREAD: f64 = 0.08;
/// ...and the top results (this many) span more than one category.
const CLARIFY_TOP: usize = 5;

/// Archived hits among this many top results get a restore hint.
const RESTORE_HINTS_TOP: usize = 5;

/// The Navigator search agent over any [`SearchService`], received by injection.
///
/// ```no_run
/// # async fn demo() -> navigator_search::Result<()> {
/// use navigator_core::{FastEmbedder, SearchService};
/// use navigator_search::{NavigatorAgent, SearchEngine, SystemClock};
/// use std::sync::Arc;
/// let engine = SearchEngine::open("./kb-index", Arc::new(FastEmbedder::default_model()?)).await?;
/// // Any Arc<dyn SearchService> does: PgSearchService, or the application's own.
/// let service: Arc<dyn SearchService> = Arc::new(engine);
/// let agent = NavigatorAgent::new(service, Arc::new(SystemClock));
/// let answer = agent.ask("quarterly report").await?;
/// println!("{}: {} hit(s)", answer.action(), answer.hits().len());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct NavigatorAgent {
    service: Arc<dyn SearchService>,
    clock: Arc<dyn Clock>,
    llm: Option<Arc<dyn Llm>>,
}

impl std::fmt::Debug for NavigatorAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavigatorAgent")
            .field("llm", &self.llm.is_some())
            .finish_non_exhaustive()
    }
}

impl NavigatorAgent {
    /// An agent searching `service`, resolving time phrases against `clock`.
    pub fn new(service: Arc<dyn SearchService>, clock: Arc<dyn Clock>) -> Self {
        Self {
            service,
            clock,
            llm: None,
        }
    }

    /// Lets an LLM understand queries (through the `navigator.md` prompt and structured
    /// output). When the LLM fails or keeps answering invalid JSON, the agent falls back to
    /// the rule-based understanding: search never depends on the LLM.
    pub fn with_llm(mut self, llm: Arc<dyn Llm>) -> Self {
        self.llm = Some(llm);
        self
    }

    async fn understand(&self, text: &str) -> UnderstoodQuery {
        let now = self.clock.now();
        if let Some(model) = &self.llm {
            match llm::understand(model.as_ref(), text, now).await {
                Ok(u) => return u,
                Err(e) => tracing::warn!("LLM query understanding failed, using rules: {e}"),
            }
        }
        QueryUnderstanding.understand(text, now)
    }

    /// Answers a plain natural-language question with the default request settings.
    pub async fn ask(&self, text: &str) -> Result<NavigatorResponse> {
        self.handle(&SearchRequest::new(text)?).await
    }

    /// Answers `request`. Fields set explicitly on the request win over what the query's
    /// phrases imply.
    pub async fn handle(&self, request: &SearchRequest) -> Result<NavigatorResponse> {
        let started = Instant::now();
        request.validate()?;
        if let Some(target) = self.service.find_exact(&request.query).await? {
            if request.categories_searched().contains(&target.category) {
                return Ok(NavigatorResponse::navigate(target));
            }
        }
        let understood = self.understand(&request.query).await;
        let searched = apply(request, &understood);
        searched.validate()?;
        let page = self.service.search(&searched).await?;
        let metadata = SearchMetadata {
            query: request.query.clone(),
            categories_searched: searched.categories_searched(),
            total_results: page.total_results,
            search_duration_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
            embedding_used: page.embedding_used,
            filters: searched
                .filters
                .as_ref()
                .map(SearchFilters::to_map)
                .filter(|m| !m.is_empty()),
        };
        let scoped = request.categories.is_some() || understood.categories.is_some();
        let response = self.respond(&searched, page, metadata, scoped).await?;
        response.validate()?;
        Ok(response)
    }

    async fn respond(
        &self,
        searched: &SearchRequest,
        page: SearchPage,
        metadata: SearchMetadata,
        scoped: bool,
    ) -> Result<NavigatorResponse> {
        if page.results.is_empty() && page.total_results > 0 {
            // The page lies past the last result: that, not the query, is what to change.
            let total = page.total_results;
            let suggestions = vec![
                format!(
                    "The offset ({}) is past the last result: {total} match; use an offset \
                     below {total} (offset 0 for the first page)",
                    searched.offset
                ),
                "Narrow the search (a category, a tag, fewer words) to page through fewer \
                 results"
                    .to_string(),
                "Ask again without an offset".to_string(),
            ];
            return Ok(NavigatorResponse::no_results(metadata, suggestions));
        }
        if page.results.is_empty() {
            let vocabulary = self.service.title_words().await?;
            let suggestions = suggest::no_results_suggestions(
                searched,
                &searched.query,
                vocabulary.iter().map(String::as_str),
            );
            return Ok(NavigatorResponse::no_results(metadata, suggestions));
        }
        if !scoped {
            if let Some(scopes) = spread_thin(&page.results) {
                let listed: Vec<String> = page
                    .results
                    .iter()
                    .take(CLARIFY_TOP)
                    .map(|r| format!("{} ({})", r.title, r.category))
                    .collect();
                return Ok(NavigatorResponse::Clarify {
                    clarification_question: Clarification {
                        question: format!(
                            "\"{}\" matches items in several categories about equally weakly. Which category should I search?",
                            metadata.query
                        ),
                        context: Some(format!("Closest matches: {}", listed.join("; "))),
                        suggested_scopes: Some(scopes),
                    },
                    search_metadata: Some(metadata),
                });
            }
        }
        let hints = restore_hints(&page.results);
        Ok(NavigatorResponse::SearchResults {
            results: page.results,
            search_metadata: Some(metadata),
            suggestions: (!hints.is_empty()).then_some(hints),
        })
    }
}

/// The request to run: the understood query, with the scope and date window its phrases
/// imply where the request did not set them.
fn apply(request: &SearchRequest, understood: &UnderstoodQuery) -> SearchRequest {
    let mut searched = request.clone();
    searched.query = understood.query.clone();
    if searched.categories.is_none() {
        if let Some(cats) = &understood.categories {
            if cats.contains(&Category::Archive) {
                searched.include_archived = true;
            }
            searched.categories = Some(cats.clone());
        }
    }
    if let Some(range) = &understood.date_range {
        let mut filters = searched.filters.clone().unwrap_or_default();
        if filters.date_range.is_none() {
            filters.date_range = Some(range.clone());
            searched = searched.filters(filters);
        }
    }
    searched
}

/// The categories to offer when the top results are close, low and spread over categories.
fn spread_thin(results: &[SearchResult]) -> Option<Vec<Category>> {
    let top = &results[..results.len().min(CLARIFY_TOP)];
    let best = top.first()?.relevance_score;
    let third = top.get(2)?.relevance_score;
    let mut cats: Vec<Category> = top.iter().map(|r| r.category).collect();
    cats.sort();
    cats.dedup();
    (best < CLARIFY_BELOW && best - third < CLARIFY_SPREAD && cats.len() > 1).then_some(cats)
}

/// One hint per archived hit among the top results: how to bring it back.
fn restore_hints(results: &[SearchResult]) -> Vec<String> {
    results
        .iter()
        .take(RESTORE_HINTS_TOP)
        .filter(|r| r.item_type.is_archived())
        .map(|r| {
            // Named by its id too: two archived notes often share a title.
            format!(
                "\"{}\" ({}) is archived ({}); restore it to make it a live {} again",
                r.title,
                r.item_id,
                r.item_type,
                r.item_type.unarchived()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ItemType;

    fn hit(id: &str, cat: Category, score: f64) -> SearchResult {
        let t = match cat {
            Category::Project => ItemType::Project,
            Category::Area => ItemType::Area,
            Category::Resource => ItemType::Resource,
            Category::Archive => ItemType::ArchivedResource,
        };
        SearchResult::new(id, t, id, cat, score).unwrap()
    }

    #[test]
    fn clarifies_only_when_close_low_and_spread() {
        let spread = [
            hit("a", Category::Project, 0.40),
            hit("b", Category::Resource, 0.38),
            hit("c", Category::Area, 0.36),
        ];
        assert_eq!(
            spread_thin(&spread),
            Some(vec![Category::Project, Category::Area, Category::Resource])
        );
        let confident = [
            hit("a", Category::Project, 0.80),
            hit("b", Category::Resource, 0.78),
            hit("c", Category::Area, 0.77),
        ];
        assert_eq!(spread_thin(&confident), None);
        let one_category = [
            hit("a", Category::Project, 0.40),
            hit("b", Category::Project, 0.39),
            hit("c", Category::Project, 0.38),
        ];
        assert_eq!(spread_thin(&one_category), None);
        let clear_winner = [
            hit("a", Category::Project, 0.44),
            hit("b", Category::Resource, 0.30),
            hit("c", Category::Area, 0.29),
        ];
        assert_eq!(spread_thin(&clear_winner), None);
        assert_eq!(spread_thin(&spread[..2]), None);
    }

    #[test]
    fn archived_hits_get_restore_hints() {
        let hints = restore_hints(&[
            hit("x", Category::Archive, 0.5),
            hit("y", Category::Project, 0.4),
        ]);
        assert_eq!(hints.len(), 1);
        assert!(hints[0].contains("archived_resource") && hints[0].contains("live resource"));
        // Two archived notes of one title are told apart by their ids.
        let mut z = hit("z", Category::Archive, 0.45);
        z.title = hints[0].split('"').nth(1).unwrap().to_string();
        let hints = restore_hints(&[hit("x", Category::Archive, 0.5), z]);
        assert_eq!(hints.len(), 2);
        assert_ne!(hints[0], hints[1], "{hints:?}");
    }

    #[test]
    fn the_template_is_substantial() {
        assert!(NAVIGATOR_TEMPLATE.len() > 1000);
        for topic in ["archive", "semantic", "Relevance", "navigate", "clarify"] {
            assert!(NAVIGATOR_TEMPLATE.contains(topic), "{topic}");
        }
    }
}
