#!/usr/bin/env bash
# Starts / stops the loopback llama.cpp server installed by scripts/setup-llm-server.sh.
#
#   eval "$(bash scripts/llm-server.sh start [DIR])"   # prints export NAVIGATOR_LLM_SERVER_URL=http://127.0.0.1:PORT
#   bash scripts/llm-server.sh stop [DIR]
#   bash scripts/llm-server.sh status [DIR]
#
# DIR defaults to $NAVIGATOR_HOME or <repo>/.navigator. PORT: $NAVIGATOR_LLM_PORT or 8765.
# Context window: $NAVIGATOR_LLM_CTX tokens or 4096 (the model takes up to 32768; a context
# navigator's explorer builds at a 10k-token budget needs about 16384).
# `start` waits until the server answers /v1/models (up to 120 s), writes DIR/llm/server.env
# (`export NAVIGATOR_LLM_SERVER_URL=...`) and the pid to DIR/llm/server.pid. One thread: two
# threads collapse on a shared 2-core machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd="${1:-}"
dir="${2:-${NAVIGATOR_HOME:-$root/.navigator}}"
llm="$dir/llm"
port="${NAVIGATOR_LLM_PORT:-8765}"
ctx="${NAVIGATOR_LLM_CTX:-4096}"
case "$ctx" in ''|*[!0-9]*) echo "llm-server: NAVIGATOR_LLM_CTX must be a number of tokens, not '$ctx'" >&2; exit 2;; esac
pidfile="$llm/server.pid" envfile="$llm/server.env" log="$llm/server.log"
url="http://127.0.0.1:$port"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }
answers() { "$llm/venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + "/v1/models", timeout=2)' "$url" >/dev/null 2>&1; }

case "$cmd" in
start)
    [ -x "$llm/venv/bin/python" ] && [ -f "$llm/gemma-3-270m-q4_k_m.gguf" ] || {
        echo "llm-server: not installed in $llm (run: bash scripts/setup-llm-server.sh $dir)" >&2; exit 1; }
    if running && answers; then
        echo "export NAVIGATOR_LLM_SERVER_URL=$url"; exit 0
    fi
    nohup "$llm/venv/bin/python" - "$llm/gemma-3-270m-q4_k_m.gguf" "$port" "$ctx" >"$log" 2>&1 <<'PY' &
import signal, sys
import xllamacpp as xlc
p = xlc.CommonParams()
p.model.path = sys.argv[1]
p.port = int(sys.argv[2])
p.hostnames = ["127.0.0.1"]
p.n_ctx = int(sys.argv[3])
p.cpuparams.n_threads = 1
p.cpuparams_batch.n_threads = 1
p.n_parallel = 1
srv = xlc.Server(p)
print("llm-server: serving", flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
PY
    echo $! >"$pidfile"
    for _ in $(seq 1 240); do
        if answers; then
            echo "export NAVIGATOR_LLM_SERVER_URL=$url" >"$envfile"
            echo "export NAVIGATOR_LLM_SERVER_URL=$url"
            exit 0
        fi
        running || { echo "llm-server: the server exited; log $log:" >&2; tail -n 30 "$log" >&2; rm -f "$pidfile"; exit 1; }
        sleep 0.5
    done
    echo "llm-server: no answer from $url after 120 s; log $log" >&2
    exit 1
    ;;
stop)
    if running; then
        pid="$(cat "$pidfile")"
        kill "$pid"
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
        echo "llm-server: stopped (pid $pid)"
    fi
    rm -f "$pidfile" "$envfile"
    ;;
status)
    if running && answers; then echo "llm-server: running at $url (pid $(cat "$pidfile"))"; else echo "llm-server: not running"; exit 1; fi
    ;;
*)
    echo "usage: $0 start|stop|status [DIR]" >&2; exit 2
    ;;
esac
