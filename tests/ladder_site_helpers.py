"""A ladder in this process for the pages' tests: `ladder init` into a folder, the
application over its store (Starlette's test client, or uvicorn on a thread for a
browser), and games played through the workers' own API with records whose moves are
legal (the referee's boards), so that the pages show what a real ladder shows without
a sandbox or a worker process."""

import re
import threading
import time

from starlette.testclient import TestClient

from engine.ladder import cli, config, store as store_module, web
from engine.games.stake_raid import RAID
from engine.tournament.games import rules_for

# The hostile stderr of a forfeit: markup, control characters.
HOSTILE = "<script>alert(1)</script>\x1b[2J<img src=x onerror=alert(2)>"


class Site:
    """A ladder of ``names`` (Stake/Raid, ``sizes``) served by the application
    (``client``: a test client; ``serve()``: a real server on 127.0.0.1)."""

    def __init__(self, tmp_path, names, sizes="4,5", **settings):
        roster = tmp_path / "roster.csv"
        roster.write_text("name\n" + "\n".join(names) + "\n")
        self.folder = tmp_path / "ladder"
        assert cli.main(["init", str(self.folder), "--game", "stake_raid", "--roster",
                         str(roster), "--time", "1", "--sizes", sizes, "--lease", "30"]) == 0
        self.settings = config.load(self.folder)
        self.settings.update(settings)
        self.store = store_module.Store(self.settings)
        self.tokens = dict(line.split(",") for line in
                           (self.folder / "tokens.csv").read_text().split()[1:])
        self.worker = (self.folder / "worker-token").read_text().strip()
        self.app = web.make_app(self.store)
        self.client = TestClient(self.app, base_url="http://ladder.test")
        self.server = None

    def close(self):
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(10)
        self.client.close()
        self.store.close()

    # --- serving for a browser ----------------------------------------------------------

    def serve(self):
        """Serve the application on 127.0.0.1 (a free port) on a thread; its URL."""
        import uvicorn
        config_ = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning",
                                 lifespan="off")
        self.server = uvicorn.Server(config_)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    # --- a student ---------------------------------------------------------------------

    def log_in(self, name, client=None):
        """Log ``name`` in on the pages (whoever was logged in is forgotten); the CSRF
        token of the session."""
        client = client or self.client
        client.cookies.clear()
        page = client.get("/me")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        answer = client.post("/login", data={"csrf": csrf, "token": self.tokens[name]},
                             follow_redirects=False)
        assert answer.status_code == 303
        return csrf_of(client.get("/me").text)

    def upload(self, name, files):
        """Upload ``files`` for ``name`` through the API; the submission's id."""
        from ladder_helpers import zip_bytes
        answer = self.client.post("/api/submissions", files={
            "file": ("agent.zip", zip_bytes(files), "application/zip")},
            headers={"Authorization": f"Bearer {self.tokens[name]}"})
        assert answer.status_code in (200, 201), answer.text
        return answer.json()["id"]

    # --- a worker ----------------------------------------------------------------------

    def work(self, path, body=None):
        return self.client.post(path, json=body or {},
                                headers={"Authorization": f"Bearer {self.worker}"})

    def build_all(self, failing=None):
        """Build every queued submission (``failing``: {player: build log} fail)."""
        failing = failing or {}
        while self.store.games.counts()[1].get("queued", 0):
            lease = self.work("/api/work/lease", {"worker": "w"}).json()
            assert lease["kind"] == "build", lease
            player = lease["submission"]["player"]
            self.work(f"/api/work/builds/{lease['submission']['id']}",
                      {"lease": lease["lease"], "error": failing.get(player)})

    def play(self, count, forfeit_by=None, detail=HOSTILE):
        """Play ``count`` leased games: each side stakes the first empty square (X) or the
        last (O); a player named in ``forfeit_by`` forfeits its games at once with
        ``detail`` as its stderr. The ids of the games played."""
        played = []
        for _ in range(count):
            lease = self.work("/api/work/lease", {"worker": "w"}).json()
            assert lease["kind"] == "game", lease
            game = lease["game"]
            loser = next((side for side in ("x", "o")
                          if game[side]["player"] == forfeit_by), None)
            record = legal_record(game, loser, detail)
            answer = self.work(f"/api/work/games/{game['id']}",
                               {"lease": lease["lease"], "record": record})
            assert answer.status_code == 200, answer.text
            played.append(game["id"])
        self.store.standings.refresh()
        return played


def csrf_of(page_text):
    return re.search(r'name="csrf" value="([^"]+)"', page_text).group(1)


def legal_record(game, loser=None, detail=HOSTILE):
    """A finished record of the leased ``game``: X stakes the first empty square, O the
    last, to the end; or, with ``loser`` ("x" or "o"), that side forfeits at once."""
    rules = rules_for("stake_raid")
    cells = rules.setup(1, game["board"], int(game["size"]))
    board = rules.board(cells)
    moves = []
    if loser is not None:
        winner = "o" if loser == "x" else "x"
        return {"size": int(game["size"]), "cells": cells, "moves": [], "result": winner,
                "score": board.forfeit_scores(winner), "cpu": [0.0, 0.0],
                "forfeit": {"player": loser, "reason": "no output", "detail": detail}}
    while not board.over:
        stakes = sorted(a for a in board.game.actions(board._state()) if a < RAID)
        action = stakes[0] if board.side == "x" else stakes[-1]
        moves.append([board.side, board.play(action), 0.01])
    return {"size": int(game["size"]), "cells": cells, "moves": moves,
            "result": board.winner(), "score": board.scores(), "cpu": [0.1, 0.1],
            "forfeit": None}
