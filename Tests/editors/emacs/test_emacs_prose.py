"""Writing prose in Emacs set up by editors/emacs/README.md word for word (eglot and lsp-mode, company and
yasnippet, Debian 12's packages), key by key at 8 keys a second through the command loop (prose_drive.el): RET after
an ordinary word ends the line unless an entry was chosen; a whole trigger keeps company's menu and TAB expands it,
with or without the menu and for a two-letter trigger too; TAB after an ordinary word does what it did."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from lspkit import server_binary
from test_emacs import emacs_or_skip, readme_blocks

HERE = pathlib.Path(__file__).resolve().parent

# The email a prose user must not get for the word "invoice" at the end of a line: seven lines.
REMINDER = [
    "Dear ${1:name},",
    "",
    "invoice ${2:INV-0000} of ${3:last month} is now overdue.",
    "Could you pay it this week?",
    "",
    "Kind regards,",
    "${4:Ana}",
]
LIBRARY = {
    "Overdue invoice reminder": {
        "prefix": "overdue",
        "description": "Remind a client that an invoice is overdue",
        "body": REMINDER,
    },
    "Invoice footer": {"prefix": "invfoot", "body": "Payment is due within ${1:14} days."},
    "IBAN details": {"prefix": "iban", "body": "IBAN: ${1:DE00 1234 5678 9000 0000 00}"},
    "Kind regards": {"prefix": "kr", "body": "Kind regards, ${1:Ana}"},
}
EXPANDED = {
    "overdue": "Dear name,",
    "invfoot": "Payment is due within 14 days.",
}


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_prose_keys_in_the_readme_setup(tmp_path: pathlib.Path, client: str):
    emacs = emacs_or_skip()
    home = tmp_path / "home"
    library = home / ".config" / "snippets"
    library.mkdir(parents=True)
    (library / "mail.code-snippets").write_text(json.dumps(LIBRARY, indent=2), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    note = work / "note.txt"
    note.write_text("", encoding="utf-8")
    setup = tmp_path / "setup.el"
    setup.write_text(readme_blocks()[client], encoding="utf-8")
    result_path = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": str(pathlib.Path(server_binary()).parent) + os.pathsep + os.environ.get("PATH", ""),
        "SNIPPETS_TEST_CLIENT": client,
        "SNIPPETS_TEST_FILE": str(note),
        "SNIPPETS_TEST_RESULT": str(result_path),
    }
    env.pop("SNIPPETS_LIBRARY", None)
    command = [emacs, "--batch", "--eval", "(package-activate-all)", "-L", str(HERE.parents[2] / "editors" / "emacs"),
               "-l", str(setup), "-l", str(HERE / "prose_drive.el")]
    try:
        run = subprocess.run(command, cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=240)
        output = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as error:
        output = f"emacs did not exit within 240 s: {error}"
    assert result_path.exists(), f"emacs wrote no result\n{output[-6000:]}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    context = json.dumps(result, indent=1, ensure_ascii=False) + "\n--- emacs output ---\n" + output[-6000:]
    assert result.get("ok") is True, context
    assert result["company-mode"] is True, context

    # "Please pay the invoice", a pause, RET: the menu was up (the word is in a snippet's title), and RET ended the
    # line; the next word went on the next line, no email anywhere.
    assert "overdue" in result["prose-menu"], context
    assert result["prose-text"] == "Please pay the invoice\nThanks", context

    # After choosing an entry (M-n), RET takes it.
    assert len(result["chosen-menu"]) >= 2 and result["chosen"] in EXPANDED, context
    assert result["chosen-text"].startswith(EXPANDED[result["chosen"]]), context

    # A whole trigger typed keeps its menu (company 0.9.13 closed it on a sole exact entry), and TAB expands it.
    assert list(result["trigger-menu"]) == ["iban"], context
    assert result["trigger-menu-text"].startswith("IBAN: DE00 1234 5678 9000 0000 00"), context
    # Trigger and TAB at once, before any menu: expanded, as yasnippet's TAB does.
    assert result["menu-before-tab"] is False, context
    assert result["trigger-tab-text"].startswith("IBAN: DE00 1234 5678 9000 0000 00"), context
    # A two-letter trigger never pops a menu up (company's three-character minimum); TAB expands it.
    assert result["short-trigger-text"].startswith("Kind regards, Ana"), context
    # After an ordinary word, TAB is TAB: the word stays and nothing is expanded.
    assert result["word-tab-text"].strip() == "hello", context
