"""Writing prose in Emacs set up by editors/emacs/README.md word for word (eglot and lsp-mode, company and
yasnippet, Debian 12's packages), key by key at 8 keys a second through the command loop (prose_drive.el): RET after
an ordinary word ends the line unless an entry was chosen; a whole trigger keeps company's menu and TAB expands it,
with or without the menu and for a two-letter trigger too; TAB after an ordinary word does what it did."""

from __future__ import annotations

import json
import pathlib

import pytest

from test_emacs import run_readme_setup

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
    result, context, _, _ = run_readme_setup(
        tmp_path, client, library_files={"mail.code-snippets": json.dumps(LIBRARY, indent=2)}, note_name="note.txt",
        driver="prose_drive.el", time_limit=240)
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
