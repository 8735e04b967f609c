"""What a run may leave outside its folder, removed after it: IPC objects and files.

Under bwrap a run has its own IPC namespace, /tmp and /dev/shm, and as root without bwrap
a System V IPC namespace of its own (:mod:`engine.sandbox._launcher`): nothing of it
outlives it. Where neither holds, a run with a uid of its own can still leave System V
objects in our IPC namespace and files in the machine's shared temporary folders; the
slot removes them after every run, by the run's uid (:func:`remove_ipc_objects`,
:func:`sweep_temporary`).
"""

from .untrusted_files import remove_owned_by

# Shared folders a run without bwrap or Landlock may write into (/dev/mqueue: POSIX
# message queues, where mounted).
TEMPORARY_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
# The kernel's lists of System V IPC objects, with the call that removes one of each.
SYSV_IPC = (("/proc/sysvipc/shm", "shmctl"), ("/proc/sysvipc/sem", "semctl"),
            ("/proc/sysvipc/msg", "msgctl"))
IPC_RMID = 0


def sweep_temporary(uid: int) -> None:
    """Remove what ``uid`` left in the machine's shared temporary folders: the top-level
    entries it owns, through a descriptor of the folder, never following a link."""
    for folder in TEMPORARY_FOLDERS:
        remove_owned_by(folder, uid)


def remove_ipc_objects(uid: int) -> int:
    """Remove every System V shared memory segment, semaphore set and message queue of
    ``uid`` (owner or creator) in our IPC namespace; how many were removed."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    removed = 0
    for listing, call in SYSV_IPC:
        try:
            with open(listing) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        header = _SYSV_COLUMNS[listing]
        for row in rows:
            fields = row.split()
            try:
                identifier = int(fields[1])
                owners = {int(fields[header[0]]), int(fields[header[1]])}
            except (ValueError, IndexError):
                continue
            if uid in owners:
                if call == "semctl":
                    done = libc.semctl(identifier, 0, IPC_RMID, None)
                else:
                    done = getattr(libc, call)(identifier, IPC_RMID, None)
                removed += done == 0
    return removed


# Columns (after splitting) of the owner's and the creator's uid in each listing.
_SYSV_COLUMNS = {"/proc/sysvipc/shm": (7, 9), "/proc/sysvipc/sem": (4, 6),
                 "/proc/sysvipc/msg": (7, 9)}
