"""grade similar's method (docs/similarity.md): lexers, winnowing, planted copies, the
handout, prior terms, every entry a row or a reason.

Classes are written by tests/similarity_helpers.py: independent tic-tac-toe programs in
varied styles, and copies hidden by the disguises students use. The method is run in
process (engine.similarity.compare); the command line has tests/test_similarity_command.py.
"""

import os
import random
import warnings

import pytest

from similarity_helpers import (DISGUISES, c_program, class_of, disguise, java_program,
                                program)

from engine.similarity import corpus, python_tokens, sources
from engine.similarity.clike_tokens import lex_c, lex_java
from engine.similarity.compare import Entry, Settings, compare
from engine.similarity.corpus import base_hashes
from engine.similarity.fingerprints import K, WINDOW, fingerprints, kgram_hashes, winnow
from engine.similarity.lexed import IDENTIFIER, NUMBER, STRING
from engine.similarity.make_tokens import lex_make
from engine.similarity.pairs import Region, _one_to_one
from engine.similarity.python_tokens import lex_python


def write_class(folder, programs, name="tictactoe.py"):
    """One folder per student holding its program; the entries in name order."""
    folder.mkdir(parents=True, exist_ok=True)
    for student, text in programs.items():
        (folder / student).mkdir()
        (folder / student / name).write_text(text)
    return [Entry(str(folder / student), student, "class", str(folder / student))
            for student in sorted(programs)]


def planted_class(folder, count=24, copies=4, lines=100, which=DISGUISES, seed=1000):
    """``(entries, {(original, copy)})``: ``count`` independent programs and ``copies``
    disguised copies of some of them."""
    programs = class_of(count, lines, seed)
    names = sorted(programs)
    planted = set()
    for index in range(copies):
        original = names[index * 5]
        copy = f"copy{index}"
        programs[copy] = disguise(programs[original], 50 + index, which)
        planted.add(frozenset((original, copy)))
    return write_class(folder, programs), planted


def pair_names(comparison, pair):
    return frozenset((comparison.entries[pair.a].within, comparison.entries[pair.b].within))


# --- the lexers ----------------------------------------------------------------------------

def test_python_names_literals_comments_docstrings_and_layout_are_set_aside():
    one = ('"""Module."""\nimport sys\n\n\ndef best(board, player):\n    """Doc."""\n'
           "    # pick the first\n    for move in range(9):\n        if board[move] == '-':"
           "\n            return move + 1\n    return -1\n")
    other = ("import sys\ndef choose(grid, who):  # another name\n    for i in range(9):\n"
             '        if grid[i] == "x":\n\n            return i + 7\n    return -3\n')
    assert lex_python(one).kinds == lex_python(other).kinds
    kinds = lex_python(one).kinds
    assert kinds.count(IDENTIFIER) == 7 and NUMBER in kinds and STRING in kinds
    assert "range" in kinds and "sys" in kinds and "def" in kinds    # cannot be renamed
    assert lex_python(one).problem is None


@pytest.mark.parametrize("one, other", [
    ("if k < 9:\n    pass\n", "if 9 > k:\n    pass\n"),
    ("if a <= b:\n    pass\n", "if b >= a:\n    pass\n"),
    ("while x != 'o':\n    pass\n", "while 'o' != x:\n    pass\n"),
    ("ok = best == None\n", "ok = None == best\n"),
])
def test_a_flipped_comparison_reads_alike(one, other):
    assert lex_python(one).kinds == lex_python(other).kinds


def test_a_chained_or_compound_comparison_is_not_reordered():
    assert lex_python("a = b < c < 3\n").kinds != lex_python("a = 3 < c < b\n").kinds
    assert lex_python("a = -b < 3\n").kinds != lex_python("a = 3 < -b\n").kinds


def test_a_syntax_error_is_read_past_and_named():
    text = ("def f(x):\n    return x +\n\ndef g(y):\n        z = 1\n    return y\n"
            "s = '''never closed\ndef h(w):\n    return w * 2\n")
    lexed = lex_python(text)
    assert lexed.problem is not None and lexed.problem.startswith("line 2:")
    lines = set(lexed.lines)
    # Tokens after each error are there: the bad indentation, the string, the last def.
    assert {4, 6, 9, 10} <= lines
    assert lexed.kinds[-4:] == ["*", NUMBER, "$end", "$dedent"]


def test_compiling_to_check_the_syntax_prints_no_warning(capfd):
    """A student's invalid escape (``"\\d"``) or ``x is 1`` makes Python warn as it
    compiles: the check stays silent (300 such files would flood the terminal)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lexed = lex_python('import re\nok = re.match("\\d+", "12") is 1\n')
    assert lexed.problem is None and caught == []
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("parser", ["symtable", "byte code (PyPy)"])
def test_the_syntax_check_finds_an_error_and_only_an_error(parser, monkeypatch):
    if parser != "symtable":
        monkeypatch.setattr(python_tokens, "symtable", None)
    assert python_tokens.syntax_problem("def f(x):\n    return x\n") is None
    assert python_tokens.syntax_problem("def f(x)\n    return x\n").startswith("line 1:")
    assert python_tokens.syntax_problem("x = 1\nnonlocal x\n").startswith("line 2:")


def test_c_and_java_lexers_set_names_comments_and_literals_aside():
    one = c_program(1)
    renamed = one.replace("walk", "visit_all").replace("won", "has_line") \
        .replace("/* does p hold a line? */", "// true when p has three in a row\n")
    assert lex_c(one).kinds == lex_c(renamed).kinds
    assert "printf" in lex_c(one).kinds and "#include" in lex_c(one).kinds
    java = java_program(1)
    assert lex_java(java).kinds == lex_java(java.replace("walk", "count")
                                            .replace("// the eight lines", "/* lines */")).kinds
    tricky = 'char *s = "a // not a comment \\" /* nor this */";\nint x = 0x1F + 07 + 1e3f;\n'
    kinds = lex_c(tricky).kinds
    assert kinds.count(STRING) == 1 and kinds.count(NUMBER) == 3
    assert lex_c(tricky).lines == [1] * 6 + [2] * 9


def test_makefile_targets_and_comments_are_set_aside():
    one = "# build\nCC=gcc\nall: ttt\n\nttt: main.o board.o\n\t$(CC) -O2 -o $@ $^\n"
    other = "CC=gcc\nall: game  # default\nGame_stuff: a.o b.o\n\t$(CC) -O2 -o $@ $^\n"
    assert lex_make(one).kinds == lex_make(other).kinds
    assert "$recipe" in lex_make(one).kinds and "-O2" in lex_make(one).kinds


def test_moving_whole_functions_changes_no_fingerprint():
    text = program(3, 120)
    moved = disguise(text, 9, which=("reorder",))
    assert moved != text
    one, other = (lex_python(source) for source in (text, moved))
    ours = {value for value, _ in fingerprints(one.kinds, segments=one.segments)}
    theirs = {value for value, _ in fingerprints(other.kinds, segments=other.segments)}
    assert ours == theirs
    c_one = lex_c(c_program(2))
    swapped = c_program(2).split("static long walk")
    # (In C the function moved must be declared first: the lexer does not care.)
    c_other = lex_c(swapped[0].replace("/* does p", "static long walk" + swapped[1]
                                       .split("\nint main")[0] + "\n/* does p")
                    + "\nint main" + swapped[1].split("\nint main")[1])
    assert {value for value, _ in fingerprints(c_one.kinds, segments=c_one.segments)} == \
        {value for value, _ in fingerprints(c_other.kinds, segments=c_other.segments)}


# --- winnowing -----------------------------------------------------------------------------

def test_winnowing_keeps_a_fingerprint_in_every_window_and_only_minima():
    rng = random.Random(4)
    hashes = [rng.randrange(50) for _ in range(500)]
    kept = winnow(hashes, WINDOW)
    positions = [position for _, position in kept]
    assert positions == sorted(set(positions))
    for start in range(len(hashes) - WINDOW + 1):
        inside = [position for position in positions if start <= position < start + WINDOW]
        assert inside, start
        assert min(hashes[start:start + WINDOW]) in [hashes[p] for p in inside]
    assert all(hashes[position] == value for value, position in kept)
    assert len(kept) < len(hashes) * 3 / (WINDOW + 1)


def test_a_match_of_the_guarantee_length_always_shares_a_fingerprint():
    rng = random.Random(7)
    words = ["(", ")", IDENTIFIER, NUMBER, "=", "+", "if", ":", "$end"]
    for trial in range(40):
        shared = [rng.choice(words) for _ in range(K + WINDOW - 1)]
        one = [rng.choice(words) for _ in range(rng.randrange(60))] + shared \
            + [rng.choice(words) for _ in range(30)]
        other = [rng.choice(words) for _ in range(rng.randrange(60))] + shared
        first = {value for value, _ in fingerprints(one)}
        second = {value for value, _ in fingerprints(other)}
        assert first & second, trial
    # ... and a match shorter than k never does (no k-gram lies within it).
    assert not set(kgram_hashes(b"\x01\x00" * (K - 1), K)[0])


# --- the method on classes -----------------------------------------------------------------

def test_planted_copies_rank_above_every_independent_pair(tmp_path):
    entries, planted = planted_class(tmp_path / "class")
    comparison = compare(entries, Settings(top=10))
    ranked = [pair_names(comparison, pair) for pair in comparison.pairs]
    assert set(ranked[:len(planted)]) == planted
    lowest_copy = min(pair.score for pair in comparison.pairs
                      if pair_names(comparison, pair) in planted)
    best_other = max(pair.score for pair in comparison.pairs
                     if pair_names(comparison, pair) not in planted)
    assert lowest_copy > 0.6 and best_other < 0.5, (lowest_copy, best_other)
    # Each planted pair is a cluster of its own; no independent pair joins one.
    assert {frozenset(comparison.entries[index].within for index in cluster.members)
            for cluster in comparison.clusters} == planted


@pytest.mark.parametrize("which", DISGUISES)
def test_each_disguise_alone_leaves_the_copy_on_top(which, tmp_path):
    entries, planted = planted_class(tmp_path / "class", count=12, copies=1, which=(which,))
    comparison = compare(entries, Settings(top=3))
    assert pair_names(comparison, comparison.pairs[0]) in planted
    assert comparison.pairs[0].score > 0.75, (which, comparison.pairs[0])
    assert comparison.pairs[0].score > 1.5 * comparison.pairs[1].score


def test_the_regions_map_the_copy_back_to_its_lines(tmp_path):
    original = program(11, 100)
    copy = disguise(original, 3, which=("reorder", "recomment"))
    entries = write_class(tmp_path / "class", {"one": original, "two": copy,
                                              "three": program(12, 100)})
    comparison = compare(entries)
    best = comparison.pairs[0]
    assert pair_names(comparison, best) == {"one", "two"}
    regions = comparison.regions[0]
    sides = {comparison.entries[best.a].within: "a", comparison.entries[best.b].within: "b"}
    texts = {"one": original.split("\n"), "two": copy.split("\n")}
    covered = set()
    for region in regions:
        first, last = getattr(region, sides["one"] + "_first"), \
            getattr(region, sides["one"] + "_last")
        assert 1 <= first <= last <= len(texts["one"])
        covered.update(range(first, last + 1))
        other_first = getattr(region, sides["two"] + "_first")
        other_last = getattr(region, sides["two"] + "_last")
        assert 1 <= other_first <= other_last <= len(texts["two"])
        # The region's code in one is found in the other, up to names and comments.
        ours = lex_python("\n".join(texts["one"][first - 1:last]) + "\n").kinds
        theirs = lex_python("\n".join(texts["two"][other_first - 1:other_last]) + "\n").kinds
        assert set(zip(ours, ours[1:])) & set(zip(theirs, theirs[1:]))
    code_lines = {number for number, line in enumerate(texts["one"], 1)
                  if line.strip() and not line.strip().startswith(("#", '"""'))}
    assert len(covered & code_lines) > 0.8 * len(code_lines)


def test_a_region_mostly_shown_by_a_stronger_one_is_left_out():
    strong = Region(0, 1, 10, 0, 1, 10, 9)
    repeated = Region(0, 2, 4, 0, 30, 32, 1)       # the same lines of a, matched again
    elsewhere = Region(0, 20, 30, 0, 40, 50, 5)
    touching = Region(0, 8, 20, 0, 60, 72, 4)      # 3 of its 13 lines of a are shown
    assert _one_to_one([repeated, touching, elsewhere, strong]) == [strong, touching,
                                                                    elsewhere]


HANDOUT = "\n".join(program(777, 140).split("\n")[:-3]) + "\n"


def test_the_handouts_code_does_not_make_two_students_similar(tmp_path):
    students = {f"s{index}": HANDOUT + "\n\n" + program(2000 + index, 60).split(
        "import sys", 1)[1] for index in range(6)}
    students["copy"] = disguise(students["s4"], 8, which=("rename", "dead code"))
    entries = write_class(tmp_path / "class", students)
    (tmp_path / "handout").mkdir()
    (tmp_path / "handout" / "tictactoe.py").write_text(HANDOUT)
    without = compare(entries)
    assert without.pairs[-1].score > 0.3         # the handout alone makes them alike
    base, names = base_hashes([str(tmp_path / "handout")])
    assert names == ["tictactoe.py"]
    given = compare(entries, base=base, base_files=names)
    assert pair_names(given, given.pairs[0]) == {"s4", "copy"}
    others = [pair.score for pair in given.pairs if pair_names(given, pair) != {"s4", "copy"}]
    assert max(others) < 0.45 < given.pairs[0].score, (max(others), given.pairs[0])
    assert max(others) < 0.5 * without.pairs[len(without.pairs) // 2].score + 0.3


def test_code_most_of_the_class_shares_is_ignored(tmp_path):
    """A block all 12 students pasted (more than max(10, 10% of 12) entries) makes no
    two of them alike; counted (--common 1.0: up to 12 entries), it does."""
    shared = "\n".join(program(909, 120).split("\n")[8:-3]) + "\n"
    entries = write_class(tmp_path / "class", {
        f"s{index:02d}": program(5000 + index, 60) + "\n\n" + shared for index in range(12)})
    ignored = compare(entries)
    counted = compare(entries, Settings(common_share=1.0))
    assert ignored.common_limit == 10 and counted.common_limit == 12
    assert ignored.common > 50 and counted.common == 0
    assert max(pair.score for pair in ignored.pairs) < 0.45
    assert min(pair.score for pair in counted.pairs) > 0.5


def test_a_prior_term_is_compared_one_way(tmp_path):
    prior = {f"old{index}": program(3000 + index, 90) for index in range(4)}
    prior["old_copy"] = disguise(prior["old1"], 2)          # prior copied within itself
    now = {f"new{index}": program(4000 + index, 90) for index in range(5)}
    now["new_copy"] = disguise(prior["old2"], 5)
    entries = write_class(tmp_path / "now", now)
    entries += [entry._replace(term="prior")
                for entry in write_class(tmp_path / "before", prior)]
    comparison = compare(entries)
    terms = {entry.within: entry.term for entry in comparison.entries}
    for pair in comparison.pairs:
        assert comparison.entries[pair.a].term == "class"       # a is always this term
        assert {terms[name] for name in pair_names(comparison, pair)} != {"prior"}
    best = comparison.pairs[0]
    assert pair_names(comparison, best) == {"new_copy", "old2"} and best.score > 0.6
    assert not any(pair_names(comparison, pair) == {"old1", "old_copy"}
                   for pair in comparison.pairs)
    # Prior entries do not count towards what is common to this term's class.
    assert corpus.common_limit(5) == corpus.COMMON_MIN


def test_every_entry_is_a_row_or_a_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "FILE_CAP", 4000)
    folder = tmp_path / "class"
    entries = write_class(folder, {"good": program(5, 60), "twin": program(5, 60)})
    cases = {
        "empty": {},
        "notes-only": {"README.md": "my solution\n"},
        "blank": {"tictactoe.py": "\n   \n"},
        "comments-only": {"tictactoe.py": "# nothing yet\n# really\n"},
        "binary": {"tictactoe.py": b"\x7fELF\x00\x01\x02"},
        "huge": {"tictactoe.py": "x = 1\n" * 1000},
        "broken": {"tictactoe.py": program(5, 60).replace("return", "retrun", 3)},
    }
    for student, files in cases.items():
        (folder / student).mkdir()
        for name, data in files.items():
            path = folder / student / name
            path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    (folder / "linked").mkdir()
    os.symlink("/etc/passwd", folder / "linked" / "tictactoe.py")
    (folder / "fifo").mkdir()
    os.mkfifo(folder / "fifo" / "tictactoe.py")
    names = sorted(set(cases) | {"linked", "fifo"})
    entries += [Entry(str(folder / name), name, "class", str(folder / name)) for name in names]
    entries.append(Entry(str(folder / "stray.py"), "stray.py", "class", None,
                         "a loose file beside the students' folders"))
    comparison = compare(entries)
    reasons = {entry.within: reason for entry, reason
               in zip(comparison.entries, comparison.reasons)}
    assert reasons["good"] is None and reasons["twin"] is None
    expected = {"empty": "empty: no source file", "notes-only": "empty: no source file",
                "blank": "empty: tictactoe.py", "comments-only": "empty: tictactoe.py",
                "binary": "binary: tictactoe.py", "huge": "too large: tictactoe.py",
                "linked": "unreadable: tictactoe.py", "fifo": "unreadable: tictactoe.py",
                "stray.py": "a loose file"}
    for name, start in expected.items():
        assert reasons[name] is not None and reasons[name].startswith(start), (name, reasons)
    # A syntax error is compared all the same, with a note.
    assert reasons["broken"] is None
    broken = comparison.printed[[entry.within for entry in entries].index("broken")]
    assert any(note.startswith("syntax error: tictactoe.py, line ") for note in broken.notes)
    assert {pair_names(comparison, pair) for pair in comparison.pairs[:3]} >= \
        {frozenset({"good", "twin"}), frozenset({"good", "broken"})}


def test_parallel_reading_gives_the_same_comparison(tmp_path):
    entries, _ = planted_class(tmp_path / "class", count=10, copies=2, lines=60)
    one = compare(entries, Settings(jobs=1))
    two = compare(entries, Settings(jobs=2))
    assert one.pairs == two.pairs and one.regions == two.regions and one.sets == two.sets


def test_a_submission_that_is_all_handout_is_said_so(tmp_path):
    entries = write_class(tmp_path / "class", {"a": HANDOUT, "b": program(8, 80),
                                              "c": program(9, 80)})
    (tmp_path / "handout.py").write_text(HANDOUT)
    base, names = base_hashes([str(tmp_path / "handout.py")])
    comparison = compare(entries, base=base, base_files=names)
    assert comparison.reasons[0].startswith("nothing of its own")
    assert all(0 not in (pair.a, pair.b) for pair in comparison.pairs)


def test_the_generated_class_is_of_working_programs(tmp_path):
    """The helper's programs and their disguised copies compile (the planted-copy tests
    mean nothing on text that is not a program)."""
    for seed in range(10):
        text = program(seed, 80 + 30 * seed)
        compile(text, f"program {seed}", "exec")
        compile(disguise(text, seed), f"copy {seed}", "exec")
    assert len({program(seed, 80) for seed in range(30)}) == 30
