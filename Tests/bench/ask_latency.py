"""Ask latency benchmark over real pipes: `snippets-lsp serve` answers N `snippets/ask` requests (the probe
battery's questions, in turn) one at a time, with and without the model, and prints p50/p99/max per setting and
the statuses it saw.

Run by `make model-bench` (llama-server started by scripts/model-server.sh, which sets SNIPPETS_MODEL_URL):
`.venv/bin/python Tests/bench/ask_latency.py --bin PATH --battery ../shared/eval/personal-battery.json [-n 50]`.

At library size, without a model: `--library PATH` (repeatable) serves those paths instead of the battery's
library (the battery's questions are still asked), and `--scale N` then serves them again copied N times into a
temporary folder (each copy under its own root), printing both sizes and the ratio of their p99s, e.g.
`--library ../shared/corpora/friendly-snippets --library ../shared/corpora/vim-snippets
--library ../shared/corpora/personal --scale 8 -n 300`.

With `--meaning`, meaning search is on (the encoder file beside the binary, vectors cached in a fresh folder shared
by both sizes): each run first waits until the server reports every snippet embedded, printing the server's CPU
seconds to get there (the first-time embedding; the larger copy finds the same texts in the cache) and its memory,
then times the asks. Without it, meaning search is off (SNIPPETS_ENCODER=off), as before.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "e2e"))
from lspkit import RawClient  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> str:
    status = dict(
        line.split(":", 1) for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return f"RSS {status['VmRSS'].strip()}, peak {status['VmHWM'].strip()}"


def run(binary: str, library: str | list[str], questions: list[str], count: int, model: dict | None,
        meaning_cache: str | None = None) -> float:
    os.environ["SNIPPETS_LSP_BIN"] = binary
    options: dict = {"libraries": library if isinstance(library, list) else [library]}
    if model:
        options["model"] = model
    times: list[float] = []
    statuses: collections.Counter = collections.Counter()
    env = {"SNIPPETS_ENCODER": ""} if meaning_cache else {"SNIPPETS_ENCODER": "off"}
    if meaning_cache:
        env["XDG_CACHE_HOME"] = meaning_cache
    with RawClient("serve", env=env) as client:
        started_cpu = cpu_seconds(client.process.pid)
        client.initialize(init_options=options)
        # The first load is waited for (and the ask facts prepared after it) before anything is timed.
        deadline = time.monotonic() + 600
        while "result" not in client.call("snippets/ask", {"question": questions[0]}, timeout=600):
            if time.monotonic() > deadline:
                raise SystemExit("the library did not load in 10 minutes")
            time.sleep(0.5)
        if meaning_cache:
            # Every snippet embedded (and calibrated) before anything is timed.
            deadline = time.monotonic() + 3600
            while True:
                meaning = (client.call("snippets/ask", {"question": questions[0]}, timeout=600).get("result") or {}).get("meaning") or {}
                if meaning.get("state") == "ready":
                    break
                # Off with a reason is final; off without one is a snapshot from before the first load.
                if (meaning.get("state") == "off" and meaning.get("note")) or time.monotonic() > deadline:
                    raise SystemExit(f"meaning search did not get ready: {meaning}")
                time.sleep(2)
            print(f"meaning ready: {meaning.get('embedded')} snippets, server CPU {cpu_seconds(client.process.pid) - started_cpu:.1f} s "
                  f"from start (load, index, embedding, calibration); {memory(client.process.pid)}")
        time.sleep(1)
        for index in range(count):
            question = questions[index % len(questions)]
            started = time.perf_counter()
            reply = client.call("snippets/ask", {"question": question}, timeout=300)
            times.append((time.perf_counter() - started) * 1000)
            result = reply.get("result") or {}
            reason = (result.get("reason") or {}).get("code")
            statuses[f"{result.get('status')}{f' ({reason})' if reason else ''}"] += 1
        after = memory(client.process.pid)
        client.shutdown_and_exit()
    label = (f"model {model['url']}" if model else "no model") + (", meaning on" if meaning_cache else "")
    print(f"server memory after the asks: {after}")
    print(f"{label}: {count} asks, p50 {statistics.median(times):.0f} ms, p99 {percentile(times, 0.99):.0f} ms, "
          f"max {max(times):.0f} ms, mean {statistics.fmean(times):.0f} ms")
    for status, number in statuses.most_common():
        print(f"  {number:3d} {status}")
    return percentile(times, 0.99)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--battery", required=True)
    parser.add_argument("-n", type=int, default=50)
    parser.add_argument("--model-url", default=os.environ.get("SNIPPETS_MODEL_URL"))
    parser.add_argument("--library", action="append", default=[], help="serve these paths instead (repeatable)")
    parser.add_argument("--scale", type=int, default=1, help="then serve the libraries copied this many times")
    parser.add_argument("--meaning", action="store_true", help="meaning search on (waits until every snippet is embedded)")
    parser.add_argument("--meaning-cache", help="keep the vectors in this folder (reused by a later run) instead of a fresh one")
    arguments = parser.parse_args()
    battery_path = pathlib.Path(arguments.battery).resolve()
    battery = json.loads(battery_path.read_text(encoding="utf-8"))
    library: str | list[str] = str((battery_path.parent / battery["library"]).resolve())
    if arguments.library:
        library = [str(pathlib.Path(path).resolve()) for path in arguments.library]
    questions = [probe["question"] for probe in battery["probes"]]
    binary = str(pathlib.Path(arguments.bin).resolve())
    print(f"library: {library}")
    cache = (arguments.meaning_cache or tempfile.mkdtemp(prefix="ask-latency-cache-")) if arguments.meaning else None
    small = run(binary, library, questions, arguments.n, None, cache)
    if arguments.scale > 1:
        paths = library if isinstance(library, list) else [library]
        with tempfile.TemporaryDirectory(prefix="ask-latency-") as folder:
            copies = []
            for copy in range(1, arguments.scale + 1):
                root = pathlib.Path(folder) / f"copy{copy}"
                root.mkdir()
                for number, path in enumerate(paths):
                    source = pathlib.Path(path)
                    target = root / f"{number}-{source.name}"
                    (shutil.copytree if source.is_dir() else shutil.copyfile)(source, target)
                    copies.append(str(target))
            print(f"{arguments.scale}x library ({len(copies)} paths):")
            large = run(binary, copies, questions, arguments.n, None, cache)
        print(f"p99 ratio: {large / max(small, 1e-9):.2f} at {arguments.scale} times the snippets")
    if arguments.model_url:
        run(binary, library, questions, arguments.n, {"url": arguments.model_url, "timeoutSeconds": 60})
    if cache and not arguments.meaning_cache:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
