//! The engine over the sample knowledge base with the real MiniLM model: the seed queries,
//! every request field, scores, snippets and paging.

mod common;

use common::{config, embedder, kb_engine, kb_items, now};
use navigator_core::{
    Category, DateRange, ItemType, SearchFilters, SearchMode, SearchRequest, SearchService,
};
use navigator_search::{EngineConfig, SearchEngine};

fn ids(page: &navigator_core::SearchPage) -> Vec<&str> {
    page.results.iter().map(|r| r.item_id.as_str()).collect()
}

#[tokio::test]
async fn quarterly_report_finds_project_task_and_template() {
    let page = kb_engine()
        .search(&SearchRequest::new("quarterly report").unwrap())
        .await
        .unwrap();
    let top: Vec<&str> = ids(&page).into_iter().take(5).collect();
    for id in ["proj_q4", "task_q4_1", "tmpl_quarterly"] {
        assert!(top.contains(&id), "{id} not in top 5: {top:?}");
    }
    assert!(page.embedding_used);
    let hit = page
        .results
        .iter()
        .find(|r| r.item_id == "task_q4_1")
        .unwrap();
    let snippet = hit.snippet.as_deref().unwrap();
    assert!(snippet.to_lowercase().contains("quarterly"), "{snippet}");
    assert!(snippet.chars().count() <= 150);
    assert_eq!(hit.matched_field.as_deref(), Some("body"));
    assert_eq!(
        hit.metadata.as_ref().unwrap().parent_id.as_deref(),
        Some("proj_q4")
    );
}

#[tokio::test]
async fn the_designer_from_techconf_is_found_by_meaning() {
    for mode in [SearchMode::Hybrid, SearchMode::Semantic] {
        let page = kb_engine()
            .search(
                &SearchRequest::new("the designer from TechConf")
                    .unwrap()
                    .mode(mode),
            )
            .await
            .unwrap();
        assert_eq!(ids(&page)[0], "contact_jane", "{mode:?}: {:?}", ids(&page));
    }
    // Semantic search without any shared word still ranks her first among people.
    let page = kb_engine()
        .search(
            &SearchRequest::new("user experience specialist")
                .unwrap()
                .mode(SearchMode::Semantic)
                .categories([Category::Resource]),
        )
        .await
        .unwrap();
    assert!(
        ids(&page).iter().take(3).any(|id| *id == "contact_jane"),
        "{:?}",
        ids(&page)
    );
}

#[tokio::test]
async fn legacy_migration_is_archived_and_excluded_on_request() {
    let engine = kb_engine();
    let page = engine
        .search(&SearchRequest::new("legacy migration").unwrap())
        .await
        .unwrap();
    assert_eq!(ids(&page)[0], "archived_proj_legacy");
    assert_eq!(page.results[0].item_type, ItemType::ArchivedProject);
    let page = engine
        .search(
            &SearchRequest::new("legacy migration")
                .unwrap()
                .include_archived(false),
        )
        .await
        .unwrap();
    assert!(page.results.iter().all(|r| r.category != Category::Archive));
}

#[tokio::test]
async fn scope_status_parent_and_dates_filter() {
    let engine = kb_engine();
    let page = engine
        .search(
            &SearchRequest::new("development goals")
                .unwrap()
                .categories([Category::Area]),
        )
        .await
        .unwrap();
    assert!(!page.results.is_empty());
    assert!(page.results.iter().all(|r| r.category == Category::Area));
    assert_eq!(ids(&page)[0], "area_career", "{:?}", ids(&page));

    let parent = SearchFilters {
        parent_id: Some("proj_phoenix".into()),
        ..Default::default()
    };
    let page = engine
        .search(
            &SearchRequest::new("phoenix")
                .unwrap()
                .filters(parent)
                .limit(50),
        )
        .await
        .unwrap();
    assert!(page.results.len() >= 5);
    assert!(page
        .results
        .iter()
        .all(|r| r.metadata.as_ref().unwrap().parent_id.as_deref() == Some("proj_phoenix")));

    // Words nearly every body contains, so the filter alone decides what comes back.
    let status = SearchFilters {
        status: Some("done".into()),
        ..Default::default()
    };
    let page = engine
        .search(
            &SearchRequest::new("the and to for")
                .unwrap()
                .mode(SearchMode::Keyword)
                .filters(status)
                .limit(50),
        )
        .await
        .unwrap();
    assert!(!page.results.is_empty());
    assert!(page
        .results
        .iter()
        .all(|r| r.metadata.as_ref().unwrap().status.as_deref() == Some("done")));

    let october = DateRange {
        start: Some("2026-10-01T00:00:00Z".parse().unwrap()),
        end: Some("2026-10-31T23:59:59Z".parse().unwrap()),
    };
    let f = SearchFilters {
        date_range: Some(october.clone()),
        ..Default::default()
    };
    let page = engine
        .search(&SearchRequest::new("design doc").unwrap().filters(f))
        .await
        .unwrap();
    assert_eq!(ids(&page)[0], "res_design_doc_search", "{:?}", ids(&page));
    assert!(page
        .results
        .iter()
        .all(|r| october.contains(r.metadata.as_ref().unwrap().updated_at.unwrap())));
}

#[tokio::test]
async fn keyword_mode_needs_no_embedding_and_pages_consistently() {
    let engine = kb_engine();
    let all = engine
        .search(
            &SearchRequest::new("project review plan team")
                .unwrap()
                .mode(SearchMode::Keyword)
                .limit(50),
        )
        .await
        .unwrap();
    assert!(!all.embedding_used);
    assert!(all.results.len() >= 10, "{}", all.results.len());
    assert!(all.total_results >= all.results.len() as u64);
    let second = engine
        .search(
            &SearchRequest::new("project review plan team")
                .unwrap()
                .mode(SearchMode::Keyword)
                .limit(5)
                .offset(5),
        )
        .await
        .unwrap();
    assert_eq!(ids(&second), ids(&all)[5..10].to_vec());
    assert_eq!(second.total_results, all.total_results);
}

#[tokio::test]
async fn scores_are_bounded_sorted_and_deterministic() {
    let engine = kb_engine();
    for mode in [
        SearchMode::Hybrid,
        SearchMode::Semantic,
        SearchMode::Keyword,
    ] {
        let req = SearchRequest::new("budget savings plan")
            .unwrap()
            .mode(mode)
            .limit(20);
        let a = engine.search(&req).await.unwrap();
        let b = engine.search(&req).await.unwrap();
        assert_eq!(a, b, "{mode:?}");
        assert!(!a.results.is_empty(), "{mode:?}");
        assert!(a
            .results
            .iter()
            .all(|r| (0.0..=1.0).contains(&r.relevance_score)));
        assert!(a
            .results
            .windows(2)
            .all(|w| w[0].relevance_score >= w[1].relevance_score));
    }
}

#[tokio::test]
async fn nonsense_finds_nothing() {
    let page = kb_engine()
        .search(&SearchRequest::new("xqzvbnm plortwex").unwrap())
        .await
        .unwrap();
    assert_eq!(page.results, vec![]);
    assert_eq!(page.total_results, 0);
}

#[tokio::test]
async fn query_syntax_is_plain_text() {
    let engine = kb_engine();
    for q in [
        "title:phoenix AND (",
        "\"unterminated",
        "*",
        "budget^10 OR -report",
        "category:archive",
        "{[<>]}",
        "))((",
    ] {
        for mode in [SearchMode::Keyword, SearchMode::Hybrid] {
            let r = engine
                .search(&SearchRequest::new(q).unwrap().mode(mode))
                .await;
            assert!(r.is_ok(), "{q:?} {mode:?}: {r:?}");
        }
    }
    // The field syntax is not interpreted: only items containing the words match.
    let page = engine
        .search(
            &SearchRequest::new("category:archive")
                .unwrap()
                .mode(SearchMode::Keyword),
        )
        .await
        .unwrap();
    assert!(page.results.iter().all(|r| r.category == Category::Archive
        || r.title.to_lowercase().contains("archive")
        || r.snippet
            .as_deref()
            .unwrap_or("")
            .to_lowercase()
            .contains("archive")
        || r.snippet
            .as_deref()
            .unwrap_or("")
            .to_lowercase()
            .contains("categor")));
}

#[tokio::test]
async fn the_narrow_service_methods_work() {
    let engine = kb_engine();
    let hits = engine
        .search_multiple(
            "half marathon",
            &[Category::Project, Category::Area],
            5,
            SearchMode::Hybrid,
        )
        .await
        .unwrap();
    assert_eq!(hits[0].item_id, "proj_half_marathon");
    assert!(hits
        .iter()
        .all(|h| matches!(h.category, Category::Project | Category::Area)));
    let v = engine.vector_search("running shoes", 3).await.unwrap();
    assert!(!v.is_empty() && v.len() <= 3);
    let k = engine
        .keyword_search("kitchen", Some(&[Category::Project]), 10)
        .await
        .unwrap();
    assert!(k.iter().any(|h| h.item_id == "proj_kitchen"));
    assert!(k.iter().all(|h| h.category == Category::Project));
}

#[tokio::test]
async fn exact_ids_and_titles_are_found_for_navigation() {
    let engine = kb_engine();
    let t = engine.find_exact("proj_phoenix").unwrap();
    assert_eq!(
        (t.item_id.as_str(), t.item_type),
        ("proj_phoenix", ItemType::Project)
    );
    assert_eq!(
        engine.find_exact("project  PHOENIX").unwrap().item_id,
        "proj_phoenix"
    );
    assert_eq!(engine.find_exact("proj_does_not_exist"), None);
}

#[tokio::test]
async fn hybrid_ranks_the_same_with_and_without_a_second_retrieval_thread() {
    let parallel = kb_engine();
    assert!(parallel.config().parallel_retrieval || num_cpus_is_one());
    let dir = tempfile::tempdir().unwrap();
    let serial = SearchEngine::open_with(
        dir.path(),
        embedder(),
        EngineConfig {
            parallel_retrieval: false,
            ..config()
        },
    )
    .await
    .unwrap();
    serial.bulk_load(&kb_items(), |_| {}).await.unwrap();
    for q in [
        "quarterly report",
        "the designer from TechConf",
        "legacy migration",
    ] {
        let req = SearchRequest::new(q).unwrap().limit(10);
        let a = parallel.search(&req).await.unwrap();
        let b = serial.search(&req).await.unwrap();
        assert_eq!(a.total_results, b.total_results, "{q}");
        let scores = |p: &navigator_core::SearchPage| {
            p.results
                .iter()
                .map(|r| (r.item_id.clone(), r.relevance_score))
                .collect::<Vec<_>>()
        };
        assert_eq!(scores(&a), scores(&b), "{q}");
        assert!(!a.results.is_empty(), "{q}");
    }
}

fn num_cpus_is_one() -> bool {
    !std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

#[tokio::test]
async fn nearest_returns_an_item_for_its_own_text() {
    let engine = kb_engine();
    let item = kb_items().into_iter().nth(17).unwrap();
    let v = embedder()
        .embed_documents(&[item.embedding_text().as_str()])
        .await
        .unwrap()
        .remove(0);
    let near = engine.nearest(&v, 5).unwrap();
    assert_eq!(near.len(), 5);
    assert_eq!(near[0].0, item.id);
    assert!(near[0].1 > 0.99, "{}", near[0].1);
    assert!(near.windows(2).all(|w| w[0].1 >= w[1].1));
    assert!(
        engine.nearest(&[0.0; 3], 5).is_err(),
        "wrong width is an error"
    );
}

#[tokio::test]
async fn filters_choose_the_items_but_never_change_their_scores() {
    let engine = kb_engine();
    let base = SearchRequest::new("quarterly report")
        .unwrap()
        .mode(SearchMode::Keyword)
        .limit(50);
    let everything = engine
        .search(&base.clone().include_archived(true))
        .await
        .unwrap();
    let scoped = engine
        .search(&base.categories([Category::Project, Category::Resource]))
        .await
        .unwrap();
    assert_eq!(
        everything.results[0].item_id, scoped.results[0].item_id,
        "the best match is a project in both"
    );
    assert!(scoped.results.len() >= 3, "{:?}", ids(&scoped));
    for hit in &scoped.results {
        let same = everything
            .results
            .iter()
            .find(|r| r.item_id == hit.item_id)
            .unwrap();
        assert_eq!(
            hit.relevance_score, same.relevance_score,
            "{}: a category filter changed its score",
            hit.item_id
        );
    }
}

#[tokio::test]
async fn a_folder_is_found_by_meaning_only_when_the_query_is_close_to_its_name() {
    // A folder embeds its name alone: a short vector that unrelated short queries come near
    // (with MiniLM, "banana" reaches 0.37 to "Kitchen", over the floor every item has).
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    let mut folder =
        navigator_core::Item::new("Projects/Kitchen/", ItemType::Project, "Kitchen", now())
            .unwrap();
    folder.category = Category::Project;
    let mut note = navigator_core::Item::new(
        "Projects/Kitchen/Budget.md",
        ItemType::Project,
        "Kitchen budget",
        now(),
    )
    .unwrap();
    note.category = Category::Project;
    note.parent_id = Some("Projects/Kitchen/".into());
    note.body = "Cabinets, tiles and the contractor's quote for the renovation.".into();
    engine.bulk_load(&[folder, note], |_| {}).await.unwrap();
    let found = |q: &'static str, mode: SearchMode| {
        let engine = &engine;
        async move {
            let page = engine
                .search(&SearchRequest::new(q).unwrap().mode(mode))
                .await
                .unwrap();
            page.results
                .iter()
                .any(|r| r.item_id == "Projects/Kitchen/")
        }
    };
    for q in ["banana", "zanzibar"] {
        for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
            assert!(!found(q, mode).await, "{q} ({mode:?}) found the folder");
        }
    }
    for q in ["someone who builds kitchens", "kitchen"] {
        assert!(found(q, SearchMode::Semantic).await, "{q}");
    }
}

/// A folder and a tag written decomposed (as some systems write `Café`) are the folder and
/// the tag a person types, in every mode: the parent and tag filters compared the bytes.
#[tokio::test]
async fn decomposed_folder_and_tag_names_match_what_is_typed() {
    use unicode_normalization::UnicodeNormalization;
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), embedder(), config())
        .await
        .unwrap();
    let nfd = |s: &str| -> String { s.nfd().collect() };
    let mut note = navigator_core::Item::new(
        nfd("1 Projects/Café/Menü.md"),
        ItemType::Project,
        "Menu",
        now(),
    )
    .unwrap();
    note.category = Category::Project;
    note.parent_id = Some(nfd("1 Projects/Café/"));
    note.tags = vec![nfd("café")];
    note.body = "Crème brûlée and espresso for the opening week.".into();
    engine.upsert(&[note]).await.unwrap();
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
            let page = engine
                .search(
                    &SearchRequest::new("espresso opening week")
                        .unwrap()
                        .mode(mode)
                        .filters(filters.clone()),
                )
                .await
                .unwrap();
            assert_eq!(page.results.len(), 1, "{mode:?} {filters:?}: {page:?}");
        }
    }
}
