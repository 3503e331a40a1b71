"""Completion benchmark over real pipes: the release server with every shared corpus loaded answers 1,000
completion requests for prefixes of real triggers, one at a time as an editor sends them.

Prints: time to initialize, to the library load and to the first useful completion; client round trip
p50/p90/p99/max; items per reply; the server's own time per request (`snippets/stats`: from reading the request
to writing its reply); the server's CPU time per request (/proc); and its peak resident memory (VmHWM).

`--lines N` pads the document to N lines, to show whether a request's cost grows with the document.
`--scale N` serves N copies of the corpora (each under its own folder, so every snippet is distinct), to show
start-up and request cost at N times the library.
`--all-corpora` serves every folder under ../shared/corpora (every format the server reads: VS Code, SnipMate,
UltiSnips, yasnippet, espanso; about 60,000 snippets) instead of friendly-snippets, vim-snippets and personal
(about 13,000). `--asks N` then times N `snippets/ask` requests (no model; the personal battery's questions in
turn) on the same server after the completions.

Run by `make bench` (not by `make test`): `.venv/bin/python Tests/bench/completion_bench.py --bin PATH`.
"""

from __future__ import annotations

import argparse
import collections
import os
import json
import pathlib
import random
import re
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "e2e"))
from lspkit import REPO_ROOT, RawClient, cpu_seconds, memory_kib  # noqa: E402

DOC_URI = "file:///tmp/snippets-bench/bench.py"


def real_triggers(corpora: pathlib.Path) -> list[str]:
    """Triggers that apply in a Python document: the personal library (global), friendly-snippets' global and
    Python files, vim-snippets' `_` and Python files."""
    triggers: list[str] = []
    vscode_files = [corpora / "personal" / "personal.code-snippets", corpora / "friendly-snippets/snippets/global.json"]
    vscode_files += sorted((corpora / "friendly-snippets/snippets/python").glob("*.json"))
    for path in vscode_files:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # JSONC with comments: the benchmark only needs most triggers, not all
        for entry in entries.values():
            prefixes = entry.get("prefix", [])
            triggers += [prefixes] if isinstance(prefixes, str) else list(prefixes)
    for name in ("_.snippets", "python.snippets"):
        path = corpora / "vim-snippets/snippets" / name
        if path.exists():
            triggers += re.findall(r"^snippet\s+(\S+)", path.read_text(encoding="utf-8", errors="replace"), re.M)
    # Completion works on the word before the cursor; keep triggers that are words.
    return sorted({t for t in triggers if re.fullmatch(r"\w[\w-]*", t)})


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def items_of(reply: dict) -> list[dict]:
    result = reply.get("result")
    if isinstance(result, dict):
        return result.get("items", [])
    return result or []


def ask_questions(shared: pathlib.Path) -> list[str]:
    """The personal battery's questions (the ones `ask_latency.py` asks), or none when it is not there."""
    try:
        battery = json.loads((shared / "eval" / "personal-battery.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [probe["question"] for probe in battery.get("probes", []) if probe.get("question")]


def time_asks(client: RawClient, questions: list[str], count: int) -> tuple[list[float], collections.Counter]:
    """Times `count` asks one at a time, after a first untimed one (which may wait for the ask facts the server
    prepares after the first load)."""
    times: list[float] = []
    statuses: collections.Counter = collections.Counter()
    if not questions:
        return times, statuses
    client.call("snippets/ask", {"question": questions[0]}, timeout=600)
    for index in range(count):
        sent = time.perf_counter()
        reply = client.call("snippets/ask", {"question": questions[index % len(questions)]}, timeout=300)
        result = reply.get("result") or {}
        times.append((time.perf_counter() - sent) * 1000)
        reason = (result.get("reason") or {}).get("code")
        statuses[f"{result.get('status')}{f' ({reason})' if reason else ''}"] += 1
    return times, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPO_ROOT / ".build/release/snippets-lsp"))
    parser.add_argument("--shared", default=str(REPO_ROOT.parent / "shared"))
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lines", type=int, default=0, help="pad the document to this many lines")
    parser.add_argument("--scale", type=int, default=1, help="serve this many copies of the corpora")
    parser.add_argument("--all-corpora", action="store_true",
                        help="serve every folder under the shared corpora, not only the VS Code and SnipMate ones")
    parser.add_argument("--asks", type=int, default=0, help="then time this many asks (no model)")
    arguments = parser.parse_args()
    if arguments.scale < 1 or arguments.requests < 1 or arguments.asks < 0:
        parser.error("--scale and --requests must be at least 1, --asks at least 0")

    os.environ["SNIPPETS_LSP_BIN"] = str(pathlib.Path(arguments.bin).resolve())
    corpora = pathlib.Path(arguments.shared).resolve() / "corpora"
    libraries = [corpora / "friendly-snippets", corpora / "vim-snippets", corpora / "personal"]
    if arguments.all_corpora:
        libraries = sorted(p for p in corpora.iterdir() if p.is_dir()) if corpora.is_dir() else libraries
    missing = [str(p) for p in libraries if not p.is_dir()]
    if missing:
        print(f"completion bench: skipped, corpora missing: {', '.join(missing)}")
        return 0

    with tempfile.TemporaryDirectory(prefix="snippets-completion-bench-") as copies:
        served = libraries
        if arguments.scale > 1:
            served = []
            for copy in range(1, arguments.scale + 1):
                for library in libraries:
                    target = pathlib.Path(copies) / f"copy{copy}" / library.name
                    shutil.copytree(library, target, symlinks=True)
                    served.append(target)
        return measure(arguments, corpora, libraries, served)


def measure(arguments: argparse.Namespace, corpora: pathlib.Path, libraries: list[pathlib.Path],
            served: list[pathlib.Path]) -> int:
    triggers = real_triggers(corpora)
    rng = random.Random(arguments.seed)
    prefixes = []
    for _ in range(arguments.requests):
        trigger = rng.choice(triggers)
        prefixes.append(trigger[: rng.randint(1, len(trigger))])

    # One line per request: the prefix typed after some indentation, the cursor at its end.
    lines = ["    " + prefix for prefix in prefixes]
    lines += [f"# filler line {n} with a few words of text" for n in range(len(lines), arguments.lines)]
    questions = ask_questions(corpora.parent) if arguments.asks else []
    started = time.perf_counter()  # before the process is spawned: start-up as the user sees it
    with RawClient("serve", keep_transcript=False) as client:
        client.initialize(
            capabilities={"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}},
            init_options={"libraries": [str(p) for p in served], "maxCompletionItems": 50},
            wait_for_load=False,
        )
        initialized = time.perf_counter()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": DOC_URI, "languageId": "python", "version": 1, "text": "\n".join(lines)}},
        )

        def complete(line: int) -> dict:
            return client.call(
                "textDocument/completion",
                {"textDocument": {"uri": DOC_URI}, "position": {"line": line, "character": len(lines[line])}},
                timeout=60,
            )

        # The library may load in the background: wait (bounded) for a first non-empty answer.
        probe = next(i for i, p in enumerate(prefixes) if len(p) >= 2)
        while not items_of(complete(probe)):
            if time.perf_counter() - started > 120:
                print("completion bench: no completions within 120 s of start")
                return 1
            time.sleep(0.05)
        ready = time.perf_counter()
        # The load is announced once the library is annotated too (conflicts, revisions): completion serves
        # before that on the first load.
        announcement = client.wait_for_load()
        loaded = time.perf_counter()

        round_trips, item_counts, errors = [], [], 0
        cpu_before = cpu_seconds(client.process.pid)
        for line in range(len(prefixes)):
            sent = time.perf_counter()
            reply = complete(line)
            round_trips.append((time.perf_counter() - sent) * 1000)
            if "error" in reply:
                errors += 1
                continue
            item_counts.append(len(items_of(reply)))

        cpu_used = cpu_seconds(client.process.pid) - cpu_before
        ask_times, ask_statuses = time_asks(client, questions, arguments.asks)
        memory = memory_kib(client.process.pid)
        stats = client.call("snippets/stats").get("result") or {}
        client.shutdown_and_exit()

    print(f"completion bench: {len(prefixes)} requests on a {len(lines)}-line document, "
          f"{len(triggers)} distinct real triggers, "
          f"libraries: {', '.join(p.name for p in libraries)}"
          + (f", {arguments.scale} copies of each" if arguments.scale > 1 else ""))
    print(f"  {announcement.split('; layers')[0]}")
    print(f"  initialize reply:           {(initialized - started) * 1000:8.1f} ms after start")
    print(f"  first non-empty completion: {(ready - started) * 1000:8.1f} ms after start")
    print(f"  library load announced:     {(loaded - started) * 1000:8.1f} ms after start (annotated: conflicts, revisions)")
    print(f"  round trip p50 {percentile(round_trips, 0.5):.2f} ms, p90 {percentile(round_trips, 0.9):.2f} ms, "
          f"p99 {percentile(round_trips, 0.99):.2f} ms, max {max(round_trips):.2f} ms, "
          f"mean {statistics.fmean(round_trips):.2f} ms")
    if item_counts:
        print(f"  items per reply: mean {statistics.fmean(item_counts):.1f}, max {max(item_counts)}, "
              f"empty replies {sum(1 for c in item_counts if c == 0)}")
    if errors:
        print(f"  error replies: {errors}")
    served = stats.get("methods", {}).get("textDocument/completion")
    if served:
        print(f"  server-side (snippets/stats, read to reply written, last {served['sampled']} of {served['count']}): "
              f"p50 {served['p50Ms']:.3f} ms, p90 {served['p90Ms']:.3f} ms, p99 {served['p99Ms']:.3f} ms, "
              f"max {served['maxMs']:.3f} ms")
    else:
        print("  server-side: not reported (server without snippets/stats)")
    print(f"  server CPU: {cpu_used * 1000 / len(prefixes):.2f} ms per request on average "
          f"(/proc/<pid>/stat over the whole run: search, JSON and framing, all threads; {1000 / os.sysconf('SC_CLK_TCK'):.0f} ms ticks)")
    if ask_times:
        print(f"  ask (no model, {len(ask_times)} asks after a first untimed one): "
              f"p50 {percentile(ask_times, 0.5):.1f} ms, p99 {percentile(ask_times, 0.99):.1f} ms, "
              f"max {max(ask_times):.1f} ms; statuses {dict(ask_statuses.most_common())}")
    elif arguments.asks:
        print("  ask: skipped, no battery at ../shared/eval/personal-battery.json")
    print(f"  server memory: peak {memory.get('VmHWM', 0) / 1024:.1f} MiB (VmHWM), "
          f"now {memory.get('VmRSS', 0) / 1024:.1f} MiB (VmRSS)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
