"""Real Emacs 28 (Debian 12: eglot 1.9, which sends no clientInfo, lsp-mode 8.0, yasnippet 0.14) accepts a completion
whose body holds Emacs Lisp, as a cloned repository's `.vscode/*.code-snippets` could: backquoted, in a choice, and
as `$(...)` in a field. Nothing runs (no folder is made), the text is inserted as written, and the choice holds its
first option."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

import pytest

from lspkit import server_binary

HERE = pathlib.Path(__file__).resolve().parent


def expand_in_emacs(emacs: str, client: str, library, tmp_path):
    """Runs safety.el in batch Emacs with `client` over `library`; its JSON result and a context for failures."""
    note = tmp_path / "work" / "note.txt"
    note.parent.mkdir()
    note.write_text("", encoding="utf-8")
    result_path = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "SNIPPETS_TEST_CLIENT": client,
        "SNIPPETS_TEST_FILE": str(note),
        "SNIPPETS_TEST_RESULT": str(result_path),
        "SNIPPETS_TEST_SERVER": server_binary(),
        "SNIPPETS_TEST_LIBRARY": str(library),
    }
    command = [emacs, "--batch", "--eval", "(package-activate-all)", "-l", str(HERE / "safety.el")]
    try:
        run = subprocess.run(command, cwd=note.parent, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=90)
        output = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as error:
        output = f"emacs did not exit within 90 s: {error}"
    assert result_path.exists(), f"emacs wrote no result\n{output[-4000:]}"
    result = json.loads(result_path.read_text(encoding="utf-8"))
    context = json.dumps(result, indent=1) + "\n--- emacs output ---\n" + output[-4000:]
    return result, context

@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_accepting_a_snippet_runs_none_of_its_lisp(tmp_path: pathlib.Path, client: str):
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (make emacs-deps installs it from Debian)")
    made = [tmp_path / name for name in ("backquoted", "in-choice", "in-field")]
    body = (
        f'Made `(make-directory "{made[0]}")` and ${{1|`(make-directory "{made[1]}")`,second|}}'
        f' and ${{2:$(make-directory "{made[2]}")}} done'
    )
    library = tmp_path / "library"
    library.mkdir()
    (library / "demo.code-snippets").write_text(json.dumps({"Demo": {"prefix": "demo", "body": body}}))
    result, context = expand_in_emacs(emacs, client, library, tmp_path)
    assert result["ok"] is True, context
    assert result["yas-minor-mode"] is True, context
    assert [path.name for path in made if path.exists()] == [], context
    # (lsp-mode 8.0 leaves a tab after the expansion; what it indents is another test's business.)
    assert result["text"].rstrip() == (
        f'Made `(make-directory "{made[0]}")` and `(make-directory "{made[1]}")`'
        f' and $(make-directory "{made[2]}") done'
    ), context
    # yasnippet expanded it: the fields are live.
    assert result["active-snippets"] == 1, context


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_a_yasnippet_librarys_lisp_never_runs_in_emacs_itself(tmp_path: pathlib.Path, client: str):
    """The library is yasnippet's own format this time: its backquote, field and mirror transformations, condition
    and expand-env are Emacs Lisp that yasnippet itself would run. The server never runs them, and what it sends
    Emacs holds none of them, so yasnippet (which expands the completion) runs none either."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (make emacs-deps installs it from Debian)")
    made = [tmp_path / name for name in ("backquoted", "field", "mirror", "condition", "env")]
    template = (
        "# name: Demo\n# key: demo\n"
        f'# condition: (make-directory "{made[3]}")\n'
        f'# expand-env: ((x (make-directory "{made[4]}")))\n# --\n'
        f'Made `(make-directory "{made[0]}")` and ${{1:field$(make-directory "{made[1]}")}}'
        f'${{1:$(make-directory "{made[2]}")}} done'
    )
    library = tmp_path / "library"
    (library / "snippets" / "text-mode").mkdir(parents=True)
    (library / "snippets" / "text-mode" / "demo").write_text(template, encoding="utf-8")
    result, context = expand_in_emacs(emacs, client, library, tmp_path)
    assert result["ok"] is True, context
    assert [path.name for path in made if path.exists()] == [], context
    # The backquote and both transformations are left out; the field keeps its text, and yasnippet expanded it.
    assert result["text"].rstrip() == "Made  and field done", context
    assert result["active-snippets"] == 1, context
