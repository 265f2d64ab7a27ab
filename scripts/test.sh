#!/usr/bin/env bash
# Runs the Coffer workspace test suite; extra arguments go to the test runner.
# Expects COFFER_TEST_POSTGRES_URL to point at a reachable database
# (see scripts/ensure-postgres.sh, which `make test` runs first).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# nextest runs each test in its own process, which isolates tests that share a
# database and reports hangs, so it is preferred. Machines without it still get a
# full run from cargo test.
if cargo nextest --version >/dev/null 2>&1; then
    # The ci profile in .config/nextest.toml never retries, so flaky tests show up.
    if [[ -n "${CI:-}" && -z "${NEXTEST_PROFILE:-}" ]]; then
        export NEXTEST_PROFILE=ci
    fi
    # Doc tests are skipped here: nextest cannot run them, and a separate
    # `cargo test --doc` pass would compile the workspace a second time.
    exec cargo nextest run --workspace --no-fail-fast "$@"
fi

echo "test.sh: cargo-nextest not found, falling back to cargo test" >&2
exec cargo test --workspace --no-fail-fast "$@"
