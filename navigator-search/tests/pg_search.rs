//! `PgSearchService` against a real PostgreSQL + pgvector: every request field (modes,
//! categories, archive, date range, status, parent, limit/offset, totalResults), bad input,
//! and `sync_from_engine`. A deterministic word-hash embedder keeps these tests model-free.
#![cfg(feature = "postgres")]

mod pg_common;

use chrono::{DateTime, Utc};
use navigator_core::{
    Category, DateRange, Item, ItemStore, ItemType, SearchFilters, SearchMode, SearchPage,
    SearchRequest, SearchService,
};
use navigator_search::pg::{sync_from_engine, PgSearchService, PgStore};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use pg_common::WordHash;
use std::sync::Arc;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn config() -> EngineConfig {
    EngineConfig {
        clock: Arc::new(FixedClock(at("2026-11-21T12:00:00Z"))),
        // The word-hash vectors of unrelated texts are near 0, of related ones well above.
        min_similarity: 0.3,
        ..EngineConfig::default()
    }
}

fn item(id: &str, t: ItemType, title: &str, body: &str, updated: &str) -> Item {
    let mut i = Item::new(id, t, title, at("2026-01-01T00:00:00Z"))
        .unwrap()
        .with_body(body);
    i.updated_at = at(updated);
    i
}

fn corpus() -> Vec<Item> {
    let mut archived = item(
        "arch_budget",
        ItemType::Project,
        "Budget review 2025",
        "Quarterly budget review for the finance team, closed.",
        "2026-02-01T00:00:00Z",
    );
    archived.archive(at("2026-03-01T00:00:00Z")).unwrap();
    vec![
        item(
            "proj_budget",
            ItemType::Project,
            "Budget planning",
            "Plan the quarterly budget with the finance team.",
            "2026-11-01T00:00:00Z",
        )
        .with_status("active"),
        item(
            "task_budget_1",
            ItemType::Task,
            "Collect budget numbers",
            "Ask every team for their quarterly budget numbers.",
            "2026-11-10T00:00:00Z",
        )
        .with_parent("proj_budget")
        .with_status("in_progress"),
        item(
            "task_budget_2",
            ItemType::Task,
            "Review budget draft",
            "Review the budget draft with finance.",
            "2026-10-01T00:00:00Z",
        )
        .with_parent("proj_budget")
        .with_status("done"),
        item(
            "area_finance",
            ItemType::Area,
            "Finance",
            "Everything about money, budget and accounting.",
            "2026-06-01T00:00:00Z",
        ),
        item(
            "res_recipes",
            ItemType::Resource,
            "Pasta recipes",
            "Tomato sauce, garlic and basil.",
            "2026-05-01T00:00:00Z",
        ),
        archived,
    ]
}

async fn service(tag: &str) -> Option<PgSearchService> {
    let store = pg_common::store(tag, pg_common::DIMS).await?;
    let svc = PgSearchService::new(store, Arc::new(WordHash), config()).unwrap();
    svc.upsert(&corpus()).await.unwrap();
    Some(svc)
}

fn ids(page: &SearchPage) -> Vec<&str> {
    page.results.iter().map(|r| r.item_id.as_str()).collect()
}

fn req(q: &str) -> SearchRequest {
    SearchRequest::new(q).unwrap()
}

#[tokio::test]
async fn every_mode_finds_and_scores_within_bounds() {
    let Some(svc) = service("modes").await else {
        return;
    };
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Semantic,
        SearchMode::Keyword,
    ] {
        let page = svc
            .search(&req("quarterly budget").mode(mode))
            .await
            .unwrap();
        let found = ids(&page);
        assert!(found.contains(&"proj_budget"), "{mode:?}: {found:?}");
        assert!(!found.contains(&"res_recipes"), "{mode:?}: {found:?}");
        assert_eq!(page.embedding_used, mode != SearchMode::Keyword);
        assert!(page
            .results
            .iter()
            .all(|r| (0.0..=1.0).contains(&r.relevance_score)));
        assert!(page
            .results
            .windows(2)
            .all(|w| w[0].relevance_score >= w[1].relevance_score));
        assert_eq!(page.total_results as usize, page.results.len());
        for r in &page.results {
            assert!(r
                .snippet
                .as_deref()
                .is_some_and(|s| s.chars().count() <= 150));
            assert!(r.metadata.as_ref().unwrap().updated_at.is_some());
        }
    }
    let page = svc
        .search(&req("quarterly budget").include_archived(false))
        .await
        .unwrap();
    assert!(!ids(&page).contains(&"arch_budget"), "{:?}", ids(&page));
    assert!(ids(&page).contains(&"proj_budget"));
    let page = svc.search(&req("quarterly budget")).await.unwrap();
    assert!(
        ids(&page).contains(&"arch_budget"),
        "archive included by default"
    );

    // The exact title gets the boost and the top spot.
    let page = svc.search(&req("Budget planning")).await.unwrap();
    assert_eq!(ids(&page)[0], "proj_budget");
    let hit = &page.results[0];
    assert_eq!(hit.matched_field.as_deref(), Some("body"));
    // Same input, same scores.
    let again = svc.search(&req("Budget planning")).await.unwrap();
    assert_eq!(page, again);
    svc.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn every_filter_narrows_like_the_embedded_engine() {
    let Some(svc) = service("filters").await else {
        return;
    };
    let q = || req("budget finance").mode(SearchMode::Hybrid);
    let filters = |f: SearchFilters| q().filters(f);

    let page = svc
        .search(&q().categories([Category::Project]))
        .await
        .unwrap();
    assert!(page.results.iter().all(|r| r.category == Category::Project));
    assert!(ids(&page).contains(&"task_budget_1"));

    let page = svc.search(&q().include_archived(true)).await.unwrap();
    assert!(ids(&page).contains(&"arch_budget"), "{:?}", ids(&page));
    let page = svc
        .search(&q().categories([Category::Archive]).include_archived(true))
        .await
        .unwrap();
    assert_eq!(ids(&page), ["arch_budget"]);
    let page = svc
        .search(&q().categories([Category::Archive]).include_archived(false))
        .await
        .unwrap();
    assert!(
        page.results.is_empty(),
        "archive scope without includeArchived"
    );

    let page = svc
        .search(&filters(SearchFilters {
            status: Some("done".into()),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    assert_eq!(ids(&page), ["task_budget_2"]);

    let page = svc
        .search(&filters(SearchFilters {
            parent_id: Some("proj_budget".into()),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    let mut got = ids(&page);
    got.sort();
    assert_eq!(got, ["task_budget_1", "task_budget_2"]);

    // Inclusive bounds on the updated time.
    let page = svc
        .search(&filters(SearchFilters {
            date_range: Some(DateRange {
                start: Some(at("2026-10-01T00:00:00Z")),
                end: Some(at("2026-11-01T00:00:00Z")),
            }),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    let mut got = ids(&page);
    got.sort();
    assert_eq!(got, ["proj_budget", "task_budget_2"]);
    let page = svc
        .search(&filters(SearchFilters {
            date_range: Some(DateRange {
                start: Some(at("2026-11-05T00:00:00Z")),
                end: None,
            }),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    assert_eq!(ids(&page), ["task_budget_1"]);

    let page = svc
        .search(&filters(SearchFilters {
            status: Some("in_progress".into()),
            parent_id: Some("proj_budget".into()),
            date_range: Some(DateRange {
                start: None,
                end: Some(at("2026-01-01T00:00:00Z")),
            }),
            ..Default::default()
        }))
        .await
        .unwrap();
    assert!(page.results.is_empty());
    assert_eq!(page.total_results, 0);
    svc.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn pages_tile_the_full_ranking_and_total_counts_all_matches() {
    let Some(store) = pg_common::store("paging", pg_common::DIMS).await else {
        return;
    };
    let svc = PgSearchService::new(
        store,
        Arc::new(WordHash),
        EngineConfig {
            candidates: 10,
            ..config()
        },
    )
    .unwrap();
    let items: Vec<Item> = (0..60)
        .map(|n| {
            item(
                &format!("note_{n:02}"),
                ItemType::Resource,
                &format!("Meeting note {n}"),
                &"meeting ".repeat(1 + n % 7),
                "2026-11-01T00:00:00Z",
            )
        })
        .collect();
    svc.upsert(&items).await.unwrap();
    // Keyword mode: 60 matches, a candidate pool of 10, yet the total counts them all.
    let page = svc
        .search(&req("meeting").mode(SearchMode::Keyword).limit(5))
        .await
        .unwrap();
    assert_eq!(page.total_results, 60);
    assert_eq!(page.results.len(), 5);

    let all = svc
        .search(&req("meeting").mode(SearchMode::Keyword).limit(30))
        .await
        .unwrap();
    let mut tiled = Vec::new();
    for offset in (0..30).step_by(7) {
        let p = svc
            .search(
                &req("meeting")
                    .mode(SearchMode::Keyword)
                    .limit(7.min(30 - offset))
                    .offset(offset),
            )
            .await
            .unwrap();
        tiled.extend(p.results);
    }
    assert_eq!(tiled, all.results);
    let past = svc
        .search(&req("meeting").mode(SearchMode::Keyword).offset(500))
        .await
        .unwrap();
    assert!(past.results.is_empty());
    svc.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_rejected_or_harmless() {
    let Some(svc) = service("badinput").await else {
        return;
    };
    // Invalid requests are typed errors, not panics.
    let mut r = req("budget");
    r.limit = 0;
    assert!(svc.search(&r).await.is_err());
    let mut r = req("budget");
    r.query = "   ".into();
    assert!(svc.search(&r).await.is_err());
    let r = req("budget").filters(SearchFilters {
        date_range: Some(DateRange {
            start: Some(at("2026-12-01T00:00:00Z")),
            end: Some(at("2026-01-01T00:00:00Z")),
        }),
        ..SearchFilters::default()
    });
    assert!(svc.search(&r).await.is_err());
    // Semantic search without a vector, or with one of the wrong length.
    let err = svc
        .search_with_vector(&req("budget").mode(SearchMode::Semantic), None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("searchMode"), "{err}");
    let err = svc
        .search_with_vector(&req("budget"), Some(&[0.1; 3]))
        .await
        .unwrap_err();
    assert!(
        matches!(err, navigator_search::Error::Dimensions { .. }),
        "{err}"
    );
    // Query syntax and SQL in the query are plain text.
    for q in [
        "budget & | ! ( :* <->",
        "'; DROP TABLE items; --",
        "\"unbalanced",
        "the and of",
        "💸 budget",
        &"budget ".repeat(2_000),
    ] {
        for mode in [SearchMode::Keyword, SearchMode::Hybrid] {
            svc.search(&req(q).mode(mode))
                .await
                .unwrap_or_else(|e| panic!("{q:?} {mode:?}: {e}"));
        }
    }
    assert_eq!(svc.store().count_items().await.unwrap(), 6);
    // An embedder of other dimensions than the store.
    struct Other;
    #[async_trait::async_trait]
    impl navigator_core::Embedder for Other {
        fn model_id(&self) -> &str {
            "other"
        }
        fn dimensions(&self) -> usize {
            7
        }
        async fn embed(&self, t: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
            Ok(vec![vec![0.0; 7]; t.len()])
        }
    }
    assert!(PgSearchService::new(svc.store().clone(), Arc::new(Other), config()).is_err());
    svc.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn store_writes_are_embedded_later_and_keep_unchanged_vectors() {
    let Some(svc) = service("embedlater").await else {
        return;
    };
    let store = svc.store();
    // A text change through the plain Store drops the stale vector...
    let mut changed = store.get_item("res_recipes").await.unwrap().unwrap();
    changed.body = "Quarterly budget for pasta".into();
    store.put_item(&changed).await.unwrap();
    // ...a status change keeps it.
    let mut status = store.get_item("proj_budget").await.unwrap().unwrap();
    status.status = Some("paused".into());
    store.put_item(&status).await.unwrap();
    assert_eq!(svc.embed_missing().await.unwrap(), 1);
    assert_eq!(svc.embed_missing().await.unwrap(), 0);
    let page = svc
        .search(&req("pasta budget").mode(SearchMode::Semantic))
        .await
        .unwrap();
    assert_eq!(ids(&page)[0], "res_recipes");
    svc.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn sync_copies_an_embedded_index_idempotently() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), Arc::new(WordHash), config())
        .await
        .unwrap();
    engine.upsert(&corpus()).await.unwrap();
    let store = PgStore::connect(pg_common::config(&url, "sync", pg_common::DIMS))
        .await
        .unwrap();
    let svc = PgSearchService::new(store, Arc::new(WordHash), config()).unwrap();
    // Something PostgreSQL has and the engine does not: removed by the sync.
    svc.upsert(&[item(
        "stale",
        ItemType::Resource,
        "Stale",
        "",
        "2026-01-01T00:00:00Z",
    )])
    .await
    .unwrap();

    let report = sync_from_engine(&engine, &svc).await.unwrap();
    assert_eq!(
        (report.items, report.with_vectors, report.removed),
        (6, 6, 1)
    );
    let again = sync_from_engine(&engine, &svc).await.unwrap();
    assert_eq!((again.items, again.removed), (6, 0));
    assert_eq!(svc.store().count_items().await.unwrap(), 6);
    assert_eq!(svc.embed_missing().await.unwrap(), 0, "vectors were copied");

    // Same items, same vectors, same scoring: the same answers.
    for q in [
        "quarterly budget",
        "finance team",
        "pasta",
        "Budget planning",
    ] {
        for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
            let r = req(q).mode(mode).include_archived(true);
            let a = engine.search(&r).await.unwrap();
            let b = svc.search(&r).await.unwrap();
            // Equal scores may come in either order (cosines differ in the last bits).
            let sorted = |p: &SearchPage| {
                let mut v: Vec<String> = p.results.iter().map(|r| r.item_id.clone()).collect();
                v.sort();
                v
            };
            assert_eq!(sorted(&a), sorted(&b), "{q} {mode:?}");
            for (x, y) in a.results.iter().zip(&b.results) {
                if mode == SearchMode::Semantic {
                    let d = (x.relevance_score - y.relevance_score).abs();
                    assert!(d < 1e-3, "{q}: {a:?} vs {b:?}");
                }
            }
        }
    }
    svc.store().drop_schema().await.unwrap();
}

/// A hybrid search asks for its two candidate lists on two connections at once; with a pool
/// of one it still answers (each side gives its connection back as it finishes), with the
/// same page as a pool of eight.
#[tokio::test]
async fn a_pool_of_one_connection_answers_every_mode() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let wide = PgStore::connect(pg_common::config(&url, "pool", pg_common::DIMS))
        .await
        .unwrap();
    let narrow = PgStore::connect(wide.config().clone().max_connections(1))
        .await
        .unwrap();
    let wide = PgSearchService::new(wide, Arc::new(WordHash), config()).unwrap();
    let narrow = PgSearchService::new(narrow, Arc::new(WordHash), config()).unwrap();
    wide.upsert(&corpus()).await.unwrap();
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Semantic,
        SearchMode::Keyword,
    ] {
        let request = req("quarterly budget").mode(mode);
        let page =
            tokio::time::timeout(std::time::Duration::from_secs(20), narrow.search(&request))
                .await
                .expect("a pool of one must not wait on itself")
                .unwrap();
        assert!(ids(&page).contains(&"proj_budget"), "{mode:?}");
        assert_eq!(page, wide.search(&request).await.unwrap(), "{mode:?}");
    }
    wide.store().drop_schema().await.unwrap();
}

/// Keyword ranking weighs words as BM25 does: a word in one item outweighs a word in twenty,
/// however often the common one repeats (plain `ts_rank` would rank the twenty first).
#[tokio::test]
async fn a_rare_word_outranks_a_common_one() {
    let Some(store) = pg_common::store("idf", pg_common::DIMS).await else {
        return;
    };
    let svc = PgSearchService::new(store, Arc::new(WordHash), config()).unwrap();
    let mut items: Vec<Item> = (0..20)
        .map(|i| {
            item(
                &format!("meeting_{i}"),
                ItemType::Resource,
                &format!("Weekly meeting {i}"),
                "Meeting notes of the weekly meeting: the meeting agenda, then the meeting.",
                "2026-11-01T00:00:00Z",
            )
        })
        .collect();
    items.push(item(
        "airship",
        ItemType::Resource,
        "Hangar visit",
        "The zeppelin in the old hangar.",
        "2026-11-01T00:00:00Z",
    ));
    svc.upsert(&items).await.unwrap();
    let page = svc
        .search(&req("meeting zeppelin").mode(SearchMode::Keyword))
        .await
        .unwrap();
    assert_eq!(ids(&page).first(), Some(&"airship"), "{:?}", ids(&page));
    assert_eq!(page.total_results, 21);
    svc.store().drop_schema().await.unwrap();
}

/// The HNSW index can be dropped for a bulk load and built afterwards: meanwhile semantic
/// search scans exactly and still answers, and the rebuilt index gives the same page.
#[tokio::test]
async fn the_vector_index_can_be_deferred_and_built() {
    let Some(svc) = service("vindex").await else {
        return;
    };
    let store = svc.store();
    assert!(store.has_vector_index().await.unwrap());
    let request = req("quarterly budget").mode(SearchMode::Semantic);
    let before = svc.search(&request).await.unwrap();
    assert!(ids(&before).contains(&"proj_budget"));

    store.drop_vector_index().await.unwrap();
    assert!(!store.has_vector_index().await.unwrap());
    assert_eq!(svc.search(&request).await.unwrap(), before);
    // Writes go on without the index.
    let mut extra = corpus();
    extra.truncate(1);
    extra[0].id = "proj_budget_copy".into();
    svc.upsert(&extra).await.unwrap();

    store.build_vector_index(64).await.unwrap();
    assert!(store.has_vector_index().await.unwrap());
    store.build_vector_index(64).await.unwrap(); // already there: nothing to do
    let after = svc.search(&request).await.unwrap();
    assert!(
        ids(&after).contains(&"proj_budget_copy"),
        "{:?}",
        ids(&after)
    );
    assert!(ids(&after).contains(&"proj_budget"));
    svc.store().drop_schema().await.unwrap();
}

/// Words, folders and tags as the embedded engine compares them: accents folded (`Málaga`
/// decomposed or not is `malaga`), a word inside a CJK sentence, a folder and a tag written
/// decomposed found by what a person types — in every mode.
#[tokio::test]
async fn accents_cjk_words_and_decomposed_folders_match_as_on_the_embedded_engine() {
    use unicode_normalization::UnicodeNormalization;
    let Some(store) = pg_common::store("fold", pg_common::DIMS).await else {
        return;
    };
    let svc = PgSearchService::new(store, Arc::new(WordHash), config()).unwrap();
    let nfd = |s: &str| -> String { s.nfd().collect() };
    let mut menu = item(
        "menu",
        ItemType::Project,
        "Menü",
        &nfd("Crème brûlée in Málaga for the opening week."),
        "2026-11-01T00:00:00Z",
    );
    menu.parent_id = Some(nfd("1 Projects/Café/"));
    menu.tags = vec![nfd("Café")];
    let trip = item(
        "trip",
        ItemType::Resource,
        "旅行",
        "新幹線で京都へ行く",
        "2026-11-01T00:00:00Z",
    );
    svc.upsert(&[menu, trip]).await.unwrap();
    let keyword = |q: &str| req(q).mode(SearchMode::Keyword);
    for (q, want) in [
        ("malaga creme", "menu"),
        ("Málaga", "menu"),
        ("creme brulee", "menu"),
        ("京都", "trip"),
    ] {
        let page = svc.search(&keyword(q)).await.unwrap();
        assert_eq!(ids(&page), [want], "{q}");
    }
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        let by_parent = SearchFilters {
            parent_id: Some("1 Projects/Café/".into()),
            ..Default::default()
        };
        let by_tag = SearchFilters {
            tags: Some(navigator_core::TagFilter::any(["café"])),
            ..Default::default()
        };
        for filters in [by_parent, by_tag] {
            let request = req("crème brûlée opening week")
                .mode(mode)
                .filters(filters.clone());
            let page = svc.search(&request).await.unwrap();
            assert_eq!(ids(&page), ["menu"], "{mode:?} {filters:?}");
        }
    }
    svc.store().drop_schema().await.unwrap();
}
