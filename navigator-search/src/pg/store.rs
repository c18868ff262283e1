//! [`PgStore`]: the [`Store`] on PostgreSQL. A pool of connections, statements prepared once
//! per connection, one transaction per multi-row write, timeouts on connect, on waiting for a
//! connection and on every statement.

use super::rows::{item_from_row, ITEM_COLUMNS};
use super::{pg_err, pool_err, schema, PgConfig};
use crate::{Error, Result};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use navigator_core::store::{AccessCounts, ItemStore, TocStore};
use navigator_core::{Grip, Item, ItemScan, TocLevel, TocNode};
use std::collections::HashMap;
use std::sync::Arc;
use tokio_postgres::NoTls;

/// The HNSW index over chunk vectors: created by migration 3, and again by
/// [`PgStore::build_vector_index`] with the same definition.
const VECTOR_INDEX: &str = "item_chunks_embedding";

type CoreResult<T> = navigator_core::Result<T>;

/// Items, TOC nodes, grips and conversations of one owner ([`PgConfig::owner`]) in one
/// PostgreSQL schema; cheap to clone (the pool is shared). Every statement is scoped to the
/// owner: handles with other owners on the same schema never see these rows.
///
/// Timestamps are kept to the microsecond (PostgreSQL's `timestamptz`); finer parts are cut.
///
/// ```no_run
/// # async fn demo() -> navigator_search::Result<()> {
/// use navigator_core::{Item, ItemStore, ItemType};
/// use navigator_search::pg::{PgConfig, PgStore};
/// let store = PgStore::connect(PgConfig::new("postgres://user:pw@127.0.0.1/kb")).await?;
/// store.put_item(&Item::new("task_1", ItemType::Task, "Draft report", chrono::Utc::now())?).await?;
/// assert!(store.get_item("task_1").await?.is_some());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    config: Arc<PgConfig>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("PgStore")
            .field("schema", &self.config.schema)
            .field("owner", &self.config.owner)
            .field("dimensions", &self.config.dimensions)
            .finish()
    }
}

impl PgStore {
    /// Opens a pool on `config.url` and brings the schema up to date ([`MIGRATIONS`]).
    ///
    /// [`MIGRATIONS`]: super::MIGRATIONS
    pub async fn connect(config: PgConfig) -> Result<Self> {
        config.validate()?;
        let mut pg: tokio_postgres::Config = config.url.parse().map_err(pg_err("parse url"))?;
        let mut options = pg.get_options().unwrap_or_default().to_string();
        // Custom plans always: the optional filters (`$n IS NULL OR …`) would make a generic
        // plan scan everything. The HNSW settings of a walk with the default beam are the
        // session's own, so such a walk is one statement (no transaction for `SET LOCAL`).
        options.push_str(&format!(
            " -c search_path={},public -c statement_timeout={} -c plan_cache_mode=force_custom_plan \
             -c hnsw.ef_search={} -c hnsw.iterative_scan=relaxed_order",
            config.schema,
            config.statement_timeout.as_millis(),
            super::vectors::beam(config.ef_search)
        ));
        pg.options(options.trim())
            .connect_timeout(config.connect_timeout);
        let manager = Manager::from_config(
            pg,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(config.max_connections)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(config.wait_timeout))
            .create_timeout(Some(config.connect_timeout))
            .recycle_timeout(Some(config.connect_timeout))
            .build()
            .map_err(|e| Error::Postgres {
                operation: "create pool",
                code: None,
                message: e.to_string(),
            })?;
        let store = Self {
            pool,
            config: Arc::new(config),
        };
        let mut client = store.client().await?;
        schema::migrate(&mut client, &store.config).await?;
        Ok(store)
    }

    /// The configuration it was opened with.
    pub fn config(&self) -> &PgConfig {
        &self.config
    }

    /// The owner every statement is scoped to.
    pub(crate) fn owner(&self) -> &String {
        &self.config.owner
    }

    /// A pooled connection (waits at most [`PgConfig::wait_timeout`]).
    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Client> {
        self.pool.get().await.map_err(pool_err)
    }

    /// Refreshes the planner statistics of the items and chunk tables (`ANALYZE`); autovacuum does the
    /// same in the background. The keyword search reads which words are common from them, so
    /// run it after a bulk load that is searched right away.
    pub async fn analyze(&self) -> Result<()> {
        let client = self.client().await?;
        client
            .batch_execute("ANALYZE items, item_chunks")
            .await
            .map_err(pg_err("analyze"))
    }

    /// Drops the HNSW index over chunk vectors ahead of a first load of many items: pgvector
    /// builds the index far faster over rows already loaded than row by row as they arrive
    /// (its own advice for initial loads). Until [`build_vector_index`](Self::build_vector_index)
    /// runs, semantic search still answers, exactly, by scanning every chunk (slow past tens
    /// of thousands). The index is the schema's: every owner on it is affected.
    pub async fn drop_vector_index(&self) -> Result<()> {
        let client = self.client().await?;
        client
            .batch_execute(&format!("DROP INDEX IF EXISTS {VECTOR_INDEX}"))
            .await
            .map_err(pg_err("drop the vector index"))
    }

    /// Builds the HNSW index over chunk vectors if it is missing (after
    /// [`drop_vector_index`](Self::drop_vector_index) and a load), with `memory_mb` megabytes
    /// of `maintenance_work_mem` (the build is fastest when the whole graph fits: roughly
    /// 2 GB for a million 384-d chunks) and the server's parallel maintenance workers, with no
    /// statement timeout. Writes to the chunks wait while it runs; searches do not.
    pub async fn build_vector_index(&self, memory_mb: usize) -> Result<()> {
        let err = pg_err("build the vector index");
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(&err)?;
        tx.batch_execute(&format!(
            "SET LOCAL statement_timeout = 0;
             SET LOCAL maintenance_work_mem = '{}MB';
             CREATE INDEX IF NOT EXISTS {VECTOR_INDEX}
                 ON item_chunks USING hnsw (embedding vector_cosine_ops)",
            memory_mb.clamp(64, 1 << 21)
        ))
        .await
        .map_err(&err)?;
        tx.commit().await.map_err(&err)
    }

    /// Whether the HNSW index over chunk vectors exists (see
    /// [`drop_vector_index`](Self::drop_vector_index)).
    pub async fn has_vector_index(&self) -> Result<bool> {
        let rows = self
            .query(
                "check the vector index",
                "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1",
                &[&VECTOR_INDEX],
            )
            .await?;
        Ok(!rows.is_empty())
    }

    /// Drops the schema and everything in it, every owner's rows included. For tests and
    /// tear-down; there is no undo.
    pub async fn drop_schema(&self) -> Result<()> {
        let client = self.client().await?;
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {} CASCADE",
                self.config.schema
            ))
            .await
            .map_err(pg_err("drop schema"))
    }

    pub(super) async fn query(
        &self,
        operation: &'static str,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(sql)
            .await
            .map_err(pg_err(operation))?;
        client.query(&stmt, params).await.map_err(pg_err(operation))
    }

    /// The TOC nodes `sql` selects with the owner as `$1` and `param` as `$2`.
    async fn toc_nodes(
        &self,
        sql: &str,
        param: &(dyn tokio_postgres::types::ToSql + Sync),
    ) -> Result<Vec<TocNode>> {
        self.query("read toc nodes", sql, &[self.owner(), param])
            .await?
            .iter()
            .map(toc_from_row)
            .collect()
    }
}

fn toc_from_row(row: &tokio_postgres::Row) -> Result<TocNode> {
    let id: String = row.get(0);
    let json: serde_json::Value = row.get(1);
    let version: i64 = row.get(2);
    let mut node: TocNode = serde_json::from_value(json).map_err(|e| Error::Corrupt {
        what: "toc node",
        key: id,
        message: e.to_string(),
    })?;
    node.version = version.max(0) as u64;
    Ok(node)
}

/// Errors of the Store trait: contract errors as they are, the rest whole, with their kind
/// (an unreachable server is [`navigator_core::ErrorKind::Unavailable`]).
fn core(e: Error) -> navigator_core::Error {
    e.into()
}

#[async_trait::async_trait]
impl ItemStore for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn put_items(&self, items: &[Item]) -> CoreResult<()> {
        self.put_items_with_vectors(items, None).await.map_err(core)
    }

    async fn get_item(&self, id: &str) -> CoreResult<Option<Item>> {
        let sql = format!("SELECT {ITEM_COLUMNS} FROM items WHERE owner = $1 AND id = $2");
        let rows = self
            .query("get item", &sql, &[self.owner(), &id])
            .await
            .map_err(core)?;
        rows.first()
            .map(|r| item_from_row(r).map(|(_, i)| i))
            .transpose()
            .map_err(core)
    }

    async fn delete_item(&self, id: &str) -> CoreResult<bool> {
        let rows = self
            .query(
                "delete item",
                "DELETE FROM items WHERE owner = $1 AND id = $2 RETURNING 1",
                &[self.owner(), &id],
            )
            .await
            .map_err(core)?;
        Ok(!rows.is_empty())
    }

    async fn scan_items(&self, scan: &ItemScan) -> CoreResult<Vec<Item>> {
        let categories: Option<Vec<&str>> = scan
            .categories
            .as_ref()
            .map(|c| c.iter().map(|c| c.as_str()).collect());
        let limit: Option<i64> = scan.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        // Byte order of ids (COLLATE "C"), whatever the database's collation, as the trait
        // promises.
        let sql = format!(
            "SELECT {ITEM_COLUMNS} FROM items
             WHERE owner = $5
               AND ($1::text[] IS NULL OR category = ANY($1))
               AND ($2::timestamptz IS NULL OR updated_at >= $2)
               AND ($3::text IS NULL OR id COLLATE \"C\" > $3)
             ORDER BY id COLLATE \"C\" LIMIT $4"
        );
        let rows = self
            .query(
                "scan items",
                &sql,
                &[
                    &categories,
                    &scan.updated_since,
                    &scan.after_id,
                    &limit,
                    self.owner(),
                ],
            )
            .await
            .map_err(core)?;
        rows.iter()
            .map(|r| item_from_row(r).map(|(_, i)| i))
            .collect::<Result<_>>()
            .map_err(core)
    }

    async fn count_items(&self) -> CoreResult<u64> {
        let rows = self
            .query(
                "count items",
                "SELECT count(*) FROM items WHERE owner = $1",
                &[self.owner()],
            )
            .await
            .map_err(core)?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0).max(0) as u64))
    }

    async fn get_items(&self, ids: &[&str]) -> CoreResult<Vec<Option<Item>>> {
        let sql = format!("SELECT {ITEM_COLUMNS} FROM items WHERE owner = $1 AND id = ANY($2)");
        let rows = self
            .query("get items", &sql, &[self.owner(), &ids])
            .await
            .map_err(core)?;
        let mut found: HashMap<String, Item> = HashMap::with_capacity(rows.len());
        for row in &rows {
            let (_, item) = item_from_row(row).map_err(core)?;
            found.insert(item.id.clone(), item);
        }
        Ok(ids.iter().map(|id| found.get(*id).cloned()).collect())
    }
}

#[async_trait::async_trait]
impl AccessCounts for PgStore {
    async fn record_access(&self, id: &str) -> CoreResult<u64> {
        let rows = self
            .query(
                "record access",
                "UPDATE items SET access_count = access_count + 1
                 WHERE owner = $1 AND id = $2 RETURNING access_count",
                &[self.owner(), &id],
            )
            .await
            .map_err(core)?;
        let row = rows
            .first()
            .ok_or_else(|| navigator_core::Error::NotFound {
                kind: "item",
                id: id.to_string(),
            })?;
        Ok(row.get::<_, i64>(0).max(0) as u64)
    }
}

#[async_trait::async_trait]
impl TocStore for PgStore {
    async fn get_toc_node(&self, node_id: &str) -> CoreResult<Option<TocNode>> {
        let nodes = self
            .toc_nodes(
                "SELECT node_id, node, version FROM toc_nodes WHERE owner = $1 AND node_id = $2",
                &node_id,
            )
            .await
            .map_err(core)?;
        Ok(nodes.into_iter().next())
    }

    async fn put_toc_node(&self, mut node: TocNode) -> CoreResult<TocNode> {
        let json = serde_json::to_value(&node).map_err(|e| {
            core(Error::Corrupt {
                what: "toc node",
                key: node.node_id.clone(),
                message: e.to_string(),
            })
        })?;
        // One statement: concurrent writers of a node serialise on its row and never reuse
        // a version.
        let rows = self
            .query(
                "put toc node",
                "INSERT INTO toc_nodes (owner, node_id, level, start_time, version, node)
                 VALUES ($5, $1, $2, $3, 1, $4)
                 ON CONFLICT (owner, node_id) DO UPDATE SET level = EXCLUDED.level,
                     start_time = EXCLUDED.start_time, node = EXCLUDED.node,
                     version = toc_nodes.version + 1
                 RETURNING version",
                &[
                    &node.node_id,
                    &node.level.as_str(),
                    &node.start_time,
                    &json,
                    self.owner(),
                ],
            )
            .await
            .map_err(core)?;
        node.version = rows.first().map_or(1, |r| r.get::<_, i64>(0).max(0) as u64);
        Ok(node)
    }

    async fn toc_children(&self, parent_id: &str) -> CoreResult<Vec<TocNode>> {
        let mut children = if parent_id.is_empty() {
            self.toc_nodes(
                "SELECT node_id, node, version FROM toc_nodes WHERE owner = $1 AND level = $2",
                &TocLevel::Year.as_str(),
            )
            .await
            .map_err(core)?
        } else {
            let parent = self.get_toc_node(parent_id).await?.ok_or_else(|| {
                navigator_core::Error::NotFound {
                    kind: "toc node",
                    id: parent_id.to_string(),
                }
            })?;
            self.toc_nodes(
                "SELECT node_id, node, version FROM toc_nodes WHERE owner = $1 AND node_id = ANY($2)",
                &parent.child_node_ids,
            )
            .await
            .map_err(core)?
        };
        children.sort_by(|a, b| (a.start_time, &a.node_id).cmp(&(b.start_time, &b.node_id)));
        Ok(children)
    }

    async fn put_grips(&self, grips: &[Grip]) -> CoreResult<()> {
        let mut ids = Vec::with_capacity(grips.len());
        let mut docs = Vec::with_capacity(grips.len());
        let mut index: HashMap<&str, usize> = HashMap::new();
        for g in grips {
            let doc = serde_json::to_value(g).map_err(|e| {
                core(Error::Corrupt {
                    what: "grip",
                    key: g.grip_id.clone(),
                    message: e.to_string(),
                })
            })?;
            // The last write of an id wins, as for items.
            match index.get(g.grip_id.as_str()) {
                Some(&i) => docs[i] = doc,
                None => {
                    index.insert(&g.grip_id, ids.len());
                    ids.push(g.grip_id.as_str());
                    docs.push(doc);
                }
            }
        }
        self.query(
            "put grips",
            "INSERT INTO grips (owner, grip_id, grip)
             SELECT $3, * FROM unnest($1::text[], $2::jsonb[])
             ON CONFLICT (owner, grip_id) DO UPDATE SET grip = EXCLUDED.grip",
            &[&ids, &docs, self.owner()],
        )
        .await
        .map_err(core)?;
        Ok(())
    }

    async fn get_grip(&self, grip_id: &str) -> CoreResult<Option<Grip>> {
        let rows = self
            .query(
                "get grip",
                "SELECT grip FROM grips WHERE owner = $1 AND grip_id = $2",
                &[self.owner(), &grip_id],
            )
            .await
            .map_err(core)?;
        rows.first()
            .map(|r| {
                serde_json::from_value(r.get(0)).map_err(|e| {
                    core(Error::Corrupt {
                        what: "grip",
                        key: grip_id.to_string(),
                        message: e.to_string(),
                    })
                })
            })
            .transpose()
    }
}
