//! The Navigator agent over the sample knowledge base: the seed scenarios end to end, with
//! the rule-based query understanding (no LLM) and an injected "today" (2026-11-21).

mod common;

use common::{kb_engine, now};
use navigator_core::{from_json, Action, Category, ItemType, NavigatorResponse, SearchRequest};
use navigator_search::{FixedClock, NavigatorAgent};
use std::sync::Arc;

fn agent() -> NavigatorAgent {
    NavigatorAgent::new(kb_engine(), Arc::new(FixedClock(now())))
}

fn top_ids(r: &NavigatorResponse, n: usize) -> Vec<&str> {
    r.results
        .iter()
        .flatten()
        .take(n)
        .map(|h| h.item_id.as_str())
        .collect()
}

/// Every answer survives the wire: serialised and parsed back with validation.
fn round_trip(r: &NavigatorResponse) {
    let json = serde_json::to_string(r).unwrap();
    let back = from_json::<NavigatorResponse>(&json).unwrap();
    assert_eq!(back.action, r.action);
    assert_eq!(top_ids(&back, 50), top_ids(r, 50));
    assert_eq!(back.navigation_target, r.navigation_target);
    assert_eq!(back.suggestions, r.suggestions);
}

#[tokio::test]
async fn quarterly_report_returns_ranked_results() {
    let r = agent().ask("quarterly report").await.unwrap();
    round_trip(&r);
    assert_eq!(r.action, Action::SearchResults);
    let meta = r.search_metadata.as_ref().unwrap();
    assert_eq!(meta.query, "quarterly report");
    assert_eq!(meta.categories_searched, Category::ALL.to_vec());
    assert!(meta.embedding_used && meta.search_duration_ms.is_some());
    assert!(top_ids(&r, 5).contains(&"proj_q4"));
}

#[tokio::test]
async fn the_designer_from_techconf() {
    let r = agent().ask("the designer from TechConf").await.unwrap();
    round_trip(&r);
    assert_eq!(r.action, Action::SearchResults);
    assert_eq!(
        r.search_metadata.as_ref().unwrap().query,
        "the designer from TechConf"
    );
    assert_eq!(top_ids(&r, 1), vec!["contact_jane"]);
}

#[tokio::test]
async fn legacy_migration_comes_with_a_restore_hint() {
    let r = agent().ask("legacy migration").await.unwrap();
    round_trip(&r);
    let first = &r.results.as_ref().unwrap()[0];
    assert_eq!(
        (first.item_id.as_str(), first.item_type),
        ("archived_proj_legacy", ItemType::ArchivedProject)
    );
    let hints = r.suggestions.unwrap();
    assert!(
        hints
            .iter()
            .any(|h| h.contains("Legacy System Migration") && h.contains("restore")),
        "{hints:?}"
    );
}

#[tokio::test]
async fn in_my_archive_scopes_to_the_archive() {
    let r = agent().ask("migration in my archive").await.unwrap();
    let meta = r.search_metadata.as_ref().unwrap();
    assert_eq!(meta.categories_searched, vec![Category::Archive]);
    assert!(r
        .results
        .unwrap()
        .iter()
        .all(|h| h.category == Category::Archive));
}

#[tokio::test]
async fn development_goals_scoped_to_areas() {
    let req = SearchRequest::new("development goals")
        .unwrap()
        .categories([Category::Area]);
    let r = agent().handle(&req).await.unwrap();
    round_trip(&r);
    assert_eq!(r.action, Action::SearchResults);
    let hits = r.results.unwrap();
    assert!(hits.iter().all(|h| h.category == Category::Area));
    assert_eq!(hits[0].item_id, "area_career");
}

#[tokio::test]
async fn that_design_doc_from_last_month() {
    let r = agent()
        .ask("that design doc from last month")
        .await
        .unwrap();
    round_trip(&r);
    assert_eq!(r.action, Action::SearchResults);
    assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
    let filters = r.search_metadata.unwrap().filters.unwrap();
    assert_eq!(filters["dateRange.start"], "2026-10-01T00:00:00+00:00");
    assert_eq!(filters["dateRange.end"], "2026-10-31T23:59:59+00:00");
}

#[tokio::test]
async fn nonsense_gets_no_results_with_suggestions() {
    let req = SearchRequest::new("xqzvbnm plortwex")
        .unwrap()
        .include_archived(false);
    let r = agent().handle(&req).await.unwrap();
    round_trip(&r);
    assert_eq!(r.action, Action::NoResults);
    assert_eq!(r.results.as_deref(), Some(&[][..]));
    let s = r.suggestions.unwrap();
    assert!(s.len() >= 3, "{s:?}");
    assert!(
        s.iter().any(|x| x.to_lowercase().contains("archive")),
        "{s:?}"
    );
}

#[tokio::test]
async fn misspellings_get_a_near_spelling() {
    let r = agent().ask("quartrly finanshul xqzv").await.unwrap();
    if r.action == Action::NoResults {
        let s = r.suggestions.unwrap();
        assert!(s[0].contains("quarterly"), "{s:?}");
    }
}

#[tokio::test]
async fn exact_title_or_id_navigates() {
    for q in ["Project Phoenix", "proj_phoenix", "project phoenix"] {
        let r = agent().ask(q).await.unwrap();
        round_trip(&r);
        assert_eq!(r.action, Action::Navigate, "{q}");
        let t = r.navigation_target.unwrap();
        assert_eq!(
            (t.item_id.as_str(), t.category),
            ("proj_phoenix", Category::Project)
        );
    }
    // Scoped away from the item: searched, not navigated.
    let req = SearchRequest::new("Project Phoenix")
        .unwrap()
        .categories([Category::Archive]);
    assert_ne!(agent().handle(&req).await.unwrap().action, Action::Navigate);
    // An unknown id is not a navigation target.
    let r = agent().ask("proj_unknown_42").await.unwrap();
    assert_ne!(r.action, Action::Navigate);
}

mod with_llm {
    use super::*;
    use navigator_core::ScriptedLlm;

    #[tokio::test]
    async fn the_llm_turns_the_query_into_query_and_filters() {
        let llm = Arc::new(ScriptedLlm::from_texts(
            "scripted",
            [
                // Inverted window: rejected by validation and re-asked with the error quoted.
                r#"{"query": "design doc", "dateRange": {"start": "2026-10-31T00:00:00Z", "end": "2026-10-01T00:00:00Z"}}"#,
                r#"{"query": "design doc", "dateRange": {"start": "2026-10-01T00:00:00Z", "end": "2026-10-31T23:59:59Z"}}"#,
            ],
        ));
        let agent = agent().with_llm(llm.clone());
        let r = agent
            .ask("that design doc I worked on in october")
            .await
            .unwrap();
        assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
        let filters = r.search_metadata.unwrap().filters.unwrap();
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

    #[tokio::test]
    async fn the_llm_scopes_to_the_archive() {
        let llm = Arc::new(ScriptedLlm::from_texts(
            "scripted",
            [r#"{"query": "migration", "categories": ["archive"]}"#],
        ));
        let r = agent()
            .with_llm(llm)
            .ask("the migration we shelved")
            .await
            .unwrap();
        let meta = r.search_metadata.as_ref().unwrap();
        assert_eq!(meta.categories_searched, vec![Category::Archive]);
        assert_eq!(top_ids(&r, 1), vec!["archived_proj_legacy"]);
    }

    #[tokio::test]
    async fn a_failing_llm_falls_back_to_the_rules() {
        let llm = Arc::new(ScriptedLlm::from_texts(
            "scripted",
            ["not json", "still not", "nope"],
        ));
        let r = agent()
            .with_llm(llm)
            .ask("that design doc from last month")
            .await
            .unwrap();
        assert_eq!(top_ids(&r, 1), vec!["res_design_doc_search"]);
    }
}
