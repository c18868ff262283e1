//! The same corpus and queries on the embedded engine and on PostgreSQL: the sample knowledge
//! base (204 items, real MiniLM vectors) is indexed by the engine and copied to PostgreSQL with
//! `sync_from_engine`; every query is embedded once and run on both.
//!
//! Asserted: the semantic top result agrees for at least 90% of the queries and the semantic
//! scores are equal; hybrid and keyword top-10 overlap stay above a floor. Printed: the
//! agreement figures and, for the keyword signal, how far PostgreSQL's scores are from the
//! engine's for a range of `keyword_scale` values (how `DEFAULT_KEYWORD_SCALE` was chosen).
#![cfg(feature = "postgres")]

mod common;
mod pg_common;

use navigator_core::{SearchMode, SearchPage, SearchRequest};
use navigator_search::pg::{sync_from_engine, PgSearchService, PgStore, DEFAULT_KEYWORD_SCALE};
use std::collections::{HashMap, HashSet};

const QUERIES: &[&str] = &[
    "quarterly report",
    "onboarding funnel drop-off",
    "who works on search relevance",
    "cloud cost reduction",
    "reduce our AWS bill",
    "hiring a backend engineer",
    "job description",
    "half marathon training plan",
    "long runs",
    "family trip to Lisbon",
    "book flights",
    "passport renewal",
    "enterprise customer renewals",
    "Acme Corp",
    "pricing proposal with discounts",
    "website redesign",
    "customer stories for marketing",
    "on-call rotation and incidents",
    "infrastructure reliability",
    "site reliability engineer contact",
    "Berlin meetup",
    "information retrieval talks",
    "engineering leadership books",
    "how to run one-on-ones",
    "newsletter topics",
    "design doc for hybrid search",
    "keyword-only search design",
    "why do small teams churn",
    "customer interviews about setup",
    "career development and mentoring",
    "band rehearsals",
    "pricing launch retrospective",
    "offer letters for candidates",
    "interview process",
    "budget planning",
    "security review",
    "vendor contract",
    "weekly team meeting notes",
    "product roadmap for next year",
    "health and fitness goals",
];

fn ids(page: &SearchPage) -> Vec<&str> {
    page.results.iter().map(|r| r.item_id.as_str()).collect()
}

/// |A ∩ B| / max(|A|, |B|) over the top 10 (1 when both are empty).
fn overlap(a: &SearchPage, b: &SearchPage) -> f64 {
    let (a, b): (HashSet<&str>, HashSet<&str>) = (
        ids(a).into_iter().take(10).collect(),
        ids(b).into_iter().take(10).collect(),
    );
    let n = a.len().max(b.len());
    if n == 0 {
        1.0
    } else {
        a.intersection(&b).count() as f64 / n as f64
    }
}

/// Mean |score difference| over the items both pages return.
fn score_gap(a: &SearchPage, b: &SearchPage) -> (f64, usize) {
    let theirs: HashMap<&str, f64> = b
        .results
        .iter()
        .map(|r| (r.item_id.as_str(), r.relevance_score))
        .collect();
    let gaps: Vec<f64> = a
        .results
        .iter()
        .filter_map(|r| {
            theirs
                .get(r.item_id.as_str())
                .map(|s| (s - r.relevance_score).abs())
        })
        .collect();
    let n = gaps.len();
    (gaps.iter().sum::<f64>() / n.max(1) as f64, n)
}

#[tokio::test]
async fn postgres_answers_like_the_embedded_engine() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let engine = common::kb_engine();
    let embedder = common::embedder();
    let config = pg_common::config(&url, "equiv", embedder.dimensions());
    let store = PgStore::connect(config.clone()).await.unwrap();
    let pg = PgSearchService::new(store, embedder.clone(), common::config()).unwrap();
    let report = sync_from_engine(&engine, &pg).await.unwrap();
    assert_eq!(report.items, 204);
    assert_eq!(report.with_vectors, 204);
    // Every chunk of every item, as the engine stored it.
    assert_eq!(
        pg.store().count_chunks().await.unwrap(),
        report.chunks as u64
    );
    let mut engine_chunks = 0;
    for item in common::kb_items() {
        engine_chunks += engine
            .stored_vectors(&item.id)
            .unwrap()
            .map_or(0, |v| v.chunks.len());
    }
    assert_eq!(report.chunks, engine_chunks);
    println!(
        "sync copied {} items with {} chunk vectors",
        report.items, report.chunks
    );

    let mut vectors = Vec::new();
    for q in QUERIES {
        vectors.push(embedder.embed_query(q).await.unwrap());
    }
    let request = |q: &str, mode| SearchRequest::new(q).unwrap().mode(mode).limit(10);

    let mut top1 = 0;
    let mut semantic_gap = 0.0f64;
    let mut hybrid_overlap = 0.0;
    let mut hybrid_top1 = 0;
    let mut hybrid_gap = 0.0;
    let mut keyword_overlap = 0.0;
    for (q, v) in QUERIES.iter().zip(&vectors) {
        let r = request(q, SearchMode::Semantic);
        let a = engine.search_with_vector(&r, Some(v)).unwrap();
        let b = pg.search_with_vector(&r, Some(v)).await.unwrap();
        if ids(&a).first() == ids(&b).first() {
            top1 += 1;
        } else {
            println!(
                "semantic top-1 differs for {q:?}: {:?} vs {:?}",
                ids(&a),
                ids(&b)
            );
        }
        semantic_gap = semantic_gap.max(score_gap(&a, &b).0);

        let r = request(q, SearchMode::Hybrid);
        let a = engine.search_with_vector(&r, Some(v)).unwrap();
        let b = pg.search_with_vector(&r, Some(v)).await.unwrap();
        hybrid_overlap += overlap(&a, &b);
        hybrid_top1 += usize::from(ids(&a).first() == ids(&b).first());
        hybrid_gap += score_gap(&a, &b).0;

        let r = request(q, SearchMode::Keyword);
        let a = engine.search_with_vector(&r, None).unwrap();
        let b = pg.search_with_vector(&r, None).await.unwrap();
        keyword_overlap += overlap(&a, &b);
    }
    let n = QUERIES.len() as f64;
    let agreement = top1 as f64 / n;
    let hybrid_overlap = hybrid_overlap / n;
    let keyword_overlap = keyword_overlap / n;
    println!(
        "equivalence over {} queries: semantic top-1 agreement {:.1}% (largest score gap {semantic_gap:.4}); \
         hybrid top-10 overlap {:.1}%, hybrid top-1 agreement {:.1}%, mean hybrid score gap {:.3}; \
         keyword top-10 overlap {:.1}%",
        QUERIES.len(),
        agreement * 100.0,
        hybrid_overlap * 100.0,
        hybrid_top1 as f64 / n * 100.0,
        hybrid_gap / n,
        keyword_overlap * 100.0
    );

    // Listings (no query) are the same list on both: newest first, same totals, any page.
    use navigator_core::{Category, SearchFilters};
    let listings = [
        SearchRequest::list(Some(vec![Category::Project]), SearchFilters::default()).unwrap(),
        SearchRequest::list(
            Some(vec![Category::Resource, Category::Area]),
            SearchFilters::default(),
        )
        .unwrap()
        .limit(20)
        .offset(5),
        SearchRequest::list(
            None,
            SearchFilters {
                date_range: Some(navigator_core::DateRange {
                    start: Some("2026-01-01T00:00:00Z".parse().unwrap()),
                    end: None,
                }),
                ..SearchFilters::default()
            },
        )
        .unwrap()
        .limit(50),
    ];
    for list in &listings {
        let a = engine.search_with_vector(list, None).unwrap();
        let b = pg.search_with_vector(list, None).await.unwrap();
        assert!(!a.results.is_empty(), "{list:?}");
        assert_eq!(ids(&a), ids(&b), "{list:?}");
        assert_eq!(a.total_results, b.total_results, "{list:?}");
        let dates: Vec<_> = a
            .results
            .iter()
            .map(|r| r.metadata.as_ref().and_then(|m| m.updated_at))
            .collect();
        assert!(
            dates.windows(2).all(|w| w[0] >= w[1]),
            "newest first: {dates:?}"
        );
        assert!(
            dates.first() != dates.last(),
            "the sample has dates to order"
        );
    }

    // How the keyword scale was chosen: the keyword-mode score gap for a range of scales.
    let mut best = (f64::MAX, 0.0);
    for scale in [5.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0, 50.0, 75.0] {
        let mut c = config.clone();
        c.keyword_scale = scale;
        let scaled = PgSearchService::new(
            PgStore::connect(c).await.unwrap(),
            embedder.clone(),
            common::config(),
        )
        .unwrap();
        let (mut gap, mut pairs) = (0.0, 0);
        for q in QUERIES {
            let r = request(q, SearchMode::Keyword);
            let a = engine.search_with_vector(&r, None).unwrap();
            let b = scaled.search_with_vector(&r, None).await.unwrap();
            let (g, k) = score_gap(&a, &b);
            gap += g * k as f64;
            pairs += k;
        }
        let gap = gap / pairs.max(1) as f64;
        println!(
            "keyword_scale {scale:>5}: mean keyword score gap {gap:.3} over {pairs} shared hits"
        );
        if gap < best.0 {
            best = (gap, scale);
        }
    }
    println!(
        "best keyword_scale {} (gap {:.3}); DEFAULT_KEYWORD_SCALE = {DEFAULT_KEYWORD_SCALE}",
        best.1, best.0
    );

    assert!(agreement >= 0.9, "semantic top-1 agreement {agreement}");
    assert!(
        semantic_gap < 1e-3,
        "semantic scores differ by {semantic_gap}"
    );
    assert!(
        hybrid_overlap >= 0.6,
        "hybrid top-10 overlap {hybrid_overlap}"
    );
    assert!(
        keyword_overlap >= 0.4,
        "keyword top-10 overlap {keyword_overlap}"
    );
    pg.store().drop_schema().await.unwrap();
}
