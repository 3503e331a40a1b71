"""How long an `ask_snippets` call takes through `snippets-lsp mcp`, driven by the official MCP Python SDK over real
pipes, at library size: the shared corpora (friendly-snippets, vim-snippets and the personal library: about 13,000
snippets) are served, the probe battery's questions asked in turn, one at a time, and p50/p99/max printed with the
statuses seen. No model: the deterministic pipeline (with a model the time is the model's).

`.venv/bin/python Tests/bench/mcp_ask_bench.py --bin .build/release/snippets-lsp [-n 200]` (the defaults read the
corpora and the battery from ../shared beside the repository).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys
import tempfile
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


async def measure(binary: str, libraries: list[str], questions: list[str], count: int) -> None:
    state = tempfile.mkdtemp(prefix="snippets-mcp-bench-")
    arguments = ["mcp", "--no-learning"] + [item for path in libraries for item in ("--library", path)]
    parameters = StdioServerParameters(command=binary, args=arguments, env={"HOME": state, "XDG_CACHE_HOME": state, "XDG_STATE_HOME": state})
    with open(pathlib.Path(state) / "stderr.txt", "w") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=600) as session:
                started = time.perf_counter()
                await session.initialize()
                # The first call waits for the first load; it is not timed.
                first = await session.call_tool("ask_snippets", {"question": questions[0]})
                load = time.perf_counter() - started
                snippets = 0
                cursor = None
                while True:
                    page = await session.list_resources(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
                    snippets += len(page.resources)
                    cursor = page.next_cursor
                    if not cursor:
                        break
                assert not first.is_error, first.content
                times: list[float] = []
                statuses: collections.Counter = collections.Counter()
                for index in range(count):
                    question = questions[index % len(questions)]
                    started = time.perf_counter()
                    result = await session.call_tool("ask_snippets", {"question": question})
                    times.append((time.perf_counter() - started) * 1000)
                    content = result.structured_content or {}
                    reason = (content.get("reason") or {}).get("code")
                    statuses[f"{content.get('status')}{f' ({reason})' if reason else ''}"] += 1
    print(f"library: {snippets} snippets ({', '.join(libraries)}); first load and first answer {load:.1f} s")
    print(f"ask_snippets over MCP, {count} calls, one at a time (client-side, SDK validation included):")
    print(f"  p50 {percentile(times, 0.5):.1f} ms  p99 {percentile(times, 0.99):.1f} ms  max {max(times):.1f} ms")
    print("  statuses: " + ", ".join(f"{name} {number}" for name, number in statuses.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(ROOT / ".build" / "release" / "snippets-lsp"))
    parser.add_argument("--library", action="append", help="a library path (repeatable); default: the shared corpora")
    parser.add_argument("--battery", default=str(SHARED / "eval" / "personal-battery.json"))
    parser.add_argument("-n", type=int, default=200)
    options = parser.parse_args()
    libraries = options.library or [
        str(SHARED / "corpora" / name) for name in ("friendly-snippets", "vim-snippets", "personal")
    ]
    questions = [probe["question"] for probe in json.loads(pathlib.Path(options.battery).read_text())["probes"]]
    if not questions:
        sys.exit("the battery has no questions")
    anyio.run(measure, options.bin, libraries, questions, options.n)


if __name__ == "__main__":
    main()
