//! The bundled sample memory (`data/toc/sample_memory.json`, November 2025 – January 2026),
//! built into a `MemoryStore`: the hierarchy is complete and navigation finds known decisions.

use chrono::{DateTime, Datelike, TimeZone, Utc};
use navigator_core::{MemoryStore, TocLevel, TocStore};
use navigator_search::toc::{
    expand_grips, navigate, search_children, Fallback, NavigateOptions, Navigation, TocBuilder,
};

const SAMPLE: &str = include_str!("../data/toc/sample_memory.json");

/// The Monday after the sample ends; "last month" is January 2026.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap()
}

async fn sample() -> MemoryStore {
    let store = MemoryStore::new();
    TocBuilder::from_json(SAMPLE)
        .unwrap()
        .build(now())
        .unwrap()
        .write_to(&store)
        .await
        .unwrap();
    store
}

async fn ask(store: &MemoryStore, query: &str) -> Navigation {
    navigate(store, query, now(), &NavigateOptions::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn sample_builds_a_complete_hierarchy_down_to_every_segment() {
    let store = sample().await;
    let years = store.toc_children("").await.unwrap();
    assert_eq!(years.len(), 2);
    let mut frontier: Vec<String> = years.into_iter().map(|n| n.node_id).collect();
    let mut per_level = Vec::new();
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for id in &frontier {
            for child in store.toc_children(id).await.unwrap() {
                if !next.contains(&child.node_id) {
                    next.push(child.node_id);
                }
            }
        }
        per_level.push(next.len());
        frontier = next;
    }
    // months, weeks, days, segments, then nothing below segments.
    assert_eq!(per_level[0], 3);
    assert_eq!(per_level[3], 34);
    assert_eq!(per_level.last(), Some(&0));
    let segment = store
        .get_toc_node("toc:segment:2026-01-14-jwt-decision")
        .await
        .unwrap()
        .unwrap();
    for grip in segment.bullets.iter().flat_map(|b| &b.grip_ids) {
        assert!(store.get_grip(grip).await.unwrap().is_some(), "{grip}");
    }
}

#[tokio::test]
async fn search_children_ranks_the_month_with_the_jwt_decision_first() {
    let store = sample().await;
    let months = search_children(&store, "toc:year:2026", "JWT authentication", &[], 5)
        .await
        .unwrap();
    assert_eq!(months.hits[0].node.node_id, "toc:month:2026-01");
    let years = search_children(&store, "", "invoices partitioning", &[], 5)
        .await
        .unwrap();
    assert_eq!(years.hits[0].node.node_id, "toc:year:2025");
}

#[tokio::test]
async fn last_month_jwt_decision_is_found_with_its_evidence() {
    let store = sample().await;
    let n = ask(&store, "what did we decide about JWT last month").await;
    assert_eq!(n.start_node_id, "toc:month:2026-01");
    let top = &n.findings[0];
    assert_eq!(top.node_id, "toc:segment:2026-01-14-jwt-decision");
    assert!(top.text.contains("15 minutes"), "{}", top.text);
    assert!(n.findings.iter().all(|f| f.start_time.month() == 1));
    let evidence = expand_grips(&store, &top.grip_ids).await.unwrap();
    assert!(evidence[0].excerpt.contains("15 minutes, RS256"));
}

#[tokio::test]
async fn without_a_time_hint_the_november_deferral_is_found_too() {
    let store = sample().await;
    let n = ask(&store, "what did we decide about JWT").await;
    assert_eq!(n.findings[0].node_id, "toc:segment:2026-01-14-jwt-decision");
    assert!(n
        .findings
        .iter()
        .any(|f| f.text.starts_with("JWT decision postponed")));
}

#[tokio::test]
async fn known_events_are_found_by_their_own_words() {
    let store = sample().await;
    let cases = [
        (
            "duplicate invoices incident",
            "2025-11-14-incident-dup-invoices",
            "212 duplicate",
        ),
        (
            "postgres upgrade downtime in December",
            "2025-12-08-pg16-production",
            "47 seconds",
        ),
        (
            "when did Priya accept the offer",
            "2025-12-10-hiring-offer",
            "Priya accepted",
        ),
    ];
    for (query, segment, text) in cases {
        let n = ask(&store, query).await;
        let id = format!("toc:segment:{segment}");
        assert!(
            n.findings
                .iter()
                .any(|f| f.node_id == id && f.text.contains(text)),
            "{query}: {:?}",
            n.findings
        );
    }
}

#[tokio::test]
async fn nothing_last_week_widens_to_the_month_and_says_so() {
    let store = sample().await;
    let n = ask(&store, "stripe upgrade last week").await;
    assert_eq!(
        n.fallbacks,
        [Fallback::Widened {
            from: "toc:week:2026-W05".into(),
            to: "toc:month:2026-01".into()
        }]
    );
    assert_eq!(n.path[0].level, Some(TocLevel::Day));
    assert_eq!(
        n.findings[0].node_id,
        "toc:segment:2026-01-19-stripe-api-bump"
    );
}
