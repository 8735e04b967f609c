"""The users' documentation: README.md and docs/ must stand on their own in a clone.

* Every relative link and image in README.md and docs/**/*.md points at a file or folder
  of the repository that a clone has (tracked, or at least not git-ignored), without
  leaving the repository. A link with an anchor (``page.md#section``, ``#section``) must
  name a heading of the target page, using GitHub's rule for heading anchors.
* No file of a clone outside tests/ and fixtures/ sends a reader to the team's private
  brief (``../shared``, ``shared/specs``, ``shared/samples``): users never have it.
* Every program has its page in docs/, linked from README.md, and every page of docs/
  can be reached from README.md by following links.

Links inside code (fenced blocks, indented blocks, inline code spans) are not links.
"""

import re
import subprocess
from pathlib import Path

import pytest

from engine.__main__ import load, program_names

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

# Each program of ``python3 -m engine`` and the page that documents it.
PROGRAM_PAGES = {
    "tictactoe": "tictactoe.md",
    "morris": "tmmorris.md",
    "take_stones": "take_stones.md",
    "stake_raid": "stake_raid.md",
    "nqueens": "nqueens.md",
    "lineemup": "lineemup.md",
    "tree": "trees.md",
    "picture": "trees.md",
    "hillclimb": "trees.md",
}
# Pages that are not about one program but must exist all the same.
OTHER_PAGES = ("engine.md", "README.md")

# The private brief, however a file might point at it.
PRIVATE_BRIEF = re.compile(r"\.\./shared\b|\bshared/(specs|samples|DESIGN)\b")

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:.|\n)*?\1")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


# --- reading Markdown -------------------------------------------------------------------

def prose_lines(text):
    """The lines of ``text`` that are not code: fenced and indented blocks are blanked
    (kept as empty lines so that line numbers stay right)."""
    lines = text.split("\n")
    result = []
    fenced = False
    previous_blank = True
    indented = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
            result.append("")
            previous_blank = False
            continue
        if fenced:
            result.append("")
            continue
        blank = not line.strip()
        # An indented code block starts after a blank line (or another code line) with
        # 4 spaces or a tab, and is not a list item's continuation (we write none).
        if not blank and (line.startswith("    ") or line.startswith("\t")):
            if previous_blank or indented:
                indented = True
                result.append("")
                continue
        if not blank:
            indented = False
        previous_blank = blank
        result.append(line)
    return result


def links(text):
    """``[(line number, target)]`` for every link and image in the prose of ``text``."""
    found = []
    for number, line in enumerate(prose_lines(text), 1):
        line = INLINE_CODE.sub("", line)
        for pattern in (INLINE_LINK, REFERENCE_LINK, HTML_LINK):
            for match in pattern.finditer(line):
                found.append((number, match.group(1)))
    return found


def is_external(target):
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) is not None


def heading_anchors(text):
    """The anchors GitHub gives the headings of ``text``: lower case, punctuation other
    than '-' and '_' dropped, spaces turned into '-', repeats numbered -1, -2, ..."""
    anchors = set()
    seen = {}
    for line in prose_lines(text):
        match = HEADING.match(line)
        if not match:
            continue
        title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # link text only
        title = title.replace("`", "").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if not count else f"{slug}-{count}")
    return anchors


# --- what a clone has -----------------------------------------------------------------------

def clone_files():
    """Relative paths of the files a clone has: tracked, plus new files not ignored.

    (Build products and other git-ignored files exist here but not in a clone.)
    """
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, check=True)
    return {name for name in listing.stdout.decode("utf-8").split("\0") if name}


def documentation_pages():
    return [REPO / "README.md"] + sorted(DOCS.rglob("*.md"))


def resolve(page, target, files):
    """The problem with link ``target`` of ``page``, or None if it resolves.

    ``files``: the repository's files (relative paths) that a clone has.
    """
    path_part, _, anchor = target.partition("#")
    if path_part:
        resolved = (page.parent / path_part).resolve()
        try:
            relative = resolved.relative_to(REPO).as_posix()
        except ValueError:
            return f"{target!r} leaves the repository"
        if relative not in files and not any(name.startswith(relative + "/")
                                             for name in files):
            if resolved.exists():
                return f"{target!r} exists here but not in a clone (git-ignored?)"
            return f"{target!r} does not exist"
    else:
        resolved = page
    if anchor and resolved.suffix == ".md" and resolved.is_file():
        if anchor not in heading_anchors(resolved.read_text(encoding="utf-8")):
            return f"{target!r}: no heading of {resolved.name} has the anchor #{anchor}"
    return None


def broken_links(page, files):
    problems = []
    for number, target in links(page.read_text(encoding="utf-8")):
        if is_external(target):
            continue
        problem = resolve(page, target, files)
        if problem:
            problems.append(f"{page.relative_to(REPO)}:{number}: {problem}")
    return problems


# --- the link checker itself can fail -----------------------------------------------------

def test_links_are_found_in_prose_and_not_in_code():
    text = "\n".join([
        "See [the page](a.md) and ![a picture](img/b.svg \"title\").",
        "`[not a link](x.md)` in inline code",
        "",
        "    [not a link either](y.md)   an indented code block",
        "",
        "```",
        "[nor this](z.md)",
        "```",
        "[ref]: c.md#part",
        "<img src=\"d.png\">",
    ])
    assert [target for _, target in links(text)] == ["a.md", "img/b.svg", "c.md#part", "d.png"]


def test_heading_anchors_follow_githubs_rule():
    text = "# Take-Stones: `TakeStones`\n## The COMPETITION agent\n## Errors\n## Errors\n"
    assert heading_anchors(text) == {"take-stones-takestones", "the-competition-agent",
                                     "errors", "errors-1"}


def test_a_broken_link_is_reported(tmp_path):
    page = DOCS / "README.md"
    files = {"docs/README.md", "docs/engine.md"}
    assert resolve(page, "engine.md", files) is None
    assert "does not exist" in resolve(page, "missing.md", files)
    assert "leaves the repository" in resolve(page, "../../elsewhere.md", files)
    assert "no heading" in resolve(page, "engine.md#no-such-section", files)


# --- the documentation -----------------------------------------------------------------------

@pytest.mark.parametrize("page", documentation_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves_in_a_clone(page):
    assert broken_links(page, clone_files()) == []


def test_no_product_file_points_at_the_private_brief():
    offenders = []
    for name in sorted(clone_files()):
        if name.startswith(("tests/", "fixtures/")):
            continue
        path = REPO / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary
        for number, line in enumerate(text.splitlines(), 1):
            if PRIVATE_BRIEF.search(line):
                offenders.append(f"{name}:{number}: {line.strip()}")
    assert offenders == []


def test_every_program_has_a_page():
    programs = {name for name in program_names() if load(name) is not None}
    assert programs <= set(PROGRAM_PAGES), \
        "a program without a page in docs/: add it to PROGRAM_PAGES and write the page"
    for page in set(PROGRAM_PAGES.values()) | set(OTHER_PAGES):
        assert (DOCS / page).is_file(), page


def test_readme_links_every_program_page():
    targets = {target.partition("#")[0] for _, target in
               links((REPO / "README.md").read_text(encoding="utf-8"))}
    missing = sorted(page for page in set(PROGRAM_PAGES.values()) | {"engine.md"}
                     if f"docs/{page}" not in targets)
    assert missing == []


def test_every_docs_page_can_be_reached_from_the_readme():
    reached, queue = set(), [(REPO / "README.md").resolve()]
    while queue:
        page = queue.pop()
        if page in reached or not page.is_file() or page.suffix != ".md":
            continue
        reached.add(page)
        for _, target in links(page.read_text(encoding="utf-8")):
            path_part = target.partition("#")[0]
            if path_part and not is_external(target):
                resolved = (page.parent / path_part).resolve()
                if resolved.is_dir():
                    resolved = resolved / "README.md"
                queue.append(resolved)
    unreached = sorted(str(p.relative_to(REPO)) for p in DOCS.rglob("*.md")
                       if p.resolve() not in reached)
    assert unreached == []
