"""The documents hold together: every relative link in README.md, ARCHITECTURE.md, docs/*.md and the editors'
READMEs leads to a file that exists, and every `#anchor` to a heading of that file (GitHub's heading ids); every
page of docs/ is reachable from the README; the front page and the architecture map stay short (issue 32: they had
grown into manuals of 70 and 55 KB).

Standard library only: no binary, no server."""

from __future__ import annotations

import pathlib
import re
import unicodedata

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = sorted(
    [REPO / "README.md", REPO / "ARCHITECTURE.md"]
    + list((REPO / "docs").glob("*.md"))
    + list((REPO / "editors").glob("*/README.md"))
)

FENCE = re.compile(r"^(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"(?<!\\)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks and indented code, with code spans removed, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") and not line.lstrip().startswith(("-", "*", "|")):
            continue
        lines.append((number, CODE_SPAN.sub("", line)))
    return lines


def slug(heading: str) -> str:
    """GitHub's id for a heading: its text lowercased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.strip().lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in "-_" or category[0] in "LN" or category == "Mn":
            kept.append(char)
        elif char == " ":
            kept.append("-")
    return "".join(kept)


def anchors(path: pathlib.Path) -> set[str]:
    """The ids of every heading in `path`, a repeated one numbered as GitHub numbers it (`-1`, `-2`, ...)."""
    ids: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids.add(base if count == 0 else f"{base}-{count}")
    return ids


def links(path: pathlib.Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        found += [(number, match.group("target")) for match in LINK.finditer(line)]
    return found


def broken_links(path: pathlib.Path) -> list[str]:
    problems = []
    for number, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...: not checked here
            continue
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(REPO)}:{number}: {target}"
        if not destination.exists():
            problems.append(f"{where}: no such file or folder")
        elif anchor:
            if destination.suffix != ".md":
                problems.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor not in anchors(destination):
                problems.append(f"{where}: no heading with the id '{anchor}' in {destination.relative_to(REPO)}")
    return problems


def test_the_slugs_are_githubs():
    assert slug("Asking by meaning (no model needed)") == "asking-by-meaning-no-model-needed"
    assert slug("What each model fallback means (`reason.code` of a `fallback` result)") == (
        "what-each-model-fallback-means-reasoncode-of-a-fallback-result"
    )
    assert slug("The model's role: measured on your library") == "the-models-role-measured-on-your-library"
    assert slug("What `make test` installs and runs") == "what-make-test-installs-and-runs"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_relative_link_and_anchor_resolves(path: pathlib.Path):
    assert not broken_links(path), "\n".join(broken_links(path))


def test_every_page_of_docs_is_linked_from_the_readme():
    linked = {
        (REPO / target.partition("#")[0]).resolve() for _, target in links(REPO / "README.md") if target.startswith("docs/")
    }
    unlinked = [str(page.relative_to(REPO)) for page in (REPO / "docs").glob("*.md") if page.resolve() not in linked]
    assert not unlinked, f"pages of docs/ the README never links to: {unlinked}"


@pytest.mark.parametrize(("name", "limit"), [("README.md", 20_000), ("ARCHITECTURE.md", 16_000)])
def test_the_front_page_and_the_map_stay_short(name: str, limit: int):
    size = len((REPO / name).read_bytes())
    assert size <= limit, (
        f"{name} is {size} bytes, over {limit}: it is a front page (a map), not a manual; "
        "move the detail to docs/ and link to it"
    )
