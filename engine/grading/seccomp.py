"""A seccomp filter for the calling thread: no network sockets, no leaving the core.

:func:`restrict_thread` installs, on the calling thread (every process it starts inherits
it, and no process can remove it), a classic-BPF filter that makes these system calls
fail with an error instead of running:

* ``socket`` and ``socketpair`` for any family but ``AF_UNIX``: no TCP, UDP, raw or
  netlink sockets, so no network at all (Landlock alone stops TCP only);
* ``io_uring_setup``: io_uring can open sockets without the ``socket`` call;
* ``sched_setaffinity``: a run stays on the core the sandbox gave it, so it cannot take
  a neighbour's core.

System calls of another ABI than the kit's own (32-bit calls on x86-64) are refused
outright, so that nothing slips past under another number. Supported: x86-64 and
AArch64; elsewhere :func:`supported` is False and the sandbox goes without.
"""

import ctypes
import errno
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
RET_KILL_PROCESS = 0x80000000
AF_UNIX = 1

# (AUDIT_ARCH, socket, socketpair, sched_setaffinity, io_uring_setup, x32 bit or 0)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 53, 203, 425, 0x40000000),
    "aarch64": (0xC00000B7, 198, 199, 122, 425, 0),
}

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06


def supported():
    """True when this machine's architecture has a filter here."""
    return platform.machine() in _ARCHES


def program():
    """The filter as a list of (code, jt, jf, k) BPF instructions."""
    arch, socket_nr, pair_nr, affinity_nr, uring_nr, x32_bit = _ARCHES[platform.machine()]
    refuse = RET_ERRNO | errno.EPERM
    code = [
        (_LD_W_ABS, 0, 0, 4),                 # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, RET_KILL_PROCESS),     # another ABI: nothing gets through
        (_LD_W_ABS, 0, 0, 0),                 # seccomp_data.nr
    ]
    if x32_bit:
        code += [(_JGE_K, 0, 1, x32_bit), (_RET_K, 0, 0, refuse)]
    code += [
        (_JEQ_K, 4, 0, socket_nr),
        (_JEQ_K, 3, 0, pair_nr),
        (_JEQ_K, 6, 0, affinity_nr),
        (_JEQ_K, 5, 0, uring_nr),
        (_RET_K, 0, 0, RET_ALLOW),
        # socket / socketpair: the family is the first argument (low word, little end).
        (_LD_W_ABS, 0, 0, 16),
        (_JEQ_K, 0, 1, AF_UNIX),
        (_RET_K, 0, 0, RET_ALLOW),
        (_RET_K, 0, 0, RET_ERRNO | errno.EAFNOSUPPORT),
        (_RET_K, 0, 0, refuse),               # sched_setaffinity, io_uring_setup
    ]
    return code


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def restrict_thread():
    """Install the filter on the calling thread (and set no_new_privs, which it needs).
    Raises OSError when the kernel refuses."""
    instructions = program()
    blob = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(blob, len(blob))
    fprog = _SockFprog(len(instructions), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_SECCOMP)")
