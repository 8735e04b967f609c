"""A thread that starts a slot's commands, fenced in at the thread level.

Some fences are properties of a thread that every process it starts inherits: the
Landlock domain (:mod:`engine.sandbox._landlock`), ``no_new_privs``, the CPU affinity. A
:class:`Launcher` is one long-lived thread per sandbox slot that takes those fences once,
at start, and then does nothing but ``subprocess.Popen`` on behalf of the slot (Python
starts the child with vfork from that thread, so it inherits them). The rest of the kit
is untouched: its other threads keep full access to read cases, write reports and clean
up.

Fencing the thread itself, rather than each child between fork and exec, keeps every
start a vfork (a preexec function would make Python fork the whole kit) and needs no
helper program.
"""

import ctypes
import os
import queue
import subprocess
import threading
from typing import Any, Dict, Optional, Tuple

from . import _landlock as landlock, _seccomp as seccomp
from ..errors import EngineError

PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWIPC = 0x08000000


class LauncherError(EngineError, OSError):
    """The launcher could not take a fence it was asked for."""


class Launcher:
    """Starts commands from one fenced thread.

    ``cpu`` (a core number, or None), ``landlock_rules`` (a dict of
    :func:`engine.sandbox._landlock.restrict_thread` arguments, or None) and
    ``use_seccomp`` (:mod:`engine.sandbox._seccomp`) are applied once, at start, in that
    order; ``no_new_privs`` always. Raises LauncherError when a fence cannot be applied.
    The seccomp filter is the denylist, or with ``allowlist`` the allowlist (with the
    calls of the kit's exec chain, :data:`engine.sandbox._seccomp.CHAIN`): a sandbox
    without bwrap keeps one launcher of each, and starts each command from the one whose
    filter it chose (:func:`engine.sandbox._seccomp.syscall_filter`), so that choosing
    costs no extra program start.

    With ``ipc_namespaces`` (the kit runs as root), every command starts in a System V
    IPC namespace of its own (shared memory, semaphores, message queues, POSIX message
    queues): the thread takes a new one (``unshare(CLONE_NEWIPC)``, which changes this
    thread only) at start and right after each start, so the namespace a command got is
    held by that command's processes alone, and is gone with its objects when they are.
    ``ipc_namespaces`` is False afterwards when the kernel refused (no CAP_SYS_ADMIN, as
    in most containers); then the seccomp filter refuses those IPC calls instead.
    """

    def __init__(self, landlock_rules: Optional[Dict[str, Any]] = None,
                 cpu: Optional[int] = None, name: str = "launcher",
                 use_seccomp: bool = False, ipc_namespaces: bool = False,
                 allowlist: bool = False) -> None:
        self._requests: "queue.Queue[Optional[Tuple[Dict[str, Any], _Answer]]]" = \
            queue.Queue()
        self._ready = threading.Event()
        self._failure: Optional[str] = None
        self.landlock_abi = 0
        self.ipc_namespaces = bool(ipc_namespaces)
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True,
                                        args=(landlock_rules, cpu, use_seccomp,
                                              allowlist))
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise LauncherError(self._failure)

    def _serve(self, landlock_rules: Optional[Dict[str, Any]], cpu: Optional[int],
               use_seccomp: bool, allowlist: bool) -> None:
        try:
            if cpu is not None and hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(0, {cpu})      # 0: this thread only
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
            if self.ipc_namespaces and libc.unshare(CLONE_NEWIPC) != 0:
                self.ipc_namespaces = False
            if landlock_rules is not None:
                self.landlock_abi = landlock.restrict_thread(**landlock_rules)
            if use_seccomp:
                # Last: it forbids sched_setaffinity, used above. In a namespace of its
                # own, a run may use IPC: nothing of it outlives the run.
                # The allowlist refuses IPC in any case (it is not on the list).
                seccomp.restrict_thread(deny_ipc=not self.ipc_namespaces,
                                        allowlist=allowlist)
        except (OSError, ValueError) as error:
            self._failure = str(error)
            self._ready.set()
            return
        self._ready.set()
        fresh = None if not self.ipc_namespaces else True
        while True:
            request = self._requests.get()
            if request is None:
                return
            arguments, answer = request
            try:
                if fresh is False and libc.unshare(CLONE_NEWIPC) != 0:
                    raise LauncherError(ctypes.get_errno(), "no new IPC namespace for "
                                        "the next run: unshare(CLONE_NEWIPC) failed")
                answer.append((subprocess.Popen(**arguments), None))
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                answer.append((None, error))
            finally:
                # The command has its namespace (Popen returns once it was exec'd):
                # leave it to the command, take a fresh one for the next.
                if self.ipc_namespaces:
                    fresh = libc.unshare(CLONE_NEWIPC) == 0
                answer.event.set()

    @property
    def native_id(self) -> Optional[int]:
        """The kernel's id of the launcher thread (None before it started)."""
        return self._thread.native_id

    def popen(self, **arguments: Any) -> "subprocess.Popen[Any]":
        """``subprocess.Popen(**arguments)`` started from the fenced thread; raises what
        Popen raises."""
        answer = _Answer()
        self._requests.put((arguments, answer))
        answer.event.wait()
        process, error = answer[0]
        if error is not None:
            raise error
        return process

    def close(self) -> None:
        """Let the thread end (it holds no process)."""
        self._requests.put(None)


class _Answer(list):                # of (process, error) pairs

    """A one-slot reply box with an event set when it is filled."""

    def __init__(self) -> None:
        super().__init__()
        self.event = threading.Event()
