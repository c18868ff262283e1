//! The contract suites every backend passes: [`store_contract`] for any
//! [`Store`](navigator_core::Store) (redb, memory, PostgreSQL, a user's own) and
//! [`search_contract`] for any [`SearchService`] loaded with [`corpus`]. Written against the
//! public API only, so what holds here holds for every implementation.
#![allow(dead_code)] // each test binary uses a different subset

use chrono::{DateTime, Utc};
use navigator_core::{
    Category, Error, Grip, Item, ItemScan, ItemType, SearchFilters, SearchMode, SearchRequest,
    SearchService, Store, TagFilter, TocLevel, TocNode,
};
use std::collections::BTreeMap;

pub fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn item(id: &str, t: ItemType, title: &str, updated: &str) -> Item {
    let mut i = Item::new(id, t, title, at("2026-01-01T00:00:00Z")).unwrap();
    i.updated_at = at(updated);
    i
}

fn node(id: &str, level: TocLevel, start: &str, children: &[&str]) -> TocNode {
    TocNode {
        node_id: id.into(),
        level,
        title: id.into(),
        start_time: at(start),
        end_time: at(start) + chrono::Duration::days(28),
        bullets: Vec::new(),
        keywords: vec!["k".into()],
        child_node_ids: children.iter().map(|c| c.to_string()).collect(),
        version: 0,
        created_at: at("2026-01-01T00:00:00Z"),
    }
}

/// Every rule of the `Store` trait, on an empty store.
pub async fn store_contract(store: &dyn Store) {
    assert!(!store.backend().is_empty());
    assert_eq!(store.count_items().await.unwrap(), 0, "starts empty");

    // Items round-trip whole; a batch writes all or nothing; the last write of an id wins.
    let mut full = item(
        "task_b",
        ItemType::Task,
        "Draft report",
        "2026-02-01T10:00:00Z",
    )
    .with_body("Complete the Q4 draft by Friday")
    .with_parent("proj_q4")
    .with_status("in_progress");
    full.tags = vec!["finance".into(), "q4".into()];
    full.access_count = 7;
    full.metadata = BTreeMap::from([("owner".to_string(), serde_json::json!({"name": "Ana"}))]);
    let mut archived = item(
        "arch_a",
        ItemType::Project,
        "Old launch",
        "2026-05-01T00:00:00Z",
    );
    archived.archive(at("2026-06-01T00:00:00Z")).unwrap();
    let area = item("area_c", ItemType::Area, "Health", "2026-03-01T00:00:00Z");
    let mut first = area.clone();
    first.title = "Health (old)".into();
    store
        .put_items(&[full.clone(), archived.clone(), first, area.clone()])
        .await
        .unwrap();
    assert_eq!(store.get_item("task_b").await.unwrap(), Some(full.clone()));
    assert_eq!(
        store.get_item("arch_a").await.unwrap(),
        Some(archived.clone())
    );
    assert_eq!(store.get_item("area_c").await.unwrap(), Some(area.clone()));
    assert_eq!(store.get_item("nope").await.unwrap(), None);
    assert_eq!(store.count_items().await.unwrap(), 3);
    assert_eq!(
        store
            .get_items(&["area_c", "nope", "task_b"])
            .await
            .unwrap(),
        vec![Some(area.clone()), None, Some(full.clone())]
    );

    let mut bad = item("bad", ItemType::Task, "x", "2026-01-01T00:00:00Z");
    bad.category = Category::Archive;
    let err = store
        .put_items(&[
            item("ok", ItemType::Task, "ok", "2026-01-02T00:00:00Z"),
            bad,
        ])
        .await
        .unwrap_err();
    assert_eq!(err.field(), Some("category"), "{err}");
    assert_eq!(store.get_item("ok").await.unwrap(), None, "nothing written");

    let mut changed = full.clone();
    changed.title = "Draft the report".into();
    store.put_item(&changed).await.unwrap();
    assert_eq!(
        store.get_item("task_b").await.unwrap(),
        Some(changed.clone())
    );
    assert_eq!(store.count_items().await.unwrap(), 3);

    // Scans: ascending ids, paging after an id, category and time conditions.
    let ids = |items: Vec<Item>| items.into_iter().map(|i| i.id).collect::<Vec<_>>();
    let all = store.scan_items(&ItemScan::default()).await.unwrap();
    assert_eq!(ids(all), ["arch_a", "area_c", "task_b"]);
    let page = store
        .scan_items(&ItemScan {
            after_id: Some("arch_a".into()),
            limit: Some(1),
            ..ItemScan::default()
        })
        .await
        .unwrap();
    assert_eq!(ids(page), ["area_c"]);
    let scoped = store
        .scan_items(&ItemScan {
            categories: Some(vec![Category::Archive, Category::Project]),
            ..ItemScan::default()
        })
        .await
        .unwrap();
    assert_eq!(ids(scoped), ["arch_a", "task_b"]);
    let recent = store
        .scan_items(&ItemScan {
            updated_since: Some(at("2026-03-01T00:00:00Z")),
            ..ItemScan::default()
        })
        .await
        .unwrap();
    assert_eq!(ids(recent), ["arch_a", "area_c"]);

    // Access counts continue from the stored count; an unknown id is NotFound.
    assert_eq!(store.record_access("task_b").await.unwrap(), 8);
    assert_eq!(store.record_access("task_b").await.unwrap(), 9);
    assert_eq!(
        store
            .get_item("task_b")
            .await
            .unwrap()
            .unwrap()
            .access_count,
        9
    );
    assert!(matches!(
        store.record_access("nope").await,
        Err(Error::NotFound { .. })
    ));

    // Deletes say whether the item existed.
    assert!(store.delete_item("arch_a").await.unwrap());
    assert!(!store.delete_item("arch_a").await.unwrap());
    assert_eq!(store.get_item("arch_a").await.unwrap(), None);
    assert_eq!(store.count_items().await.unwrap(), 2);

    // TOC nodes: versions count writes; children sorted by start; "" lists the years.
    let y26 = node(
        "toc:year:2026",
        TocLevel::Year,
        "2026-01-01T00:00:00Z",
        &["toc:month:2026-02", "toc:month:2026-01"],
    );
    let y25 = node("toc:year:2025", TocLevel::Year, "2025-01-01T00:00:00Z", &[]);
    let jan = node(
        "toc:month:2026-01",
        TocLevel::Month,
        "2026-01-01T00:00:00Z",
        &[],
    );
    let feb = node(
        "toc:month:2026-02",
        TocLevel::Month,
        "2026-02-01T00:00:00Z",
        &[],
    );
    for n in [&y26, &y25, &jan, &feb] {
        assert_eq!(store.put_toc_node(n.clone()).await.unwrap().version, 1);
    }
    let again = store.put_toc_node(y26.clone()).await.unwrap();
    assert_eq!(again.version, 2);
    assert_eq!(
        store.get_toc_node("toc:year:2026").await.unwrap(),
        Some(again)
    );
    assert_eq!(store.get_toc_node("toc:year:1999").await.unwrap(), None);
    let node_ids = |nodes: Vec<TocNode>| nodes.into_iter().map(|n| n.node_id).collect::<Vec<_>>();
    assert_eq!(
        node_ids(store.toc_children("").await.unwrap()),
        ["toc:year:2025", "toc:year:2026"]
    );
    assert_eq!(
        node_ids(store.toc_children("toc:year:2026").await.unwrap()),
        ["toc:month:2026-01", "toc:month:2026-02"]
    );
    assert!(matches!(
        store.toc_children("toc:year:1999").await,
        Err(Error::NotFound { .. })
    ));

    // Grips: the last write of an id wins.
    let grip = Grip {
        grip_id: "grip:1".into(),
        excerpt: "we agreed on Friday".into(),
        event_id_start: "e1".into(),
        event_id_end: "e2".into(),
        timestamp: at("2026-01-05T09:00:00Z"),
        source: "session-1".into(),
    };
    let mut newer = grip.clone();
    newer.excerpt = "we agreed on Monday".into();
    store.put_grips(&[grip, newer.clone()]).await.unwrap();
    assert_eq!(store.get_grip("grip:1").await.unwrap(), Some(newer));
    assert_eq!(store.get_grip("grip:2").await.unwrap(), None);
}

/// The items [`search_contract`] expects the service to hold.
pub fn corpus() -> Vec<Item> {
    let day = "2026-11-01T00:00:00Z";
    vec![
        item("p_falcon", ItemType::Project, "Project Falcon launch", day)
            .with_body("Launch plan for the falcon rocket telemetry dashboard.")
            .with_status("active")
            .with_tags(["Space", "#Rocketry"]),
        item("t_falcon", ItemType::Task, "Review falcon telemetry", day)
            .with_body("Check the telemetry numbers before the launch review.")
            .with_parent("p_falcon")
            .with_status("todo")
            .with_tags(["space", "qa"]),
        item("r_bread", ItemType::Resource, "Sourdough bread recipe", day)
            .with_body("Flour, water, salt and a lively starter. Bake at 250 degrees."),
        item("a_garden", ItemType::Area, "Garden", day)
            .with_body("Tomatoes, basil and the compost heap behind the shed."),
        {
            let mut old = item("x_falcon", ItemType::Project, "Falcon prototype", day)
                .with_body("The first falcon prototype, retired.")
                .with_tags(["space"]);
            old.archive(at("2026-11-02T00:00:00Z")).unwrap();
            old
        },
    ]
}

/// Every rule of the `SearchService` contract, on a service holding exactly [`corpus`].
pub async fn search_contract(service: &dyn SearchService) {
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        let req = SearchRequest::new("falcon telemetry")
            .unwrap()
            .mode(mode)
            .include_archived(false);
        let page = service.search(&req).await.unwrap();
        assert!(!page.results.is_empty(), "{mode:?} finds something");
        assert_eq!(page.embedding_used, mode.uses_embeddings(), "{mode:?}");
        assert!(page.total_results >= page.results.len() as u64, "{mode:?}");
        for w in page.results.windows(2) {
            assert!(
                w[0].relevance_score >= w[1].relevance_score,
                "{mode:?} sorted"
            );
        }
        for hit in &page.results {
            assert!(
                (0.0..=1.0).contains(&hit.relevance_score),
                "{mode:?} bounded"
            );
            assert!(
                hit.snippet.as_deref().is_some_and(|s| !s.is_empty()),
                "{mode:?}"
            );
            assert_ne!(
                hit.category,
                Category::Archive,
                "archive excluded on request"
            );
        }
        let ids: Vec<&str> = page.results.iter().map(|r| r.item_id.as_str()).collect();
        assert!(ids.contains(&"t_falcon"), "{mode:?}: {ids:?}");
        if mode != SearchMode::Semantic {
            assert_eq!(ids[0], "t_falcon", "{mode:?}: both words in the title");
            assert!(!ids.contains(&"r_bread"), "{mode:?}: no shared word");
        }
    }

    // The same request scores the same, every time.
    let req = SearchRequest::new("falcon launch").unwrap();
    let a = service.search(&req).await.unwrap();
    let b = service.search(&req).await.unwrap();
    assert_eq!(a, b);

    // Paging: pages continue each other; the total does not depend on the page.
    let keyword = |q: &str| {
        let req = SearchRequest::new(q).unwrap().mode(SearchMode::Keyword);
        req.include_archived(false)
    };
    let whole = service.search(&keyword("falcon").limit(10)).await.unwrap();
    let first = service.search(&keyword("falcon").limit(1)).await.unwrap();
    let second = service
        .search(&keyword("falcon").limit(1).offset(1))
        .await
        .unwrap();
    assert_eq!(whole.results.len(), 2);
    assert_eq!(first.results[0], whole.results[0]);
    assert_eq!(second.results[0], whole.results[1]);
    assert_eq!(first.total_results, whole.total_results);
    assert_eq!(second.total_results, whole.total_results);

    // Scope, archive and filters narrow; nothing to match is an empty page.
    let archived = service
        .search(&keyword("falcon").include_archived(true))
        .await
        .unwrap();
    assert_eq!(archived.results.len(), 3);
    let scoped = service
        .search(
            &keyword("falcon")
                .categories([Category::Archive])
                .include_archived(true),
        )
        .await
        .unwrap();
    assert_eq!(scoped.results.len(), 1);
    assert_eq!(scoped.results[0].item_id, "x_falcon");
    let todo = service
        .search(&keyword("falcon").filters(SearchFilters {
            status: Some("todo".into()),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    let todo_ids: Vec<&str> = todo.results.iter().map(|r| r.item_id.as_str()).collect();
    assert_eq!(todo_ids, ["t_falcon"]);
    let children = service
        .search(&keyword("telemetry").filters(SearchFilters {
            parent_id: Some("p_falcon".into()),
            ..SearchFilters::default()
        }))
        .await
        .unwrap();
    assert!(children.results.iter().all(|r| r.item_id == "t_falcon"));

    // Tags: any of, all of; case and a leading `#` do not matter; every mode filters.
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        let tagged = |tags: TagFilter| {
            keyword("falcon telemetry")
                .mode(mode)
                .filters(SearchFilters {
                    tags: Some(tags),
                    ..SearchFilters::default()
                })
        };
        let ids = |page: navigator_core::SearchPage| {
            let mut ids: Vec<String> = page.results.into_iter().map(|r| r.item_id).collect();
            ids.sort();
            ids
        };
        let any = service
            .search(&tagged(TagFilter::any(["rocketry", "QA"])))
            .await
            .unwrap();
        assert_eq!(ids(any), ["p_falcon", "t_falcon"], "{mode:?}");
        let all = service
            .search(&tagged(TagFilter::all(["#SPACE", "qa"])))
            .await
            .unwrap();
        assert_eq!(ids(all), ["t_falcon"], "{mode:?}");
        let none = service
            .search(&tagged(TagFilter::all(["space", "garden"])))
            .await
            .unwrap();
        assert_eq!(none.total_results, 0, "{mode:?}");
    }
    let empty = service
        .search(&keyword("falcon").filters(SearchFilters {
            tags: Some(TagFilter::default()),
            ..SearchFilters::default()
        }))
        .await
        .unwrap_err();
    assert!(empty.to_string().contains("filters.tags"), "{empty}");
    let none = service.search(&keyword("zyzzyva")).await.unwrap();
    assert!(none.results.is_empty());
    assert_eq!(none.total_results, 0);

    // An empty query with categories or filters lists: the items passing them, newest first
    // (ties by id), relevance 1.0, nothing embedded, whatever the mode. x_falcon was updated
    // when it was archived, a day after the others.
    let space = SearchFilters {
        tags: Some(TagFilter::any(["space"])),
        ..SearchFilters::default()
    };
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        let list = SearchRequest::list(None, space.clone()).unwrap().mode(mode);
        let page = service.search(&list).await.unwrap();
        let ids: Vec<&str> = page.results.iter().map(|r| r.item_id.as_str()).collect();
        assert_eq!(ids, ["x_falcon", "p_falcon", "t_falcon"], "{mode:?}");
        assert_eq!(page.total_results, 3, "{mode:?}");
        assert!(!page.embedding_used, "{mode:?}: a listing embeds nothing");
        assert!(page.results.iter().all(|r| r.relevance_score == 1.0));
        assert!(page
            .results
            .iter()
            .all(|r| r.snippet.as_deref().is_some_and(|s| !s.is_empty())));
    }
    let second = service
        .search(
            &SearchRequest::list(None, space.clone())
                .unwrap()
                .limit(1)
                .offset(1),
        )
        .await
        .unwrap();
    assert_eq!(second.results.len(), 1);
    assert_eq!(second.results[0].item_id, "p_falcon");
    assert_eq!(second.total_results, 3);
    let projects = service
        .search(
            &SearchRequest::list(Some(vec![Category::Project]), SearchFilters::default()).unwrap(),
        )
        .await
        .unwrap();
    let ids: Vec<&str> = projects
        .results
        .iter()
        .map(|r| r.item_id.as_str())
        .collect();
    assert_eq!(ids, ["p_falcon", "t_falcon"], "the project and its task");
    let blank = SearchRequest {
        query: "   ".into(),
        ..SearchRequest::new("x").unwrap()
    };
    let err = service.search(&blank).await.unwrap_err();
    assert!(err.to_string().contains("query"), "{err}");

    // The seed's narrower methods agree with `search`.
    let kw = service
        .keyword_search("sourdough", Some(&[Category::Resource]), 5)
        .await
        .unwrap();
    assert_eq!(kw[0].item_id, "r_bread");
    assert!(kw[0].matched_field.is_some());
    let multi = service
        .search_multiple("garden compost", &[Category::Area], 5, SearchMode::Hybrid)
        .await
        .unwrap();
    assert_eq!(multi[0].item_id, "a_garden");
    let sem = service
        .vector_search("sourdough bread recipe", 3)
        .await
        .unwrap();
    assert_eq!(sem[0].item_id, "r_bread");
}
