//! The data directory, and the engine and embedder opened from it.
//!
//! Data directory: `$NAVIGATOR_HOME` when set (a path that is not a usable directory is an
//! error naming it), else the platform's data directory (`directories`:
//! `~/.local/share/navigator`, `~/Library/Application Support/navigator`,
//! `%APPDATA%\navigator\data`). Never the source checkout. Inside it: `index/` (the engine),
//! `last-index.json` (what the last `index` run did), and — when `scripts/setup-embeddings.sh`
//! installed them there — `onnxruntime/` and `models/`.

use crate::exit::{Failure, CONFIG};
use anyhow::anyhow;
use navigator_core::{Embedder, EmbeddingPaths, FastEmbedder, ModelConfig};
use navigator_search::SearchEngine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The resolved data directory.
#[derive(Debug, Clone)]
pub struct Home {
    dir: PathBuf,
}

/// What the last `index` run did, kept for `status`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastIndex {
    /// The folder or file indexed.
    pub source: String,
    /// When the run finished.
    pub finished_at: chrono::DateTime<chrono::Utc>,
    /// How long it took.
    pub duration_ms: u64,
    /// The run's report.
    pub report: serde_json::Value,
    /// Its `--folder` mappings: a server re-indexing the same vault keeps them.
    #[serde(default)]
    pub folders: Vec<(String, navigator_core::Category)>,
    /// Its `--max-file-mib` (absent in records of older versions: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_file_mib: Option<u64>,
}

impl LastIndex {
    /// The ingest options of that run, for re-indexing the same source the same way.
    pub fn ingest_options(&self) -> navigator_search::ingest::IngestOptions {
        ingest_options(&self.folders, self.max_file_mib)
    }
}

/// Ingest options from the command line's `--folder` mappings and `--max-file-mib` (`None`:
/// the default).
pub(crate) fn ingest_options(
    folders: &[(String, navigator_core::Category)],
    max_file_mib: Option<u64>,
) -> navigator_search::ingest::IngestOptions {
    let mut layout = navigator_search::ingest::ParaLayout::default();
    for (name, category) in folders {
        layout = layout.with_folder(name, *category);
    }
    let defaults = navigator_search::ingest::IngestOptions::default();
    navigator_search::ingest::IngestOptions {
        layout,
        max_file_bytes: max_file_mib
            .map_or(defaults.max_file_bytes, |m| m.saturating_mul(1024 * 1024)),
        ..defaults
    }
}

impl Home {
    /// `$NAVIGATOR_HOME`, checked, else the platform's data directory (created).
    pub fn resolve() -> Result<Self, Failure> {
        let env = std::env::var_os(navigator_core::embed::ENV_HOME);
        if let Some(dir) =
            navigator_core::embed::env_home(env).map_err(|e| Failure::new(CONFIG, e))?
        {
            return Ok(Self { dir });
        }
        let dirs = directories::ProjectDirs::from("", "", "navigator").ok_or_else(|| {
            Failure::new(
                CONFIG,
                anyhow!("no home directory to put the data directory in: set NAVIGATOR_HOME"),
            )
        })?;
        let dir = dirs.data_dir().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| {
            Failure::new(
                CONFIG,
                anyhow!("cannot create the data directory {}: {e}", dir.display()),
            )
        })?;
        Ok(Self { dir })
    }

    /// `dir` when given (checked like `$NAVIGATOR_HOME`: an existing, readable folder), else
    /// [`resolve`](Self::resolve).
    pub fn resolve_with(dir: Option<PathBuf>) -> Result<Self, Failure> {
        match dir {
            Some(d) => {
                let dir = navigator_core::embed::env_home(Some(d.into_os_string()))
                    .map_err(|e| Failure::new(CONFIG, e))?
                    .ok_or_else(|| Failure::new(CONFIG, anyhow!("--home: an empty path")))?;
                Ok(Self { dir })
            }
            None => Self::resolve(),
        }
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The engine's directory.
    pub fn index_dir(&self) -> PathBuf {
        self.dir.join("index")
    }

    fn last_index_path(&self) -> PathBuf {
        self.dir.join("last-index.json")
    }

    /// An error (exit code 4) when nothing was indexed yet.
    pub fn require_index(&self) -> Result<(), Failure> {
        if self.index_dir().exists() {
            return Ok(());
        }
        Err(Failure::new(
            crate::exit::INPUT,
            anyhow!(
                "no index in {}: run `navigator index <folder>` first",
                self.dir.display()
            ),
        ))
    }

    /// The record of the last `index` run, if any.
    pub fn last_index(&self) -> Option<LastIndex> {
        let text = std::fs::read_to_string(self.last_index_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Saves the record of an `index` run (written aside, then renamed: never half a file).
    pub fn save_last_index(&self, last: &LastIndex) -> anyhow::Result<()> {
        let path = self.last_index_path();
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(last)?)?;
        std::fs::rename(&tmp, &path)?;
        Ok(())
    }

    /// The default embedder: the runtime and model found by the library's lookup (explicit
    /// environment, `$NAVIGATOR_HOME`, `.navigator/`), else installed in this data directory.
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>, Failure> {
        let paths = match EmbeddingPaths::locate(None, None) {
            Ok(p) => p,
            Err(first) => {
                let ort = self.dir.join("onnxruntime/libonnxruntime.so");
                let model = self.dir.join("models/all-MiniLM-L6-v2-int8");
                if ort.exists() && model.is_dir() {
                    EmbeddingPaths {
                        ort_dylib: ort,
                        model_dir: model,
                    }
                } else {
                    return Err(Failure::new(CONFIG, first));
                }
            }
        };
        let config = ModelConfig {
            ort_dylib: Some(paths.ort_dylib),
            ..ModelConfig::minilm()
        };
        let embedder = FastEmbedder::from_dir(&paths.model_dir, config)
            .map_err(|e| Failure::new(CONFIG, e))?;
        Ok(Arc::new(embedder))
    }

    /// Opens (or creates) the engine in the data directory.
    pub async fn engine(&self) -> Result<SearchEngine, Failure> {
        self.engine_with(self.embedder()?).await
    }

    /// The search engine over this directory's index with an embedder already loaded (a
    /// watcher opens the index once per run, the model once).
    pub async fn engine_with(&self, embedder: Arc<dyn Embedder>) -> Result<SearchEngine, Failure> {
        let dir = self.index_dir();
        self.open_waiting(
            || SearchEngine::open(dir.clone(), Arc::clone(&embedder)),
            WAIT_FOR_INDEX,
        )
        .await
    }

    /// The index re-embedded with the configured model from the text it stores.
    pub async fn reindexed_engine(&self) -> Result<SearchEngine, Failure> {
        let embedder = self.embedder()?;
        let dir = self.index_dir();
        self.open_waiting(
            || SearchEngine::reindex(dir.clone(), Arc::clone(&embedder), Default::default()),
            WAIT_FOR_INDEX,
        )
        .await
    }

    /// Opens the index with `open`, waiting while another process has it open for a while
    /// (an index run, a watcher re-indexing: up to `wait`, saying so once on stderr). A
    /// `navigator mcp` server keeps it open for its life: that is said at once.
    async fn open_waiting<T, F, Fut>(
        &self,
        open: F,
        wait: std::time::Duration,
    ) -> Result<T, Failure>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = navigator_search::Result<T>>,
    {
        let started = std::time::Instant::now();
        let mut said = false;
        loop {
            let e = match open().await {
                Ok(engine) => return Ok(engine),
                Err(e @ navigator_search::Error::InUse { .. }) => e,
                Err(e) => return Err(e.into()),
            };
            // The index is one process's: a server on this directory holds it for its life.
            if let Some(pid) = crate::dir_lock::server_holding(&self.dir) {
                return Err(Failure::new(
                    crate::exit::BUSY,
                    anyhow!(
                        "the index in {} is held by a running `navigator mcp` (process {pid}), \
                         which keeps it open while it serves and re-indexes its vault when \
                         notes change: ask it through its tools (search, recent, \
                         toc_children, ...), stop it first, or use another --home / \
                         NAVIGATOR_HOME ({e})",
                        self.dir.display()
                    ),
                ));
            }
            if started.elapsed() >= wait {
                return Err(Failure::new(
                    crate::exit::BUSY,
                    anyhow!(
                        "the index in {} stayed open in another navigator process for {} s \
                         (an index run, or a watcher re-indexing): try again when it is done \
                         ({e})",
                        self.dir.display(),
                        wait.as_secs()
                    ),
                ));
            }
            if !said {
                eprintln!(
                    "the index in {} is open in another navigator process (an index run, or a \
                     watcher re-indexing): waiting for it to finish (up to {} s)...",
                    self.dir.display(),
                    wait.as_secs()
                );
                said = true;
            }
            tokio::time::sleep(POLL_INDEX).await;
        }
    }
}

/// How long a command waits for another process to close the index.
const WAIT_FOR_INDEX: std::time::Duration = std::time::Duration::from_secs(120);
/// How often it tries again meanwhile.
const POLL_INDEX: std::time::Duration = std::time::Duration::from_millis(200);

/// A category as typed on the command line (`project`, `Projects`, `AREA`).
pub fn parse_category(s: &str) -> Result<navigator_core::Category, String> {
    let lower = s.trim().to_lowercase();
    // `archived`, as the items are called, names the archive too.
    let lower = if lower == "archived" {
        "archive".to_string()
    } else {
        lower
    };
    navigator_core::Category::parse(lower.trim_end_matches('s'))
        .ok_or_else(|| format!("`{s}` is not a category (project, area, resource, archive)"))
}

/// A multi-threaded runtime for one command (embedding runs on its blocking threads).
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            Failure::new(
                crate::exit::INDEX,
                anyhow!("starting the async runtime: {e}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_search::RedbStore;
    use std::time::Duration;

    fn home() -> (tempfile::TempDir, Home, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::resolve_with(Some(dir.path().to_path_buf())).unwrap();
        std::fs::create_dir_all(home.index_dir()).unwrap();
        let store = home.index_dir().join("store.redb");
        (dir, home, store)
    }

    #[test]
    fn an_index_held_by_another_opener_is_waited_for_then_opened() {
        let (_dir, home, path) = home();
        let held = RedbStore::open(&path).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let rt = runtime().unwrap();
        // The wait is a hang guard: the holder lets go long before it.
        let opened = rt.block_on(
            home.open_waiting(|| async { RedbStore::open(&path) }, Duration::from_secs(60)),
        );
        assert!(opened.is_ok(), "{:?}", opened.err().map(|f| f.error));
        release.join().unwrap();
    }

    #[test]
    fn categories_are_read_as_people_write_them() {
        use navigator_core::Category;
        for (typed, category) in [
            ("project", Category::Project),
            ("Projects", Category::Project),
            ("AREA", Category::Area),
            ("archive", Category::Archive),
            ("archived", Category::Archive),
            ("Archives", Category::Archive),
        ] {
            assert_eq!(parse_category(typed), Ok(category), "{typed}");
        }
        assert!(parse_category("nowhere")
            .unwrap_err()
            .contains("not a category"));
    }

    #[test]
    fn an_index_held_past_the_wait_is_a_busy_failure_naming_the_directory() {
        let (_dir, home, path) = home();
        let _held = RedbStore::open(&path).unwrap();
        let rt = runtime().unwrap();
        let Err(failed) =
            rt.block_on(home.open_waiting(|| async { RedbStore::open(&path) }, Duration::ZERO))
        else {
            panic!("opened while still held");
        };
        assert_eq!(failed.code, crate::exit::BUSY);
        let message = format!("{:#}", failed.error);
        assert!(
            message.contains("stayed open in another navigator process"),
            "{message}"
        );
        assert!(
            message.contains(&home.dir().display().to_string()),
            "{message}"
        );
    }
}
