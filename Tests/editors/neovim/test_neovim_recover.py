"""A set-up that recovers, in a real headless Neovim 0.12 with the editors/neovim plugin (recover.lua): started with
a library folder that does not exist, the user creates it (a good file and a broken one) while Neovim runs. Typing
a trigger then pops the menu up by itself, the broken file is named in one warning, and a later reload with the
same broken file says nothing again; a trigger added later with a character the library did not have pops up too."""

from __future__ import annotations

import json
import pathlib

from lspkit import REPO_ROOT
from nvimkit import run_script


def test_a_library_created_while_neovim_runs_completes_as_you_type(tmp_path: pathlib.Path):
    library = tmp_path / "library"
    result, context = run_script(
        tmp_path, "recover.lua", library, {"SNIPPETS_PLUGIN_DIR": str(REPO_ROOT / "editors" / "neovim")})
    print(json.dumps({k: v for k, v in result.items() if k != "lsp_log"}, ensure_ascii=False))
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"

    # Told at start, with nothing to read: a default set that covers what triggers are typed with.
    assert set("invrem!#@.") <= set(result["trigger_characters"]), context
    # After the library was created, typing the trigger popped the menu up without asking.
    assert "invrem" in result["menu_words"], context

    # The broken file was named, with the command that lists its problems, once.
    warning = result["broken_warning"]
    assert f"{library}/broken.code-snippets" in warning, warning
    assert f"snippets-lsp check --library {library}" in warning, warning
    assert result["broken_warning_count"] == 1, result["notifications"]

    # A trigger added later with a new character: registered again, so typing that character pops it up.
    assert "§sig" in result["section_menu"], context
