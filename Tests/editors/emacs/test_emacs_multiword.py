"""Emacs set up by editors/emacs/README.md word for word (eglot and lsp-mode with company, Debian 12's packages): a
trigger of several words ("if else", typed as "if els": company asks from three letters) and, in lsp-mode, one
offered inside a word ("sr" ending "xsr"), each in a menu that also holds items for the last word alone, are offered
by company and taken from its menu, replacing exactly the trigger's text (SirVer/ultisnips' own cases: test_ParseSnippets.py _ParseSnippets_MultiWord,
test_SnippetOptions.py SnippetOptions_ExpandInwordSnippets_*)."""

from __future__ import annotations

import pathlib

import pytest

from test_emacs import run_readme_setup

# The UltiSnips library both editors' tests complete from.
LIBRARY = (pathlib.Path(__file__).resolve().parents[1] / "multiword.snippets").read_text(encoding="utf-8")


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_a_trigger_of_several_words_and_one_inside_a_word_complete_in_emacs(tmp_path: pathlib.Path, client: str):
    result, context, hung, _ = run_readme_setup(
        tmp_path, client, library_files={"UltiSnips/all.snippets": LIBRARY}, note_name="note.txt",
        driver="multiword_drive.el")
    assert not hung, context
    assert result.get("ok") is True, context
    assert {"if else", "else", "elsewhere"} <= set(result["several-words-menu"]), context
    assert result["several-words"] == "x if cond else", context
    if client == "lsp-mode":
        # eglot 1.9 filters by the whole symbol before point ("xsr"), which an in-word trigger's label does not start
        # with (docs/formats.md says so).
        assert {"sr", "xsrf"} <= set(result["inside-a-word-menu"]), context
        assert result["inside-a-word"] == "y x^2", context
