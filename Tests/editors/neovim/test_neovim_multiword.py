"""A real headless Neovim 0.12 with an UltiSnips library: a trigger of several words ("if else", typed as "if e") and
one offered inside a word ("sr" ending "xsr") are offered in menus that also hold items for the last word alone, and
accepting either replaces exactly its trigger's text. Neovim takes one start column per menu
(runtime/lua/vim/lsp/completion.lua, `adjust_start_col`): where items' edits start in different columns it filters
every item against the word before the cursor, which dropped the two-word item (SirVer/ultisnips' own cases:
test_ParseSnippets.py _ParseSnippets_MultiWord, test_SnippetOptions.py SnippetOptions_ExpandInwordSnippets_*)."""

from __future__ import annotations

import json
import pathlib

from nvimkit import run_script

# The UltiSnips library both editors' tests complete from.
LIBRARY = (pathlib.Path(__file__).resolve().parents[1] / "multiword.snippets").read_text(encoding="utf-8")


def test_a_trigger_of_several_words_and_one_inside_a_word_complete_in_neovim(tmp_path: pathlib.Path):
    library = tmp_path / "library"
    (library / "UltiSnips").mkdir(parents=True)
    (library / "UltiSnips" / "all.snippets").write_text(LIBRARY, encoding="utf-8")
    result, context = run_script(tmp_path, "multiword.lua", library)
    print(json.dumps({k: v for k, v in result.items() if k != "lsp_log"}, ensure_ascii=False))
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"
    assert result["nvim_version"].startswith("0.12"), result["nvim_version"]

    # Both menus hold the item beside items for the last word alone.
    assert {"if else", "else", "elsewhere"} <= set(result["menus"]["several words"]), context
    assert {"sr", "xsrf"} <= set(result["menus"]["inside a word"]), context
    # While selected, the buffer reads as the trigger typed out; once accepted, the body replaces exactly the
    # trigger's text (the text before it stays).
    assert result["lines"]["several words selected"] == "x if else", context
    assert result["lines"]["several words"] == "x if cond else", context
    assert result["lines"]["inside a word selected"] == "y xsr", context
    assert result["lines"]["inside a word"] == "y x^2", context
