"""Nothing lost: a session of completions, resolves, asks, reloads, documents opened on the library's own files,
edits to them, configuration changes and protocol abuse leaves every byte (and every modification time) of the
library exactly as it was. The server writes library files only through the save-snippet command."""

from __future__ import annotations

import json
import pathlib
import shutil

from hostilekit import CORPORA, assert_stdout_is_only_protocol, completion_params, tree_digest
from lspkit import LIBRARY_TEXT, RawClient, frame

SNIPMATE = "snippet inv \"Invoice line\"\n\tInvoice ${1:number} due ${2:date}\nsnippet! sig\n\tMira\n"


def build_library(root: pathlib.Path) -> pathlib.Path:
    """A library with every kind of file the loader reads, including broken and odd ones."""
    root.mkdir(parents=True)
    (root / "test.code-snippets").write_text(LIBRARY_TEXT, encoding="utf-8")
    (root / "crlf.code-snippets").write_bytes(LIBRARY_TEXT.replace("invfoot", "crlffoot").replace("\n", "\r\n").encode())
    (root / "bom.code-snippets").write_bytes(b"\xef\xbb\xbf" + LIBRARY_TEXT.replace("invfoot", "bomfoot").encode())
    (root / "broken.code-snippets").write_text('{ "Oops": { "prefix": "oops", "body": ', encoding="utf-8")
    (root / "latin1.code-snippets").write_bytes('{"Caf\xe9": {"prefix": "cafe", "body": "caf\xe9"}}'.encode("latin-1"))
    snipmate = root / "snippets"
    snipmate.mkdir()
    (snipmate / "python.snippets").write_text(SNIPMATE, encoding="utf-8")
    (snipmate / "_.snippets").write_text("snippet ty\n\tThank you\n", encoding="utf-8")
    personal = CORPORA / "personal" / "personal.code-snippets"
    if personal.is_file():
        shutil.copy(personal, root / "personal.code-snippets")
    for path in root.rglob("*"):
        if path.is_file():
            path.chmod(0o644)
    return root


def digest_with_times(root: pathlib.Path) -> dict[str, str]:
    digests = tree_digest(root)
    for relative in digests:
        digests[relative] += f" {(root / relative).stat().st_mtime_ns}"
    return digests


def test_a_whole_session_leaves_the_library_byte_for_byte_as_it_was(tmp_path: pathlib.Path):
    library = build_library(tmp_path / "library")
    before = digest_with_times(library)
    library_file = (library / "test.code-snippets").as_uri()
    snipmate_file = (library / "snippets" / "python.snippets").as_uri()
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]},
                          capabilities={"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}})
        # The library's own files opened as documents, edited, saved and closed: only the editor writes them.
        for uri, language, text in ((library_file, "jsonc", LIBRARY_TEXT), (snipmate_file, "snippets", SNIPMATE)):
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                     "contentChanges": [{"text": "inv\n" + text[:40]}]})
            reply = client.call("textDocument/completion", completion_params(0, 3, uri))
            for item in reply["result"]["items"][:5]:
                client.call("completionItem/resolve", item)
            client.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": "garbage"})
        for question in ("how do I remind a client that an invoice is overdue?", "signature", "thank you"):
            client.call("snippets/ask", {"question": question, "textDocument": {"uri": snipmate_file}})
        # Reloads: every kind of change notification, for files that exist and files that do not.
        changes = [{"uri": (library / name).as_uri(), "type": kind}
                   for name in ("test.code-snippets", "broken.code-snippets", "gone.code-snippets", "snippets/python.snippets")
                   for kind in (1, 2, 3)]
        client.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        client.notify("workspace/didChangeConfiguration", {"settings": {"snippets": {"libraries": [str(library)], "maxCompletionItems": 3}}})
        client.wait_for_load()
        # Abuse in between.
        client.send_bytes(frame(b"\xff\xfe not json"))
        client.send_bytes(b"Content-Length: -1\r\n\r\n{}")
        client.send_bytes(frame(json.dumps({"jsonrpc": "2.0", "id": "x", "method": "workspace/executeCommand",
                                            "params": {"command": "snippets.unknown", "arguments": [str(library)]}}).encode()))
        client.response("x")
        for n in range(200):
            client.notify("$/cancelRequest", {"id": n})
        reply = client.call("textDocument/completion", completion_params(0, 3, library_file))
        assert "result" in reply, reply
        for uri in (library_file, snipmate_file):
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        assert client.shutdown_and_exit() == 0
        assert_stdout_is_only_protocol(client)
    after = digest_with_times(library)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed == set(), f"the session changed library files: {sorted(changed)}"
