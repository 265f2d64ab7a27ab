# Sourced by scripts that need Python packages: pinned_venv VENV PACKAGE==VERSION... makes
# sure VENV exists and holds exactly those versions, installing from PyPI only when it does
# not. Progress and errors go to stderr; a failure exits the calling script.

pinned_venv_has() {
    local venv="$1"
    shift
    [[ -x "${venv}/bin/python" ]] || return 1
    "${venv}/bin/python" - "$@" <<'PY' 2>/dev/null
import importlib.metadata
import sys

for pinned in sys.argv[1:]:
    name, version = pinned.split("==")
    if importlib.metadata.version(name) != version:
        sys.exit(1)
PY
}

pinned_venv() {
    local venv="$1"
    shift
    pinned_venv_has "$venv" "$@" && return 0
    local python="${PYTHON:-python3}"
    if ! command -v "$python" >/dev/null 2>&1; then
        printf 'pinned-venv: error: %s not found; it is needed to install %s\n' "$python" "$*" >&2
        exit 1
    fi
    # A venv whose interpreter vanished (e.g. a pyenv version removed) cannot be repaired.
    if [[ -d "$venv" ]] && ! "${venv}/bin/python" -c '' >/dev/null 2>&1; then
        printf 'pinned-venv: removing broken venv %s\n' "$venv" >&2
        rm -rf "$venv"
    fi
    if [[ ! -x "${venv}/bin/python" ]]; then
        printf 'pinned-venv: creating venv %s\n' "$venv" >&2
        mkdir -p "$(dirname "$venv")"
        if ! "$python" -m venv "$venv" >&2; then
            printf 'pinned-venv: error: could not create a venv with %s (on Debian: apt-get install python3-venv)\n' "$python" >&2
            exit 1
        fi
    fi
    printf 'pinned-venv: installing %s into %s\n' "$*" "$venv" >&2
    "${venv}/bin/python" -m pip install --disable-pip-version-check --no-input -q "$@" >&2
    if ! pinned_venv_has "$venv" "$@"; then
        printf 'pinned-venv: error: %s still missing from %s after pip install\n' "$*" "$venv" >&2
        exit 1
    fi
}
