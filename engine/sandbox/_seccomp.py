"""A seccomp filter for the calling thread and everything it starts: no sockets, no state
outside the run, no reaching into the kernel or other processes.

:func:`restrict_thread` installs the filter on the calling thread (every process it
starts inherits it, and no process can remove it); :func:`program_fd` hands it to bwrap
instead (``--seccomp FD``), which installs it after its own set-up. A refused call fails
with an error (``SECCOMP_RET_ERRNO``: EPERM, or EAFNOSUPPORT for a network socket);
nothing is killed, and nothing is logged.

Two filters, both with the same rules for the calls judged by their arguments
(``socket``: none; ``socketpair``: Unix stream or seqpacket pairs only; ``clone``: no
namespace flag; ``clone3``: "not implemented"; ``unshare``: a new IPC namespace only):

* the denylist (:func:`program`): everything else is allowed but ``connect``, ``bind``,
  io_uring, ``sched_setaffinity``, the calls of ``never`` (ptrace, bpf, mounts, the key
  ring, modules, clocks, ...) and, with ``deny_ipc``, System V IPC and POSIX message
  queues;
* the allowlist (``allowlist=True``): only the calls of :data:`ALLOWED` get through
  (with ``chain``, those of :data:`CHAIN` too, which the kit's exec chain needs where the
  filter holds it: setpriv's).

:func:`syscall_filter` chooses per command: the allowlist for CPython, PyPy and a native
program of the run folder, the denylist for the rest (the JVM, builds, shells). Calls of
another ABI than the kit's own (32-bit calls on x86-64) are refused outright. Supported:
x86-64 and AArch64 (:func:`supported`; the allowlist: :func:`allowlist_supported`);
elsewhere the sandbox goes without a filter and says so.

Each rule's reason, which runs get which filter, and the measured cost: docs/sandbox.md.
"""

import ctypes
import errno
import os
import platform
import struct
from typing import Any, Dict, List, Sequence, Tuple

from .untrusted_files import read_regular

# One BPF instruction: (code, jt, jf, k).
_Instruction = Tuple[int, int, int, int]

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
_X86_64: Dict[str, Any] = {
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
_AARCH64: Dict[str, Any] = {
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

# The allowlist (:func:`program` with ``allowlist``): what CPython, PyPy and a C or C++
# program compiled with glibc call, by name (below, numbered per architecture): DMOJ's
# judge's base list for its native and Python runtimes (memory, signals, time, threads,
# processes, descriptors, reading files), the file calls a program makes in its own
# folder (its mounts fence the paths: bwrap), and what we saw CPython 3 and PyPy 3 call
# running tictactoe.py and a thread, a multiprocessing pool and a subprocess (strace -f).
ALLOWED = """read write readv writev pread64 pwrite64 preadv pwritev open openat close
close_range stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2
readlink readlinkat getdents getdents64 lseek mmap munmap mprotect mremap madvise brk msync
mincore rt_sigaction rt_sigprocmask rt_sigreturn rt_sigsuspend rt_sigtimedwait sigaltstack
ioctl fcntl dup dup2 dup3 pipe pipe2 getpid getppid gettid getuid geteuid getgid getegid
getgroups getresuid getresgid getpgrp getpgid getsid setpgid setsid clock_gettime
clock_getres clock_nanosleep nanosleep gettimeofday time times getrusage getrlimit
prlimit64 sysinfo uname futex set_robust_list get_robust_list set_tid_address rseq
arch_prctl prctl getrandom sched_yield sched_getaffinity sched_getparam sched_getscheduler
sched_get_priority_min sched_get_priority_max exit exit_group wait4 waitid kill tgkill
tkill fork vfork execve execveat poll ppoll select pselect6 epoll_create epoll_create1
epoll_ctl epoll_wait epoll_pwait eventfd eventfd2 timerfd_create timerfd_settime
timerfd_gettime timer_create timer_settime timer_gettime timer_delete alarm setitimer
getitimer getcwd chdir fchdir mkdir mkdirat unlink unlinkat rename renameat renameat2 rmdir
link linkat symlink symlinkat ftruncate truncate fsync fdatasync chmod fchmod fchmodat
umask utimensat flock fallocate sendfile copy_file_range restart_syscall membarrier
sendmsg recvmsg sendto recvfrom shutdown getsockopt setsockopt getsockname
getpeername""".split()
# Their numbers (x86-64: asm/unistd_64.h; AArch64: asm-generic/unistd.h, which has no
# open, stat, pipe, fork, poll... of old: its C library uses the *at and newer calls).
# socket, socketpair, clone, clone3 and unshare are not here: the rules decide them.
_ALLOWED_NUMBERS = {
    "x86_64": (
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
        23, 24, 25, 26, 27, 28, 32, 33, 35, 36, 37, 38, 39, 40, 44, 45, 46, 47, 48, 51,
        52, 54, 55, 57, 58, 59, 60, 61, 62, 63, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81,
        82, 83, 84, 86, 87, 88, 89, 90, 91, 95, 96, 97, 98, 99, 100, 102, 104, 107, 108,
        109, 110, 111, 112, 115, 118, 120, 121, 124, 128, 130, 131, 137, 138, 143, 145,
        146, 147, 157, 158, 186, 200, 201, 202, 204, 213, 217, 218, 219, 222, 223, 224,
        226, 228, 229, 230, 231, 232, 233, 234, 247, 257, 258, 262, 263, 264, 265, 266,
        267, 268, 269, 270, 271, 273, 274, 280, 281, 283, 284, 285, 286, 287, 290, 291,
        292, 293, 295, 296, 302, 316, 318, 322, 324, 326, 332, 334, 436, 439),
    "aarch64": (
        17, 19, 20, 21, 22, 23, 24, 25, 29, 32, 34, 35, 36, 37, 38, 43, 44, 45, 46, 47,
        48, 49, 50, 52, 53, 56, 57, 59, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72,
        73, 78, 79, 80, 82, 83, 85, 86, 87, 88, 93, 94, 95, 96, 98, 99, 100, 101, 102,
        103, 107, 108, 110, 111, 113, 114, 115, 120, 121, 123, 124, 125, 126, 128, 129,
        130, 131, 132, 133, 134, 135, 137, 139, 148, 150, 153, 154, 155, 156, 157, 158,
        160, 163, 165, 166, 167, 169, 172, 173, 174, 175, 176, 177, 178, 179, 204, 205,
        206, 207, 208, 209, 210, 211, 212, 214, 215, 216, 221, 222, 226, 227, 232, 233,
        260, 261, 276, 278, 281, 283, 285, 291, 293, 436, 439),
}

# What the kit's own exec chain calls beyond the allowlist, allowed too where the
# allowlist is the launcher thread's (no bwrap: :mod:`engine.sandbox._launcher`), since
# there it holds the chain as well as the program: ``setpriv`` (taking the run's uid and
# groups, reading and dropping capabilities). A process without capabilities (every run:
# a sandbox uid, or the kit's own unprivileged user, with no_new_privs) can only drop
# privileges with them, never gain any.
CHAIN = ("setresuid", "setresgid", "setgroups", "capget", "capset")
_CHAIN_NUMBERS = {"x86_64": (117, 119, 116, 125, 126), "aarch64": (147, 149, 159, 90, 91)}

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_AND_K = 0x54
# seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (low word first, little end).
_ARG0, _ARG1 = 16, 24


def supported() -> bool:
    """True when this machine's architecture has a filter here."""
    return platform.machine() in _ARCHES


def _ret(action: int) -> List[_Instruction]:
    return [(_RET_K, 0, 0, action)]


def allowlist_supported() -> bool:
    """True when this machine's architecture has the allowlist's numbers here."""
    return platform.machine() in _ALLOWED_NUMBERS


def _argument_rules(numbers: Dict[str, Any], refuse: int, no_family: int
                    ) -> List[Tuple[int, List[_Instruction]]]:
    """The calls the filter judges by their arguments (both filters): each call's number,
    then the instructions run for it (``refuse`` and ``no_family``: the errors returned)."""
    # Every path through a rule's instructions ends in a return, so loading an argument
    # there never disturbs the next rule.
    return [
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


def program(deny_ipc: bool = True, allowlist: bool = False, chain: bool = False
            ) -> List[_Instruction]:
    """The filter as a list of (code, jt, jf, k) BPF instructions (see the module
    docstring); ``deny_ipc`` refuses System V IPC and POSIX message queues too;
    ``allowlist`` refuses every call neither the rules nor :data:`ALLOWED` let through
    (EPERM), instead of allowing them; ``chain`` (with ``allowlist``) lets the calls of
    :data:`CHAIN` through too. Raises ValueError for an allowlist where
    :func:`allowlist_supported` is False."""
    if allowlist and not allowlist_supported():
        raise ValueError(f"no seccomp allowlist for {platform.machine()}")
    arch, numbers, x32_bit = _ARCHES[platform.machine()]
    refuse = RET_ERRNO | errno.EPERM
    no_family = RET_ERRNO | errno.EAFNOSUPPORT
    code: List[_Instruction] = [
        (_LD_W_ABS, 0, 0, 4),                 # seccomp_data.arch
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, RET_KILL_PROCESS),     # another ABI: nothing gets through
        (_LD_W_ABS, 0, 0, 0),                 # seccomp_data.nr
    ]
    if x32_bit:
        code += [(_JGE_K, 0, 1, x32_bit), (_RET_K, 0, 0, refuse)]
    rules = _argument_rules(numbers, refuse, no_family)
    refused = [numbers["connect"], numbers["bind"], numbers["sched_setaffinity"],
               numbers["io_uring_setup"], numbers["io_uring_enter"],
               numbers["io_uring_register"]] + list(numbers["never"])
    if deny_ipc:
        refused += list(numbers["ipc"])
    for number, block in rules:
        code.append((_JEQ_K, 0, len(block), number))
        code += block
    if allowlist:
        # Only what is listed gets through; everything else, refused or unknown, fails.
        listed = _ALLOWED_NUMBERS[platform.machine()]
        if chain:
            listed += _CHAIN_NUMBERS[platform.machine()]
        for number in listed:
            code += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, RET_ALLOW)]
        return code + _ret(refuse)
    for number in refused:
        code += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, refuse)]
    code += _ret(RET_ALLOW)
    return code


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def compiled(deny_ipc: bool = True, allowlist: bool = False, chain: bool = False) -> bytes:
    """The filter as the kernel takes it: an array of ``struct sock_filter`` in this
    machine's byte order (what bwrap's ``--seccomp FD`` reads)."""
    return b"".join(struct.pack("=HBBI", *instruction)
                    for instruction in program(deny_ipc, allowlist, chain))


def program_fd(deny_ipc: bool = True, allowlist: bool = False) -> int:
    """A new file descriptor (not inherited: pass it on with ``pass_fds``) reading the
    :func:`compiled` filter from its start to its end, for one bwrap to read once: a
    memfd, or where Python has none, a pipe's read end (the program, a few KB, fits in
    the pipe). The caller closes it."""
    blob = compiled(deny_ipc, allowlist)
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("seccomp", os.MFD_CLOEXEC)
        try:
            os.write(fd, blob)
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            os.close(fd)
            raise
        return fd
    reading, writing = os.pipe()
    try:
        os.write(writing, blob)
    except OSError:
        os.close(reading)
        raise
    finally:
        os.close(writing)
    return reading


def restrict_thread(deny_ipc: bool = True, allowlist: bool = False) -> None:
    """Install the filter on the calling thread (and set no_new_privs, which it needs):
    the denylist, or with ``allowlist`` the allowlist with the kit's exec chain's calls
    (:data:`CHAIN`). Raises OSError when the kernel refuses, ValueError where this
    machine has no allowlist."""
    blob = compiled(deny_ipc, allowlist, chain=allowlist)
    buffer = ctypes.create_string_buffer(blob, len(blob))
    fprog = _SockFprog(len(blob) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, "prctl(PR_SET_SECCOMP)")


# Interpreters whose runs get the seccomp allowlist (see syscall_filter).
_PYTHON = ("python3", "pypy3", "pypy")


def syscall_filter(argv: Sequence[str], folder_fd: int) -> str:
    """The seccomp filter a run of ``argv`` gets: "allowlist" for CPython and PyPy
    (``argv[0]`` named python3, python3.N, pypy3 or pypy) and for a native program of
    the run folder (``./NAME``, an ELF file, read through ``folder_fd`` without
    following links), "denylist" for everything else:
    the JVM (a wide, version-dependent set of calls), ``make``, compilers, shells and
    scripts, where an allowlist is too tight (see the module's docstring)."""
    if not argv or not allowlist_supported():
        return "denylist"
    name = os.path.basename(argv[0])
    if name in _PYTHON or (name.startswith("python3.") and name[8:].isdigit()):
        return "allowlist"
    if argv[0].startswith("./") and "/" not in argv[0][2:]:
        got = read_regular(argv[0][2:], dir_fd=folder_fd, cap=4)
        if got is not None and got[0] == b"\x7fELF":
            return "allowlist"
    return "denylist"
