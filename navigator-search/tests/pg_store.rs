//! `PgStore` against a real PostgreSQL + pgvector (started by scripts/postgres.sh): CRUD,
//! scans and paging, TOC nodes and grips, concurrent writers, migrations, bad input.
#![cfg(feature = "postgres")]

mod pg_common;

use chrono::{DateTime, Duration, Utc};
use navigator_core::{
    Category, Grip, Item, ItemScan, ItemType, Store, TocBullet, TocLevel, TocNode,
};
use navigator_search::pg::{PgConfig, PgStore, MIGRATIONS};
use std::collections::BTreeMap;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn item(id: &str, t: ItemType, title: &str, updated: &str) -> Item {
    let mut i = Item::new(id, t, title, at("2026-01-01T00:00:00Z")).unwrap();
    i.updated_at = at(updated);
    i
}

#[tokio::test]
async fn items_round_trip_replace_delete_and_count() {
    let Some(store) = pg_common::store("crud", 4).await else {
        return;
    };
    assert_eq!(store.backend(), "postgres");
    let mut full = item(
        "task_1",
        ItemType::Task,
        "Draft report",
        "2026-02-01T10:00:00Z",
    )
    .with_body("Complete the Q4 draft by Friday; it's the \"big\" one")
    .with_parent("proj_q4")
    .with_status("in_progress");
    full.tags = vec!["finance".into(), "q4".into()];
    full.access_count = 7;
    full.metadata = BTreeMap::from([("owner".to_string(), serde_json::json!({"name": "Ana"}))]);
    let mut archived = item(
        "arch_1",
        ItemType::Project,
        "Old launch",
        "2026-05-01T00:00:00Z",
    );
    archived.archive(at("2026-06-01T00:00:00Z")).unwrap();
    store
        .put_items(&[full.clone(), archived.clone()])
        .await
        .unwrap();

    assert_eq!(store.get_item("task_1").await.unwrap(), Some(full.clone()));
    assert_eq!(store.get_item("arch_1").await.unwrap(), Some(archived));
    assert_eq!(store.get_item("nope").await.unwrap(), None);
    assert_eq!(store.count_items().await.unwrap(), 2);

    let mut changed = full.clone();
    changed.title = "Draft the report".into();
    changed.tags.clear();
    store.put_item(&changed).await.unwrap();
    assert_eq!(store.get_item("task_1").await.unwrap(), Some(changed));
    assert_eq!(store.count_items().await.unwrap(), 2);

    assert_eq!(store.record_access("task_1").await.unwrap(), 8);
    assert_eq!(store.record_access("task_1").await.unwrap(), 9);
    assert!(matches!(
        store.record_access("nope").await,
        Err(navigator_core::Error::NotFound { kind: "item", .. })
    ));

    assert!(store.delete_item("task_1").await.unwrap());
    assert!(!store.delete_item("task_1").await.unwrap());
    assert_eq!(store.count_items().await.unwrap(), 1);
    store.drop_schema().await.unwrap();
}

#[tokio::test]
async fn scans_filter_and_page_in_id_order() {
    let Some(store) = pg_common::store("scan", 4).await else {
        return;
    };
    let items: Vec<Item> = (0..25)
        .map(|n| {
            let t = if n % 3 == 0 {
                ItemType::Area
            } else {
                ItemType::Task
            };
            item(
                &format!("id_{n:02}"),
                t,
                &format!("Item {n}"),
                &format!("2026-03-{:02}T00:00:00Z", n + 1),
            )
        })
        .collect();
    // Written out of order: scans still come back by id.
    let mut shuffled = items.clone();
    shuffled.reverse();
    store.put_items(&shuffled).await.unwrap();

    let all = store.scan_items(&ItemScan::default()).await.unwrap();
    assert_eq!(all, items);

    let areas = store
        .scan_items(&ItemScan {
            categories: Some(vec![Category::Area]),
            ..ItemScan::default()
        })
        .await
        .unwrap();
    assert!(areas.iter().all(|i| i.category == Category::Area));
    assert_eq!(areas.len(), 9);

    let recent = store
        .scan_items(&ItemScan {
            updated_since: Some(at("2026-03-20T00:00:00Z")),
            ..ItemScan::default()
        })
        .await
        .unwrap();
    assert_eq!(recent.len(), 6);

    let mut paged = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .scan_items(&ItemScan {
                after_id: after.clone(),
                limit: Some(10),
                ..ItemScan::default()
            })
            .await
            .unwrap();
        if page.is_empty() {
            break;
        }
        after = page.last().map(|i| i.id.clone());
        paged.extend(page);
    }
    assert_eq!(paged, items);
    store.drop_schema().await.unwrap();
}

fn node(id: &str, level: TocLevel, start: &str, children: &[&str]) -> TocNode {
    TocNode {
        node_id: id.to_string(),
        level,
        title: id.to_string(),
        start_time: at(start),
        end_time: at(start) + Duration::days(1),
        bullets: vec![TocBullet {
            text: format!("worked on {id}"),
            grip_ids: vec!["grip:1".into()],
        }],
        keywords: vec!["work".into()],
        child_node_ids: children.iter().map(|c| c.to_string()).collect(),
        version: 0,
        created_at: at(start),
    }
}

#[tokio::test]
async fn toc_nodes_version_and_list_children_and_grips_round_trip() {
    let Some(store) = pg_common::store("toc", 4).await else {
        return;
    };
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

    let years: Vec<String> = store
        .toc_children("")
        .await
        .unwrap()
        .into_iter()
        .map(|n| n.node_id)
        .collect();
    assert_eq!(years, ["toc:year:2025", "toc:year:2026"]);
    let months: Vec<String> = store
        .toc_children("toc:year:2026")
        .await
        .unwrap()
        .into_iter()
        .map(|n| n.node_id)
        .collect();
    assert_eq!(months, ["toc:month:2026-01", "toc:month:2026-02"]);
    assert!(matches!(
        store.toc_children("toc:year:1999").await,
        Err(navigator_core::Error::NotFound { .. })
    ));

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
    store
        .put_grips(&[grip.clone(), newer.clone()])
        .await
        .unwrap();
    assert_eq!(store.get_grip("grip:1").await.unwrap(), Some(newer));
    assert_eq!(store.get_grip("grip:2").await.unwrap(), None);
    store.drop_schema().await.unwrap();
}

#[tokio::test]
async fn concurrent_writers_lose_nothing() {
    let Some(store) = pg_common::store("concurrent", 4).await else {
        return;
    };
    let mut tasks = Vec::new();
    for w in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for batch in 0..5 {
                let items: Vec<Item> = (0..20)
                    .map(|n| {
                        // Every writer also rewrites the shared ids `shared_*`.
                        let id = if n < 5 {
                            format!("shared_{n}")
                        } else {
                            format!("w{w}_b{batch}_{n}")
                        };
                        item(
                            &id,
                            ItemType::Resource,
                            &format!("writer {w}"),
                            "2026-01-02T00:00:00Z",
                        )
                    })
                    .collect();
                store.put_items(&items).await.unwrap();
                store.record_access("shared_0").await.unwrap();
            }
            for _ in 0..5 {
                store
                    .put_toc_node(node(
                        "toc:day:2026-01-02",
                        TocLevel::Day,
                        "2026-01-02T00:00:00Z",
                        &[],
                    ))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.count_items().await.unwrap(), 5 + 8 * 5 * 15);
    // 40 versions of one node, none reused.
    let n = store
        .get_toc_node("toc:day:2026-01-02")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(n.version, 40);
    store.drop_schema().await.unwrap();
}

#[tokio::test]
async fn migrations_run_once_even_when_processes_start_together() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let config = pg_common::config(&url, "migrate", 8);
    let opens: Vec<_> = (0..4)
        .map(|_| tokio::spawn(PgStore::connect(config.clone())))
        .collect();
    let mut stores = Vec::new();
    for o in opens {
        stores.push(o.await.unwrap().unwrap());
    }
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let rows = client
        .query(
            &format!(
                "SELECT version FROM {}.schema_migrations ORDER BY version",
                config.schema
            ),
            &[],
        )
        .await
        .unwrap();
    let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    let expected: Vec<i32> = MIGRATIONS.iter().map(|m| m.version).collect();
    assert_eq!(versions, expected);
    // The indexes the backend relies on exist.
    let rows = client
        .query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'items'",
            &[&config.schema],
        )
        .await
        .unwrap();
    let defs: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    assert!(
        defs.iter().any(|d| d.contains("USING gin (tsv)")),
        "{defs:?}"
    );
    assert!(
        defs.iter()
            .any(|d| d.contains("USING hnsw (embedding vector_cosine_ops)")),
        "{defs:?}"
    );

    // Reopening with other dimensions is refused: the column is vector(8).
    let err = PgStore::connect(config.clone().dimensions(16))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            navigator_search::Error::Dimensions {
                expected: 8,
                got: 16,
                ..
            }
        ),
        "{err}"
    );
    stores[0].drop_schema().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_a_typed_error_and_writes_nothing() {
    let Some(store) = pg_common::store("bad", 4).await else {
        return;
    };
    let good = item("ok_1", ItemType::Task, "Fine", "2026-01-02T00:00:00Z");
    let mut bad = good.clone();
    bad.id = "bad_1".into();
    bad.title = String::new();
    let err = store.put_items(&[good.clone(), bad]).await.unwrap_err();
    assert!(
        matches!(err, navigator_core::Error::InvalidField { .. }),
        "{err}"
    );
    assert_eq!(store.count_items().await.unwrap(), 0);

    let mut huge = good.clone();
    huge.access_count = u64::MAX;
    let err = store.put_items(&[huge]).await.unwrap_err();
    assert!(err.to_string().contains("accessCount"), "{err}");

    let err = store
        .put_items_with_vectors(std::slice::from_ref(&good), Some(&[vec![0.5; 3]]))
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        navigator_search::Error::Dimensions {
            expected: 4,
            got: 3,
            ..
        }
    ));
    let err = store
        .put_items_with_vectors(std::slice::from_ref(&good), Some(&[]))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("vectors"), "{err}");

    // Text that looks like SQL is stored as text.
    let mut sneaky = good.clone();
    sneaky.id = "x'); DROP TABLE items; --".into();
    sneaky.title = "Robert'); DROP TABLE items; --".into();
    store.put_item(&sneaky).await.unwrap();
    assert_eq!(store.get_item(&sneaky.id).await.unwrap(), Some(sneaky));
    assert_eq!(store.count_items().await.unwrap(), 1);

    for schema in ["Bad-Name", "", "1abc", "a;drop"] {
        let err = PgStore::connect(PgConfig::new("postgres://x@127.0.0.1/x").schema(schema))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("schema"), "{err}");
    }
    store.drop_schema().await.unwrap();
}

#[tokio::test]
async fn connection_failures_carry_the_sql_state() {
    let Some(url) = pg_common::url() else {
        return;
    };
    // Wrong password: the server answers 28P01 (invalid_password).
    let mut wrong: tokio_postgres::Config = url.parse().unwrap();
    wrong.password("not-the-password");
    let host = match &wrong.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        #[allow(unreachable_patterns)]
        _ => "127.0.0.1".into(),
    };
    let bad_url = format!(
        "host={host} port={} user={} password=not-the-password dbname={}",
        wrong.get_ports()[0],
        wrong.get_user().unwrap(),
        wrong.get_dbname().unwrap()
    );
    let err = PgStore::connect(PgConfig::new(bad_url)).await.unwrap_err();
    match &err {
        navigator_search::Error::Postgres { code, .. } => {
            assert_eq!(code.as_deref(), Some("28P01"), "{err}")
        }
        other => panic!("expected a postgres error, got {other}"),
    }
    assert!(err.to_string().contains("SQLSTATE 28P01"), "{err}");
    assert!(!err.to_string().contains("not-the-password"), "{err}");

    // Nothing listening: unavailable (no state), within the connect timeout, and the
    // message says why.
    let mut cfg = PgConfig::new("postgres://navigator:pw@127.0.0.1:1/navigator");
    cfg.connect_timeout = std::time::Duration::from_secs(2);
    let err = PgStore::connect(cfg).await.unwrap_err();
    assert!(
        matches!(
            &err,
            navigator_search::Error::Unavailable {
                backend: "postgres",
                operation: "connect",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.kind(), navigator_core::ErrorKind::Unavailable);
    assert!(err.to_string().to_lowercase().contains("refused"), "{err}");
    let err = PgStore::connect(PgConfig::new("not a url ==="))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, navigator_search::Error::Postgres { .. }),
        "{err}"
    );
}
