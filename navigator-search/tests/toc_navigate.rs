//! `navigate` over a small hand-made memory: with and without time hints, and each fallback.

use chrono::{DateTime, Duration, TimeZone, Utc};
use navigator_core::{Grip, MemoryStore, TocBullet, TocLevel, TocNode, TocStore};
use navigator_search::toc::{
    expand_grips, navigate, EmptyReason, Fallback, NavigateOptions, SessionSummary, StepOutcome,
    SummaryBullet, TocBuilder,
};

/// Monday 2 February 2026, 09:00 UTC: "last month" is January 2026.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 2, 9, 0, 0).unwrap()
}

fn session(id: &str, start: DateTime<Utc>, bullets: &[&str]) -> SessionSummary {
    SessionSummary {
        id: id.into(),
        title: format!("Session {id}"),
        start_time: start,
        end_time: start + Duration::hours(1),
        keywords: Vec::new(),
        bullets: bullets
            .iter()
            .enumerate()
            .map(|(i, text)| SummaryBullet {
                text: (*text).into(),
                grips: vec![Grip {
                    grip_id: format!("grip:{id}:{i}"),
                    excerpt: format!("quoted: {text}"),
                    event_id_start: format!("evt:{id}:{i}"),
                    event_id_end: format!("evt:{id}:{i}"),
                    timestamp: start,
                    source: format!("session:{id}"),
                }],
            })
            .collect(),
    }
}

async fn memory() -> MemoryStore {
    let at = |m: u32, d: u32| {
        let y = if m > 6 { 2025 } else { 2026 };
        Utc.with_ymd_and_hms(y, m, d, 10, 0, 0).unwrap()
    };
    let mut b = TocBuilder::new();
    b.add_session(session(
        "nov-jwt",
        at(11, 6),
        &["JWT decision postponed until the upgrade"],
    ))
    .unwrap();
    b.add_session(session(
        "jan-jwt",
        at(1, 14),
        &["Decided: JWT access tokens expire after 15 minutes"],
    ))
    .unwrap();
    b.add_session(session(
        "jan-billing",
        at(1, 20),
        &["Deployed the billing worker"],
    ))
    .unwrap();
    b.add_session(session("jan-redis", at(1, 27), &["Redis cache sizing"]))
        .unwrap();
    let store = MemoryStore::new();
    b.build(now()).unwrap().write_to(&store).await.unwrap();
    store
}

async fn nav(store: &MemoryStore, query: &str) -> navigator_search::toc::Navigation {
    navigate(store, query, now(), &NavigateOptions::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn time_hint_starts_at_its_period_and_keeps_to_it() {
    let store = memory().await;
    let n = nav(&store, "what did we decide about JWT last month").await;
    assert_eq!(n.start_node_id, "toc:month:2026-01");
    assert_eq!(n.terms, ["decide", "jwt"]);
    assert_eq!(n.path[0].parent_ids, ["toc:month:2026-01"]);
    assert_eq!(n.path.last().unwrap().level, Some(TocLevel::Segment));
    assert_eq!(n.findings.len(), 1);
    assert_eq!(n.findings[0].node_id, "toc:segment:jan-jwt");
    assert_eq!(n.findings[0].score, 1.0);
    assert!(n.fallbacks.is_empty());
}

#[tokio::test]
async fn without_hint_it_drills_from_the_years_and_finds_both_periods() {
    let store = memory().await;
    let n = nav(&store, "what did we decide about JWT").await;
    assert_eq!(n.start_node_id, "");
    assert_eq!(n.path[0].level, Some(TocLevel::Year));
    assert_eq!(n.path[0].chosen.len(), 2);
    let found: Vec<_> = n.findings.iter().map(|f| f.node_id.as_str()).collect();
    assert_eq!(found, ["toc:segment:jan-jwt", "toc:segment:nov-jwt"]);
    assert!(n.findings[0].score > n.findings[1].score);
}

#[tokio::test]
async fn missing_hint_period_starts_higher_then_widens_when_nothing_matches() {
    let store = memory().await;
    // Nothing was recorded yesterday (1 February); its week exists but holds no JWT.
    let n = nav(&store, "JWT yesterday").await;
    assert_eq!(
        n.fallbacks,
        [
            Fallback::HintNodeMissing {
                wanted: "toc:day:2026-02-01".into(),
                used: "toc:week:2026-W05".into()
            },
            Fallback::Widened {
                from: "toc:week:2026-W05".into(),
                to: "toc:year:2026".into()
            }
        ]
    );
    assert_eq!(n.path[0].outcome, StepOutcome::NoMatch);
    assert_eq!(n.findings[0].node_id, "toc:segment:jan-jwt");
}

#[tokio::test]
async fn weak_matches_are_followed_best_effort_and_say_so() {
    let store = memory().await;
    let n = nav(&store, "JWT kubernetes helm terraform").await;
    assert!(matches!(
        n.path[0].outcome,
        StepOutcome::BelowThreshold { best_score } if best_score == 0.25
    ));
    assert!(!n.findings.is_empty());
    assert!(n.findings.iter().all(|f| f.text.contains("JWT")));
}

#[tokio::test]
async fn query_without_subject_lists_the_hinted_period_or_says_why_not() {
    let store = memory().await;
    let listed = nav(&store, "what happened last month?").await;
    assert_eq!(
        listed.fallbacks,
        [Fallback::Listed {
            node_id: "toc:month:2026-01".into()
        }]
    );
    assert_eq!(listed.findings.len(), 3);

    let empty = nav(&store, "what did we do?").await;
    assert!(empty.findings.is_empty());
    assert!(empty.path.is_empty());
    assert_eq!(
        empty.empty_reason,
        Some(EmptyReason::NoSearchTerms {
            query: "what did we do?".into()
        })
    );
}

#[tokio::test]
async fn nothing_anywhere_is_empty_with_reason_and_the_path_tried() {
    let store = memory().await;
    let n = nav(&store, "kubernetes").await;
    assert!(n.findings.is_empty());
    assert_eq!(
        n.empty_reason,
        Some(EmptyReason::NoMatch {
            terms: vec!["kubernetes".into()]
        })
    );
    assert_eq!(n.path.len(), 1);
    assert_eq!(n.path[0].examined, 2);
}

#[tokio::test]
async fn condensed_parent_without_matching_child_stops_early_with_its_bullets() {
    // A summariser condensed the year: its bullet names something no month repeats.
    let store = MemoryStore::new();
    let t = |y, m| Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).unwrap();
    let node = |id: &str, level, start, end, bullet: &str, children: &[&str]| TocNode {
        node_id: id.into(),
        level,
        title: id.into(),
        start_time: start,
        end_time: end,
        bullets: vec![TocBullet {
            text: bullet.into(),
            grip_ids: vec![],
        }],
        keywords: vec![],
        child_node_ids: children.iter().map(|c| (*c).into()).collect(),
        version: 0,
        created_at: t(2026, 1),
    };
    store
        .put_toc_node(node(
            "toc:month:2026-01",
            TocLevel::Month,
            t(2026, 1),
            t(2026, 2),
            "billing",
            &[],
        ))
        .await
        .unwrap();
    store
        .put_toc_node(node(
            "toc:year:2026",
            TocLevel::Year,
            t(2026, 1),
            t(2027, 1),
            "Kubernetes upgrade all year",
            &["toc:month:2026-01"],
        ))
        .await
        .unwrap();
    let n = nav(&store, "kubernetes").await;
    assert_eq!(
        n.fallbacks,
        [Fallback::StoppedEarly {
            level: TocLevel::Year
        }]
    );
    assert_eq!(n.findings[0].node_id, "toc:year:2026");
    assert_eq!(n.findings[0].text, "Kubernetes upgrade all year");
}

#[tokio::test]
async fn grips_expand_to_evidence_and_unknown_ids_are_named() {
    let store = memory().await;
    let n = nav(&store, "JWT last month").await;
    let grips = expand_grips(&store, &n.grip_ids()).await.unwrap();
    assert_eq!(grips.len(), 1);
    assert!(grips[0].excerpt.contains("15 minutes"));
    let err = expand_grips(&store, &["grip:nope".into()])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("grip:nope"), "{err}");
}

#[tokio::test]
async fn invalid_options_are_rejected_naming_the_option() {
    let store = memory().await;
    let bad = NavigateOptions {
        threshold: 1.5,
        ..NavigateOptions::default()
    };
    let err = navigate(&store, "jwt", now(), &bad).await.unwrap_err();
    assert!(err.to_string().contains("threshold"), "{err}");
    let bad = NavigateOptions {
        beam_width: 0,
        ..NavigateOptions::default()
    };
    assert!(navigate(&store, "jwt", now(), &bad).await.is_err());
}
