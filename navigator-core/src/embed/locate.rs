//! [`EmbeddingPaths`]: where the ONNX Runtime library and the model are found on disk.
//!
//! Lookup order, first hit wins, for each of the two paths:
//! 1. explicit configuration (arguments, [`ModelConfig::ort_dylib`](super::ModelConfig));
//! 2. the environment: `NAVIGATOR_ORT_DYLIB` (then ONNX Runtime's own `ORT_DYLIB_PATH`) and
//!    `NAVIGATOR_MODEL_DIR`;
//! 3. a navigator home: `$NAVIGATOR_HOME`, else the first `.navigator` directory in the current
//!    directory or one of its ancestors, else the `.navigator` directory of the source checkout
//!    this crate was built from — which is where `scripts/setup-embeddings.sh` installs.

use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// Environment variable naming the ONNX Runtime shared library.
pub const ENV_ORT_DYLIB: &str = "NAVIGATOR_ORT_DYLIB";
/// Environment variable naming the model directory.
pub const ENV_MODEL_DIR: &str = "NAVIGATOR_MODEL_DIR";
/// Environment variable naming the navigator home (`onnxruntime/`, `models/` inside).
pub const ENV_HOME: &str = "NAVIGATOR_HOME";

const ORT_FILE: &str = "onnxruntime/libonnxruntime.so";
const DEFAULT_MODEL: &str = "models/all-MiniLM-L6-v2-int8";
const SETUP_FIX: &str = "run `bash scripts/setup-embeddings.sh` in the navigator checkout, or set NAVIGATOR_ORT_DYLIB / NAVIGATOR_MODEL_DIR";

/// The two files an embedder needs, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingPaths {
    /// The ONNX Runtime shared library (>= 1.24).
    pub ort_dylib: PathBuf,
    /// The model directory.
    pub model_dir: PathBuf,
}

impl EmbeddingPaths {
    /// Locates both paths (explicit values first, see the module docs), checking that they
    /// exist; the error names every place that was tried and how to fix it.
    pub fn locate(ort_dylib: Option<&Path>, model_dir: Option<&Path>) -> Result<Self> {
        Ok(Self {
            ort_dylib: locate_ort_dylib(ort_dylib)?,
            model_dir: locate_model_dir(model_dir)?,
        })
    }

    /// The navigator home directories that are searched, in order.
    pub fn homes() -> Vec<PathBuf> {
        let mut homes = Vec::new();
        if let Some(h) = std::env::var_os(ENV_HOME).filter(|h| !h.is_empty()) {
            homes.push(PathBuf::from(h));
        }
        if let Ok(cwd) = std::env::current_dir() {
            if let Some(found) = cwd
                .ancestors()
                .map(|d| d.join(".navigator"))
                .find(|d| d.is_dir())
            {
                homes.push(found);
            }
        }
        let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.navigator");
        homes.push(built_from);
        homes.dedup();
        homes
    }
}

/// Locates the ONNX Runtime library (see the module docs for the order).
pub(crate) fn locate_ort_dylib(explicit: Option<&Path>) -> Result<PathBuf> {
    let mut tried = Vec::new();
    let candidates = explicit
        .map(Path::to_path_buf)
        .into_iter()
        .chain(env_path(ENV_ORT_DYLIB))
        .chain(env_path("ORT_DYLIB_PATH"))
        .chain(
            EmbeddingPaths::homes()
                .into_iter()
                .map(|h| h.join(ORT_FILE)),
        );
    first_existing(candidates, &mut tried, explicit.is_some()).ok_or_else(|| Error::File {
        what: "ONNX Runtime shared library".into(),
        path: tried.first().cloned().unwrap_or_default(),
        reason: format!("not found (tried {})", show(&tried)),
        fix: Some(SETUP_FIX.into()),
    })
}

/// Locates the model directory (see the module docs for the order).
pub(crate) fn locate_model_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    let mut tried = Vec::new();
    let candidates = explicit
        .map(Path::to_path_buf)
        .into_iter()
        .chain(env_path(ENV_MODEL_DIR))
        .chain(
            EmbeddingPaths::homes()
                .into_iter()
                .map(|h| h.join(DEFAULT_MODEL)),
        );
    first_existing(candidates, &mut tried, explicit.is_some()).ok_or_else(|| Error::File {
        what: "embedding model directory".into(),
        path: tried.first().cloned().unwrap_or_default(),
        reason: format!("not found (tried {})", show(&tried)),
        fix: Some(SETUP_FIX.into()),
    })
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The first candidate that exists. An explicit path is never silently replaced by a
/// fallback: when it is given and missing, the lookup stops there.
fn first_existing(
    candidates: impl Iterator<Item = PathBuf>,
    tried: &mut Vec<PathBuf>,
    explicit_first: bool,
) -> Option<PathBuf> {
    for (i, c) in candidates.enumerate() {
        if c.exists() {
            return Some(c);
        }
        tried.push(c);
        if i == 0 && explicit_first {
            return None;
        }
    }
    None
}

fn show(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_missing_path_is_an_error_naming_it() {
        let err = locate_ort_dylib(Some(Path::new("/nonexistent/libonnxruntime.so"))).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("/nonexistent/libonnxruntime.so"), "{msg}");
        assert!(msg.contains("setup-embeddings.sh"), "{msg}");
    }

    #[test]
    fn explicit_existing_path_wins() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(locate_model_dir(Some(dir.path())).unwrap(), dir.path());
    }
}
