"""engine.registry: one table of the programs and assignments, each assignment with one name.

The registry holds data and dotted names only (it imports nothing of ours: see
test_imports.py); these tests resolve every name it holds, so a typo or a renamed class
fails here rather than when a user first asks for that picture or tournament.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from engine import registry

REPO = Path(__file__).resolve().parent.parent


def test_names_and_aliases_are_unique_per_table():
    for table in (registry.PROGRAMS, registry.ASSIGNMENTS):
        words = [word for entry in table for word in (entry.name,) + entry.aliases]
        assert len(words) == len(set(words)), words


def test_each_assignment_has_the_name_of_its_program():
    """One name per assignment: the program that is its reference carries the same
    name, and the same aliases."""
    for entry in registry.ASSIGNMENTS:
        program = registry.program(entry.program)
        assert program is not None, entry
        assert (program.name, program.aliases) == (entry.name, entry.aliases)


def test_aliases_find_the_entry_under_its_one_name():
    assert registry.assignment("morris").name == "tmmorris"
    assert registry.program("morris").name == "tmmorris"
    assert registry.assignment("chess") is None and registry.program("chess") is None
    assert "morris" not in registry.program_names()
    assert registry.assignment_names() == ("tictactoe", "tmmorris", "take_stones",
                                           "stake_raid")


def test_every_dotted_name_resolves():
    for entry in registry.ASSIGNMENTS:
        for dotted in (entry.judge, entry.picture, entry.tournament):
            if dotted is not None:
                assert registry.import_named(dotted) is not None, (entry.name, dotted)
        if entry.judge is not None:
            assert entry.graded and entry.script, entry
    for entry in registry.PROGRAMS:
        assert callable(entry.main()), entry


def test_tournament_rules_carry_their_assignments_name():
    from engine.tournament.games import GAMES, rules_for
    assert list(GAMES) == ["stake_raid", "lineemup"]
    for entry in registry.tournament_games():
        assert rules_for(entry.name).name == entry.name
    with pytest.raises(KeyError):
        rules_for("tictactoe")          # an assignment, but no tournament game


def test_our_players_run_as_the_registry_says():
    assert registry.assignment("stake_raid").agent_command("greedy") == [
        "python3", "-m", "engine", "stake_raid", "--strategy", "greedy"]
    assert registry.assignment("lineemup").agent_command("e2") == [
        "python3", "-m", "engine", "lineemup", "agent", "--heuristic", "e2"]


def test_pictures_are_the_assignments_with_an_adapter():
    from engine.programs.picture import adapter_for, game_names
    assert game_names() == ["tictactoe", "tmmorris", "take_stones", "stake_raid"]
    assert adapter_for("morris").name == "tmmorris"
    assert type(adapter_for("morris")) is type(adapter_for("tmmorris"))


def run_engine(args, cwd):
    return subprocess.run([sys.executable, "-m", "engine"] + args, cwd=cwd,
                          capture_output=True, env={"PYTHONPATH": str(REPO)})


def test_the_old_program_name_runs_the_same_program_and_prints_the_one_name(tmp_path):
    """``python3 -m engine morris`` (users' scripts) is ``tmmorris``: same output, and
    every line it prints names tmmorris."""
    for word in ("morris", "tmmorris"):
        completed = run_engine([word, "xo-ox-o-x", f"{word}.txt", "2", "o"], tmp_path)
        assert (completed.returncode, completed.stdout) == (0, b"xo-ox--ox\n")
        bad = run_engine([word, "---------", "v.txt", "0", "x"], tmp_path)
        assert bad.returncode == 2
        assert bad.stderr == b"tmmorris: PLY must be a positive integer, not '0'\n"
    assert (tmp_path / "morris.txt").read_bytes() == (tmp_path / "tmmorris.txt").read_bytes()
    listing = run_engine(["--help"], tmp_path).stdout.decode()
    assert "  tmmorris " in listing and "  morris " not in listing


# --- the judge contract ---------------------------------------------------------------------

def test_the_contract_lists_every_member_the_kit_reads():
    from engine.grading.judges import contract
    assert contract() == ("CATEGORIES", "ENTRY_POINTS", "FILE_LABEL", "STDOUT_GRADED",
                          "UNREADABLE_ZEROES", "detect", "draw_stratum", "edges", "fits",
                          "graded_files", "judge", "score", "stratum")


def test_every_graded_assignment_supplies_every_member_of_the_contract():
    from engine.grading.judges import Judge, contract, load
    for entry in registry.graded():
        module = registry.import_named(entry.judge)
        missing = [name for name in contract() if not hasattr(module, name)]
        assert missing == [], (entry.name, missing)
        assert isinstance(module, Judge), entry.name
        loaded = load(entry.name)
        assert loaded.judge is module and loaded.name == entry.name
        assert loaded.script == registry.program(entry.program).script
    assert load("morris").name == "tmmorris"      # an alias resolves to the one name


@pytest.mark.parametrize("member", ["score", "ENTRY_POINTS", "judge"])
def test_a_judge_without_a_member_is_refused(monkeypatch, member):
    """The check the two tests above rely on: remove one member from a judge and both
    load() and the Protocol refuse it."""
    from engine.grading import judges
    module = registry.import_named(registry.assignment("tictactoe").judge)
    monkeypatch.delattr(module, member)
    judges.load.cache_clear()
    try:
        assert not isinstance(module, judges.Judge)
        with pytest.raises(judges.JudgeError, match=f"lacks {member} "):
            judges.load("tictactoe")
    finally:
        judges.load.cache_clear()


def test_an_assignment_the_kit_does_not_grade_is_a_usage_error():
    from engine.errors import UsageError
    from engine.grading.judges import load
    for name in ("lineemup", "nqueens", "chess"):
        with pytest.raises(UsageError, match="choose from tictactoe, tmmorris"):
            load(name)


def test_each_tournament_game_says_how_an_entrant_without_a_makefile_runs(tmp_path):
    """The per-game entrant rules live in the game's rules class (the registry's
    ``tournament``), not in a branch on the game's name."""
    from engine.tournament.entrants import plan_for
    from engine.tournament.games import rules_for
    stake_raid, lineemup = rules_for("stake_raid"), rules_for("lineemup")

    def folder(name, files):
        path = tmp_path / name
        path.mkdir()
        for file, text in files.items():
            (path / file).write_text(text)
        return path

    cpp = plan_for(stake_raid, folder("cpp", {"homework11.cpp": "int main(){}\n"}))
    assert (cpp.kind, cpp.run) == ("c++", ("./homework",)) and "-std=c++11" in cpp.build
    python = plan_for(stake_raid, folder("py", {"homework.py": "pass\n"}))
    assert python.kind == "python" and python.error is None     # the kit's own detection
    agent = folder("agent", {"lineemup_agent.py": "pass\n"})
    assert plan_for(lineemup, agent).run == ("python3", "lineemup_agent.py")
    assert plan_for(stake_raid, agent).error == (
        "no Makefile, homework.py, homework.java, homework.cpp, homework11.cpp or homework.c")
    assert plan_for(lineemup, folder("empty", {})).error == "no Makefile or lineemup_agent.py"
    make = plan_for(lineemup, folder("make", {"Makefile": "agent:\nrun:\n"}))
    assert make.kind == "makefile"


def test_a_leaderboard_plays_our_players_of_its_tournament_game():
    """A leaderboard belongs to a graded assignment that is a tournament game; its
    opponents are players of that game's ``ours``, its boards sizes of the game."""
    from engine.tournament.entrants import OURS_PREFIX
    from engine.tournament.games import rules_for
    assert [entry.name for entry in registry.with_leaderboard()] == ["stake_raid"]
    for entry in registry.ASSIGNMENTS:
        if entry.leaderboard is None:
            continue
        assert entry.judge is not None and entry.tournament is not None, entry.name
        rules = rules_for(entry.name)
        assert entry.leaderboard.staff
        for player in entry.leaderboard.staff:
            assert player.startswith(OURS_PREFIX)
            assert player[len(OURS_PREFIX):] in rules.ours, (entry.name, player)
        assert rules.parse_sizes(entry.leaderboard.sizes)
