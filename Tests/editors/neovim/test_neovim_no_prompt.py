"""The server's message at start (a broken library file, a library path that does not exist), in a real Neovim 0.12
with its terminal UI, run in a pseudo-terminal as a person runs it, with the editors/neovim plugin set up as its
README says. The message shows without stopping Neovim at "Press ENTER": what the user types the moment it shows
arrives in the buffer whole. (At a hit-enter prompt a space, `b`, `u` and `g` are swallowed: "bug fix" would
arrive as "fix".)"""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import pty
import re
import select
import signal
import struct
import termios
import time

import pytest

from lspkit import REPO_ROOT, server_binary
from nvimkit import nvim_binary

# What the user types at once, in insert mode, as soon as the message shows; Ctrl-O :wq then saves and quits.
TYPED = "bug fix for the parser"
KEYS = TYPED.encode() + b"\x0f:wq\r"

ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=!]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b[()][0-9A-Za-z]|\x1b.")


def screen_text(output: bytes) -> str:
    """What the terminal was sent, without its control sequences."""
    return ESCAPES.sub(b"", output).decode("utf-8", errors="replace")


def run_neovim(tmp_path: pathlib.Path, library: pathlib.Path) -> tuple[str, str | None]:
    """Starts Neovim in insert mode on a new note with the plugin serving `library`, types `KEYS` once the server's
    message is on the screen, and returns everything the screen was sent and the note Neovim wrote (None if none)."""
    note = tmp_path / "note.txt"
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.rtp:append({json.dumps(str(REPO_ROOT / 'editors' / 'neovim'))})\n"
        "vim.opt.completeopt = { 'menuone', 'noselect', 'popup' }\n"
        "require('snippets_lsp').setup({\n"
        f"  cmd = {{ {json.dumps(server_binary())}, 'serve' }},\n"
        f"  settings = {{ libraries = {{ {json.dumps(str(library))} }} }},\n"
        "})\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    env.pop("SNIPPETS_LIBRARY", None)
    command = [nvim_binary(), "--clean", "-n", "-u", str(init), "+startinsert", str(note)]
    pid, terminal = pty.fork()
    if pid == 0:  # the child: a 24x80 terminal, then Neovim
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.chdir(tmp_path)
        os.execve(command[0], command, env)
    output = b""
    typed = False
    deadline = time.monotonic() + 60  # a bound for a broken run, not a measurement
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([terminal], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(terminal, 65536)
                except OSError:  # the child closed the terminal: Neovim has quit
                    break
                if not chunk:
                    break
                output += chunk
            if not typed and "snippets-lsp:" in screen_text(output):
                os.write(terminal, KEYS)
                typed = True
    finally:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(terminal)
    return screen_text(output), note.read_text(encoding="utf-8") if note.exists() else None


def broken_library(tmp_path: pathlib.Path) -> pathlib.Path:
    """A library whose one file has an entry cut short (its braces are never closed)."""
    library = tmp_path / "library"
    library.mkdir()
    # Python snippets only, so that nothing completes in the text note the user types in.
    (library / "python.json").write_text('{ "Broken": { "prefix": "brk", "body": ', encoding="utf-8")
    return library


@pytest.mark.parametrize("case", ["a broken file", "a missing library"])
def test_the_message_at_start_does_not_stop_neovim_and_what_is_typed_arrives(tmp_path: pathlib.Path, case: str):
    library = broken_library(tmp_path) if case == "a broken file" else tmp_path / "no-such-library"
    screen, note = run_neovim(tmp_path, library)
    context = f"--- what the screen showed (last 3000 characters) ---\n{screen[-3000:]}"
    expected = "1 snippet file has errors" if case == "a broken file" else "the library path"
    assert expected in re.sub(r"\s+", " ", screen), context
    assert "Press ENTER" not in screen, context
    assert note == TYPED + "\n", context
