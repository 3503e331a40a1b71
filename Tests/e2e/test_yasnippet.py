"""A yasnippet folder beside VS Code snippet files, over real pipes: completion offers both in the document's language
(the mode folder mapped to the language id), Emacs (eglot, by clientInfo) gets nothing yasnippet would run, ask
answers from a yasnippet snippet and cites its file, and none of the Emacs Lisp in the files is ever run."""

from __future__ import annotations

import json
import re
import os
import pathlib

from lspkit import RawClient

DOC = "file:///tmp/snippets-e2e/app.py"


def make_library(tmp_path: pathlib.Path) -> tuple[pathlib.Path, list[pathlib.Path]]:
    library = tmp_path / "library"
    made = [tmp_path / name for name in ("backquoted", "mirror", "field", "condition", "env", "command")]
    python = library / "snippets" / "python-mode"
    python.mkdir(parents=True)
    (library / "snippets" / "python-ts-mode").mkdir()
    (library / "snippets" / "python-ts-mode" / ".yas-parents").write_text("python-mode\n")
    (python / ".yas-parents").write_text("prog-mode\n")
    (python / "defn").write_text(
        "# -*- mode: snippet -*-\n# name: function with a docstring\n# key: defn\n"
        f"# condition: (make-directory \"{made[3]}\")\n"
        f"# expand-env: ((x (make-directory \"{made[4]}\")))\n# --\n"
        f"def ${{1:name}}(${{2:args}}):\n    \"\"\"${{1:$(make-directory \"{made[1]}\")}}"
        f" `(make-directory \"{made[0]}\")`\"\"\"\n    ${{3:pass$(make-directory \"{made[2]}\")}}\n",
        encoding="utf-8",
    )
    (python / "run").write_text(f"# name: run\n# key: defrun\n# type: command\n# --\n(make-directory \"{made[5]}\")\n")
    prog = library / "snippets" / "prog-mode"
    prog.mkdir()
    (prog / "fixme").write_text("# name: fixme note\n# key: deffix\n# --\nFIXME: $0")
    text = library / "snippets" / "text-mode"
    text.mkdir()
    (text / "late").write_text(
        "# name: Late payment reminder\n# key: late\n# --\n"
        "Dear ${1:client}, invoice ${2:number} is now 30 days overdue; please pay it this week.\n",
        encoding="utf-8",
    )
    (library / "python.json").write_text(json.dumps({"Define a class": {"prefix": "defclass", "body": "class ${1:Name}:\n    $0"}}))
    return library, made


def initialize(client: RawClient, name: str | None) -> None:
    params = {
        "processId": os.getpid(),
        "rootUri": None,
        "capabilities": {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}},
    }
    if name:
        params["clientInfo"] = {"name": name}
    assert "result" in client.call("initialize", params)
    client.notify("initialized", {})
    client.wait_for_load()


def complete(client: RawClient, text: str) -> list[dict]:
    client.notify("textDocument/didOpen", {"textDocument": {"uri": DOC, "languageId": "python", "version": 1, "text": text}})
    reply = client.call("textDocument/completion", {"textDocument": {"uri": DOC}, "position": {"line": 0, "character": len(text)}})
    return reply["result"]["items"] if isinstance(reply["result"], dict) else reply["result"]


def test_yasnippet_and_vscode_files_complete_and_answer_together_and_no_lisp_runs(tmp_path: pathlib.Path):
    library, made = make_library(tmp_path)
    for client_name in ("Visual Studio Code", "Emacs 28.2 eglot 1.9", None):
        with RawClient("serve", "--library", str(library)) as client:
            initialize(client, client_name)
            items = complete(client, "def")
            labels = {item["label"] for item in items}
            # The python-mode folder and the VS Code python.json both answer a python document; prog-mode's too;
            # the command snippet is never offered.
            assert {"defn", "defclass", "deffix"} <= labels, (client_name, labels)
            assert "defrun" not in labels
            defn = next(item for item in items if item["label"] == "defn")
            text = defn.get("insertText") or defn["textEdit"]["newText"]
            assert "make-directory" not in text, (client_name, text)
            assert "`" not in text and "$(" not in text, (client_name, text)
            assert text.startswith("def ${1:name}(${2:args}):"), (client_name, text)
            if client_name and "eglot" in client_name:
                assert defn["insertTextFormat"] == 2
            assert client.shutdown_and_exit() == 0

    with RawClient("serve", "--library", str(library)) as client:
        initialize(client, "Visual Studio Code")
        result = client.call("snippets/ask", {"question": "what do I send a client whose invoice is overdue?"})["result"]
        assert result["status"] == "answered", result
        citation = result["citations"][0]
        assert citation["title"] == "Late payment reminder"
        late = library / "snippets" / "text-mode" / "late"
        assert citation["location"]["uri"] == late.as_uri()
        assert citation["location"]["range"]["start"] == {"line": 0, "character": 0}
        quote = citation["quote"]
        if quote:
            # A quote is what the snippet shows of the body line that answers (fields by their text); its location is
            # that line's source in the file.
            lines = late.read_text(encoding="utf-8").split("\n")
            start, end = quote["location"]["range"]["start"], quote["location"]["range"]["end"]
            assert start["line"] == end["line"]
            source = lines[start["line"]][start["character"]:end["character"]]
            assert re.sub(r"\$\{\d+:([^}]*)\}", r"\1", source) == quote["text"], (source, quote["text"])
            assert result["answer"][quote["answerRange"]["start"]:quote["answerRange"]["end"]] == quote["text"]
        assert client.shutdown_and_exit() == 0

    assert [path.name for path in made if path.exists()] == []


def test_an_edited_or_added_yasnippet_file_is_served_after_the_watched_file_change(tmp_path: pathlib.Path):
    library, _ = make_library(tmp_path)
    with RawClient("serve", "--library", str(library)) as client:
        initialize(client, "Visual Studio Code")
        assert "late" in {item["label"] for item in complete(client, "lat")}
        late = library / "snippets" / "text-mode" / "late"
        late.write_text(late.read_text(encoding="utf-8").replace("# key: late", "# key: tardy"), encoding="utf-8")
        go = library / "snippets" / "go-mode"
        go.mkdir()
        (go / "iferr").write_text("# name: if err\n# key: iferr\n# --\nif err != nil {\n\treturn ${1:err}\n}\n")
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": late.as_uri(), "type": 2}, {"uri": (go / "iferr").as_uri(), "type": 1}]})
        client.wait_for_load()
        client.notify("textDocument/didClose", {"textDocument": {"uri": DOC}})
        assert "tardy" in {item["label"] for item in complete(client, "tard")}
        uri = "file:///tmp/snippets-e2e/main.go"
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "go", "version": 1, "text": "iferr"}})
        reply = client.call("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 5}})
        items = reply["result"]["items"] if isinstance(reply["result"], dict) else reply["result"]
        assert "iferr" in {item["label"] for item in items}
        assert client.shutdown_and_exit() == 0
