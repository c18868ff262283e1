#!/usr/bin/env bash
# Installs a real MCP client — the official MCP Python SDK (`mcp` on PyPI) and `jsonschema` —
# into a virtual environment, for the test that drives `navigator mcp` with it
# (navigator-cli/tests/mcp_python.rs). Only the package registry (PyPI, through pip), wheels
# only, every package pinned and checked against its sha256 (pip --require-hashes with
# scripts/mcp-client-requirements.txt). Idempotent: an environment installed from the same
# requirements file is kept and nothing is downloaded.
#
#   bash scripts/setup-mcp-client.sh [DIR]      # default DIR: <repo>/.navigator
#
# Result: DIR/mcp-client/bin/python with `mcp` and `jsonschema` importable.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/.navigator}"
py="${PYTHON:-python3}"
req="$root/scripts/mcp-client-requirements.txt"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "setup-mcp-client: only Linux x86_64 is supported" >&2; exit 1; }
command -v "$py" >/dev/null || { echo "setup-mcp-client: $py not found (install python3.11 with venv and pip)" >&2; exit 1; }
version="$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
[ "$version" = "3.11" ] || { echo "setup-mcp-client: the pinned wheels are for CPython 3.11, $py is $version (set PYTHON=python3.11)" >&2; exit 1; }

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
venv="$dir/mcp-client"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
    && "$venv/bin/python" -c 'import mcp, jsonschema' 2>/dev/null; then
    echo "== MCP client already installed in $venv"
    exit 0
fi

echo "== installing the MCP Python SDK into $venv (PyPI, sha256-checked)"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --only-binary=:all: --no-deps -r "$req"
"$venv/bin/python" -c 'import mcp, jsonschema'
echo "$want" > "$stamp"
echo "== MCP client ready: $venv/bin/python"
