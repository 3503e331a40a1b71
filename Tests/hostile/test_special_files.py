"""Special files where the server expects a snippet file, over real pipes: a FIFO (or a link to one) as the save
target, and saveTo pointing at files that are not snippet files or not in the library. The server must answer at
once with a refusal that says why, keep answering completions, exit when asked, and leave every file alone."""

from __future__ import annotations

import os
import pathlib

import pytest

from hostilekit import library  # noqa: F401 (a fixture)
from hostilekit import DOC_URI, assert_stdout_is_only_protocol, completion_params, open_document, tree_digest
from lspkit import RawClient

#: Seconds a refusal may take: far more than it needs, far less than "blocked for good".
PROMPT = 20


def save(client: RawClient) -> dict:
    params = {"command": "snippets.saveSelection", "arguments": [{
        "textDocument": {"uri": DOC_URI},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 4}},
    }]}
    return client.call("workspace/executeCommand", params, timeout=PROMPT)


def serve_and_save(library: pathlib.Path, options: dict) -> tuple[dict, RawClient]:
    client = RawClient("serve")
    client.initialize(init_options={"libraries": [str(library)], **options})
    open_document(client, "Best wishes from Zürich\nMira\n")
    return save(client), client


@pytest.mark.parametrize("shape", ["fifo", "link to a fifo", "saveTo a fifo"])
def test_saving_into_a_fifo_is_refused_at_once_and_the_server_keeps_going(tmp_path: pathlib.Path, library: pathlib.Path, shape):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    options: dict = {}
    if shape == "fifo":
        os.unlink(fifo)
        fifo = library / "saved.code-snippets"
        os.mkfifo(fifo)
    elif shape == "link to a fifo":
        (library / "saved.code-snippets").symlink_to(fifo)
    else:
        os.unlink(fifo)
        fifo = library / "pipe.code-snippets"
        os.mkfifo(fifo)
        options = {"saveTo": str(fifo)}
    reply, client = serve_and_save(library, options)
    with client:
        assert "error" in reply, reply
        assert "FIFO" in reply["error"]["message"], reply
        reply = client.call("textDocument/completion", completion_params(0, 3), timeout=PROMPT)
        assert "result" in reply, reply
        assert client.shutdown_and_exit() == 0, client.stderr_text()[-2000:]
        assert_stdout_is_only_protocol(client)


@pytest.mark.parametrize("target, reason", [
    ("{outside}/elsewhere.code-snippets", "not inside your library"),
    ("{library}/package.json", ".code-snippets"),
    ("{library}/.vscode/settings.json", ".code-snippets"),
    ("{library}/notes.md", ".code-snippets"),
    ("{library}/../escape.code-snippets", "not inside your library"),
])
def test_save_to_anything_but_a_snippet_file_in_the_library_is_refused_and_nothing_is_written(
    tmp_path: pathlib.Path, library: pathlib.Path, target: str, reason: str
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (library / ".vscode").mkdir()
    (library / ".vscode" / "settings.json").write_text("{}\n")
    (library / "package.json").write_text('{"name": "x"}\n')
    before = tree_digest(tmp_path)
    path = target.format(outside=outside, library=library)
    reply, client = serve_and_save(library, {"saveTo": path})
    with client:
        assert "error" in reply and reason in reply["error"]["message"], reply
        assert client.shutdown_and_exit() == 0
    assert tree_digest(tmp_path) == before


def test_a_hostile_project_snippet_file_does_not_hold_the_users_own_library_hostage(tmp_path: pathlib.Path, library: pathlib.Path):
    """A cloned repository's `.vscode/*.code-snippets` with a body full of unclosed placeholders takes a while to
    check; the user's own snippets must complete before it is done (they are served first), and the project's
    snippets follow when it is."""
    import json
    import time

    repository = tmp_path / "repository"
    (repository / ".vscode").mkdir(parents=True)
    hostile = {"slow": {"prefix": "projslow", "body": "${1:" * 20000}}
    (repository / ".vscode" / "hostile.code-snippets").write_text(json.dumps(hostile))
    with RawClient("serve") as client:
        params = {"processId": os.getpid(), "rootUri": repository.as_uri(), "capabilities": {},
                  "workspaceFolders": [{"uri": repository.as_uri(), "name": "repository"}],
                  "initializationOptions": {"libraries": [str(library)]}}
        assert "result" in client.call("initialize", params)
        client.notify("initialized", {})
        open_document(client, "inv")
        deadline = time.monotonic() + 120
        while True:
            reply = client.call("textDocument/completion", completion_params(0, 3))
            if "invfoot" in [item["label"] for item in reply["result"]["items"]]:
                break
            assert time.monotonic() < deadline, "the user's own snippets never completed"
            time.sleep(0.05)
        # Served before the whole load (project snippets included) was announced.
        assert not any(m.get("method") == "window/logMessage" and m["params"]["message"].startswith("loaded")
                       for m in client._inbox), client._inbox
        client.wait_for_load()
        client.notify("textDocument/didChange", {"textDocument": {"uri": DOC_URI, "version": 2},
                                                 "contentChanges": [{"text": "projsl"}]})
        reply = client.call("textDocument/completion", completion_params(0, 6))
        assert "projslow" in [item["label"] for item in reply["result"]["items"]], reply
        assert client.shutdown_and_exit() == 0


def test_a_save_keeps_the_files_mode_and_extended_attributes(library: pathlib.Path):
    saved = library / "saved.code-snippets"
    saved.write_text("{}\n")
    os.chmod(saved, 0o640)
    try:
        os.setxattr(saved, "user.snippets-test", b"kept")
    except OSError:
        pytest.skip("this file system does not take user extended attributes")
    reply, client = serve_and_save(library, {})
    with client:
        assert "result" in reply, reply
        assert client.shutdown_and_exit() == 0
    assert "Best wishes" in saved.read_text(encoding="utf-8")
    assert oct(saved.stat().st_mode & 0o7777) == oct(0o640)
    assert os.getxattr(saved, "user.snippets-test") == b"kept"
