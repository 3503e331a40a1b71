"""Team libraries over real pipes: a personal folder and a team git repository (made by the test) as two layers of
the real binary, configured through `initializationOptions` the way an editor sends `snippets.libraries`."""

from __future__ import annotations

import json
import pathlib
import subprocess

from lspkit import RawClient

PERSONAL = {"Log (mine)": {"prefix": "log", "body": "console.log('mine', $1)", "scope": "javascript"}}
TEAM = {
    "Team log": {"prefix": "log", "body": "logger.info($1)"},
    "Overdue invoice letter": {"prefix": "overdue", "body": "Invoice $1 is overdue; please pay within 7 days."},
}
DOC = "file:///tmp/snippets-e2e/app.js"


def git(team: pathlib.Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Team", "-c", "user.email=team@example.com", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, cwd=team, check=True, capture_output=True, text=True).stdout.strip()


def make_layers(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    personal, team = tmp_path / "personal", tmp_path / "team"
    personal.mkdir()
    team.mkdir()
    (personal / "mine.code-snippets").write_text(json.dumps(PERSONAL, indent=2))
    (team / "javascript.json").write_text(json.dumps(TEAM, indent=2))
    git(team, "init", "-q")
    git(team, "add", "-A")
    git(team, "commit", "-q", "-m", "team snippets")
    return personal, team


def test_two_layers_from_the_setting_rank_label_refuse_and_trace(tmp_path: pathlib.Path):
    personal, team = make_layers(tmp_path)
    head = git(team, "rev-parse", "HEAD")
    libraries = [str(personal), {"path": str(team), "name": "team", "readOnly": True}]
    capabilities = {"textDocument": {"completion": {"completionItem": {"snippetSupport": True, "labelDetailsSupport": True}}}}
    with RawClient("serve") as client:
        result = client.initialize(capabilities, init_options={"libraries": libraries, "saveTo": str(team / "saved.code-snippets")})
        assert result["capabilities"]["experimental"]["snippetsVerifyCitations"] is True
        client.notify("textDocument/didOpen", {"textDocument": {"uri": DOC, "languageId": "javascript", "version": 1, "text": "log"}})
        reply = client.call("textDocument/completion", {"textDocument": {"uri": DOC}, "position": {"line": 0, "character": 3}})
        logs = [item for item in reply["result"]["items"] if item["label"] == "log"]
        # The unnamed personal folder is named after its folder and comes first.
        assert [item["labelDetails"]["description"] for item in logs] == ["personal", "team"]
        assert [item["detail"] for item in logs] == ["Log (mine) (personal)", "Team log (team)"]

        saved = client.call("workspace/executeCommand", {
            "command": "snippets.saveSelection",
            "arguments": [{"textDocument": {"uri": DOC}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}}],
        })
        assert "read-only" in saved["error"]["message"] and "'team'" in saved["error"]["message"]
        assert not (team / "saved.code-snippets").exists()

        ask = client.call("snippets/ask", {"question": "overdue invoice letter"})["result"]
        citation = ask["citations"][0]
        assert (citation["layer"], citation["layerRevision"]) == ("team", f"git:{head}")
        assert citation["contentHash"].startswith("sha1:")
        verdict = client.call("snippets/verifyCitations", {"citations": [citation]})["result"]["citations"][0]
        assert verdict["status"] == "unchanged"
        assert client.shutdown_and_exit() == 0
