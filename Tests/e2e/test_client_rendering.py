"""Each editor gets the snippet in the form its engine takes, over real pipes: the server reads the editor from
`initialize` (clientInfo.name, snippetSupport) and does itself what that editor's snippet engine cannot."""

from __future__ import annotations

import json
import pathlib

import pytest

from lspkit import RawClient

BODY = "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME $UNKNOWN"


def completion_text(library: pathlib.Path, client_name: str, snippets: bool, options: dict | None = None) -> str:
    with RawClient("serve", "--library", str(library)) as client:
        params = {
            "processId": None,
            "rootUri": None,
            "clientInfo": {"name": client_name},
            "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": snippets}}}},
        }
        if options is not None:
            params["initializationOptions"] = options
        assert "result" in client.call("initialize", params)
        client.notify("initialized", {})
        client.wait_for_load()
        uri = "file:///tmp/snippets-e2e/notes.py"
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "demo"}},
        )
        reply = client.call(
            "textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}
        )
        items = reply["result"]["items"]
        assert [item["label"] for item in items] == ["demo"]
        assert items[0]["insertTextFormat"] == (2 if snippets else 1)
        client.shutdown_and_exit()
        return items[0]["textEdit"]["newText"]


@pytest.fixture
def demo_library(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "demo.code-snippets").write_text(json.dumps({"Demo": {"prefix": "demo", "body": BODY}}))
    return tmp_path


@pytest.mark.parametrize(
    ("client_name", "snippets", "expected"),
    [
        ("Visual Studio Code", True, "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME ${3:UNKNOWN}"),
        ("helix", True, "${1|one,two|} `date` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Neovim", True, "${1|one,two|} `date` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Eglot", True, "${1:one} \\`date\\` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Eglot", False, "one `date` x X notes.py UNKNOWN"),
    ],
)
def test_each_editor_gets_what_its_engine_can_insert(demo_library, client_name, snippets, expected):
    assert completion_text(demo_library, client_name, snippets) == expected


def test_choices_setting_keeps_choices_for_emacs(demo_library):
    text = completion_text(demo_library, "Eglot", True, {"snippets": {"choices": "keep"}})
    assert text.startswith("${1|one,two|} \\`date\\`")
