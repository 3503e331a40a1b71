#!/usr/bin/env bash
# The checks that need a real model, run by `make model-test` inside `scripts/model-server.sh run`, which has
# started llama-server (SmolLM2-135M) on loopback and set SNIPPETS_MODEL_URL. Exits non-zero on the first failure.
set -euo pipefail
: "${SNIPPETS_MODEL_URL:?run through scripts/model-server.sh run}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="${SNIPPETS_LSP_BIN:-$ROOT/.build/debug/snippets-lsp}"
SHARED="${SHARED:-$ROOT/../shared}"
MODEL=(--model-url "$SNIPPETS_MODEL_URL" --model "${SNIPPETS_MODEL_NAME:-smollm2}" --model-timeout 60)

echo "== Swift tests against the real model"
swift build --build-tests >/dev/null
swift test --skip-build --filter RealModelTests

echo "== snippets-lsp ask with the model"
"$BIN" ask --library examples/library "${MODEL[@]}" "how do I remind a client that an invoice is overdue?"

echo "== end-to-end snippets/ask over LSP with the model"
(cd Tests && ../.venv/bin/pytest -c pytest.ini e2e/test_model.py)

# The probe battery with the model runs inside the Swift tests above
# (RealModelTests.theBatteryWithTheModelIsNeverBelowNoModel): it prints the eval table with and without the model,
# asserts the hard invariants, and that answer recall and literal citation precision are not below the no-model
# figures of the same run. Running `eval` with the model again would double the step's time.
