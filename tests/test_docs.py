"""The users' documentation: README.md and docs/ must stand on their own in a clone.

* Every relative link and image in README.md and docs/**/*.md points at a file or folder
  of the repository that a clone has (tracked, or at least not git-ignored), without
  leaving the repository. A link with an anchor (``page.md#section``, ``#section``) must
  name a heading of the target page, using GitHub's rule for heading anchors.
* No file of a clone outside tests/ and fixtures/ sends a reader to the team's private
  brief (``../shared``, ``shared/specs``, ``shared/samples``): users never have it.
* Every program has its page in docs/, linked from README.md, and every page of docs/
  can be reached from README.md by following links.
* docs/README.md's reader map gives every page of docs/ exactly one reader and task.
* A page named outside docs/ (a help text, a message, a docstring: ``docs/page.md``,
  ``docs/page.md#anchor``, ``docs/page.md, "Section"``) exists and has that section.

* Every example session in the pages (a code block of ``$ command`` lines, each followed
  by its output) gives that output when it is run, so the pages cannot drift from the
  programs (see :func:`test_examples_print_what_the_pages_show`).

Links inside code (fenced blocks, indented blocks, inline code spans) are not links.
"""

import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from engine.registry import PROGRAMS

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

# Each program of ``python3 -m engine`` and the page that documents it.
# Each program's page (engine.registry names it).
PROGRAM_PAGES = {entry.name: entry.page for entry in PROGRAMS}
# Pages that are not about one program but must exist all the same.
OTHER_PAGES = ("engine.md", "README.md")
# The pages for one reader and task each beside the programs' own (docs/README.md maps
# every reader to one page), and those of them whose example sessions must be run.
READER_PAGES = ("grading.md", "failures.md", "tournament.md", "agent.md", "adding_a_game.md",
                "sandbox.md")
READER_PAGES_WITH_SESSIONS = ("grading.md", "failures.md", "tournament.md", "agent.md")

# The private brief, however a file might point at it.
PRIVATE_BRIEF = re.compile(r"\.\./shared\b|\bshared/(specs|samples|DESIGN)\b")

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
                         r"\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
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


# A page named in the code, a help text or a message: ``docs/page.md``, with an anchor
# (``docs/page.md#section``) or a section's title after it (``docs/page.md, "Errors"``).
CODE_REFERENCE = re.compile(r'docs/([A-Za-z0-9_.-]+\.md)(#[A-Za-z0-9_-]+)?'
                            r'(?:,\s+"([^"]+)")?')


def headings(text):
    """The titles of the headings of ``text``, without their backquotes."""
    titles = []
    for line in prose_lines(text):
        match = HEADING.match(line)
        if match:
            titles.append(match.group(1).replace("`", ""))
    return titles


def stale_references(text, read_page):
    """The references of ``text`` (outside docs/) to a page of docs/ that is not there, an
    anchor it lacks, or a section none of its headings holds. ``read_page(name)``: the
    page's text, or None when docs/ has no such page. A reference may run over lines,
    the next one starting with a comment's ``#``."""
    problems = []
    flat = re.sub(r"\s*\n\s*(?:#\s*)?", " ", text)
    for match in CODE_REFERENCE.finditer(flat):
        page, anchor, section = match.groups()
        target = read_page(page)
        if target is None:
            problems.append(f"{match.group(0)}: no such page")
            continue
        if anchor and anchor[1:] not in heading_anchors(target):
            problems.append(f"{match.group(0)}: no heading has the anchor {anchor}")
        if section and not any(section in title for title in headings(target)):
            problems.append(f"{match.group(0)}: no heading holds {section!r}")
    return problems


def test_a_stale_reference_in_the_code_is_reported():
    pages = {"grading.md": "# Grading\n## Isolation\n", "failures.md": "## A student's session\n"}
    text = ('x = 1  # docs/grading.md#isolation, docs/failures.md, "A student\'s\n'
            '# session"; docs/grading.md, "A student\'s session"; docs/grading.md#diagnoses;\n'
            'see docs/tournament.md')
    assert stale_references(text, pages.get) == [
        "docs/grading.md, \"A student's session\": no heading holds \"A student's session\"",
        "docs/grading.md#diagnoses: no heading has the anchor #diagnoses",
        "docs/tournament.md: no such page"]


def test_the_code_names_only_pages_and_sections_that_exist():
    """Help texts, messages, docstrings and comments outside docs/ that send a reader to
    a page of docs/ (links inside docs/ are checked above, as links)."""
    def read_page(name):
        path = DOCS / name
        return path.read_text(encoding="utf-8") if path.is_file() else None

    problems = []
    for name in sorted(clone_files()):
        path = REPO / name
        # (This file's own examples name pages that do not exist, on purpose.)
        if (name.startswith(("docs/", "fixtures/")) or name == "tests/test_docs.py"
                or not path.is_file()):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary
        problems.extend(f"{name}: {problem}" for problem in stale_references(text, read_page))
    assert problems == []


def test_every_program_has_a_page():
    programs = {entry.name for entry in PROGRAMS}
    assert programs <= set(PROGRAM_PAGES), \
        "a program without a page in docs/: add it to PROGRAM_PAGES and write the page"
    for page in set(PROGRAM_PAGES.values()) | set(OTHER_PAGES) | set(READER_PAGES):
        assert (DOCS / page).is_file(), page


READER_MAP = "## Who you are, which page"


def reader_map(text):
    """``{page: [reader rows]}`` of the reader map of docs/README.md: the table under
    its heading ``READER_MAP``, one row per reader and task, its last cell the page."""
    section = text.split(READER_MAP, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or set(cells[-1]) <= set("-: "):
            continue
        targets = [target for _, target in links(cells[-1])]
        if targets:
            rows.setdefault(targets[0].partition("#")[0], []).append(cells[0])
    return rows


def test_reader_map_gives_every_page_one_reader():
    """Every page of docs/ is the page of exactly one row of the reader map."""
    rows = reader_map((DOCS / "README.md").read_text(encoding="utf-8"))
    pages = sorted(path.name for path in DOCS.glob("*.md") if path.name != "README.md")
    assert sorted(rows) == pages
    assert {page: readers for page, readers in rows.items() if len(readers) != 1} == {}


def test_reader_map_is_read_as_rows():
    text = "\n".join([
        "## Who you are, which page", "", "| I am | and I want to | page |",
        "|---|---|---|", "| a student | read a failure | [failures.md](failures.md) |",
        "| an instructor | grade | [grading.md](grading.md#commands) |",
        "| another | grade too | [grading.md](grading.md) |", "", "## The pages",
        "| [engine.md](engine.md) | x | y |"])
    assert reader_map(text) == {"failures.md": ["a student"],
                                "grading.md": ["an instructor", "another"]}


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


# --- the example sessions --------------------------------------------------------------------

SKIP_MARKER = "<!-- example not checked"
# The top-level scripts, linked into the folder a session runs in (as a reader has them).
SCRIPTS = tuple(entry.script for entry in PROGRAMS if entry.script)
# Folders of the repository the sessions use as a reader would (the tournament's example
# class), linked in as well.
EXAMPLE_FOLDERS = ("examples",)
# How the pages write a TAB and a trailing space where they must be seen.
VISIBLE = str.maketrans({"\u21e5": "\t", "\u00b7": " "})


def code_blocks(text):
    """``[(first line number, lines, skipped)]``: every fenced or indented code block of
    ``text``, its lines without the indentation; ``skipped`` when the last non-blank line
    before it is a ``<!-- example not checked ... -->`` comment."""
    lines = text.split("\n")
    blocks = []
    index = 0
    previous = ""          # last non-blank prose line
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if fence:
            end = index + 1
            while end < len(lines) and not lines[end].lstrip().startswith(fence.group(1)):
                end += 1
            blocks.append((index + 2, lines[index + 1:end], previous.startswith(SKIP_MARKER)))
            index, previous = end + 1, ""
            continue
        if line.startswith("    ") and (index == 0 or not lines[index - 1].strip()):
            end = index
            while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
                end += 1
            body = [code[4:] for code in lines[index:end]]
            while body and not body[-1].strip():
                body.pop()
            blocks.append((index + 1, body, previous.startswith(SKIP_MARKER)))
            index, previous = end, ""
            continue
        if line.strip():
            previous = line.strip()
        index += 1
    return blocks


def sessions(text):
    """``[(line number, [(command, expected output lines)])]`` for every block made of
    ``$ command`` lines and their output (blocks marked as not checked are left out)."""
    found = []
    for first, body, skipped in code_blocks(text):
        if skipped or not body or not body[0].startswith("$ "):
            continue
        steps = []
        for line in body:
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line.translate(VISIBLE))
        found.append((first, steps))
    return found


def output_pattern(expected):
    """A regex for the output ``expected`` shows: a line starting with ``...`` stands for
    any number of lines the page leaves out."""
    parts = []
    for line in expected:
        if line.strip().startswith("..."):
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(re.escape(line) + r"\n")
    return re.compile("".join(parts))


def run_session(steps, folder):
    """Run the steps of one session in ``folder``; a list of the mismatches."""
    problems = []
    environment = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    environment["PATH"] = f"{folder / '.bin'}{os.pathsep}{environment.get('PATH', '')}"
    for command, expected in steps:
        words = command.split()
        if words[0] == "cat" and len(words) == 2 and not (folder / words[1]).exists():
            # A file the reader is shown before it is used: the session's input.
            (folder / words[1]).write_text("".join(line + "\n" for line in expected))
            continue
        # The timeout only catches a hang: a whole tournament takes 33 s on a quiet
        # machine and four times that on a busy one (CI timed out once at 120 s).
        run = subprocess.run(["bash", "-c", command], cwd=folder, env=environment,
                             capture_output=True, timeout=900)
        stdout = run.stdout.decode("utf-8", "replace")
        merged = stdout + run.stderr.decode("utf-8", "replace")
        # A Markdown code block cannot end with blank lines: neither can the outputs.
        stdout, merged = (text.rstrip("\n") + "\n" if text else "" for text in (stdout, merged))
        pattern = output_pattern(expected)
        if not (pattern.fullmatch(stdout) or pattern.fullmatch(merged)):
            problems.append(f"$ {command}\n--- the page shows:\n" + "\n".join(expected)
                            + f"\n--- the program printed:\n{merged}")
    return problems


def prepare_session_folder(folder):
    """An empty folder with the top-level scripts, ``python3`` = this interpreter and
    ``game-search`` (the installed command)."""
    for script in SCRIPTS + EXAMPLE_FOLDERS:
        (folder / script).symlink_to(REPO / script)
    (folder / ".bin").mkdir()
    # A script, not a link: a virtual environment's python finds its packages (the ladder
    # extra's) only when run by its own path.
    python3 = folder / ".bin" / "python3"
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python3.chmod(0o755)
    # The installed command as pip makes it (a console script: its own folder, never the
    # current one, first on sys.path); the pages' sessions use it as a reader would.
    installed = folder / ".bin" / "game-search"
    installed.write_text(f"#!{sys.executable}\nimport sys\nfrom engine.__main__ import "
                         "main\nsys.exit(main())\n")
    installed.chmod(0o755)


def test_sessions_are_read_as_commands_and_outputs():
    text = "\n".join([
        "Prose.", "", "    $ cat in.txt", "    1 2", "    $ tool in.txt", "    a\u21e5b\u00b7",
        "", "<!-- example not checked: varies -->", "", "    $ clock", "    12:00", "",
        "```", "$ echo hi", "hi", "```",
    ])
    assert sessions(text) == [(3, [("cat in.txt", ["1 2"]), ("tool in.txt", ["a\tb "])]),
                              (14, [("echo hi", ["hi"])])]
    assert output_pattern(["a", "...", "z"]).fullmatch("a\nb\nc\nz\n")
    assert not output_pattern(["a", "z"]).fullmatch("a\nb\nz\n")


def test_a_session_that_prints_something_else_is_reported(tmp_path):
    prepare_session_folder(tmp_path)
    steps = [("cat board.txt", ["oxxxo-ox-"]),
             ("python3 tictactoe.py $(cat board.txt) visited.txt", ["x--------"])]
    problems = run_session(steps, tmp_path)
    assert len(problems) == 1 and "oxxxo-oxo" in problems[0]


def pages_with_sessions():
    return [page for page in sorted(DOCS.rglob("*.md"))
            if sessions(page.read_text(encoding="utf-8"))]


def test_program_pages_show_example_sessions():
    shown = {page.name for page in pages_with_sessions()}
    assert set(PROGRAM_PAGES.values()) | {"engine.md"} | set(READER_PAGES_WITH_SESSIONS) <= shown


# The tournament and ladder pages' sessions play whole tournaments, the ladder's with a
# server and workers, the agent and failures pages' play gauntlets (10 s each) and the
# N-queens page solves boards of 10 and more (4 s): long variants (make test-all).
LONG_SESSIONS = ("tournament.md", "ladder.md", "agent.md", "failures.md", "nqueens.md")


@pytest.mark.parametrize("page", [
    pytest.param(page, marks=pytest.mark.slow) if page.name in LONG_SESSIONS else page
    for page in pages_with_sessions()], ids=lambda p: p.name)
def test_examples_print_what_the_pages_show(page, tmp_path):
    """Each page's sessions run in one folder, in order, as a reader would type them."""
    found = sessions(page.read_text(encoding="utf-8"))
    prepare_session_folder(tmp_path)
    problems = []
    for number, steps in found:
        problems.extend(f"{page.name}:{number}:\n{problem}"
                        for problem in run_session(steps, tmp_path))
    assert not problems, "\n\n".join(problems)


# --- the pictures ------------------------------------------------------------------------------

# Each picture of docs/img and the command that draws it (run from the repository folder).
PICTURES = {
    "aima-figure-5-2.svg": ("tree", "-", "A:(B:(3 12 8) C:(2 4 6) D:(14 5 2))\n"),
    "tictactoe-xxoo-prune-2.svg": ("picture", "tictactoe xxoo----- prune 2", ""),
}


# Pictures drawn from experiments that take minutes (`make analysis-pictures`): not redrawn
# here, only checked to be well-formed SVG with drawing in it.
EXPERIMENT_PICTURES = ("lineemup-report.svg", "nqueens-times.svg")
# Screenshots of pages in a browser (a person looked at them): `tree --html`, then 13
# "next" steps.
SCREENSHOTS = ("stepper-aima-5-2.png",)


def test_every_picture_has_its_command():
    assert ({path.name for path in (DOCS / "img").iterdir()}
            == set(PICTURES) | set(EXPERIMENT_PICTURES) | set(SCREENSHOTS))


@pytest.mark.parametrize("name", EXPERIMENT_PICTURES)
def test_experiment_pictures_are_well_formed_svg(name):
    root = ElementTree.parse(DOCS / "img" / name).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(list(root.iter())) > 20, "an SVG with next to nothing drawn"


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_pictures_are_what_the_programs_draw_today(name, tmp_path):
    """A picture is regenerated byte for byte; if the drawing changed, redraw it with
    ``python3 -m engine <program> <arguments> --svg docs/img/<name>``."""
    program, arguments, stdin = PICTURES[name]
    drawn = tmp_path / name
    run = subprocess.run([sys.executable, "-m", "engine", program, *arguments.split(),
                          "--svg", str(drawn)], cwd=REPO, input=stdin.encode(),
                         capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert drawn.read_bytes() == (DOCS / "img" / name).read_bytes()


def test_engine_md_maps_every_package_of_engine():
    """docs/engine.md's layout table has a row for every package of engine/ (a folder
    with an __init__.py): a maintainer finds each on the map."""
    layout = (REPO / "docs" / "engine.md").read_text().split(
        "## Layout", 1)[1].split("\n## ", 1)[0]
    packages = sorted(path.parent.name for path in (REPO / "engine").glob("*/__init__.py"))
    missing = [name for name in packages if f"`engine/{name}/" not in layout]
    assert not missing, f"docs/engine.md's layout has no row for {missing}"
