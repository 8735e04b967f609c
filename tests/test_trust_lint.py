"""No path-based file call in the sandbox, the kit or the tournament outside untrusted_files.py.

A path the kit resolves (``open(path)``, ``os.path.isdir(path)``, ``Path.write_bytes``,
``shutil.copytree``, ``os.chmod(path)`` ...) follows every link on the way: inside a run,
build or seat folder, a submission may have planted one, and a live run may swap it
while we look. So every such call in engine/sandbox, engine/grading and engine/tournament
must go through the link-safe descriptor functions of engine/sandbox/untrusted_files.py,
except the calls listed in ALLOWED below: paths that are ours only, each with the reason
no submission can ever have written there. The scan is by syntax (ast), so it also
catches a call written tomorrow; test_a_planted_call_is_caught proves it does.
"""

import ast
from pathlib import Path

from golden import REPO

SCANNED = ("engine/sandbox", "engine/grading", "engine/tournament")
THE_ONE_MODULE = "engine/sandbox/untrusted_files.py"

# os.<name>(...) that resolve a path.
OS_CALLS = {"open", "stat", "lstat", "chmod", "chown", "lchown", "mkdir", "makedirs",
            "remove", "unlink", "rmdir", "removedirs", "rename", "renames", "replace",
            "listdir", "scandir", "walk", "fwalk", "symlink", "link", "readlink", "access",
            "utime", "truncate", "mkfifo", "mknod", "chdir", "statvfs", "chroot"}
OS_PATH_CALLS = {"exists", "lexists", "isdir", "isfile", "islink", "ismount", "getsize",
                 "getmtime", "getatime", "getctime", "realpath", "samefile"}
# Methods of pathlib.Path that resolve their path (names no other type here uses).
PATH_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "exists", "is_dir",
                "is_file", "is_symlink", "is_fifo", "is_socket", "mkdir", "iterdir", "glob",
                "rglob", "unlink", "rmdir", "touch", "chmod", "lchmod", "stat", "lstat",
                "symlink_to", "hardlink_to", "link_to", "samefile", "readlink", "resolve"}
# Modules whose every function works on paths.
PATH_MODULES = {"shutil", "tempfile", "glob", "filecmp", "fileinput"}
# ... but these only look up programs in the system folders of SAFE_PATH.
HARMLESS = {"shutil.which"}

# {(file, function): why no submission can have written the paths it resolves}. "*" is
# every function of the file. Keep it short: a new entry needs a reason of this kind.
OUTPUTS = "the instructor's arguments and output files (results, reports), outside every run"
SYSFS = "cgroupfs and /proc: the kernel's files, written by root only"
ALLOWED = {
    ("engine/sandbox/_cgroups.py", "*"): SYSFS,
    ("engine/sandbox/_processes.py", "*"): "/proc/PID/*, read-only kernel files",
    ("engine/grading/precompile.py", "*"):
        "never run by the kit: its text is the build's last step, run inside the sandbox",
    ("engine/sandbox/_leftovers.py", "remove_ipc_objects"):
        "/proc/sysvipc/*, the kernel's own lists",
    ("engine/sandbox/workspace.py", "_alive"): "/proc/PID, the kernel's own files",
    ("engine/sandbox/uid_leases.py", "*"):
        "root's private lease folder (/run/engine-grading-uids, 0700, checked with lstat): "
        "sandbox uids own nothing there",
    ("engine/sandbox/_landlock.py", "_add_path_rule"):
        "system folders and the run folder given to Landlock as rules, before any run",
    ("engine/sandbox/_isolation.py", "reference_paths"):
        "our own checkout: root's, outside every run",
    ("engine/sandbox/_bubblewrap.py", "bwrap_options"):
        "system folders and our hidden paths, for bwrap's masks: never inside a run",
    ("engine/sandbox/_landlock.py", "carve"):
        "system folders and our hidden paths, carved for Landlock's rules before any run",
    ("engine/sandbox/_landlock.py", "_carve_one"):
        "system folders and our hidden paths, carved for Landlock's rules before any run",
    ("engine/sandbox/_oom.py", "*"):
        "/proc/self, /proc/PID and /proc/vmstat: the kernel's own files",
    ("engine/sandbox/_slot.py", "Sandbox._setup"):
        "our checkout and the hidden paths we were given: never inside a run",
    ("engine/sandbox/workspace.py", "new_workspace"):
        "mkdtemp of the kit's own workspace and its builds/ folder, before any run",
    ("engine/sandbox/workspace.py", "slot_folder"):
        "mkdir of slot-N and slot-N/run in the kit's own workspace (0711, ours); mkdir "
        "never follows a link at its name",
    ("engine/sandbox/workspace.py", "remove_stale_workspaces"):
        "lists /dev/shm (or the temporary folder) for grade-PID-* of dead kits and lstats "
        "them; their contents go through the link-safe remover",
    ("engine/sandbox/workspace.py", "workspace_root"):
        "/dev/shm itself, the machine's: no run decides what it is",
    ("engine/grading/detect.py", "build"):
        "tempfile.mkdtemp in the kit's own builds folder (0711, ours): no run writes there",
    ("engine/grading/detect.py", "is_file"):
        "lstat of a file of a handed-in folder as the instructor gave it (the last "
        "component never followed)",
    ("engine/grading/detect.py", "_hint"):
        "the handed-in folders as the instructor gave them (read, never written)",
    ("engine/grading/detect.py", "detect"):
        "the handed-in folders as the instructor gave them (read, never written)",
    ("engine/grading/detect.py", "submission_root"):
        "the handed-in folder itself: a link there is followed only when it is ours",
    ("engine/grading/runner.py", "load_cases"):
        "the instructor's cases folder: read before any run; runs cannot see it (hidden)",
    ("engine/grading/runner.py", "find_submissions"):
        "the handed-in folders, listed before any submission runs",
    ("engine/grading/runner.py", "_subfolders"):
        "the handed-in folders, listed before any submission runs",
    ("engine/grading/runner.py", "_descended"):
        "the handed-in folders, listed before any submission runs",
    ("engine/grading/layouts.py", "_entries"):
        "the handed-in class folder as the instructor downloaded it, listed before any run",
    ("engine/grading/layouts.py", "_is_folder"):
        "lstat of an entry of the handed-in class folder (its last component never "
        "followed), before any run",
    ("engine/grading/layouts.py", "_stage"):
        "the kit's own staging folder (mkdtemp, 0700), filled before any run; the files "
        "themselves are written by write_new",
    ("engine/grading/case.py", "load_case"):
        "the instructor's case folders, read before any run (runs cannot see them)",
    ("engine/grading/case.py", "_optional_bytes"):
        "the instructor's case folders, read before any run (runs cannot see them)",
    ("engine/grading/case.py", "snapshot"):
        "a case folder of the instructor's, or our own reference run's temporary folder "
        "(no submission runs there)",
    ("engine/grading/case.py", "write_case"):
        "writes the case folders the instructor named (grade cases), no run involved",
    ("engine/grading/case.py", ""):
        "REPO = Path(__file__).resolve(): our own checkout",
    ("engine/grading/generate.py", "*"):
        "generating cases: our own programs in our own temporary folders",
    ("engine/grading/results.py", "*"):
        "the results file the instructor named (written atomically, never followed)",
    ("engine/grading/cli.py", "check_output_folders"): OUTPUTS,
    ("engine/grading/cli.py", "write_outputs"): OUTPUTS,
    ("engine/grading/cli.py", "_write_per_submission"): OUTPUTS,
    ("engine/grading/cli.py", "write_step_pages"):
        "the report's folder and a temporary folder of ours where our own stepper runs",
    ("engine/grading/cli.py", "run_grading"):
        "the --json and --cases paths the instructor named, before any run; the kit's "
        "own staging folder (mkdtemp), removed by shutil.rmtree (descriptor based) after "
        "every run is dead; runs never write there",
    ("engine/grading/cli.py", "_previous_results"):
        "the --json file the instructor named, read before any run (--resume)",
    ("engine/grading/cli.py", "_set_up_runner"):
        "the --cases folder the instructor named, resolved before any run so runs "
        "cannot see it",
    ("engine/grading/cli.py", "run_bundle"): "the --cases and --hidden folders named",
    ("engine/grading/cli.py", "grade_for_gradescope"):
        "Gradescope's /autograder/submission and source paths, made before any run",
    ("engine/grading/cli.py", "shadowing_engine"):
        "our own engine package and the PYTHONPATH entries, before any run",
    ("engine/grading/cli.py", "engine_inside"):
        "our own engine package and the PYTHONPATH entries, before any run",
    ("engine/grading/autograder.py", ""):
        "the bundle's files from our own checkout (module constants)",
    ("engine/grading/autograder.py", "_add_tree"):
        "zipping our own checkout and the instructor's cases into the bundle",
    ("engine/grading/autograder.py", "build_bundle"):
        "the bundle file the instructor named, written atomically",
    ("engine/grading/autograder.py", "gradescope_run"):
        "/autograder/results and source: root's, made before any run; runs cannot see "
        "them (hidden)",
    ("engine/grading/autograder.py", "_grade_one"):
        "/autograder/source/cases: root's, hidden from every run",
    ("engine/grading/autograder.py", "leaderboard_entries"):
        "a temporary folder of ours for the gauntlet's JSON (runs never see it)",
    ("engine/tournament/cli.py", "_earlier"):
        "the --json file the organiser named, before any entrant runs",
    ("engine/tournament/cli.py", "_resolve"):
        "resolve(): the entrant paths the organiser named, before any entrant runs",
    ("engine/tournament/cli.py", "run_sprt"):
        "the --json file and entrant paths the organiser named, before any entrant runs",
    ("engine/tournament/results.py", "*"): "the results file the organiser named",
    ("engine/tournament/entrants.py", "_subfolders"):
        "the handed-in entrant folders, listed before any entrant runs",
    ("engine/tournament/entrants.py", "expand"):
        "the handed-in entrant folders, listed before any entrant runs",
    ("engine/tournament/entrants.py", "_loose_files"):
        "the handed-in class folder of entrants, listed before any entrant runs",
    ("engine/tournament/entrants.py", "entrant_for"):
        "the entrant path the organiser named (or a ladder's unpacked upload, ours), looked "
        "at before that entrant runs",
    ("engine/tournament/entrants.py", "copy_engine"):
        "our own engine package copied into the kit's own ours/ folder (0700)",
    ("engine/tournament/director.py", "Director.admit"):
        "mkdir of ours/ in the kit's own workspace (0711, ours), before our players run",
    ("engine/tournament/director.py", "Director.__init__"):
        "mkdir of ours/ in the kit's own workspace, before any entrant runs",
}


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "?")
    return ".".join(reversed(parts))


def path_calls(source):
    """[(line, enclosing function as Class.method, call)] of the path-based file calls
    in the Python ``source``."""
    found = []
    scope = []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node):
            scope.append(node.name)
            self.generic_visit(node)
            scope.pop()

        visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

        def visit_Call(self, node):
            name = _dotted(node.func)
            parts = name.split(".")
            hit = (name == "open"
                   or (len(parts) == 3 and parts[:2] == ["os", "path"]
                       and parts[2] in OS_PATH_CALLS)
                   or (len(parts) == 2 and parts[0] == "os" and parts[1] in OS_CALLS)
                   or (parts[0] in PATH_MODULES and len(parts) > 1
                       and name not in HARMLESS)
                   or (isinstance(node.func, ast.Attribute) and parts[0] != "os"
                       and node.func.attr in PATH_METHODS))
            if hit:
                found.append((node.lineno, ".".join(scope), name))
            self.generic_visit(node)

    Visitor().visit(ast.parse(source))
    return found


def violations(root=REPO):
    """Every path-based call outside the one module and the allowlist, as text."""
    bad = []
    for folder in SCANNED:
        for path in sorted((Path(root) / folder).glob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative == THE_ONE_MODULE:
                continue
            for line, function, call in path_calls(path.read_text()):
                if (relative, "*") in ALLOWED or (relative, function) in ALLOWED:
                    continue
                bad.append(f"{relative}:{line}: {call}() in {function or 'module'}")
    return bad


def test_no_path_based_file_call_outside_the_one_module():
    assert violations() == [], (
        "resolve paths inside run, build and seat folders only through "
        "engine/sandbox/untrusted_files.py (or justify the path in ALLOWED)")


def test_every_allowed_entry_names_a_real_function_with_a_reason():
    for (relative, function), reason in ALLOWED.items():
        assert len(reason) > 20, (relative, function)
        calls = path_calls((REPO / relative).read_text())
        if function != "*":
            assert any(found == function for _, found, _ in calls), (
                f"{relative}: {function} makes no path call any more: drop it from ALLOWED")


def test_a_planted_call_is_caught(tmp_path):
    """The scan is no rubber stamp: each kind of call, planted in a module that the
    allowlist does not cover, is reported."""
    planted = {
        "open": "def f(p):\n    return open(p).read()\n",
        "isdir": "import os\ndef f(p):\n    return os.path.isdir(p)\n",
        "write_bytes": "def f(path):\n    path.write_bytes(b'x')\n",
        "chmod": "import os\ndef f(p):\n    os.chmod(p, 0o777)\n",
        "copytree": "import shutil\ndef f(a, b):\n    shutil.copytree(a, b)\n",
        "unlink": "import os\nclass Seat:\n    def g(self, p):\n        os.unlink(p)\n",
        "listdir": "import os\ndef f(p):\n    return os.listdir(p)\n",
    }
    for what, code in planted.items():
        for folder in SCANNED:
            (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / "engine/tournament/referee.py").write_text(code)
        found = violations(tmp_path)
        assert len(found) == 1 and found[0].startswith("engine/tournament/referee.py:"), (
            what, found)
    # ... and the one module itself is not scanned.
    (tmp_path / "engine/tournament/referee.py").write_text("x = 1\n")
    (tmp_path / THE_ONE_MODULE).write_text("import os\ndef f(p):\n    os.unlink(p)\n")
    assert violations(tmp_path) == []
