"""espanso libraries through the real binary: the shared corpora counted against PyYAML, no shell or script
variable ever run, and completion and ask over espanso matches beside VS Code snippets."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess

import yaml

from lspkit import RawClient, server_binary

CORPORA = (pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "corpora").resolve()
HUB = CORPORA / "espanso-hub"
PERSONAL = CORPORA / "personal-espanso"
TEXT_KEYS = ("replace", "markdown", "html", "form")


def check_json(*libraries: pathlib.Path) -> dict:
    arguments = [server_binary(), "check", "--json"]
    for library in libraries:
        arguments += ["--library", str(library)]
    run = subprocess.run(arguments, capture_output=True, text=True, timeout=300)
    return json.loads(run.stdout)


def independent_counts(root: pathlib.Path) -> tuple[dict[str, int], collections.Counter]:
    """Per match file, the matches espanso turns into text (PyYAML's reading of the files); and the variables
    by type."""
    per_file: dict[str, int] = {}
    types: collections.Counter = collections.Counter()
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".yml", ".yaml") or path.name.startswith("_") or "config" in path.relative_to(root).parts[:-1]:
            continue
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        surely_espanso = path.name == "package.yml" or (path.parent / "_manifest.yml").exists() or "match" in path.parts
        if not surely_espanso and not (isinstance(document, dict) and any(k in document for k in ("matches", "global_vars", "imports"))):
            continue
        if not isinstance(document, dict):
            document = {}
        count = 0
        for match in document.get("matches") or []:
            if not isinstance(match, dict):
                continue
            if "triggers" in match and not isinstance(match["triggers"], list):
                continue  # espanso refuses a mapping of triggers
            if any(isinstance(match.get(key), str) for key in TEXT_KEYS):
                count += 1
            for var in match.get("vars") or []:
                types[str(var.get("type"))] += 1
        for var in document.get("global_vars") or []:
            types["global " + str(var.get("type"))] += 1
        per_file[str(path)] = count
    return per_file, types


def test_espanso_corpora_load_as_many_matches_as_pyyaml_counts_and_report_no_problems():
    for root in (HUB, PERSONAL):
        expected, types = independent_counts(root)
        report = check_json(root)
        ours = {file["path"]: file["snippets"] for file in report["files"]}
        assert ours == expected
        notes = collections.Counter(d["code"] for d in report["diagnostics"] if d["severity"] == "note")
        # Matches espanso itself refuses to expand (a name no variable defines, a missing nested match, an echo or
        # random variable without its params) are warnings of their own.
        refused = ("espanso-undefined-variable", "espanso-match-not-found", "espanso-missing-param")
        problems = [
            d for d in report["diagnostics"]
            if d["severity"] in ("error", "warning") and d["code"] != "trigger-conflict" and d["code"] not in refused
        ]
        print(f"\n{root.name}: {report['totals']['snippets']} snippets in {len(ours)} files "
              f"(PyYAML: {sum(expected.values())}); variables by type (PyYAML) {dict(types)}; notes {dict(notes)}")
        # The only problems are the hub's two matches whose `triggers` is a flow mapping, which espanso refuses.
        assert [(pathlib.Path(d["path"]).relative_to(root).as_posix(), d["line"], d["code"]) for d in problems] == (
            [("med-expansions/package.yml", 530, "espanso-triggers"), ("med-expansions/package.yml", 536, "espanso-triggers")]
            if root == HUB else []
        )
        # Every shell and script variable was noted as not run, each once at its definition.
        assert notes["espanso-shell-not-run"] == types["shell"] + types["global shell"]
        assert notes["espanso-script-not-run"] == types["script"] + types["global script"]
    assert len(independent_counts(HUB)[0]) >= 220


SHELL_LIBRARY = """
matches:
  - trigger: ":boom"
    label: Deploy note
    replace: "deployed {{sh}} and {{py}} and {{sh2}}"
    vars:
      - name: sh
        type: shell
        params:
          cmd: "touch {marker}-shell"
      - name: py
        type: script
        params:
          args: [python3, -c, "open('{marker}-script', 'w')"]
      - name: sh2
        type: shell
        params:
          cmd: "echo $(touch {marker}-subshell)"
          shell: bash
"""


def test_no_shell_or_script_variable_is_ever_run(tmp_path: pathlib.Path):
    marker = tmp_path / "ran"
    library = tmp_path / "espanso"
    (library / "match").mkdir(parents=True)
    (library / "match" / "base.yml").write_text(SHELL_LIBRARY.replace("{marker}", str(marker)))
    report = check_json(library)
    assert report["totals"]["snippets"] == 1
    assert sorted(d["code"] for d in report["diagnostics"]) == ["espanso-script-not-run", "espanso-shell-not-run", "espanso-shell-not-run"]
    subprocess.run([server_binary(), "check", "--client", "neovim", "--library", str(library)], capture_output=True, timeout=60)
    doc = "file:///tmp/snippets-e2e/notes.md"
    capabilities = {"textDocument": {"completion": {"completionItem": {"snippetSupport": True, "resolveSupport": {"properties": ["documentation"]}}}}}
    with RawClient("serve", "--library", str(library)) as client:
        client.initialize(capabilities)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": doc, "languageId": "markdown", "version": 1, "text": ":boo"}})
        items = client.call("textDocument/completion", {"textDocument": {"uri": doc}, "position": {"line": 0, "character": 4}})["result"]["items"]
        item = next(i for i in items if i["label"] == ":boom")
        assert item["textEdit"]["newText"] == "deployed ${1:sh} and ${2:py} and ${3:sh2}"
        client.call("completionItem/resolve", item)
        ask = client.call("snippets/ask", {"question": "deploy note"})["result"]
        assert ask["citations"][0]["title"] == "Deploy note"
        assert client.shutdown_and_exit() == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["espanso"]


VSCODE = {"Invoice reminder (code)": {"prefix": ":lat", "body": "// TODO invoice ${1:n}", "scope": "javascript"}}


def test_completion_and_ask_over_espanso_beside_vscode_snippets(tmp_path: pathlib.Path):
    code = tmp_path / "code"
    code.mkdir()
    (code / "mine.code-snippets").write_text(json.dumps(VSCODE))
    doc = "file:///tmp/snippets-e2e/app.js"
    capabilities = {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}}
    init = {"libraries": [str(code), str(PERSONAL)]}
    with RawClient("serve") as client:
        client.call("initialize", {"processId": None, "rootUri": None, "capabilities": capabilities,
                                   "clientInfo": {"name": "Visual Studio Code", "version": "1.96.0"}, "initializationOptions": init})
        client.notify("initialized", {})
        client.wait_for_load()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": doc, "languageId": "javascript", "version": 1, "text": ":la"}})
        items = client.call("textDocument/completion", {"textDocument": {"uri": doc}, "position": {"line": 0, "character": 3}})["result"]["items"]
        by_label = {item["label"]: item for item in items}
        assert {":lat", ":late", ":lang"} <= set(by_label)
        assert by_label[":lat"]["textEdit"]["newText"] == "// TODO invoice ${1:n}"
        # The espanso reminder: form fields as placeholders (the second use a mirror), the date as LSP variables,
        # which VS Code resolves itself.
        late = by_label[":late"]["textEdit"]["newText"]
        assert late.startswith("Dear ${1:value},\n\nmy invoice ${2:value} from $CURRENT_DATE $CURRENT_MONTH_NAME $CURRENT_YEAR is still unpaid.")
        assert by_label[":lang"]["textEdit"]["newText"] == "${1|Polish → English,English → Polish,German → Polish|}"

        # The prose replies are what ask is for: it names the match and quotes the line that answers.
        ask = client.call("snippets/ask", {"question": "how much do I charge per page for a sworn translation?"})["result"]
        assert ask["status"] == "answered"
        citation = ask["citations"][0]
        assert citation["title"] == "Rates for sworn translation"
        quote = citation["quote"]
        assert quote["text"] == "Sworn translation: 58 PLN per page of 1,125 characters; express (24 h) +50%."
        assert quote["text"] in ask["answer"]
        # The quote's range is exactly that text in the espanso file.
        lines = (PERSONAL / "match" / "base.yml").read_text(encoding="utf-8").split("\n")
        start, end = quote["location"]["range"]["start"], quote["location"]["range"]["end"]
        assert start["line"] == end["line"]
        assert lines[start["line"]][start["character"]:end["character"]] == quote["text"]
        assert client.shutdown_and_exit() == 0


def test_an_edited_espanso_file_is_reloaded_and_a_broken_one_keeps_its_last_good_matches(tmp_path: pathlib.Path):
    library = tmp_path / "espanso"
    (library / "match").mkdir(parents=True)
    base = library / "match" / "base.yml"
    base.write_text('matches:\n  - trigger: ":hi"\n    replace: "hello"\n')
    doc = "file:///tmp/snippets-e2e/notes.txt"
    capabilities = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}},
                    "textDocument": {"completion": {"completionItem": {"snippetSupport": True}}}}

    def labels(client: RawClient, version: int) -> list[str]:
        client.notify("textDocument/didChange", {"textDocument": {"uri": doc, "version": version},
                                                 "contentChanges": [{"text": ":h"}]})
        reply = client.call("textDocument/completion", {"textDocument": {"uri": doc}, "position": {"line": 0, "character": 2}})
        return sorted(item["label"] for item in reply["result"]["items"])

    def save(text: str) -> None:
        # As editors save: a new file renamed over the old one, so no load reads it half written.
        partial = base.with_name("base.yml.saving")
        partial.write_text(text)
        os.replace(partial, base)

    def load_saying(client: RawClient, words: str) -> str:
        # The periodic check may load the library too (it is outside the workspace), so a load announced before the
        # one this edit causes is passed over: the first announcement that says `words` is this edit's.
        message = client.wait_for_load()
        while words not in message:
            message = client.wait_for_load()
        return message

    with RawClient("serve", "--library", str(library)) as client:
        client.initialize(capabilities)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": doc, "languageId": "plaintext", "version": 1, "text": ":h"}})
        assert labels(client, 2) == [":hi"]
        save('matches:\n  - trigger: ":hi"\n    replace: "hello"\n  - trigger: ":how"\n    replace: "how are you?"\n')
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": base.as_uri(), "type": 2}]})
        load_saying(client, "loaded 2 snippets")
        assert labels(client, 3) == [":hi", ":how"]
        save('matches:\n  - trigger: ":hi"\n    replace: "unclosed\n')
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": base.as_uri(), "type": 2}]})
        load_saying(client, "has errors")
        assert labels(client, 4) == [":hi", ":how"]
        assert client.shutdown_and_exit() == 0
