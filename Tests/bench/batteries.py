"""Runs every probe battery through `snippets-lsp eval` and prints, per battery, the per-kind table of the measures
`../shared/eval/README.md` names, then what today's `eval` cannot say on its own:

- per tag (`paraphrase`, `typo`, `derived`, `figure`, `non-ascii`, `cross-language`): how many probes were
  answered right (an answerable probe cites an expected snippet; one that expects nothing cites nothing and says
  so), and how many of the answerable ones cite anything at all;
- figures: for probes with `figure`, whether `ask` quotes that text verbatim in its answer;
- buffer language: for probes with `language`, `ask --language` from that buffer: the status, whether an
  expected snippet is cited, and whether the answer says nothing matches although the expected snippet exists.

The batteries: `../shared/eval/personal-battery.json` and every `Tests/Fixtures/batteries/*/battery.json`.
With `--model-url` (or SNIPPETS_MODEL_URL, set by `scripts/model-server.sh run` for SmolLM2, or by
`Tests/bench/oracle_model.py` for a scripted model that always picks right) every run goes through the model;
`--extra-arg` passes more options on to every eval and ask.

    python3 Tests/bench/batteries.py --bin .build/debug/snippets-lsp [--shared ../shared] [--model-url URL]

Exits 1 when `eval` reports a broken hard invariant on any battery (the table says which), else 0. Only the
standard library: it runs without the project's .venv.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLUMNS = ["kind", "n", "grounding", "invented", "numbers", "leaks", "retr.recall", "ans.recall", "cit.prec",
           "abstention", "substantive", "replaced", "fallback", "meaning@1", "meaning@3"]
NOTHING_MATCHES = "Nothing in your library matches"


def percent(part: int, whole: int) -> str:
    return "n/a" if whole == 0 else f"{100 * part / whole:.0f}%"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows)


def kind_table(report: dict) -> str:
    """The per-kind table, with the columns and formulas of `snippets-lsp eval`'s text report."""
    rows = [COLUMNS]
    for kind in report["kinds"]:
        m = report["measures"][kind]
        rows.append([
            kind, str(m["probes"]), percent(m["grounded"], m["probes"]), str(m["inventedTitles"]),
            str(m["unsupportedNumbers"]), str(m["leaks"]), percent(m["expectedRetrieved"], m["expected"]),
            percent(m["expectedCited"], m["expected"]), percent(m["citedCorrect"], m["cited"]),
            percent(m["abstained"], m["abstentionProbes"]), percent(m["substantive"], m["answerableProbes"]),
            percent(m["replaced"], m["modelAnswers"]), percent(m["fallbacks"], m["modelAnswers"]),
            percent(m.get("meaningFirst", 0), m.get("meaningProbes", 0)),
            percent(m.get("meaningTopThree", 0), m.get("meaningProbes", 0)),
        ])
    return table(rows)


def right(probe: dict, outcome: dict) -> bool:
    """An answerable probe cites an expected snippet; one that expects nothing cites nothing and says so."""
    if probe["expect"]:
        return outcome["expectedCited"] > 0
    return not outcome["cited"] and outcome["status"] in ("noMatch", "fallback")


def tag_table(probes: list[dict], outcomes: dict[str, dict]) -> str:
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for probe in probes:
        outcome = outcomes[probe["id"]]
        for tag in probe.get("tags", []):
            c = counts[tag]
            c["n"] += 1
            c["right"] += right(probe, outcome)
            if probe["expect"]:
                c["answerable"] += 1
                c["substantive"] += bool(outcome["cited"])
                c["expectedRetrieved"] += outcome["expectedRetrieved"] > 0
    rows = [["tag", "n", "right", "retrieved", "substantive"]]
    for tag in sorted(counts):
        c = counts[tag]
        rows.append([tag, str(c["n"]), f'{c["right"]}/{c["n"]}', f'{c["expectedRetrieved"]}/{c["answerable"]}',
                     f'{c["substantive"]}/{c["answerable"]}'])
    return table(rows)


def ask(binary: str, library: pathlib.Path, question: str, language: str | None, model: list[str]) -> dict:
    command = [binary, "ask", "--library", str(library), "--json", "--no-learning", *model, question]
    if language:
        command[2:2] = ["--language", language]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return {"status": f"exit {done.returncode}", "answer": done.stderr.strip(), "citations": []}
    return json.loads(done.stdout)


def run_battery(binary: str, path: pathlib.Path, model: list[str], verbose: bool, asks: bool = True) -> bool:
    battery = json.loads(path.read_text(encoding="utf-8"))
    library = (path.parent / battery["library"]).resolve()
    probes = battery["probes"]
    done = subprocess.run([binary, "eval", str(path), "--json", *model], capture_output=True, text=True, timeout=3600)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"eval {path}: exit {done.returncode}\n{done.stderr}")
        return False
    outcomes = {outcome["id"]: outcome for outcome in report["probes"]}

    print(f"=== {os.path.relpath(path, ROOT)} ({len(probes)} probes){' with the model' if model else ', no model'}")
    if verbose:
        for probe in probes:
            o = outcomes[probe["id"]]
            cited = ", ".join(f'"{t}"' for t in o["cited"]) or "-"
            print(f'{probe["id"]} {probe["kind"]:<13} {o["status"]:<10} {o["expectedCited"]}/{o["expected"]} cited: {cited}')
        print()
    print(kind_table(report))
    print("hard invariants hold" if report["invariantsHold"] else "HARD INVARIANT FAILED (run with --verbose)")
    # Issue 29's measures: a probe with any citation it does not expect (a wrong or extra snippet, or any snippet
    # where nothing is expected), as a share of all probes; paraphrases answered right.
    wrong = sum(1 for probe in probes if any(title not in probe["expect"] for title in outcomes[probe["id"]]["cited"]))
    paraphrases = [probe for probe in probes if "paraphrase" in probe.get("tags", []) or probe["kind"] == "bridge"]
    paraphrased_right = sum(right(probe, outcomes[probe["id"]]) for probe in paraphrases)
    print(f"wrong or extra citations: {wrong}/{len(probes)} probes ({percent(wrong, len(probes))}); "
          f"paraphrases right: {paraphrased_right}/{len(paraphrases)} ({percent(paraphrased_right, len(paraphrases))})")
    # The encoder's ceiling on the same paraphrases: how many meaning alone ranks an expected snippet first for,
    # whatever the margin (what answering every paraphrase by meaning's first choice would get right).
    ranked = [outcomes[probe["id"]].get("meaningRank") for probe in paraphrases]
    if any(rank is not None for rank in ranked):
        first = sum(1 for rank in ranked if rank == 1)
        print(f"paraphrases meaning alone ranks an expected snippet first for: {first}/{len(paraphrases)} "
              f"({percent(first, len(paraphrases))}), in the first three: "
              f"{sum(1 for rank in ranked if rank and rank <= 3)}/{len(paraphrases)}")
    # A decline may name the snippets nearest in meaning (never cited): how often the right one is among them.
    declined = [probe for probe in probes if probe["expect"] and not outcomes[probe["id"]]["cited"]]
    near = sum(1 for probe in declined if set(probe["expect"]) & set(outcomes[probe["id"]].get("suggested", [])))
    must = [probe for probe in probes if not probe["expect"]]
    must_named = sum(1 for probe in must if outcomes[probe["id"]].get("suggested"))
    print(f"declined answerable probes naming the right snippet as near in meaning: {near}/{len(declined)}; "
          f"must-decline probes naming some snippet as near: {must_named}/{len(must)}")

    if any(probe.get("tags") for probe in probes):
        print("\nper tag (right: cites an expected snippet, or cites nothing when nothing is expected):")
        print(tag_table(probes, outcomes))

    figures = [probe for probe in probes if probe.get("figure")] if asks else []
    if figures:
        print("\nfigures (ask: is the asked-for figure quoted verbatim in the answer?):")
        rows = [["id", "figure", "status", "cites expected", "figure quoted"]]
        quoted = 0
        for probe in figures:
            result = ask(binary, library, probe["question"], probe.get("language"), model)
            cites = any(c.get("title") in probe["expect"] for c in result.get("citations", []))
            has = probe["figure"] in result.get("answer", "")
            quoted += has
            rows.append([probe["id"], probe["figure"], result.get("status", "?"), "yes" if cites else "no",
                         "yes" if has else "no"])
        print(table(rows))
        print(f"figure quoted: {quoted}/{len(figures)}")

    languages = [probe for probe in probes if probe.get("language")] if asks else []
    if languages:
        print("\nasked from another language's buffer (ask --language):")
        rows = [["id", "buffer", "status", "reason", "expected retrieved", "cites expected", "says nothing matches"]]
        for probe in languages:
            result = ask(binary, library, probe["question"], probe["language"], model)
            cites = any(c.get("title") in probe["expect"] for c in result.get("citations", []))
            nothing = NOTHING_MATCHES in result.get("answer", "")
            retrieved = any(c.get("title") in probe["expect"] for c in result.get("candidates", []))
            reason = (result.get("reason") or {}).get("code", "-")
            rows.append([probe["id"], probe["language"], result.get("status", "?"), reason,
                         "yes" if retrieved else "no", "yes" if cites else "no",
                         "YES (the expected snippet exists)" if nothing and probe["expect"] else "no"])
        print(table(rows))
    print(flush=True)
    return bool(report["invariantsHold"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=str(ROOT / ".build/debug/snippets-lsp"))
    parser.add_argument("--shared", default=str(ROOT.parent / "shared"))
    parser.add_argument("--model-url", default=os.environ.get("SNIPPETS_MODEL_URL"))
    parser.add_argument("--model", default=os.environ.get("SNIPPETS_MODEL_NAME", "smollm2"))
    parser.add_argument("--model-timeout", default="60")
    parser.add_argument("--verbose", action="store_true", help="also print one line per probe")
    parser.add_argument("--eval-only", action="store_true",
                        help="skip the ask runs (figures, buffer language): with a slow model, half the time")
    parser.add_argument("--extra-arg", action="append", default=[], metavar="ARG",
                        help="passed on to every eval and ask (repeat for each word), e.g. --extra-arg=--model-role --extra-arg=trusted")
    parser.add_argument("batteries", nargs="*", help="battery files (default: the shared one and the project's)")
    args = parser.parse_args()

    model = ["--model-url", args.model_url, "--model", args.model, "--model-timeout", args.model_timeout] if args.model_url else []
    model += args.extra_arg
    paths = [pathlib.Path(p).resolve() for p in args.batteries]
    if not paths:
        shared = pathlib.Path(args.shared) / "eval/personal-battery.json"
        if shared.is_file():
            paths.append(shared.resolve())
        else:
            print(f"batteries: {shared} not found; running the project's batteries only")
        paths += sorted((ROOT / "Tests/Fixtures/batteries").glob("*/battery.json"))
    held = [run_battery(args.bin, path, model, args.verbose, asks=not args.eval_only) for path in paths]
    return 0 if all(held) else 1


if __name__ == "__main__":
    sys.exit(main())
