"""The processes of ``ladder serve``, held to it: children that die with it, and records
that name a process for good (its pid and start time) for ``ladder stop``.

Standard library only (Linux's prctl through ctypes; elsewhere the children simply do
not die with their parent).
"""

import ctypes
import os
import signal
from typing import Any, Callable, Dict, List, NamedTuple, Optional

from ..sandbox import is_running, start_time

PR_SET_PDEATHSIG = 1
PR_GET_PDEATHSIG = 2


def _prctl() -> Optional[Any]:
    """libc's prctl, or None where there is none."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def arm(prctl: Optional[Any], parent: int, number: int) -> None:
    """Have the kernel send this process ``number`` when its parent ends, then make sure
    the parent is still ``parent``: had it died before the request, nothing would ever
    be sent, so this process ends now (by ``number``)."""
    if prctl is not None and prctl(PR_SET_PDEATHSIG, number, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        os.kill(os.getpid(), number)


def dying_with_me(number: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``number`` when this
    process ends, however it ends (SIGKILL included). libc is loaded here, before the
    fork: the child only calls it."""
    prctl, parent = _prctl(), os.getpid()

    def in_the_child() -> None:
        arm(prctl, parent, number)
    return in_the_child


def parent_death_signal() -> int:
    """The signal this process gets when its parent ends (0: none)."""
    prctl = _prctl()
    if prctl is None:
        return 0
    number = ctypes.c_int(0)
    if prctl(PR_GET_PDEATHSIG, ctypes.byref(number), 0, 0, 0) != 0:
        return 0
    return number.value


def rearm(parent: int, number: int) -> None:
    """Set the parent-death signal ``number`` again (0: nothing to do). The kernel
    forgets it when a process changes its user (the web process dropping root)."""
    if number:
        arm(_prctl(), parent, number)


class Named(NamedTuple):
    """One process of the server, as server.json names it."""
    role: str                   # "serve", "web" or "worker"
    pid: int
    started: Optional[int]      # clock ticks since boot; None in an older server.json

    def alive(self) -> bool:
        """Whether this very process still runs (a pid alone may be another's by now;
        a zombie has ended)."""
        return self.started is not None and start_time(self.pid) == self.started and \
            is_running(self.pid)


def named_in(state: Dict[str, Any]) -> List[Named]:
    """The processes server.json's ``state`` names: serve, its web process and its
    workers (those two with their start times in ``"starts"``, a map from pid)."""
    starts = state.get("starts") or {}
    found = [Named("serve", int(state["pid"]), state.get("started"))]
    if state.get("web"):
        found.append(Named("web", int(state["web"]), starts.get(str(state["web"]))))
    for pid in state.get("workers") or []:
        found.append(Named("worker", int(pid), starts.get(str(pid))))
    return found
