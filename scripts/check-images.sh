#!/usr/bin/env bash
# Runs the image build steps (deploy/build.sh) for every Coffer binary with the dev profile,
# on the target directory the test build filled, and checks what each image would hold: a
# binary that starts, and that needs no shared library beyond those of the run image
# (distroless cc: glibc, libgcc_s, OpenSSL), and that each accepts the settings the deployment
# files give it. `make test` runs it after the tests.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BINARIES=(coffer coffer-identity coffer-payments coffer-billing coffer-notifications
    coffer-onboarding coffer-reconciliation)
# What gcr.io/distroless/cc-debian12 provides, by soname.
PROVIDED='^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libssl\.so\.3|libcrypto\.so\.3|/lib64/ld-linux-x86-64\.so\.2)$'

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failed=0
for binary in "${BINARIES[@]}"; do
    deploy/build.sh --like-tests "$binary" "${out}/${binary}" dev
    app="${out}/${binary}/app"
    if ! "$app" --help >/dev/null; then
        echo "check-images: ${binary}: the binary does not start" >&2
        failed=1
    fi
    missing="$(ldd "$app" | awk '{print $1}' | grep -Ev "$PROVIDED" || true)"
    if [[ -n "$missing" ]]; then
        echo "check-images: ${binary} needs libraries the run image lacks:" $missing >&2
        failed=1
    fi
    [[ -d "${out}/${binary}/data" ]] || { echo "check-images: ${binary}: no data directory" >&2; failed=1; }
done
if [[ $failed -ne 0 ]]; then
    exit 1
fi
# The deployment files again, now with these binaries: each must accept the settings every
# rendering gives its Deployment and migration Job (a refused one exits 2 at once, which no
# schema or linter sees).
scripts/check-deployment.sh --binaries "$out"
echo "check-images: ${#BINARIES[@]} binaries build with deploy/build.sh and need only the run image's libraries" >&2
