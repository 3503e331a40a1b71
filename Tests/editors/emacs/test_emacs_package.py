"""editors/emacs/snippets-lsp.el in real Emacs 28 (Debian's emacs-nox with elpa-eglot 1.9, elpa-lsp-mode 8.0,
elpa-company, elpa-yasnippet, elpa-markdown-mode; `make emacs-deps` installs them) in batch mode, set up by the
README's blocks word for word: it byte-compiles without warnings with neither client loaded; then, with each client,
package_drive.el accepts a one-line and a multi-line snippet in a Markdown buffer (under a time limit: lsp-mode used
to re-indent them through markdown-indent-line and hang), asks with `snippets-lsp-ask`, opens and inserts from the
answer buffer (saying what the insert taught the server, and taking it back with `snippets-lsp-forget-last`), saves a region, saves a snippet for a declined question, and edits the library without reconnecting."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from lspkit import server_binary
from test_emacs import PACKAGE_DIR, emacs_or_skip, run_readme_setup

HERE = pathlib.Path(__file__).resolve().parent
# A hang (the lsp-mode freeze) is cut off here; each stage is recorded as it starts, so the failure names it.
TIME_LIMIT_S = 150

LIBRARY = """{
  "Invoice footer": {
    "prefix": "invfoot",
    "body": ["Payment is due within ${1:14} days.", "Quote invoice ${2:INV-0000}."]
  },
  "Gentle payment reminder": {
    "prefix": "remind",
    "body": ["Hi ${1:name}, invoice ${2:42} is now overdue.", "Could you pay it this week?"],
    "description": "Remind a client that an invoice is overdue"
  },
  "Signature": {
    "prefix": "signoff",
    "body": "Best regards, ${1:name}"
  }
}
"""



def test_the_package_byte_compiles_without_warnings(tmp_path: pathlib.Path):
    emacs = emacs_or_skip()
    source = tmp_path / "snippets-lsp.el"
    shutil.copy(PACKAGE_DIR / "snippets-lsp.el", source)
    # -Q: neither eglot nor lsp-mode nor yasnippet is loaded or even on the load-path.
    run = subprocess.run(
        [emacs, "-Q", "--batch", "--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile", str(source)],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "snippets-lsp.elc").exists()
    # The package headers package.el reads, and the commands are autoloaded.
    text = source.read_text(encoding="utf-8")
    assert text.splitlines()[0].endswith("-*- lexical-binding: t -*-")
    assert ";; Package-Requires: ((emacs \"28.1\"))" in text
    for command in ("snippets-lsp-ask", "snippets-lsp-save-region", "snippets-lsp-forget-last", "snippets-lsp-doctor"):
        assert f";;;###autoload\n(defun {command} " in text, command


def test_the_default_question_is_the_region_else_the_marker_line(tmp_path: pathlib.Path):
    emacs = emacs_or_skip()
    script = """(progn (require 'snippets-lsp) (transient-mark-mode 1)
      (with-temp-buffer
        (insert "Dear Ana,\\n  ?? how do I thank a client\\nBest")
        (goto-char (point-min)) (forward-line 1)
        (princ (format "%S\\n" (snippets-lsp--default-question)))
        (forward-line 1)
        (princ (format "%S\\n" (snippets-lsp--default-question)))
        (push-mark (point-min) t t) (goto-char 9)
        (princ (format "%S\\n" (snippets-lsp--default-question)))))"""
    run = subprocess.run([emacs, "-Q", "--batch", "-L", str(PACKAGE_DIR), "--eval", script],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ['"how do I thank a client"', "nil", '"Dear Ana"'], run.stdout


def test_backquotes_in_a_snippet_never_run_as_lisp_through_yasnippet(tmp_path: pathlib.Path):
    """A library is untrusted: yasnippet runs `...` as Emacs Lisp, so the package escapes every backquote the
    server's text leaves unescaped (doubled, after an escaped backslash, already escaped by the server)."""
    emacs = emacs_or_skip()
    bodies = ["``(setq pwned 1)``", "\\`(setq pwned 2)`", "a\\\\`(setq pwned 3)`", "`(setq pwned 4)` ${1:x}"]
    script = """(progn (package-activate-all) (require 'yasnippet) (require 'snippets-lsp)
      (dolist (body (read (getenv "BODIES")))
        (with-temp-buffer
          (yas-minor-mode 1)
          (ignore-errors (yas-expand-snippet (snippets-lsp--yasnippet body)))
          (ignore-errors (yas-exit-all-snippets))
          (princ (format "%S\\n" (buffer-substring-no-properties (point-min) (point-max))))))
      (princ (format "pwned=%S\\n" (bound-and-true-p pwned))))"""
    env = {**os.environ, "BODIES": "(" + " ".join(json.dumps(b) for b in bodies) + ")"}
    run = subprocess.run([emacs, "--batch", "-L", str(PACKAGE_DIR), "--eval", script],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "pwned=nil", run.stdout
    assert lines[0] == '"``(setq pwned 1)``"', run.stdout
    assert lines[3] == '"`(setq pwned 4)` x', run.stdout  # yasnippet adds a final newline after a last field


def test_doctor_shows_the_servers_report_for_the_packages_settings(tmp_path: pathlib.Path):
    emacs = emacs_or_skip()
    library = tmp_path / "lib"
    library.mkdir()
    (library / "work.code-snippets").write_text(LIBRARY, encoding="utf-8")
    script = f"""(progn (require 'snippets-lsp)
      (setq snippets-lsp-libraries '({json.dumps(str(library))}))
      (princ (with-current-buffer (snippets-lsp-doctor) (buffer-string))))"""
    env = {**os.environ, "PATH": str(pathlib.Path(server_binary()).parent) + os.pathsep + os.environ.get("PATH", "")}
    run = subprocess.run([emacs, "-Q", "--batch", "-L", str(PACKAGE_DIR), "--eval", script],
                         capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert "doctor --settings" in run.stdout
    assert str(library) in run.stdout, run.stdout
    assert "3 snippets" in run.stdout, run.stdout


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_the_package_asks_inserts_saves_and_sees_library_edits(tmp_path: pathlib.Path, client: str):
    result, context, hung, library = run_readme_setup(
        tmp_path, client, library_files={"work.code-snippets": LIBRARY}, note_name="note.md", driver="package_drive.el",
        driver_env={"SNIPPETS_TEST_LIBRARY": ""}, time_limit=TIME_LIMIT_S)
    assert not hung, f"Emacs hung at stage {result['stage']!r}\n{context}"
    assert result.get("ok") is True, context
    assert result["major-mode"] == "markdown-mode", context
    assert result["connection"] == ("eglot" if client == "eglot" else "lsp"), context

    # Accepted in markdown-mode without a hang, expanded (no raw ${1:name} left), nothing re-indented.
    # (A field at the very end of a buffer makes yasnippet add a final newline.)
    assert result["one-line"] == "Thanks for the call.\nBest regards, name\n", context
    assert result["multi-line"] == "Here is the invoice.\nPayment is due within 14 days.\nQuote invoice INV-0000.\nThanks", context

    # The answer buffer: the answer with its quotes, the cited snippet, the snippets it looked at, the keys.
    answer = result["answer-buffer"]
    assert answer.startswith("Q: how do I nudge a client about an overdue invoice\n\n"), context
    # The answer names the snippet and quotes the line of it that answers, exactly as the file has it.
    assert 'Your library has "Gentle payment reminder" (“Remind a client that an invoice is overdue”).' in answer, context
    assert "\nCited:\n  Gentle payment reminder  ~/.config/snippets/work.code-snippets:" in answer, context
    assert "\nSnippets it looked at:\n" in answer and "✓ Gentle payment reminder" in answer, context
    assert "RET insert · o open definition" in answer, context
    assert "Save a snippet for this question" not in answer, context
    assert result["answer-window"] is True, context
    assert result["first-button"] == "Gentle payment reminder", context
    assert result["buttons"][:2] == ["Gentle payment reminder", "Gentle payment reminder"], context
    # `o` opened the library file at the snippet's entry.
    assert result["definition"]["file"] == "work.code-snippets", context
    assert '"Gentle payment reminder"' in result["definition"]["line"], context
    # RET inserted it where the question was asked, through yasnippet (fields at their defaults), and the server
    # learned the question's new word for it.
    assert result["inserted-into"] == "note.md", context
    assert result["inserted"] == "Dear client,\nHi name, invoice 42 is now overdue.\nCould you pay it this week?\nBest", context
    assert result["learned"] is not False and "nudge" in result["learned"], context
    # It said so, with the way back; M-x snippets-lsp-forget-last took the lesson back (the file emptied of it).
    assert result["learned-message"] == ('snippets-lsp: learned from your choice: nudge → "Gentle payment reminder"; '
                                         'undo: M-x snippets-lsp-forget-last'), context
    assert result["forget-message"] == 'snippets-lsp: forgot what "Gentle payment reminder" learned from your choice', context
    assert result["learned-after-forget"] is False or "nudge" not in result["learned-after-forget"], context
    # Without yasnippet, the plain text, its second line indented as the line it went into.
    assert result["inserted-plain"] == "- Dear client,\n  Hi name, invoice 42 is now overdue.\n  Could you pay it this week?\n- Best", context

    # Saving a region prompted for the trigger, then the title with the derived default shown.
    prompts = result["save-prompts"]
    assert prompts[0].startswith("Trigger"), context
    assert prompts[1] == "Title (default Kind regards,): ", context
    saved = json.loads(result["saved"])
    assert saved["Kind regards,"]["prefix"] == "regards", context
    assert saved["Kind regards,"]["body"] == ["Kind regards,", "Ana from accounts"], context

    # A declined ask offers "Save a snippet for this question"; its button saved one described by the question.
    assert result["declined-status"] == "noMatch", context
    assert "Save a snippet for this question" in result["declined-buffer"], context
    saved = json.loads(result["saved-question"])
    entry = next(value for value in saved.values() if value.get("prefix") == "cactus")
    assert entry["description"] == "how do I water the office cactus", context

    # A snippet added to the library completes without reconnecting the client.
    assert result["edit-seen"] is True, context
