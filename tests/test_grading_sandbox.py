"""Hostile submissions cost a verdict, never the machine, our files or another grade.

Each test writes small submissions that attack in one way (docs/sandbox.md, "What each
fence stops"), grades them with small limits, and asserts the concrete fact: the secret
is in no output, the neighbour's verdict is unchanged, the next student is graded,
nothing is left running or lying in /tmp. Every test runs under each file fence this
machine offers ("rlimits": none; "landlock"; "bwrap"), with cgroups and a uid per run
joining each where they can run (as root). tests/test_grading_unprivileged.py repeats the
essentials with the kit running as an ordinary user.
"""

import json
import os
import secrets
import socket
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import (ISOLATIONS, grade, isolation_params, only_case, stake_raid_case,
                             submission)

from engine.grading import exports, report_html
from engine.grading.case import write_case
from engine.grading.generate import generate_cases
from engine.grading.runner import find_submissions
from engine.sandbox import Limits, Sandbox
from engine.grading.judges import load as load_assignment

# Every attack under each file fence every day; under rlimits alone: make test-all.
pytestmark = pytest.mark.parametrize("isolation", isolation_params())
FILE_FENCES = [name for name in ISOLATIONS if name != "rlimits"]


def run_hostile(tmp_path, isolation, code, files=None, **limits):
    folder = submission(tmp_path / "student", dict({"homework.py": code}, **(files or {})))
    start = time.monotonic()
    document = grade("stake_raid", [folder], [stake_raid_case()], isolation, **limits)
    return only_case(document), time.monotonic() - start, document


def marker():
    """A word unique to this test process and call, that sleep(1) accepts as a duration
    (``1000.<digits>``) and /proc/PID/cmdline shows."""
    return f"1000.{os.getpid()}{secrets.randbelow(10 ** 8):08d}"


def processes_with(word):
    """Pids of live processes whose command line holds ``word``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if word.encode() in handle.read():
                        with open(f"/proc/{entry}/stat", "rb") as stat:
                            if stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                                found.append(int(entry))
            except OSError:
                pass
    return found


def sleepers(word):
    """Pids of live ``sleep`` processes whose command line holds ``word``."""
    return [pid for pid in processes_with(word)
            if Path(f"/proc/{pid}/comm").read_text().strip() == "sleep"]


def everything_shown(document):
    """Every text the kit shows of a results document: JSON, CSV, HTML, Gradescope."""
    parts = [json.dumps(document), exports.csv_text(document), report_html.render(document)]
    parts += [json.dumps(exports.gradescope(document, entry))
              for entry in document["submissions"]]
    return "\n".join(parts)


@pytest.fixture
def secret(tmp_path):
    """A file only root may read (0600 in a 0700 folder), holding a random token."""
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    path = folder / "secret.txt"
    token = "SECRET-" + secrets.token_hex(16)
    path.write_text(token + "\n")
    path.chmod(0o600)
    return path, token


# --- ordinary behaviour still works ------------------------------------------------------

def test_a_well_behaved_submission_passes_and_the_fences_are_recorded(tmp_path, isolation):
    case, _, document = run_hostile(
        tmp_path, isolation, "open('output.txt', 'w').write('ok\\n')\n")
    assert case["passed"], case
    fences = document["fences"]
    assert fences == document["isolation"].split("+")
    assert ("bwrap" in fences) == (isolation == "bwrap")
    assert ("landlock" in fences) == (isolation == "landlock")
    assert "rlimits" in fences
    if os.geteuid() == 0:
        assert "uid" in fences


# --- reading what the kit reads back -----------------------------------------------------

SWAPPER = """
import os, sys, time
target = {target!r}
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        # A grandchild in its own session keeps turning the graded file into a link and
        # back, so that whoever lists a file may find a link when it opens it.
        while True:
            for name in ('output.txt', 'notes.txt'):
                try:
                    os.symlink(target, name + '.new')
                    os.replace(name + '.new', name)
                    with open(name + '.new', 'w') as plain:
                        plain.write('ok\n')
                    os.replace(name + '.new', name)
                except OSError:
                    pass
    os._exit(0)
open('output.txt', 'w').write('ok\\n')
{ending}
"""


@pytest.mark.parametrize("ending", ["time.sleep(1000)",
                                    "sys.stdout.write('x' * (3 << 20))",
                                    "time.sleep(0.5)"],
                         ids=["timeout", "output cap", "exits"])
def test_a_link_planted_by_a_live_child_is_never_read(tmp_path, isolation, secret, ending):
    path, token = secret
    code = SWAPPER.format(target=str(path), ending=ending)
    case, _, document = run_hostile(tmp_path, isolation, code, timeout=2, output_mb=2)
    assert not case["passed"]
    assert token not in everything_shown(document)


def test_a_link_to_dev_zero_does_not_exhaust_the_kit(tmp_path, isolation):
    code = SWAPPER.format(target="/dev/zero", ending="time.sleep(0.5)")
    case, _, document = run_hostile(tmp_path, isolation, code, timeout=2)
    assert not case["passed"]
    assert case["reason"].startswith("output.txt missing"), case["reason"]


def test_the_reference_and_the_cases_are_invisible(tmp_path, isolation):
    """A homework.py with no game logic: it runs our reference and copies the expected
    output from the cases folder named on the kit's command line."""
    if isolation == "rlimits":
        pytest.skip("no file fence: world-readable files are readable (see "
                    "test_without_a_file_fence_the_kit_says_so)")
    [case] = generate_cases(load_assignment("stake_raid"), 1, 5)
    cases_folder = tmp_path / "cases"
    write_case(case, cases_folder / case.name)
    code = f"""
import glob, os, shutil, subprocess
found = []
for attempt in (
        lambda: subprocess.run(['python3', {str(REPO / 'homework.py')!r}], timeout=20),
        lambda: subprocess.run(['python3', '-m', 'engine', 'stake_raid'], timeout=20,
                               env=dict(os.environ, PYTHONPATH={str(REPO)!r})),
        lambda: shutil.copy({str(cases_folder / case.name / 'expected' / 'output.txt')!r},
                            'output.txt'),
        lambda: found.append(open({str(REPO / 'engine' / 'search.py')!r}).read()[:40]),
        lambda: found.extend(glob.glob({str(REPO)!r} + '/*'))):
    try:
        attempt()
    except Exception as error:
        found.append(repr(error))
with open('notes.txt', 'w') as notes:
    notes.write('\\n'.join(map(str, found)))
"""
    folder = submission(tmp_path / "student", {"homework.py": code})
    document = grade("stake_raid", [folder], [case], isolation,
                     hidden=[str(cases_folder)], timeout=30)
    record = only_case(document)
    assert not record["passed"]
    assert record["reason"].startswith("output.txt missing"), record["reason"]
    shown = everything_shown(document)
    assert "def search" not in shown and "README.md" not in shown


def test_another_students_files_cannot_be_read(tmp_path, isolation):
    secret_folder = submission(tmp_path / "a", {
        "homework.py": "import time\ntime.sleep(1)\nopen('output.txt', 'w').write('ok\\n')\n",
        "secret.txt": "s3cret"})
    # Look for the other submission wherever the kit's folders may be, while it runs.
    code = ("import glob, os, time\n"
            "found = []\n"
            "deadline = time.time() + 2\n"
            "while time.time() < deadline and not found:\n"
            "    for pattern in ('/dev/shm/grade-*/**/secret.txt', '/tmp/grade-*/**/secret.txt',\n"
            "                    os.path.dirname(os.getcwd()) + '/../**/secret.txt'):\n"
            "        for path in glob.glob(pattern, recursive=True):\n"
            "            try:\n                found.append(open(path).read())\n"
            "            except OSError:\n                pass\n"
            "open('output.txt', 'w').write('leak\\n' if found else 'ok\\n')\n")
    spy = submission(tmp_path / "b", {"homework.py": code})
    document = grade("stake_raid", [secret_folder, spy], [stake_raid_case()], isolation)
    verdicts = [entry["cases"][0] for entry in document["submissions"]]
    assert [case["passed"] for case in verdicts] == [True, True], verdicts


def test_our_environment_is_not_visible(tmp_path, isolation, monkeypatch):
    monkeypatch.setenv("GRADING_TEST_SECRET", "hunter2")
    code = ("import os, glob\nleak = [k for k, v in os.environ.items() if 'hunter2' in v or "
            "k == 'GRADING_TEST_SECRET']\n"
            "for path in glob.glob('/proc/*/environ'):\n"
            "    try:\n        leak += ['proc'] if b'hunter2' in open(path, 'rb').read() else []\n"
            "    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n' if not leak else 'leak\\n')\n")
    case, _, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case


# --- writing where it should not --------------------------------------------------------

def test_writes_outside_the_run_folder_do_not_land(tmp_path, isolation):
    word = marker()
    outside = tmp_path / "outside.txt"
    targets = [str(outside)] + [f"{folder}/grade-leak-{word}"
                                for folder in ("/tmp", "/var/tmp", "/dev/shm")]
    code = ("for path in %r:\n"
            "    try:\n        open(path, 'w').write('pwned')\n"
            "    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n')\n") % (targets,)
    case, _, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case
    left = [path for path in targets if os.path.lexists(path)]
    for path in left:
        os.unlink(path)
    assert left == []


def test_a_case_cannot_change_the_build_the_next_case_shares(tmp_path, isolation):
    # Cases share the build's sub-folders and top-level files (links, no copies): each
    # tries to change them, and passes only if it finds them as the build left them.
    code = ("import os\n"
            "clean = open('data/seed.txt').read() == 'clean' and not os.path.exists('data/new')\n"
            "for attempt in (lambda: open('data/seed.txt', 'w').write('dirty'),\n"
            "                lambda: open('data/new', 'w').write('x'),\n"
            "                lambda: os.unlink('data/seed.txt'),\n"
            "                lambda: open('homework.py', 'a').write('# dirty')):\n"
            "    try:\n        attempt()\n    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n' if clean else 'dirty\\n')\n")
    folder = submission(tmp_path / "student", {"homework.py": code, "data/seed.txt": "clean"})
    document = grade("stake_raid", [folder],
                     [stake_raid_case("c1"), stake_raid_case("c2"), stake_raid_case("c3")],
                     isolation, jobs=1)
    cases = document["submissions"][0]["cases"]
    assert [case["passed"] for case in cases] == [True] * 3, cases
    assert (folder / "data" / "seed.txt").read_text() == "clean"


# --- processes -------------------------------------------------------------------------

def test_infinite_loop_is_stopped_by_cpu_time_and_its_cpu_is_counted(tmp_path, isolation):
    case, seconds, _ = run_hostile(tmp_path, isolation, "while True:\n    pass\n",
                                   timeout=1.5)
    assert not case["passed"]
    assert case["reason"] == "CPU time limit (1.5 s) exceeded", case["reason"]
    assert case["cpu"] >= 1.3


def test_busy_children_are_charged_to_the_case(tmp_path, isolation):
    """Four busy processes share the case's CPU limit: together they hit it."""
    code = ("import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
            "while True:\n    pass\n")
    case, _, _ = run_hostile(tmp_path, isolation, code, timeout=2)
    assert not case["passed"]
    assert case["reason"] == "CPU time limit (2 s) exceeded", case["reason"]
    assert case["cpu"] >= 1.8


def test_a_sleeping_run_meets_the_wall_clock_cap(tmp_path, isolation):
    case, seconds, _ = run_hostile(tmp_path, isolation, "import time\ntime.sleep(1000)\n",
                                   timeout=1)
    assert not case["passed"]
    assert case["reason"].startswith("slept or waited: "), case["reason"]
    assert "(cap 4 s of wall time" in case["reason"], case["reason"]
    assert case["cpu"] < 1
    assert seconds < 120      # the cap leaves out waiting: a loaded machine takes longer


def test_fork_bomb_costs_a_verdict_and_leaves_nothing(tmp_path, isolation):
    word = marker()
    code = ("import os, sys\n"
            "while True:\n"
            "    try:\n"
            f"        if os.fork() == 0:\n            os.execvp('sleep', ['sleep', '{word}'])\n"
            "    except OSError:\n"
            "        pass\n")
    case, seconds, _ = run_hostile(tmp_path, isolation, code, timeout=1.5)
    assert not case["passed"]
    assert seconds < 120      # stopped at its limits (a loaded machine takes longer)
    assert processes_with(word) == []


def test_children_left_running_are_killed(tmp_path, isolation):
    word = marker()
    # 'ok' only once the child is surely running, so a pass proves there was one to kill.
    code = ("import subprocess, time\n"
            f"child = subprocess.Popen(['sleep', '{word}'], start_new_session=True)\n"
            "time.sleep(0.3)\n"
            "open('output.txt', 'w').write('ok\\n' if child.poll() is None else 'no\\n')\n")
    case, seconds, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case
    assert processes_with(word) == []


def test_setuid_programs_do_not_elevate_or_outlive_the_run(tmp_path, isolation):
    word = marker()
    code = ("import ctypes, subprocess, time\n"
            "nnp = ctypes.CDLL(None).prctl(39, 0, 0, 0, 0)\n"   # PR_GET_NO_NEW_PRIVS
            f"su = subprocess.Popen(['su', '-c', 'sleep {word}', 'root'], "
            "stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, "
            "start_new_session=True)\n"
            "time.sleep(0.3)\n"
            "open('output.txt', 'w').write('ok\\n' if nnp == 1 else 'privileges\\n')\n")
    case, _, _ = run_hostile(tmp_path, isolation, code)
    assert case["passed"], case
    assert processes_with(word) == []


def test_the_network_is_out_of_reach(tmp_path, isolation):
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(5)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    tcp_port, udp_port = tcp.getsockname()[1], udp.getsockname()[1]
    code = ("import socket\n"
            "for attempt in (\n"
            f"        lambda: socket.create_connection(('127.0.0.1', {tcp_port}), 2),\n"
            "        lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"            .sendto(b'leak', ('127.0.0.1', {udp_port}))):\n"
            "    try:\n        attempt()\n    except OSError:\n        pass\n"
            "open('output.txt', 'w').write('ok\\n')\n")
    try:
        case, _, _ = run_hostile(tmp_path, isolation, code)
        with pytest.raises(BlockingIOError):
            tcp.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(100)
    finally:
        tcp.close()
        udp.close()
    assert case["passed"], case


# --- memory ------------------------------------------------------------------------------

def test_memory_hog_hits_the_memory_limit(tmp_path, isolation):
    code = "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n"
    case, _, _ = run_hostile(tmp_path, isolation, code, memory_mb=256)
    assert not case["passed"]
    assert case["reason"] == "memory limit (256 MB) exceeded"


def test_a_shared_mapping_counts_as_memory(tmp_path, isolation):
    code = ("import mmap\nm = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_SHARED)\n"
            "for i in range(0, 1 << 30, 4096):\n    m[i] = 1\n"
            "open('output.txt', 'w').write('ok\\n')\n")
    case, _, _ = run_hostile(tmp_path, isolation, code, memory_mb=256, timeout=10)
    assert not case["passed"]
    assert case["reason"] == "memory limit (256 MB) exceeded", case["reason"]


def test_filling_dev_shm_is_capped_and_leaves_nothing(tmp_path, isolation):
    word = marker()
    before = os.statvfs("/dev/shm")
    code = (f"written = 0\n"
            f"try:\n"
            f"    with open('/dev/shm/hog-{word}', 'wb') as hog:\n"
            f"        for _ in range(1024):\n"
            f"            hog.write(b'x' * (1 << 20))\n"
            f"            written += 1\n"
            f"except OSError:\n    pass\n"
            f"open('output.txt', 'w').write('ok\\n' if written <= 256 else 'hog\\n')\n")
    case, _, _ = run_hostile(tmp_path, isolation, code, memory_mb=256, timeout=10)
    assert not os.path.exists(f"/dev/shm/hog-{word}")
    after = os.statvfs("/dev/shm")
    assert (before.f_bavail - after.f_bavail) * after.f_frsize < 64 << 20
    # Stopped at the limit, by the cgroup (a memory verdict) or by the tmpfs/Landlock.
    assert case["passed"] or case["reason"] == "memory limit (256 MB) exceeded", case


# --- what a student folder may hold -----------------------------------------------------

@pytest.fixture
def deep_cleanup(tmp_path):
    """Remove tmp_path with the kit's own remover: pytest's recursive one cannot take a
    tree 3000 folders deep."""
    yield
    from engine.sandbox.untrusted_files import remove_tree
    remove_tree(str(tmp_path))


def deep_tree(folder, depth):
    os.makedirs(folder, exist_ok=True)
    descriptor = os.open(folder, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=descriptor)
        inner = os.open("d", os.O_RDONLY, dir_fd=descriptor)
        os.close(descriptor)
        descriptor = inner
    os.close(descriptor)


def test_one_students_folder_never_stops_the_class(tmp_path, isolation, deep_cleanup):
    """A tree deeper than Python's recursion, a FIFO and a link to /proc/self/mem in
    the submissions; the students around them are graded as usual."""
    good = "open('output.txt', 'w').write('ok\\n')\n"
    submission(tmp_path / "class" / "alice", {"homework.py": good})
    deep = submission(tmp_path / "class" / "bob", {"homework.py": good})
    deep_tree(deep / "tree", 3000)
    odd = submission(tmp_path / "class" / "carol", {"homework.py": good})
    os.mkfifo(odd / "pipe")
    (odd / "mem").symlink_to("/proc/self/mem")
    (odd / "zero").symlink_to("/dev/zero")
    submission(tmp_path / "class" / "dave", {"homework.py": good})
    students = find_submissions(load_assignment("stake_raid"), [str(tmp_path / "class")])
    document = grade("stake_raid", students, [stake_raid_case()], isolation)
    verdicts = {Path(entry["submission"]).name: entry["cases"][0]
                for entry in document["submissions"]}
    assert sorted(verdicts) == ["alice", "bob", "carol", "dave"]
    assert verdicts["alice"]["passed"] and verdicts["carol"]["passed"]
    assert verdicts["dave"]["passed"]
    assert verdicts["bob"]["reason"].startswith(
        "submission not graded: folders nested more than 32 deep"), verdicts["bob"]


def test_a_makefile_linked_to_proc_self_mem_is_no_makefile(tmp_path, isolation):
    folder = submission(tmp_path / "student", {"tictactoe.py": "print('x')\n"})
    (folder / "GNUmakefile").symlink_to("/proc/self/mem")
    os.mkfifo(folder / "Makefile")
    cases = [case for case in generate_cases(load_assignment("tictactoe"), 1, 1)]
    document = grade("tictactoe", [folder], cases, isolation)
    entry = document["submissions"][0]
    assert entry["kind"] == "python"
    assert len(entry["cases"]) == 1


def test_what_a_run_leaves_behind_is_bounded(tmp_path, isolation):
    """A run that leaves a tree 3000 deep and 40 sparse 64 MB files: its verdict says so,
    the next case runs in a clean folder, the workspace goes at the end."""
    code = ("import os, sys\n"
            "if os.path.exists('input.txt') and open('input.txt').read() == 'anything\\n':\n"
            "    d = os.open('.', os.O_RDONLY)\n"
            "    for _ in range(3000):\n"
            "        os.mkdir('d', dir_fd=d)\n"
            "        n = os.open('d', os.O_RDONLY, dir_fd=d)\n"
            "        os.close(d)\n"
            "        d = n\n"
            "for i in range(40):\n"
            "    with open('sparse%d' % i, 'wb') as f:\n"
            "        f.truncate((64 << 20) - 1)\n"
            "open('output.txt', 'w').write('ok\\n')\n")
    folder = submission(tmp_path / "student", {"homework.py": code})
    second = stake_raid_case("c2")._replace(files={"input.txt": b"other\n"})
    document = grade("stake_raid", [folder], [stake_raid_case("c1"), second], isolation,
                     jobs=1)
    first, again = document["submissions"][0]["cases"]
    assert first["reason"].startswith("left too much behind in its folder to grade: "
                                      "folders nested more than 32 deep"), first
    assert again["passed"], again
    assert not [name for name in os.listdir("/dev/shm")
                if name.startswith(f"grade-{os.getpid()}-")]


# --- the kit's own costs ------------------------------------------------------------------

def test_a_huge_visited_file_is_too_large_to_diagnose(tmp_path, isolation):
    """64 MB written in a blink must not cost the kit gigabytes and minutes."""
    code = ("import sys\n"
            "open(sys.argv[2], 'wb').write(b'x-------- 1\\n' * ((64 << 20) // 12))\n"
            "print(sys.argv[1])\n")
    folder = submission(tmp_path / "student", {"tictactoe.py": code})
    cases = generate_cases(load_assignment("tictactoe"), 1, 1)
    document = grade("tictactoe", [folder], cases, isolation, file_mb=128, timeout=20)
    record = only_case(document)
    assert record["reason"].startswith("visited file too large to diagnose"), record


def test_kit_memory_stays_bounded_whatever_the_runs_leave(tmp_path, isolation):
    """Sparse files and a huge visited file: the kit's own peak memory stays small."""
    sparse = ("import os, sys\n"
              "for i in range(40):\n"
              "    with open('sparse%d' % i, 'wb') as f:\n"
              "        f.truncate((64 << 20) - 1)\n"
              "open(sys.argv[2], 'wb').write(b'x-------- 1\\n' * ((60 << 20) // 12))\n"
              "print(sys.argv[1])\n")
    submission(tmp_path / "class" / "a", {"tictactoe.py": sparse})
    cases = tmp_path / "cases"
    for case in generate_cases(load_assignment("tictactoe"), 2, 1):
        write_case(case, cases / case.name)
    # VmHWM, not ru_maxrss: after a vfork the exec'd process inherits its parent's
    # peak in ru_maxrss (under xdist, the test worker's few hundred MB).
    script = ("import sys\nfrom engine.grading.cli import main\n"
              "code = main(sys.argv[1:])\n"
              "hwm = [line for line in open('/proc/self/status') if line.startswith('VmHWM')]\n"
              "print('PEAK', int(hwm[0].split()[1]) // 1024)\n"
              "sys.exit(code)\n")
    completed = subprocess.run(
        [sys.executable, "-c", script, "run", "tictactoe", str(tmp_path / "class"),
         "--cases", str(cases), "--isolation", isolation, "--jobs", "2", "--quiet"],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert completed.returncode == 0, completed.stderr
    peak = int(completed.stdout.rsplit("PEAK", 1)[1])
    # 52 MB measured; splitting the outputs into lines once cost 445 MB.
    assert peak < 200, completed.stdout


# --- what the kit shows and writes ---------------------------------------------------------

def test_escape_sequences_are_shown_never_obeyed(tmp_path, isolation):
    evil = "\x1b[2J\x1b[H3/3 cases passed\x1b[8m"
    folder = submission(tmp_path / "class" / f"eve{evil}", {
        "homework.py": f"import sys\nsys.stderr.write({evil!r} * 3)\nprint({evil!r})\n"})
    json_path = tmp_path / "out" / "results.json"
    json_path.parent.mkdir()
    completed = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", str(folder),
         "--cases", str(write_stake_raid_case(tmp_path)), "--isolation", isolation,
         "--json", str(json_path), "--csv", str(tmp_path / "out" / "g.csv"),
         "--report", str(tmp_path / "out" / "r.html")],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert completed.returncode == 0, completed.stderr
    for text in (completed.stdout, completed.stderr,
                 (tmp_path / "out" / "g.csv").read_text(),
                 (tmp_path / "out" / "r.html").read_text()):
        assert "\x1b" not in text
    assert "\\x1b[2J" in completed.stdout
    assert "0/1 cases passed" in completed.stdout


def write_stake_raid_case(tmp_path):
    folder = tmp_path / "cases"
    write_case(stake_raid_case(), folder / "c1")
    return folder


def test_the_kits_own_files_never_follow_a_planted_link(tmp_path, isolation):
    """A world-writable output folder: links wait at the name the results go to and at
    every temporary name an old kit would have used."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    victim.chmod(0o600)
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(0o777)
    (out / "results.json").symlink_to(victim)
    start = os.getpid()
    for pid in range(start, start + 3000):
        (out / f".results.json.{pid}.tmp").symlink_to(victim)
    completed = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid",
         str(submission(tmp_path / "s",
                        {"homework.py": "open('output.txt','w').write('ok\\n')\n"})),
         "--cases", str(write_stake_raid_case(tmp_path)), "--isolation", isolation,
         "--json", str(out / "results.json"), "--quiet"],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert victim.read_text() == "precious\n"
    assert not (out / "results.json").is_symlink()
    assert json.loads((out / "results.json").read_text())["program"] == "stake_raid"


def test_a_failure_of_the_kit_is_that_cases_verdict(tmp_path, isolation, monkeypatch):
    from engine.grading import runner as runner_module
    real = runner_module.diagnose

    def fragile(program, case, outcome, lenient=False):
        if outcome.files.get("output.txt") == b"boom\n":
            raise RuntimeError("diagnosis exploded")
        return real(program, case, outcome, lenient)
    monkeypatch.setattr(runner_module, "diagnose", fragile)
    boom = submission(tmp_path / "class" / "a", {
        "homework.py": "open('output.txt', 'w').write('boom\\n')\n"})
    fine = submission(tmp_path / "class" / "b", {
        "homework.py": "open('output.txt', 'w').write('ok\\n')\n"})
    document = grade("stake_raid", [boom, fine], [stake_raid_case()], isolation)
    first, second = (entry["cases"][0] for entry in document["submissions"])
    assert first["reason"] == "not graded: RuntimeError: diagnosis exploded"
    assert second["passed"]


# --- one sandbox, directly -----------------------------------------------------------------

def test_after_abort_no_command_runs(tmp_path, isolation):
    """abort() (Ctrl-C) may come while a slot is between two runs: the next run must not
    start its command, let alone wait for its timeout."""
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    try:
        word = marker()
        sandbox.abort()
        start = time.monotonic()
        result = sandbox.run(["sleep", word])
        assert result.ended == "aborted" and time.monotonic() - start < 60
        assert processes_with(word) == []
    finally:
        sandbox.close()


def test_user_time_is_told_apart_from_system_time(tmp_path, isolation):
    """A tournament charges user CPU only: a run spending its time in system calls
    (reading /dev/zero) has little of it; a busy loop has nearly all, children included."""
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    try:
        sandbox.clear()
        sandbox.give()
        system = sandbox.run(["python3", "-c", (
            "import os, time\nf = os.open('/dev/zero', os.O_RDONLY)\n"
            "end = time.process_time() + 0.6\n"
            "while time.process_time() < end:\n    os.read(f, 1 << 20)\n")])
        # Busy for 0.5 s of its own CPU time (a fixed count of steps takes a slow or
        # throttled machine longer), the clock read every 100,000 steps.
        user = sandbox.run(["sh", "-c", (
            "python3 -c 'import time\nend = time.process_time() + 0.5\n"
            "while time.process_time() < end:\n    for i in range(100_000): pass' & wait")])
    finally:
        sandbox.close()
    assert system.ended == user.ended == "exited", (system, user)
    assert system.cpu >= 0.5 and system.user < system.cpu / 3, system
    assert user.cpu >= 0.3 and user.user >= 0.9 * user.cpu - 0.05, user


def test_a_runs_own_wall_cap_replaces_the_limits_one(tmp_path, isolation):
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    try:
        sandbox.clear()
        sandbox.give()
        start = time.monotonic()
        result = sandbox.run(["sleep", "600"], timeout=30, wall=1.0)
    finally:
        sandbox.close()
    # Stopped at its 1 s cap, far before the 600 s it sleeps (a loaded machine is slower).
    assert result.ended == "timeout" and time.monotonic() - start < 60, result
    assert result.describe(sandbox.limits, 30, 1.0).startswith("slept or waited: "), result
    assert "(cap 1 s of wall time" in result.describe(sandbox.limits, 30, 1.0), result


def test_a_neighbour_burning_every_core_does_not_slow_a_case_down(tmp_path, isolation):
    """Judged by CPU time on a core of its own: the innocent case needs about 1 s of CPU
    and passes with a 3 s limit while its neighbour runs eight busy processes."""
    hog = submission(tmp_path / "a", {"homework.py": (
        "import os\nfor _ in range(7):\n    if os.fork() == 0:\n        break\n"
        "try:\n    os.sched_setaffinity(0, set(range(os.cpu_count())))\n"
        "except OSError:\n    pass\nwhile True:\n    pass\n")})
    innocent = submission(tmp_path / "b", {"homework.py": (
        "total = 0\nfor i in range(12_000_000):\n    total += i\n"
        "open('output.txt', 'w').write('ok\\n')\n")})
    document = grade("stake_raid", [hog, innocent], [stake_raid_case()], isolation,
                     timeout=3, jobs=2)
    hog_case, innocent_case = (entry["cases"][0] for entry in document["submissions"])
    assert hog_case["reason"] == "CPU time limit (3 s) exceeded", hog_case
    assert innocent_case["passed"], innocent_case
    assert innocent_case["cpu"] < 3


def test_abort_ends_a_run_by_sigabrt_under_every_isolation(tmp_path, isolation):
    # The command must not be its pid namespace's first process: that one ignores the
    # signals it sends itself, and glibc's abort() then ends it by SIGSEGV instead, a
    # segmentation fault in the student's report under bwrap only.
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    try:
        sandbox.clear()
        sandbox.give()
        result = sandbox.run(["python3", "-c", "import os; os.abort()"])
        assert (result.ended, result.signal) == ("signal", signal.SIGABRT), result
        result = sandbox.run(["python3", "-c", "import os; os.kill(os.getpid(), 15)"])
        assert (result.ended, result.signal) == ("signal", signal.SIGTERM), result
    finally:
        sandbox.close()


def test_a_crash_is_judged_by_diagnose_not_as_a_limit(tmp_path, isolation):
    case, _, _ = run_hostile(tmp_path, isolation, "import os\nos.abort()\n")
    assert not case["passed"]
    assert case["ended"] == "signal"


def test_every_process_of_a_run_is_in_the_slot_group_of_every_controller(tmp_path, isolation):
    """The joining shell writes 0 (itself) into each hierarchy's ``tasks`` file, the cheap
    per-thread move (writing a pid into cgroup.procs waits for an RCU grace period on
    every run): a run's processes, children included, are in the slot's group of every
    controller all the same."""
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    if sandbox.group is None or getattr(sandbox.group, "version", 1) != 1:
        sandbox.close()
        pytest.skip("no cgroup v1 hierarchies here")
    word = marker()
    folders = dict(sandbox.group.folders)
    try:
        assert all(os.path.basename(path) == "tasks" for path in sandbox.group.join_files)
        sandbox.clear()
        sandbox.give()
        ended = []
        runner = threading.Thread(target=lambda: ended.append(sandbox.run(
            ["sh", "-c", f"sleep {word} & sleep {word}"], wall=60)))
        runner.start()
        deadline = time.monotonic() + 30
        while len(sleepers(word)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        found = processes_with(word)    # the sleepers, their shell (and bwrap's two)
        memberships = {pid: Path(f"/proc/{pid}/cgroup").read_text() for pid in found}
        sandbox.abort()
        runner.join()
    finally:
        sandbox.close()
    assert len(found) >= 3, found
    for pid, text in memberships.items():
        lines = {controller: path for _, controllers, path in
                 (line.split(":", 2) for line in text.splitlines())
                 for controller in controllers.split(",")}
        for controller, folder in folders.items():
            assert lines[controller].endswith("/" + os.path.basename(folder)), (pid, text)


# --- the kit's word about itself never travels in-band -------------------------------------

# What the sandbox used to take for its own failure: an exit status and a stderr line,
# both the run's to choose.
OLD_FAILURE_LINE = "grading sandbox: cannot join the run's cgroup"


def test_a_run_cannot_pass_for_the_sandboxs_own_failure(tmp_path, isolation):
    """A submission printing the sandbox's failure line and exiting 125 gets its own
    verdict: its case is graded (not "not graded"), in the kit's words."""
    code = (f"import sys\nsys.stderr.write({OLD_FAILURE_LINE!r} + '\\n')\n"
            "raise SystemExit(125)\n")
    case, _, _ = run_hostile(tmp_path, isolation, code)
    assert not case["passed"]
    assert not case["reason"].startswith("not graded"), case
    assert case["ended"] == "exited", case
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    try:
        sandbox.clear()
        sandbox.give()
        result = sandbox.run(["sh", "-c", f"echo \"{OLD_FAILURE_LINE}\" >&2; exit 125"])
    finally:
        sandbox.close()
    assert (result.ended, result.exit) == ("exited", 125), result


def test_a_run_that_cannot_join_its_cgroup_is_the_kits_failure(tmp_path, isolation):
    """The news comes on the joining shell's own pipe: a join that fails (here: a join
    file that does not exist) raises SandboxError, whatever the run printed."""
    from engine.sandbox import SandboxError
    sandbox = Sandbox(Limits(timeout=30), isolation=isolation)
    if sandbox.group is None:
        sandbox.close()
        pytest.skip("no cgroup here: no joining shell")
    try:
        sandbox.clear()
        sandbox.give()
        assert sandbox.run(["true"]).ended == "exited"
        sandbox.group.join_files = [str(tmp_path / "missing" / "tasks")]
        with pytest.raises(SandboxError):
            sandbox.run(["true"])
    finally:
        sandbox.close()
