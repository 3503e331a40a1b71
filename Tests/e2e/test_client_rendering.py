"""Each editor gets the snippet in the form its engine takes, over real pipes: the server reads the editor from
`initialize` (clientInfo.name, snippetSupport) and does itself what that editor's snippet engine cannot."""

from __future__ import annotations

import json
import pathlib

import pytest

from lspkit import RawClient

BODY = "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME $UNKNOWN"


FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "client-capabilities"


def completion_text(library: pathlib.Path, client_name: str, snippets: bool, options: dict | None = None) -> str:
    params = {
        "clientInfo": {"name": client_name},
        "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": snippets}}}},
    }
    if options is not None:
        params["initializationOptions"] = options
    text, fmt = completion_for(library, params)
    assert fmt == (2 if snippets else 1)
    return text


def completion_for(library: pathlib.Path, initialize: dict) -> tuple[str, int]:
    """The text and insertTextFormat of the one completion for `demo`, for a client sending `initialize`."""
    with RawClient("serve", "--library", str(library)) as client:
        params = {"processId": None, "rootUri": None, **initialize}
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
        client.shutdown_and_exit()
        return items[0]["textEdit"]["newText"], items[0]["insertTextFormat"]


@pytest.fixture
def demo_library(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "demo.code-snippets").write_text(json.dumps({"Demo": {"prefix": "demo", "body": BODY}}))
    return tmp_path


@pytest.mark.parametrize(
    ("client_name", "snippets", "expected"),
    [
        ("Visual Studio Code", True, "${1|one,two|} `date` ${2:x} ${2/(.*)/${1:/upcase}/} $TM_FILENAME ${3:UNKNOWN}"),
        # Helix and Neovim would insert a choice empty: they get its first option as a placeholder.
        ("helix", True, "${1:one} `date` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Neovim", True, "${1:one} `date` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Zed", True, "${1|one,two|} `date` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Eglot", True, "${1:one} \\`date\\` ${2:x} $2 notes.py ${3:UNKNOWN}"),
        ("Eglot", False, "one `date` x X notes.py UNKNOWN"),
    ],
)
def test_each_editor_gets_what_its_engine_can_insert(demo_library, client_name, snippets, expected):
    assert completion_text(demo_library, client_name, snippets) == expected


def test_choices_setting_keeps_choices_for_emacs(demo_library):
    text = completion_text(demo_library, "Eglot", True, {"snippets": {"choices": "keep"}})
    assert text.startswith("${1|one,two|} \\`date\\`")


HOSTILE = '`(make-directory "/tmp/x")` ${1|`(delete-file "a")`,two|} ${2:$(shell-command "x")} end'


def hostile_library(tmp_path: pathlib.Path, body: str = HOSTILE) -> pathlib.Path:
    (tmp_path / "demo.code-snippets").write_text(json.dumps({"Demo": {"prefix": "demo", "body": body}}))
    return tmp_path


@pytest.mark.parametrize("fixture", ["eglot-1.9", "eglot-1.12", "eglot-1.24", "lsp-mode-8.0.0", "lsp-mode-10.0.1"])
def test_emacs_clients_exact_initialize_gets_nothing_yasnippet_would_run(tmp_path, fixture):
    # eglot 1.9 and 1.12 send no clientInfo: the server knows them by their capabilities alone.
    initialize = json.loads((FIXTURES / f"{fixture}.json").read_text())
    text, fmt = completion_for(hostile_library(tmp_path), initialize)
    assert fmt == 2
    assert text == r'\`(make-directory "/tmp/x")\` ${1:\`(delete-file "a")\`} ${2:\$(shell-command "x")} end'


def test_helix_exact_initialize_gets_each_choice_as_its_first_option(tmp_path):
    initialize = json.loads((FIXTURES / "helix.json").read_text())
    library = hostile_library(tmp_path, "I'm out of the office until ${1|Monday,Tuesday|} with ${2|no,some|} access")
    text, fmt = completion_for(library, initialize)
    assert (text, fmt) == ("I'm out of the office until ${1:Monday} with ${2:no} access", 2)


def test_an_unknown_client_gets_plain_text_where_yasnippet_would_run_code(tmp_path):
    initialize = {"capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}}}
    text, fmt = completion_for(hostile_library(tmp_path), initialize)
    assert (text, fmt) == ('`(make-directory "/tmp/x")` `(delete-file "a")` $(shell-command "x") end', 1)
