"""Bounded load: pipelines N mixed requests (completions, resolves, asks, cancellations) at one server with every
shared corpus loaded, as fast as the pipe takes them, and checks that every request id gets exactly one reply.

Prints: the mix, replies by outcome, wall time and requests per second, and the server's memory (VmRSS after the
library load and a warm-up, VmRSS sampled during the run, VmRSS after, VmHWM). It is a benchmark, not a timed
test: `make load` runs 10,000 requests against the release build; `make test` runs 1,000 against the debug build
as a correctness test (Tests/hostile/test_load.py).

    .venv/bin/python Tests/hostile/load.py [--requests 10000] [--bin PATH] [--shared ../shared] [--seed 7]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "e2e")]
from hostilekit import DOC_URI, completion_params, open_document  # noqa: E402
from lspkit import TIMEOUT, RawClient, cpu_seconds, frame, memory_kib  # noqa: E402

#: What the document holds: one prefix per line, each typed at the end of its line.
PREFIXES = ["def", "for", "cl", "im", "if", "wh", "try", "pr", "ret", "inv", "sig", "lambda", "with", "from", "ma",
            "reminder", "x", "zz", "привет", "😀"]
QUESTIONS = ["how do I remind a client that an invoice is overdue?", "a for loop over a dictionary",
             "python class with a constructor", "signature with my title", "read a file line by line",
             "what is the weather tomorrow", "try except finally", "unit test skeleton"]
#: Shares of the mix; cancellations are notifications, the rest requests.
MIX = {"completion": 0.55, "resolve": 0.15, "ask": 0.10, "cancel": 0.20}


@dataclass
class LoadResult:
    requests: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    rounds: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    duplicated: dict = field(default_factory=dict)
    unexpected: list = field(default_factory=list)
    seconds: float = 0.0
    memory: dict = field(default_factory=dict)
    cancellations: int = 0
    server_cpu_seconds: float = 0.0


def build_messages(count: int, items: list[dict], rng: random.Random, offset: int = 0,
                   mix: dict[str, float] = MIX) -> tuple[bytes, dict, int]:
    """The framed bytes of `count` messages (requests and cancellations by MIX), the kind of each request id, and
    how many cancellations there are. Ids start after `offset`, so rounds never repeat one."""
    kinds: dict = {}
    chunks = []
    cancellations = 0
    kinds_list = list(mix)
    weights = [mix[k] for k in kinds_list]
    sent_ids: list = []
    for n in range(count):
        kind = rng.choices(kinds_list, weights)[0]
        if kind == "cancel":
            cancellations += 1
            roll = rng.random()
            # Mostly a request just sent (a race with its work), some long done, some never sent.
            target = sent_ids[-rng.randint(1, min(5, len(sent_ids)))] if sent_ids and roll < 0.7 else (
                rng.choice(sent_ids) if sent_ids and roll < 0.9 else f"never-{n}")
            chunks.append(frame(json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": target}}).encode()))
            continue
        request_id = offset + n if n % 2 else f"r{offset + n}"  # numbers and strings both
        if kind == "completion":
            line = rng.randrange(len(PREFIXES))
            params = completion_params(line, len(PREFIXES[line].encode("utf-16-le")) // 2)
            method = "textDocument/completion"
        elif kind == "resolve":
            params, method = rng.choice(items), "completionItem/resolve"
        else:
            params, method = {"question": rng.choice(QUESTIONS), "textDocument": {"uri": DOC_URI}}, "snippets/ask"
        kinds[request_id] = kind
        sent_ids.append(request_id)
        chunks.append(frame(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()))
    return b"".join(chunks), kinds, cancellations


def run_load(binary: str | None, libraries: list[pathlib.Path], count: int, seed: int = 7,
             stall_timeout: float = 120.0, rounds: int = 1, mix: dict[str, float] = MIX,
             env: dict[str, str] | None = None) -> LoadResult:
    """Runs the load and returns what happened; fails (AssertionError) only when the server stops answering."""
    rng = random.Random(seed)
    result = LoadResult()
    if binary:
        os.environ["SNIPPETS_LSP_BIN"] = binary
    with RawClient("serve", env=env, keep_transcript=False) as client:
        client.initialize(init_options={"libraries": [str(p) for p in libraries], "maxCompletionItems": 50},
                          capabilities={"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}})
        open_document(client, "\n".join(PREFIXES))
        pid = client.process.pid
        # Warm-up: some of each request, one at a time; also collects real items to resolve.
        items: list[dict] = []
        for line, prefix in enumerate(PREFIXES):
            reply = client.call("textDocument/completion", completion_params(line, len(prefix.encode("utf-16-le")) // 2), timeout=TIMEOUT * 4)
            items += reply["result"]["items"][:5]
        assert items, "the warm-up completions found nothing: is the library loaded?"
        for item in items[:20]:
            client.call("completionItem/resolve", item)
        for question in QUESTIONS:
            client.call("snippets/ask", {"question": question}, timeout=TIMEOUT * 4)
        time.sleep(0.5)
        result.memory["baseline"] = memory_kib(pid)["VmRSS"]

        kinds: dict = {}
        replies: Counter = Counter()
        samples = []
        for round_number in range(rounds):
            data, round_kinds, cancellations = build_messages(count, items, rng, offset=round_number * count, mix=mix)
            kinds.update(round_kinds)
            result.cancellations += cancellations
            result.requests.update(round_kinds.values())
            round_started = time.monotonic()
            cpu_before = cpu_seconds(pid)
            run_round(client, data, round_kinds, replies, samples, result, stall_timeout)
            seconds = time.monotonic() - round_started
            result.seconds += seconds
            result.server_cpu_seconds += cpu_seconds(pid) - cpu_before
            time.sleep(1.0)
            result.rounds.append((len(round_kinds), seconds, memory_kib(pid)["VmRSS"]))
        result.missing = [i for i in kinds if replies[i] == 0]
        result.duplicated = {i: n for i, n in replies.items() if n > 1}
        figures = memory_kib(pid)
        result.memory.update(during_max=max(samples, default=0), after=figures["VmRSS"], peak_hwm=figures["VmHWM"])
        assert client.shutdown_and_exit() == 0, client.stderr_text()[-2000:]
    return result


def run_round(client: RawClient, data: bytes, kinds: dict, replies: Counter, samples: list, result: LoadResult,
              stall_timeout: float) -> None:
    """Writes `data` from a thread while counting the replies to `kinds`' ids; returns when each has one (or the
    server has been silent for `stall_timeout` seconds), after a second more for late or doubled replies."""
    pid = client.process.pid

    def write() -> None:
        view = memoryview(data)
        for start in range(0, len(view), 65536):
            client.send_bytes(bytes(view[start:start + 65536]))

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    last_progress = time.monotonic()
    answered = 0
    while answered < len(kinds):
        if time.monotonic() - last_progress > stall_timeout:
            break
        if not client._pump(time.monotonic() + 0.2):
            if client.process.poll() is not None:
                break
        samples.append(memory_kib(pid)["VmRSS"])
        inbox, client._inbox = client._inbox, []
        for message in inbox:
            if "method" in message:
                continue  # notifications and server requests (window/logMessage, progress)
            request_id = message.get("id")
            if request_id not in kinds:
                result.unexpected.append(message)
                continue
            replies[request_id] += 1
            if replies[request_id] == 1:
                answered += 1
                last_progress = time.monotonic()
            if "error" in message:
                result.outcomes[f"{kinds[request_id]} error {message['error']['code']}"] += 1
            else:
                status = message["result"].get("status") if kinds[request_id] == "ask" else None
                result.outcomes[f"{kinds[request_id]} ok" + (f" ({status})" if status else "")] += 1
    writer.join(timeout=10)
    # Anything late or doubled shows up here.
    for message in client.drain(1.0):
        if "method" not in message:
            request_id = message.get("id")
            if request_id in kinds:
                replies[request_id] += 1
            else:
                result.unexpected.append(message)


def report(result: LoadResult, count: int) -> str:
    total = sum(result.requests.values())
    lines = [
        f"load: {count} messages: {total} requests ({', '.join(f'{k} {v}' for k, v in sorted(result.requests.items()))}) "
        f"and {result.cancellations} cancellations, pipelined",
        f"load: {total - len(result.missing)} of {total} requests answered in {result.seconds:.2f}s "
        f"({total / max(result.seconds, 1e-9):.0f} requests/s; server CPU {result.server_cpu_seconds:.1f}s); missing {len(result.missing)}, answered twice "
        f"{len(result.duplicated)}, replies to unknown ids {len(result.unexpected)}",
        "load: outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(result.outcomes.items())),
        f"load: server VmRSS baseline {result.memory['baseline'] / 1024:.1f} MiB, during (max sampled) "
        f"{result.memory['during_max'] / 1024:.1f} MiB, after {result.memory['after'] / 1024:.1f} MiB "
        f"({(result.memory['after'] - result.memory['baseline']) / 1024:+.1f} MiB), VmHWM {result.memory['peak_hwm'] / 1024:.1f} MiB",
    ]
    if len(result.rounds) > 1:
        lines.append("load: rounds (requests, seconds, VmRSS after): " + "; ".join(
            f"{n}, {seconds:.1f}s, {rss / 1024:.1f} MiB" for n, seconds, rss in result.rounds))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000, help="messages to pipeline (default 10,000)")
    parser.add_argument("--bin", help="the snippets-lsp binary (default: SNIPPETS_LSP_BIN or the debug build)")
    parser.add_argument("--shared", default=str(HERE.parents[1] / ".." / "shared"), help="the shared folder")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=1, help="send the load this many times in one session")
    parser.add_argument("--mix", help="shares such as completion=1,ask=0.5 (default: " +
                        ",".join(f"{k}={v}" for k, v in MIX.items()) + ")")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server (repeatable)")
    arguments = parser.parse_args()
    corpora = pathlib.Path(arguments.shared).resolve() / "corpora"
    libraries = [corpora / "friendly-snippets", corpora / "vim-snippets", corpora / "personal"]
    missing = [str(p) for p in libraries if not p.is_dir()]
    if missing:
        print(f"load: skipped, corpora missing: {', '.join(missing)}")
        return 0
    result = run_load(arguments.bin and str(pathlib.Path(arguments.bin).resolve()), libraries, arguments.requests, arguments.seed,
                      rounds=arguments.rounds,
                      mix={k: float(v) for k, v in (p.split("=") for p in arguments.mix.split(","))} if arguments.mix else MIX,
                      env=dict(e.split("=", 1) for e in arguments.env) or None)
    print(report(result, arguments.requests * arguments.rounds))
    ok = not result.missing and not result.duplicated and not result.unexpected
    if not ok:
        print(f"load: FAILED: missing {result.missing[:10]}, twice {list(result.duplicated.items())[:10]}, "
              f"unexpected {result.unexpected[:3]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
