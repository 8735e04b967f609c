"""A loaded machine changes no verdict: the wall-clock cap leaves out waiting for a CPU.

* :class:`engine.sandbox._processes.RunClock` credits the run delay its threads report,
  never more than the wall time in which the run did not have its cores; a run whose own
  processes queue behind each other earns nothing; a kernel without the counter credits
  nothing and says so.
* Through the sandbox, beside processes that spin on the run's own core: a spinner is
  stopped for CPU time, a sleeper for sleeping, a run that needs most of its CPU limit
  passes, whatever the load (the spinners are ours, so the machine is loaded however
  quiet it was).
* The class of four (our program; our program after burning 1.2 s of CPU; a sleeper; a
  spinner) gets the same verdicts quietly and beside 8 busy processes per core (slow).
"""

import os
import subprocess
import sys
import time

import pytest
from grading_helpers import grade, our_copy, submission

from engine.sandbox import _processes as processes
from engine.sandbox._processes import RunClock
from engine.sandbox import Limits, RunResult, Sandbox, slept_or_waited
from engine.grading.judges import load as load_assignment

SPIN = "while True:\n    pass\n"


class Scripted:
    """Stands in for /proc/TID/schedstat: readings (run ns, delay ns) set by the test."""

    def __init__(self, monkeypatch):
        self.readings = {}
        monkeypatch.setattr(processes, "_schedstat", self.readings.get)

    def set(self, tid, run_seconds, delay_seconds):
        self.readings[tid] = (int(run_seconds * 1e9), int(delay_seconds * 1e9))


def test_waiting_beside_a_neighbour_is_credited(monkeypatch):
    stat = Scripted(monkeypatch)
    clock = RunClock(0.0, cores=1, counted=True)
    for step in range(1, 11):         # 20 % of the core, waiting the rest
        stat.set(7, 0.02 * step, 0.08 * step)
        clock.sample([7], 0.1 * step)
    assert clock.waited == pytest.approx(0.8)
    assert clock.could_run(1.0) == pytest.approx(0.2)


def test_a_runs_own_processes_queueing_on_its_core_earn_nothing(monkeypatch):
    stat = Scripted(monkeypatch)
    clock = RunClock(0.0, cores=1, counted=True)
    for step in range(1, 11):         # 8 processes share the core: 1/8 each, 7/8 waiting
        for tid in range(8):
            stat.set(tid, 0.1 * step / 8, 0.1 * step * 7 / 8)
        clock.sample(range(8), 0.1 * step)
    assert clock.waited == pytest.approx(0.0, abs=1e-9)
    assert clock.could_run(1.0) == pytest.approx(1.0)


def test_a_sleeper_is_credited_nothing_and_ended_threads_keep_counting(monkeypatch):
    stat = Scripted(monkeypatch)
    clock = RunClock(0.0, cores=2, counted=True)
    stat.set(1, 0.01, 0.3)              # waited 0.3 s at its start, then sleeps
    clock.sample([1], 1.0)
    del stat.readings[1]               # ended: its last reading still counts
    stat.set(2, 0.0, 0.0)
    clock.sample([2], 10.0)
    assert clock.waited == pytest.approx(0.3)
    assert clock.could_run(10.0) == pytest.approx(9.7)


def test_a_reused_thread_id_does_not_take_back_the_old_threads_time(monkeypatch):
    stat = Scripted(monkeypatch)
    clock = RunClock(0.0, cores=1, counted=True)
    stat.set(5, 0.1, 0.5)
    clock.sample([5], 1.0)
    stat.set(5, 0.01, 0.2)             # a new thread with the same id
    clock.sample([5], 2.0)
    assert clock.waited == pytest.approx(0.7)


def test_without_the_counter_nothing_is_credited_and_the_verdict_says_so(monkeypatch):
    Scripted(monkeypatch).set(1, 0.0, 5.0)
    clock = RunClock(0.0, cores=1, counted=False)
    clock.sample([1], 3.0)
    assert clock.waited is None and clock.could_run(3.0) == 3.0
    result = RunResult(None, b"", b"", 8.0, 2.7, "timeout", waited=None)
    reason = result.describe(Limits(timeout=3))
    assert reason.startswith("slept or waited: 8.0 s of wall time with 2.7 s of CPU")
    assert "does not count the time a run waits for a CPU" in reason


def test_this_kernel_counts_run_delay():
    assert processes.run_delay_counted(), "no /proc/PID/schedstat on this kernel"


def test_the_sleeper_verdict_names_the_wait_left_out():
    assert slept_or_waited(8.04, 0.01, 8, 0.0) == (
        "slept or waited: 8.0 s of wall time with 0.0 s of CPU (cap 8 s of wall time)")
    assert slept_or_waited(20.0, 0.5, 8, 12.0).endswith(
        "(cap 8 s of wall time, not counting 12.0 s spent waiting for a CPU)")


def test_a_killed_run_never_reads_exit_none():
    limits = Limits(timeout=3)
    for ended in ("timeout", "cpu", "memory", "output", "file size", "aborted"):
        reason = RunResult(None, b"", b"", 1.0, 1.0, ended).describe(limits)
        assert "None" not in reason, (ended, reason)


@pytest.fixture
def core_spinners():
    """Four processes spinning on core 0, where slot 0's runs are pinned: the run waits
    for its core whatever else the machine does."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True)
                for _ in range(4)]
    for spinner in spinners:
        os.sched_setaffinity(spinner.pid, {sorted(os.sched_getaffinity(0))[0]})
    yield spinners
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


NEEDS_CPU = ("import time\nstart = time.process_time()\n"
             "while time.process_time() - start < {seconds}:\n    pass\nprint('done')\n")


# Without a cgroup (the run delay read per process): the long variant.
@pytest.mark.parametrize("cgroups_wanted", [None, pytest.param(False, marks=pytest.mark.slow)],
                         ids=["auto", "no-cgroup"])
def test_beside_spinners_on_its_core_a_run_is_judged_by_its_cpu(core_spinners,
                                                                cgroups_wanted):
    """Wall cap 1.2 s: without the credit for waiting, the run that needs 0.8 s of CPU
    (1/5 of its core or less: 4 spinners beside it, 2/3 with the cgroup's weight) and the
    spinner would both be stopped as sleepers."""
    sandbox = Sandbox(Limits(timeout=1.0, wall=1.2), isolation="rlimits",
                      cgroups_wanted=cgroups_wanted, dedicated_uids=cgroups_wanted)
    try:
        results = {}
        for name, argv in (("needs", ["python3", "-c", NEEDS_CPU.format(seconds=0.8)]),
                           ("spinner", ["python3", "-c", SPIN]),
                           ("sleeper", ["sleep", "100"])):
            sandbox.clear()
            sandbox.renew()
            sandbox.give()
            results[name] = sandbox.run(argv)
    finally:
        sandbox.close()
    needs, spinner, sleeper = results["needs"], results["spinner"], results["sleeper"]
    assert needs.ended == "exited" and needs.stdout == b"done\n", needs
    assert spinner.ended == "cpu", spinner
    assert spinner.describe(sandbox.limits) == "CPU time limit (1 s) exceeded"
    assert sleeper.ended == "timeout" and sleeper.cpu < 0.5, sleeper
    assert sleeper.describe(sandbox.limits).startswith("slept or waited: ")
    if cgroups_wanted is False:
        # Without the cgroup's weight the run got at most a fifth of its core: waiting
        # was credited (the guard this test exists for).
        assert needs.waited is not None and needs.waited > 0.5, needs
        assert needs.wall - needs.waited < 1.2, needs


# --- the class of four, quiet and loaded -----------------------------------------------

BURN_FIRST = ("import time\n_start = time.process_time()\n"
              "while time.process_time() - _start < 1.2:\n    pass\n")


def class_of_four(folder):
    """Our tic-tac-toe; the same after burning 1.2 s of CPU; a sleeper; a spinner."""
    ours = our_copy(folder / "ours", "tictactoe.py")
    burner = our_copy(folder / "burner", "tictactoe.py")
    script = burner / "tictactoe.py"
    text = script.read_text()
    head, sep, rest = text.partition("\nimport ")
    script.write_text(head + "\n" + BURN_FIRST + "import " + rest)
    sleeper = submission(folder / "sleeper", {"tictactoe.py": "import time\ntime.sleep(60)\n"})
    spinner = submission(folder / "spinner", {"tictactoe.py": SPIN})
    return [ours, burner, sleeper, spinner]


def verdicts(document):
    return {os.path.basename(entry["submission"]): [(case["passed"], case["reason"].split(":")[0]
                                                     if case["reason"].startswith("slept")
                                                     else case["reason"])
                                                    for case in entry["cases"]]
            for entry in document["submissions"]}


@pytest.mark.slow
def test_a_class_of_four_gets_the_same_verdicts_quiet_and_beside_8_busy_per_core(tmp_path):
    from engine.grading.generate import generate_cases
    cases = generate_cases(load_assignment("tictactoe"), 2, 1)
    folders = class_of_four(tmp_path)
    started = time.monotonic()
    quiet = grade("tictactoe", folders, cases, "auto", timeout=3, jobs=2)
    quiet_seconds = time.monotonic() - started
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True)
                for _ in range(8 * os.cpu_count())]
    try:
        started = time.monotonic()
        loaded = grade("tictactoe", folders, cases, "auto", timeout=3, jobs=2)
        loaded_seconds = time.monotonic() - started
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    print(f"class of four: {quiet_seconds:.1f} s quiet, {loaded_seconds:.1f} s beside "
          f"{len(spinners)} spinning processes")
    assert verdicts(quiet) == verdicts(loaded)
    found = verdicts(quiet)
    assert all(passed for passed, _ in found["ours"] + found["burner"]), found
    assert {reason for _, reason in found["sleeper"]} == {"slept or waited"}, found
    assert {reason for _, reason in found["spinner"]} == {"CPU time limit (3 s) exceeded"}, found


def test_the_html_report_says_who_ended_a_run_never_exit_none():
    from engine.grading import report_html
    cases = [{"case": "spin", "passed": False, "reason": "CPU time limit (3 s) exceeded",
              "detail": "", "seconds": 3.2, "cpu": 3.1, "exit": None, "ended": "cpu"},
             {"case": "crash", "passed": False, "reason": "killed by signal SIGSEGV",
              "detail": "", "seconds": 0.1, "cpu": 0.1, "exit": None, "ended": "signal"},
             {"case": "wrong", "passed": False, "reason": "wrong move", "detail": "",
              "seconds": 0.1, "cpu": 0.1, "exit": 1, "ended": "exited"}]
    document = {"program": "stake_raid", "isolation": "rlimits", "lenient": False,
                "submissions": [{"submission": "a", "kind": "python", "build_error": None,
                                 "score": 0, "max_score": 3, "points": 0, "max_points": 3,
                                 "cases": cases}]}
    page = report_html.render(document)
    assert "exit None" not in page
    assert "killed by the kit: CPU time limit (3 s) exceeded" in page
    assert "killed by a signal" in page and "exit 1" in page


def test_a_run_found_by_descent_spares_the_kit_process_own_children(tmp_path):
    """Without a uid or a cgroup, the kit kills every orphan it adopted when a run ends;
    the children its process had before (a test's helpers, such as the spinners above,
    or a browser's driver) are not orphans of any run and live on, while the run's own
    double-forked child is still killed."""
    helper = subprocess.Popen(["sleep", "300"], start_new_session=True)
    word = f"1000.{os.getpid()}{time.monotonic_ns() % 10 ** 8:08d}"
    leaver = ("import subprocess, time\n"
              f"subprocess.Popen(['sleep', '{word}'], start_new_session=True)\n"
              "time.sleep(0.3)\n")
    sandbox = Sandbox(Limits(timeout=5), isolation="rlimits", cgroups_wanted=False,
                      dedicated_uids=False)
    try:
        sandbox.clear()
        sandbox.give()
        result = sandbox.run(["python3", "-c", leaver])
        assert result.ended == "exited", result
        assert helper.poll() is None, "the kit killed a child it had before the run"
        left = [pid for pid in os.listdir("/proc") if pid.isdigit()
                and word.encode() in _cmdline(pid)]
        assert left == []
    finally:
        sandbox.close()
        helper.kill()
        helper.wait()


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


# --- a tournament, quiet and loaded -------------------------------------------------------

def play_ours(folder, name):
    """A round-robin of three of our Stake/Raid agents with 2 s clocks: (games, forfeits)."""
    from test_tournament_play import tournament
    out = folder / f"{name}.json"
    done = tournament("run", "stake_raid", "ours:agent", "ours:classic", "ours:greedy",
                      "--format", "round-robin", "--sizes", "4,5", "--time", "2", "--jobs",
                      "2", "--quiet", "--json", str(out))
    assert done.returncode == 0, done.stderr
    import json
    games = json.loads(out.read_text())["games"]
    return len(games), [game["forfeit"] for game in games if game["forfeit"]]


@pytest.mark.slow
def test_a_tournament_of_our_agents_forfeits_nothing_quiet_or_beside_8_busy_per_core(
        tmp_path):
    started = time.monotonic()
    played, forfeits = play_ours(tmp_path, "quiet")
    quiet_seconds = time.monotonic() - started
    assert played and forfeits == []
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True)
                for _ in range(8 * os.cpu_count())]
    try:
        started = time.monotonic()
        played_loaded, forfeits = play_ours(tmp_path, "loaded")
        loaded_seconds = time.monotonic() - started
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    print(f"tournament of our agents: {played} games, {quiet_seconds:.1f} s quiet, "
          f"{loaded_seconds:.1f} s beside {len(spinners)} spinning processes")
    assert played_loaded == played and forfeits == []
