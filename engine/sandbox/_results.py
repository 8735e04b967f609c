"""What a run may use, and what it did: :class:`Limits`, :class:`RunResult`, the endings.

A :class:`RunResult` is the whole account of one run of :meth:`Sandbox.run`; its
``ended`` is one of :data:`ENDINGS`, and :meth:`RunResult.describe` puts a run the kit
stopped into the one-line reason a verdict shows.
"""

import signal
from typing import NamedTuple, Optional, Tuple

from ..errors import EngineError

MB = 1024 * 1024

# How a run ended. Only "exited" and "signal" (the program crashed by itself) are runs
# that ended by themselves; the others are limits the kit enforced.
ENDINGS = ("exited", "signal", "timeout", "cpu", "memory", "output", "file size",
           "aborted")

_MEMORY_MESSAGES = (b"MemoryError", b"std::bad_alloc", b"OutOfMemoryError",
                    b"Cannot allocate memory", b"out of memory")


class Limits(NamedTuple):
    """Limits of one run: CPU seconds (``timeout``, all processes together), MB of memory,
    MB of stdout+stderr, MB per written file, processes (threads count too), and the
    wall-clock cap (None: :meth:`wall_clock`)."""
    timeout: float = 10.0
    memory_mb: int = 1024
    output_mb: int = 16
    file_mb: int = 64
    processes: int = 64
    wall: Optional[float] = None

    def wall_clock(self, timeout: Optional[float] = None) -> float:
        """Wall-clock seconds a run may take: generous (twice the CPU limit plus 2 s),
        so that a run is judged by the CPU time it used, not by its neighbours."""
        timeout = self.timeout if timeout is None else timeout
        return self.wall if self.wall is not None else 2 * timeout + 2


class RunResult(NamedTuple):
    """What a sandboxed run did. ``exit`` is None when a signal ended it (``signal`` then
    names it); ``ended`` is one of ``ENDINGS``; ``cpu`` is user+system seconds of every
    process of the run, ``user`` the user-mode part of them (what ``time`` calls user
    time: a tournament's clock); ``memory`` the peak bytes seen (None: not measured);
    ``fences`` the fences that held it; ``waited`` the seconds of wall time in which it
    waited for a CPU that other work held, left out of its wall-clock cap (None: this
    kernel does not count them, and the cap was on plain wall time); ``syscalls`` the
    seccomp filter it ran under ("allowlist", "denylist", None: none)."""
    exit: Optional[int]
    stdout: bytes
    stderr: bytes
    wall: float
    cpu: float
    ended: str
    signal: Optional[int] = None
    memory: Optional[int] = None
    fences: Tuple[str, ...] = ()
    user: float = 0.0
    waited: Optional[float] = None
    syscalls: Optional[str] = None

    def describe(self, limits: Limits, timeout: Optional[float] = None,
                 wall: Optional[float] = None) -> str:
        """A one-line verdict reason for a run that did not end by itself (``timeout``
        and ``wall``: the run's own limits, when :meth:`Sandbox.run` was given them)."""
        timeout = limits.timeout if timeout is None else timeout
        if self.ended == "timeout":
            wall = limits.wall_clock(timeout) if wall is None else wall
            return slept_or_waited(self.wall, self.cpu, wall, self.waited)
        if self.ended == "cpu":
            return f"CPU time limit ({timeout:g} s) exceeded"
        if self.ended == "memory":
            return f"memory limit ({limits.memory_mb} MB) exceeded"
        if self.ended == "output":
            return f"output over {limits.output_mb} MB"
        if self.ended == "file size":
            return f"wrote a file over {limits.file_mb} MB"
        if self.ended == "signal":
            return f"killed by signal {_signal_name(self.signal)}"
        if self.ended == "aborted":
            return "killed by the kit: grading was stopped"
        return f"exit code {self.exit}"


def slept_or_waited(wall: float, cpu: float, cap: float, waited: Optional[float]) -> str:
    """The verdict of a run stopped at its wall-clock cap ``cap`` after ``wall`` seconds
    with ``cpu`` seconds of CPU, ``waited`` of them (None: not counted here) spent
    waiting for a CPU that other work held."""
    head = f"slept or waited: {wall:.1f} s of wall time with {cpu:.1f} s of CPU"
    if waited is None:
        return (f"{head} (cap {cap:g} s of wall time; this kernel does not count the time "
                f"a run waits for a CPU, so a busy machine can cause this verdict)")
    if waited < 0.05:
        return f"{head} (cap {cap:g} s of wall time)"
    return (f"{head} (cap {cap:g} s of wall time, not counting {waited:.1f} s spent "
            f"waiting for a CPU)")


def _signal_name(number: Optional[int]) -> str:
    try:
        return signal.Signals(number).name  # type: ignore[arg-type]  # None: ValueError
    except (ValueError, TypeError):
        return str(number)


class SandboxError(EngineError, RuntimeError):
    """The sandbox failed to start a run with its fences (the kit's trouble, not the
    submission's: the run did not happen as promised)."""


def ending(exit_code: Optional[int], signal_number: Optional[int], stderr: bytes) -> str:
    """How a run that the kit did not stop ended (one of :data:`ENDINGS`), from its exit
    code, the signal that ended it and the end of its stderr."""
    if signal_number == signal.SIGXCPU:
        return "cpu"
    if signal_number == signal.SIGXFSZ:
        return "file size"
    if exit_code != 0 and any(message in stderr[-4096:] for message in _MEMORY_MESSAGES):
        return "memory"
    if signal_number is not None:
        return "signal"
    return "exited"
