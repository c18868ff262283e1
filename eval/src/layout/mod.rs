//! Checks that keep the workspace's shape what `ARCHITECTURE.md` says it is:
//!
//! - [`modules`]: no two sibling modules of a crate import each other (data flows one way, so a
//!   cycle means an item sits at the wrong level);
//! - [`architecture`]: the crate dependency arrows listed in `ARCHITECTURE.md` are exactly the
//!   ones the `Cargo.toml` files declare;
//! - [`rust_version`]: the declared `rust-version` is at least what every locked dependency
//!   declares, so a user on that toolchain can build the lock file.
//!
//! Each check reads the workspace (sources, `cargo metadata`) and returns what it found wrong;
//! `tests/layout.rs` runs them all against this workspace.

pub mod architecture;
pub mod modules;
pub mod rust_version;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a layout check could not run (not what it found wrong: that is its result).
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A Rust source file does not parse.
    #[error("cannot parse {}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// `cargo metadata` failed or answered something unexpected.
    #[error("cargo metadata: {0}")]
    Metadata(String),
    /// `ARCHITECTURE.md` has no readable dependency list.
    #[error("{}: {message}", path.display())]
    Architecture {
        /// The file.
        path: PathBuf,
        /// What is missing or malformed.
        message: String,
    },
}

/// The workspace root: the directory above this crate.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("eval/ sits inside the workspace")
        .to_path_buf()
}

/// Runs `cargo metadata --format-version 1` with `args` in `root` and parses its JSON.
pub fn cargo_metadata(root: &Path, args: &[&str]) -> Result<serde_json::Value, LayoutError> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1"])
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|e| LayoutError::Metadata(format!("cannot run {cargo}: {e}")))?;
    if !out.status.success() {
        return Err(LayoutError::Metadata(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| LayoutError::Metadata(e.to_string()))
}
