#!/usr/bin/env bash
# Prints the folder of the third-party camt samples the tests read (shared/testdata/camt,
# which lives beside the repository, not in it: the files come with their own sources and
# licences). A clone elsewhere (CI's fresh clone) finds the machine's copy. Fails loudly
# when there is none: tests that read nothing would pass while checking nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for dir in "${COFFER_TEST_CAMT_SAMPLES:-}" "$root/../shared/testdata/camt" /work/shared/testdata/camt; do
    if [[ -n "$dir" && -d "$dir" ]]; then
        (cd "$dir" && pwd)
        exit 0
    fi
done
echo "testdata.sh: no camt samples: expected shared/testdata/camt beside the repository" >&2
exit 1
