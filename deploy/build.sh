#!/usr/bin/env bash
# Builds one Coffer binary and lays out what its image holds: the binary as OUT/app and an
# empty OUT/data for `coffer dev`'s files. deploy/Dockerfile runs it with the release
# profile; `make test` runs it with the dev profile on the test build's target directory,
# so the image's build steps are exercised without a second, release, build.
#
#   deploy/build.sh [--like-tests] SERVICE OUT [PROFILE]   (PROFILE: release, the default, or dev)
#
# --like-tests builds as the workspace's test build does (every package, tests included):
# Cargo picks dependencies' features from the packages it builds, so building one package
# alone would compile much of the dependency tree again with other features. `make test`
# passes it, and finds everything already built.
set -euo pipefail

like_tests=0
if [[ "${1:-}" == "--like-tests" ]]; then
    like_tests=1
    shift
fi
if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: deploy/build.sh [--like-tests] SERVICE OUT [PROFILE]" >&2
    exit 2
fi
service="$1"
out="$2"
profile="${3:-release}"

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# SERVICE names both the Cargo package and its binary: every Coffer binary is packaged
# under its own name.
if [[ $like_tests -eq 1 ]]; then
    cargo build --locked --profile "$profile" --workspace --bins --tests
else
    cargo build --locked --profile "$profile" --package "$service" --bin "$service"
fi

# Cargo keeps the dev profile's output under debug/.
case "$profile" in
    dev) dir=debug ;;
    *) dir="$profile" ;;
esac
install -D "${CARGO_TARGET_DIR:-target}/${dir}/${service}" "${out}/app"
install -d "${out}/data"
