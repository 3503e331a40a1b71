"""The Neovim plugin (editors/neovim) in headless Neovim 0.12 against the real binary: ask.lua asks through
:SnippetsAsk, inserts and jumps from the answer window, cancels, and saves; this test checks what the user would
see: the window's text, its highlights (byte columns, non-ASCII title), and the buffer after inserting."""

from __future__ import annotations

import pathlib

from lspkit import REPO_ROOT
from nvimkit import run_script

TITLE = "Überfällige Rechnung 😀 reminder"
LIBRARY = """{
  "%s": {
    "prefix": "ueber",
    "body": "Payment for invoice ${1:42} is overdue.",
    "description": "Overdue invoice reminder"
  },
  "Invoice footer": {
    "prefix": "invfoot",
    "body": ["Payment is due within ${1:14} days."],
    "description": "Footer for outgoing invoices"
  }
}
""" % TITLE


def byte_span(line: str, text: str) -> tuple[int, int]:
    start = line.encode("utf-8").index(text.encode("utf-8"))
    return start, start + len(text.encode("utf-8"))


def test_ask_window_insert_definition_cancel_and_save(tmp_path: pathlib.Path):
    library = tmp_path / "library"
    library.mkdir()
    snippet_file = library / "t.code-snippets"
    snippet_file.write_text(LIBRARY, encoding="utf-8")
    result, context = run_script(
        tmp_path, "ask.lua", library, {"SNIPPETS_PLUGIN_DIR": str(REPO_ROOT / "editors" / "neovim")})
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"

    # The window: the answer with the cited title highlighted at its byte columns (the server counted in the
    # negotiated encoding, the plugin converted), then the snippets it looked at with the cited one marked.
    window = result["answer_window"]
    # The title, then the body line that answers, quoted as the snippet shows it (a placeholder by its text).
    answer = f'Your library has "{TITLE}" (“Payment for invoice 42 is overdue.”).'
    cited_line = f"✓ {TITLE}  "
    assert window["lines"][0] == answer, context
    assert window["lines"][1:3] == ["", "Snippets it looked at:"], context
    assert window["lines"][3].startswith(cited_line) and window["lines"][3].endswith("t.code-snippets:2"), context
    assert window["is_current"] and window["cursor"] == [4, 0], context
    marks = {(m["row"], m["col"], m["end_col"], m["hl_group"]) for m in window["extmarks"]}
    start, end = byte_span(answer, TITLE)
    assert (0, start, end, "SnippetsLspCitation") in marks, context
    # The title's end in bytes is not its end in UTF-16 units: a plugin that skipped the conversion would fail.
    assert end != answer.index(TITLE) + len(TITLE.encode("utf-16-le")) // 2
    title_start, title_end = byte_span(window["lines"][3], TITLE)
    assert (3, title_start, title_end, "SnippetsLspCitation") in marks, context

    # <CR> inserted the cited snippet at the original cursor (line 2), expanded with vim.snippet (placeholder
    # selected), the rest of the buffer untouched.
    assert result["snippet_active"] is True, context
    assert result["lines_after_insert"] == ["Intro:", "Payment for invoice 42 is overdue."], context

    # gd on the second (uncited) snippet opened its entry in the library file.
    second = result["second_window"]
    assert second["lines"][4].startswith("  Invoice footer  "), context
    assert result["definition"]["name"] == str(snippet_file), context
    assert result["definition"]["cursor"][0] == 7, context  # "Invoice footer" entry is on line 7

    # <C-c> cancelled the ask in flight: no window came up, and the user was told.
    assert result["asking_before_cancel"] is True, context
    assert result["window_after_cancel"] is False, context
    assert "snippets: ask cancelled" in result["notifications"], context

    # A question with no match shows the answer and the reason below it, and no list.
    assert result["prompt"] == "Ask your snippets: ", context
    no_match = result["no_match_window"]["lines"]
    assert no_match[0] == "Nothing in your library matches this question.", context
    assert "zebra" in no_match[1], context
    # The reason, no list, and the offer to save a snippet for the question.
    assert len(no_match) == 3 and no_match[1] != no_match[0], context
    assert no_match[2] == "s save a snippet for this question", context

    # :SnippetsSave's glue: the line went to saved.code-snippets in the library directory (the default), created
    # because it was missing; the other library file was not touched. Prose saved from a Markdown buffer is for every
    # language (no "scope"), so it completes in a mail or a .txt file too.
    assert result["save"].get("err") is None, context
    assert result["save"]["reply"]["trigger"] == "kr", context
    saved = (library / "saved.code-snippets").read_text(encoding="utf-8")
    assert saved == '{\n\t"Kind regards": {\n\t\t"prefix": "kr",\n\t\t"body": ["Kind regards, Mira"]\n\t}\n}\n', saved
    assert snippet_file.read_text(encoding="utf-8") == LIBRARY
