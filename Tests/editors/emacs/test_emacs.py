"""editors/emacs/README.md followed word for word in real Emacs (Debian's emacs-nox with elpa-eglot, elpa-lsp-mode,
elpa-company, elpa-yasnippet; `make emacs-deps` installs them) in batch mode: each README block is loaded as
written, HOME holds the library at ~/.config/snippets and snippets-lsp is on PATH; drive.el completes a trigger,
asks with the code action and saves a selection."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from lspkit import server_binary

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE_DIR = HERE.parents[2] / "editors" / "emacs"
README = PACKAGE_DIR / "README.md"

LIBRARY = """{
  "Invoice footer": {
    "prefix": "invfoot",
    "body": ["Payment is due within ${1:14} days.", "Quote invoice ${2:INV-0000}."]
  },
  "Gentle payment reminder": {
    "prefix": "remind",
    "body": ["Hi ${1:name}, invoice ${2:42} is now overdue.", "Could you pay it this week?"],
    "description": "Remind a client that an invoice is overdue"
  }
}
"""


def readme_blocks() -> dict[str, str]:
    blocks = re.findall(r"```elisp\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2, "editors/emacs/README.md should hold the eglot and the lsp-mode set-up"
    for block in blocks:
        assert len(block.strip().splitlines()) <= 10, block
    return {"eglot": blocks[0], "lsp-mode": blocks[1]}


def emacs_or_skip() -> str:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (make emacs-deps installs it from Debian; apt-get was not available)")
    return emacs


def run_readme_setup(
    tmp_path: pathlib.Path, client: str, *, library_files: dict[str, str], note_name: str, driver: str,
    driver_env: dict[str, str] | None = None, time_limit: int = 120,
) -> tuple[dict, str, bool, pathlib.Path]:
    """Batch Emacs set up by the README's block for `client`, word for word, in a fresh home whose library
    (~/.config/snippets) holds `library_files`, with an empty note `note_name` to open, running `driver` (an .el file
    here). `driver_env`: more environment for the driver, each value a path inside the library. Returns the driver's
    observations, a context for assertion messages (the observations and Emacs's output), whether Emacs hung, and
    the library folder."""
    emacs = emacs_or_skip()
    home = tmp_path / "home"
    library = home / ".config" / "snippets"
    library.mkdir(parents=True)
    for name, text in library_files.items():
        (library / name).parent.mkdir(parents=True, exist_ok=True)
        (library / name).write_text(text, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    note = work / note_name
    note.write_text("", encoding="utf-8")
    setup = tmp_path / "setup.el"
    # Word for word: lsp-mode must not ask "is not part of any project" (stdin is closed, so a question fails).
    setup.write_text(readme_blocks()[client], encoding="utf-8")
    result_path = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": str(pathlib.Path(server_binary()).parent) + os.pathsep + os.environ.get("PATH", ""),
        "SNIPPETS_TEST_CLIENT": client,
        "SNIPPETS_TEST_FILE": str(note),
        "SNIPPETS_TEST_RESULT": str(result_path),
        **{name: str(library / relative) for name, relative in (driver_env or {}).items()},
    }
    env.pop("SNIPPETS_LIBRARY", None)
    # --batch skips the init file; the packages Debian installed are activated as at a normal start-up.
    # The README's install step: editors/emacs on the load-path.
    command = [emacs, "--batch", "--eval", "(package-activate-all)", "-L", str(PACKAGE_DIR), "-l", str(setup),
               "-l", str(HERE / driver)]
    hung = False
    try:
        run = subprocess.run(command, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=time_limit)
        output = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as error:
        hung = True
        output = f"emacs did not exit within {time_limit} s: {error}"
    assert result_path.exists(), f"emacs wrote no result\n{output[-6000:]}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    context = json.dumps(result, indent=1, ensure_ascii=False) + "\n--- emacs output ---\n" + output[-6000:]
    return result, context, hung, library


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_the_readme_setup_completes_asks_and_saves(tmp_path: pathlib.Path, client: str):
    result, context, _, library = run_readme_setup(
        tmp_path, client, library_files={"work.code-snippets": LIBRARY}, note_name="note.txt", driver="drive.el",
        driver_env={"SNIPPETS_TEST_SAVED": "saved.code-snippets"})
    assert result["ok"] is True, context
    assert result["yas-minor-mode"] is True, context
    # Completion as you type: company is on with completion-at-point, and typing a trigger popped its menu up.
    assert result["company-mode"] is True and result["company-capf"] is True, context
    assert "invfoot" in result["company-candidates"], context

    # The trigger became the snippet, its fields at their defaults.
    assert result["completed"] == "Payment is due within 14 days.\nQuote invoice INV-0000.", context
    # The ask action replaced the question line with the best snippet as plain text; the answer was shown.
    assert result["asked"] == "Dear client,\nHi name, invoice 42 is now overdue.\nCould you pay it this week?\nBest", context
    assert any("Gentle payment reminder" in m for m in result["messages"]), context
    # The selection was saved into the library (the default saveTo).
    saved = (library / "saved.code-snippets").read_text(encoding="utf-8")
    assert "Thank you for your business, it was a pleasure." in saved, saved
