//! Migration tests on a real server: databases written at older versions keep their items
//! and answers when upgraded.

use super::*;
use crate::pg::{PgSearchService, PgStore};
use crate::{EngineConfig, FixedClock};
use navigator_core::{Item, ItemType, SearchMode, SearchRequest};
use pgvector::Vector;
use std::sync::Arc;
// Anything embedded during these tests gets `[0, 0, 1]`.
use crate::test_embedder::Fixed;

/// The server's URL; `None` (the test skips, saying so) when none is set outside CI.
fn url() -> Option<String> {
    match std::env::var("NAVIGATOR_PG_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => {
            panic!("NAVIGATOR_PG_URL is not set under CI: run ./scripts/test.sh")
        }
        _ => {
            eprintln!("skipping: NAVIGATOR_PG_URL is not set");
            None
        }
    }
}

/// A configuration for 3-dimensional vectors on a fresh schema named after `tag`.
fn config(url: &str, tag: &str) -> PgConfig {
    PgConfig::new(url).schema(schema(tag)).dimensions(3)
}

fn schema(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("t_{tag}_{}_{nanos}", std::process::id())
}

fn items() -> Vec<(Item, Option<Vec<f32>>)> {
    let at = "2026-03-01T00:00:00Z".parse().unwrap();
    let item = |id: &str, title: &str, body: &str| {
        Item::new(id, ItemType::Resource, title, at)
            .unwrap()
            .with_body(body)
    };
    vec![
        (
            item("a", "Alpha", "Alpha notes."),
            Some(vec![1.0, 0.0, 0.0]),
        ),
        (item("b", "Beta", "Beta notes."), Some(vec![0.6, 0.8, 0.0])),
        (item("c", "Gamma", "Never embedded."), None),
    ]
}

/// Schema `tag` migrated only up to `version`, and a plain client to write rows into it as
/// that version did.
async fn schema_at(url: &str, tag: &str, version: i32) -> (PgConfig, tokio_postgres::Client) {
    let old = config(url, tag);
    let (mut client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    migrate_to(&mut client, &old, version).await.unwrap();
    (old, client)
}

async fn service(config: PgConfig) -> PgSearchService {
    let engine = EngineConfig {
        clock: Arc::new(FixedClock("2026-04-01T00:00:00Z".parse().unwrap())),
        ..EngineConfig::default()
    };
    let store = PgStore::connect(config).await.unwrap();
    PgSearchService::new(store, Arc::new(Fixed), engine).unwrap()
}

#[tokio::test]
async fn a_version_2_database_keeps_its_vectors_as_whole_item_chunks() {
    let Some(url) = url() else {
        return;
    };
    let (old, client) = schema_at(&url, "v2", 2).await;
    // Items as version 2 wrote them: one embedding column per item.
    for (item, vector) in items() {
        client
            .execute(
                &format!(
                    "INSERT INTO {}.items (id, item_type, category, title, body, tags,
                         tags_text, created_at, updated_at, metadata, embedding)
                     VALUES ($1, $2, $3, $4, $5, '{{}}', '', $6, $7, '{{}}', $8)",
                    old.schema
                ),
                &[
                    &item.id,
                    &item.item_type.as_str(),
                    &item.category.as_str(),
                    &item.title,
                    &item.body,
                    &item.created_at,
                    &item.updated_at,
                    &vector.map(Vector::from),
                ],
            )
            .await
            .unwrap();
    }

    let migrated = service(old.clone()).await;
    assert_eq!(versions(&client, &old.schema).await, [1, 2, 3, 4, 5]);
    let store = migrated.store();
    assert_eq!(store.count_chunks().await.unwrap(), 2);
    let a = store.stored_vectors("a").await.unwrap().unwrap();
    assert_eq!(a.chunks.len(), 1);
    assert_eq!(
        (a.chunks[0].start, a.chunks[0].end),
        (0, 12),
        "the whole body"
    );
    assert_eq!(a.chunks[0].vector, [1.0, 0.0, 0.0]);
    assert_eq!(store.stored_vectors("c").await.unwrap(), None);

    // The same answers as the same items written at the latest version.
    let fresh = fresh_with_items(&url, "v3").await;
    let request = SearchRequest::new("alpha")
        .unwrap()
        .mode(SearchMode::Semantic);
    let query = [0.8, 0.6, 0.0];
    let before = fresh
        .search_with_vector(&request, Some(&query))
        .await
        .unwrap();
    let after = migrated
        .search_with_vector(&request, Some(&query))
        .await
        .unwrap();
    assert_eq!(before, after);
    assert_eq!(after.results.len(), 2, "{after:?}");
    assert_eq!(after.results[0].item_id, "b");
    assert_eq!(migrated.nearest(&query, 3).await.unwrap().len(), 2);

    // The item that had no embedding is still embedded on demand.
    assert_eq!(migrated.embed_missing().await.unwrap(), 1);
    assert_eq!(store.count_chunks().await.unwrap(), 3);
    store.drop_schema().await.unwrap();
    fresh.store().drop_schema().await.unwrap();
}

/// A schema created at the latest version holding [`items`], written as their version-2
/// rows were (an item without a vector through the plain store).
async fn fresh_with_items(url: &str, name: &str) -> PgSearchService {
    let fresh = service(config(url, name)).await;
    for (item, vector) in items() {
        match vector {
            Some(v) => fresh.upsert_with_vectors(&[item], &[v]).await.unwrap(),
            None => fresh
                .store()
                .put_items_with_vectors(&[item], None)
                .await
                .unwrap(),
        }
    }
    fresh
}

/// The migrations recorded in `schema`, ascending.
async fn versions(client: &tokio_postgres::Client, schema: &str) -> Vec<i32> {
    client
        .query(
            &format!("SELECT version FROM {schema}.schema_migrations ORDER BY 1"),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// The definitions of the keys of `table` in `schema` (primary, unique, foreign), sorted.
async fn keys(client: &tokio_postgres::Client, schema: &str, table: &str) -> Vec<String> {
    let mut defs: Vec<String> = client
        .query(
            "SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
             JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
             WHERE n.nspname = $1 AND t.relname = $2 AND c.contype IN ('p', 'u', 'f')",
            &[&schema, &table],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    defs.sort();
    defs
}

/// The same semantic, keyword and hybrid pages from both services.
async fn same_answers(a: &PgSearchService, b: &PgSearchService) {
    let query = [0.8, 0.6, 0.0];
    for mode in [
        SearchMode::Semantic,
        SearchMode::Keyword,
        SearchMode::Hybrid,
    ] {
        let request = SearchRequest::new("alpha notes").unwrap().mode(mode);
        let left = a.search_with_vector(&request, Some(&query)).await.unwrap();
        let right = b.search_with_vector(&request, Some(&query)).await.unwrap();
        assert_eq!(left, right, "{mode:?}");
        assert!(!left.results.is_empty(), "{mode:?}");
    }
}

#[tokio::test]
async fn a_version_3_database_keeps_its_items_under_the_default_owner() {
    let Some(url) = url() else {
        return;
    };
    let (old, client) = schema_at(&url, "v3own", 3).await;
    let s = old.schema.clone();
    // Items, chunks, a TOC node, a grip and a conversation as version 3 wrote them: no owner.
    for (item, vector) in items() {
        let key: i64 = client
            .query_one(
                &format!(
                    "INSERT INTO {s}.items (id, item_type, category, title, body, tags,
                         tags_text, created_at, updated_at, metadata)
                     VALUES ($1, $2, $3, $4, $5, '{{}}', '', $6, $7, '{{}}') RETURNING key"
                ),
                &[
                    &item.id,
                    &item.item_type.as_str(),
                    &item.category.as_str(),
                    &item.title,
                    &item.body,
                    &item.created_at,
                    &item.updated_at,
                ],
            )
            .await
            .unwrap()
            .get(0);
        if let Some(v) = vector {
            client
                .execute(
                    &format!(
                        "INSERT INTO {s}.item_chunks
                             (item_key, chunk, start_byte, end_byte, text_hash, embedding)
                         VALUES ($1, 0, 0, $2, 0, $3)"
                    ),
                    &[&key, &(item.body.len() as i32), &Vector::from(v)],
                )
                .await
                .unwrap();
        }
    }
    client
        .batch_execute(&format!(
            "INSERT INTO {s}.grips (grip_id, grip) VALUES ('g1', '{{}}');
             INSERT INTO {s}.conversations (id, record, updated_at)
                 VALUES ('chat', '{{}}', '2026-03-01T00:00:00Z');"
        ))
        .await
        .unwrap();

    let migrated = service(old.clone()).await;
    assert_eq!(versions(&client, &s).await, [1, 2, 3, 4, 5]);
    for table in ["items", "item_chunks", "grips", "conversations"] {
        let owners: Vec<String> = client
            .query(&format!("SELECT DISTINCT owner FROM {s}.{table}"), &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(owners, [crate::pg::DEFAULT_OWNER], "{table}");
    }
    assert_eq!(
        keys(&client, &s, "items").await,
        ["PRIMARY KEY (owner, id)", "UNIQUE (owner, key)"]
    );
    assert_eq!(
        keys(&client, &s, "item_chunks").await,
        [
            format!(
                "FOREIGN KEY (owner, item_key) REFERENCES {s}.items(owner, key) ON DELETE CASCADE"
            ),
            "PRIMARY KEY (owner, item_key, chunk)".to_string()
        ]
    );
    for (table, pk) in [
        ("toc_nodes", "node_id"),
        ("grips", "grip_id"),
        ("conversations", "id"),
    ] {
        assert_eq!(
            keys(&client, &s, table).await,
            [format!("PRIMARY KEY (owner, {pk})")]
        );
    }
    let store = migrated.store();
    assert_eq!(store.count_chunks().await.unwrap(), 2);
    assert_eq!(
        store
            .stored_vectors("a")
            .await
            .unwrap()
            .unwrap()
            .chunks
            .len(),
        1
    );

    // The same answers as the same items written at the latest version.
    let fresh = fresh_with_items(&url, "v4").await;
    same_answers(&fresh, &migrated).await;

    // Applying migrations 4 and 5 again (their records lost) changes nothing, with a second
    // owner's rows in the schema. The keyword statistics count every owner's rows: the fresh
    // schema gets the same second owner, and both tables are analysed.
    let other = service(old.clone().owner("other")).await;
    let fresh_other = service(fresh.store().config().clone().owner("other")).await;
    for svc in [&other, &fresh_other] {
        let (a, _) = items().remove(0);
        svc.upsert_with_vectors(&[a], &[vec![0.0, 1.0, 0.0]])
            .await
            .unwrap();
    }
    client
        .batch_execute(&format!(
            "DELETE FROM {s}.schema_migrations WHERE version IN (4, 5)"
        ))
        .await
        .unwrap();
    let again = service(old.clone()).await;
    assert_eq!(versions(&client, &s).await, [1, 2, 3, 4, 5]);
    let fresh_schema = &fresh.store().config().schema;
    client
        .batch_execute(&format!("ANALYZE {s}.items; ANALYZE {fresh_schema}.items;"))
        .await
        .unwrap();
    same_answers(&fresh, &again).await;
    assert_eq!(other.store().count_chunks().await.unwrap(), 1);
    assert_eq!(again.store().count_chunks().await.unwrap(), 2);
    store.drop_schema().await.unwrap();
    fresh.store().drop_schema().await.unwrap();
}

#[tokio::test]
async fn an_up_to_date_schema_opens_on_a_read_only_server() {
    let Some(url) = url() else {
        return;
    };
    let config = config(&url, "ro");
    let primary = service(config.clone()).await;
    let (items, vectors): (Vec<Item>, Vec<Option<Vec<f32>>>) = items().into_iter().unzip();
    let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
    primary
        .upsert_with_vectors(&items[..2], &vectors)
        .await
        .unwrap();

    // What a streaming replica allows: reads only.
    let sep = if url.contains('?') { '&' } else { '?' };
    let replica_url = format!("{url}{sep}options=-c%20default_transaction_read_only%3Don");
    let mut replica_config = config.clone();
    replica_config.url = replica_url;
    let replica = service(replica_config).await;
    same_answers(&primary, &replica).await;
    let err = replica
        .upsert_with_vectors(&items[2..], &[vec![0.0, 0.0, 1.0]])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Postgres { code: Some(c), .. } if c == "25006"),
        "{err:?}"
    );

    // A schema that is not up to date is an error there, not a silent half-migration.
    let mut missing = replica.store().config().clone();
    missing.schema = schema("ro_missing");
    let err = PgStore::connect(missing).await.unwrap_err();
    assert!(matches!(&err, Error::Postgres { .. }), "{err:?}");
    primary.store().drop_schema().await.unwrap();
}

/// Every connection opens with the configured HNSW beam and relaxed-order iterative scans, so
/// a walk with that beam is one statement; a wider beam is set for its own transaction only,
/// and the connection keeps the default afterwards.
#[tokio::test]
async fn connections_carry_the_default_beam_and_a_wider_one_stays_local() {
    let Some(url) = url() else {
        return;
    };
    let mut config = config(&url, "beam").max_connections(1);
    config.ef_search = 120;
    let svc = service(config).await;
    let items: Vec<Item> = items().into_iter().map(|(item, _)| item).collect();
    svc.upsert(&items).await.unwrap();
    let setting = |name: &'static str| {
        let store = svc.store();
        async move {
            let rows = store
                .query("show setting", &format!("SHOW {name}"), &[])
                .await
                .unwrap();
            rows[0].get::<_, String>(0)
        }
    };
    assert_eq!(setting("hnsw.ef_search").await, "120");
    assert_eq!(setting("hnsw.iterative_scan").await, "relaxed_order");

    let query = Vector::from(vec![0.0, 0.0, 1.0]);
    let all = crate::filter::Filter::everything();
    let filter = crate::pg::sql_filter::SqlFilter::new(&all, svc.store().owner());
    for ef in [120, 500] {
        let mut client = svc.store().client().await.unwrap();
        let walked =
            crate::pg::vectors::walk(&mut client, &query, &filter, 10, ef, svc.store().config())
                .await
                .unwrap();
        assert_eq!(walked.len(), items.len(), "beam {ef}");
        drop(client);
        assert_eq!(
            setting("hnsw.ef_search").await,
            "120",
            "after a walk with beam {ef}"
        );
    }
    svc.store().drop_schema().await.unwrap();
}

/// Items written at version 4 (the server's own `english` words: accents kept, a CJK run one
/// word; parents and tags as written) are found as the embedded engine finds them once
/// migrated: accents folded, a word inside a CJK sentence, a decomposed folder and tag by what
/// a person types. Applying migration 5 again (its record lost) gives the same answers.
#[tokio::test]
async fn a_version_4_database_gets_the_engines_words_parents_and_tags() {
    use navigator_core::SearchService;
    use unicode_normalization::UnicodeNormalization;
    let Some(url) = url() else {
        return;
    };
    let (old, client) = schema_at(&url, "v4fold", 4).await;
    let s = old.schema.clone();
    let nfd = |t: &str| -> String { t.nfd().collect() };
    let rows = [
        (
            "menu",
            "Menü",
            nfd("Crème brûlée in Málaga"),
            Some(nfd("1 Projects/Café/")),
            vec![nfd("Café")],
        ),
        (
            "trip",
            "旅行",
            "新幹線で京都へ行く".to_string(),
            None,
            vec![],
        ),
        (
            "plain",
            "Groceries",
            "Milk and bread.".to_string(),
            None,
            vec!["#Home".to_string()],
        ),
    ];
    for (id, title, body, parent, tags) in &rows {
        client
            .execute(
                &format!(
                    "INSERT INTO {s}.items (owner, id, item_type, category, title, body,
                         parent_id, tags, tags_text, created_at, updated_at, metadata)
                     VALUES ('default', $1, 'resource', 'resource', $2, $3, $4, $5, $6,
                             '2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z', '{{}}')"
                ),
                &[id, title, body, parent, tags, &tags.join(" ")],
            )
            .await
            .unwrap();
    }
    let by_parent = || navigator_core::SearchFilters {
        parent_id: Some("1 Projects/Café/".into()),
        ..Default::default()
    };
    let by_tag = |tag: &str| navigator_core::SearchFilters {
        tags: Some(navigator_core::TagFilter::any([tag])),
        ..Default::default()
    };
    async fn found(
        svc: &PgSearchService,
        query: &str,
        filters: navigator_core::SearchFilters,
    ) -> Vec<String> {
        let request = SearchRequest::new(query)
            .unwrap()
            .mode(SearchMode::Keyword)
            .filters(filters);
        let page = svc.search(&request).await.unwrap();
        page.results.into_iter().map(|r| r.item_id).collect()
    }
    let check = |svc: PgSearchService| async move {
        let none = navigator_core::SearchFilters::default;
        assert_eq!(found(&svc, "malaga creme", none()).await, ["menu"]);
        assert_eq!(found(&svc, "Málaga", none()).await, ["menu"]);
        assert_eq!(found(&svc, "京都", none()).await, ["trip"]);
        assert_eq!(found(&svc, "brûlée", by_parent()).await, ["menu"]);
        assert_eq!(found(&svc, "brulee", by_tag("café")).await, ["menu"]);
        assert_eq!(found(&svc, "milk", by_tag("home")).await, ["plain"]);
        svc
    };
    let migrated = check(service(old.clone()).await).await;
    assert_eq!(versions(&client, &s).await, [1, 2, 3, 4, 5]);

    client
        .batch_execute(&format!(
            "DELETE FROM {s}.schema_migrations WHERE version = 5"
        ))
        .await
        .unwrap();
    check(service(old.clone()).await).await;
    assert_eq!(versions(&client, &s).await, [1, 2, 3, 4, 5]);
    migrated.store().drop_schema().await.unwrap();
}
