"""Landlock (Linux 5.13+): restrict what the calling thread, and what it starts, may touch.

Landlock is an allow-list enforced by the kernel for unprivileged processes too, also
inside containers where bubblewrap cannot create namespaces. :func:`restrict_thread`
makes the CALLING THREAD (Landlock domains are per thread and inherited by every process
it starts) unable to

* read, write, create, remove or execute anything outside the folders it is given
  (``read_only``: read and execute beneath; ``writable``: everything beneath; ``files``:
  single files with the rights given);
* connect or bind TCP sockets (ABI 4+);
* send signals to, or connect to abstract Unix sockets of, processes outside the domain
  (ABI 6+): the kit and other students' runs.

It also sets ``no_new_privs`` on the thread (Landlock requires it; setuid programs then
do not elevate). The restriction can never be lifted: call it only from a thread that
does nothing but start sandboxed commands (:mod:`engine.sandbox._launcher`).

:func:`landlock_works` says whether Landlock can restrict a thread here (tried once), and
:func:`carve` turns "the system folders but our own files" into the allow-list Landlock
needs (bubblewrap masks those files instead).

Constants and structures follow include/uapi/linux/landlock.h; the three system calls have
the same numbers on every architecture (444-446).
"""

import ctypes
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..errors import EngineError
from ._isolation import SYSTEM_FOLDERS
from .untrusted_files import O_PATH

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS = 38

# Filesystem access rights, by the ABI version that introduced them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13          # ABI 2
TRUNCATE = 1 << 14       # ABI 3
IOCTL_DEV = 1 << 15      # ABI 5
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1,
                     4: (1 << 15) - 1, 5: (1 << 16) - 1}
# Rights that make sense on a single file (the kernel refuses the others there).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1          # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


READ_ONLY = EXECUTE | READ_FILE | READ_DIR
READ_WRITE = (1 << 16) - 1


class LandlockError(EngineError, OSError):
    """Landlock is missing, disabled, or refused the ruleset."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_LIBC: List[Any] = []


def _libc() -> Any:
    if not _LIBC:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        _LIBC.append(libc)
    return _LIBC[0]


def abi_version() -> int:
    """The Landlock ABI version of the running kernel (0 when it has none or it is off)."""
    try:
        libc = _libc()
        version = libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise LandlockError(number, f"landlock {what}: {os.strerror(number)}")
    return result


def restrict_thread(read_only: Iterable[str] = (), writable: Iterable[str] = (),
                    files: Iterable[Tuple[str, int]] = (), deny_tcp: bool = True,
                    scope: bool = True) -> int:
    """Restrict the calling thread for good (see the module docstring).

    ``read_only`` and ``writable`` are folders; ``files`` is a list of ``(path, rights)``
    for single files (rights from FILE_RIGHTS) or folders (any rights, e.g. READ_DIR
    alone: list it, read nothing in it). Paths that do not exist are skipped.
    Returns the ABI version used. Raises LandlockError when Landlock is unavailable.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockError(0, "landlock is not available in this kernel")
    handled = _FS_RIGHTS_BY_ABI.get(abi, _FS_RIGHTS_BY_ABI[5])
    attr = _RulesetAttr(handled_access_fs=handled,
                        handled_access_net=(NET_BIND_TCP | NET_CONNECT_TCP)
                        if deny_tcp and abi >= 4 else 0,
                        scoped=(SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL)
                        if scope and abi >= 6 else 0)
    # Older kernels reject a structure larger than they know: pass only their part.
    size = ctypes.sizeof(ctypes.c_uint64) * (3 if abi >= 6 else 2 if abi >= 4 else 1)
    libc = _libc()
    ruleset = _check(libc.syscall(ctypes.c_long(SYS_CREATE_RULESET), ctypes.byref(attr),
                                  ctypes.c_size_t(size), ctypes.c_uint32(0)),
                     "create_ruleset")
    try:
        rules = [(path, READ_ONLY) for path in read_only]
        rules += [(path, READ_WRITE) for path in writable]
        rules += list(files)
        for path, rights in rules:
            _add_path_rule(libc, ruleset, path, rights & handled)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_int(ruleset),
                            ctypes.c_uint32(0)), "restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _add_path_rule(libc: Any, ruleset: int, path: str, rights: int) -> None:
    try:
        descriptor = os.open(path, O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
            if not rights:
                return
        beneath = _PathBeneathAttr(allowed_access=rights, parent_fd=descriptor)
        _check(libc.syscall(ctypes.c_long(SYS_ADD_RULE), ctypes.c_int(ruleset),
                            ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(beneath),
                            ctypes.c_uint32(0)), f"add_rule {path}")
    finally:
        os.close(descriptor)


def probe() -> bool:
    """True when a thread can be restricted here: tried in a throw-away thread."""
    import threading
    outcome: List[bool] = []

    def attempt() -> None:
        try:
            restrict_thread(read_only=["/usr"])
            outcome.append(True)
        except Exception:  # noqa: BLE001 - any failure means "not here"
            outcome.append(False)
    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join()
    return bool(outcome and outcome[0])


_LANDLOCK_WORKS: List[bool] = []


def landlock_works() -> bool:
    """True when Landlock can restrict a thread here (tried once)."""
    if not _LANDLOCK_WORKS:
        _LANDLOCK_WORKS.append(probe())
    return _LANDLOCK_WORKS[0]


def carve(roots: Iterable[str], hidden: Iterable[str]) -> Tuple[List[str], List[str]]:
    """``(readable, listable)``: folders and files whose union is everything beneath
    ``roots`` except ``hidden``, and the folders on the way to a hidden path. Landlock can
    only allow, so a hidden folder inside an allowed one is left out by allowing its
    siblings instead; its ancestors stay listable (names only: Python's import system
    lists every folder on its path). Paths are resolved; missing roots are dropped."""
    resolved: List[str] = []
    for root in roots:
        if os.path.exists(root):
            real = os.path.realpath(root)
            if real not in resolved:
                resolved.append(real)
    real_hidden = [os.path.realpath(path) for path in hidden]
    readable: List[str] = []
    listable: List[str] = []
    for root in resolved:
        _carve_one(root, [path for path in real_hidden
                          if path == root or path.startswith(root + "/")],
                   readable, listable)
    return readable, listable


def _carve_one(root: str, hidden: Sequence[str], readable: List[str], listable: List[str]
               ) -> None:
    if not hidden:
        readable.append(root)
        return
    if root in hidden:
        return
    listable.append(root)
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return
    for name in names:
        child = os.path.join(root, name)
        inside = [path for path in hidden if path == child or path.startswith(child + "/")]
        if not inside:
            readable.append(child)
        elif child not in inside and os.path.isdir(child) and not os.path.islink(child):
            _carve_one(child, inside, readable, listable)


# Devices a program may need; everything else under /dev stays out of reach.
DEVICES = (("/dev/null", READ_FILE | WRITE_FILE), ("/dev/zero", READ_FILE),
           ("/dev/full", READ_FILE | WRITE_FILE), ("/dev/random", READ_FILE),
           ("/dev/urandom", READ_FILE))


def slot_rules(hidden: Iterable[str], shared: Optional[str], folder: str,
               join_files: Iterable[str] = ()) -> Dict[str, Any]:
    """The :func:`restrict_thread` arguments of a slot's launcher: read and execute the
    system folders but our own files (``hidden``) and the builds folder ``shared``,
    write the run ``folder``, use :data:`DEVICES`, list the folders on the way to a
    hidden path, and write the cgroup's ``join_files``."""
    read_only, listable = carve(SYSTEM_FOLDERS, hidden)
    if shared is not None:
        read_only.append(shared)
    files = list(DEVICES) + [(path, READ_DIR) for path in listable]
    # ">" in the joining shell opens with O_TRUNC: TRUNCATE is a right of its own.
    files += [(path, WRITE_FILE | TRUNCATE) for path in join_files]
    return {"read_only": read_only, "writable": [folder], "files": files}
