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
];

/// The advisory lock every navigator migration takes (one for all schemas: `CREATE
/// EXTENSION` is database-wide).
const MIGRATION_LOCK: i64 = 0x6e61_7669_6761_746f; // "navigato"

/// Creates the extension, the schema and every missing table; checks the stored dimensions.
pub(crate) async fn migrate(
    client: &mut deadpool_postgres::ClientWrapper,
    config: &PgConfig,
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
    for m in MIGRATIONS.iter().filter(|m| !applied.contains(&m.version)) {
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
