"""The sandbox: the one place that runs someone else's code (docs/sandbox.md).

Every feature that runs a student's program (``grade run``, the Gradescope autograder,
``tournament``, the ladder's workers) runs it through a :class:`Sandbox`, one slot: a run
folder of its own in the kit's workspace and the fences that can hold here.
:meth:`Sandbox.run` runs one command there and returns a :class:`RunResult`; when it
returns, every process of the run is dead, so what the run left in its folder can no
longer change, and it is read only through the link-safe functions of
:mod:`engine.sandbox.untrusted_files`.

The contract (what each isolation guarantees and what it does not, the rules every caller
keeps, the measured costs) is docs/sandbox.md. This module names everything the rest of
the engine may use; the fences themselves (cgroups, seccomp, Landlock, bubblewrap, the
launcher threads, the processes of a run) are private modules, and
tests/test_imports.py fails when a module outside the package imports one.
"""

from ._isolation import (FENCE_ORDER, SAFE_PATH, SYSCALL_FILTERS, IsolationError, exposure,
                      parse_isolation, refusal, syscall_filter_name, syscall_filters)
from ._processes import is_running, signal_confirmed, start_time
from ._results import ENDINGS, Limits, RunResult, SandboxError, slept_or_waited
from ._slot import Sandbox, close_all, usable_cores
from .uid_leases import LeaseError, next_uid
from .untrusted_files import (O_PATH, Bounds, Entry, TooLarge, copy_across, copy_tree,
                              hard_link, lstat_beneath, make_link, move_out, open_folder,
                              open_path, read_link, read_regular, read_untrusted_text,
                              regular_file_in, remove_beneath, remove_tree, walk, write_new)
from .workspace import WORKSPACE_PREFIX, new_workspace, populate, workspace_root

__all__ = [
    # The limits of a run, and the isolation chosen for it.
    "Limits", "IsolationError", "parse_isolation", "refusal", "exposure", "FENCE_ORDER",
    "SAFE_PATH",
    # A run and its result.
    "Sandbox", "RunResult", "SandboxError", "ENDINGS", "slept_or_waited", "close_all",
    "usable_cores",
    # The seccomp filter a run had, as the kit's listings name it.
    "SYSCALL_FILTERS", "syscall_filter_name", "syscall_filters",
    # Folders a submission controls: read, copied and removed without following a link.
    "Bounds", "TooLarge", "Entry", "O_PATH", "open_folder", "open_path", "read_regular",
    "read_untrusted_text", "regular_file_in", "lstat_beneath", "write_new", "remove_beneath",
    "remove_tree", "walk", "copy_tree", "copy_across", "move_out", "hard_link",
    "make_link", "read_link",
    # The workspace: builds and the slots' run folders.
    "new_workspace", "workspace_root", "WORKSPACE_PREFIX", "populate",
    # Blocks of sandbox uids no two live kits share.
    "next_uid", "LeaseError",
    # Processes a caller started itself (the ladder's), signalled without a pid race.
    "start_time", "is_running", "signal_confirmed",
]
