//! `navigator mcp` driven by a real MCP client: the official MCP Python SDK
//! (`tests/mcp_python.py`), installed from PyPI by `scripts/setup-mcp-client.sh` (pinned,
//! sha256-checked), which `scripts/test.sh` runs before the tests.
//!
//! The client lists tools, resources and prompts, validates every tool's structured output
//! against its `outputSchema` (jsonschema), searches the sample vault, writes a note and finds
//! it, builds a context for a goal on this repository within its budget (with a progress
//! notification per turn), replays the plan and gets tool errors for bad arguments; then it
//! starts the server again with `--http` and drives it with two streamable HTTP clients at
//! once. When the client is not installed yet, this test runs the
//! setup script itself; it is skipped, saying why, only when that install fails (no Python
//! 3.11, no access to PyPI).

mod mcp_support;

use mcp_support::{repo_root, Fixture};
use std::path::PathBuf;
use std::process::Command;

/// Where the setup script puts the client: `$NAVIGATOR_HOME/mcp-client`, else the checkout's
/// `.navigator/mcp-client` (the same lookup as the embedding runtime's).
fn client_dir() -> PathBuf {
    std::env::var_os("NAVIGATOR_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".navigator"))
}

/// The client's Python, installing it when missing; `Err` says why it cannot be had.
fn client_python() -> Result<PathBuf, String> {
    let dir = client_dir();
    let python = dir.join("mcp-client/bin/python");
    let importable = |p: &PathBuf| {
        Command::new(p)
            .args(["-c", "import mcp, jsonschema"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if importable(&python) {
        return Ok(python);
    }
    let out = Command::new("bash")
        .arg(repo_root().join("scripts/setup-mcp-client.sh"))
        .arg(&dir)
        .output()
        .map_err(|e| format!("running scripts/setup-mcp-client.sh: {e}"))?;
    if !out.status.success() || !importable(&python) {
        return Err(format!(
            "scripts/setup-mcp-client.sh {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(python)
}

#[test]
fn the_official_python_sdk_drives_the_server() {
    let python = match client_python() {
        Ok(p) => p,
        Err(why) => {
            println!("skipped: the MCP Python SDK could not be installed: {why}");
            return;
        }
    };
    let fixture = Fixture::indexed();
    let paths =
        navigator_core::EmbeddingPaths::locate(None, None).expect("runtime and model installed");
    let out = Command::new(python)
        .arg(repo_root().join("navigator-cli/tests/mcp_python.py"))
        .env("NAVIGATOR_BIN", env!("CARGO_BIN_EXE_navigator"))
        .env("NAVIGATOR_ORT_DYLIB", paths.ort_dylib)
        .env("NAVIGATOR_MODEL_DIR", paths.model_dir)
        .env("MCP_TEST_HOME", fixture.home())
        .env("MCP_TEST_VAULT", fixture.vault())
        .env("MCP_TEST_REPO", repo_root())
        .env(
            "MCP_TEST_MEMORY",
            repo_root().join("navigator-search/data/toc/sample_memory.json"),
        )
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python MCP client failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("\"ok\": true"), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("\"http_clients\": 2"),
        "both streamable HTTP clients: {stdout}\n{stderr}"
    );
}
