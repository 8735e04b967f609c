"""A grader's case pays for every module its program imports: each program's exact modes
import only what they use (docs/stake_raid.md, "Speed").

Each case runs the top-level script in a child process, as a grader does, under a small
wrapper that lists the modules the script added to ``sys.modules`` (the interpreter's own
start, ``site`` included, is already done when the wrapper looks first). The engine's
modules must be exactly the pinned ones, and every other module one of the few the
program's mode uses: no typing, no re, no dataclasses (with inspect and dis), no pathlib,
no game-playing agent. A program that ends with ``os._exit`` (Take-Stones) reports first.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Runs the script argv[1] with argv[2:] as __main__ and prints, as JSON, the modules it
# imported (also when it leaves through os._exit).
WRAPPER = """\
import json, os, sys
before = set(sys.modules)
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))
def report():
    sys.stderr.write("\\nMODULES " + json.dumps(sorted(set(sys.modules) - before)) + "\\n")
    sys.stderr.flush()
leave = os._exit
os._exit = lambda code: (report(), leave(code))
try:
    exec(compile(open(script).read(), script, "exec"), {"__name__": "__main__"})
except SystemExit as stop:
    report()
    raise
report()
"""

SEARCH = ["engine", "engine.commandline", "engine.errors", "engine.game", "engine.games",
          "engine.node", "engine.programs", "engine.search", "engine.searchoptions",
          "engine.searchparts"]
# The only other modules an exact case may import: the postponed annotations' module,
# the collector switch, and C iterators; Take-Stones' listing uses functools.partial and
# operator's C functions (functools brings collections' C half with it).
PLAIN = {"__future__", "gc", "itertools"}
FUNCTOOLS = PLAIN | {"functools", "_functools", "operator", "_operator", "collections",
                     "_collections", "keyword", "reprlib", "types", "heapq", "_heapq",
                     "_weakref", "weakref", "_weakrefset"}

STAKE_RAID = SEARCH + ["engine.games.stake_raid", "engine.games.stake_raid_files",
                       "engine.programs.stake_raid", "engine.programs.stake_raid.homework"]
TICTACTOE = SEARCH + ["engine.games.tictactoe", "engine.programs.tictactoe", "engine.trace"]
MORRIS = SEARCH + ["engine.games.morris", "engine.programs.morris",
                   "engine.programs.morris.lookahead", "engine.programs.morris.program",
                   "engine.trace"]
TAKE_STONES = SEARCH + ["engine.games.take_stones", "engine.programs.take_stones",
                        "engine.programs.take_stones.listing",
                        "engine.programs.take_stones.program", "engine.trace"]

STAKE_RAID_INPUT = "3\n{mode}\nO\n2\n1 8 23\n5 42 12\n26 30 9\nX..\n...\n...\n"

CASES = {
    "homework.py MINIMAX": (["homework.py"], STAKE_RAID_INPUT.format(mode="MINIMAX"),
                            STAKE_RAID, PLAIN),
    "homework.py ALPHABETA": (["homework.py"], STAKE_RAID_INPUT.format(mode="ALPHABETA"),
                              STAKE_RAID, PLAIN),
    "tictactoe.py minimax": (["tictactoe.py", "x-o------", "visited.txt"], None,
                             TICTACTOE, PLAIN),
    "tictactoe.py prune ply": (["tictactoe.py", "x-o------", "visited.txt", "prune", "2"],
                               None, TICTACTOE, PLAIN),
    "tmmorris.py": (["tmmorris.py", "xx-oox--o", "visited.txt", "2", "x"], None, MORRIS,
                    PLAIN),
    "TakeStones": (["TakeStones", "12", "2", "1", "6", "2"], None, TAKE_STONES, FUNCTOOLS),
}


def imported_modules(argv, input_text, folder):
    """(exit code, the modules the script ``argv[0]`` imported) in ``folder``."""
    if input_text is not None:
        (folder / "input.txt").write_text(input_text)
    done = subprocess.run([sys.executable, "-c", WRAPPER, str(REPO / argv[0])] + argv[1:],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    reports = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    assert reports, done.stderr
    return done.returncode, json.loads(reports[0][len("MODULES "):])


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_exact_case_imports_only_what_its_mode_uses(case, tmp_path):
    argv, input_text, engine_modules, others = CASES[case]
    code, modules = imported_modules(argv, input_text, tmp_path)
    assert code == 0
    assert [name for name in modules if name.startswith("engine")] == sorted(engine_modules)
    assert set(name for name in modules if not name.startswith("engine")) <= others


def test_competition_imports_the_agent_and_a_named_strategy_is_checked(tmp_path):
    """What a MINIMAX case leaves out is imported when it is used: the COMPETITION agent,
    and the list of strategies when one is named (an unknown one is refused)."""
    code, modules = imported_modules(
        ["homework.py"], STAKE_RAID_INPUT.format(mode="COMPETITION").replace("\n2\n", "\n5\n"),
        tmp_path)
    assert code == 0 and "engine.programs.stake_raid.agent" in modules
    code, modules = imported_modules(["homework.py", "--strategy", "nonesuch"],
                                     STAKE_RAID_INPUT.format(mode="MINIMAX"), tmp_path)
    assert code == 2 and "engine.programs.stake_raid.agent" in modules


def test_the_wrapper_sees_a_module_the_program_adds(tmp_path):
    """The check itself: a program that imports dataclasses is seen doing it."""
    (tmp_path / "program.py").write_text("import dataclasses\n")
    done = subprocess.run([sys.executable, "-c", WRAPPER, str(tmp_path / "program.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    report = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")][0]
    assert "dataclasses" in json.loads(report[len("MODULES "):])
