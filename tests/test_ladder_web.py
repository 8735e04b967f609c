"""The ladder's web process and database in one process (Starlette's test client, a
SQLite file): the API's contracts, leases (expiry, replay once, late results refused),
the pages' CSRF protection, Content-Security-Policy and escaping, rate limits."""

import json
import re
import time

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
pytest.importorskip("httpx")

from ladder_helpers import AGENTS, FIRST_EMPTY, zip_bytes  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from engine.ladder import cli, config, store as store_module, web  # noqa: E402
from engine.ladder.store.schema import Game, Player, Submission  # noqa: E402
from engine.ladder.web.app import ROUTES  # noqa: E402
from engine.tournament.games import rules_for  # noqa: E402

NAMES = ["ann", "ben", "cat"]


@pytest.fixture
def ladder(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\n" + "\n".join(NAMES) + "\n")
    folder = tmp_path / "ladder"
    assert cli.main(["init", str(folder), "--game", "stake_raid", "--roster", str(roster),
                     "--time", "1", "--sizes", "3", "--lease", "30"]) == 0
    settings = config.load(folder)
    settings["uploads_per_minute"] = 3
    store = store_module.Store(settings)
    tokens = dict(line.split(",") for line in
                  (folder / "tokens.csv").read_text().split()[1:])
    client = TestClient(web.make_app(store), base_url="http://ladder.test")
    yield store, client, tokens, (folder / "worker-token").read_text().strip()
    client.close()
    store.close()


def send(client, token, data, name="agent.zip"):
    return client.post("/api/submissions", headers={"Authorization": f"Bearer {token}"},
                       files={"file": (name, data, "application/zip")})


def record_for(store, game, moves_by, forfeit=None):
    """A finished record of ``game`` (a leased game) whose moves stake the first empty
    square (or a forfeit at once, with ``forfeit`` as the stderr)."""
    rules = rules_for("stake_raid")
    cells = rules.setup(1, game["board"], int(game["size"]))
    board = rules.board(cells)
    moves = []
    if forfeit is None:
        while not board.over:
            action = next(a for a in sorted(board.game.actions(board._state())) if a < 100)
            moves.append([board.side, board.play(action), 0.01])
        result, score = board.winner(), board.scores()
        lost = None
    else:
        result, score = "o", board.forfeit_scores("o")
        lost = {"player": "x", "reason": "garbled output", "detail": forfeit}
    return {"size": int(game["size"]), "cells": cells, "moves": moves, "result": result,
            "score": score, "cpu": [0.1, 0.1], "forfeit": lost}


def test_init_writes_secrets_once_and_hashes_tokens(ladder, tmp_path):
    store, _, tokens, worker = ladder
    folder = tmp_path / "ladder"
    assert (folder / "tokens.csv").stat().st_mode & 0o777 == 0o600
    assert (folder / "worker-token").stat().st_mode & 0o777 == 0o600
    database = (folder / "data" / "ladder.db").read_bytes()
    for token in list(tokens.values()) + [worker]:
        assert token.encode() not in database
        assert config.token_hash(token).encode() in database
    # A second init into the same folder is refused, and changes nothing.
    roster = tmp_path / "roster.csv"
    assert cli.main(["init", str(folder), "--game", "stake_raid", "--roster",
                     str(roster)]) == 2
    assert (folder / "data" / "ladder.db").read_bytes()[:100] == database[:100]


def test_submissions_are_their_owners_only(ladder):
    store, client, tokens, _ = ladder
    response = send(client, tokens["ann"], zip_bytes(AGENTS["ann"]))
    assert response.status_code == 201
    assert set(response.json()) == {"id", "status"}
    mine = response.json()["id"]
    assert client.get(f"/api/submissions/{mine}",
                      headers={"Authorization": f"Bearer {tokens['ann']}"}).json()[
        "status"] == "queued"
    for token in (tokens["ben"], "nope"):
        answer = client.get(f"/api/submissions/{mine}",
                            headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code in (401, 404)
        assert "ann" not in answer.text
    assert client.get(f"/api/submissions/{mine}").status_code == 401
    # A refused archive leaves no submission.
    refused = send(client, tokens["ann"], zip_bytes({"../x": "1"}))
    assert refused.status_code == 400 and "'..'" in refused.json()["error"]
    assert len(client.get("/api/submissions", headers={
        "Authorization": f"Bearer {tokens['ann']}"}).json()) == 1
    # The same files again within a minute: acknowledged, not a new submission (the
    # archive differs: another name inside a folder; the normalised form does not).
    again = send(client, tokens["ann"], zip_bytes({"agent/homework.py":
                                                   AGENTS["ann"]["homework.py"]}))
    assert again.status_code == 200
    assert again.json() == {"id": mine, "status": "queued", "identical": True}
    # Past the uploads per minute (3 here, the refused one counted): 429.
    assert send(client, tokens["ann"], zip_bytes(AGENTS["ben"])).status_code == 429
    assert send(client, tokens["ben"], zip_bytes(AGENTS["ann"])).status_code == 201


def test_every_workers_and_students_route_refuses_a_caller_without_its_token(ladder):
    """Each handler of the workers' protocol and of a student's submissions sits behind
    its token check (one decorator each): a forged or missing token gets 401 on every
    such route, and the handler never runs (no lease is taken, nothing is stored)."""
    store, client, tokens, worker = ladder
    guarded = [(method, route.path) for route in ROUTES
               for method in sorted(route.methods - {"HEAD"})
               if route.path.startswith(("/api/work/", "/api/submissions",
                                         "/api/challenges"))]
    assert len(guarded) == 12
    for method, path in guarded:
        url = path.replace("{id:int}", "1")
        for headers in ({}, {"Authorization": "Bearer forged"},
                        {"Authorization": f"Bearer {tokens['ann']}"} if
                        path.startswith("/api/work/") else {"Authorization": f"Bearer {worker}"}):
            answer = client.request(method, url, headers=headers, json={"worker": "w"})
            assert answer.status_code == 401, (method, path, headers)
    with store.session() as db:         # the anchors' builds are queued: none was leased
        assert db.query(Submission).filter_by(status="building").count() == 0
        assert db.query(Submission).filter_by(status="queued").count() > 0
    assert client.get("/api/submissions", headers={
        "Authorization": f"Bearer {tokens['ann']}"}).json() == []


def test_an_upload_past_the_cap_is_cut_while_it_streams(ladder):
    _, client, tokens, _ = ladder

    def chunks():                       # no Content-Length: chunked, 9 MB
        for _ in range(9 * 16):
            yield bytes(64 * 1024)
    response = client.post("/api/submissions", content=chunks(), headers={
        "Authorization": f"Bearer {tokens['ann']}",
        "Content-Type": "multipart/form-data; boundary=x"})
    assert response.status_code == 413


def work(client, worker, path, body=None):
    return client.post(path, json=body or {}, headers={"Authorization": f"Bearer {worker}"})


def test_leases_replay_a_dead_workers_game_once_and_refuse_late_results(ladder):
    store, client, tokens, worker = ladder
    assert work(client, "forged", "/api/work/lease").status_code == 401
    # The anchors' builds come first, then ann's.
    send(client, tokens["ann"], zip_bytes(AGENTS["ann"]))
    for _ in range(3):
        lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
        assert lease["kind"] == "build"
        done = work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
                    {"lease": lease["lease"], "error": None})
        assert done.status_code == 200
    first = work(client, worker, "/api/work/lease", {"worker": "w1"}).json()
    assert first["kind"] == "game"
    game = first["game"]
    # ann is new: her first games are against an anchor, colour-swapped.
    assert game["x"]["player"] == "ann" and game["o"]["staff"]
    # w1 dies: its lease expires; the game goes to w2 (attempt 2) ...
    store.settings["lease"] = 30
    with store.session.begin() as db:
        db.get(Game, game["id"]).lease_expires = time.time() - 1
    leases = [work(client, worker, "/api/work/lease", {"worker": "w2"}).json()
              for _ in range(2)]
    again = [lease for lease in leases if lease["game"]["id"] == game["id"]]
    assert len(again) == 1
    # ... w1's late result is refused; w2's is stored, once.
    late = work(client, worker, f"/api/work/games/{game['id']}",
                {"lease": first["lease"], "record": record_for(store, game, None)})
    assert late.status_code == 409
    fine = work(client, worker, f"/api/work/games/{game['id']}",
                {"lease": again[0]["lease"], "record": record_for(store, game, None)})
    assert fine.status_code == 200
    twice = work(client, worker, f"/api/work/games/{game['id']}",
                 {"lease": again[0]["lease"], "record": record_for(store, game, None)})
    assert twice.status_code == 409
    assert client.get(f"/api/games/{game['id']}").json()["x"] == "ann"
    # A second expiry voids a game (a poison game never stalls the ladder).
    other = next(lease for lease in leases if lease["game"]["id"] != game["id"])
    with store.session.begin() as db:
        row = db.get(Game, other["game"]["id"])
        row.lease_expires = time.time() - 1
        row.attempts = 2
    work(client, worker, "/api/work/lease", {"worker": "w3"})
    with store.session() as db:
        assert db.get(Game, other["game"]["id"]).state == "void"


def test_a_game_passed_over_too_long_goes_next_built_or_not(ladder):
    """A worker prefers games whose players it has built, but not for ever: a game that
    has waited PATIENCE seconds goes next. Otherwise a game whose players only a dead
    worker had built waits while its players, busy until it is played, get no game."""
    store, client, tokens, worker = ladder
    for name in NAMES:
        assert send(client, tokens[name], zip_bytes(AGENTS[name])).status_code == 201
    lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
    while lease["kind"] == "build":
        work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
             {"lease": lease["lease"], "error": None})
        lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
    with store.session() as db:
        subs = {db.get(Player, s.player_id).name: s.id for s in db.query(Submission)}
        cats = [g.id for g in db.query(Game).filter(Game.state == "pending")
                if subs["cat"] in (g.x_sub, g.o_sub)]
    assert cats
    built = {"built": [subs["ann"], subs["ben"]], "worker": "w2"}
    # Fresh games: a built one first, although cat's games are older than some.
    first = work(client, worker, "/api/work/lease", built).json()["game"]
    assert "cat" not in (first["x"]["player"], first["o"]["player"])
    with store.session.begin() as db:
        db.get(Game, cats[-1]).created = time.time() - store_module.games.PATIENCE - 1
    assert work(client, worker, "/api/work/lease", built).json()["game"]["id"] == cats[-1]


def test_a_record_that_does_not_replay_is_refused(ladder):
    store, client, tokens, worker = ladder
    send(client, tokens["ann"], zip_bytes(AGENTS["ann"]))
    for _ in range(3):
        lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
        work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
             {"lease": lease["lease"], "error": None})
    lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
    record = record_for(store, lease["game"], None)
    record["moves"][1][1] = record["moves"][0][1]          # the same square twice
    answer = work(client, worker, f"/api/work/games/{lease['game']['id']}",
                  {"lease": lease["lease"], "record": record})
    assert answer.status_code == 422


def login(client, token):
    page = client.get("/me")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    return client.post("/login", data={"csrf": csrf, "token": token},
                       follow_redirects=False)


def test_pages_log_in_with_the_token_and_refuse_forged_forms(ladder):
    _, client, tokens, _ = ladder
    page = client.get("/me")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "'unsafe-inline'" not in page.headers["content-security-policy"].split(
        "script-src")[1].split(";")[0]
    # A login form posted from another site (no matching cookie, foreign Origin).
    assert client.post("/login", data={"csrf": "guess", "token": tokens["ann"]},
                       headers={"Origin": "http://evil.test"}).status_code == 403
    assert login(client, "wrong").status_code == 403
    answer = login(client, tokens["ann"])
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    me = client.get("/me")
    assert "<h1>ann</h1>" in me.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', me.text).group(1)
    files = {"file": ("a.zip", zip_bytes({"homework.py": FIRST_EMPTY}), "application/zip")}
    # Without the session's CSRF token, or from another origin: refused, nothing stored.
    assert client.post("/me/upload", data={"csrf": "x"}, files=files).status_code == 403
    assert client.post("/me/upload", data={"csrf": csrf}, files=files,
                       headers={"Origin": "http://evil.test"}).status_code == 403
    assert "None yet" in client.get("/me").text
    done = client.post("/me/upload", data={"csrf": csrf}, files=files)
    assert done.status_code == 200 and "Submission" in done.text
    assert done.history[0].status_code == 303     # POST-redirect-GET
    assert 'id="submission-' in done.text


def test_entrant_controlled_text_is_escaped_on_every_page(ladder):
    store, client, tokens, worker = ladder
    hostile = "<script>alert(1)</script>\x1b[2J<img src=x onerror=alert(2)>"
    send(client, tokens["ann"], zip_bytes(AGENTS["ann"]))
    for _ in range(3):
        lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
        error = hostile if lease["submission"]["player"] == "ours:greedy" else None
        work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
             {"lease": lease["lease"], "error": error})
    lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
    work(client, worker, f"/api/work/games/{lease['game']['id']}",
         {"lease": lease["lease"], "record": record_for(store, lease["game"], None,
                                                        forfeit=hostile)})
    login(client, tokens["ann"])
    pages = [client.get("/"), client.get("/me"), client.get(f"/games/{lease['game']['id']}")]
    for page in pages:
        assert page.status_code == 200
        assert "<script>alert" not in page.text and "<img src=x" not in page.text
        assert "\x1b" not in page.text
    assert "&lt;script&gt;alert(1)" in pages[1].text         # the forfeit's stderr, shown
    assert "frame-ancestors 'none'" in pages[2].headers["content-security-policy"]
    replay = json.loads(re.search(r'id="replay-data">(.*?)</script>', pages[2].text).group(1))
    assert len(replay["games"]) == 1


def test_a_line_em_up_ladder_has_its_own_anchors_and_sizes(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nann\n")
    folder = tmp_path / "ladder"
    assert cli.main(["init", str(folder), "--game", "lineemup", "--roster", str(roster),
                     "--sizes", "4:3:1,5"]) == 0
    store = store_module.Store(config.load(folder))
    try:
        worker = (folder / "worker-token").read_text().strip()
        token = (folder / "tokens.csv").read_text().split()[1].split(",")[1]
        client = TestClient(web.make_app(store))
        built = []
        for _ in range(2):
            lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
            built.append(lease["submission"]["path"])
            work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
                 {"lease": lease["lease"], "error": None})
        assert built == ["ours:e2", "ours:e1"]
        send(client, token, zip_bytes({"lineemup_agent.py": "pass\n"}))
        lease = work(client, worker, "/api/work/lease", {"worker": "w"}).json()
        work(client, worker, f"/api/work/builds/{lease['submission']['id']}",
             {"lease": lease["lease"], "error": None})
        game = work(client, worker, "/api/work/lease", {"worker": "w"}).json()["game"]
        assert game["size"] in ("4:3:1", "5:4:2")
        assert client.get("/api/work/settings", headers={
            "Authorization": f"Bearer {worker}"}).json()["sizes"] == ["4:3:1", "5:4:2"]
    finally:
        store.close()


def test_an_init_that_fails_leaves_nothing_behind(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nann\n")
    folder = tmp_path / "ladder"
    # No PostgreSQL listens on port 1: one line, exit 2, no folder.
    assert cli.main(["init", str(folder), "--game", "stake_raid", "--roster", str(roster),
                     "--db", "postgresql://ladder@127.0.0.1:1/none"]) == 2
    assert "cannot create the database" in capsys.readouterr().err
    assert not folder.exists()
    folder.mkdir()
    assert cli.main(["init", str(folder), "--game", "stake_raid", "--roster", str(roster),
                     "--db", "postgresql://ladder@127.0.0.1:1/none"]) == 2
    assert list(folder.iterdir()) == []
