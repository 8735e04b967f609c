"""A seccomp filter for the calling thread: no sockets, no state outside the run, no
reaching into the kernel or other processes.

:func:`restrict_thread` installs, on the calling thread (every process it starts inherits
it, and no process can remove it), a classic-BPF filter under which these system calls
fail with an error (``SECCOMP_RET_ERRNO``: the program sees EPERM, or EAFNOSUPPORT for a
network socket, and can say so; nothing is killed silently):

* ``socket`` for every family: no TCP, UDP, raw or netlink sockets (no network; Landlock
  alone stops TCP only), and no AF_UNIX socket either, so no ``connect`` to a listening
  Unix socket by path (a daemon of root's, a user's D-Bus session bus) or in the abstract
  namespace. seccomp cannot read the address a ``connect`` names (it is behind a
  pointer), so the socket is refused where it is made, where the family is an argument
  the filter can read. ``socketpair(AF_UNIX, SOCK_STREAM or SOCK_SEQPACKET)`` stays
  allowed (a connected pair cannot be pointed elsewhere: Python's multiprocessing and
  asyncio need it); a datagram pair is refused (one could ``sendto`` any address), and
  ``connect`` and ``bind`` are refused outright;
* System V IPC (``shmget``, ``semget``, ``msgget`` and their operations) and POSIX
  message queues (``mq_open`` ...), unless the run has an IPC namespace of its own
  (``deny_ipc`` False): their objects outlive the process that made them, stay charged to
  the slot's memory, and would carry state to the next run in the slot or the next game;
* new namespaces: ``clone`` with a namespace flag (``CLONE_NEWUSER`` would give the run
  capabilities over a kernel surface of its own), ``unshare`` (but the launcher's
  ``CLONE_NEWIPC``) and ``setns``; ``clone3`` fails as "not implemented" (its flags are
  behind a pointer seccomp cannot read), so that glibc falls back to ``clone``;
* ``io_uring_*``: io_uring can open sockets and files without those calls;
* ``sched_setaffinity``: a run stays on the core the sandbox gave it;
* what no graded program needs and an attacker would like (the list DMOJ's judge and
  container runtimes refuse too): ``ptrace``, ``process_vm_readv``/``writev``,
  ``pidfd_getfd``, ``bpf``, ``perf_event_open``, ``userfaultfd``, the key ring
  (``keyctl``, ``add_key``, ``request_key``), mounting and namespaces (``mount``,
  ``umount2``, ``pivot_root``, ``chroot``, the new mount API, ``setns``, and ``unshare``
  but for ``unshare(CLONE_NEWIPC)``, which the slot's launcher needs and which does
  nothing without privileges), file handles (``open_by_handle_at``,
  ``name_to_handle_at``), ``fanotify_init``, modules, ``kexec``, ``reboot``, swap,
  setting clocks, host and domain names, ``acct``, ``syslog``, ``quotactl``, ``vhangup``,
  ``lookup_dcookie``, and on x86-64 ``iopl``, ``ioperm``, ``modify_ldt``.

Everything else is allowed: a denylist, not an allowlist. Without bwrap the filter is
the launcher thread's (:mod:`engine.grading.launcher`), taken once per slot, and every
command of the slot inherits it. Under bwrap, bwrap installs it (``--seccomp FD``, a
descriptor from :func:`program_fd` per run) right before it starts the command, after its
own set-up, which needs what the filter refuses (netlink sockets, ``clone`` with namespace
flags); the run has its own IPC namespace there, so IPC is not refused. Either way it
holds builds (``make``, ``g++``, ``javac``, a JVM) and runs of every language alike, and
without bwrap the kit's own exec chain (``sh``, ``setpriv``, ``prlimit``) too. An allowlist
tight enough to matter for CPython and native programs (DMOJ's per-runtime lists) would
refuse what ``make``, the compilers and the JVM need, so it needs a filter per command
(per run, in the exec chain), which this module does not do yet.

System calls of another ABI than the kit's own (32-bit calls on x86-64) are refused
outright, so that nothing slips past under another number. Supported: x86-64 and
AArch64; elsewhere :func:`supported` is False and the sandbox goes without.
"""

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
RET_KILL_PROCESS = 0x80000000
AF_UNIX = 1
SOCK_DGRAM = 2
SOCK_TYPE_MASK = 0xF
CLONE_NEWIPC = 0x08000000
# clone()'s namespace flags: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | \
    0x20000000 | 0x40000000

# System call numbers by architecture (x86-64: asm/unistd_64.h; AArch64:
# asm-generic/unistd.h).
_X86_64 = {
    "socket": 41, "socketpair": 53, "connect": 42, "bind": 49, "unshare": 272,
    "clone": 56, "clone3": 435,
    "sched_setaffinity": 203,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "ipc": (29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220,     # shm*, sem*, msg*
            240, 241, 242, 243, 244, 245),                       # mq_*
    "never": (101, 310, 311, 438, 321, 298, 323, 250, 248, 249,  # ptrace ... keys
              165, 166, 155, 161, 428, 429, 430, 431, 432, 433, 442, 308,  # mounts, setns
              304, 303, 300, 175, 313, 176, 246, 320, 169, 167, 168,  # handles ... swap
              164, 227, 305, 159, 170, 171, 163, 103, 179, 153, 212,  # clocks ... dcookie
              172, 173, 154),                                    # iopl, ioperm, modify_ldt
}
_AARCH64 = {
    "socket": 198, "socketpair": 199, "connect": 203, "bind": 200, "unshare": 97,
    "clone": 220, "clone3": 435,
    "sched_setaffinity": 122,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "ipc": (186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197,  # msg*, sem*, shm*
            180, 181, 182, 183, 184, 185, 418, 419, 420),        # mq_*, time64 variants
    "never": (117, 270, 271, 438, 280, 241, 282, 219, 217, 218,
              40, 39, 41, 51, 428, 429, 430, 431, 432, 433, 442, 268,
              265, 264, 262, 105, 273, 106, 104, 294, 142, 224, 225,
              170, 112, 266, 171, 161, 162, 89, 116, 60, 58, 18),
}
# (AUDIT_ARCH, numbers, x32 bit or 0)
_ARCHES = {
    "x86_64": (0xC000003E, _X86_64, 0x40000000),
    "aarch64": (0xC00000B7, _AARCH64, 0),
}

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_AND_K = 0x54
# seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (low word first, little end).
_ARG0, _ARG1 = 16, 24


def supported():
    """True when this machine's architecture has a filter here."""
    return platform.machine() in _ARCHES


def _ret(action):
    return [(_RET_K, 0, 0, action)]


def program(deny_ipc=True):
    """The filter as a list of (code, jt, jf, k) BPF instructions (see the module
    docstring); ``deny_ipc`` refuses System V IPC and POSIX message queues too."""
    arch, numbers, x32_bit = _ARCHES[platform.machine()]
    refuse = RET_ERRNO | errno.EPERM
    no_family = RET_ERRNO | errno.EAFNOSUPPORT
    code = [
        (_LD_W_ABS, 0, 0, 4),                 # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, RET_KILL_PROCESS),     # another ABI: nothing gets through
        (_LD_W_ABS, 0, 0, 0),                 # seccomp_data.nr
    ]
    if x32_bit:
        code += [(_JGE_K, 0, 1, x32_bit), (_RET_K, 0, 0, refuse)]
    # Each rule: the call's number, then the instructions run for it. Every path through
    # them ends in a return, so loading an argument there never disturbs the next rule.
    rules = [
        # socket: AF_UNIX refused as "not permitted", other families as unsupported.
        (numbers["socket"], [(_LD_W_ABS, 0, 0, _ARG0), (_JEQ_K, 0, 1, AF_UNIX)]
         + _ret(refuse) + _ret(no_family)),
        # socketpair: AF_UNIX only, and no datagram pair (it could sendto any address).
        (numbers["socketpair"], [(_LD_W_ABS, 0, 0, _ARG0), (_JEQ_K, 1, 0, AF_UNIX)]
         + _ret(no_family)
         + [(_LD_W_ABS, 0, 0, _ARG1), (_AND_K, 0, 0, SOCK_TYPE_MASK),
            (_JEQ_K, 0, 1, SOCK_DGRAM)] + _ret(refuse) + _ret(RET_ALLOW)),
        # clone: a process or a thread, never in new namespaces (a user namespace would
        # give the run capabilities over a kernel surface of its own).
        (numbers["clone"], [(_LD_W_ABS, 0, 0, _ARG0), (_AND_K, 0, 0, CLONE_NAMESPACES),
                            (_JEQ_K, 0, 1, 0)] + _ret(RET_ALLOW) + _ret(refuse)),
        # clone3: its flags are behind a pointer. "Not implemented" makes glibc fall
        # back to clone (as container runtimes' filters do).
        (numbers["clone3"], _ret(RET_ERRNO | errno.ENOSYS)),
        # unshare: a new IPC namespace only (the launcher's, per run).
        (numbers["unshare"], [(_LD_W_ABS, 0, 0, _ARG0), (_JEQ_K, 0, 1, CLONE_NEWIPC)]
         + _ret(RET_ALLOW) + _ret(refuse)),
    ]
    refused = [numbers["connect"], numbers["bind"], numbers["sched_setaffinity"],
               numbers["io_uring_setup"], numbers["io_uring_enter"],
               numbers["io_uring_register"]] + list(numbers["never"])
    if deny_ipc:
        refused += list(numbers["ipc"])
    for number, block in rules:
        code.append((_JEQ_K, 0, len(block), number))
        code += block
    for number in refused:
        code += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, refuse)]
    code += _ret(RET_ALLOW)
    return code


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def compiled(deny_ipc=True):
    """The filter as the kernel takes it: an array of ``struct sock_filter`` in this
    machine's byte order (what bwrap's ``--seccomp FD`` reads)."""
    return b"".join(struct.pack("=HBBI", *instruction)
                    for instruction in program(deny_ipc))


def program_fd(deny_ipc=True):
    """A new file descriptor (close-on-exec: pass it on with ``pass_fds``) reading the
    :func:`compiled` filter from its start, for one bwrap to read once. The caller
    closes it."""
    blob = compiled(deny_ipc)
    fd = os.memfd_create("seccomp", os.MFD_CLOEXEC) if hasattr(os, "memfd_create") \
        else _unlinked_file()
    try:
        os.write(fd, blob)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def _unlinked_file():
    import tempfile
    fd, path = tempfile.mkstemp(prefix="seccomp-")
    os.unlink(path)
    return fd


def restrict_thread(deny_ipc=True):
    """Install the filter on the calling thread (and set no_new_privs, which it needs).
    Raises OSError when the kernel refuses."""
    blob = compiled(deny_ipc)
    buffer = ctypes.create_string_buffer(blob, len(blob))
    fprog = _SockFprog(len(blob) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_SECCOMP)")
