# Sourced by the PostgreSQL benchmarks. A production PostgreSQL vacuums and analyses on its
# own (autovacuum), and Coffer's queue tables (outboxes, delivery tasks) and fresh tables'
# query plans depend on it; a CI machine may run with it off. For the run it is turned on
# (ALTER SYSTEM, as the superuser), and back to the server's own setting when the run ends.
# Usage: autovacuum_on (sets AUTOVACUUM_TURNED_ON); autovacuum_restore in the EXIT trap.

AUTOVACUUM_TURNED_ON=0

autovacuum_superuser() { psql -qtA -h 127.0.0.1 -p "${PGPORT:-5432}" -U postgres "$@"; }

autovacuum_on() {
    local now
    now="$(autovacuum_superuser -c 'SHOW autovacuum' 2>/dev/null || true)"
    if [[ "$now" == off ]]; then
        echo "bench: this server runs with autovacuum off; turning it on for the run" >&2
        autovacuum_superuser -c "ALTER SYSTEM SET autovacuum = on" -c "SELECT pg_reload_conf()" >/dev/null &&
            AUTOVACUUM_TURNED_ON=1
    elif [[ -z "$now" ]]; then
        echo "bench: cannot read autovacuum as the superuser; the run takes the server as it is" >&2
    fi
}

autovacuum_restore() {
    if [[ "$AUTOVACUUM_TURNED_ON" == 1 ]]; then
        autovacuum_superuser -c "ALTER SYSTEM RESET autovacuum" -c "SELECT pg_reload_conf()" >/dev/null || true
        AUTOVACUUM_TURNED_ON=0
    fi
}
