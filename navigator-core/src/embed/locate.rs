//! [`EmbeddingPaths`]: where the ONNX Runtime library and the model are found on disk.
//!
//! Lookup order, first hit wins, for each of the two paths:
//! 1. explicit configuration (arguments, [`ModelConfig::ort_dylib`](super::ModelConfig));
//! 2. the environment: `NAVIGATOR_ORT_DYLIB` (then ONNX Runtime's own `ORT_DYLIB_PATH`) and
//!    `NAVIGATOR_MODEL_DIR`;
//! 3. a navigator home: `$NAVIGATOR_HOME`, else the first `.navigator` directory in the current
//!    directory or one of its ancestors, else the `.navigator` directory of the source checkout
//!    this crate was built from — which is where `scripts/setup-embeddings.sh` installs.
//!
//! A `NAVIGATOR_HOME` that is set but names no usable directory is an error naming it, never
//! silently skipped: a typo there would otherwise load another runtime or model.

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

    /// The navigator home directories that are searched, in order. A set `NAVIGATOR_HOME`
    /// that is missing, not a directory or not readable is an [`Error::File`] naming it.
    pub fn homes() -> Result<Vec<PathBuf>> {
        let mut homes = Vec::new();
        if let Some(h) = env_home(std::env::var_os(ENV_HOME))? {
            homes.push(h);
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
        Ok(homes)
    }
}

/// The home a `NAVIGATOR_HOME` value names, checked: unset or empty is `None`; a path that
/// is not a readable directory is an error naming it.
pub fn env_home(value: Option<std::ffi::OsString>) -> Result<Option<PathBuf>> {
    let Some(path) = value.filter(|v| !v.is_empty()).map(PathBuf::from) else {
        return Ok(None);
    };
    let problem = match std::fs::metadata(&path) {
        Err(e) => Some(e.to_string()),
        Ok(m) if !m.is_dir() => Some("not a directory".to_string()),
        Ok(_) => std::fs::read_dir(&path)
            .err()
            .map(|e| format!("not readable: {e}")),
    };
    match problem {
        None => Ok(Some(path)),
        Some(reason) => Err(Error::File {
            what: format!("navigator home (${ENV_HOME})"),
            path,
            reason,
            fix: Some(format!(
                "create the directory, point ${ENV_HOME} at an existing one, or unset it"
            )),
        }),
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
            EmbeddingPaths::homes()?
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
            EmbeddingPaths::homes()?
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
    fn a_bad_navigator_home_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = env_home(Some(missing.clone().into()))
            .unwrap_err()
            .to_string();
        assert!(err.contains(&missing.display().to_string()), "{err}");
        assert!(err.contains("NAVIGATOR_HOME"), "{err}");
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = env_home(Some(file.into())).unwrap_err().to_string();
        assert!(err.contains("not a directory"), "{err}");
        assert_eq!(env_home(None).unwrap(), None);
        assert_eq!(env_home(Some("".into())).unwrap(), None);
        assert_eq!(
            env_home(Some(dir.path().into())).unwrap().as_deref(),
            Some(dir.path())
        );
    }

    #[test]
    fn explicit_existing_path_wins() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(locate_model_dir(Some(dir.path())).unwrap(), dir.path());
    }
}
