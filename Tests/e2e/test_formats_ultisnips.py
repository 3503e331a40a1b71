"""UltiSnips files beside VS Code ones, over real pipes: completion offers both, ask cites the UltiSnips entry at its
exact place, and `check` reads the folder with no problem and says that code in it is never run."""

from __future__ import annotations

import json
import pathlib
import subprocess

from lspkit import RawClient, server_binary

ULTISNIPS = """priority -50

snippet def "function definition" b
def ${1:name}(${2}):
\t${0:pass}
endsnippet

snippet late "Late payment reminder"
Dear ${1:client}, invoice ${2:number} is now overdue; please pay within seven days.
Generated for `!p snip.rv = snip.basename` on `!v strftime("%Y-%m-%d")`.
endsnippet
"""
VSCODE = {"Define (VS Code)": {"prefix": "defvs", "body": "def ${1:f}():\n\tpass", "scope": "python"}}
DOC = "file:///tmp/snippets-e2e/app.py"


def make_library(tmp_path: pathlib.Path) -> pathlib.Path:
    library = tmp_path / "library"
    (library / "UltiSnips").mkdir(parents=True)
    (library / "UltiSnips" / "python.snippets").write_text(ULTISNIPS, encoding="utf-8")
    (library / "work.code-snippets").write_text(json.dumps(VSCODE, indent=2), encoding="utf-8")
    return library


def test_completion_and_ask_over_ultisnips_beside_vscode(tmp_path: pathlib.Path):
    library = make_library(tmp_path)
    ultisnips_uri = (library / "UltiSnips" / "python.snippets").as_uri()
    capabilities = {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}}
    with RawClient("serve") as client:
        client.initialize(capabilities, init_options={"libraries": [str(library)]})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": DOC, "languageId": "python", "version": 1, "text": "def"}})
        reply = client.call("textDocument/completion", {"textDocument": {"uri": DOC}, "position": {"line": 0, "character": 3}})
        items = {item["label"]: item for item in reply["result"]["items"]}
        assert {"def", "defvs"} <= set(items)
        assert items["def"]["textEdit"]["newText"] == "def ${1:name}($2):\n\t${0:pass}"
        assert items["def"]["insertTextFormat"] == 2

        # Option b: not offered after other text on the line.
        client.notify("textDocument/didOpen", {"textDocument": {"uri": DOC + "2", "languageId": "python", "version": 1, "text": "x = def"}})
        later = client.call("textDocument/completion", {"textDocument": {"uri": DOC + "2"}, "position": {"line": 0, "character": 7}})
        assert "def" not in {item["label"] for item in later["result"]["items"]}

        ask = client.call("snippets/ask", {"question": "late payment reminder for an overdue invoice"})["result"]
        assert ask["status"] == "answered", ask
        citation = ask["citations"][0]
        assert citation["title"] == "Late payment reminder"
        assert citation["location"]["uri"] == ultisnips_uri
        # The entry runs from its header (line 8) to its endsnippet (line 11).
        assert citation["location"]["range"]["start"] == {"line": 7, "character": 0}
        assert citation["location"]["range"]["end"]["line"] == 10
        # The quote is the description, exactly where it stands in the header.
        quote = citation["quote"]
        lines = ULTISNIPS.split("\n")
        start, end = quote["location"]["range"]["start"], quote["location"]["range"]["end"]
        assert start["line"] == end["line"] == 7
        assert lines[7][start["character"]:end["character"]] == quote["text"] == "Late payment reminder"
        assert client.shutdown_and_exit() == 0


def test_check_reads_ultisnips_without_problems_and_notes_code(tmp_path: pathlib.Path):
    library = make_library(tmp_path)
    run = subprocess.run([server_binary(), "check", "--library", str(library)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 snippets in 2 files, 0 problems" in run.stdout
    assert "UltiSnips: Python, Vim script and shell code in snippets" in run.stdout
    report = json.loads(subprocess.run(
        [server_binary(), "check", "--json", "--library", str(library)], capture_output=True, text=True, timeout=60).stdout)
    assert sorted(file["format"] for file in report["files"]) == ["ultisnips", "vscode"]
    notes = [d for d in report["diagnostics"] if d["code"] == "ultisnips-code"]
    # Each note at its backtick: line 10, the columns of `!p and `!v.
    line = ULTISNIPS.split("\n")[9]
    assert [(d["line"], d["column"]) for d in notes] == [(10, line.index("`!p") + 1), (10, line.index("`!v") + 1)]
    assert "left out" not in notes[0]["message"] and "${TM_FILENAME_BASE}" in notes[0]["message"]
