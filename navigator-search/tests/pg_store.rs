//! `PgStore` against a real PostgreSQL + pgvector (started by scripts/postgres.sh): CRUD,
//! scans and paging, concurrent writers, migrations, bad input (the rules every store keeps
//! are in `tests/store_contract.rs`).
#![cfg(feature = "postgres")]

mod pg_common;

use chrono::{DateTime, Duration, Utc};
use navigator_core::{
    AccessCounts, Category, Item, ItemScan, ItemStore, ItemType, TocBullet, TocLevel, TocNode,
    TocStore,
};
use navigator_search::pg::{PgConfig, PgStore, MIGRATIONS};

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

fn item(id: &str, t: ItemType, title: &str, updated: &str) -> Item {
    let mut i = Item::new(id, t, title, at("2026-01-01T00:00:00Z")).unwrap();
    i.updated_at = at(updated);
    i
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
    // The indexes the backend relies on exist: full text on the items, the graph on the
    // chunk vectors (migration 3 moved it there from the items).
    let rows = client
        .query(
            "SELECT tablename::text, indexdef FROM pg_indexes WHERE schemaname = $1",
            &[&config.schema],
        )
        .await
        .unwrap();
    let defs: Vec<(String, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let has = |table: &str, def: &str| defs.iter().any(|(t, d)| t == table && d.contains(def));
    assert!(has("items", "USING gin (tsv)"), "{defs:?}");
    assert!(
        has("item_chunks", "USING hnsw (embedding vector_cosine_ops)"),
        "{defs:?}"
    );
    assert!(
        !has("items", "USING hnsw"),
        "the items keep no vectors: {defs:?}"
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
