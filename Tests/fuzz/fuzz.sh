#!/usr/bin/env bash
# Builds the libFuzzer targets (cached in .build/fuzz; rebuilt only when their sources change) and runs each for
# FUZZ_SECONDS seconds, seeded from ../shared/corpora (seeds are copied under .build/fuzz, never into the repo).
#
#   Tests/fuzz/fuzz.sh [target ...]      targets: framing jsonc body snipmate yasnippet textedits espanso (default: all)
#   FUZZ_SECONDS=60 (per target)  FUZZ_BUILD_ONLY=1 (build, do not run)
#
# Exits non-zero when a target crashes; the input is left in .build/fuzz/artifacts/ and the run's log beside it.
# Each crash found becomes a regression test with its exact input (Tests/SnippetsCoreTests/FuzzRegressionTests.swift,
# Tests/SnippetsServerTests/FuzzRegressionTests.swift).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SHARED=${SHARED:-$ROOT/../shared}
SECONDS_EACH=${FUZZ_SECONDS:-60}
OUT=$ROOT/.build/fuzz
SWIFTC=${SWIFTC:-swiftc}
FLAGS=(-O -sanitize=fuzzer -parse-as-library -swift-version 6)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(framing jsonc body snipmate yasnippet textedits espanso)
mkdir -p "$OUT/mod" "$OUT/bin" "$OUT/artifacts" "$OUT/seeds" "$OUT/work"

# True when $1 is missing or older than any of the remaining files.
stale() {
    local target=$1; shift
    [ -e "$target" ] || return 0
    [ -n "$(find "$@" -newer "$target" -print -quit)" ]
}

ICU_LINK=""
if [ "$(uname -s)" = Linux ]; then ICU_LINK="-l_FoundationICU"; fi
core_sources=$(find Sources/SnippetsCore -name '*.swift' | sort)
server_jsonrpc_sources=$(find Sources/SnippetsServer/JSONRPC -name '*.swift' | sort)
if stale "$OUT/mod/libSnippetsCore.a" $core_sources "$0"; then
    echo "fuzz: building SnippetsCore with coverage instrumentation"
    $SWIFTC "${FLAGS[@]}" -enable-testing -module-name SnippetsCore -emit-module \
        -emit-module-path "$OUT/mod/SnippetsCore.swiftmodule" -emit-library -static \
        -o "$OUT/mod/libSnippetsCore.a" $core_sources
fi

build() {
    local name=$1
    local binary=$OUT/bin/$name
    if [ "$name" = framing ]; then
        if stale "$binary" $server_jsonrpc_sources Tests/fuzz/framing.swift "$0"; then
            echo "fuzz: building $name"
            $SWIFTC "${FLAGS[@]}" -module-name FuzzFraming $server_jsonrpc_sources Tests/fuzz/framing.swift -o "$binary"
        fi
    elif stale "$binary" "$OUT/mod/libSnippetsCore.a" "Tests/fuzz/$name.swift" "$0"; then
        echo "fuzz: building $name"
        # SnippetsCore runs library regexes through ICU's C API (Foundation's `_FoundationICU` on Linux), as
        # Package.swift links it.
        $SWIFTC "${FLAGS[@]}" -module-name "Fuzz_$name" -I "$OUT/mod" "Tests/fuzz/$name.swift" \
            "$OUT/mod/libSnippetsCore.a" $ICU_LINK -o "$binary"
    fi
}

# Fills .build/fuzz/seeds/$1 (once) from the shared corpora and a few hand-made messages.
seed() {
    local name=$1 dir=$OUT/seeds/$1
    [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && return 0
    mkdir -p "$dir"
    case $name in
    framing)
        local i=0
        for body in \
            '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}' \
            '{"jsonrpc":"2.0","id":"a","method":"textDocument/completion","params":{"textDocument":{"uri":"file:///a"},"position":{"line":0,"character":3}}}' \
            '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}' \
            '{"jsonrpc":"2.0","id":2,"result":null}' \
            '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}' \
            '[{"jsonrpc":"2.0","id":1.5,"method":"x"}]'; do
            i=$((i + 1))
            printf 'Content-Length: %d\r\n\r\n%s' "${#body}" "$body" >"$dir/msg$i"
            printf 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:%d\n\n%s\r\n' \
                "${#body}" "$body" >"$dir/hdr$i"
        done
        cat "$dir"/msg* >"$dir/all"
        ;;
    jsonc)
        if [ -d "$SHARED/corpora" ]; then
            find "$SHARED/corpora" \( -name '*.json' -o -name '*.code-snippets' \) -size -64k -print0 |
                xargs -0 -I{} sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir"
        fi
        find Tests/Fixtures -name '*.json*' -size -64k -print0 |
            xargs -0 -I{} sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir"
        ;;
    body)
        python3 - "$SHARED/corpora" "$dir" <<'PY'
import hashlib, json, pathlib, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
bodies = set()
for path in sorted(root.rglob("*.json")) if root.is_dir() else []:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        continue
    for snippet in data.values() if isinstance(data, dict) else []:
        body = snippet.get("body") if isinstance(snippet, dict) else None
        if isinstance(body, list):
            body = "\n".join(x for x in body if isinstance(x, str))
        if isinstance(body, str) and "$" in body:
            bodies.add(body)
for body in sorted(bodies)[:3000]:
    (out / hashlib.md5(body.encode()).hexdigest()[:12]).write_text(body, encoding="utf-8")
PY
        printf '${1:a${2:b}} $TM_FILENAME ${3|x,y|} ${TM_FILENAME/(.*)\\..+$/${1:/upcase}/g} $0' >"$dir/hand"
        ;;
    snipmate)
        if [ -d "$SHARED/corpora" ]; then
            find "$SHARED/corpora" \( -name '*.snippets' -o -name '*.snippet' \) -size -64k -print0 |
                xargs -0 -I{} sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir"
        fi
        printf 'snippet! t "d"\n\t${1:x}\npriority -5\nextends c\n  bad\nsnippet!! t\n' >"$dir/hand"
        ;;
    yasnippet)
        if [ -d "$SHARED/corpora/yasnippet-snippets" ]; then
            find "$SHARED/corpora/yasnippet-snippets/snippets" -type f ! -name '.*' -size -64k -print0 |
                xargs -0 -I{} sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir"
        fi
        printf '# key: k\n# condition: (x)\n# --\n`(foo)` ${1:a$$(yas-choose-value (quote ("x" "y")))} ${1:$(upcase yas-text)} \\$ $>${b}\n' >"$dir/hand"
        ;;
    espanso)
        if [ -d "$SHARED/corpora" ]; then
            find "$SHARED/corpora" \( -name '*.yml' -o -name '*.yaml' \) -size -64k -print0 |
                xargs -0 -I{} sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12)"' _ {} "$dir"
        fi
        printf 'imports: [_shared.yml]\nmatches:\n  - trigger: ":a"\n    replace: "{{a}} $|$ {{b.c}} ${x} \\\\ }"\n    vars:\n      - {name: b, type: form, params: {layout: "[[c]]"}}\n  - regex: ":d\\\\((?P<f>.*)\\\\)"\n    replace: |+\n      {{f}} &x\n' >"$dir/hand"
        ;;
    textedits)
        # Three edits in UTF-16 over text with CRLF, an emoji and CJK; one in UTF-8 over a plain line.
        printf '\x13\x01\x03\x01\x05\x02\x00\x04\x02\x00\x03\x02\x00\x02\x07\x04one\r\ntwo \xf0\x9f\x98\x80 three\n\xe6\xbc\xa2\xe5\xad\x97\rfour' >"$dir/hand"
        printf '\x01\x00\x02\x00\x06\x03let x = compute(1)' >"$dir/plain"
        ;;
    esac
    [ -d "$SHARED/corpora" ] || echo "fuzz: $SHARED/corpora not found; $name starts from hand-made seeds only"
}

# Inputs of realistic size, written on every run (idempotent): a quadratic cost only shows on large inputs, and
# libFuzzer's -timeout turns one into a failure. Bodies full of unclosed or over-deep placeholders, with and without
# non-ASCII text, a minified file with thousands of entries on one line, and a SnipMate file of the same.
hostile_seeds() {
    python3 - "$1" "$OUT/seeds/$1" <<'PY'
import json, pathlib, sys
name, out = sys.argv[1], pathlib.Path(sys.argv[2])
bodies = {
    "unclosed": "${1:" * 16000,
    "unclosed-utf8": "é😀${1:" * 8000,
    "deep": "".join("${%d:a" % (i % 9 + 1) for i in range(4000)) + "}" * 4000,
    "bad-vars": "${FOO/(.*)/x/ ${BAR: $x ${1|a,b" * 3000,
    # What the body fuzzer grew from it: one `}` at the end, which every transform's options read on to (13 s).
    "bad-vars-closed": "${1|a,b${FOO/(.*)/x/ ${BAR: $x " * 2400 + "me}",
}
if name == "body":
    for key, body in bodies.items():
        (out / f"large-{key}").write_text(body, encoding="utf-8")
elif name == "jsonc":
    for key, body in bodies.items():
        (out / f"large-{key}").write_text(json.dumps({key: {"prefix": key, "body": body}}, ensure_ascii=False), encoding="utf-8")
    minified = {f"s{i}": {"prefix": f"p{i}", "body": ["é ${1:x", "${2"], "scope": 5} for i in range(3000)}
    (out / "large-minified").write_text(json.dumps(minified, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
elif name == "yasnippet":
    for key, body in bodies.items():
        (out / f"large-{key}").write_text("# key: k\n# --\n" + body, encoding="utf-8")
    (out / "large-lisp").write_text("# key: k\n# --\n" + "${1:x$(" * 8000 + "`(" * 8000, encoding="utf-8")
elif name == "snipmate":
    text = "".join(f"snippet s{i} \"d\"\n\t${{1:é${{2:x\n" for i in range(4000))
    (out / "large-unclosed").write_text(text, encoding="utf-8")
PY
}

# libFuzzer's own crash handler must see the trap (to save the input), not Swift's backtracer.
export SWIFT_BACKTRACE=enable=no
status=0
for name in "${TARGETS[@]}"; do
    build "$name"
done
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
for name in "${TARGETS[@]}"; do
    seed "$name"
    hostile_seeds "$name"
    mkdir -p "$OUT/work/$name"
    log=$OUT/artifacts/$name.log
    echo "fuzz: $name for ${SECONDS_EACH}s ($(ls "$OUT/seeds/$name" | wc -l) seeds)"
    # Large enough for the realistic-size seeds above (libFuzzer mutates within max_len).
    case $name in framing) max_len=65536 ;; *) max_len=262144 ;; esac
    if "$OUT/bin/$name" -max_total_time="$SECONDS_EACH" -timeout=10 -max_len=$max_len -print_final_stats=1 \
        -artifact_prefix="$OUT/artifacts/$name-" "$OUT/work/$name" "$OUT/seeds/$name" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
        coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
        echo "fuzz: $name ok: $runs executions, $per_second/s, $coverage, corpus $(ls "$OUT/work/$name" | wc -l) new inputs"
    else
        status=1
        echo "fuzz: $name FAILED; log: $log"
        grep -E 'ERROR|Fatal error|==[0-9]+==|artifact|Test unit written' "$log" | head -20 || true
    fi
done
exit $status
