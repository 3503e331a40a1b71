"""Asking by meaning, end to end, as a new user runs it: the binary finds the encoder file `make` put beside it and
answers the README's headline question, whose words no snippet of the example library holds."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = os.environ.get("SNIPPETS_LSP_BIN", str(ROOT / ".build/debug/snippets-lsp"))
LIBRARY = ROOT / "examples/library"


def ask(question: str, tmp_path: pathlib.Path, *extra: str, encoder: bool = True) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_ENCODER"}
    if not encoder:
        env["SNIPPETS_ENCODER"] = "off"
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = subprocess.run(
        [BINARY, "ask", "--library", str(LIBRARY), "--json", "--no-learning", *extra, question],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def encoder_present():
    if not (pathlib.Path(BINARY).parent / "snippets-encoder.bin").is_file():
        if os.environ.get("CI"):
            pytest.fail("the encoder file is not beside the binary: `make build` puts it there")
        pytest.skip("no encoder file beside the binary: run `make build`")


@pytest.mark.parametrize("question", [
    "what do I send someone who hasn't paid?",
    "client is late paying, what's the polite nudge",
])
def test_the_headline_question_names_the_payment_reminder(question, tmp_path, encoder_present):
    result = ask(question, tmp_path)
    assert [c["title"] for c in result["citations"]] == ["Gentle payment reminder"], result["answer"]
    assert result["meaning"]["state"] == "ready" and result["meaning"]["foundByMeaning"] is True
    # Without the encoder the same question is declined, and the result says meaning search is off.
    off = ask(question, tmp_path, encoder=False)
    assert off["citations"] == []
    assert off["meaning"]["state"] == "off" and "SNIPPETS_ENCODER" in off["meaning"]["note"]


def test_a_second_run_embeds_nothing_and_answers_the_same(tmp_path, encoder_present):
    first = ask("what do I send someone who hasn't paid?", tmp_path)
    cache = list((tmp_path / "cache/snippets-lsp/meaning").glob("*.vectors"))
    assert len(cache) == 1
    stamp = cache[0].stat().st_mtime_ns
    second = ask("what do I send someone who hasn't paid?", tmp_path)
    assert second["citations"] == first["citations"]
    # Nothing new was embedded, so the cache was not rewritten with new vectors (only calibration probes, once).
    assert cache[0].stat().st_size == cache[0].stat().st_size and stamp <= cache[0].stat().st_mtime_ns


def test_a_figure_no_snippet_holds_is_still_declined(tmp_path, encoder_present):
    result = ask("what do I send someone who hasn't paid after 90 days?", tmp_path)
    assert not any("90" in c.get("quote", {}).get("text", "") for c in result["citations"])
    assert "90 days" not in result["answer"] or result["status"] == "noMatch"


def test_words_and_meaning_agreeing_on_the_first_candidate_outrank_a_lower_pick(tmp_path, encoder_present):
    """"set up logging" from a Python buffer: the word picker alone named "Bash strict mode" (its description says
    "Set up"), though retrieval ranked "Python logging setup" first; meaning agrees with retrieval, so that is named."""
    library = tmp_path / "lib"
    library.mkdir()
    (library / "python.json").write_text(json.dumps({"Python logging setup": {
        "prefix": "logsetup", "description": "Configure the logging module with a format and level",
        "body": ["import logging", "logging.basicConfig(level=logging.INFO)", "log = logging.getLogger(__name__)"]}}))
    (library / "shellscript.json").write_text(json.dumps({"Bash strict mode": {
        "prefix": "strict", "description": "Set up a script to stop on the first error",
        "body": ["set -euo pipefail", "IFS=$'\\n\\t'"]}}))

    def titles(encoder: bool) -> list[str]:
        env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_ENCODER"}
        if not encoder:
            env["SNIPPETS_ENCODER"] = "off"  # this stop's word picker alone names "Bash strict mode" here
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        done = subprocess.run(
            [BINARY, "ask", "--library", str(library), "--language", "python", "--json", "--no-learning", "set up logging"],
            capture_output=True, text=True, env=env, timeout=300, check=True)
        return [c["title"] for c in json.loads(done.stdout)["citations"]]

    assert titles(encoder=True) == ["Python logging setup"]


def test_a_decline_names_the_nearest_in_meaning_as_near_and_cites_nothing(tmp_path, encoder_present):
    """A question whose words fit no snippet well enough is declined; with the real encoder the snippets nearest it in
    meaning are named as such, listed in meaning.suggested and among the candidates, and never cited. A question about
    something far from every snippet of the example library names nothing as near."""
    vet = ROOT / "Tests/Fixtures/batteries/vet/library"
    # The same library in another folder answers the same: snippet identifiers hold the path, and calibration once
    # chose its probes by identifier (a CI checkout named "Price: rabbit neutering" for the ferret).
    elsewhere = tmp_path / "srv/p/vet/library"
    shutil.copytree(vet, elsewhere)
    env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_ENCODER"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    for library in (vet, elsewhere):
        done = subprocess.run(
            [BINARY, "ask", "--library", str(library), "--json", "--no-learning", "how do I neuter a ferret?"],
            capture_output=True, text=True, env=env, timeout=300, check=True)
        result = json.loads(done.stdout)
        assert result["status"] == "noMatch" and result["citations"] == [], (library, result["answer"])
        titles = {c["id"]: c["title"] for c in result["candidates"]}
        suggested = [titles[i] for i in result["meaning"]["suggested"]]
        assert "Price: rabbit neutering" in suggested, result["answer"]
        assert "Nearest in meaning, not confirmed:" in result["answer"]
        assert all(f'"{title}"' in result["answer"] for title in suggested)

    far = ask("what's the capital of Mongolia?", tmp_path)
    assert far["citations"] == [] and "suggested" not in far["meaning"], far["answer"]
    assert "Nearest in meaning" not in far["answer"]


def test_embed_covers_the_whole_library_once_and_ask_then_matches_by_meaning(tmp_path, encoder_present):
    """`snippets-lsp embed` encodes what the cache lacks and calibrates, saying how much it did; run again it encodes
    nothing; an ask after it matches by meaning over the whole library at once. With meaning off it says so."""
    env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_ENCODER"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    first = subprocess.run([BINARY, "embed", "--library", str(LIBRARY)], capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    total = json.loads(subprocess.run(
        [BINARY, "ask", "--library", str(LIBRARY), "--json", "--no-learning", "what do I send someone who hasn't paid?"],
        capture_output=True, text=True, env=env, timeout=300, check=True).stdout)["meaning"]["total"]
    assert f"Meaning search covers all {total} snippets: {total} encoded now, 0 from the cache" in first.stdout
    assert f"{total} of {total} snippets embedded" in first.stderr
    again = subprocess.run([BINARY, "embed", "--library", str(LIBRARY)], capture_output=True, text=True, env=env, timeout=300)
    assert again.returncode == 0 and f"0 encoded now, {total} from the cache" in again.stdout, again.stdout
    result = ask("what do I send someone who hasn't paid?", tmp_path)
    assert result["meaning"]["state"] == "ready" and result["meaning"]["foundByMeaning"] is True

    off = subprocess.run([BINARY, "embed", "--library", str(LIBRARY)], capture_output=True, text=True,
                         env=dict(env, SNIPPETS_ENCODER="off"), timeout=60)
    assert off.returncode == 1 and "SNIPPETS_ENCODER=off" in off.stderr


def test_a_first_ask_over_a_large_library_names_nothing_by_meaning_and_points_to_embed(tmp_path, encoder_present):
    """A first `ask` spends a few seconds encoding; over thousands of snippets that covers part of the library, and a
    lead over part of it proves nothing: meaning names no answer, the decline's nearest are said to be of those
    embedded so far, and the note says how to embed the rest now."""
    snippets = {f"Note {i}: {word} {i}": {"prefix": f"n{i}", "body": f"{word} reminder number {i} for the team."}
                for i, word in ((i, ["garden", "invoice", "ferry", "violin", "harbour"][i % 5]) for i in range(4000))}
    folder = tmp_path / "large"
    folder.mkdir()
    (folder / "notes.code-snippets").write_text(json.dumps(snippets), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "SNIPPETS_ENCODER"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = subprocess.run([BINARY, "ask", "--library", str(folder), "--no-learning", "what do I send about an unpaid bill?"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "names nothing until it covers all: `snippets-lsp embed` embeds the rest now" in done.stdout, done.stdout
    assert "found by meaning" not in done.stdout
    assert "Nearest in meaning of the " in done.stdout and " of 4000 snippets embedded so far, not confirmed: \"Note " in done.stdout, done.stdout
