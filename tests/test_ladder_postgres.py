"""The ladder end to end on PostgreSQL: a throw-away cluster started by the test
(Debian's binaries, owned by nobody, on 127.0.0.1), one local worker and one worker
pulling games over HTTP as on another machine (`ladder work --server URL`), the same
checks as on SQLite; the remote worker is the one killed with kill -9 mid-game."""

import shutil
import signal

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")
psycopg = pytest.importorskip("psycopg")

from ladder_helpers import AGENTS, Ladder, Postgres, request  # noqa: E402
from test_ladder_server import (check_hostile, check_kill, check_killed_game_settled,  # noqa: E402
                                check_leaderboard,
                                check_refusals, check_replays, check_tokens)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="the workers' sandbox needs bubblewrap here"),
              pytest.mark.skipif(not Postgres.available(),
                                 reason="no PostgreSQL server binaries (Debian: "
                                        "apt-get install postgresql)")]


def test_a_ladder_on_postgresql_with_a_remote_worker():
    database = Postgres()
    ladder = None
    try:
        ladder = Ladder(list(AGENTS), db=database.url, workers=1)
        settings = request(ladder.url + "/api/leaderboard")
        assert settings[0] == 200
        remote = ladder.start_remote_worker("remote-1")
        ids = ladder.upload_agents()
        ladder.wait_for_games(20)
        with psycopg.connect(database.url) as connection:
            workers = {row[0] for row in connection.execute(
                "select distinct worker from games where state = 'done'")}
        assert "remote-1" in workers and "local-0" in workers
        check_refusals(ladder)
        check_tokens(ladder, ids)

        def rows():
            with psycopg.connect(database.url) as connection:
                return connection.execute(
                    "select id, worker from games where state = 'leased'").fetchall()
        killed = check_kill(ladder, lambda: remote.send_signal(signal.SIGKILL), "remote-1",
                            rows)
        with psycopg.connect(database.url) as connection:
            attempts, state, worker = connection.execute(
                "select attempts, state, worker from games where id = %s",
                (killed,)).fetchone()
            check_killed_game_settled(attempts, state, worker, "remote-1")
        check_hostile(ladder, ids)
        ladder.stop()
        ladder.start(workers=0)
        _, records = check_leaderboard(ladder)
        check_replays(records)
        assert ladder.late_imports() == [], ladder.log_text()
    finally:
        if ladder is not None:
            ladder.stop()
            ladder.remove()
        database.stop()
