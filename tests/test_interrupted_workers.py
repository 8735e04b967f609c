"""Ctrl-C while the tournament's jobs or the kit's slots run on their threads: the
caller stops them, waits until each has ended, and only then goes on (to close the
sandboxes under them); a second Ctrl-C meanwhile does not cut the wait short, nor does
a Ctrl-C that lands while the threads start.

Thread.join cannot be trusted for that wait on CPython 3.11 (a KeyboardInterrupt inside
join(timeout) marks a running thread as stopped): these tests fail with it. The
interrupts are real SIGINTs sent by a worker to the main thread, so the moment is a
fact of the test (the worker runs), never a guess of time."""

import signal
import threading
import time

import pytest

from grading_helpers import stake_raid_case
from engine.grading import workers
from engine.grading.judges import load as load_assignment
from engine.grading.results import Results
from engine.grading.runner import Runner
from engine.sandbox import Limits
from engine.tournament.director import Director
from engine.tournament.games import rules_for

# How long a stopped worker takes to finish its killed run (reaping, cleaning): long
# enough that a caller that does not wait has gone on when it ends.
FINISHING = 0.5


@pytest.fixture
def ctrl_c():
    """A function that sends Ctrl-C (SIGINT) to the main thread, from any thread; SIGINT
    raises KeyboardInterrupt there during the test (a suite started in the background
    may have it ignored)."""
    earlier = signal.signal(signal.SIGINT, signal.default_int_handler)
    main = threading.main_thread().ident
    try:
        yield lambda: signal.pthread_kill(main, signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, earlier)


def stopped_worker(stopped, ctrl_c, began, ended):
    """A work(job) that sends Ctrl-C once it runs (job 0), waits to be stopped, sends a
    second Ctrl-C (job 0), then takes FINISHING seconds before it ends."""

    def work(job):
        began.append(job)
        if job == 0:
            ctrl_c()
        assert stopped.wait(60), "never told to stop"
        if job == 0:
            ctrl_c()
        time.sleep(FINISHING)
        ended.append(job)

    return work


@pytest.fixture
def director():
    made = Director(rules_for("stake_raid"), [], 2.0, jobs=2)
    yield made
    made.close()


def test_ctrl_c_stops_the_tournament_jobs_and_waits_for_them(director, ctrl_c):
    began, ended = [], []
    work = stopped_worker(director._stop, ctrl_c, began, ended)
    with pytest.raises(KeyboardInterrupt):
        director._in_threads(work)
    assert director._stop.is_set()
    assert sorted(ended) == sorted(began) and len(began) == 2


def test_ctrl_c_while_the_jobs_start_stops_and_waits_for_those_started(
        director, monkeypatch):
    """The interrupt lands as the second thread is started: the first is stopped and
    waited for."""
    began, ended = [], []
    work = stopped_worker(director._stop, lambda: None, began, ended)
    real_start, starts = threading.Thread.start, []

    def start(thread):
        starts.append(thread)
        if len(starts) == 2:
            raise KeyboardInterrupt
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        director._in_threads(work)
    monkeypatch.undo()
    assert director._stop.is_set()
    assert ended == began == [0]


def test_ctrl_c_stops_the_kits_slots_and_waits_for_them_before_closing(
        tmp_path, ctrl_c, monkeypatch):
    cases = [stake_raid_case(f"c{index}") for index in range(4)]
    results = Results("stake_raid", None)
    runner = Runner(load_assignment("stake_raid"), cases, results, Limits(timeout=5.0),
                    jobs=2)
    began, ended, closed_under = [], [], []
    work = stopped_worker(runner._stop, ctrl_c, began, ended)

    def grade_case(submission, case, sandbox):
        slot = runner.sandboxes.index(sandbox)
        work(slot)
        if not runner.sandboxes:
            closed_under.append(slot)       # the sandboxes went while this case ran
        return None

    monkeypatch.setattr(runner, "_build", lambda submission, sandbox: None)
    monkeypatch.setattr(runner, "grade_case", grade_case)
    with pytest.raises(KeyboardInterrupt):
        runner.run([str(tmp_path / "a"), str(tmp_path / "b")])
    assert 0 in began and sorted(ended) == sorted(began)
    assert closed_under == []


def test_a_ctrl_c_landing_inside_a_threads_start_waits_for_that_thread(ctrl_c, monkeypatch):
    """Ctrl-C arrives once a thread runs but before Thread.start returns: that thread
    is stopped and waited for too (the signal is held until every thread has started)."""
    from engine.grading.workers import run_workers
    stopped, began, ended = threading.Event(), [], []
    work = stopped_worker(stopped, lambda: None, began, ended)
    real_start = threading.Thread.start

    def start(thread):
        real_start(thread)
        ctrl_c()
        time.sleep(0.01)    # (Python runs the handler here, still inside start)

    monkeypatch.setattr(threading.Thread, "start", start)
    with pytest.raises(KeyboardInterrupt):
        run_workers(2, work, stopped.set)
    monkeypatch.undo()
    assert stopped.is_set()
    assert sorted(ended) == sorted(began) == [0, 1]


def test_a_job_that_never_stops_does_not_make_ctrl_c_useless(director, ctrl_c, monkeypatch):
    """A job that ignores the stop (a run stuck in the kernel): the caller waits
    STOP_PATIENCE seconds for it, then goes on (the command can end)."""
    monkeypatch.setattr(workers, "STOP_PATIENCE", 0.5)
    release = threading.Event()

    def stuck(job):
        if job == 0:
            ctrl_c()
        release.wait(120)

    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            director._in_threads(stuck)
        assert time.monotonic() - started < 60
    finally:
        release.set()
