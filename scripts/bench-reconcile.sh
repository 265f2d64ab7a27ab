#!/usr/bin/env bash
# Reading and matching a generated 100 MB camt.053 (`coffer bench-reconcile`), beside a bare
# roxmltree parse of the same file and the Python `camt053` package from PyPI, each with its
# peak memory. Prints a Markdown table for docs/benchmarks.md; extra arguments go to the
# benchmark (--megabytes, --payouts, --runs).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/pinned-venv.sh
source scripts/pinned-venv.sh

TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/camt053-venv"
pinned_venv "$VENV" "camt053==0.0.23" >&2

cargo build --release -p coffer >&2
exec "${CARGO_TARGET_DIR:-target}/release/coffer" bench-reconcile --python "${VENV}/bin/python" "$@"
