#!/usr/bin/env bash
# Builds the package and its tests (`swift build --build-tests`) and fails when the compiler printed a warning.
# A clean build (CI's) sees every file; an incremental one only what it recompiled, so it can only miss, never
# invent, a warning. The build's output is kept in .build/build-tests.log.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
mkdir -p .build
"$SWIFT" build --build-tests 2>&1 | tee .build/build-tests.log
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
# Swift prints each warning as `path:line:col: warning: text` (macro expansions add indented copies).
warnings=$(grep -E '^[^ ].*: warning: ' .build/build-tests.log | sort -u)
if [ -n "$warnings" ]; then
    echo "build-tests: the build printed $(wc -l <<<"$warnings") compiler warning(s); fix them:" >&2
    echo "$warnings" >&2
    exit 1
fi
