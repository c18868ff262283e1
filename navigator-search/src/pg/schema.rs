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
    /// Whether every item's searchable forms are computed again after `sql` (in the same
    /// transaction; see [`refold`]).
    refold: bool,
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
        refold: false,
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
        refold: false,
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
        refold: false,
    },
    Migration {
        version: 4,
        description: "owner on every table, leading every primary key, unique key, foreign key \
                      and per-owner index (a distribution key); existing rows owned by 'default'",
        sql: r#"
-- Adding the column rewrites no rows (existing ones read the default from the catalog), but
-- the new keys are built over every row and the chunks' reference is checked against them:
-- no statement limit. Every step is conditional, so applying it again to a schema that has
-- it (its record lost) changes nothing.
SET LOCAL statement_timeout = 0;
ALTER TABLE items         ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT 'default';
ALTER TABLE item_chunks   ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT 'default';
ALTER TABLE toc_nodes     ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT 'default';
ALTER TABLE grips         ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT 'default';
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS owner text NOT NULL DEFAULT 'default';
-- New rows name their owner: a statement that forgets it fails instead of writing into the
-- 'default' knowledge base.
ALTER TABLE items         ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE item_chunks   ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE toc_nodes     ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE grips         ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE conversations ALTER COLUMN owner DROP DEFAULT;
-- The chunks' reference to items (key) needs that key: it goes first.
ALTER TABLE item_chunks DROP CONSTRAINT IF EXISTS item_chunks_item_key_fkey;
ALTER TABLE items DROP CONSTRAINT IF EXISTS items_key_key;
DO $$
DECLARE
    t record;
    pk record;
BEGIN
    FOR t IN SELECT * FROM (VALUES ('items', 'owner, id'),
                                   ('item_chunks', 'owner, item_key, chunk'),
                                   ('toc_nodes', 'owner, node_id'),
                                   ('grips', 'owner, grip_id'),
                                   ('conversations', 'owner, id')) AS v(name, columns)
    LOOP
        SELECT conname, pg_get_constraintdef(oid) AS def INTO pk FROM pg_constraint
        WHERE conrelid = t.name::regclass AND contype = 'p';
        IF pk.def IS DISTINCT FROM format('PRIMARY KEY (%s)', t.columns) THEN
            IF pk.conname IS NOT NULL THEN
                EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t.name, pk.conname);
            END IF;
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (%s)',
                           t.name, t.name || '_pkey', t.columns);
        END IF;
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint
                   WHERE conrelid = 'items'::regclass AND conname = 'items_owner_key') THEN
        ALTER TABLE items ADD CONSTRAINT items_owner_key UNIQUE (owner, key);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_constraint
                   WHERE conrelid = 'item_chunks'::regclass AND conname = 'item_chunks_item_fkey')
    THEN
        ALTER TABLE item_chunks ADD CONSTRAINT item_chunks_item_fkey
            FOREIGN KEY (owner, item_key) REFERENCES items (owner, key) ON DELETE CASCADE;
    END IF;
END $$;
-- Indexes that serve one owner's queries lead with it. The GIN and HNSW indexes stay whole:
-- on a distributed PostgreSQL each shard has its own.
DROP INDEX IF EXISTS items_category_updated;
DROP INDEX IF EXISTS items_updated;
DROP INDEX IF EXISTS items_parent;
DROP INDEX IF EXISTS items_status;
DROP INDEX IF EXISTS toc_nodes_level;
DROP INDEX IF EXISTS conversations_updated;
CREATE INDEX IF NOT EXISTS items_owner_category_updated ON items (owner, category, updated_at);
CREATE INDEX IF NOT EXISTS items_owner_updated ON items (owner, updated_at);
CREATE INDEX IF NOT EXISTS items_owner_parent ON items (owner, parent_id)
    WHERE parent_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS items_owner_status ON items (owner, status) WHERE status IS NOT NULL;
CREATE INDEX IF NOT EXISTS toc_nodes_owner_level ON toc_nodes (owner, level, start_time);
CREATE INDEX IF NOT EXISTS conversations_owner_updated
    ON conversations (owner, updated_at DESC, id COLLATE "C");
"#,
        refold: false,
    },
    Migration {
        version: 5,
        description: "searchable forms written by the library: tsvector of the folded words \
                      (accents, CJK pairs), parent_key (NFC), tag_keys (normalised tags)",
        sql: r#"
-- Every row is read and written again (the library computes the new forms): no statement
-- limit. Every step is conditional, so applying it again to a schema that has it (its record
-- lost) changes nothing but the forms, which come out the same.
SET LOCAL statement_timeout = 0;
ALTER TABLE items ALTER COLUMN tsv DROP EXPRESSION IF EXISTS;
ALTER TABLE items ADD COLUMN IF NOT EXISTS parent_key text;
ALTER TABLE items ADD COLUMN IF NOT EXISTS tag_keys text[];
DROP INDEX IF EXISTS items_owner_parent;
CREATE INDEX IF NOT EXISTS items_owner_parent_key ON items (owner, parent_key)
    WHERE parent_key IS NOT NULL;
"#,
        refold: true,
    },
];

/// The advisory lock every navigator migration takes (one for all schemas: `CREATE
/// EXTENSION` is database-wide).
const MIGRATION_LOCK: i64 = 0x6e61_7669_6761_746f; // "navigato"

/// Creates the extension, the schema and every missing table; checks the stored dimensions.
/// A schema that is already up to date is only read (no lock, no write), so a handle can
/// open on a read-only server such as a streaming replica.
pub(crate) async fn migrate(client: &mut tokio_postgres::Client, config: &PgConfig) -> Result<()> {
    if is_current(client, config).await? {
        return Ok(());
    }
    migrate_to(client, config, i32::MAX).await
}

/// Whether the schema has the extension, every migration and a dimensions record; an error
/// when that record differs from `config`'s.
async fn is_current(client: &tokio_postgres::Client, config: &PgConfig) -> Result<bool> {
    let err = pg_err("migrate: read schema version");
    let s = &config.schema;
    let ready = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')
                    AND to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL",
            &[
                &format!("{s}.schema_migrations"),
                &format!("{s}.navigator_meta"),
            ],
        )
        .await
        .map_err(&err)?
        .get::<_, bool>(0);
    if !ready {
        return Ok(false);
    }
    let row = client
        .query_one(
            &format!(
                "SELECT ARRAY(SELECT version FROM {s}.schema_migrations),
                        (SELECT value FROM {s}.navigator_meta WHERE key = 'dimensions')"
            ),
            &[],
        )
        .await
        .map_err(&err)?;
    let applied: Vec<i32> = row.get(0);
    let stored: Option<String> = row.get(1);
    let Some(stored) = stored else {
        return Ok(false);
    };
    if MIGRATIONS.iter().any(|m| !applied.contains(&m.version)) {
        return Ok(false);
    }
    check_dimensions(&stored, config)?;
    Ok(true)
}

/// The dimensions recorded in the schema must be `config`'s.
fn check_dimensions(stored: &str, config: &PgConfig) -> Result<()> {
    if stored == config.dimensions.to_string() {
        return Ok(());
    }
    Err(Error::Dimensions {
        expected: stored.parse().unwrap_or(0),
        got: config.dimensions,
        model: format!("PgConfig::dimensions (schema `{}`)", config.schema),
    })
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
        if m.refold {
            refold(&tx).await?;
        }
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
    check_dimensions(&stored, config)?;
    tx.commit().await.map_err(&err)
}

/// Rows read and written per statement by [`refold`].
const REFOLD_BATCH: i64 = 1_000;

/// Computes every item's searchable forms again ([`Searchable`]: the `tsvector` of its folded
/// words, its composed parent, its normalised tags), every owner's, in batches by key; then
/// requires them of every row written after.
///
/// [`Searchable`]: super::rows::Searchable
async fn refold(tx: &tokio_postgres::Transaction<'_>) -> Result<()> {
    let err = pg_err("migrate: compute searchable forms");
    let read = tx
        .prepare(
            "SELECT owner, key, title, tags, body, parent_id FROM items
             WHERE (owner, key) > ($1, $2) ORDER BY owner, key LIMIT $3",
        )
        .await
        .map_err(&err)?;
    let write = tx
        .prepare(concat!(
            "UPDATE items SET tsv = ",
            super::rows::tsv_of_u!(),
            ",
                 parent_key = u.parent_key,
                 tag_keys = ARRAY(SELECT jsonb_array_elements_text(u.tag_keys))
             FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[],
                         $6::text[], $7::jsonb[])
                  AS u(owner, key, title_words, tag_words, body_words, parent_key, tag_keys)
             WHERE items.owner = u.owner AND items.key = u.key"
        ))
        .await
        .map_err(&err)?;
    let mut after = (String::new(), i64::MIN);
    loop {
        let rows = tx
            .query(&read, &[&after.0, &after.1, &REFOLD_BATCH])
            .await
            .map_err(&err)?;
        let Some(last) = rows.last() else {
            break;
        };
        after = (last.get(0), last.get(1));
        let owners: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        let keys: Vec<i64> = rows.iter().map(|r| r.get(1)).collect();
        let columns = super::rows::Searchable::columns(rows.iter().map(|row| {
            let (title, tags, body): (String, Vec<String>, String) =
                (row.get(2), row.get(3), row.get(4));
            let parent: Option<String> = row.get(5);
            super::rows::Searchable::of(&title, &tags, &body, parent.as_deref())
        }));
        tx.execute(
            &write,
            &[
                &owners,
                &keys,
                &columns.title,
                &columns.tags,
                &columns.body,
                &columns.parent,
                &columns.tag_keys,
            ],
        )
        .await
        .map_err(&err)?;
    }
    tx.batch_execute(
        "ALTER TABLE items ALTER COLUMN tsv SET NOT NULL, ALTER COLUMN tag_keys SET NOT NULL",
    )
    .await
    .map_err(&err)
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
