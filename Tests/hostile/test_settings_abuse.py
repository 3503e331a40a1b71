"""Numbers a client or a setting sends, at the edges of what JSON and 64-bit integers hold: the largest and smallest
64-bit integers (Neovim's `math.maxinteger` sends exactly 2^63-1), numbers beyond 64 bits and huge doubles, for every
numeric setting and every numeric parameter. None of them may crash the server; each setting is clamped or refused
with a warning naming it, and completion keeps working."""

from __future__ import annotations

import pathlib

import pytest

from hostilekit import library  # noqa: F401 (a fixture)
from hostilekit import assert_stdout_is_only_protocol, completion_params, open_document
from lspkit import RawClient

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
EDGES = [INT64_MAX, INT64_MIN, INT64_MAX - 1, 2**64, 10**30, 1e308, -1e308, 0, -1, 0.5]


def completion_labels(client: RawClient, uri: str) -> list[str]:
    reply = client.call("textDocument/completion", completion_params(0, 3, uri))
    assert "result" in reply, reply
    return [item["label"] for item in reply["result"]["items"]]


@pytest.mark.parametrize("value", EDGES)
def test_every_numeric_setting_at_the_edges_keeps_the_server_up(library: pathlib.Path, value):
    uri = "file:///tmp/snippets-hostile/settings.py"
    settings = {
        "libraries": [str(library)],
        "maxCompletionItems": value,
        "model": {"url": "http://127.0.0.1:9", "timeoutSeconds": value, "candidates": value},
    }
    with RawClient("serve") as client:
        client.initialize(init_options=settings)
        open_document(client, "inv", uri=uri)
        assert "invfoot" in completion_labels(client, uri), client.stderr_text()[-2000:]
        client.notify("workspace/didChangeConfiguration", {"settings": {"snippets": settings}})
        assert "invfoot" in completion_labels(client, uri), client.stderr_text()[-2000:]
        # Every numeric parameter too: positions, ranges, versions, the ask's limit.
        position = {"line": value, "character": value} if isinstance(value, int) else {"line": 0, "character": 0}
        for method, params in [
            ("textDocument/completion", {"textDocument": {"uri": uri}, "position": position}),
            ("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": position, "end": position},
                                         "context": {"diagnostics": []}}),
            ("snippets/ask", {"question": "invoice", "limit": value}),
            ("snippets/ask", {"question": "invoice", "textDocument": {"uri": uri}, "position": position}),
        ]:
            reply = client.call(method, params)
            assert "result" in reply or reply["error"]["code"] in (-32602, -32603), reply
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": value if isinstance(value, int) else 2},
                                                 "contentChanges": [{"range": {"start": position, "end": position}, "text": "x"}]})
        assert "result" in client.call("textDocument/completion", completion_params(0, 1, uri))
        assert client.shutdown_and_exit() == 0, client.stderr_text()[-2000:]
        assert_stdout_is_only_protocol(client)


def test_an_out_of_range_setting_is_clamped_with_a_warning_naming_it(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)], "maxCompletionItems": INT64_MAX})
        warning = client.receive(lambda m: m.get("method") == "window/showMessage")
        assert "maxCompletionItems" in warning["params"]["message"], warning
        open_document(client, "inv")
        assert completion_labels(client, "file:///tmp/snippets-hostile/note.py")
        assert client.shutdown_and_exit() == 0
