"""The Neovim plugin sends `snippets.learn` when a snippet is inserted from an ask's answer window (learn.lua) and
says what it learned, `:SnippetsForgetLast` takes a wrong choice back, and a declined ask offers to save a snippet
for the question; checked on disk and by asking again."""

from __future__ import annotations

import json
import pathlib

from lspkit import REPO_ROOT
from nvimkit import run_script

LIBRARY = {
    "Unpaid account chase": {
        "prefix": "chase",
        "description": "Polite reminder for an invoice past its due date",
        "body": "Could you arrange payment for invoice ${1:42} this week?",
    },
    "Invoice footer": {"prefix": "invfoot", "description": "Footer for outgoing invoices", "body": "Due in 14 days."},
}


def test_inserting_from_an_answer_teaches_the_server(tmp_path: pathlib.Path):
    library = tmp_path / "library"
    library.mkdir()
    snippet_file = library / "office.code-snippets"
    snippet_file.write_text(json.dumps(LIBRARY, indent=2), encoding="utf-8")
    original = snippet_file.read_bytes()
    result, context = run_script(
        tmp_path, "learn.lua", library, {"SNIPPETS_PLUGIN_DIR": str(REPO_ROOT / "editors" / "neovim")})
    assert result["ok"], f"failed at stage {result['stage']!r}: {result.get('error')}\n{context}"

    assert result["before"] == "noMatch", context
    assert result["learned"]["question"] == "remind the café that owes me for the invoice", context
    assert result["learned"].get("error") is None, context
    assert result["after"]["status"] == "answered", context
    assert result["after"]["answer"].endswith("Matched words you used before: café, owes."), context
    # The user was told, with the way back.
    assert "snippets: learned from your choice: café, owes → Unpaid account chase; undo: :SnippetsForgetLast" in result["notifications"], context

    # A slip (RET on the wrong line) taught the chase a question of the footer's; it said so, and the footer was still
    # named first (one choice weighs at most a title word). :SnippetsForgetLast took it back: the file and the answer
    # are what they were.
    assert result["slip_before"] == ["Invoice footer"], context
    assert result["slip_learned"] == ["footer", "outgoing"], context
    assert result["slip_notification"] == "snippets: learned from your choice: footer, outgoing → Unpaid account chase; undo: :SnippetsForgetLast", context
    assert result["slip_taught"] == ["Invoice footer", "Unpaid account chase"], context
    assert result["forgotten"].get("error") is None and result["forgotten"]["result"]["forgotten"] == 2, context
    assert result["forget_notification"] == 'snippets: forgot what "Unpaid account chase" learned from your choice', context
    assert result["slip_after"] == ["Invoice footer"], context
    learned = json.loads((library / ".snippets-learned.json").read_text(encoding="utf-8"))
    assert learned == {"office.code-snippets": {
        "Unpaid account chase": ["café", "owes", "? remind the café that owes me for the invoice"]}}, context

    # The declined ask offered to save a snippet for the question; saving made it answerable.
    assert result["declined_window"][-1] == "s save a snippet for this question", context
    assert result["saved"].get("error") is None, context
    assert result["after_save"] == {"status": "answered", "cited": ["how do I bake sourdough bread"]}, context
    saved = json.loads((library / "saved.code-snippets").read_text(encoding="utf-8"))
    assert saved["how do I bake sourdough bread"]["description"] == "how do I bake sourdough bread", context
    # The trigger was asked for, offering one made of the question's distinctive words (never "how-do").
    assert result["prompts"] == [{"prompt": "Trigger for this question: ", "default": "bake-sourdough"}], context
    assert saved["how do I bake sourdough bread"]["prefix"] == "bake-sourdough", context
    # Its body is empty: Neovim was taken to it, the cursor on the `$0` to write over.
    assert result["opened"] == {"file": "saved.code-snippets", "at": "$0"}, context
    assert snippet_file.read_bytes() == original, context
