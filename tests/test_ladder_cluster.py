"""cluster/slurm/ladder-workers.sbatch on a real one-node Slurm: an array of two workers
pulls a ladder's games over HTTP (the token from a file, never on a command line), plays
its --games and ends; the games are on the ladder, played by the array's tasks."""

import os
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("starlette")

from ladder_helpers import AGENTS, Ladder  # noqa: E402
from slurm_helpers import ClusterUnavailable, slurm_cluster  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "cluster" / "slurm" / "ladder-workers.sbatch"

pytestmark = [pytest.mark.cluster,
              pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="the workers' sandbox needs bubblewrap here")]


def test_an_array_of_ladder_workers_plays_the_ladders_games(tmp_path):
    ladder = Ladder(["ann", "ben"], workers=0)
    try:
        ladder.upload_agents({name: AGENTS[name] for name in ("ann", "ben")})
        token = tmp_path / "worker-token"
        token.write_text(ladder.worker_token() + "\n")
        token.chmod(0o600)
        out = tmp_path / "out"
        out.mkdir()
        try:
            with slurm_cluster(tmp_path / "slurm") as cluster:
                done = cluster.run("sbatch", "--array=1-2", f"--chdir={out}",
                                   "--export=ALL,REPO={},SERVER={},TOKEN_FILE={},GAMES=3"
                                   .format(REPO, ladder.url, token), str(SCRIPT))
                assert done.returncode == 0, done.stderr
                job = re.search(r"(\d+)", done.stdout).group(1)
                states = cluster.wait_jobs([job], seconds=600)
                assert set(states) == {"COMPLETED"}, (states, [
                    path.read_text()[-2000:] for path in out.glob("*.log")])
        except ClusterUnavailable as reason:
            pytest.skip(str(reason))
        records = ladder.games()
        assert len(records) >= 6
        logs = "".join(path.read_text() for path in sorted(out.glob("*.log")))
        assert logs.count("played 3 games") == 2
        assert ladder.worker_token() not in logs
        import sqlite3
        database = os.path.join(ladder.folder, "data", "ladder.db")
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            workers = {row[0] for row in db.execute(
                "select distinct worker from games where state = 'done'")}
        assert workers == {f"slurm-{job}-1", f"slurm-{job}-2"}
    finally:
        ladder.stop()
        ladder.remove()
