"""Memory without cgroups: the OOM killer hits the submission, never the kit.

Without a memory cgroup per run (a container without cgroups), a class of processes each
under its memory rlimit can still exhaust the machine or the container, and the kernel's
OOM killer then picks a victim by size: often the kit (a Python of tens of MB among small
children), which left no results.json behind. So the kit asks to be the last choice
(:func:`protect_kit_from_oom`: oom_score_adj -1000, or as low as it may go), every run's
processes the first (+1000, by util-linux's ``choom`` in the exec chain:
:func:`oom_target_prefix`; under Landlock, where a run may not write /proc, by the kit:
:func:`raise_stopped_run`), and a run whose first process the OOM killer ended gets a
memory verdict (see :func:`oom_kills`).
"""

import os
import shutil
import signal
import subprocess
import time
from typing import List, Optional

from ._isolation import SAFE_PATH

OOM_KIT = -1000
OOM_RUN = 1000
_OOM_ADJ = "/proc/self/oom_score_adj"


def protect_kit_from_oom() -> Optional[int]:
    """Lower this process's ``oom_score_adj`` to -1000 where it may (root with
    CAP_SYS_RESOURCE; an ordinary user, or root in many containers, may not lower it);
    return the value in effect (None: no such file)."""
    try:
        descriptor = os.open(_OOM_ADJ, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        current = int(os.read(descriptor, 32).strip() or 0)
        if current > OOM_KIT:
            try:
                os.write(descriptor, f"{OOM_KIT}\n".encode())
                current = OOM_KIT
            except OSError:
                pass
        return current
    except ValueError:
        return None
    finally:
        os.close(descriptor)


_CHOOM: List[List[str]] = []


def oom_target_prefix() -> List[str]:
    """``[choom, "-n", "1000", "--"]`` when util-linux's choom can raise a command's
    oom_score_adj here (tried once), else [] (the run keeps the kit's score)."""
    if not _CHOOM:
        path = shutil.which("choom", path=SAFE_PATH)
        prefix = [path, "-n", str(OOM_RUN), "--"] if path else []
        if prefix:
            try:
                done = subprocess.run(prefix + ["true"], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      timeout=10)
                if done.returncode != 0:
                    prefix = []
            except (OSError, subprocess.SubprocessError):
                prefix = []
        _CHOOM.append(prefix)
    return list(_CHOOM[0])


def raise_stopped_run(pid: int, patience: float = 60.0) -> bool:
    """Wait until the run's first process ``pid`` has stopped itself (its exec chain
    starts with ``kill -STOP $$``, before anything of the run can fork), make it the OOM
    killer's first choice (+1000; everything it starts inherits it) and let it go on.
    Used under Landlock, where a run may not write its own oom_score_adj. Returns False
    when it neither stopped nor ended within ``patience`` seconds (the caller ends it:
    let go unstopped, it would stop at the gate later with nobody to continue it)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True                     # gone: nothing left to raise
        if state in (b"T", b"t"):
            break
        if time.monotonic() > deadline:
            return False
        time.sleep(0.0005)
    try:
        with open(f"/proc/{pid}/oom_score_adj", "w") as handle:
            handle.write(f"{OOM_RUN}\n")
    except OSError:
        pass
    try:
        os.kill(pid, signal.SIGCONT)
    except OSError:
        pass
    return True


def oom_kills() -> Optional[int]:
    """How many processes the kernel's OOM killer has killed since boot (``oom_kill`` of
    /proc/vmstat, Linux 4.13+; None when unknown)."""
    try:
        with open("/proc/vmstat", "rb") as handle:
            for line in handle:
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None
