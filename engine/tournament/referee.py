"""The referee: one game between two built entrants, every call in the kit's sandbox.

Each player has a :class:`Seat`: a sandbox whose run folder holds the player's own copy
of its calibrated build for the whole game (agents may keep files between moves; no two
games share files). Before the game the player's ``make newgame`` runs when it has one
(errors ignored). Then, while the game is not over, the side to move gets ``input.txt``
(its remaining CPU seconds on line 4) and one call of its run command, and the referee
reads ``output.txt``, checks the move and plays it by the rules itself.

The clock: each call is charged the CPU time it used, user and system, every process of
the call included, from an exact counter (the slot's cgroup, or the kernel's totals of
the reaped processes), never wall time; a call that takes a player's clock below zero
loses the game (its move is not played). User time alone is not charged: the kernel
samples it at each timer tick, so a program that sleeps across every tick burns CPU
uncharged (measured: 1.5 s burned, 0.012 s of user time booked).

Wall time is bounded per game: a player's calls may take at most :func:`wall_budget`
seconds of wall time in all (its clock, plus the clock again and :data:`GRACE_SECONDS`
of slack for a loaded machine and program start-up); the call that is still running
when it runs out is killed and loses on time, so a player that sleeps cannot stall a
game. That wall time leaves out the time a call waited for a CPU that other work held
(the sandbox's wall-clock cap), so a busy machine forfeits no game. The exit code is
ignored, as in the handout; a call the sandbox had to kill (memory, output, file size)
loses as a crash; a missing ``output.txt`` (or a link, a folder, anything but a regular
file), one that names no move, or an illegal move loses. Every forfeit carries its
reason and a detail: what happened and the end of the player's stderr.
"""

import os
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, cast

from ..sandbox import (Limits, RunResult, Sandbox, lstat_beneath, open_folder, populate,
                       read_regular, remove_beneath, syscall_filter_name, write_new)
from .entrants import NEWGAME_CPU, NEWGAME_WALL, Built
from .games import O_SIDE, X_SIDE, Board, Rules
from ..errors import EngineError

# Wall-time slack of a player per game, on top of twice its clock (see wall_budget).
GRACE_SECONDS = 10.0
# The call's CPU limit stands a little above the remaining time: the clock decides the
# forfeit from the exact count after the call; the limit only stops a runaway.
CPU_SLACK = 1.0
# What is read of output.txt (one line matters) and kept of stderr in a forfeit's detail.
OUTPUT_CAP = 64 * 1024
STDERR_LINES, STDERR_BYTES = 15, 2000
REASONS = ("timeout", "crash", "no output", "garbled output", "illegal move")


class GameAborted(EngineError):
    """The game was stopped from outside (Ctrl-C): it has no result."""


class Forfeit(NamedTuple):
    """Why the player ``side`` lost the game before its end."""
    side: str
    reason: str
    detail: str


def wall_budget(seconds: float, grace: float = GRACE_SECONDS) -> float:
    """Wall-clock seconds a player's calls may take in one game with a clock of
    ``seconds``: the clock, and as slack the clock again plus ``grace`` (a machine loaded
    twice over, and start-up of each call)."""
    return 2.0 * seconds + grace


def stderr_tail(data: bytes) -> str:
    """The end of a call's stderr as text: its last lines, at most a couple of KB."""
    text = data[-STDERR_BYTES:].decode("utf-8", "replace").rstrip("\n")
    return "\n".join(text.split("\n")[-STDERR_LINES:])


def _with_stderr(detail: str, stderr: bytes) -> str:
    tail = stderr_tail(stderr)
    return f"{detail}\nstderr:\n{tail}" if tail.strip() else detail


def _replace_file(folder: str, name: str, data: bytes, uid: Optional[int]) -> None:
    """Put a fresh regular file ``name`` holding ``data`` in ``folder``: whatever the
    player left under that name (a link, a folder) goes first, and the new file is
    created exclusively, never through a link, and given to the player's uid."""
    folder_fd = open_folder(folder)
    try:
        remove_beneath(name, folder_fd)
        write_new(name, data, folder_fd, owner=None if uid is None else (uid, uid))
    finally:
        os.close(folder_fd)


def read_output(folder: str) -> Tuple[Optional[str], Optional[str]]:
    """``(text, None)`` from the regular file output.txt in ``folder``, or ``(None, why)``
    when there is none (missing, a link, a folder, a device)."""
    folder_fd = open_folder(folder)
    try:
        if lstat_beneath("output.txt", folder_fd) is None:
            return None, "no output.txt"
        got = read_regular("output.txt", dir_fd=folder_fd, cap=OUTPUT_CAP)
    finally:
        os.close(folder_fd)
    if got is None:
        return None, "output.txt is not a regular file (a link, a folder or a device)"
    return got[0].decode("utf-8", "replace"), None


class Seat:
    """A player's place in the games of one job: its sandbox (see the module docstring).
    ``argv`` is the entrant's run command, ``build`` its Build, ``newgame`` whether to run
    ``make newgame`` before each game."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.argv: List[str] = []

    def sit(self, built: Built) -> None:
        """Start a game for ``built`` (an :class:`engine.tournament.entrants.Built`): a
        fresh copy of its build, a fresh uid, and its ``make newgame``."""
        entrant = built.entrant
        self.argv = list(entrant.plan.argv(()))
        sandbox = self.sandbox
        sandbox.clear()
        folder_fd = open_folder(sandbox.folder)
        try:
            given = populate(folder_fd, str(built.build.folder), built.build.entries,
                             shared=False)
        finally:
            os.close(folder_fd)
        sandbox.renew()
        sandbox.give(given)
        if entrant.newgame:
            result = sandbox.run(["make", "newgame"], timeout=NEWGAME_CPU, wall=NEWGAME_WALL)
            if result.ended == "aborted":
                raise GameAborted()

    def call(self, input_text: str, remaining: float, wall: float
             ) -> Tuple[RunResult, Tuple[Optional[str], Optional[str]]]:
        """One move call with ``remaining`` CPU seconds on the clock, killed after
        ``wall`` seconds of wall time: the sandbox's RunResult and the output (text, or
        None and why)."""
        sandbox = self.sandbox
        folder = sandbox.folder
        folder_fd = open_folder(folder)
        try:
            remove_beneath("output.txt", folder_fd)
        finally:
            os.close(folder_fd)
        _replace_file(folder, "input.txt", input_text.encode(), sandbox.uid)
        result = sandbox.run(self.argv, timeout=max(remaining, 0.0) + CPU_SLACK,
                             wall=max(wall, 0.0))
        if result.ended == "aborted":
            raise GameAborted()
        return result, read_output(folder)

    def stand(self) -> None:
        """The game is over: kill nothing more (every run is already dead), empty the
        folder so that nothing of this player stays for the next."""
        self.sandbox.clear()


def _judge_call(board: Board, side: str, result: RunResult,
                output: Tuple[Optional[str], Optional[str]], remaining: float, limits: Limits,
                wall: Tuple[float, float]) -> Tuple[Any, float, Optional[Forfeit]]:
    """(action, charge, forfeit) of one call (see the module docstring); ``limits`` are
    the sandbox's, ``wall`` = (the player's wall-time budget of the game, what was left
    of it when the call started)."""
    # User + system time from the exact counters: never the tick-sampled user time.
    charge = result.cpu
    if result.ended in ("timeout", "cpu"):
        if result.ended == "timeout":
            budget, left = wall
            what = (f"still running when its wall time for the game ran out "
                    f"({budget:g} s in all, {max(left, 0.0):.2f} s left at this call); "
                    f"killed ({_waits_left_out(result)})")
        else:
            what = f"used more than its {remaining:.2f} s left; killed"
        return None, charge, Forfeit(side, "timeout", _with_stderr(what, result.stderr))
    if remaining - charge < 0:
        what = f"used {charge:.2f} s of CPU with {remaining:.2f} s left"
        return None, charge, Forfeit(side, "timeout", _with_stderr(what, result.stderr))
    if result.ended in ("memory", "output", "file size"):
        what = result.describe(limits, remaining)
        return None, charge, Forfeit(side, "crash", _with_stderr(what, result.stderr))
    text, missing = output
    if text is None:
        # read_output always says why when it gives no text.
        ending = "" if result.ended == "exited" and result.exit == 0 else \
            f" ({_ending_words(result)})"
        return None, charge, Forfeit(side, "no output",
                                     _with_stderr(cast(str, missing) + ending, result.stderr))
    action = board.parse(text)
    first = text.split("\n", 1)[0][:200]
    if action is None:
        return None, charge, Forfeit(side, "garbled output", _with_stderr(
            f"output.txt names no move: {first!r}", result.stderr))
    if not board.legal(action):
        return None, charge, Forfeit(side, "illegal move", _with_stderr(
            f"{first.strip()} is not a legal move here", result.stderr))
    return action, charge, None


def _waits_left_out(result: RunResult) -> str:
    """What the wall cap left out: the sandbox counts only the wall time in which the
    call could run, so a busy machine never makes a player lose on time."""
    if result.waited is None:
        return (f"used {result.cpu:.2f} s of CPU; this kernel does not count waiting for "
                f"a CPU, so a busy machine may have caused this")
    return (f"used {result.cpu:.2f} s of CPU; {result.waited:.2f} s spent waiting for a "
            f"CPU not counted")


def _ending_words(result: RunResult) -> str:
    if result.ended == "signal":
        return f"killed by signal {result.signal}"
    return f"exit code {result.exit}"


class Outcome(NamedTuple):
    """A finished game: the moves ([side, move, cpu]), result, score [X, O], CPU [X, O],
    the forfeit (None when the game was played to its end) and the seccomp filter each
    side's calls ran under ({side: "allowlist", "denylist" or "none"}; a side that made
    no call is left out)."""
    moves: list
    result: str
    score: list
    cpu: list
    forfeit: Optional[Forfeit]
    syscalls: Optional[dict] = None


def play(rules: Rules, cells: Any, built: Dict[str, Built], seats: Dict[str, Seat],
         seconds: float, on_move: Optional[Callable[[str, str, float], None]] = None,
         grace: float = GRACE_SECONDS) -> Outcome:
    """Play one game on the board set up as ``cells`` between ``built["x"]`` (moving
    first) and ``built["o"]``, in ``seats["x"]`` and ``seats["o"]``, each with
    ``seconds`` of CPU; return its :class:`Outcome`. ``on_move(side, move, cpu)`` is told
    after each move; ``grace`` is the wall-time slack of each player in the game (see
    :func:`wall_budget`). Raises GameAborted when a sandbox was aborted (Ctrl-C)."""
    board = rules.board(cells)
    clocks = {X_SIDE: float(seconds), O_SIDE: float(seconds)}
    budget = wall_budget(seconds, grace)
    walls = {X_SIDE: budget, O_SIDE: budget}
    moves = []
    forfeit = None
    filters = {}
    try:
        for side in (X_SIDE, O_SIDE):
            seats[side].sit(built[side])
        while not board.over:
            side = board.side
            remaining = clocks[side]
            wall_left = walls[side]
            result, output = seats[side].call(board.input_text(remaining), remaining,
                                              wall_left)
            filters[side] = syscall_filter_name(result.syscalls)
            # What the call could run: waiting for a CPU others held is not its doing.
            walls[side] = wall_left - (result.wall - (result.waited or 0.0))
            action, charge, forfeit = _judge_call(
                board, side, result, output, remaining, seats[side].sandbox.limits,
                (budget, wall_left))
            clocks[side] = remaining - charge
            if forfeit is not None:
                break
            name = board.play(action)
            moves.append([side, name, round(charge, 3)])
            if on_move is not None:
                on_move(side, name, charge)
    finally:
        for side in (X_SIDE, O_SIDE):
            seats[side].stand()
    cpu = [round(seconds - clocks[X_SIDE], 3), round(seconds - clocks[O_SIDE], 3)]
    if forfeit is not None:
        winner = O_SIDE if forfeit.side == X_SIDE else X_SIDE
        return Outcome(moves, winner, board.forfeit_scores(winner), cpu, forfeit, filters)
    return Outcome(moves, board.winner(), board.scores(), cpu, None, filters)
