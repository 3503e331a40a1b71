"""Protocol-level behaviour of the real binary over raw pipes: lifecycle, exit codes, error codes, stdout purity,
logging to stderr, and the ways of pointing the server at a library."""

from __future__ import annotations

import pathlib

import pytest

from lspkit import RawClient, frame, parse_frames, utf_length, write_library

DOC_URI = "file:///tmp/snippets-e2e/note.txt"


def open_document(client: RawClient, text: str, uri: str = DOC_URI, language: str = "plaintext") -> None:
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
    )


def completion_params(line: int, character: int, uri: str = DOC_URI) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def labels(reply: dict) -> list[str]:
    """Labels of a completion reply, whether it is a list or a CompletionList."""
    assert "result" in reply, f"completion failed: {reply!r}"
    result = reply["result"]
    items = result["items"] if isinstance(result, dict) else (result or [])
    return [item["label"] for item in items]


def test_initialize_then_shutdown_and_exit_ends_with_status_zero(library: pathlib.Path):
    with RawClient("serve") as client:
        result = client.initialize(init_options={"libraries": [str(library)]})
        capabilities = result["capabilities"]
        completion = capabilities.get("completionProvider")
        assert completion is not None, f"no completionProvider in {capabilities!r}"
        assert completion.get("resolveProvider") is True
        sync = capabilities.get("textDocumentSync")
        change = sync.get("change") if isinstance(sync, dict) else sync
        assert change == 2, f"expected incremental sync (2), got {sync!r}"
        if isinstance(sync, dict):
            assert sync.get("openClose") is True
        assert client.shutdown_and_exit() == 0


def test_no_command_speaks_lsp_like_serve(library: pathlib.Path):
    with RawClient() as client:
        client.initialize(init_options={"libraries": [str(library)]})
        assert client.shutdown_and_exit() == 0


def test_exit_without_shutdown_ends_with_status_one(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        client.notify("exit")
        assert client.wait_exit() == 1


def test_end_of_input_ends_the_server(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        client.close_stdin()
        client.wait_exit()  # any status, but it must not hang


def test_request_before_initialize_is_refused_with_32002(library: pathlib.Path):
    with RawClient("serve") as client:
        reply = client.call("textDocument/completion", completion_params(0, 0))
        assert reply.get("error", {}).get("code") == -32002, reply
        # The session is still usable.
        client.initialize(init_options={"libraries": [str(library)]})
        assert client.shutdown_and_exit() == 0


def test_unknown_request_is_answered_with_32601_and_unknown_notification_is_ignored(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        reply = client.call("snippets/noSuchMethod", {})
        assert reply.get("error", {}).get("code") == -32601, reply
        client.notify("snippets/noSuchNotification", {})
        client.notify("$/noSuchNotification", {})
        follow_up = client.request("shutdown")
        assert client.response(follow_up).get("result", "missing") is None
        unexpected = [m for m in client.drain(0.3) if "id" in m and "method" not in m]
        assert unexpected == [], f"notifications must not be answered: {unexpected!r}"
        client.notify("exit")
        assert client.wait_exit() == 0


def test_invalid_json_is_answered_with_32700_and_the_server_goes_on(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        client.send_bytes(frame(b'{"jsonrpc": "2.0", "id": 99, "method": "textDocument/completion", '))
        reply = client.receive(lambda m: "error" in m and m.get("id") is None)
        assert reply["error"]["code"] == -32700, reply
        assert client.shutdown_and_exit() == 0


def test_request_after_shutdown_is_invalid(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "invfoot")
        assert client.call("shutdown").get("result", "missing") is None
        reply = client.call("textDocument/completion", completion_params(0, 7))
        assert reply.get("error", {}).get("code") == -32600, reply
        client.notify("exit")
        assert client.wait_exit() == 0


def test_cancelled_requests_get_exactly_one_reply_each(library: pathlib.Path):
    """Cancellation races the work, so a cancelled request may still be answered normally; what must hold is one
    reply per request, and -32800 for those that were cancelled in time."""
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "inv")
        ids = [client.request("textDocument/completion", completion_params(0, 3)) for _ in range(40)]
        for request_id in ids:
            client.notify("$/cancelRequest", {"id": request_id})
        replies = {request_id: client.response(request_id) for request_id in ids}
        for request_id, reply in replies.items():
            if "error" in reply:
                assert reply["error"]["code"] == -32800, reply
            else:
                assert "result" in reply, reply
        extra = [m for m in client.drain(0.3) if m.get("id") in replies]
        assert extra == [], f"requests answered twice: {extra!r}"
        cancelled = sum("error" in r for r in replies.values())
        print(f"{cancelled} of {len(ids)} completion requests were cancelled before they ran")
        assert client.shutdown_and_exit() == 0


def test_stdout_carries_only_framed_protocol_messages(tmp_path: pathlib.Path):
    """Every byte on stdout belongs to a well-formed message, even with a broken library file, protocol errors
    and non-ASCII text about."""
    library = write_library(tmp_path / "library")
    (library / "broken.code-snippets").write_text('{ "Oops": { "prefix": "oops", "body": ', encoding="utf-8")
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        line = "привет 😀 你好 inv"
        open_document(client, line)
        client.call("textDocument/completion", completion_params(0, utf_length(line, "utf-16")))
        client.call("snippets/noSuchMethod", {})
        client.send_bytes(frame(b"not json at all"))
        client.receive(lambda m: "error" in m and m.get("id") is None)
        assert client.shutdown_and_exit() == 0
        messages, tail = parse_frames(client.stdout_bytes)
        assert tail == b"", f"stray bytes on stdout: {tail[:200]!r}"
        assert len(messages) >= 5


def test_problems_loading_the_library_are_logged_on_stderr(tmp_path: pathlib.Path):
    """Someone reading the server's log must learn which file is broken, not only that one is."""
    library = write_library(tmp_path / "library")
    (library / "broken.code-snippets").write_text('{ "Oops": { "prefix": "oops", "body": ', encoding="utf-8")
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "invfoot")
        # The good file still loads next to the broken one.
        assert "invfoot" in labels(client.call("textDocument/completion", completion_params(0, 7)))
        assert client.shutdown_and_exit() == 0
        assert "broken.code-snippets" in client.stderr_text(), client.stderr_text()


@pytest.mark.parametrize("how", ["environment", "argument"])
def test_library_from_environment_or_argument(library: pathlib.Path, how: str):
    if how == "environment":
        client = RawClient("serve", env={"SNIPPETS_LIBRARY": str(library)})
    else:
        client = RawClient("serve", "--library", str(library))
    with client:
        client.initialize()
        open_document(client, "invfoot")
        assert "invfoot" in labels(client.call("textDocument/completion", completion_params(0, 7)))
        assert client.shutdown_and_exit() == 0



def test_command_line_mistake_exits_two_with_the_reason_on_stderr():
    with RawClient("serve", "--no-such-option") as client:
        client.close_stdin()
        assert client.wait_exit() == 2
        assert client.stdout_bytes == b"", "a command-line mistake must not write to the protocol stream"
        assert "--no-such-option" in client.stderr_text()


def test_whole_document_change_replaces_the_text(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "nothing here")
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": DOC_URI, "version": 2}, "contentChanges": [{"text": "😀 ok\ninvhead"}]},
        )
        reply = client.call("textDocument/completion", completion_params(1, 7))
        assert "invhead" in labels(reply)
        assert client.shutdown_and_exit() == 0
