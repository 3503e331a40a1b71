"""Asking and saving from editors that cannot send custom requests (Helix), through pytest-lsp against the real
binary: the "Ask snippets: …" code action, its resolve, the edit, the answer as window/showMessage, the
`snippets.ask` command with workspace/applyEdit, and "Save selection as snippet" with its refusals."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
from typing import Union

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, make_test_lsp_client

from conftest import wait_for_load
from lspkit import TIMEOUT, apply_edit, server_binary, utf_length

DOC_URI = "file:///tmp/snippets-e2e/mail.md"
LIBRARY = """{
  // Prose, kept byte for byte by every save.
  "Overdue reminder": {
    "prefix": "overdue",
    "body": ["Hi ${1:name}, invoice ${2:42} is overdue.", "Sent from $TM_FILENAME"],
    "description": "Remind a client about an overdue invoice"
  },
  "Signature": { "prefix": "sig", "body": "Mira" }, // trailing comment
}
"""


def helix_capabilities(resolve: bool) -> types.ClientCapabilities:
    """What Helix declares for code actions (resolve for `edit` and `command`), with UTF-8 positions."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf8]),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True, execute_command=types.ExecuteCommandClientCapabilities()
        ),
        text_document=types.TextDocumentClientCapabilities(
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(snippet_support=False)
            ),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=["", "refactor", "source"])
                ),
                data_support=True,
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit", "command"]) if resolve else None,
            ),
        ),
    )


@contextlib.asynccontextmanager
async def helix_session(library: pathlib.Path, *, resolve: bool = True, options: dict | None = None):
    client: LanguageClient = make_test_lsp_client()
    # lsprotocol reads every code action that has a `command` as a bare Command (its union hook only checks for the
    # key); Helix (serde, untagged) tries Command and falls back to CodeAction when `command` is not a string.
    converter = client.protocol._converter
    converter.register_structure_hook(
        Union[types.Command, types.CodeAction],
        lambda obj, _: converter.structure(
            obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction),
    )
    applied: list[types.ApplyWorkspaceEditParams] = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply(params: types.ApplyWorkspaceEditParams):
        applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_LIBRARY"}
    await client.start_io(server_binary(), "serve", env=env)
    try:
        await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=helix_capabilities(resolve),
                    client_info=types.ClientInfo(name="helix", version="24.7"),
                    initialization_options={"libraries": [str(library)], **(options or {})},
                )
            ),
            TIMEOUT,
        )
        await wait_for_load(client)
        client.applied = applied
        yield client
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)


@pytest.fixture
def library(tmp_path: pathlib.Path) -> pathlib.Path:
    directory = tmp_path / "library"
    directory.mkdir()
    (directory / "prose.code-snippets").write_text(LIBRARY, encoding="utf-8")
    return directory


def open_document(client: LanguageClient, text: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=DOC_URI, language_id="markdown", version=1, text=text)
        )
    )


async def code_actions(client: LanguageClient, start: tuple[int, int], end: tuple[int, int]) -> list[types.CodeAction]:
    result = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=DOC_URI),
                range=types.Range(start=types.Position(*start), end=types.Position(*end)),
                context=types.CodeActionContext(diagnostics=[]),
            )
        ),
        TIMEOUT,
    )
    return list(result or [])


async def execute(client: LanguageClient, command: str, argument: dict):
    return await asyncio.wait_for(
        client.workspace_execute_command_async(types.ExecuteCommandParams(command=command, arguments=[argument])),
        TIMEOUT,
    )


async def next_message(client: LanguageClient, seen: int) -> types.ShowMessageParams:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while len(client.messages) <= seen:
        assert loop.time() < deadline, "no window/showMessage"
        await asyncio.sleep(0.02)
    return client.messages[seen]


QUESTION_LINE = "  ?? Grüße: how do I remind about an overdue invoice"
TEXT = f"# Mail 😀\n{QUESTION_LINE}\nBye"


def edit_of(action: types.CodeAction) -> types.TextEdit:
    assert action.edit is not None and action.edit.changes is not None, action
    (edit,) = action.edit.changes[DOC_URI]
    return edit


def check_reminder_edit(edit: types.TextEdit) -> None:
    # The question after the indentation, in UTF-8 columns (the line holds ü and ß), is replaced by the snippet as
    # plain text: placeholders' text, $TM_FILENAME resolved by the server, the second line indented like the first.
    assert (edit.range.start.line, edit.range.start.character) == (1, 2)
    assert (edit.range.end.line, edit.range.end.character) == (1, utf_length(QUESTION_LINE, "utf-8"))
    result = apply_edit(TEXT, (1, 2), (1, edit.range.end.character), edit.new_text, "utf-8")
    assert result == "# Mail 😀\n  Hi name, invoice 42 is overdue.\n  Sent from mail.md\nBye"


async def test_ask_code_action_resolves_to_the_best_cited_snippet_and_shows_the_answer(library):
    async with helix_session(library) as client:
        open_document(client, TEXT)
        actions = await code_actions(client, (1, 5), (1, 6))  # Helix's one-character selection on the line
        ask = actions[0]
        assert ask.title == "Ask snippets: Grüße: how do I remind about an overdue…"
        assert ask.edit is None and ask.data is not None  # computed only when picked
        resolved = await asyncio.wait_for(client.code_action_resolve_async(ask), TIMEOUT)
        check_reminder_edit(edit_of(resolved))

        # Applying the action runs its command: the answer goes to window/showMessage.
        seen = len(client.messages)
        assert resolved.command is not None and resolved.command.command == "snippets.ask"
        reply = await execute(client, resolved.command.command, resolved.command.arguments[0])
        assert reply["status"] == "answered"
        message = await next_message(client, seen)
        assert message.type == types.MessageType.Info
        assert message.message.startswith('Your library has "Overdue reminder"'), message.message
        assert client.applied == []  # no range: the edit was the action's own


async def test_without_resolve_support_the_edit_comes_at_once(library):
    async with helix_session(library, resolve=False) as client:
        open_document(client, TEXT)
        (ask,) = await code_actions(client, (1, 0), (1, 0))
        check_reminder_edit(edit_of(ask))


async def test_marker_setting_and_selected_questions(library):
    async with helix_session(library, options={"askMarker": "ask:"}) as client:
        open_document(client, "?? overdue invoice\nask: overdue invoice\nwhich overdue invoice reminder")
        assert await code_actions(client, (0, 0), (0, 0)) == []  # `??` is not the marker any more
        (marked,) = await code_actions(client, (1, 0), (1, 0))
        assert marked.title == "Ask snippets: overdue invoice"
        actions = await code_actions(client, (2, 6), (2, 30))
        assert [a.title for a in actions] == ["Ask snippets: overdue invoice reminder", "Save selection as snippet"]


async def test_ask_command_with_a_range_applies_the_edit(library):
    async with helix_session(library) as client:
        open_document(client, "x\nzebra overdue invoice reminder")
        seen = len(client.messages)
        reply = await execute(client, "snippets.ask", {
            "question": "overdue invoice reminder",
            "textDocument": {"uri": DOC_URI},
            "range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 30}},
        })
        assert reply["citations"][0]["title"] == "Overdue reminder"
        message = await next_message(client, seen)
        assert "Inserted \"Overdue reminder\"" in message.message
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not client.applied:
            assert loop.time() < deadline, "no workspace/applyEdit"
            await asyncio.sleep(0.02)
        (edit,) = client.applied[0].edit.changes[DOC_URI]
        assert edit.new_text == "Hi name, invoice 42 is overdue.\nSent from mail.md"


async def test_save_selection_keeps_every_byte_completes_at_once_and_refuses_duplicates(library):
    saved_file = library / "saved.code-snippets"
    prose = library / "prose.code-snippets"
    async with helix_session(library, options={"saveTo": str(prose)}) as client:
        open_document(client, "Best wishes from Zürich 😀\nMira\n")
        actions = await code_actions(client, (0, 0), (1, 4))
        save = next(a for a in actions if a.title == "Save selection as snippet")
        seen = len(client.messages)
        reply = await execute(client, save.command.command, save.command.arguments[0])
        assert reply["title"] == "Best wishes from Zürich 😀" and reply["trigger"] == "best-wishes"
        assert reply["isInLibrary"] is True
        assert (await next_message(client, seen)).message.startswith('Saved "Best wishes from Zürich 😀"')

        written = prose.read_text(encoding="utf-8")
        before, after = LIBRARY.rsplit("}", 1)
        assert written.startswith(before.rstrip()), written  # the old text, trailing comment and comma included
        assert '"body": ["Best wishes from Zürich 😀", "Mira"]' in written
        assert not saved_file.exists()

        # The snippet completes at once, with no file watcher involved.
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=DOC_URI, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="best-wi")],
        ))
        completions = await asyncio.wait_for(client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=DOC_URI), position=types.Position(0, 7))), TIMEOUT)
        items = completions.items if hasattr(completions, "items") else completions
        assert any(item.label == "best-wishes" for item in items), [i.label for i in items]

        # A trigger in use is refused: error reply, an error message, the file untouched.
        for trigger, reason in [("sig", 'the trigger "sig" is already used by "Signature"'),
                                ("best-wishes", "already used by")]:
            seen = len(client.messages)
            with pytest.raises(JsonRpcException) as raised:
                await execute(client, "snippets.saveSelection", {
                    "textDocument": {"uri": DOC_URI}, "trigger": trigger,
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 7}},
                })
            assert reason in str(raised.value)
            message = await next_message(client, seen)
            assert message.type == types.MessageType.Error and message.message.startswith("Snippet not saved: ")
            assert prose.read_text(encoding="utf-8") == written
