"""Tournament clocks and caps under attack: CPU is charged from exact counters (a
tick-dodging agent pays what it burned), a player's wall time per game is bounded (a
sleeping agent forfeits at its cap), and a sleeping build is eliminated at its cap."""

import json
import os
import re
import subprocess
import uuid
import time
from pathlib import Path

import pytest

from grading_helpers import FIRST_EMPTY, ISOLATIONS, LAST_EMPTY, isolation_params
from test_grading_unprivileged import NOBODY, as_nobody, place  # noqa: F401 - a fixture

from engine.sandbox import Limits, Sandbox
from engine.sandbox.untrusted_files import remove_tree
from engine.sandbox.workspace import new_workspace
from engine.tournament import entrants as entrants_module
from engine.tournament import referee, results
from engine.tournament.cli import standings_text
from engine.tournament.director import Director
from engine.tournament.entrants import Entrant
from engine.tournament.games import O_SIDE, X_SIDE, rules_for

RULES = rules_for("stake_raid")

# Burns CPU in slices shorter than one timer tick and sleeps across every tick, so that
# the kernel's tick-sampled user time stays near zero; says on stderr how much CPU it
# burned, from its own exact thread clock. Then plays the first empty square.
TICK_DODGER = """\
import sys, time
COARSE = getattr(time, "CLOCK_MONOTONIC_COARSE", 6)
tick = time.clock_getres(COARSE)
# The coarse clock changes at each tick; how far behind the true time its value is then.
last = time.clock_gettime(COARSE)
while time.clock_gettime(COARSE) == last:
    pass
lag = time.monotonic() - time.clock_gettime(COARSE)
start = time.thread_time()
while time.thread_time() - start < 0.3:
    struck = time.clock_gettime(COARSE) + lag
    while time.monotonic() < struck + 0.7 * tick:
        pass
    time.sleep(0.45 * tick)
print("burned %.6f" % (time.process_time()), file=sys.stderr)
""" + FIRST_EMPTY


def _entrant(folder, name, files):
    """An entrant in the new folder ``folder`` holding ``files``."""
    folder = Path(folder)
    folder.mkdir()
    for relative, text in files.items():
        (folder / relative).write_text(text)
    plan = entrants_module.plan_for(RULES, folder)
    return Entrant(name, str(folder), plan.kind, False, plan, str(folder))


class _Spy(referee.Seat):
    """A seat that keeps the RunResult of every call."""

    def __init__(self, sandbox):
        super().__init__(sandbox)
        self.results = []

    def call(self, input_text, remaining, wall):
        result, output = super().call(input_text, remaining, wall)
        self.results.append(result)
        return result, output


def _game(tmp_path, x_files, seconds, grace, isolation="auto", cgroups_wanted=None):
    """Play one 3x3 game of ``x_files`` (moving first) against LAST_EMPTY; return the
    Outcome, X's seat and the game's wall seconds."""
    players = {X_SIDE: _entrant(tmp_path / "x", "x", x_files),
               O_SIDE: _entrant(tmp_path / "o", "o", {"homework.py": LAST_EMPTY})}
    limits = Limits(timeout=seconds, memory_mb=256, output_mb=2)
    sandboxes = []
    workspace = new_workspace()
    builds = os.path.join(workspace, "builds")
    try:
        for slot in (0, 1):
            sandboxes.append(Sandbox(limits, slot, isolation, workspace,
                                     cgroups_wanted=cgroups_wanted))
        built = {side: entrants_module.prepare(player, sandboxes[0], builds)
                 for side, player in players.items()}
        assert all(one.error is None for one in built.values())
        seats = {X_SIDE: _Spy(sandboxes[0]), O_SIDE: _Spy(sandboxes[1])}
        cells = RULES.setup(1, 0, 3)
        start = time.monotonic()
        outcome = referee.play(RULES, cells, built, seats, seconds, grace=grace)
        return outcome, seats[X_SIDE], time.monotonic() - start
    finally:
        for sandbox in sandboxes:
            sandbox.close()
        remove_tree(workspace)


# Every day under each file fence with its cgroup; rlimits alone and the runs without a
# cgroup (the same clock read from the processes' counters) are the long variants.
@pytest.mark.parametrize("cgroup", [True, pytest.param(False, marks=pytest.mark.slow)],
                         ids=["cgroup", "no-cgroup"])
@pytest.mark.parametrize("isolation", isolation_params())
def test_a_tick_dodging_agent_is_charged_what_it_burned(tmp_path, isolation, cgroup):
    outcome, seat, _ = _game(tmp_path, {"homework.py": TICK_DODGER}, seconds=30.0,
                             grace=10.0, isolation=isolation,
                             cgroups_wanted=None if cgroup else False)
    assert outcome.forfeit is None, outcome.forfeit
    burned = sum(float(re.search(rb"burned ([0-9.]+)", result.stderr).group(1))
                 for result in seat.results)
    charged = outcome.cpu[0]
    assert burned > 0.3 * len(seat.results)
    assert charged >= 0.9 * burned, (burned, charged, [r.user for r in seat.results])


def test_a_player_that_sleeps_forfeits_at_its_wall_time_for_the_game(tmp_path):
    # 0.8 s of sleep a move: each call alone is well within its clock plus the slack,
    # but the game's wall time for the player (2 x 1 s + 1 s) runs out at the 4th move.
    sleepy = "import time\ntime.sleep(0.8)\n" + FIRST_EMPTY
    outcome, seat, took = _game(tmp_path, {"homework.py": sleepy}, seconds=1.0, grace=1.0)
    assert outcome.forfeit is not None
    assert outcome.forfeit.side == X_SIDE and outcome.forfeit.reason == "timeout"
    assert "wall time for the game ran out (3 s in all" in outcome.forfeit.detail
    # What the referee decided, not how fast a loaded machine killed the call: every
    # call before the last ran to its end inside the budget (wall time in which the calls
    # could run: waiting for a CPU is not counted), the last one was killed on it.
    counted = [result.wall - (result.waited or 0.0) for result in seat.results]
    assert all(result.ended == "exited" for result in seat.results[:-1])
    assert sum(counted[:-1]) < 3.0
    assert seat.results[-1].ended == "timeout"
    # Unenforced, X would play its five moves (4 s of sleep) and the game would end
    # without a forfeit; how many calls fit depends on the waiting a loaded machine adds.
    assert took < 60.0


def test_a_player_that_sleeps_forever_is_stopped_at_its_cap(tmp_path):
    sleeper = "import time\ntime.sleep(1000)\n"
    outcome, seat, took = _game(tmp_path, {"homework.py": sleeper}, seconds=1.0, grace=1.0)
    assert outcome.forfeit.side == X_SIDE and outcome.forfeit.reason == "timeout"
    assert "wall time for the game ran out" in outcome.forfeit.detail
    assert seat.results[0].ended == "timeout"
    assert took < 60.0


def test_the_budget_is_the_clock_plus_a_documented_slack():
    assert referee.wall_budget(200.0) == 410.0
    assert referee.wall_budget(1.0, grace=1.0) == 3.0


def _build_entrants(tmp_path, entrants):
    """Write each entrant's files under ``tmp_path``, build them all with a Director;
    return (found entrants, {name: error or None}, progress lines, seconds taken, the
    isolation it built under)."""
    folders = {}
    for name, files in entrants.items():
        folder = tmp_path / name
        folder.mkdir()
        for relative, text in files.items():
            (folder / relative).write_text(text)
        folders[name] = str(folder)
    found = entrants_module.resolve(RULES, list(folders.values()), [], None)
    director = Director(RULES, found, 1.0, 1, "auto", 256)
    lines = []
    try:
        start = time.monotonic()
        errors = director.build(
            on_start=lambda name, what: lines.append(f"{name}: {what}"),
            on_built=lambda name, error, seconds: lines.append(
                f"{name} {'eliminated' if error else 'built'} {seconds:.1f}"))
        took = time.monotonic() - start
    finally:
        director.close()
    return found, errors, lines, took, director.isolation


def test_a_sleeping_build_is_eliminated_at_its_cap_with_a_progress_line(tmp_path,
                                                                        monkeypatch):
    monkeypatch.setattr(entrants_module, "BUILD_WALL", 2.0)
    _, errors, lines, took, _ = _build_entrants(tmp_path, {
        "slowbuild": {"Makefile": "agent:\n\tsleep 600\nrun:\n\ttrue\n"},
        "plain": {"homework.py": FIRST_EMPTY}})
    assert errors["plain"] is None
    assert errors["slowbuild"].startswith("build failed (make agent: slept or waited: ")
    assert "(cap 2 s of wall time" in errors["slowbuild"]
    assert took < 120.0
    assert "slowbuild: make agent (up to 2 s)" in lines
    [done] = [line for line in lines if line.startswith("slowbuild ")]
    # Stopped at its cap, far before the 600 s it sleeps (a loaded machine adds waiting).
    assert done.startswith("slowbuild eliminated ") and float(done.split()[-1]) < 60.0


def test_a_calibration_over_its_cap_eliminates_the_entrant_with_the_reason(tmp_path,
                                                                           monkeypatch):
    # The handout's make calibrate, sleeping past its cap (2 s here, 300 s for real): killed
    # at the cap and eliminated, the reason in the progress lines and the standings; a
    # calibration that merely fails is still ignored.
    monkeypatch.setattr(entrants_module, "CALIBRATE_SECONDS", 2.0)
    found, builds, lines, took, isolation = _build_entrants(tmp_path, {
        "slow\x1b[2Jcal": {"Makefile": "agent:\n\ttrue\ncalibrate:\n\tsleep 600\n"
                                      "run:\n\tpython3 homework.py\n",
                            "homework.py": FIRST_EMPTY},
        "failing": {"Makefile": "agent:\n\ttrue\ncalibrate:\n\tfalse\n"
                                "run:\n\tpython3 homework.py\n",
                    "homework.py": FIRST_EMPTY}})
    slow = next(entrant.name for entrant in found if entrant.name.startswith("slow"))
    assert builds["failing"] is None
    assert builds[slow].startswith("make calibrate over its cap (slept or waited: ")
    assert "(cap 2 s of wall time" in builds[slow]
    assert f"{slow}: make agent (up to 300 s), then make calibrate (up to 2 s)" in lines
    [done] = [line for line in lines if line.startswith(slow + " ")]
    assert done.startswith(f"{slow} eliminated ") and float(done.split()[-1]) < 60.0
    assert took < 120.0
    header = {"game": "stake_raid", "format": "round-robin", "time": 1.0, "seed": 3,
              "isolation": isolation, "sizes": [3], "pairs": 1,
              "games_per_match": None, "rounds": None, "shard": None}
    dicts = [{"name": e.name, "path": e.path, "kind": e.kind, "staff": e.staff}
             for e in found]
    table = standings_text(results.assemble(header, dicts, builds, [], True))
    [row] = [line for line in table.split("\n") if "eliminated" in line]
    assert "slow\\x1b[2Jcal" in row and "\x1b" not in table       # through printable()
    assert row.endswith("eliminated: make calibrate over its cap (slept or waited: "
                        + builds[slow].split("(slept or waited: ", 1)[1])


# Leaves a System V message queue and files in the shared lock and temporary folders at
# each call, and plays a move no board has (a forfeit) when it finds one left earlier:
# by an earlier move, or by itself in an earlier game.
POISONER = """\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
KEY, PATHS = {key}, ("/run/lock/{name}", "/tmp/{name}")
found = [] if libc.msgget(KEY, 0) < 0 else ["msg"]
found += [path for path in PATHS if os.path.lexists(path)]
if found:
    print("found", found, file=sys.stderr)
    open("output.txt", "w").write("Z9 Stake\\n")
    raise SystemExit(0)
libc.msgget(KEY, 0o1600)
for path in PATHS:
    try:
        open(path, "w").write("1")
    except OSError:
        pass
"""


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_player_cannot_leave_state_for_its_next_move_or_game(tmp_path, isolation):
    name = f"poison-{uuid.uuid4().hex[:8]}"
    key = 0x5EE00000 + (os.getpid() & 0xFFFF)
    agent = POISONER.format(key=key, name=name) + FIRST_EMPTY
    try:
        for game in range(2):
            (tmp_path / str(game)).mkdir()
            outcome, seat, _ = _game(tmp_path / str(game), {"homework.py": agent},
                                     seconds=10.0, grace=10.0, isolation=isolation)
            assert outcome.forfeit is None, outcome.forfeit
            assert len(seat.results) >= 3
    finally:
        for path in (f"/run/lock/{name}", f"/tmp/{name}"):
            if os.path.lexists(path):
                os.unlink(path)
        subprocess.run(["ipcrm", "-Q", str(key)], capture_output=True)


# The tick dodger run by a kit of user nobody (no cgroup: the CPU comes from the kernel's
# totals of the reaped processes): what the clock would charge against what it burned.
NOBODY_DRIVER = """\
import json, sys
from pathlib import Path
from engine.sandbox import Limits, Sandbox
sandbox = Sandbox(Limits(timeout=10.0, memory_mb=256, output_mb=2), 0, sys.argv[1])
try:
    sandbox.clear()
    Path(sandbox.folder, "dodger.py").write_text(Path("dodger.py").read_text())
    sandbox.renew()
    sandbox.give(["dodger.py"])
    result = sandbox.run(["python3", "dodger.py"])
    print(json.dumps({"fences": list(sandbox.fences), "cpu": result.cpu,
                      "user": result.user, "stderr": result.stderr.decode()}))
finally:
    sandbox.close()
"""


@pytest.mark.parametrize("isolation", [name for name in ISOLATIONS if name != "rlimits"])
def test_an_ordinary_users_kit_charges_the_tick_dodger_too(place, isolation):  # noqa: F811
    (place / "dodger.py").write_text(TICK_DODGER.split("lines = open")[0])
    (place / "driver.py").write_text(NOBODY_DRIVER)
    for path in place.rglob("*"):
        os.chown(path, NOBODY, NOBODY)
    completed, _ = as_nobody(["driver.py", isolation], place)
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert "cgroup" not in report["fences"] and "uid" not in report["fences"]
    burned = float(re.search(r"burned ([0-9.]+)", report["stderr"]).group(1))
    assert burned > 0.3
    assert report["cpu"] >= 0.9 * burned, report
