"""The tournament director: builds the entrants, plays the schedule on J jobs, keeps the
results file current after every game.

Each job owns two sandboxes (one per seat of its games, both pinned to the job's core) in
one kit workspace; entrants are built (and calibrated) first, spread over the jobs, each
into a folder of the workspace that every game copies afresh. Every entrant's folder is
hidden from every run (:class:`engine.sandbox.Sandbox` ``hidden``), so no entrant
sees another's folder, nor its copy in another game (runs have their own uid).

:meth:`Director.play` plays the games of a schedule (:mod:`engine.tournament.schedule`)
that are not yet played and fall in the shard, round after round for the formats that
pair by results, and calls ``on_game(record)`` after each. Ctrl-C (KeyboardInterrupt in
the calling thread) aborts the games in progress (they have no result) and keeps the
finished ones. A game the kit itself cannot referee (an error of ours, not of an
entrant's) is left unplayed, reported, and played by the next ``--resume``.
"""

import os
import queue
import threading
import time
from typing import (Any, Callable, Container, Dict, Iterable, Iterator, List, Optional,
                    Sequence, Tuple)

from ..grading import workers
from ..grading.workers import run_workers
from ..sandbox import Limits, Sandbox, close_all, new_workspace, remove_tree, usable_cores
from . import entrants as entrants_module
from . import referee, schedule
from .entrants import Entrant
from .games import O_SIDE, X_SIDE, Rules
from .schedule import GameSpec

OUTPUT_MB, FILE_MB, PROCESSES = 16, 64, 64


class Director:
    """See the module docstring. ``rules``: the game's rules (engine.tournament.games);
    ``entrants``: :class:`engine.tournament.entrants.Entrant` list; ``seconds``: CPU per
    player per game; ``jobs``: games at once; ``isolation``, ``memory_mb``: the sandbox's.
    ``grace``: the wall-time slack of a player per game (see
    :func:`engine.tournament.referee.wall_budget`).
    ``hidden``: more folders no run may see (a ladder's store of submissions, whose
    entrants are :meth:`admit`-ted later). ``builds_root``: the folder the builds go in
    (the caller's, kept after :meth:`close`, which removes the builds); None for the
    workspace's own. The workspace, and with it the run folders, is always the kit's
    (/dev/shm when it is there): a run's files there are memory charged to the run,
    so its memory limit bounds them. A ladder worker keeps many builds for hours, so it
    gives a folder on disk; each build leaves its run folder by a copy then
    (:func:`engine.sandbox.untrusted_files.copy_across`).
    Raises IsolationError when the isolation asked for cannot run here."""

    def __init__(self, rules: Rules, entrants: Iterable[Entrant], seconds: float, jobs: int = 1,
                 isolation: str = "auto", memory_mb: int = 1024, seed: int = 1,
                 grace: float = referee.GRACE_SECONDS, hidden: Sequence[str] = (),
                 builds_root: Optional[str] = None) -> None:
        self.rules = rules
        self.entrants = {entrant.name: entrant for entrant in entrants}
        self.seconds = seconds
        self.seed = seed
        self.grace = grace
        self.jobs = max(1, jobs)
        self.limits = Limits(timeout=seconds, memory_mb=memory_mb, output_mb=OUTPUT_MB,
                             file_mb=FILE_MB, processes=PROCESSES)
        workspace = new_workspace()
        self.workspace: Optional[str] = workspace
        self.builds_folder = (os.path.join(workspace, "builds") if builds_root is None
                              else builds_root)
        self._builds_outside = builds_root is not None
        self.seats: List[Dict[str, referee.Seat]] = []
        self.built: Dict[str, entrants_module.Built] = {}
        self.failures: List[Any] = []
        self._stop = threading.Event()
        self._finished = False
        try:
            self.ours = os.path.join(workspace, "ours")
            if any(entrant.kind == "ours" for entrant in entrants):
                os.mkdir(self.ours, 0o700)
                entrants_module.copy_engine(self.ours)
            hidden = sorted({os.path.abspath(e.source) for e in entrants
                             if e.kind != "ours"} | {os.path.abspath(h) for h in hidden})
            # Both seats of a job on the job's core; with fewer jobs than cores (a task
            # of a cluster array) nothing is pinned, so tasks sharing a node spread out.
            pin = self.jobs >= usable_cores()
            for job in range(self.jobs):
                self.seats.append({side: referee.Seat(Sandbox(
                    self.limits, 2 * job + index, isolation, workspace, hidden=hidden,
                    core=job, pin=pin)) for index, side in enumerate((X_SIDE, O_SIDE))})
        except BaseException:
            self.close()
            raise
        self.isolation = self.seats[0][X_SIDE].sandbox.isolation

    def _sandboxes(self) -> List[Sandbox]:
        return [seat.sandbox for seats in self.seats for seat in seats.values()]

    def close(self) -> None:
        """Release the sandboxes, remove the workspace and the builds (those in
        ``builds_root`` one by one: the folder stays)."""
        close_all(self._sandboxes())
        self.seats = []
        if self._builds_outside:
            for name in list(self.built):
                self.forget(name)
        if self.workspace is not None:
            remove_tree(self.workspace)
            self.workspace = None

    # --- building ------------------------------------------------------------------

    def build(self, known: Optional[Dict[str, Optional[str]]] = None,
              on_built: Optional[Callable[[str, Optional[str], float], None]] = None,
              on_start: Optional[Callable[[str, str], None]] = None
              ) -> Dict[str, Optional[str]]:
        """Build every entrant (``known``: name -> an error from an earlier run, whose
        entrants are not built again); return name -> build error (None: built).
        ``on_start(name, what)`` is told as each build starts (``what``: its steps and
        their caps, :func:`engine.tournament.entrants.steps_text`), ``on_built(name,
        error, seconds)`` as each finishes."""
        known = known or {}
        todo: "queue.Queue[Entrant]" = queue.Queue()
        for entrant in self.entrants.values():
            if known.get(entrant.name):
                if on_built:
                    on_built(entrant.name, known[entrant.name], 0.0)
                continue
            todo.put(entrant)
        errors: Dict[str, Optional[str]] = {name: error for name, error in known.items()
                                            if error}
        lock = threading.Lock()

        def work(job: int) -> None:
            sandbox = self.seats[job][X_SIDE].sandbox
            while not self._stop.is_set():
                try:
                    entrant = todo.get_nowait()
                except queue.Empty:
                    return
                source = self.ours if entrant.kind == "ours" else entrant.source
                if on_start:
                    on_start(entrant.name, entrants_module.steps_text(entrant))
                started = time.monotonic()
                built = entrants_module.prepare(entrant._replace(source=source), sandbox,
                                                self.builds_folder)
                with lock:
                    if built.error is None:
                        self.built[entrant.name] = built
                    errors[entrant.name] = built.error
                if on_built:
                    on_built(entrant.name, built.error, time.monotonic() - started)

        self._in_threads(work)
        for name in self.entrants:
            errors.setdefault(name, None)
        return errors

    def admit(self, entrant: Entrant) -> Optional[str]:
        """Add ``entrant`` to a running director (a ladder's new submission) and build it
        in the first job's sandbox now; return its build error (None: built). Its
        folder must lie under the ``hidden`` folders given at construction."""
        self.entrants[entrant.name] = entrant
        source = entrant.source
        if entrant.kind == "ours":
            if not os.path.isdir(self.ours):
                os.mkdir(self.ours, 0o700)
                entrants_module.copy_engine(self.ours)
            source = self.ours
        built = entrants_module.prepare(entrant._replace(source=source),
                                        self.seats[0][X_SIDE].sandbox, self.builds_folder)
        if built.error is None:
            self.built[entrant.name] = built
        return built.error

    def forget(self, name: str) -> None:
        """Drop the entrant ``name`` and remove its build (a ladder keeps a few): the
        folder the build was made in (see :func:`engine.grading.detect.build`)."""
        self.entrants.pop(name, None)
        built = self.built.pop(name, None)
        if built is not None and built.build.folder is not None:
            remove_tree(os.path.dirname(str(built.build.folder)))

    # --- playing ---------------------------------------------------------------------

    def play(self, games: Iterable[GameSpec], on_game: Callable[[Dict[str, Any]], None],
             on_failure: Optional[Callable[[GameSpec, BaseException], None]] = None) -> None:
        """Play ``games`` (GameSpec list) on the jobs; ``on_game(record)`` after each
        (called under a lock, one at a time). ``on_failure(spec, error)`` for a game the
        kit could not referee."""
        self.play_stream(iter(games), on_game, on_failure)

    def play_stream(self, games: Iterator[GameSpec], on_game: Callable[[Dict[str, Any]], None],
                    on_failure: Optional[Callable[[GameSpec, BaseException], None]] = None
                    ) -> None:
        """:meth:`play` over an iterator of GameSpecs, taken as jobs come free, until
        it ends or :meth:`finish` is called (an SPRT's decision)."""
        self._finished = False
        lock = threading.Lock()

        def take() -> Optional[GameSpec]:
            with lock:
                if self._finished or self._stop.is_set():
                    return None
                return next(games, None)

        def work(job: int) -> None:
            seats = self.seats[job]
            while True:
                spec = take()
                if spec is None:
                    return
                try:
                    record = self.play_one(spec, seats)
                except referee.GameAborted:
                    return
                except Exception as error:  # noqa: BLE001 - one game, not the tournament
                    if self._stop.is_set():
                        return
                    with lock:
                        self.failures.append((spec, error))
                        if on_failure:
                            on_failure(spec, error)
                    continue
                with lock:
                    on_game(record)

        self._in_threads(work)

    def finish(self) -> None:
        """Start no new game; those running end normally (called from ``on_game``)."""
        self._finished = True

    def play_one(self, spec: GameSpec, seats: Dict[str, referee.Seat]) -> Dict[str, Any]:
        """The record of the game ``spec`` played in ``seats``."""
        cells = self.rules.setup(self.seed, spec.board, spec.size)
        built = {X_SIDE: self.built[spec.x], O_SIDE: self.built[spec.o]}
        outcome = referee.play(self.rules, cells, built, seats, self.seconds,
                               grace=self.grace)
        forfeit = outcome.forfeit
        return {
            "id": spec.id, "round": spec.round, "match": spec.match, "pair": spec.pair,
            "size": spec.size if isinstance(spec.size, int) else str(spec.size),
            "x": spec.x, "o": spec.o, "cells": cells, "moves": outcome.moves,
            "result": outcome.result, "score": outcome.score, "cpu": outcome.cpu,
            "forfeit": None if forfeit is None else {
                "player": forfeit.side, "reason": forfeit.reason,
                "detail": forfeit.detail},
            "seccomp": dict(outcome.syscalls or {})}

    def stop(self) -> None:
        """Stop: no new game starts, the running calls are killed (no result)."""
        self._stop.set()
        for sandbox in self._sandboxes():
            sandbox.abort()

    def _in_threads(self, work: Callable[[int], None]) -> None:
        """Run ``work(job)`` on every job's thread and wait; Ctrl-C (even as the threads
        start) stops them all, waits until each has finished its killed call (a second
        Ctrl-C does not cut that short), and is raised again: only then may the
        sandboxes be closed (see :func:`engine.grading.workers.run_workers`)."""
        run_workers(self.jobs, work, self.stop, name="tournament-job",
                    patience=workers.STOP_PATIENCE)


def schedule_todo(plan: schedule.Schedule, played: Container[int],
                  shard: Optional[Tuple[int, int]], rules: Rules) -> List[GameSpec]:
    """The games of ``plan`` still to play in ``shard`` (of the game ``rules``)."""
    mine = schedule.in_shard(plan.games, shard, rules.size_cost)
    return [game for game in plan.games if game.id not in played and game.id in mine]
