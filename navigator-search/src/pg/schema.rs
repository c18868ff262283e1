//! Schema migrations, versioned in code and applied in order, each once, under an advisory lock
//! so that processes starting together do not race.

use super::{pg_err, PgConfig};
use crate::{Error, Result};

/// One schema change. `{dims}` in its SQL stands for [`PgConfig::dimensions`]; the SQL runs
/// with the knowledge base's schema first on the search path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// Applied in ascending order; recorded in the schema's `schema_migrations` table.
    pub version: i32,
    /// What it does.
    pub description: &'static str,
    sql: &'static str,
}

/// Every migration, oldest first. Never edit a released one: add the next version.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "items (generated tsvector + GIN, vector(N) + HNSW cosine), TOC nodes, grips",
        sql: r#"
CREATE TABLE items (
    key          bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id           text PRIMARY KEY,
    item_type    text NOT NULL,
    category     text NOT NULL,
    title        text NOT NULL,
    body         text NOT NULL,
    parent_id    text,
    status       text,
    tags         text[] NOT NULL,
    tags_text    text NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    archived_at  timestamptz,
    access_count bigint NOT NULL DEFAULT 0,
    metadata     jsonb NOT NULL,
    embedding    vector({dims}),
    tsv          tsvector GENERATED ALWAYS AS (
                     setweight(to_tsvector('english'::regconfig, title), 'A')
                  || setweight(to_tsvector('english'::regconfig, tags_text), 'B')
                  || setweight(to_tsvector('english'::regconfig, body), 'C')) STORED
);
-- Keep embeddings in the row: out of line (pgvector's default when a row grows past 2 kB),
-- every kNN candidate would cost a TOAST lookup to compute its distance.
ALTER TABLE items ALTER COLUMN embedding SET STORAGE MAIN;
CREATE INDEX items_tsv ON items USING gin (tsv);
CREATE INDEX items_embedding ON items USING hnsw (embedding vector_cosine_ops);
CREATE INDEX items_category_updated ON items (category, updated_at);
CREATE INDEX items_updated ON items (updated_at);
CREATE INDEX items_parent ON items (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX items_status ON items (status) WHERE status IS NOT NULL;
CREATE TABLE toc_nodes (
    node_id    text PRIMARY KEY,
    level      text NOT NULL,
    start_time timestamptz NOT NULL,
    version    bigint NOT NULL,
    node       jsonb NOT NULL
);
CREATE INDEX toc_nodes_level ON toc_nodes (level, start_time);
CREATE TABLE grips (
    grip_id text PRIMARY KEY,
    grip    jsonb NOT NULL
);
"#,
    },
    Migration {
        version: 2,
        description: "conversations (ConversationStore records as jsonb, listed newest first)",
        sql: r#"
CREATE TABLE conversations (
    id         text PRIMARY KEY,
    record     jsonb NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX conversations_updated ON conversations (updated_at DESC, id COLLATE "C");
"#,
    },
    Migration {
        version: 3,
        description: "item_chunks: one vector per chunk of an item (HNSW cosine); \
                      items.embedding copied into chunk 0 of each item, then dropped",
        sql: r#"
-- Copying every vector and building the graph of a large table takes longer than a query's
-- limit; the migration runs alone in its transaction. Every step is conditional, so applying
-- it again to a schema that has it (its record lost) changes nothing.
SET LOCAL statement_timeout = 0;
CREATE TABLE IF NOT EXISTS item_chunks (
    item_key   bigint NOT NULL REFERENCES items (key) ON DELETE CASCADE,
    chunk      integer NOT NULL,
    start_byte integer NOT NULL,
    end_byte   integer NOT NULL,
    text_hash  bigint NOT NULL,
    embedding  vector({dims}) NOT NULL,
    PRIMARY KEY (item_key, chunk)
);
-- In the row, as items.embedding was: a kNN candidate must not cost a TOAST lookup.
ALTER TABLE item_chunks ALTER COLUMN embedding SET STORAGE MAIN;
-- An existing knowledge base keeps working: each item's one vector stands for its whole
-- body (text hash 0: unknown, so the next upsert of the item embeds it afresh, chunked).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = 'items'
                 AND column_name = 'embedding') THEN
        INSERT INTO item_chunks (item_key, chunk, start_byte, end_byte, text_hash, embedding)
        SELECT key, 0, 0, octet_length(body), 0, embedding FROM items
        WHERE embedding IS NOT NULL;
        DROP INDEX IF EXISTS items_embedding;
        ALTER TABLE items DROP COLUMN embedding;
    END IF;
END $$;
CREATE INDEX IF NOT EXISTS item_chunks_embedding
    ON item_chunks USING hnsw (embedding vector_cosine_ops);
"#,
    },
];

/// The advisory lock every navigator migration takes (one for all schemas: `CREATE
/// EXTENSION` is database-wide).
const MIGRATION_LOCK: i64 = 0x6e61_7669_6761_746f; // "navigato"

/// Creates the extension, the schema and every missing table; checks the stored dimensions.
pub(crate) async fn migrate(client: &mut tokio_postgres::Client, config: &PgConfig) -> Result<()> {
    migrate_to(client, config, i32::MAX).await
}

/// [`migrate`], applying only the migrations up to `version` (tests build an older schema).
async fn migrate_to(
    client: &mut tokio_postgres::Client,
    config: &PgConfig,
    version: i32,
) -> Result<()> {
    let err = pg_err("migrate");
    let tx = client.transaction().await.map_err(&err)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(&err)?;
    let has_vector = tx
        .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])
        .await
        .map_err(&err)?
        .is_some();
    if !has_vector {
        tx.batch_execute("CREATE EXTENSION IF NOT EXISTS vector")
            .await
            .map_err(pg_err("create extension vector (is pgvector installed?)"))?;
    }
    // The schema name was validated as a plain identifier (PgConfig::validate).
    let s = &config.schema;
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {s};
         SET LOCAL search_path TO {s}, public;
         CREATE TABLE IF NOT EXISTS schema_migrations (
             version     integer PRIMARY KEY,
             description text NOT NULL,
             applied_at  timestamptz NOT NULL DEFAULT now());
         CREATE TABLE IF NOT EXISTS navigator_meta (key text PRIMARY KEY, value text NOT NULL);"
    ))
    .await
    .map_err(&err)?;
    let applied: Vec<i32> = tx
        .query("SELECT version FROM schema_migrations", &[])
        .await
        .map_err(&err)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let pending = MIGRATIONS
        .iter()
        .filter(|m| m.version <= version && !applied.contains(&m.version));
    for m in pending {
        tx.batch_execute(&m.sql.replace("{dims}", &config.dimensions.to_string()))
            .await
            .map_err(&err)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, description) VALUES ($1, $2)",
            &[&m.version, &m.description],
        )
        .await
        .map_err(&err)?;
    }
    tx.execute(
        "INSERT INTO navigator_meta (key, value) VALUES ('dimensions', $1) ON CONFLICT DO NOTHING",
        &[&config.dimensions.to_string()],
    )
    .await
    .map_err(&err)?;
    let stored: String = tx
        .query_one(
            "SELECT value FROM navigator_meta WHERE key = 'dimensions'",
            &[],
        )
        .await
        .map_err(&err)?
        .get(0);
    if stored != config.dimensions.to_string() {
        return Err(Error::Dimensions {
            expected: stored.parse().unwrap_or(0),
            got: config.dimensions,
            model: format!("PgConfig::dimensions (schema `{s}`)"),
        });
    }
    tx.commit().await.map_err(&err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::{PgSearchService, PgStore};
    use crate::{EngineConfig, FixedClock};
    use navigator_core::{Item, ItemType, SearchMode, SearchRequest};
    use pgvector::Vector;
    use std::sync::Arc;

    /// Three-dimensional vectors: what the migrated items were written with, and `[0, 0, 1]`
    /// for anything embedded later.
    struct Fixed;

    #[async_trait::async_trait]
    impl navigator_core::Embedder for Fixed {
        fn model_id(&self) -> &str {
            "fixed"
        }
        fn dimensions(&self) -> usize {
            3
        }
        async fn embed(&self, texts: &[&str]) -> navigator_core::Result<Vec<Vec<f32>>> {
            Ok(vec![vec![0.0, 0.0, 1.0]; texts.len()])
        }
    }

    fn url() -> Option<String> {
        match std::env::var("NAVIGATOR_PG_URL") {
            Ok(u) if !u.is_empty() => Some(u),
            _ if std::env::var_os("CI").is_some() => {
                panic!("NAVIGATOR_PG_URL is not set under CI: run ./scripts/test.sh")
            }
            _ => None,
        }
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
            eprintln!("skipping: NAVIGATOR_PG_URL is not set");
            return;
        };
        let old = PgConfig::new(&url).schema(schema("v2")).dimensions(3);
        let (mut client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        migrate_to(&mut client, &old, 2).await.unwrap();
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
        let versions: Vec<i32> = client
            .query(
                &format!(
                    "SELECT version FROM {}.schema_migrations ORDER BY 1",
                    old.schema
                ),
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(versions, [1, 2, 3]);
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

        // The same answers as the same items written at version 3.
        let fresh = service(PgConfig::new(&url).schema(schema("v3")).dimensions(3)).await;
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
}
