"""`snippets/stats` over real pipes: the server reports its own time per request (protocol/snippets-stats.md)."""

from __future__ import annotations

import pathlib

from lspkit import RawClient

DOC_URI = "file:///tmp/snippets-e2e/stats.txt"


def test_stats_count_and_time_every_answered_completion(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": DOC_URI, "languageId": "plaintext", "version": 1, "text": "inv\nsig"}},
        )
        for line in (0, 1, 0):
            reply = client.call(
                "textDocument/completion",
                {"textDocument": {"uri": DOC_URI}, "position": {"line": line, "character": 3}},
            )
            assert reply["result"]["items"], reply
        stats = client.call("snippets/stats")["result"]
        assert stats["window"] == 1024
        completion = stats["methods"]["textDocument/completion"]
        assert completion["count"] == 3 and completion["sampled"] == 3
        assert 0 < completion["p50Ms"] <= completion["p90Ms"] <= completion["p99Ms"] <= completion["maxMs"]
        assert completion["maxMs"] < 10_000, completion
        assert stats["methods"]["initialize"]["count"] == 1
        assert client.shutdown_and_exit() == 0
