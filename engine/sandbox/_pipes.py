"""The output pipes and the first process of one run: read, drained, its end noticed.

Helpers of :meth:`Sandbox.run` that know nothing of the fences: the run's stdout and
stderr are read in chunks as they come (:func:`read_ready`), and what is left in them
once the run's first process has exited is taken without waiting for writers that live
on (:func:`drain`); that exit is noticed without reaping the process (:func:`exited`,
:func:`pidfd_of`), and the joining shell's word on the kit's private channel is read
once every writer is gone (:func:`confirmed`).
"""

import os
import select
from typing import Dict, List, Optional

from ._processes import is_running

# What the joining shell writes on its private channel once the run is in its cgroup
# (see Sandbox._command): the kit's news about itself never travels in the run's own
# streams or exit status, which the run controls.
JOINED = b"J"


def pidfd_of(pid: int) -> Optional[int]:
    """A pidfd of ``pid`` (readable when it exits), or None where there is none."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def read_ready(ready: List[int], descriptors: Dict[int, int], buffers: List[bytearray],
               room: int) -> int:
    """Read a chunk from each descriptor of ``ready`` that is one of the run's streams
    (``descriptors``: descriptor -> index of its buffer in ``buffers``; one that is at its
    end is dropped from it), stopping once more than ``room`` bytes were read; return how
    many were read."""
    read = 0
    for descriptor in ready:
        if descriptor not in descriptors:
            continue                    # the pidfd
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            del descriptors[descriptor]
            continue
        buffers[descriptors[descriptor]] += chunk
        read += len(chunk)
        if read > room:
            break
    return read


def exited(pid: int) -> bool:
    """True when ``pid`` has ended; it stays a zombie (WNOWAIT), so that its process
    group id cannot be reused before we kill the group."""
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, pid,
                             os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    # PyPy has no os.waitid: an exited, unreaped child is a zombie in /proc.
    return not is_running(pid)


def confirmed(channel: int) -> bool:
    """Whether the joining shell said, on the kit's pipe ``channel`` (whose writers are
    all gone), that the run is in its cgroup; closes ``channel``."""
    try:
        os.set_blocking(channel, False)
        try:
            return os.read(channel, 16) == JOINED
        except BlockingIOError:
            return False
    finally:
        os.close(channel)


def drain(descriptors: Dict[int, int], buffers: List[bytearray], room: int) -> None:
    """Take what is already in the pipes without waiting for writers that live on."""
    while descriptors and room > 0:
        ready, _, _ = select.select(list(descriptors), [], [], 0)
        if not ready:
            return
        for descriptor in ready:
            chunk = os.read(descriptor, min(1 << 16, room))
            if not chunk:
                del descriptors[descriptor]
                continue
            buffers[descriptors[descriptor]] += chunk
            room -= len(chunk)
