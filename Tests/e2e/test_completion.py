"""Completion as an editor sees it, through pytest-lsp's client against the real binary: encoding negotiation,
incremental edits on non-ASCII lines, item fields, snippet vs plain text, resolve, limits, variables, reload."""

from __future__ import annotations

import asyncio
import datetime
import json
import pathlib
import time

import pytest
from lsprotocol import types

from conftest import lsp_session
from lspkit import ENTRY_LINES, LIBRARY_FILE_NAME, LIBRARY_TEXT, TIMEOUT, apply_edit, utf_length, write_library

DOC_URI = "file:///tmp/snippets-e2e/note.md"
ENCODINGS = ["utf-8", "utf-16", "utf-32"]


class Document:
    """A client-side copy of an open document that sends incremental changes, as an editor does."""

    def __init__(self, client, text: str, encoding: str, uri: str = DOC_URI, language: str = "markdown"):
        self.client, self.text, self.encoding, self.uri, self.version = client, text, encoding, uri, 1
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
            )
        )

    def position_after(self, line: int, prefix: str) -> types.Position:
        """The position just after `prefix` at the start of `line`, in the negotiated encoding."""
        assert self.text.split("\n")[line].startswith(prefix)
        return types.Position(line=line, character=utf_length(prefix, self.encoding))

    def change(self, start: types.Position, end: types.Position, new_text: str) -> None:
        self.version += 1
        self.text = apply_edit(
            self.text, (start.line, start.character), (end.line, end.character), new_text, self.encoding
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new_text)
                ],
            )
        )

    async def complete(self, position: types.Position) -> list[types.CompletionItem]:
        result = await asyncio.wait_for(
            self.client.text_document_completion_async(
                types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=self.uri), position=position)
            ),
            TIMEOUT,
        )
        return completion_items(result)

    def accept(self, item: types.CompletionItem) -> str:
        """The document text after applying `item`'s textEdit, as an editor would."""
        edit = item.text_edit
        assert isinstance(edit, types.TextEdit), f"expected a TextEdit, got {edit!r}"
        return apply_edit(
            self.text,
            (edit.range.start.line, edit.range.start.character),
            (edit.range.end.line, edit.range.end.character),
            edit.new_text,
            self.encoding,
        )


def completion_items(result) -> list[types.CompletionItem]:
    if result is None:
        return []
    return list(result.items) if isinstance(result, types.CompletionList) else list(result)


def item_labelled(items: list[types.CompletionItem], label: str) -> types.CompletionItem:
    matches = [item for item in items if item.label == label]
    assert matches, f"no item labelled {label!r} among {[i.label for i in items]!r}"
    return matches[0]


def negotiated(result: types.InitializeResult) -> str:
    return str(result.capabilities.position_encoding or "utf-16")


@pytest.mark.parametrize(
    "offered, expected",
    [(["utf-8"], "utf-8"), (["utf-32"], "utf-32"), (["utf-16"], "utf-16"), (None, "utf-16"), ([], "utf-16")],
)
async def test_position_encoding_is_negotiated(library: pathlib.Path, offered, expected):
    async with lsp_session(library, encodings=offered) as (_, result):
        assert negotiated(result) == expected


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_completion_replaces_exactly_the_typed_prefix_after_non_ascii_text(library, encoding):
    offered = None if encoding == "utf-16" else [encoding]
    async with lsp_session(library, encodings=offered, snippet_support=False) as (client, result):
        assert negotiated(result) == encoding
        before = "привет 😀 你好 "
        doc = Document(client, before + "\nsecond line\n", encoding)
        # Type the trigger as an editor would: one incremental change at the end of the line.
        end_of_line = doc.position_after(0, before)
        doc.change(end_of_line, end_of_line, "invfoot")
        cursor = doc.position_after(0, before + "invfoot")
        item = item_labelled(await doc.complete(cursor), "invfoot")
        assert item.text_edit.range.start == end_of_line
        assert item.text_edit.range.end == cursor
        assert doc.accept(item) == (
            before + "Payment is due within 14 days.\nQuote invoice INV-0000.\nsecond line\n"
        )


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_incremental_edits_across_lines_keep_the_server_in_sync(library, encoding):
    offered = None if encoding == "utf-16" else [encoding]
    async with lsp_session(library, encodings=offered, snippet_support=False) as (client, _):
        doc = Document(client, "Привет мир\n😀😀 x\n", encoding)
        # Replace "мир" with "世界 🌍" on line 0.
        doc.change(doc.position_after(0, "Привет "), doc.position_after(0, "Привет мир"), "世界 🌍")
        # Insert a whole new line between the two.
        line1 = types.Position(line=1, character=0)
        doc.change(line1, line1, "😀 sig\n")
        # Replace "x" (now on line 2) with a partly typed trigger, then finish typing it.
        doc.change(doc.position_after(2, "😀😀 "), doc.position_after(2, "😀😀 x"), "invh")
        doc.change(doc.position_after(2, "😀😀 invh"), doc.position_after(2, "😀😀 invh"), "ead")
        assert doc.text == "Привет 世界 🌍\n😀 sig\n😀😀 invhead\n"

        header = item_labelled(await doc.complete(doc.position_after(2, "😀😀 invhead")), "invhead")
        assert header.text_edit.range.start == doc.position_after(2, "😀😀 ")
        assert doc.accept(header) == "Привет 世界 🌍\n😀 sig\n😀😀 INVOICE number\n"

        signature = item_labelled(await doc.complete(doc.position_after(1, "😀 sig")), "sig")
        assert signature.text_edit.range.start == doc.position_after(1, "😀 ")
        assert doc.accept(signature) == "Привет 世界 🌍\n😀 Mira Okafor\n😀😀 invhead\n"


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_cyrillic_trigger_after_emoji(library, encoding):
    offered = None if encoding == "utf-16" else [encoding]
    async with lsp_session(library, encodings=offered, snippet_support=False) as (client, _):
        doc = Document(client, "😀 подпись", encoding)
        item = item_labelled(await doc.complete(doc.position_after(0, "😀 подпись")), "подпись")
        assert item.text_edit.range.start == doc.position_after(0, "😀 ")
        assert doc.accept(item) == "😀 С уважением, Мира"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
async def test_insert_replace_edit_when_completing_inside_a_word(library, encoding):
    """With the cursor inside `invf|oot`, a client that supports insert/replace gets both ranges: inserting keeps
    `oot`, replacing swallows it."""
    offered = None if encoding == "utf-16" else [encoding]
    async with lsp_session(library, encodings=offered, insert_replace=True, snippet_support=False) as (client, _):
        doc = Document(client, "😀 invfoot", encoding)
        items = await doc.complete(doc.position_after(0, "😀 invf"))
        edit = item_labelled(items, "invfoot").text_edit
        assert isinstance(edit, types.InsertReplaceEdit), f"expected an InsertReplaceEdit, got {edit!r}"
        assert edit.insert == types.Range(start=doc.position_after(0, "😀 "), end=doc.position_after(0, "😀 invf"))
        assert edit.replace == types.Range(start=doc.position_after(0, "😀 "), end=doc.position_after(0, "😀 invfoot"))


async def test_completion_items_carry_trigger_title_kind_and_order(library):
    async with lsp_session(library) as (client, _):
        doc = Document(client, "sig", "utf-16")
        items = await doc.complete(doc.position_after(0, "sig"))
        signature = item_labelled(items, "sig")
        assert signature.detail == "Signature"
        assert signature.kind == types.CompletionItemKind.Snippet
        assert signature.data is not None, "data must carry the snippet id for resolve"
        long_signature = item_labelled(items, "sigs")
        assert long_signature.detail == "Long signature"
        # Editors sort by sortText: it must keep the server's ranking, exact trigger first.
        sort_keys = [item.sort_text or item.label for item in items]
        assert sort_keys == sorted(sort_keys), f"sortText out of order: {sort_keys!r}"
        assert len(set(sort_keys)) == len(sort_keys), f"ties in sortText: {sort_keys!r}"
        assert items[0].label == "sig"


async def test_prefix_of_a_trigger_offers_the_matching_snippets(library):
    async with lsp_session(library) as (client, _):
        doc = Document(client, "inv", "utf-16")
        found = {item.label for item in await doc.complete(doc.position_after(0, "inv"))}
        assert {"invfoot", "invhead"} <= found
        assert "sig" not in found


async def test_snippet_text_when_the_client_supports_snippets(library):
    async with lsp_session(library, snippet_support=True) as (client, _):
        doc = Document(client, "invfoot", "utf-16")
        item = item_labelled(await doc.complete(doc.position_after(0, "invfoot")), "invfoot")
        assert item.insert_text_format == types.InsertTextFormat.Snippet
        assert "${1:14}" in item.text_edit.new_text
        assert "${2:INV-0000}" in item.text_edit.new_text


async def test_plain_text_when_the_client_does_not_support_snippets(library):
    async with lsp_session(library, snippet_support=False) as (client, _):
        doc = Document(client, "invfoot", "utf-16")
        item = item_labelled(await doc.complete(doc.position_after(0, "invfoot")), "invfoot")
        assert item.insert_text_format in (None, types.InsertTextFormat.PlainText)
        assert item.text_edit.new_text == "Payment is due within 14 days.\nQuote invoice INV-0000."


async def test_resolve_adds_markdown_documentation_with_preview_description_and_location(library):
    async with lsp_session(library) as (client, _):
        doc = Document(client, "invfoot", "utf-16")
        item = item_labelled(await doc.complete(doc.position_after(0, "invfoot")), "invfoot")
        resolved = await asyncio.wait_for(client.completion_item_resolve_async(item), TIMEOUT)
        documentation = resolved.documentation
        assert isinstance(documentation, types.MarkupContent), f"expected markdown, got {documentation!r}"
        assert documentation.kind == types.MarkupKind.Markdown
        text = documentation.value
        assert "Footer for outgoing invoices" in text
        assert "Payment is due within" in text
        assert f"{LIBRARY_FILE_NAME}:{ENTRY_LINES['Invoice footer']}" in text, text


async def test_max_completion_items_caps_the_list_and_marks_it_incomplete(tmp_path):
    entries = {
        f"Item {n:02}": {"prefix": f"item{n:02}", "body": f"item number {n}", "description": f"Item {n}"}
        for n in range(1, 31)
    }
    library = write_library(tmp_path / "many", json.dumps(entries, indent=2), "many.code-snippets")
    async with lsp_session(library, init_options={"libraries": [str(library)], "maxCompletionItems": 5}) as (
        client,
        _,
    ):
        doc = Document(client, "item", "utf-16")
        result = await asyncio.wait_for(
            client.text_document_completion_async(
                types.CompletionParams(
                    text_document=types.TextDocumentIdentifier(uri=doc.uri), position=doc.position_after(0, "item")
                )
            ),
            TIMEOUT,
        )
        assert isinstance(result, types.CompletionList), f"expected a CompletionList, got {result!r}"
        assert 1 <= len(result.items) <= 5
        assert result.is_incomplete is True


@pytest.mark.parametrize("mode", ["always", "never"])
async def test_resolve_variables_setting(library, mode):
    options = {"libraries": [str(library)], "resolveVariables": mode}
    async with lsp_session(library, init_options=options, snippet_support=True) as (client, _):
        doc = Document(client, "copyyear", "utf-16")
        item = item_labelled(await doc.complete(doc.position_after(0, "copyyear")), "copyyear")
        text = item.text_edit.new_text
        if mode == "always":
            assert str(datetime.date.today().year) in text and "CURRENT_YEAR" not in text, text
        else:
            assert "CURRENT_YEAR" in text, text


async def test_editing_a_library_file_on_disk_is_picked_up_without_restart(library):
    # This client cannot watch files for the server, so the server must notice the edit on its own.
    async with lsp_session(library) as (client, _):
        doc = Document(client, "brandnew", "utf-16")
        cursor = doc.position_after(0, "brandnew")
        assert "brandnew" not in {item.label for item in await doc.complete(cursor)}

        path = library / LIBRARY_FILE_NAME
        path.write_text(
            LIBRARY_TEXT.replace(
                '  "Invoice footer": {',
                '  "Brand new": {\n    "prefix": "brandnew",\n    "body": "fresh from disk"\n  },\n  "Invoice footer": {',
            ),
            encoding="utf-8",
        )
        deadline = time.monotonic() + 10
        labels: set[str] = set()
        while time.monotonic() < deadline:
            labels = {item.label for item in await doc.complete(cursor)}
            if "brandnew" in labels:
                break
            await asyncio.sleep(0.2)
        assert "brandnew" in labels, f"library edit not picked up within 10 s; saw {labels!r}"
        item = item_labelled(await doc.complete(cursor), "brandnew")
        assert item.text_edit.new_text == "fresh from disk"
