#!/usr/bin/env bash
# Checks that a snippets-lsp binary runs without a Swift toolchain: `ldd` lists no Swift runtime or Foundation
# library, and the binary answers --version, doctor and an LSP initialize/shutdown under `env -i` with a PATH
# that holds no toolchain. Also that libcurl is not linked (the model client opens it with dlopen) yet opens when a
# model is asked for. Prints its size and start-up times (the median of 5 runs each).
# Usage: scripts/static-check.sh BINARY
set -euo pipefail

BIN=$(readlink -f "${1:?usage: static-check.sh BINARY}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "static-check: FAILED: $*" >&2; exit 1; }

if ldd "$BIN" | grep -Ei 'libswift|libFoundation|libdispatch|libBlocksRuntime|libicu|/swift/|toolchain'; then
    fail "$BIN still loads the libraries above from the Swift toolchain"
fi
if ldd "$BIN" | grep -E 'libcurl'; then
    fail "$BIN links libcurl; the model client is to open it with dlopen when a model is first used"
fi
echo "static-check: ldd lists no Swift or Foundation library, nor libcurl:"
ldd "$BIN" | sed 's/^/  /'

CLEAN=(env -i HOME="$ROOT/.build/static-home" PATH=/usr/bin:/bin)
mkdir -p "$ROOT/.build/static-home"
version=$("${CLEAN[@]}" "$BIN" --version) || fail "--version did not run under env -i"
echo "static-check: $version"
"${CLEAN[@]}" "$BIN" doctor --library "$ROOT/examples/library" >/dev/null || fail "doctor found a problem with examples/library"
# Nothing listens on port 1: "nothing answers" is libcurl's refused connection, so libcurl was opened and ran.
model=$("${CLEAN[@]}" "$BIN" doctor --library "$ROOT/examples/library" --model-url http://127.0.0.1:1 --model-role advisory 2>&1) || true
grep -q "nothing answers at 127.0.0.1:1" <<<"$model" || fail "the model client did not reach libcurl: $(grep -i -m1 'model' <<<"$model")"
echo "static-check: a model request opens libcurl at run time"

python3 - "$BIN" "$ROOT/examples/library" <<'PY'
import json, os, statistics, subprocess, sys, time

binary, library = sys.argv[1], sys.argv[2]
env = {"HOME": os.environ.get("HOME", "/"), "PATH": "/usr/bin:/bin"}

def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body

def handshake():
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "capabilities": {}, "initializationOptions": {"libraries": [library]}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    started = time.perf_counter()
    run = subprocess.run([binary, "serve"], input=b"".join(map(frame, messages)), env=env, capture_output=True, timeout=60)
    elapsed = time.perf_counter() - started
    if run.returncode != 0 or b'"triggerCharacters"' not in run.stdout:
        sys.exit(f"static-check: FAILED: the LSP handshake did not complete (exit {run.returncode}): {run.stderr[-500:]!r}")
    return elapsed

def version():
    started = time.perf_counter()
    subprocess.run([binary, "--version"], env=env, capture_output=True, check=True, timeout=60)
    return time.perf_counter() - started

size = os.path.getsize(binary)
print(f"static-check: size {size / 1e6:.1f} MB ({size} bytes)")
print(f"static-check: --version        median {statistics.median(version() for _ in range(5)) * 1000:.0f} ms over 5 runs")
print(f"static-check: initialize→exit  median {statistics.median(handshake() for _ in range(5)) * 1000:.0f} ms over 5 runs (examples/library)")
PY
echo "static-check: ok: $BIN runs without the Swift toolchain"
