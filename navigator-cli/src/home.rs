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
        let embedder = self.embedder()?;
        match SearchEngine::open(self.index_dir(), embedder).await {
            Ok(engine) => Ok(engine),
            // The index is one process's: a server on this directory holds it for its life.
            Err(e) => match crate::dir_lock::server_holding(&self.dir) {
                Some(pid) => Err(Failure::new(
                    crate::exit::INDEX,
                    anyhow!(
                        "the index in {} is held by a running `navigator mcp` (process {pid}), \
                         which keeps it open while it serves: ask it through its tools \
                         (search, recent, toc_children, ...), stop it first, or use another \
                         --home / NAVIGATOR_HOME ({e})",
                        self.dir.display()
                    ),
                )),
                None => Err(e.into()),
            },
        }
    }

    /// The index re-embedded with the configured model from the text it stores.
    pub async fn reindexed_engine(&self) -> Result<SearchEngine, Failure> {
        let embedder = self.embedder()?;
        Ok(SearchEngine::reindex(self.index_dir(), embedder, Default::default()).await?)
    }
}

/// A category as typed on the command line (`project`, `Projects`, `AREA`).
pub fn parse_category(s: &str) -> Result<navigator_core::Category, String> {
    let lower = s.trim().to_lowercase();
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
