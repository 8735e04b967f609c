"""The instructor's commands on a ladder: freeze, a token per worker (revocable), the
export of each student's latest working version for the final; and what the workers'
protocol grants a worker token (Starlette's test client, a SQLite file)."""

import os
import time

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
pytest.importorskip("httpx")

from ladder_helpers import AGENTS, zip_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from engine.ladder import cli, config, store as store_module, web  # noqa: E402
from engine.ladder.store.schema import Submission  # noqa: E402


@pytest.fixture
def ladder(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nann\nben\n")
    folder = tmp_path / "ladder"
    assert cli.main(["init", str(folder), "--game", "stake_raid", "--roster", str(roster),
                     "--time", "1", "--sizes", "3"]) == 0
    store = store_module.Store(config.load(folder))
    tokens = dict(line.split(",") for line in (folder / "tokens.csv").read_text().split()[1:])
    client = TestClient(web.make_app(store), base_url="http://ladder.test")
    yield folder, store, client, tokens, (folder / "worker-token").read_text().strip()
    client.close()
    store.close()


def send(client, token, files):
    return client.post("/api/submissions", headers={"Authorization": f"Bearer {token}"},
                       files={"file": ("agent.zip", zip_bytes(files), "application/zip")})


def work(client, token, path, body=None):
    return client.post(path, json=body or {}, headers={"Authorization": f"Bearer {token}"})


def build_everything(client, worker):
    """Lease and report every queued build as built; the submissions built."""
    built = []
    while True:
        lease = work(client, worker, "/api/work/lease", {"built": []}).json()
        if lease["kind"] != "build":
            return built
        built.append(lease["submission"]["id"])
        assert work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
                    {"lease": lease["lease"], "error": None}).status_code == 200


def test_a_frozen_ladder_refuses_uploads_and_reopens(ladder, capsys):
    folder, _, client, tokens, _ = ladder
    assert send(client, tokens["ann"], AGENTS["ann"]).status_code == 201
    assert cli.main(["freeze", str(folder), "--at", "now"]) == 0
    assert "uploads closed at" in capsys.readouterr().err
    refused = send(client, tokens["ann"], AGENTS["ben"])
    assert refused.status_code == 403
    assert "submissions closed at" in refused.json()["error"]
    assert cli.main(["freeze", str(folder), "--at", "off"]) == 0
    assert send(client, tokens["ann"], AGENTS["ben"]).status_code == 201
    # A time in the future closes nothing yet; a time that is none is one line, exit 2.
    assert cli.main(["freeze", str(folder), "--at", "2999-01-01T00:00"]) == 0
    assert send(client, tokens["ben"], AGENTS["ben"]).status_code == 201
    assert cli.main(["freeze", str(folder), "--at", "tomorrow"]) == 2
    assert "is no time" in capsys.readouterr().err


def test_each_worker_has_a_token_of_its_own_that_can_be_revoked(ladder, capsys):
    folder, _, client, tokens, local = ladder
    assert cli.main(["worker-token", str(folder), "lab-1"]) == 0
    path = folder / "workers" / "lab-1.token"
    assert path.stat().st_mode & 0o777 == 0o600
    token = path.read_text().strip()
    assert token not in capsys.readouterr().err           # never printed
    assert work(client, token, "/api/work/lease").status_code == 200
    assert cli.main(["worker-token", str(folder), "lab-1"]) == 2      # exists already
    assert cli.main(["worker-token", str(folder), "--list"]) == 0
    assert capsys.readouterr().out.split() == ["local", "lab-1"]
    assert cli.main(["worker-token", str(folder), "lab-1", "--revoke"]) == 0
    assert work(client, token, "/api/work/lease").status_code == 401
    assert work(client, local, "/api/work/lease").status_code == 200    # others go on
    assert work(client, tokens["ann"], "/api/work/lease").status_code == 401


def test_a_worker_token_reads_only_the_archives_it_holds_a_lease_for(ladder):
    folder, store, client, tokens, local = ladder
    assert cli.main(["worker-token", str(folder), "other"]) == 0
    other = (folder / "workers" / "other.token").read_text().strip()
    ann = send(client, tokens["ann"], AGENTS["ann"]).json()["id"]
    archive = f"/api/work/submissions/{ann}/archive"
    auth = {"Authorization": f"Bearer {local}"}
    assert client.get(archive, headers=auth).status_code == 403       # no lease yet
    leases = [work(client, local, "/api/work/lease").json() for _ in range(3)]
    mine = next(lease for lease in leases if lease["submission"]["id"] == ann)
    assert client.get(archive, headers=auth).status_code == 200
    # Another worker's token: neither the archive nor a result of that lease.
    other_auth = {"Authorization": f"Bearer {other}"}
    assert client.get(archive, headers=other_auth).status_code == 403
    assert work(client, other, f"/api/work/builds/{ann}",
                {"lease": mine["lease"], "error": None}).status_code == 409
    assert work(client, local, f"/api/work/builds/{ann}",
                {"lease": mine["lease"], "error": None}).status_code == 200
    assert client.get(archive, headers=auth).status_code == 403       # lease settled
    with store.session() as session:
        assert session.get(Submission, ann).status == "ready"


def test_export_lays_out_each_students_latest_working_version_before_the_freeze(ladder,
                                                                            tmp_path,
                                                                            capsys):
    folder, store, client, tokens, local = ladder
    first = send(client, tokens["ann"], {"homework.py": "# first\n"}).json()["id"]
    build_everything(client, local)
    second = send(client, tokens["ann"], {"homework.py": "# second\n"}).json()["id"]
    ben = send(client, tokens["ben"], {"homework.py": "# ben\n"}).json()["id"]
    build_everything(client, local)
    with store.session.begin() as session:         # ann's second came after the freeze
        session.get(Submission, second).created = time.time() + 10
        session.get(Submission, ben).created = time.time() - 10
    store.set_freeze(time.time())
    out = tmp_path / "final"
    assert cli.main(["export", str(folder), "--entrants", str(out)]) == 0
    assert sorted(os.listdir(out)) == ["ann", "ben"]
    assert (out / "ann" / "homework.py").read_text() == "# first\n"
    assert (out / "ben" / "homework.py").read_text() == "# ben\n"
    said = capsys.readouterr().out
    assert f"tournament run stake_raid {out}/* --time 200" in said
    assert first != second
    # Into a folder that is not empty: one line, exit 2.
    assert cli.main(["export", str(folder), "--entrants", str(out)]) == 2


def test_a_workers_settings_size_its_cache_to_the_whole_class_from_the_start(ladder):
    """Before anyone has built or played, the class's size is every player (two students
    and two anchors here): a worker sized to the standings would hold two builds and
    build the same entrants again and again (7 builds of one entrant in a bench run)."""
    _, _, client, _, local = ladder
    settings = client.get("/api/work/settings",
                          headers={"Authorization": f"Bearer {local}"}).json()
    assert settings["class_size"] == 4


def finish_waiting_games(client, worker, store, count):
    """Lease and finish ``count`` games (X stakes the first empty square, O too); the
    records' game ids."""
    from test_ladder_web import record_for
    done = []
    for _ in range(count):
        lease = work(client, worker, "/api/work/lease", {"built": []}).json()
        assert lease["kind"] == "game", lease
        game = lease["game"]
        assert work(client, worker, f"/api/work/games/{game['id']}",
                    {"lease": lease["lease"],
                     "record": record_for(store, game, None)}).status_code == 200
        done.append(game["id"])
    return done


def challenge(client, token, opponent):
    return client.post("/api/challenges", json={"opponent": opponent},
                       headers={"Authorization": f"Bearer {token}"})


@pytest.mark.parametrize("mode", ["unrated", "rated"])
def test_a_challenge_is_a_pair_against_a_named_player_rated_as_the_instructor_set(
        ladder, mode):
    folder, store, client, tokens, local = ladder
    store.settings["challenges"] = mode
    assert challenge(client, tokens["ann"], "ben").status_code == 409   # nothing plays yet
    send(client, tokens["ann"], AGENTS["ann"])
    send(client, tokens["ben"], AGENTS["ben"])
    build_everything(client, local)
    assert challenge(client, tokens["ann"], "ann").status_code == 409   # not oneself
    assert challenge(client, tokens["ann"], "nobody").status_code == 409
    answer = challenge(client, tokens["ann"], "ben")
    assert answer.status_code == 201
    pair = answer.json()["pair"]
    # The challenge's two games come first (they were queued before the scheduler's).
    games = finish_waiting_games(client, local, store, 2)
    records = [client.get(f"/api/games/{game}").json() for game in games]
    assert {(r["x"], r["o"]) for r in records} == {("ann", "ben"), ("ben", "ann")}
    assert all(r["pair"] == pair and r["kind"] == "challenge" for r in records)
    assert all(r["rated"] == (mode == "rated") for r in records)
    store.standings.refresh()
    rated_games = {row["name"]: row["games"] for row in store.standings.snapshot().rows}
    assert rated_games.get("ann", 0) == (2 if mode == "rated" else 0)


def test_challenges_are_limited_an_hour_and_can_be_off(ladder):
    folder, store, client, tokens, local = ladder
    send(client, tokens["ann"], AGENTS["ann"])
    send(client, tokens["ben"], AGENTS["ben"])
    build_everything(client, local)
    store.settings["challenges_per_hour"] = 2
    assert [challenge(client, tokens["ann"], "ben").status_code for _ in range(3)] == \
        [201, 201, 409]
    assert "2 challenges an hour" in challenge(client, tokens["ann"], "ben").json()["error"]
    assert challenge(client, tokens["ben"], "ours:agent").status_code == 201  # ben's own
    store.settings["challenges"] = "off"
    assert "off" in challenge(client, tokens["ben"], "ann").json()["error"]
