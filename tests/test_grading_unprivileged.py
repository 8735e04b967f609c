"""The kit run by an ordinary user (a student checking their work, staff without root).

There is no uid per run and no cgroup then: the run shares the kit's uid, so only bwrap
or Landlock keep it from the kit's files, and CPU and memory are sampled from /proc.
One class of hostile students is graded as user ``nobody`` under each file fence, and
every attack must cost only its own verdict (see tests/test_grading_sandbox.py for the
attacks one by one, with the kit as root).
"""

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import ISOLATIONS, isolation_params, stake_raid_case

from engine.grading.case import write_case
from engine.sandbox.untrusted_files import remove_tree

NOBODY = 65534
SETPRIV = shutil.which("setpriv")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None,
                                reason="needs root (to become nobody) and setpriv")

OK = "open('output.txt', 'w').write('ok\\n')\n"


def students(secret_path, word, tcp_port, udp_port):
    """{name: homework.py} of the class: one innocent, the others hostile."""
    return {
        "innocent": OK,
        # Turns output.txt into a link to the instructor's secret, from a child that
        # lives on after the run's first process.
        "swapper": (
            "import os, time\n"
            "open('output.txt', 'w').write('ok\\n')\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    while True:\n"
            "        try:\n"
            f"            os.symlink({secret_path!r}, 'x')\n"
            "            os.replace('x', 'output.txt')\n"
            "        except OSError:\n"
            "            pass\n"
            "time.sleep(100)\n"),
        # Reads the secret directly: same uid as the kit, so only a file fence stops it.
        "spy": (f"data = 'none'\ntry:\n    data = open({secret_path!r}).read()\n"
                "except OSError:\n    pass\n"
                "open('output.txt', 'w').write(data)\n"),
        "memory": ("import mmap\nm = mmap.mmap(-1, 1 << 30, flags=mmap.MAP_SHARED)\n"
                   "for i in range(0, 1 << 30, 4096):\n    m[i] = 1\n" + OK),
        "cpu": ("import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
                "while True:\n    pass\n"),
        "orphan": ("import subprocess, time\n"
                   f"subprocess.Popen(['sleep', '{word}'], start_new_session=True)\n"
                   "time.sleep(0.2)\n" + OK),
        "network": ("import socket\n"
                    "for attempt in (\n"
                    f"        lambda: socket.create_connection(('127.0.0.1', {tcp_port}), 2),\n"
                    "        lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                    f"            .sendto(b'x', ('127.0.0.1', {udp_port}))):\n"
                    "    try:\n        attempt()\n    except OSError:\n        pass\n" + OK),
        "leaver": (f"for folder in ('/tmp', '/var/tmp', '/dev/shm'):\n"
                   f"    try:\n        open(folder + '/grade-leak-{word}', 'w').write('x')\n"
                   "    except OSError:\n        pass\n" + OK),
    }


def reachable_by_nobody(path):
    """Whether user nobody may pass through every folder on the way to ``path`` (a clone
    inside a ``mktemp -d`` folder, mode 0700, is not: then nobody cannot import it)."""
    for folder in [path] + list(path.parents):
        status = folder.stat()
        if status.st_uid != NOBODY and not status.st_mode & 0o001:
            return False
    return True


@pytest.fixture
def place():
    """A folder under /tmp that user nobody owns."""
    if not reachable_by_nobody(REPO):
        pytest.skip(f"user nobody cannot reach this checkout ({REPO}: a folder on the way "
                    "is closed to others), so the kit cannot run as nobody from it")
    folder = Path(tempfile.mkdtemp(prefix="grade-unprivileged-", dir="/tmp"))
    os.chown(folder, NOBODY, NOBODY)
    yield folder
    remove_tree(str(folder))


def as_nobody(argv, cwd):
    """Run ``python3 ARGV`` as user nobody: (the CompletedProcess, its pid). setpriv
    execs python3, so the pid is python's (the kit names its workspaces by it)."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(cwd), "LANG": "C.UTF-8",
           "PYTHONPATH": str(REPO)}
    command = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
               "/usr/bin/python3"] + argv
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), process.pid


# Every day under the strongest file fence here; the others: make test-all.
@pytest.mark.parametrize("isolation", isolation_params(keep=ISOLATIONS[-1:]))
def test_a_hostile_class_graded_by_an_ordinary_user(place, isolation):
    private = place / "private"
    private.mkdir(mode=0o700)
    secret = private / "answers.txt"
    token = "SECRET-" + secrets.token_hex(12)
    secret.write_text(token + "\n")
    word = f"1000.{os.getpid()}{secrets.randbelow(10 ** 8):08d}"
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(5)
    tcp.setblocking(False)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    roster = students(str(secret), word, tcp.getsockname()[1], udp.getsockname()[1])
    if isolation == "rlimits":
        # Without a file fence the run shares our uid and can read what we can.
        del roster["spy"]
    for name, code in roster.items():
        (place / "class" / name).mkdir(parents=True)
        (place / "class" / name / "homework.py").write_text(code)
    write_case(stake_raid_case(), place / "cases" / "c1")
    (place / "out").mkdir()
    for path in [place] + list(place.rglob("*")):
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    try:
        completed, kit = as_nobody(
            ["-m", "engine", "grade", "run", "stake_raid", "class", "--cases", "cases",
             "--isolation", isolation, "--timeout", "2", "--memory", "256", "--jobs", "2",
             "--build-timeout", "30",
             "--json", "out/results.json", "--csv", "out/grades.csv",
             "--report", "out/report.html", "--quiet"], place)
        with pytest.raises(BlockingIOError):
            tcp.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(10)
    finally:
        tcp.close()
        udp.close()
        # Without a file fence the leaver's files land (they cannot be told from ours).
        leaked = [f"{folder}/grade-leak-{word}" for folder in ("/tmp", "/var/tmp", "/dev/shm")]
        left = [path for path in leaked if os.path.lexists(path)]
        for path in left:
            os.unlink(path)
    assert completed.returncode == 0, completed.stderr
    document = json.loads((place / "out" / "results.json").read_text())
    assert "uid" not in document["fences"] and "cgroup" not in document["fences"]
    verdicts = {Path(entry["submission"]).name: entry["cases"][0]
                for entry in document["submissions"]}
    assert sorted(verdicts) == sorted(roster)
    # No slot ever stops another slot's command (a build that waited for its wall-clock
    # cap, 62 s here, once showed that one slot had taken another's for an orphan).
    assert all(entry["build_seconds"] < 50 for entry in document["submissions"])
    assert verdicts["innocent"]["passed"]
    assert verdicts["orphan"]["passed"] and verdicts["network"]["passed"]
    assert verdicts["leaver"]["passed"]
    assert verdicts["memory"]["reason"] == "memory limit (256 MB) exceeded"
    assert verdicts["cpu"]["reason"] == "CPU time limit (2 s) exceeded"
    assert verdicts["cpu"]["cpu"] >= 1.8
    assert not verdicts["swapper"]["passed"]
    shown = "".join((place / "out" / name).read_text()
                    for name in ("results.json", "grades.csv", "report.html"))
    assert token not in shown
    alive = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and word.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                alive.append(entry)
        except OSError:
            pass
    assert alive == []
    if isolation != "rlimits":
        assert left == []
    # The kit's workspace is gone (other kits, e.g. of tests running beside this one, may
    # have theirs).
    assert not [name for name in os.listdir("/dev/shm") if name.startswith(f"grade-{kit}-")]
