"""A tie in the standings is ordered the same way on the terminal, in the CSV and on the
page: by name after points, rating and forfeits, never by the document's order."""

import re

from test_tournament_report import entrant

from engine.tournament import report, results
from engine.tournament.cli import standings_text


def document():
    return {"game": "stake_raid", "format": "round-robin", "time": 200, "seed": 1,
            "isolation": "rlimits", "sizes": [5], "pairs": 1, "games_per_match": 2,
            "rounds": None, "shard": None, "complete": True,
            "entrants": [dict(row, beaten=0) for row in (
                entrant("zoe", 2.0, 0.0), entrant("amy", 2.0, 0.0),
                entrant("max", 2.0, 0.0, forfeits={"timeout": 1}),
                entrant("bob", 3.0, 0.0))],
            "games": [], "pentanomial": [], "knockout": [], "sprt": None}


def test_a_tie_is_ordered_alike_everywhere():
    doc = document()
    expected = ["bob", "amy", "zoe", "max"]
    console = [line.split()[1] for line in standings_text(doc).split("\n")[1:5]]
    csv = [line.split(",")[1] for line in results.csv_text(doc).split("\n")[1:5]]
    page = report.render(doc)
    table = page[page.index("Standings"):]
    shown = [name for name in re.findall(r">(zoe|amy|max|bob)<", table)]
    first_seen = list(dict.fromkeys(shown))[:4]
    assert console == expected and csv == expected and first_seen == expected


def test_a_loose_file_of_a_class_folder_is_in_the_standings(tmp_path):
    import os
    import subprocess
    import sys

    from golden import REPO
    from grading_helpers import FIRST_EMPTY, LAST_EMPTY

    for name, agent in (("alice", FIRST_EMPTY), ("bob", LAST_EMPTY)):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "homework.py").write_text(agent)
    (tmp_path / "class" / "carol.py").write_text(FIRST_EMPTY)
    done = subprocess.run(
        [sys.executable, "-m", "engine", "tournament", "run", "stake_raid", "class",
         "--sizes", "3", "--pairs", "1", "--time", "5", "--jobs", "1", "--isolation",
         "rlimits", "--quiet", "--csv", "standings.csv"], cwd=tmp_path,
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert done.returncode == 0, done.stderr
    assert "carol.py" in done.stdout and "loose file" in done.stdout
    rows = (tmp_path / "standings.csv").read_text().split("\n")
    assert any(row.split(",")[1] == "carol.py" and "loose file" in row for row in rows)
