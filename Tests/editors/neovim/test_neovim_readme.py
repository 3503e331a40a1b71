"""editors/neovim/README.md followed word for word in a real headless Neovim 0.12: its Lua block is run as written
(only the plugin path is filled in; HOME holds the library at ~/.config/snippets and snippets-lsp is on PATH), then
readme.lua types a trigger one key at a time, accepts it, uses a scratch buffer, opens a broken library file and
runs :checkhealth."""

from __future__ import annotations

import json
import os
import pathlib
import re

from lspkit import server_binary, write_library
from nvimkit import run_script

REPO = pathlib.Path(__file__).resolve().parents[3]
README = REPO / "editors" / "neovim" / "README.md"


def readme_setup() -> str:
    block = re.search(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block, "editors/neovim/README.md has no ```lua block"
    text = block.group(1)
    assert "/path/to/snippets-lsp/editors/neovim" in text
    return text.replace("/path/to/snippets-lsp", str(REPO))


def test_the_readme_setup_completes_as_you_type_and_expands_the_snippet(tmp_path: pathlib.Path):
    home = tmp_path / "home"
    library = write_library(home / ".config" / "snippets")
    (library / "broken.code-snippets").write_text('{ "Broken": { "prefix": "br", "body": "x" ', encoding="utf-8")
    setup = tmp_path / "setup.lua"
    setup.write_text(readme_setup(), encoding="utf-8")
    env = {
        "HOME": str(home),
        "PATH": str(pathlib.Path(server_binary()).parent) + os.pathsep + os.environ.get("PATH", ""),
        "SNIPPETS_TEST_SETUP": str(setup),
    }
    result, context = run_script(tmp_path, "readme.lua", library, extra_env=env)
    print(json.dumps({k: v for k, v in result.items() if k not in ("lsp_log", "health")}, ensure_ascii=False))
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"

    # The server advertised the trigger's characters, so typing it popped the menu up without asking.
    assert set("invfoot") <= set(result["trigger_characters"]), context
    assert "invfoot" in result["menu_words"], context
    if result.get("shown_words") is not None:
        assert result["shown_words"] == ["invfoot"], context
    # noselect: nothing was inserted for the user; moving onto the entry shows the trigger, not filter words.
    assert result["selected_before_moving"] == -1, context
    assert result["line_before_moving"] == "invfoot", context
    assert result["line_while_selected"] == "invfoot", context
    # The popup beside the menu previews the selected snippet (the item carries it: Neovim resolves no documentation).
    preview = "\n".join(result["preview_lines"])
    assert "Payment is due within 14 days." in preview and "Quote invoice INV-0000." in preview, context
    # The single match expanded into the snippet (placeholders at their defaults), with no stray text.
    assert result["lines"] == ["Payment is due within 14 days.", "Quote invoice INV-0000."], context

    # Buffers without a filetype and library files are served; a broken library file shows its problem.
    assert result["scratch_attached"] and result["scratch_filetype"] == "", context
    assert result["library_filetype"] == "jsonc", context
    assert result["library_diagnostics"], context
    # Before it was opened, the broken file was named at start with the command that lists its problems.
    told = [n for n in result["notifications"] if f"{library}/broken.code-snippets" in n]
    assert len(told) == 1 and f"snippets-lsp check --library {library}" in told[0], result["notifications"]

    # :checkhealth shows the server's version and the doctor's findings.
    health = "\n".join(result["health"])
    assert result["server_version"] in health, health
    # The broken file's one entry is read as VS Code reads it (its closing braces are missing), so it counts too.
    assert f"{library}: 8 snippets in 2 files" in health, health
    assert "error in your snippet files" in health, health
    assert not any("not on PATH" in n for n in result["notifications"]), result["notifications"]


def test_the_readme_setup_without_the_binary_on_path_says_so(tmp_path: pathlib.Path):
    import subprocess

    from nvimkit import nvim_binary

    setup = tmp_path / "setup.lua"
    setup.write_text(readme_setup(), encoding="utf-8")
    out = tmp_path / "out.json"
    script = tmp_path / "check.lua"
    script.write_text(
        "local seen = {}\n"
        "vim.notify = function(message) table.insert(seen, message) end\n"
        f"local ok, err = pcall(dofile, {json.dumps(str(setup))})\n"
        "if not ok then table.insert(seen, 'setup failed: ' .. tostring(err)) end\n"
        "pcall(require('snippets_lsp').ask, 'what')\n"
        f"local file = io.open({json.dumps(str(out))}, 'w') file:write(vim.json.encode(seen)) file:close()\n"
        "vim.cmd('qall!')\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    subprocess.run(
        [nvim_binary(), "--headless", "--clean", "-n", "-c", f"luafile {script}"],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
    )
    messages = json.loads(out.read_text(encoding="utf-8"))
    assert messages, "no message at all"
    assert all('"snippets-lsp" is not on PATH' in message for message in messages), messages
    assert not any("setup" in message and "call" in message for message in messages), messages
