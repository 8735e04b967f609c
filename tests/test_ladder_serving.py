"""``ladder serve``, ``ladder stop`` and what root does to DIR/data (engine.ladder.serving,
.lifelines, .ownership), tried as an attacker and a crash would:

* serve killed with SIGKILL: its web process (which dropped root) and its workers are
  gone within seconds (the kernel's parent-death signal, armed in each child);
* the local workers' token is on no command line and in no environment (they read it
  on standard input), even when serve's own environment holds one;
* a port another server holds: one line, exit 2 (serve used to take the other's
  answers for its own web process's); a folder served already: the same;
* ``ladder stop`` stops what server.json names, each checked by its start time, also
  when serve is gone and its children are not; all gone: one line;
* the web user swaps a folder of DIR/data for a link to root's files while root walks
  it, and plants a link and a hard link to a file of root's: root's files keep their
  owner, and what root made in DIR/data is given to the web user.
"""

import argparse
import json
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from golden import REPO

from engine.errors import UsageError
from engine.sandbox import is_running, start_time
from engine.ladder import serving
from engine.ladder.lifelines import dying_with_me
from ports import free_port

PYTHON = sys.executable


def _nobody():
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    return entry.pw_uid, entry.pw_gid


# --- root and DIR/data -----------------------------------------------------------------------

def _as_nobody(command):
    uid, gid = _nobody()
    subprocess.run(command, check=True, user=uid, group=gid, extra_groups=[])


@pytest.fixture
def planted():
    """DIR (root's) with DIR/data (nobody's) holding what root made and what nobody
    planted: a link and a hard link to a file of root's elsewhere, and a folder ``sub``
    that nobody swaps for a link to root's folder during the walk (see
    :func:`_swap_on_second_listing`). Yields (DIR, root's folder elsewhere)."""
    if os.geteuid() != 0:
        pytest.skip("root walks DIR/data only when it runs as root")
    uid, gid = _nobody()
    top = tempfile.mkdtemp(prefix="ladder-owner-")
    os.chmod(top, 0o755)
    folder, victim = os.path.join(top, "ladder"), os.path.join(top, "roots")
    data = os.path.join(folder, "data")
    os.makedirs(os.path.join(data, "uploads"))
    os.makedirs(os.path.join(victim, "inner"))
    os.chmod(folder, 0o755)
    os.chmod(victim, 0o755)
    for path in (os.path.join(folder, "ladder.json"), os.path.join(data, "ladder.db"),
                 os.path.join(victim, "secret"), os.path.join(victim, "inner", "key")):
        with open(path, "w") as handle:
            handle.write("root's\n")
    os.chown(data, uid, gid)
    os.chmod(data, 0o700)
    _as_nobody(["mkdir", os.path.join(data, "sub")])
    _as_nobody(["touch", os.path.join(data, "sub", "nobodys")])
    _as_nobody(["ln", "-s", os.path.join(victim, "secret"), os.path.join(data, "link")])
    # Where fs.protected_hardlinks is 0, nobody may link any file it can see; here root
    # makes the link nobody could have made.
    os.link(os.path.join(victim, "secret"), os.path.join(data, "hard"))
    try:
        yield folder, victim
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _swap_on_second_listing(monkeypatch, data, victim):
    """As nobody, swap DIR/data/sub for a link to ``victim`` just before root lists its
    second folder (root has listed DIR/data and seen ``sub`` as a folder)."""
    calls = []

    def swapping(real):
        def listing(*args, **kwargs):
            calls.append(args)
            if len(calls) == 2:
                sub = os.path.join(data, "sub")
                _as_nobody(["mv", sub, sub + ".old"])
                _as_nobody(["ln", "-s", victim, sub])
            return real(*args, **kwargs)
        return listing
    monkeypatch.setattr(os, "listdir", swapping(os.listdir))
    monkeypatch.setattr(os, "scandir", swapping(os.scandir))
    return calls


def _owners(*paths):
    return [(os.lstat(path).st_uid, os.lstat(path).st_gid) for path in paths]


def test_root_gives_data_to_the_web_user_never_through_a_swap_or_a_link(planted,
                                                                       monkeypatch):
    folder, victim = planted
    data = os.path.join(folder, "data")
    uid, gid = _nobody()
    calls = _swap_on_second_listing(monkeypatch, data, victim)
    serving.give_data_to({"folder": folder}, uid, gid)
    monkeypatch.undo()
    assert len(calls) >= 2 and os.path.islink(os.path.join(data, "sub"))
    roots = [victim, os.path.join(victim, "secret"), os.path.join(victim, "inner"),
             os.path.join(victim, "inner", "key")]
    assert _owners(*roots) == [(0, 0)] * len(roots)
    # What root made is the web user's now.
    assert _owners(os.path.join(folder, "ladder.json"), os.path.join(data, "ladder.db"),
                   os.path.join(data, "uploads")) == [(uid, gid)] * 3


def test_root_walks_data_safely_while_the_web_user_swaps_folders(planted):
    """The swap raced for real (no hard link this time): nobody swaps ``sub`` for the
    link and back as fast as it can while root hands DIR/data over for a second."""
    folder, victim = planted
    data = os.path.join(folder, "data")
    os.unlink(os.path.join(data, "hard"))
    uid, gid = _nobody()
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if python is None:
        pytest.skip("no python3 that nobody may run")
    swapper = subprocess.Popen(
        [python, "-c", "import os, sys, time\n"
         "data, victim = sys.argv[1:3]\nsub = os.path.join(data, 'sub')\n"
         "os.symlink(victim, sub + '.link')\nend = time.monotonic() + 60\n"
         "while time.monotonic() < end:\n"
         "    os.rename(sub, sub + '.dir'); os.rename(sub + '.link', sub)\n"
         "    os.rename(sub, sub + '.link'); os.rename(sub + '.dir', sub)\n",
         data, victim], user=uid, group=gid, extra_groups=[])
    walks = 0
    try:
        deadline = time.monotonic() + 30
        while not os.path.lexists(os.path.join(data, "sub.link")) and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            serving.give_data_to({"folder": folder}, uid, gid)
            walks += 1
    finally:
        swapper.kill()
        swapper.wait()
    roots = [victim, os.path.join(victim, "secret"), os.path.join(victim, "inner"),
             os.path.join(victim, "inner", "key")]
    assert _owners(*roots) == [(0, 0)] * len(roots), f"after {walks} walks"


# --- serve and stop --------------------------------------------------------------------------

@pytest.fixture
def ladder_folder():
    """A new ladder (two students) in a folder every user may pass."""
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("uvicorn")
    top = tempfile.mkdtemp(prefix="ladder-serving-")
    os.chmod(top, 0o755)
    roster = os.path.join(top, "roster.csv")
    with open(roster, "w") as handle:
        handle.write("name\nann\nben\n")
    folder = os.path.join(top, "ladder")
    done = subprocess.run([PYTHON, "-m", "engine", "ladder", "init", folder, "--game",
                           "stake_raid", "--roster", roster, "--time", "1", "--sizes", "3"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    try:
        yield folder
    finally:
        subprocess.run([PYTHON, "-m", "engine", "ladder", "stop", folder], cwd=REPO,
                       capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def _serve(folder, port, workers, environment=None, log_folder=None):
    log = open(os.path.join(log_folder or os.path.dirname(folder), "serve.log"), "ab")
    process = subprocess.Popen(
        [PYTHON, "-m", "engine", "ladder", "serve", folder, "--port", str(port),
         "--workers", str(workers)], cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
        env=environment, start_new_session=True, preexec_fn=dying_with_me())
    log.close()
    path = os.path.join(folder, "server.json")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert process.poll() is None, _log(folder)
        try:
            with open(path) as handle:
                state = json.load(handle)
            if len(state["workers"]) == workers:
                return process, state
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    raise AssertionError("serve did not start: " + _log(folder))


def _log(folder, log_folder=None):
    with open(os.path.join(log_folder or os.path.dirname(folder), "serve.log"),
              errors="replace") as handle:
        return handle.read()[-3000:]


def _children(state):
    return [(pid, state["starts"][str(pid)]) for pid in [state["web"]] + state["workers"]]


def _wait_gone(processes, seconds):
    """The processes (pid, start time) still running after at most ``seconds``. A
    zombie has ended: its reaper may be a test process that became a child subreaper
    (the sandbox's tests make theirs one) and never waits for it."""
    deadline = time.monotonic() + seconds
    while True:
        left = [pid for pid, started in processes
                if start_time(pid) == started and is_running(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _run(*arguments):
    return subprocess.run([PYTHON, "-m", "engine", "ladder"] + list(arguments), cwd=REPO,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_serve_killed_outright_takes_its_children_with_it(ladder_folder):
    """serve with two workers, started with a worker token in its environment (the
    workers refuse one there): no child sees the token, a second serve of the folder
    is refused, and SIGKILL of serve ends the web process and the workers."""
    token = open(os.path.join(ladder_folder, "worker-token")).read().strip()
    environment = dict(os.environ, LADDER_WORKER_TOKEN=token)
    serve, state = _serve(ladder_folder, free_port(), 2, environment)
    try:
        children = _children(state)
        for pid, _ in children:
            for name in ("cmdline", "environ"):
                with open(f"/proc/{pid}/{name}", "rb") as handle:
                    assert token.encode() not in handle.read(), (pid, name)
        second = _run("serve", ladder_folder, "--port", str(free_port()), "--workers", "0")
        assert second.returncode == 2
        assert second.stderr == (f"ladder: {ladder_folder} is served already (pid "
                                 f"{serve.pid}): ladder stop {ladder_folder} first\n")
        started = time.monotonic()
        os.kill(serve.pid, signal.SIGKILL)
        serve.wait()
        assert _wait_gone(children, 30) == [], _log(ladder_folder)
        print(f"children gone {time.monotonic() - started:.2f} s after SIGKILL of serve")
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    # Everything server.json names is gone: stop says so in one line and removes it.
    stop = _run("stop", ladder_folder)
    assert (stop.returncode, stop.stdout) == (2, "")
    assert stop.stderr == f"ladder: the server of {ladder_folder} was gone already\n"
    assert not os.path.exists(os.path.join(ladder_folder, "server.json"))


@pytest.mark.slow
def test_stop_stops_serve_its_web_process_and_its_workers(ladder_folder):
    serve, state = _serve(ladder_folder, free_port(), 2)
    children = _children(state)
    stop = _run("stop", ladder_folder)
    assert stop.returncode == 0, stop.stderr
    assert stop.stdout == (f"ladder: stopped the server of {ladder_folder} (serve, its "
                           "web process and 2 workers)\n")
    assert serve.wait(30) == 130
    assert _wait_gone(children, 5) == []
    assert not os.path.exists(os.path.join(ladder_folder, "server.json"))


@pytest.fixture
def small_disk():
    """A 24 MB tmpfs, open to every user (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    top = tempfile.mkdtemp(prefix="ladder-disk-")
    os.chmod(top, 0o755)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=755", "tmpfs", top],
                      capture_output=True).returncode != 0:
        os.rmdir(top)
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield top
    finally:
        subprocess.run(["umount", "-l", top], check=False)
        os.rmdir(top)


@pytest.mark.slow
@pytest.mark.parametrize("log_on_the_full_disk", [False, True])
def test_a_ladder_on_a_full_disk_answers_503_and_logs_one_line(small_disk, tmp_path,
                                                              log_on_the_full_disk):
    """A real ladder whose DIR fills up: uploads get a JSON 503 (three of them, one line
    in the log, no traceback), and what needs no writing still answers; also when the
    server's log is on that disk (the line is lost, the answer is not)."""
    pytest.importorskip("sqlalchemy")
    roster = os.path.join(small_disk, "roster.csv")
    with open(roster, "w") as handle:
        handle.write("name\nann\n")
    folder = os.path.join(small_disk, "ladder")
    assert _run("init", folder, "--game", "stake_raid", "--roster", roster, "--time", "1",
                "--sizes", "3").returncode == 0
    port = free_port()
    logs = None if log_on_the_full_disk else str(tmp_path)
    serve, _ = _serve(folder, port, 0, log_folder=logs)
    from ladder_helpers import FIRST_EMPTY, request, upload, zip_bytes
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:          # the web process has started
            try:
                if request(url + "/api/leaderboard", timeout=2)[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        # The log itself fills the disk when it is there: to its last byte, so that the
        # server's next line cannot be written.
        filler = os.path.join(small_disk, "serve.log" if log_on_the_full_disk else "filler")
        with open(filler, "ab", buffering=0) as handle:
            with pytest.raises(OSError):
                while True:
                    handle.write(bytes(1 << 20))
        token = open(os.path.join(folder, "tokens.csv")).read().split()[1].split(",")[1]
        for _ in range(3):
            try:
                status, body = upload(url, token, zip_bytes({"homework.py": FIRST_EMPTY}))
            except OSError as error:
                raise AssertionError(f"{error}: {_log(folder, logs)}") from None
            assert status == 503 and "disk is full" in body["error"], (status, body)
        assert request(url + "/api/leaderboard")[0] == 200
    finally:
        _run("stop", folder)
        serve.wait(60)
    if not log_on_the_full_disk:
        log = _log(folder, logs)
        assert log.count("disk is full") == 1 and "Traceback" not in log, log


class _Answering(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"[]")

    def log_message(self, *args):
        pass


def test_serve_refuses_a_port_another_server_holds(ladder_folder):
    """Another HTTP server holds the port and answers everything: serve says so in one
    line and exits 2 (it used to take that server's answers for its own)."""
    other = HTTPServer(("127.0.0.1", 0), _Answering)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        port = other.server_address[1]
        done = _run("serve", ladder_folder, "--port", str(port), "--workers", "0")
    finally:
        other.shutdown()
        other.server_close()
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"ladder: 127.0.0.1:{port} is taken: another server listens "
                           "there (ladder stop DIR, or another --port)\n")
    assert not os.path.exists(os.path.join(ladder_folder, "server.json"))
    # A folder whose server.json names a serve still running (here: this test) is
    # refused before anything is bound.
    path = os.path.join(ladder_folder, "server.json")
    with open(path, "w") as handle:
        json.dump({"pid": os.getpid(), "started": start_time(os.getpid())}, handle)
    done = _run("serve", ladder_folder, "--port", str(free_port()), "--workers", "0")
    os.unlink(path)
    assert (done.returncode, done.stderr) == (2, f"ladder: {ladder_folder} is served "
                                                 f"already (pid {os.getpid()}): ladder stop "
                                                 f"{ladder_folder} first\n")


def _sleeper():
    process = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(600)"])
    deadline = time.monotonic() + 30
    while start_time(process.pid) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return process


def test_stop_ends_what_a_killed_serve_left(tmp_path, capsys):
    """serve is gone (its pid now no process of its), its web process and a worker are
    not: stop ends both, each named by its start time, and leaves a stranger alone."""
    gone = subprocess.Popen([PYTHON, "-c", "pass"])
    gone_started = start_time(gone.pid)
    gone.wait()
    web, worker, stranger = _sleeper(), _sleeper(), _sleeper()
    try:
        state = {"pid": gone.pid, "started": gone_started or 1, "web": web.pid,
                 "workers": [worker.pid, stranger.pid],
                 "starts": {str(web.pid): start_time(web.pid),
                            str(worker.pid): start_time(worker.pid),
                            str(stranger.pid): start_time(stranger.pid) - 1}}
        (tmp_path / "server.json").write_text(json.dumps(state))
        assert serving.run_stop(argparse.Namespace(folder=str(tmp_path))) == 0
        assert web.wait(30) == -signal.SIGTERM and worker.wait(30) == -signal.SIGTERM
        assert stranger.poll() is None
        assert capsys.readouterr().out == (
            f"ladder: the server of {tmp_path} had stopped; stopped what it left: its web "
            "process and 1 worker\n")
        assert not (tmp_path / "server.json").exists()
        with pytest.raises(UsageError, match="no server is running"):
            serving.run_stop(argparse.Namespace(folder=str(tmp_path)))
    finally:
        for process in (web, worker, stranger):
            process.kill()
            process.wait()


MIDDLE = """
import subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from engine.ladder.lifelines import dying_with_me
child = subprocess.Popen([sys.executable, "-c", sys.argv[2], sys.argv[1]],
                         preexec_fn=dying_with_me())
print(child.pid, flush=True)
time.sleep(600)
"""

# The child: as root it becomes nobody (as the web process does), which makes the
# kernel forget the parent-death signal, and asks for it again.
CHILD = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from engine.ladder.lifelines import parent_death_signal, rearm
parent, number = os.getppid(), parent_death_signal()
assert number == 15, number
if os.geteuid() == 0:
    import pwd
    nobody = pwd.getpwnam("nobody")
    os.setgroups([]); os.setgid(nobody.pw_gid); os.setuid(nobody.pw_uid)
rearm(parent, number)
print("ready", flush=True)
time.sleep(600)
"""


def _line(stream, seconds=30):
    """The next line of ``stream``, or "" when none comes within ``seconds``."""
    ready, _, _ = select.select([stream], [], [], seconds)
    return stream.readline() if ready else ""


def test_a_child_dies_with_its_parent_killed_outright_even_after_dropping_root():
    middle = subprocess.Popen([PYTHON, "-c", MIDDLE, str(REPO), CHILD],
                              stdout=subprocess.PIPE, text=True)
    child, started = None, None
    try:
        child = int(_line(middle.stdout))
        started = start_time(child)
        assert _line(middle.stdout) == "ready\n"       # it has dropped root, re-armed
        os.kill(middle.pid, signal.SIGKILL)
        middle.wait()
        assert _wait_gone([(child, started)], 20) == []
    finally:
        middle.kill()
        middle.wait()
        if child is not None and _wait_gone([(child, started)], 0):
            os.kill(child, signal.SIGKILL)      # it outlived its parent: a failure


def test_a_child_whose_parent_died_before_it_was_armed_ends_itself():
    """The parent-death signal is asked for after the fork: had the parent died in
    between, none would ever come, so the child checks and ends at once."""
    child = subprocess.Popen([PYTHON, "-c", "import sys, time\n"
                              "sys.path.insert(0, sys.argv[1])\n"
                              "from engine.ladder.lifelines import arm, _prctl\n"
                              "arm(_prctl(), 1, 15)\ntime.sleep(600)\n", str(REPO)])
    try:
        # Its parent is this test, not pid 1: it takes itself for an orphan and ends.
        assert child.wait(30) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()
