//! Owners on PostgreSQL: handles with different `PgConfig::owner`s on one schema see disjoint
//! knowledge bases — the same item ids under each, and no search, listing, lookup, count,
//! write, delete, TOC node, grip, conversation or sync of one ever reaching the other's rows.
//! Also the owner's validation. A deterministic word-hash embedder keeps these tests
//! model-free.
#![cfg(feature = "postgres")]

mod pg_common;

use chrono::{DateTime, Duration, Utc};
use navigator_core::{
    AccessCounts, Category, ConversationRecord, ConversationStore, ErrorKind, Grip, Item, ItemScan,
    ItemStore, ItemType, SearchMode, SearchPage, SearchRequest, SearchService, TocLevel, TocNode,
    TocStore,
};
use navigator_search::pg::{sync_from_engine, PgConfig, PgSearchService, PgStore};
use navigator_search::{EngineConfig, FixedClock, SearchEngine};
use pg_common::WordHash;
use std::sync::Arc;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn engine_config() -> EngineConfig {
    EngineConfig {
        clock: Arc::new(FixedClock(at("2026-11-21T12:00:00Z"))),
        min_similarity: 0.3,
        ..EngineConfig::default()
    }
}

fn item(id: &str, title: &str, body: &str) -> Item {
    Item::new(id, ItemType::Resource, title, at("2026-01-01T00:00:00Z"))
        .unwrap()
        .with_body(body)
}

/// Alice's notes: `note_1` and `note_2`; both owners have a "plan".
fn alice_items() -> Vec<Item> {
    vec![
        item(
            "note_1",
            "Sourdough starter",
            "Feed the sourdough starter with flour and water.",
        ),
        item(
            "note_2",
            "Garden plan",
            "Tomatoes and basil in the raised garden bed.",
        ),
    ]
}

/// Bob's notes: another `note_1`, and `note_3`.
fn bob_items() -> Vec<Item> {
    vec![
        item(
            "note_1",
            "Rocket engines",
            "Liquid oxygen and kerosene rocket engines.",
        ),
        item(
            "note_3",
            "Launch plan",
            "Countdown plan for the rocket launch window.",
        ),
    ]
}

async fn service(config: PgConfig) -> PgSearchService {
    let store = PgStore::connect(config).await.unwrap();
    PgSearchService::new(store, Arc::new(WordHash), engine_config()).unwrap()
}

fn ids(page: &SearchPage) -> Vec<&str> {
    let mut ids: Vec<&str> = page.results.iter().map(|r| r.item_id.as_str()).collect();
    ids.sort_unstable();
    ids
}

fn titles(page: &SearchPage) -> Vec<&str> {
    let mut t: Vec<&str> = page.results.iter().map(|r| r.title.as_str()).collect();
    t.sort_unstable();
    t
}

fn node(id: &str, title: &str) -> TocNode {
    let start = at("2026-01-01T00:00:00Z");
    TocNode {
        node_id: id.to_string(),
        level: TocLevel::Year,
        title: title.to_string(),
        start_time: start,
        end_time: start + Duration::days(365),
        bullets: Vec::new(),
        keywords: Vec::new(),
        child_node_ids: Vec::new(),
        version: 0,
        created_at: start,
    }
}

fn grip(excerpt: &str) -> Grip {
    Grip {
        grip_id: "grip:1".to_string(),
        excerpt: excerpt.to_string(),
        event_id_start: "e1".to_string(),
        event_id_end: "e2".to_string(),
        timestamp: at("2026-01-01T00:00:00Z"),
        source: String::new(),
    }
}

fn conversation(id: &str, digest: &str) -> ConversationRecord {
    ConversationRecord {
        id: id.to_string(),
        turns: Vec::new(),
        digest: vec![digest.to_string()],
        updated_at: at("2026-03-01T10:00:00Z"),
        usage: Default::default(),
        cost_usd: 0.0,
    }
}

#[tokio::test]
async fn two_owners_on_one_schema_never_see_each_other() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let config = pg_common::config(&url, "owners", pg_common::DIMS);
    let alice = service(config.clone().owner("alice")).await;
    let bob = service(config.clone().owner("bob")).await;
    alice.upsert(&alice_items()).await.unwrap();
    bob.upsert(&bob_items()).await.unwrap();
    let (a, b) = (alice.store(), bob.store());

    // Searches in every mode, and listings, find only their owner's items.
    let owners = [
        (&alice, ["Sourdough starter", "Garden plan"]),
        (&bob, ["Rocket engines", "Launch plan"]),
    ];
    for mode in [
        SearchMode::Keyword,
        SearchMode::Semantic,
        SearchMode::Hybrid,
    ] {
        for (svc, own) in &owners {
            for q in [
                "plan",
                "rocket engines",
                "garden plan tomatoes basil",
                "launch plan rocket",
            ] {
                let page = svc
                    .search(&SearchRequest::new(q).unwrap().mode(mode))
                    .await
                    .unwrap();
                let found = titles(&page);
                assert!(
                    found.iter().all(|t| own.contains(t)),
                    "{q} {mode:?}: {found:?}"
                );
            }
        }
        let top = |page: SearchPage| page.results.first().map(|r| r.title.clone());
        let garden = SearchRequest::new("garden plan tomatoes basil")
            .unwrap()
            .mode(mode);
        let page = alice.search(&garden).await.unwrap();
        assert_eq!(top(page).as_deref(), Some("Garden plan"), "{mode:?}");
        let launch = SearchRequest::new("launch plan rocket").unwrap().mode(mode);
        let page = bob.search(&launch).await.unwrap();
        assert_eq!(top(page).as_deref(), Some("Launch plan"), "{mode:?}");
    }
    let keyword = |q: &str| SearchRequest::new(q).unwrap().mode(SearchMode::Keyword);
    let page = alice.search(&keyword("plan")).await.unwrap();
    assert_eq!((ids(&page), page.total_results), (vec!["note_2"], 1));
    let page = bob.search(&keyword("plan")).await.unwrap();
    assert_eq!((ids(&page), page.total_results), (vec!["note_3"], 1));
    let page = alice.search(&keyword("rocket kerosene")).await.unwrap();
    assert_eq!((ids(&page), page.total_results), (vec![], 0));
    let listing = SearchRequest {
        query: String::new(),
        categories: Some(vec![Category::Resource]),
        ..SearchRequest::new("x").unwrap()
    };
    let page = alice.search(&listing).await.unwrap();
    assert_eq!(
        (titles(&page), page.total_results),
        (vec!["Garden plan", "Sourdough starter"], 2)
    );
    let page = bob.search(&listing).await.unwrap();
    assert_eq!(
        (titles(&page), page.total_results),
        (vec!["Launch plan", "Rocket engines"], 2)
    );
    let near = alice
        .nearest(&pg_common::word_vector("rocket engines kerosene"), 10)
        .await
        .unwrap();
    let near: Vec<&str> = near.iter().map(|(id, _)| id.as_str()).collect();
    assert!(
        near.iter().all(|id| ["note_1", "note_2"].contains(id)),
        "{near:?}"
    );

    // The same id, two items.
    let a1 = a.get_item("note_1").await.unwrap().unwrap();
    let b1 = b.get_item("note_1").await.unwrap().unwrap();
    assert_eq!(
        (a1.title.as_str(), b1.title.as_str()),
        ("Sourdough starter", "Rocket engines")
    );
    assert_eq!(a.get_item("note_3").await.unwrap(), None);
    let got = b.get_items(&["note_1", "note_2", "note_3"]).await.unwrap();
    let got: Vec<Option<&str>> = got
        .iter()
        .map(|i| i.as_ref().map(|i| i.title.as_str()))
        .collect();
    assert_eq!(got, [Some("Rocket engines"), None, Some("Launch plan")]);
    let scanned: Vec<String> = a
        .scan_items(&ItemScan::default())
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.title)
        .collect();
    assert_eq!(scanned, ["Sourdough starter", "Garden plan"]);
    assert_eq!(
        (
            a.count_items().await.unwrap(),
            b.count_items().await.unwrap()
        ),
        (2, 2)
    );
    assert_eq!(
        (
            a.count_chunks().await.unwrap(),
            b.count_chunks().await.unwrap()
        ),
        (2, 2)
    );
    let (va, vb) = (
        a.stored_vectors("note_1").await.unwrap().unwrap(),
        b.stored_vectors("note_1").await.unwrap().unwrap(),
    );
    assert_ne!(va.chunks[0].vector, vb.chunks[0].vector);

    // The agent's lookups.
    let by_title = alice.find_exact("Rocket engines").await.unwrap();
    assert_eq!(by_title, None);
    let by_title = bob.find_exact("rocket  ENGINES").await.unwrap().unwrap();
    assert_eq!(by_title.item_id, "note_1");
    let words = alice.title_words().await.unwrap();
    assert!(words.contains(&"sourdough".to_string()) && !words.contains(&"rocket".to_string()));

    // Writes and deletes stay with their owner.
    assert_eq!(a.record_access("note_1").await.unwrap(), 1);
    assert_eq!(b.get_item("note_1").await.unwrap().unwrap().access_count, 0);
    let err = a.record_access("note_3").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(!b.delete_item("note_2").await.unwrap());
    assert!(a.delete_item("note_1").await.unwrap());
    assert_eq!(a.get_item("note_1").await.unwrap(), None);
    assert_eq!(b.get_item("note_1").await.unwrap(), Some(b1));
    assert_eq!(
        (
            a.count_chunks().await.unwrap(),
            b.count_chunks().await.unwrap()
        ),
        (1, 2)
    );
    a.put_items(&[item("note_4", "Compost", "Kitchen scraps.")])
        .await
        .unwrap();
    assert_eq!(bob.embed_missing().await.unwrap(), 0);
    assert_eq!(alice.embed_missing().await.unwrap(), 1);

    // TOC nodes, grips and conversations: the same ids, separate rows and versions.
    let an = a
        .put_toc_node(node("toc:year:2026", "Alice's 2026"))
        .await
        .unwrap();
    let bn = b
        .put_toc_node(node("toc:year:2026", "Bob's 2026"))
        .await
        .unwrap();
    assert_eq!((an.version, bn.version), (1, 1));
    let children = a.toc_children("").await.unwrap();
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].title, "Alice's 2026");
    assert_eq!(
        b.get_toc_node("toc:year:2026")
            .await
            .unwrap()
            .unwrap()
            .title,
        "Bob's 2026"
    );
    a.put_grips(&[grip("alice said")]).await.unwrap();
    assert_eq!(b.get_grip("grip:1").await.unwrap(), None);
    b.put_grips(&[grip("bob said")]).await.unwrap();
    assert_eq!(
        a.get_grip("grip:1").await.unwrap().unwrap().excerpt,
        "alice said"
    );
    a.put_conversation(&conversation("chat", "alice"))
        .await
        .unwrap();
    assert_eq!(b.get_conversation("chat").await.unwrap(), None);
    assert!(b.list_conversations(10).await.unwrap().is_empty());
    b.put_conversation(&conversation("chat", "bob"))
        .await
        .unwrap();
    assert!(b.delete_conversation("chat").await.unwrap());
    assert_eq!(
        a.get_conversation("chat").await.unwrap().unwrap().digest,
        ["alice"]
    );
    assert_eq!(a.list_conversations(10).await.unwrap().len(), 1);

    // A sync replaces the target owner's items only.
    let dir = tempfile::tempdir().unwrap();
    let engine = SearchEngine::open_with(dir.path(), Arc::new(WordHash), engine_config())
        .await
        .unwrap();
    engine
        .upsert(&[item(
            "note_9",
            "Telescope",
            "A telescope for the rocket launch.",
        )])
        .await
        .unwrap();
    let report = sync_from_engine(&engine, &bob).await.unwrap();
    assert_eq!((report.items, report.removed), (1, 2));
    assert_eq!(b.count_items().await.unwrap(), 1);
    assert_eq!(a.count_items().await.unwrap(), 2);
    let page = alice
        .search(&SearchRequest::new("telescope").unwrap())
        .await
        .unwrap();
    assert!(!ids(&page).contains(&"note_9"), "{page:?}");
    let page = bob.search(&keyword("telescope")).await.unwrap();
    assert_eq!(ids(&page), ["note_9"]);
    a.drop_schema().await.unwrap();
}

#[tokio::test]
async fn an_owner_is_checked_before_connecting() {
    // Nothing listens there: the owner is refused before any connection is tried.
    let url = "postgres://nobody@127.0.0.1:1/none";
    let long = "o".repeat(navigator_search::pg::MAX_OWNER_CHARS + 1);
    for owner in ["", "tab\there", "line\n", long.as_str()] {
        let err = PgStore::connect(PgConfig::new(url).owner(owner))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadRequest, "{owner:?}: {err}");
        assert!(err.to_string().contains("owner"), "{err}");
    }
    assert_eq!(
        PgConfig::new(url).owner,
        navigator_search::pg::DEFAULT_OWNER
    );
    let longest = "é".repeat(navigator_search::pg::MAX_OWNER_CHARS);
    if let Some(url) = pg_common::url() {
        let config = pg_common::config(&url, "owner_ok", pg_common::DIMS);
        for owner in ["tenant 42 / Zoë", longest.as_str()] {
            let store = PgStore::connect(config.clone().owner(owner)).await.unwrap();
            store.put_item(&item("x", "X", "")).await.unwrap();
            assert_eq!(store.count_items().await.unwrap(), 1, "{owner}");
        }
        PgStore::connect(config)
            .await
            .unwrap()
            .drop_schema()
            .await
            .unwrap();
    }
}
