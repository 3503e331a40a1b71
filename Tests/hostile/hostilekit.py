"""Helpers for the hostile-input, load and nothing-lost tests: a client that insists every stdout byte is protocol,
memory figures from /proc, a library tree's hash, and the shared corpora."""

from __future__ import annotations

import hashlib
import pathlib
from typing import Any

import pytest

from lspkit import REPO_ROOT, RawClient, memory_kib, parse_frames, write_library  # noqa: F401 (memory_kib: re-exported)

#: The shared corpora beside the repository (read in place, never copied).
CORPORA = (REPO_ROOT / ".." / "shared" / "corpora").resolve()
CORPUS_LIBRARIES = [CORPORA / "friendly-snippets", CORPORA / "vim-snippets", CORPORA / "personal"]

DOC_URI = "file:///tmp/snippets-hostile/note.py"


def completion_params(line: int, character: int, uri: str = DOC_URI) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def open_document(client: RawClient, text: str, uri: str = DOC_URI, language: str = "python") -> None:
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})


def assert_stdout_is_only_protocol(client: RawClient) -> list[dict[str, Any]]:
    """Parses every byte the server wrote to stdout as framed JSON-RPC messages (parse_frames raises on any stray
    byte) and fails if anything is left over; returns the messages."""
    messages, tail = parse_frames(client.stdout_bytes)
    assert tail == b"", f"stray or truncated bytes at the end of stdout: {tail[:200]!r}"
    return messages


def tree_digest(root: pathlib.Path) -> dict[str, str]:
    """SHA-256 of every file under `root` (relative path -> digest), plus each file's mode and size, so any write,
    truncation, new file or removal shows."""
    digests = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            stat = path.stat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            digests[str(path.relative_to(root))] = f"{digest} {oct(stat.st_mode)} {stat.st_size}"
    return digests


@pytest.fixture
def library(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh library directory holding `test.code-snippets` (imported by the test modules: a conftest.py here
    would shadow e2e's, which its tests import by name)."""
    return write_library(tmp_path / "library")
