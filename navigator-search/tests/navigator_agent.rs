//! The Navigator agent over every kind of `SearchService`: the embedded engine, PostgreSQL
//! (`NAVIGATOR_PG_URL`; skipped by hand without it, a failure under CI), and a small service
//! an application could write itself (defined below). The same seed scenarios run with the
//! same assertions on each (`on_every_backend!`), with the rule-based query understanding or a
//! scripted LLM, and an injected "today" (2026-11-21).

mod common;
#[cfg(feature = "postgres")]
mod pg_common;

use async_trait::async_trait;
use common::{embedder, kb_engine, kb_items, now};
use navigator_core::{
    cosine, from_json, Action, Category, Embedder, Item, ItemType, NavigationTarget,
    NavigatorResponse, SearchPage, SearchRequest, SearchResult, SearchService,
};
use navigator_search::{FixedClock, NavigatorAgent};
use std::sync::{Arc, OnceLock};

// ---------------------------------------------------------------------------------------------
// The backends.

fn embedded_service() -> Option<Arc<dyn SearchService>> {
    Some(kb_engine())
}

/// PostgreSQL: the sample knowledge base copied once per test binary (items and vectors) into
/// a fresh schema; each test connects its own pool (a pool lives on its test's runtime).
#[cfg(feature = "postgres")]
async fn postgres_service() -> Option<Arc<dyn SearchService>> {
    use navigator_search::pg::{sync_from_engine, PgConfig, PgSearchService, PgStore};
    static SCHEMA: OnceLock<String> = OnceLock::new();
    let url = pg_common::url()?;
    let config = |schema: &str| {
        PgConfig::new(&url)
            .schema(schema)
            .dimensions(embedder().dimensions())
            .max_connections(4)
    };
    let schema = SCHEMA.get_or_init(|| {
        let schema = pg_common::unique_schema("agent");
        let cfg = config(&schema);
        std::thread::spawn(move || {
            tokio::runtime::Runtime::new().unwrap().block_on(async {
                let store = PgStore::connect(cfg).await.unwrap();
                let service = PgSearchService::new(store, embedder(), common::config()).unwrap();
                sync_from_engine(&kb_engine(), &service).await.unwrap();
            })
        })
        .join()
        .unwrap();
        schema
    });
    let store = PgStore::connect(config(schema)).await.unwrap();
    Some(Arc::new(
        PgSearchService::new(store, embedder(), common::config()).unwrap(),
    ))
}

#[cfg(not(feature = "postgres"))]
async fn postgres_service() -> Option<Arc<dyn SearchService>> {
    assert!(
        std::env::var_os("CI").is_none(),
        "the PostgreSQL backend must run under CI: test with `--features postgres`"
    );
    eprintln!("skipping: navigator-search built without the `postgres` feature");
    None
}

/// What an application might write: every item in a list, scored by cosine similarity to
/// the query blended with the share of query words found in the item (title first), filtered by scope and
/// date window; exact lookups by id and title. Nothing from navigator-search's internals.
struct ListService {
    items: Vec<(Item, Vec<f32>)>,
    embedder: Arc<dyn Embedder>,
}

/// Cosine similarity below which an item without any query word is not a hit.
const LIST_FLOOR: f32 = 0.3;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .map(str::to_lowercase)
        .collect()
}

fn user_written_service() -> Option<Arc<dyn SearchService>> {
    static ITEMS: OnceLock<Vec<(Item, Vec<f32>)>> = OnceLock::new();
    let items = ITEMS.get_or_init(|| {
        std::thread::spawn(|| {
            tokio::runtime::Runtime::new().unwrap().block_on(async {
                let items = kb_items();
                let texts: Vec<String> = items.iter().map(Item::embedding_text).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let vectors = embedder().embed_documents(&refs).await.unwrap();
                items.into_iter().zip(vectors).collect()
            })
        })
        .join()
        .unwrap()
    });
    Some(Arc::new(ListService {
        items: items.clone(),
        embedder: embedder(),
    }))
}

#[async_trait]
impl SearchService for ListService {
    async fn search(&self, request: &SearchRequest) -> navigator_core::Result<SearchPage> {
        request.validate()?;
        let scope = request.categories_searched();
        let window = request.filters.as_ref().and_then(|f| f.date_range.clone());
        if request.is_listing() {
            // No query: what passes the scope and window, newest first.
            let mut listed: Vec<&Item> = self
                .items
                .iter()
                .map(|(item, _)| item)
                .filter(|item| scope.contains(&item.category))
                .filter(|item| window.as_ref().is_none_or(|w| w.contains(item.updated_at)))
                .collect();
            listed.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
            let total = listed.len() as u64;
            let results = listed
                .into_iter()
                .skip(request.offset as usize)
                .take(request.limit as usize)
                .map(|item| {
                    Ok(SearchResult::new(
                        &item.id,
                        item.item_type,
                        &item.title,
                        item.category,
                        1.0,
                    )?
                    .with_metadata(navigator_core::ResultMetadata {
                        created_at: Some(item.created_at),
                        updated_at: Some(item.updated_at),
                        parent_id: item.parent_id.clone(),
                        status: item.status.clone(),
                    }))
                })
                .collect::<navigator_core::Result<Vec<_>>>()?;
            return Ok(SearchPage {
                results,
                total_results: total,
                embedding_used: false,
            });
        }
        let query = self.embedder.embed_query(&request.query).await?;
        let query_words = words(&request.query);
        let mut hits: Vec<SearchResult> = self
            .items
            .iter()
            .filter(|(item, _)| scope.contains(&item.category))
            .filter(|(item, _)| window.as_ref().is_none_or(|w| w.contains(item.updated_at)))
            .filter_map(|(item, vector)| {
                let similarity = cosine(&query, vector).max(0.0);
                // A query word found in the title counts fully, in the body or tags half.
                let title = words(&item.title);
                let rest = words(&format!("{} {}", item.body, item.tags.join(" ")));
                let has = |text: &[String], w: &str| text.iter().any(|t| t.starts_with(w));
                let found: f32 = query_words
                    .iter()
                    .map(|w| match (has(&title, w), has(&rest, w)) {
                        (true, _) => 1.0,
                        (false, true) => 0.5,
                        _ => 0.0,
                    })
                    .sum();
                if similarity < LIST_FLOOR && found == 0.0 {
                    return None;
                }
                let overlap = found / query_words.len().max(1) as f32;
                let score = f64::from((0.6 * similarity + 0.4 * overlap).clamp(0.0, 1.0));
                SearchResult::new(&item.id, item.item_type, &item.title, item.category, score).ok()
            })
            .collect();
        hits.sort_by(|a, b| b.relevance_score.total_cmp(&a.relevance_score));
        let total = hits.len() as u64;
        Ok(SearchPage {
            results: hits
                .into_iter()
                .skip(request.offset as usize)
                .take(request.limit as usize)
                .collect(),
            total_results: total,
            embedding_used: true,
        })
    }

    async fn find_exact(&self, query: &str) -> navigator_core::Result<Option<NavigationTarget>> {
        let target = |item: &Item| NavigationTarget {
            item_id: item.id.clone(),
            item_type: item.item_type,
            category: item.category,
        };
        if let Some((item, _)) = self.items.iter().find(|(i, _)| i.id == query.trim()) {
            return Ok(Some(target(item)));
        }
        let norm = |s: &str| {
            s.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let titled: Vec<&Item> = self
            .items
            .iter()
            .map(|(i, _)| i)
            .filter(|i| norm(&i.title) == norm(query))
            .collect();
        Ok(match titled.as_slice() {
            [only] => Some(target(only)),
            _ => None,
        })
    }

    async fn title_words(&self) -> navigator_core::Result<Vec<String>> {
        let mut all: Vec<String> = self
            .items
            .iter()
            .flat_map(|(i, _)| words(&i.title))
            .collect();
        all.sort();
        all.dedup();
        Ok(all)
    }
}

// ---------------------------------------------------------------------------------------------
// The scenarios, each written once over `Arc<dyn SearchService>`.

fn agent(service: Arc<dyn SearchService>) -> NavigatorAgent {
    NavigatorAgent::new(service, Arc::new(FixedClock(now())))
}

fn top_ids(r: &NavigatorResponse, n: usize) -> Vec<&str> {
    r.hits()
        .iter()
        .take(n)
        .map(|h| h.item_id.as_str())
        .collect()
}

/// Every answer survives the wire: serialised and parsed back, equal.
fn round_trip(r: &NavigatorResponse) {
    let json = serde_json::to_string(r).unwrap();
    let back = from_json::<NavigatorResponse>(&json).unwrap();
    assert_eq!(back.action(), r.action());
    assert_eq!(top_ids(&back, 50), top_ids(r, 50));
    assert_eq!(back.navigation_target(), r.navigation_target());
    assert_eq!(back.suggestions(), r.suggestions());
}

async fn quarterly_report_returns_ranked_results(service: Arc<dyn SearchService>) {
    let r = agent(service).ask("quarterly report").await.unwrap();
    round_trip(&r);
    assert_eq!(r.action(), Action::SearchResults);
    let meta = r.metadata().unwrap();
    assert_eq!(meta.query, "quarterly report");
    assert_eq!(meta.categories_searched, Category::ALL.to_vec());
    assert!(meta.embedding_used && meta.search_duration_ms.is_some());
    assert!(meta.total_results >= r.hits().len() as u64);
    assert!(top_ids(&r, 5).contains(&"proj_q4"), "{:?}", top_ids(&r, 5));
    let scores: Vec<f64> = r.hits().iter().map(|h| h.relevance_score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

async fn an_empty_query_with_a_scope_lists_newest_first(service: Arc<dyn SearchService>) {
    let request = SearchRequest::list(
        Some(vec![Category::Project]),
        navigator_core::SearchFilters::default(),
    )
    .unwrap()
    .limit(8);
    let r = agent(service.clone()).handle(&request).await.unwrap();
    round_trip(&r);
    assert_eq!(r.action(), Action::SearchResults);
    let meta = r.metadata().unwrap();
    assert!(!meta.embedding_used);
    assert!(meta.total_results >= r.hits().len() as u64);
    assert_eq!(r.hits().len(), 8);
    assert!(r
        .hits()
        .iter()
        .all(|h| h.category == Category::Project && h.relevance_score == 1.0));
    let dates: Vec<_> = r
        .hits()
        .iter()
        .map(|h| h.metadata.as_ref().and_then(|m| m.updated_at).unwrap())
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    assert_ne!(dates.first(), dates.last(), "the sample has dates to order");
    // Nothing to narrow and nothing to find is still a bad request.
    let blank = SearchRequest {
        query: " ".into(),
        ..SearchRequest::new("x").unwrap()
    };
    let err = agent(service).handle(&blank).await.unwrap_err();
    assert!(err.to_string().contains("query"), "{err}");
}

async fn the_designer_from_techconf(service: Arc<dyn SearchService>) {
    let r = agent(service)
        .ask("the designer from TechConf")
        .await
        .unwrap();
    round_trip(&r);
    assert_eq!(r.action(), Action::SearchResults);
    assert_eq!(r.metadata().unwrap().query, "the designer from TechConf");
    assert_eq!(top_ids(&r, 1), vec!["contact_jane"]);
}

async fn legacy_migration_comes_with_a_restore_hint(service: Arc<dyn SearchService>) {
    let r = agent(service).ask("legacy migration").await.unwrap();
    round_trip(&r);
    let first = &r.hits()[0];
    assert_eq!(
        (first.item_id.as_str(), first.item_type),
        ("archived_proj_legacy", ItemType::ArchivedProject)
    );
    let NavigatorResponse::SearchResults {
        suggestions: Some(hints),
        ..
    } = &r
    else {
        panic!("expected results with hints: {r:?}")
    };
    assert!(
        hints
            .iter()
            .any(|h| h.contains("Legacy System Migration") && h.contains("restore")),
        "{hints:?}"
    );
}

async fn in_my_archive_scopes_to_the_archive(service: Arc<dyn SearchService>) {
    let r = agent(service).ask("migration in my archive").await.unwrap();
    round_trip(&r);
    assert_eq!(
        r.metadata().unwrap().categories_searched,
        vec![Category::Archive]
    );
    assert!(!r.hits().is_empty());
    assert!(r.hits().iter().all(|h| h.category == Category::Archive));
}

async fn development_goals_scoped_to_areas(service: Arc<dyn SearchService>) {
    let req = SearchRequest::new("development goals")
        .unwrap()
        .categories([Category::Area]);
    let r = agent(service).handle(&req).await.unwrap();
    round_trip(&r);
    assert_eq!(r.action(), Action::SearchResults);
    assert!(r.hits().iter().all(|h| h.category == Category::Area));
    assert_eq!(r.hits()[0].item_id, "area_career");
}

async fn that_design_doc_from_last_month(service: Arc<dyn SearchService>) {
    let r = agent(service)
        .ask("that design doc from last month")
        .await
        .unwrap();
    round_trip(&r);
    assert_eq!(r.action(), Action::SearchResults);
    assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
    let filters = r.metadata().unwrap().filters.clone().unwrap();
    assert_eq!(filters["dateRange.start"], "2026-10-01T00:00:00+00:00");
    assert_eq!(filters["dateRange.end"], "2026-10-31T23:59:59+00:00");
}

async fn nonsense_gets_no_results_with_suggestions(service: Arc<dyn SearchService>) {
    let req = SearchRequest::new("xqzvbnm plortwex")
        .unwrap()
        .include_archived(false);
    let r = agent(service).handle(&req).await.unwrap();
    round_trip(&r);
    let NavigatorResponse::NoResults {
        suggestions,
        search_metadata,
        ..
    } = &r
    else {
        panic!("expected no_results: {r:?}")
    };
    assert!(r.hits().is_empty());
    assert_eq!(search_metadata.as_ref().unwrap().total_results, 0);
    assert!(suggestions.len() >= 3, "{suggestions:?}");
    assert!(
        suggestions
            .iter()
            .any(|x| x.to_lowercase().contains("archive")),
        "{suggestions:?}"
    );
}

/// A page past the last result says so and how far the results go (it was told to use
/// fewer terms, or to drop its filters).
async fn a_page_past_the_last_result_says_so(service: Arc<dyn SearchService>) {
    let req = SearchRequest::new("quarterly report").unwrap().offset(500);
    let r = agent(service).handle(&req).await.unwrap();
    round_trip(&r);
    let NavigatorResponse::NoResults {
        suggestions,
        search_metadata,
        ..
    } = &r
    else {
        panic!("expected no_results: {r:?}")
    };
    let total = search_metadata.as_ref().unwrap().total_results;
    assert!(total > 0, "{r:?}");
    assert!(
        suggestions[0].contains("past the last result")
            && suggestions[0].contains(&format!("{total} match")),
        "{suggestions:?}"
    );
    assert!(
        !suggestions.iter().any(|x| x.contains("fewer or broader")),
        "{suggestions:?}"
    );
}

async fn a_misspelling_gets_a_near_spelling(service: Arc<dyn SearchService>) {
    // Scoped to templates' category with a window where nothing lives: no results, and the
    // suggestions come from the service's title vocabulary.
    let req: SearchRequest = from_json(
        r#"{"query": "quartrly", "categories": ["resource"],
            "filters": {"dateRange": {"start": "2001-01-01T00:00:00Z", "end": "2001-01-31T00:00:00Z"}}}"#,
    )
    .unwrap();
    let r = agent(service).handle(&req).await.unwrap();
    let suggestions = r.suggestions();
    assert_eq!(r.action(), Action::NoResults);
    assert!(
        suggestions.iter().any(|s| s.contains("quarterly")),
        "{suggestions:?}"
    );
}

async fn exact_title_or_id_navigates(service: Arc<dyn SearchService>) {
    let agent = agent(service);
    for q in ["Project Phoenix", "proj_phoenix", "  project   phoenix "] {
        let r = agent.ask(q).await.unwrap();
        round_trip(&r);
        let NavigatorResponse::Navigate { navigation_target } = &r else {
            panic!("{q}: expected navigate, got {r:?}")
        };
        assert_eq!(
            (
                navigation_target.item_id.as_str(),
                navigation_target.item_type,
                navigation_target.category
            ),
            ("proj_phoenix", ItemType::Project, Category::Project)
        );
    }
    // Scoped away from the item: searched, not navigated.
    let req = SearchRequest::new("Project Phoenix")
        .unwrap()
        .categories([Category::Archive]);
    assert_ne!(agent.handle(&req).await.unwrap().action(), Action::Navigate);
    // An unknown id is not a navigation target.
    let r = agent.ask("proj_unknown_42").await.unwrap();
    assert_ne!(r.action(), Action::Navigate);
}

async fn weak_results_spread_over_categories_ask_which_one(service: Arc<dyn SearchService>) {
    let r = agent(service).ask(CLARIFY_QUERY).await.unwrap();
    round_trip(&r);
    let NavigatorResponse::Clarify {
        clarification_question,
        search_metadata,
    } = &r
    else {
        panic!("expected clarify: {r:?}")
    };
    let scopes = clarification_question.suggested_scopes.as_ref().unwrap();
    assert!(scopes.len() > 1, "{scopes:?}");
    assert!(clarification_question.question.contains(CLARIFY_QUERY));
    assert_eq!(search_metadata.as_ref().unwrap().query, CLARIFY_QUERY);
    assert!(r.hits().is_empty(), "a clarify carries no results");
}

/// A vague query whose best matches are weak, close together and in several categories.
const CLARIFY_QUERY: &str = "work";

async fn the_llm_turns_the_query_into_query_and_filters(service: Arc<dyn SearchService>) {
    let llm = Arc::new(navigator_core::ScriptedLlm::from_texts(
        "scripted",
        [
            // Inverted window: rejected by validation and re-asked with the error quoted.
            r#"{"query": "design doc", "dateRange": {"start": "2026-10-31T00:00:00Z", "end": "2026-10-01T00:00:00Z"}}"#,
            r#"{"query": "design doc", "dateRange": {"start": "2026-10-01T00:00:00Z", "end": "2026-10-31T23:59:59Z"}}"#,
        ],
    ));
    let r = agent(service)
        .with_llm(llm.clone())
        .ask("that design doc I worked on in october")
        .await
        .unwrap();
    assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
    let filters = r.metadata().unwrap().filters.clone().unwrap();
    assert_eq!(filters["dateRange.start"], "2026-10-01T00:00:00+00:00");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let system = requests[0].system_text();
    assert!(
        system.contains("Navigator") && system.contains("2026-11-21"),
        "{system}"
    );
    assert!(requests[1]
        .messages
        .iter()
        .any(|m| m.content.contains("after")));
}

async fn the_llm_scopes_to_the_archive(service: Arc<dyn SearchService>) {
    let llm = Arc::new(navigator_core::ScriptedLlm::from_texts(
        "scripted",
        [r#"{"query": "migration", "categories": ["archive"]}"#],
    ));
    let r = agent(service)
        .with_llm(llm)
        .ask("the migration we shelved")
        .await
        .unwrap();
    assert_eq!(
        r.metadata().unwrap().categories_searched,
        vec![Category::Archive]
    );
    assert_eq!(top_ids(&r, 1), vec!["archived_proj_legacy"]);
}

async fn a_failing_llm_falls_back_to_the_rules(service: Arc<dyn SearchService>) {
    let llm = Arc::new(navigator_core::ScriptedLlm::from_texts(
        "scripted",
        ["not json", "still not", "nope"],
    ));
    let r = agent(service)
        .with_llm(llm)
        .ask("that design doc from last month")
        .await
        .unwrap();
    assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
}

/// One test per (backend, scenario): `embedded::…`, `postgres::…`, `user_written::…`.
macro_rules! on_every_backend {
    ($($scenario:ident),* $(,)?) => {
        mod embedded {
            $(#[tokio::test]
            async fn $scenario() {
                super::$scenario(super::embedded_service().unwrap()).await
            })*
        }
        mod postgres {
            $(#[tokio::test]
            async fn $scenario() {
                if let Some(service) = super::postgres_service().await {
                    super::$scenario(service).await
                }
            })*
        }
        mod user_written {
            $(#[tokio::test]
            async fn $scenario() {
                super::$scenario(super::user_written_service().unwrap()).await
            })*
        }
    };
}

on_every_backend!(
    quarterly_report_returns_ranked_results,
    an_empty_query_with_a_scope_lists_newest_first,
    the_designer_from_techconf,
    legacy_migration_comes_with_a_restore_hint,
    in_my_archive_scopes_to_the_archive,
    development_goals_scoped_to_areas,
    that_design_doc_from_last_month,
    nonsense_gets_no_results_with_suggestions,
    a_page_past_the_last_result_says_so,
    a_misspelling_gets_a_near_spelling,
    exact_title_or_id_navigates,
    weak_results_spread_over_categories_ask_which_one,
    the_llm_turns_the_query_into_query_and_filters,
    the_llm_scopes_to_the_archive,
    a_failing_llm_falls_back_to_the_rules,
);

/// A service that implements only `search` still works behind the agent: the trait's
/// defaults make it never navigate and suggest no near spellings.
#[tokio::test]
async fn a_search_only_service_gets_the_defaults() {
    struct SearchOnly(Arc<dyn SearchService>);
    #[async_trait]
    impl SearchService for SearchOnly {
        async fn search(&self, r: &SearchRequest) -> navigator_core::Result<SearchPage> {
            self.0.search(r).await
        }
    }
    let service = Arc::new(SearchOnly(user_written_service().unwrap()));
    assert_eq!(service.find_exact("proj_phoenix").await.unwrap(), None);
    assert!(service.title_words().await.unwrap().is_empty());
    let r = agent(service).ask("proj_phoenix").await.unwrap();
    assert_ne!(r.action(), Action::Navigate);
}
