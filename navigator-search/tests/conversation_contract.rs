//! The `ConversationStore` contract ([`conversation_contract`]) on every store the workspace
//! ships: in memory, redb on disk (and again after reopening the file), and PostgreSQL
//! (started by `scripts/postgres.sh`; skipped by hand without `NAVIGATOR_PG_URL`, required
//! under CI).

#[cfg(feature = "postgres")]
mod pg_common;

use chrono::{DateTime, Utc};
use navigator_core::{
    ConversationRecord, ConversationStore, ErrorKind, MemoryStore, Message, ToolCall, ToolResult,
    Usage,
};
use navigator_search::RedbStore;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

/// A record with every kind of turn: text, a tool call, its result, the answer.
fn record(id: &str, updated: &str) -> ConversationRecord {
    ConversationRecord {
        id: id.into(),
        turns: vec![
            Message::user("Where is the Q4 report?"),
            Message::tool_use(
                "Let me look.",
                vec![ToolCall {
                    id: "call_1".into(),
                    name: "search".into(),
                    arguments: serde_json::json!({"query": "Q4 report", "limit": 3, "tags": ["finance"]}),
                }],
            ),
            Message::tool_results(vec![ToolResult {
                call_id: "call_1".into(),
                content: r#"{"results":[{"itemId":"task_b"}]}"#.into(),
                is_error: false,
            }]),
            Message::assistant("It is task_b, “Draft report”."),
        ],
        digest: vec!["Earlier: the user asked about Q3.".into()],
        updated_at: at(updated),
        usage: Usage {
            input_tokens: 1200,
            output_tokens: 340,
            cache_read_tokens: 800,
            ..Usage::default()
        },
        cost_usd: 0.012_345,
    }
}

fn ids(listed: &[(String, DateTime<Utc>)]) -> Vec<&str> {
    listed.iter().map(|(id, _)| id.as_str()).collect()
}

/// Every rule of the `ConversationStore` trait, on an empty store. Returns the records it
/// leaves stored, newest first.
async fn conversation_contract(store: &dyn ConversationStore) -> Vec<ConversationRecord> {
    assert!(store.list_conversations(10).await.unwrap().is_empty());
    assert_eq!(store.get_conversation("chat-a").await.unwrap(), None);
    assert!(!store.delete_conversation("chat-a").await.unwrap());

    // A record round-trips whole, tool calls and results included.
    let first = record("chat-a", "2026-03-01T10:00:00.123456Z");
    store.put_conversation(&first).await.unwrap();
    assert_eq!(
        store.get_conversation("chat-a").await.unwrap(),
        Some(first.clone())
    );

    // A put replaces the record.
    let mut a = first.clone();
    a.turns.push(Message::user("Thanks; and the budget?"));
    a.turns.push(Message::tool_use(
        "",
        vec![ToolCall {
            id: "call_2".into(),
            name: "get_item".into(),
            arguments: serde_json::json!({"id": "budget"}),
        }],
    ));
    a.turns.push(Message::tool_results(vec![ToolResult {
        call_id: "call_2".into(),
        content: "not found".into(),
        is_error: true,
    }]));
    a.digest.clear();
    a.updated_at = at("2026-03-04T09:00:00Z");
    a.usage.output_tokens += 99;
    a.cost_usd = 0.5;
    store.put_conversation(&a).await.unwrap();
    assert_eq!(
        store.get_conversation("chat-a").await.unwrap(),
        Some(a.clone())
    );

    // Listing: newest first, equal times by id, at most `limit`.
    let b = record("chat-b", "2026-03-02T00:00:00Z");
    let c = record("chat-c", "2026-03-03T00:00:00Z");
    let d = record("chat-d", "2026-03-03T00:00:00Z");
    for r in [&d, &b, &c] {
        store.put_conversation(r).await.unwrap();
    }
    let listed = store.list_conversations(10).await.unwrap();
    assert_eq!(ids(&listed), ["chat-a", "chat-c", "chat-d", "chat-b"]);
    assert_eq!(listed[0].1, a.updated_at);
    assert_eq!(listed[3].1, b.updated_at);
    assert_eq!(
        ids(&store.list_conversations(2).await.unwrap()),
        ["chat-a", "chat-c"]
    );
    assert!(store.list_conversations(0).await.unwrap().is_empty());

    // Invalid records are typed errors naming the field, and write nothing.
    let long = "x".repeat(ConversationRecord::MAX_ID_BYTES + 1);
    for bad_id in ["", "bell\u{7}", "line\nbreak", "nul\0", long.as_str()] {
        let err = store
            .put_conversation(&record(bad_id, "2026-03-05T00:00:00Z"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadRequest, "{bad_id:?}: {err}");
        assert_eq!(err.field(), Some("id"), "{bad_id:?}: {err}");
        for err in [
            store.get_conversation(bad_id).await.unwrap_err(),
            store.delete_conversation(bad_id).await.unwrap_err(),
        ] {
            assert_eq!(err.field(), Some("id"), "{bad_id:?}: {err}");
        }
    }
    assert!(store
        .put_conversation(&record(
            &"x".repeat(ConversationRecord::MAX_ID_BYTES),
            "2026-01-01T00:00:00Z"
        ))
        .await
        .is_ok());
    assert!(store
        .delete_conversation(&"x".repeat(ConversationRecord::MAX_ID_BYTES))
        .await
        .unwrap());
    for cost in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.01] {
        let bad = ConversationRecord {
            cost_usd: cost,
            ..record("chat-a", "2026-03-09T00:00:00Z")
        };
        let err = store.put_conversation(&bad).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadRequest, "{cost}: {err}");
        assert_eq!(err.field(), Some("costUsd"), "{cost}: {err}");
    }
    let mut nul = record("chat-e", "2026-03-09T00:00:00Z");
    nul.turns[2].tool_results[0].content = "bin\0ary".into();
    let err = store.put_conversation(&nul).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadRequest, "{err}");
    assert_eq!(
        err.field(),
        Some("turns[2].tool_results[0].content"),
        "{err}"
    );
    assert_eq!(
        store.get_conversation("chat-a").await.unwrap(),
        Some(a.clone()),
        "a rejected overwrite leaves the record as it was"
    );
    assert_eq!(store.get_conversation("chat-e").await.unwrap(), None);
    assert_eq!(
        ids(&store.list_conversations(10).await.unwrap()),
        ["chat-a", "chat-c", "chat-d", "chat-b"]
    );

    // Delete: whether it existed; gone from get and list.
    assert!(store.delete_conversation("chat-c").await.unwrap());
    assert!(!store.delete_conversation("chat-c").await.unwrap());
    assert_eq!(store.get_conversation("chat-c").await.unwrap(), None);
    assert_eq!(
        ids(&store.list_conversations(10).await.unwrap()),
        ["chat-a", "chat-d", "chat-b"]
    );
    vec![a, d, b]
}

#[tokio::test]
async fn memory_store_keeps_the_conversation_contract() {
    conversation_contract(&MemoryStore::new()).await;
}

#[tokio::test]
async fn redb_store_keeps_the_conversation_contract_and_its_records_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.redb");
    let kept = {
        let store = RedbStore::open(&path).unwrap();
        conversation_contract(&store).await
    };
    let store = RedbStore::open(&path).unwrap();
    for r in &kept {
        assert_eq!(
            store.get_conversation(&r.id).await.unwrap().as_ref(),
            Some(r)
        );
    }
    let listed = store.list_conversations(10).await.unwrap();
    let expected: Vec<(String, DateTime<Utc>)> =
        kept.iter().map(|r| (r.id.clone(), r.updated_at)).collect();
    assert_eq!(listed, expected);
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_store_keeps_the_conversation_contract() {
    let Some(store) = pg_common::store("conversations", 4).await else {
        return;
    };
    let kept = conversation_contract(&store).await;
    // A second pool on the schema (another process) reads what the first wrote.
    let other = navigator_search::pg::PgStore::connect(store.config().clone())
        .await
        .unwrap();
    for r in &kept {
        assert_eq!(
            other.get_conversation(&r.id).await.unwrap().as_ref(),
            Some(r)
        );
    }
    store.drop_schema().await.unwrap();
}

/// A schema migrated before the `conversations` table existed (version 1 only) gains it on
/// the next connect, and its items are untouched.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_schema_from_before_conversations_is_upgraded() {
    use navigator_core::{Item, ItemStore, ItemType};
    let Some(url) = pg_common::url() else {
        return;
    };
    let config = pg_common::config(&url, "conv_upgrade", 4);
    let store = navigator_search::pg::PgStore::connect(config.clone())
        .await
        .unwrap();
    let item = Item::new(
        "task_1",
        ItemType::Task,
        "Draft",
        at("2026-01-01T00:00:00Z"),
    )
    .unwrap();
    store.put_item(&item).await.unwrap();
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let s = &config.schema;
    client
        .batch_execute(&format!(
            "DROP TABLE {s}.conversations; DELETE FROM {s}.schema_migrations WHERE version >= 2"
        ))
        .await
        .unwrap();
    drop(store);

    let store = navigator_search::pg::PgStore::connect(config.clone())
        .await
        .unwrap();
    let r = record("chat-a", "2026-03-01T10:00:00Z");
    store.put_conversation(&r).await.unwrap();
    assert_eq!(store.get_conversation("chat-a").await.unwrap(), Some(r));
    assert_eq!(store.get_item("task_1").await.unwrap(), Some(item));
    let versions: Vec<i32> = client
        .query(
            &format!("SELECT version FROM {s}.schema_migrations ORDER BY version"),
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    let expected: Vec<i32> = navigator_search::pg::MIGRATIONS
        .iter()
        .map(|m| m.version)
        .collect();
    assert_eq!(versions, expected);
    store.drop_schema().await.unwrap();
}
