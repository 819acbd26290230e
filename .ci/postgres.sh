# shellcheck shell=bash
# A throwaway PostgreSQL server for the store's tests.
#
# Sourced by .ci/run: installs PostgreSQL from Debian's packages when no server is present,
# starts a fresh cluster on 127.0.0.1 (a free port, the socket in a private temp folder),
# creates a role allowed to create databases and a database it owns, and exports
#
#   JUDGEKIT_TEST_POSTGRES_URL=postgresql+psycopg://<role>:<password>@127.0.0.1:<port>/<db>
#
# An EXIT trap stops the server and removes the cluster when the sourcing shell exits,
# whether the tests passed or not. Any failure to start is fatal (set -euo pipefail).
#
# On its own, `bash .ci/postgres.sh` starts the server, checks that the role can log in over
# TCP with its password and create a database, then stops it again.

set -euo pipefail

_pg_server_binary() {
    # The newest installed major version, if any.
    local found
    found="$(compgen -G '/usr/lib/postgresql/*/bin/postgres' | sort -V | tail -n 1 || true)"
    printf '%s' "$found"
}

# Run a command as the postgres user: the server refuses to run as root.
_pg_as_owner() {
    if [[ $EUID -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_pg_stop() {
    if [[ -n "${_PG_DIR:-}" && -d "$_PG_DIR" ]]; then
        if [[ -f "$_PG_DIR/data/postmaster.pid" ]]; then
            _pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -m fast -w -t 60 stop >/dev/null ||
                echo "postgres.sh: could not stop the PostgreSQL server in $_PG_DIR" >&2
        fi
        rm -rf "$_PG_DIR"
    fi
}

_pg_fail() {
    echo "postgres.sh: $*" >&2
    if [[ -n "${_PG_DIR:-}" && -f "$_PG_DIR/server.log" ]]; then
        echo "---- server log ----" >&2
        cat "$_PG_DIR/server.log" >&2
    fi
    exit 1
}

if [[ -z "$(_pg_server_binary)" ]]; then
    [[ $EUID -eq 0 ]] || _pg_fail "no PostgreSQL server installed, and installing one needs root"
    echo "postgres.sh: installing PostgreSQL from Debian's packages" >&2
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
_PG_SERVER="$(_pg_server_binary)"
[[ -n "$_PG_SERVER" ]] || _pg_fail "no server binary at /usr/lib/postgresql/*/bin/postgres"
_PG_BIN="$(dirname "$_PG_SERVER")"
if [[ $EUID -eq 0 ]] && ! id -u postgres >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin postgres
fi

# In /tmp, not $TMPDIR: the postgres user must be able to reach it.
_PG_DIR="$(mktemp -d /tmp/judgekit-postgres.XXXXXX)"
trap _pg_stop EXIT
# A signal still runs the EXIT trap (exit codes as the shell reports them: 128 + signal).
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ $EUID -eq 0 ]]; then
    chown postgres: "$_PG_DIR"
fi
chmod 700 "$_PG_DIR"

_PG_PORT="$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')"
_PG_ROLE="judgekit"
_PG_DB="judgekit"
_PG_PASSWORD="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"

# Local (socket) connections: the postgres user only, by peer; TCP: passwords (scram).
_pg_as_owner "$_PG_BIN/initdb" -D "$_PG_DIR/data" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=peer --auth-host=scram-sha-256 --no-sync >"$_PG_DIR/initdb.log" 2>&1 ||
    { cat "$_PG_DIR/initdb.log" >&2; _pg_fail "initdb failed"; }
# A test server: durability is not needed, speed is.
cat >>"$_PG_DIR/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $_PG_PORT
unix_socket_directories = '$_PG_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
# No autovacuum worker to hold a test database open while a test drops it.
autovacuum = off
EOF

_pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -l "$_PG_DIR/server.log" -w -t 60 start \
    >/dev/null || _pg_fail "the server did not start"

_pg_ready=""
for _ in $(seq 1 60); do
    if "$_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$_PG_PORT" -t 1; then
        _pg_ready=yes
        break
    fi
    sleep 0.5
done
[[ -n "$_pg_ready" ]] || _pg_fail "the server does not accept connections on 127.0.0.1:$_PG_PORT"

_pg_as_owner "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$_PG_DIR" -p "$_PG_PORT" \
    -U postgres -d postgres \
    -c "CREATE ROLE $_PG_ROLE LOGIN CREATEDB PASSWORD '$_PG_PASSWORD'" \
    -c "GRANT pg_signal_backend TO $_PG_ROLE" \
    -c "CREATE DATABASE $_PG_DB OWNER $_PG_ROLE" ||
    _pg_fail "could not create the role and database"

export JUDGEKIT_TEST_POSTGRES_URL="postgresql+psycopg://$_PG_ROLE:$_PG_PASSWORD@127.0.0.1:$_PG_PORT/$_PG_DB"
echo "postgres.sh: $("$_PG_SERVER" --version) on 127.0.0.1:$_PG_PORT, database $_PG_DB," \
    "role $_PG_ROLE (JUDGEKIT_TEST_POSTGRES_URL)" >&2

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    # Run on its own: check the URL's role over TCP with its password, then stop (EXIT trap).
    PGPASSWORD="$_PG_PASSWORD" "$_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 \
        -p "$_PG_PORT" -U "$_PG_ROLE" -d "$_PG_DB" \
        -c "CREATE DATABASE judgekit_selfcheck" -c "DROP DATABASE judgekit_selfcheck" ||
        _pg_fail "the role cannot log in and create a database"
    echo "postgres.sh: ok" >&2
fi
