"""The YAML reader behind espanso files, checked against PyYAML over every YAML file of the espanso corpora.

`snippets-lsp yaml-dump` (a debugging aid) prints our parse of each file; PyYAML's `safe_load` reads the same
file. Our reader leaves scalars untyped (a plain `true` is the text `true`), so plain scalars are typed here with
PyYAML's own resolver before comparing: what is compared is the structure and every scalar's text, exactly.
"""

from __future__ import annotations

import json
import math
import pathlib
import subprocess

import pytest
import yaml

from lspkit import server_binary

CORPORA = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "corpora"
FOLDERS = ["espanso-hub", "personal-espanso"]


def yaml_files() -> list[pathlib.Path]:
    files: list[pathlib.Path] = []
    for folder in FOLDERS:
        root = CORPORA / folder
        files += sorted(p for p in root.rglob("*") if p.suffix in (".yml", ".yaml") and p.is_file())
    return files


_loader = yaml.SafeLoader("")


def typed(value):
    """Our dump as the Python value PyYAML would build: plain scalars resolved and constructed by PyYAML's rules."""
    if isinstance(value, list):
        return [typed(item) for item in value]
    if isinstance(value, dict) and "plain" in value:
        text = value["plain"]
        tag = _loader.resolve(yaml.ScalarNode, text, (True, False))
        return _loader.construct_object(yaml.ScalarNode(tag, text))
    if isinstance(value, dict) and "map" in value:
        result = {}
        for key, item in value["map"]:
            result[typed(key)] = typed(item)
        return result
    return value


def same(ours, theirs) -> bool:
    if isinstance(theirs, float) and isinstance(ours, float) and math.isnan(theirs):
        return math.isnan(ours)
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and ours.keys() == theirs.keys() and all(same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    return type(ours) is type(theirs) and ours == theirs


def dump(paths: list[pathlib.Path]) -> dict[str, dict]:
    run = subprocess.run(
        [server_binary(), "yaml-dump", *map(str, paths)], capture_output=True, text=True, timeout=300
    )
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    return {line["file"]: line for line in lines}


def test_every_corpus_yaml_file_reads_as_pyyaml_reads_it():
    files = yaml_files()
    assert len(files) >= 400, f"expected the espanso corpora under {CORPORA}, found {len(files)} YAML files"
    ours = dump(files)
    agreed, disagreed = [], []
    for path in files:
        expected = yaml.safe_load(path.read_text(encoding="utf-8"))
        line = ours[str(path)]
        if "error" in line:
            disagreed.append(f"{path}: we report {line['error']}")
        elif not same(typed(line["value"]), expected):
            disagreed.append(f"{path}: values differ")
        else:
            agreed.append(path)
    print(f"\nYAML cross-check: {len(agreed)} of {len(files)} files agree with PyYAML {yaml.__version__}, "
          f"{len(disagreed)} disagree")
    assert not disagreed, "\n".join(disagreed[:20])


@pytest.mark.parametrize(
    "text",
    [
        "a: |2-\n    two more\n   one\n",
        "a: >\n  folded\n  lines\n\n  para\n    more\n  back\nb: x\n",
        "a: >+\n  keep\n\n\nb: |-\n  strip\n\n",
        "- 'it''s'\n- \"tab\\tq\\\"\\u00e9\\x41\\\n  joined\"\n- \"line\n\n  folded\"\n",
        "k: plain\n  over lines\n\n  and a break  # comment\nn: ~\nm:\n- x\n- y: z\n  w: v\n",
        "t: [a, 'b', {c: d, e}, [f]]\nu: {\"ipsl\", \"ilat\"}\n",
        "anchors:\n  - &f\n      x: 1\n      y:\nuse: *f\nflow: [*f, &g 2, *g]\n",
        "---\na: 1\n...\n",
        "a: 'multi\n  line'\nb: \"x\\\n\n  y\"\n",
        "\ufeffkey: value\n",
        "a: |\n\n  after blank\n",
        "- - nested\n  - list\n-\n  - deeper\n",
    ],
)
def test_yaml_edge_cases_read_as_pyyaml_reads_them(tmp_path: pathlib.Path, text: str):
    path = tmp_path / "case.yml"
    path.write_text(text, encoding="utf-8")
    line = dump([path])[str(path)]
    assert "error" not in line, line
    assert same(typed(line["value"]), yaml.safe_load(text)), (typed(line["value"]), yaml.safe_load(text))


@pytest.mark.parametrize(
    "text, where",
    [
        ("a: !tag x\n", (1, 4)),
        ("a: b: c\n", (1, 4)),
        ("a:\n\t- x\n", (2, 1)),
        ("a: 'open\n", (1, 4)),
        ("a: [x, y\n", (1, 4)),
        ("? complex\n: v\n", (1, 1)),
        ("a: 1\n---\nb: 2\n", (2, 1)),
        ("a: *nothing\n", (1, 4)),
    ],
)
def test_yaml_it_does_not_read_is_a_located_error(tmp_path: pathlib.Path, text: str, where):
    path = tmp_path / "bad.yml"
    path.write_text(text, encoding="utf-8")
    line = dump([path])[str(path)]
    assert "error" in line, line
    assert (line["error"]["line"], line["error"]["column"]) == where, line["error"]
