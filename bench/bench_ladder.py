"""What the ladder's server and database cost per game, and a burst of uploads.

    python3 bench/bench_ladder.py [--window SEC] [--time SEC] [--sizes 4,5] [--workers 2]
                                  [--students 60] [--db postgresql://...]

1. Games per minute: a ladder (SQLite unless --db) with four students' quick Python
   agents and our two anchors, served with W local workers (default 2: one per core
   here). Once every upload is built, the games finished in a window of --window
   seconds are counted. Then `tournament run` plays a round-robin of the same six
   entrants, same clock, same sizes, on W jobs. For each: games per minute, and the
   core-seconds per game beyond the entrants' own charged CPU (W x wall / games minus
   the mean CPU the records charge both players): the difference is what the server,
   the database, the leases and the HTTP round trips add per game.
2. N simulated students upload at once: N threads each POST a zip of an agent; printed:
   the requests' latency (median, 95th percentile, max) and the time until W workers
   have built all N submissions.
3. A class (``--only class``, default 300 students, 2 local workers, 3x3 boards): the
   class uploads (20 at a time); then the time until every student has 4 games; then
   the game rate in three windows, without readers, with 50 readers polling
   /api/leaderboard every 3 s as the page does, and without again (the ratio with
   readers / without, and the readers' 95th percentile); the builds per game (the
   workers' "built ... here" lines over the games played) and the web process's
   resident memory (now and at its peak).

Run it as root on an otherwise idle machine (the web process drops to nobody; the
workers need the sandbox). The ladder folders are made under /tmp and removed.
"""

import argparse
import concurrent.futures
import csv
import io
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = sys.executable
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from measure import stake_agent, write_stake_agent  # noqa: E402


def engine(*args, **kwargs):
    environment = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([PYTHON, "-m", "engine", *args], env=environment, cwd=REPO,
                          capture_output=True, text=True, **kwargs)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def zipped(order):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("homework.py", stake_agent(order))
    return buffer.getvalue()


def get(url, token=None, body=None, headers=None, timeout=60):
    request = urllib.request.Request(url, data=body, headers=headers or {},
                                     method="POST" if body is not None else "GET")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def upload(url, token, data):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"agent.zip\"\r\nContent-Type: application/zip\r\n\r\n").encode() \
        + data + f"\r\n--{boundary}--\r\n".encode()
    return get(url + "/api/submissions", token, body,
               {"Content-Type": f"multipart/form-data; boundary={boundary}"})


class Served:
    """A ladder made in a fresh folder under /tmp and served."""

    def __init__(self, names, options, workers):
        self.root = tempfile.mkdtemp(prefix="ladder-bench-")
        os.chmod(self.root, 0o755)
        self.folder = os.path.join(self.root, "ladder")
        roster = os.path.join(self.root, "roster.csv")
        with open(roster, "w") as handle:
            handle.write("name\n" + "".join(name + "\n" for name in names))
        command = ["ladder", "init", self.folder, "--game", "stake_raid", "--roster",
                   roster, "--time", str(options.time), "--sizes", options.sizes]
        if options.db:
            command += ["--db", options.db]
        done = engine(*command)
        if done.returncode:
            raise SystemExit(done.stderr)
        with open(os.path.join(self.folder, "tokens.csv")) as handle:
            self.tokens = {row["name"]: row["token"] for row in csv.DictReader(handle)}
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = open(os.path.join(self.root, "serve.log"), "w")
        self.process = subprocess.Popen(
            [PYTHON, "-m", "engine", "ladder", "serve", self.folder, "--port",
             self.url.rsplit(":", 1)[1], "--workers", str(workers)], cwd=REPO,
            env=dict(os.environ, PYTHONPATH=REPO), stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if get(self.url + "/api/leaderboard", timeout=2)[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("the ladder did not start")

    def leaderboard(self):
        return get(self.url + "/api/leaderboard")[1]

    def games(self):
        return get(self.url + "/api/games")[1]

    def statuses(self, ids_by_name):
        return [get(f"{self.url}/api/submissions/{ids_by_name[name]}", self.tokens[name])[1][
            "status"] for name in ids_by_name]

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


def charged(records):
    """The mean CPU per game the records charge both players."""
    return statistics.mean(sum(record["cpu"]) for record in records)


def games_per_minute(options):
    names = ["s1", "s2", "s3", "s4"]
    ladder = Served(names, options, options.workers)
    try:
        ids = {}
        for index, name in enumerate(names):
            status, body = upload(ladder.url, ladder.tokens[name],
                                  zipped("first" if index % 2 else "last"))
            assert status == 201, body
            ids[name] = body["id"]
        while len({row["name"] for row in ladder.leaderboard()} & set(names)) < len(names):
            time.sleep(0.2)
        before = {record["id"] for record in ladder.games()}
        started = time.monotonic()
        time.sleep(options.window)
        window = time.monotonic() - started
        records = [r for r in ladder.games() if r["id"] not in before]
    finally:
        ladder.stop()
    ladder_rate = len(records) / window * 60
    ladder_cost = options.workers * window / max(len(records), 1) - charged(records)

    work = tempfile.mkdtemp(prefix="ladder-bench-tournament-")
    try:
        entrants = [write_stake_agent(os.path.join(work, name),
                                      "first" if index % 2 else "last")
                    for index, name in enumerate(names)]
        out = os.path.join(work, "t.json")
        started = time.monotonic()
        done = engine("tournament", "run", "stake_raid", *entrants, "ours:agent",
                      "ours:greedy", "--time", str(options.time), "--sizes", options.sizes,
                      "--jobs", str(options.workers), "--json", out, "--quiet")
        wall = time.monotonic() - started
        assert done.returncode == 0, done.stderr
        with open(out) as handle:
            played = json.load(handle)["games"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tournament_rate = len(played) / wall * 60
    tournament_cost = options.workers * wall / len(played) - charged(played)
    print(f"ladder ({'PostgreSQL' if options.db else 'SQLite'}, {options.workers} workers): "
          f"{len(records)} games in {window:.1f} s = {ladder_rate:.1f} games/min; "
          f"{ladder_cost:.3f} core-s per game beyond the players' {charged(records):.3f} s "
          "charged")
    print(f"tournament run ({options.workers} jobs, builds included): {len(played)} games "
          f"in {wall:.1f} s = {tournament_rate:.1f} games/min; {tournament_cost:.3f} core-s "
          f"per game beyond the players' {charged(played):.3f} s charged")
    print(f"the server, database, leases and HTTP add {ladder_cost - tournament_cost:+.3f} "
          f"core-s per game ({ladder_rate / tournament_rate:.2f}x the tournament's rate)")


def upload_burst(options):
    names = [f"student{i:02d}" for i in range(options.students)]
    ladder = Served(names, options, options.workers)
    try:
        data = zipped("first")
        latencies, ids, failures = {}, {}, []
        barrier = threading.Barrier(len(names))

        def student(name):
            barrier.wait()
            started = time.monotonic()
            status, body = upload(ladder.url, ladder.tokens[name], data)
            latencies[name] = time.monotonic() - started
            if status == 201:
                ids[name] = body["id"]
            else:
                failures.append((name, status, body))
        threads = [threading.Thread(target=student, args=(name,)) for name in names]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        burst = time.monotonic() - started
        while True:
            statuses = ladder.statuses(ids)
            if all(status in ("ready", "failed") for status in statuses):
                break
            time.sleep(0.5)
        built = time.monotonic() - started
    finally:
        ladder.stop()
    values = sorted(latencies.values())
    print(f"{len(names)} students uploading at once: {len(ids)} accepted, "
          f"{len(failures)} refused; latency median {statistics.median(values) * 1000:.0f} "
          f"ms, 95th percentile {values[int(0.95 * (len(values) - 1))] * 1000:.0f} ms, max "
          f"{values[-1] * 1000:.0f} ms; all answered in {burst:.1f} s; all {len(ids)} built "
          f"by {options.workers} workers {built:.1f} s after the first request")
    for failure in failures[:3]:
        print("refused:", failure)


def done_games(ladder):
    """Games done, and the fewest done games of any student (read-only SQLite)."""
    path = os.path.join(ladder.folder, "data", "ladder.db")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        total = db.execute("SELECT count(*) FROM games WHERE state = 'done'").fetchone()[0]
        fewest = db.execute(
            "SELECT min(n) FROM (SELECT p.id, (SELECT count(*) FROM games g JOIN "
            "submissions s ON s.id IN (g.x_sub, g.o_sub) WHERE g.state = 'done' AND "
            "s.player_id = p.id) AS n FROM players p WHERE NOT p.staff)").fetchone()[0]
    return total, fewest or 0


def memory_of(pid):
    """(resident MB, peak resident MB) of the process ``pid``."""
    found = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line.split(":")[0]] = int(line.split()[1]) / 1024
    return found["VmRSS"], found["VmHWM"]


def percentile(values, share):
    values = sorted(values)
    return values[int(share * (len(values) - 1))]


def rate_window(ladder, seconds, readers=0):
    """Games per minute over ``seconds``, with ``readers`` polling the leaderboard every
    3 s; and the readers' latencies."""
    stop, latencies = threading.Event(), []

    def reader(offset):
        stop.wait(offset)
        while not stop.is_set():
            started = time.monotonic()
            status, _ = get(ladder.url + "/api/leaderboard")
            if status == 200:
                latencies.append(time.monotonic() - started)
            stop.wait(3.0)
    threads = [threading.Thread(target=reader, args=(3.0 * i / max(readers, 1),))
               for i in range(readers)]
    for thread in threads:
        thread.start()
    before, _ = done_games(ladder)
    started = time.monotonic()
    time.sleep(seconds)
    after, _ = done_games(ladder)
    elapsed = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join()
    return (after - before) / elapsed * 60, latencies


def class_of(options):
    names = [f"s{i:03d}" for i in range(options.students)]
    options.sizes = options.class_sizes
    ladder = Served(names, options, options.workers)
    try:
        archives = {"first": zipped("first"), "last": zipped("last")}
        latencies = []

        def student(index):
            started = time.monotonic()
            status, body = upload(ladder.url, ladder.tokens[names[index]],
                                  archives["first" if index % 2 else "last"])
            latencies.append(time.monotonic() - started)
            return status
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(student, range(len(names))))
        uploaded = time.monotonic() - started
        while done_games(ladder)[1] < 4:
            if time.monotonic() - started > options.patience:
                raise SystemExit(f"not every student had 4 games in {options.patience} s")
            time.sleep(2.0)
        four = time.monotonic() - started
        quiet, _ = rate_window(ladder, options.window)
        busy, read = rate_window(ladder, options.window, readers=50)
        quiet_again, _ = rate_window(ladder, options.window)
        total, _ = done_games(ladder)
        with open(os.path.join(ladder.folder, "server.json")) as handle:
            web = json.load(handle)["web"]
        resident, peak = memory_of(web)
        ladder.log.flush()
        with open(os.path.join(ladder.root, "serve.log")) as handle:
            built = [line.split(" built ", 1)[1].split(" here (")[0] for line in handle
                     if "here (" in line and " built " in line]
        builds = len(built)
        most = sorted({name: built.count(name) for name in built}.items(),
                      key=lambda item: -item[1])[:3]
    finally:
        ladder.stop()
    print(f"a class of {len(names)} ({options.workers} workers, {options.time:g} s clocks, "
          f"sizes {options.class_sizes}, SQLite):")
    print(f"  uploads: {statuses.count(201)} of {len(names)} accepted in {uploaded:.1f} s, "
          f"20 at a time; latency median {statistics.median(latencies) * 1000:.0f} ms, "
          f"95th percentile {percentile(latencies, 0.95) * 1000:.0f} ms")
    print(f"  every student had 4 games {four:.0f} s after the first upload")
    print(f"  games per minute: {quiet:.1f} without readers, {busy:.1f} with 50 readers, "
          f"{quiet_again:.1f} without again: with / without = "
          f"{busy / ((quiet + quiet_again) / 2):.2f}")
    print(f"  the leaderboard under 50 readers: {len(read)} requests, 95th percentile "
          f"{percentile(read, 0.95) * 1000:.0f} ms")
    print(f"  builds per game: {builds} builds for {total} games = {builds / total:.3f} "
          f"(most built: {', '.join(f'{name} {count}x' for name, count in most)})")
    print(f"  the web process: {resident:.0f} MB resident, {peak:.0f} MB at its peak")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--sizes", default="4,5")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--db", help="postgresql://... (default SQLite)")
    parser.add_argument("--only", choices=("rate", "burst", "class"))
    parser.add_argument("--class-sizes", default="3", help="the class's boards (default 3)")
    parser.add_argument("--patience", type=float, default=3600.0,
                        help="the class's seconds to give every student 4 games")
    options = parser.parse_args()
    if options.only == "class":
        options.students = options.students if options.students != 60 else 300
        class_of(options)
        return
    if options.only != "burst":
        games_per_minute(options)
    if options.only != "rate":
        upload_burst(options)


if __name__ == "__main__":
    main()
