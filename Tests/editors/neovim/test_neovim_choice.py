"""A real headless Neovim 0.12: accepting a snippet with two choice fields and tabbing past both, picking nothing,
leaves each choice's first option in the text. (vim.snippet inserts a choice empty until an option is picked, so the
server sends Neovim the first option as a placeholder.)"""

from __future__ import annotations

import json
import pathlib

from nvimkit import run_script


def test_tabbing_past_a_choice_leaves_its_first_option(tmp_path: pathlib.Path):
    library = tmp_path / "library"
    library.mkdir()
    body = "I'm out of the office until ${1|Monday,Tuesday|} with ${2|no,some|} access to email."
    (library / "away.code-snippets").write_text(json.dumps({"Away": {"prefix": "ooo", "body": body}}))
    result, context = run_script(tmp_path, "choice.lua", library)
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"
    assert result["nvim_version"].startswith("0.12"), result["nvim_version"]
    assert result["lines"] == ["I'm out of the office until Monday with no access to email."], context
