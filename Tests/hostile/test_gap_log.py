"""The gap log (questions the library could not answer) shared by two servers asking at the same moment: every
question must be kept. Guarded only within one process, two processes asking at once kept 22-28 of 30."""

from __future__ import annotations

import json
import pathlib

from hostilekit import library  # noqa: F401 (a fixture)
from lspkit import RawClient

#: Questions per server; every word is one no snippet has, so each is answered noMatch and logged as a gap.
QUESTIONS = 15

SYLLABLES = ["zor", "quib", "flan", "vrex", "plim", "stog", "mirk", "dwen", "yalt", "krup", "snev", "trob", "gliv", "frum", "hask"]


def question(server: int, number: int) -> str:
    return f"how do I {SYLLABLES[number]}{SYLLABLES[server]}ify the {SYLLABLES[(number + server + 3) % len(SYLLABLES)]}wump"


def test_two_servers_asking_at_once_lose_no_question(library: pathlib.Path, tmp_path: pathlib.Path) -> None:
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state), "HOME": str(tmp_path)}
    servers = [RawClient("serve", env=env) for _ in range(2)]
    try:
        for server in servers:
            server.initialize(init_options={"libraries": [str(library)]})
        # Every ask of both servers sent before any reply is read: they record at the same moments.
        pending = []
        for number in range(QUESTIONS):
            for index, server in enumerate(servers):
                pending.append((server, server.request("snippets/ask", {"question": question(index, number)})))
        for server, request_id in pending:
            reply = server.response(request_id, timeout=60)
            assert reply.get("result", {}).get("status") == "noMatch", reply
        for server in servers:
            assert server.shutdown_and_exit() == 0
    finally:
        for server in servers:
            server.kill()
    log = json.loads((state / "snippets-lsp" / "gaps.json").read_text())
    logged = sorted(gap["question"] for gap in log["gaps"])
    expected = sorted(question(index, number) for index in range(2) for number in range(QUESTIONS))
    assert logged == expected, f"kept {len(logged)} of {len(expected)}"
    assert all(gap["count"] == 1 for gap in log["gaps"])
