"""A new user's first seconds over real pipes: the first completion, sent before the library has loaded, finds the
snippet; the trigger characters come from the library; a library path that does not exist is shown as a warning."""

from __future__ import annotations

import asyncio
import os
import pathlib

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, make_test_lsp_client

from conftest import capabilities, lsp_session, wait_for_load
from lspkit import TIMEOUT, server_binary, write_library

DOC_URI = "file:///tmp/snippets-e2e/first.md"
BANG_LIBRARY = """{
  "Doctype": { "prefix": "!doc", "body": "<!doctype html>" },
  "Include": { "prefix": "#inc", "body": "#include <$1>" }
}
"""


def open_document(client: LanguageClient, text: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=DOC_URI, language_id="markdown", version=1, text=text)
        )
    )


async def complete(client: LanguageClient, character: int) -> types.CompletionList:
    result = await asyncio.wait_for(
        client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=DOC_URI),
                position=types.Position(line=0, character=character),
            )
        ),
        TIMEOUT,
    )
    assert isinstance(result, types.CompletionList)
    return result


async def test_the_first_completion_sent_before_the_library_loaded_finds_the_snippet(library: pathlib.Path):
    # A client that can register completion gets the `initialize` reply before the load, so its first completion
    # arrives while the library is being read.
    (library / "web.code-snippets").write_text(BANG_LIBRARY, encoding="utf-8")
    libraries = [str(library)]
    client = make_test_lsp_client()
    registrations: list[types.Registration] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        registrations.extend(params.registrations)

    env = dict(os.environ)
    env.pop("SNIPPETS_LIBRARY", None)
    await client.start_io(server_binary(), "serve", env=env)
    try:
        caps = capabilities()
        caps.text_document.completion.dynamic_registration = True
        await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(capabilities=caps, initialization_options={"libraries": libraries})
            ),
            TIMEOUT,
        )
        open_document(client, "invf")
        result = await complete(client, 4)
        labels = [item.label for item in result.items]
        # It waited for the load (bounded: on a very slow machine it may say "incomplete", never a final "nothing").
        assert labels == ["invfoot"] or (result.is_incomplete and not labels), (result.is_incomplete, labels)
        await wait_for_load(client)
        assert [item.label for item in (await complete(client, 4)).items] == ["invfoot"]
        # Completion is registered with the library's trigger characters once it has loaded.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not registrations and loop.time() < deadline:
            await asyncio.sleep(0.02)
        completion = [r for r in registrations if r.method == types.TEXT_DOCUMENT_COMPLETION]
        assert completion, registrations
        characters = set(completion[-1].register_options["triggerCharacters"])
        assert {"!", "#"} <= characters
        assert not any(c.isalnum() for c in characters), characters
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        await asyncio.wait_for(client.stop(), TIMEOUT)


async def test_initialize_gives_the_trigger_characters_of_the_library_and_typing_one_offers_its_snippet(
    tmp_path: pathlib.Path,
):
    library = write_library(tmp_path / "library", BANG_LIBRARY)
    async with lsp_session(library) as (client, result):
        provider = result.capabilities.completion_provider
        assert provider is not None and provider.trigger_characters is not None
        assert ["!", "#"] == list(provider.trigger_characters)
        open_document(client, "!")
        items = (await complete(client, 1)).items
        assert [item.label for item in items] == ["!doc"]


async def test_a_missing_library_is_shown_as_a_warning_naming_the_path(tmp_path: pathlib.Path):
    missing = tmp_path / "no-such-folder"
    async with lsp_session(missing) as (client, _):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not client.messages and loop.time() < deadline:
            await asyncio.sleep(0.02)
        warnings = [m for m in client.messages if m.type == types.MessageType.Warning]
        assert len(warnings) == 1, client.messages
        assert f"'{missing}' does not exist" in warnings[0].message
        assert "snippets.libraries" in warnings[0].message
        uri = missing.as_uri()
        while uri not in client.diagnostics and loop.time() < deadline:
            await asyncio.sleep(0.02)
        assert "does not exist" in client.diagnostics[uri][0].message


async def test_helix_capabilities_get_trigger_characters_and_a_resolvable_ask_action(tmp_path: pathlib.Path):
    # Helix's capabilities (helix-lsp/src/client.rs): completion without dynamic registration, code actions resolved
    # for `edit` and `command` (Helix resolves when either is missing).
    library = write_library(tmp_path / "library")
    (library / "web.code-snippets").write_text(BANG_LIBRARY, encoding="utf-8")
    client = make_test_lsp_client()
    env = dict(os.environ)
    env.pop("SNIPPETS_LIBRARY", None)
    await client.start_io(server_binary(), "serve", env=env)
    try:
        caps = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                completion=types.CompletionClientCapabilities(
                    completion_item=types.ClientCompletionItemOptions(snippet_support=True, insert_replace_support=True)
                ),
                code_action=types.CodeActionClientCapabilities(
                    code_action_literal_support=types.ClientCodeActionLiteralOptions(
                        code_action_kind=types.ClientCodeActionKindOptions(value_set=["", "refactor.rewrite"])
                    ),
                    data_support=True,
                    resolve_support=types.ClientCodeActionResolveOptions(properties=["edit", "command"]),
                ),
            )
        )
        result = await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=caps, client_info=types.ClientInfo(name="helix", version="25.07"),
                    initialization_options={"libraries": [str(library)]},
                )
            ),
            TIMEOUT,
        )
        assert list(result.capabilities.completion_provider.trigger_characters) == ["!", "#"]
        open_document(client, "?? invoice footer")
        actions = await asyncio.wait_for(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=DOC_URI),
                    range=types.Range(start=types.Position(line=0, character=3), end=types.Position(line=0, character=3)),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            ),
            TIMEOUT,
        )
        ask = actions[0]
        assert ask.edit is None and ask.command is None
        resolved = await asyncio.wait_for(client.code_action_resolve_async(ask), TIMEOUT)
        assert resolved.command.command == "snippets.ask"
        assert resolved.edit.changes[DOC_URI][0].new_text.startswith("Payment is due within 14 days.")
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        await asyncio.wait_for(client.stop(), TIMEOUT)
