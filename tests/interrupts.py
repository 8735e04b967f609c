"""Helpers of the tests that stop a long command (a tournament, a grading run) with
Ctrl-C or SIGTERM at a chosen moment: the moment is found from markers (a line the
command prints, a program running below it), never from a fixed sleep, so that a loaded
machine only makes the tests slower."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent

# Fault injection, in the command's own process: every aborted run takes SLOWER more
# seconds to clean up (its processes killed and reaped), as it does on a loaded machine
# or with a gigabyte of memory to free. With ``start(slow_setup=True)`` the tournament's
# director and the kit's runner, once their sandboxes are set up, say SET_UP on stderr
# and take SETUP_SLOWER more seconds to return; with ``slow_close=True`` their close
# says CLOSING first and takes CLOSE_SLOWER more seconds. A command that exits while an
# aborted run is still cleaning up, or with sandboxes it set up and did not close (or
# whose close was cut short), says OUTLIVED or LEFT_OPEN on stderr as it exits. Without
# the faults a command that does not wait for its threads after Ctrl-C may get away
# with it by luck of timing; with them, never.
SLOWER, SETUP_SLOWER, CLOSE_SLOWER = 0.5, 2.0, 2.0
OUTLIVED = "an aborted run outlived the command"
LEFT_OPEN = "sandboxes left open at exit"
SET_UP = "sandboxes set up"
CLOSING = "closing the sandboxes"
SLOWED = f"""
import atexit, runpy, sys, time
from engine.sandbox import _slot as sandbox
from engine.grading.runner import Runner
from engine.tournament.director import Director
kill = sandbox.Sandbox._kill_everything
cleaning, opened = [], []
def slowed(self, tree):
    if not self._aborted:
        return kill(self, tree)
    cleaning.append(self)
    try:
        time.sleep({SLOWER!r})
        return kill(self, tree)
    finally:
        cleaning.remove(self)
def say(text):
    sys.stderr.write(text + "\\n")
    sys.stderr.flush()
def slow_init(init):
    def slowed_init(self, *args, **named):
        init(self, *args, **named)
        opened.append(self)
        if SETUP_SECONDS:
            say({SET_UP!r})
            time.sleep(SETUP_SECONDS)
    return slowed_init
def slow_close(close):
    def slowed_close(self):
        if CLOSE_SECONDS:
            say({CLOSING!r})
            time.sleep(CLOSE_SECONDS)
        close(self)
        if any(self is other for other in opened):
            opened.remove(self)
    return slowed_close
def check():
    if cleaning:
        say({OUTLIVED!r})
    if opened:
        say({LEFT_OPEN!r})
atexit.register(check)
sandbox.Sandbox._kill_everything = slowed
for owner in (Runner, Director):
    owner.__init__ = slow_init(owner.__init__)
    owner.close = slow_close(owner.close)
runpy.run_module("engine", run_name="__main__", alter_sys=True)
"""


# What no interrupted command may print: a traceback of the main thread or of a worker
# (threading's excepthook starts with the second), our own last line of defence, nor
# the injected fault's reports (a command that did not wait for its threads, or whose
# close was cut short).
FORBIDDEN = ("Traceback", "Exception in thread", "internal error", OUTLIVED, LEFT_OPEN)


def descendants(pid: int) -> List[int]:
    """Pids below ``pid`` in the process tree (from /proc/PID/task/*/children)."""
    found, pending = [], [pid]
    while pending:
        parent = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", "rb") as handle:
                    children = [int(word) for word in handle.read().split()]
            except OSError:
                continue
            found += children
            pending += children
    return found


def command_line(pid: int) -> bytes:
    """The command line of ``pid``, words separated by NUL (empty when it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def start(args: Sequence[str], cwd: Optional[str] = None, slow_setup: bool = False,
          slow_close: bool = False) -> subprocess.Popen:
    """``python3 -m engine ARGS...`` running, its stdout and stderr piped (text), its
    aborted runs (and, if asked, its set-up and close) slowed down (see SLOWED)."""
    code = (SLOWED.replace("SETUP_SECONDS", repr(SETUP_SLOWER if slow_setup else 0.0))
            .replace("CLOSE_SECONDS", repr(CLOSE_SLOWER if slow_close else 0.0)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # A suite started in the background (`cmd &` without job control) ignores SIGINT, and
    # its children would inherit that: the command gets Python's usual Ctrl-C back.
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=lambda: signal.signal(
                                signal.SIGINT, signal.SIG_DFL))


def read_until(process: subprocess.Popen, marker: str) -> str:
    """The stderr lines of ``process`` up to and including the first one that contains
    ``marker`` (AssertionError, with what was read, when the command ends first)."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"the command ended before {marker!r}:\n" + "".join(seen))


def wait_for_program(process: subprocess.Popen, needle: bytes, timeout: float = 300) -> None:
    """Wait until a process below ``process`` has ``needle`` in its command line."""
    deadline = time.monotonic() + timeout      # (a loaded machine is slow to get there)
    while not any(needle in command_line(pid) for pid in descendants(process.pid)):
        assert process.poll() is None, "the command ended first"
        assert time.monotonic() < deadline, f"no {needle!r} ran"
        time.sleep(0.01)


def stop(process: subprocess.Popen, number: int, seen: str = "",
         again: Optional[int] = None) -> str:
    """Send signal ``number`` to ``process`` and return its whole stderr (``seen``: what
    was read of it before) once it ends, having checked that it stopped cleanly: exit
    130 and nothing of :data:`FORBIDDEN` on stderr. ``again``: a second signal, sent
    as the command closes its sandboxes (see SLOWED), which must not cut that short."""
    process.send_signal(number)
    if again is not None:
        seen += read_until(process, CLOSING)
        process.send_signal(again)
    _, rest = process.communicate(timeout=120)
    stderr = seen + rest
    assert process.returncode == 130, stderr
    for word in FORBIDDEN:
        assert word not in stderr, stderr
    return stderr
