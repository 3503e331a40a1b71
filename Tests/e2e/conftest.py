"""Fixtures for the end-to-end tests: a temp library and a pytest-lsp client connected to the real binary."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, make_test_lsp_client

from lspkit import TIMEOUT, is_load_message, server_binary, write_library


@pytest.fixture
def library(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh library directory holding `test.code-snippets`."""
    return write_library(tmp_path / "library")


def capabilities(
    *, snippet_support: bool = True, encodings: list[str] | None = None, insert_replace: bool = False
) -> types.ClientCapabilities:
    """Client capabilities as an editor would send them: completion with or without snippet support, and
    optionally `general.positionEncodings`."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind(e) for e in encodings] if encodings is not None else None
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(
                    snippet_support=snippet_support,
                    insert_replace_support=insert_replace or None,
                    documentation_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText],
                    resolve_support=types.ClientCompletionItemResolveOptions(properties=["documentation", "detail"]),
                ),
            ),
        ),
    )


async def wait_for_load(client: LanguageClient, seen: int = 0) -> None:
    """Waits until the server announces a finished library load after the first `seen` log messages."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not any(is_load_message(m) for m in client.log_messages[seen:]):
        if loop.time() > deadline:
            raise AssertionError(f"no library load announced within {TIMEOUT}s: {client.log_messages!r}")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def lsp_session(
    library_dir: pathlib.Path | None,
    *,
    snippet_support: bool = True,
    encodings: list[str] | None = None,
    insert_replace: bool = False,
    init_options: dict | None = None,
    env: dict[str, str] | None = None,
):
    """Starts `snippets-lsp serve` under pytest-lsp's client, initializes it with `libraries = [library_dir]`
    (unless `init_options` is given) and yields `(client, initialize_result)`; shuts the server down after."""
    client: LanguageClient = make_test_lsp_client()
    server_env = dict(os.environ)
    server_env.pop("SNIPPETS_LIBRARY", None)
    server_env.update(env or {})
    await client.start_io(server_binary(), "serve", env=server_env)
    try:
        if init_options is None and library_dir is not None:
            init_options = {"libraries": [str(library_dir)]}
        result = await asyncio.wait_for(
            client.initialize_session(
                types.InitializeParams(
                    capabilities=capabilities(
                        snippet_support=snippet_support, encodings=encodings, insert_replace=insert_replace
                    ),
                    initialization_options=init_options,
                    root_uri=None,
                )
            ),
            TIMEOUT,
        )
        await wait_for_load(client)
        yield client, result
        await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
    finally:
        server = client._server
        if server is not None and server.returncode is None:
            server.kill()
        await asyncio.wait_for(client.stop(), TIMEOUT)
