"""The load client as a correctness test: 1,000 pipelined mixed messages at a server with every shared corpus
loaded; every request id gets exactly one reply and memory comes back to its baseline. (`make load` runs 10,000
against the release build and prints the figures.)"""

from __future__ import annotations

import pytest

from hostilekit import CORPUS_LIBRARIES
from load import report, run_load


def test_every_pipelined_request_gets_exactly_one_reply_and_memory_returns():
    missing = [str(p) for p in CORPUS_LIBRARIES if not p.is_dir()]
    if missing:
        pytest.skip(f"shared corpora missing: {', '.join(missing)} (../shared belongs beside the repository)")
    result = run_load(None, CORPUS_LIBRARIES, 1_000)
    print(report(result, 1_000))
    assert result.missing == [], f"{len(result.missing)} requests never answered, e.g. {result.missing[:10]}"
    assert result.duplicated == {}, f"requests answered more than once: {list(result.duplicated.items())[:10]}"
    assert result.unexpected == [], f"replies to ids never sent: {result.unexpected[:5]}"
    assert set(result.requests) == {"completion", "resolve", "ask"}
    assert result.outcomes["completion ok"] > 0 and result.outcomes["resolve ok"] > 0
    assert any(key.startswith("ask ok") for key in result.outcomes), result.outcomes
    grown = result.memory["after"] - result.memory["baseline"]
    assert grown < 64 * 1024, f"VmRSS grew by {grown} KiB over the load and stayed there"
