"""Every string an entrant or a student controls reaches the terminal through printable().

Folder names (a student's, an entrant's), build logs, stderr and outputs of hostile
programs carry ESC and other control characters; each command that prints them (grade
run, grade merge, tournament run, merge and sprt) is run on them, and no raw ESC, CR or
BEL may reach its stdout or stderr. (``tournament sprt`` once printed a failed entrant's
name raw.)
"""

import json
import os
import subprocess
import sys

from golden import REPO
from grading_helpers import FIRST_EMPTY, LAST_EMPTY, stake_raid_case, submission

from engine.grading.case import write_case

EVIL = "\x1b[2J\x1b[31mevil\rname\x07"
# A Makefile whose build fails, printing control characters.
FAILING_MAKEFILE = ("agent:\n\tprintf '\\033[2J\\033[31mbuild broke\\r\\007\\n' >&2; "
                    "exit 1\nrun:\n\ttrue\n")
LOUD = ("import sys\nsys.stderr.write('\\x1b[2J\\x1b]0;pwned\\x07\\r')\n"
        "print('\\x1b[31m')\nopen('output.txt', 'w').write('\\x1b[2Jok\\n')\n")


def engine(*args, cwd=REPO):
    completed = subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd,
                               capture_output=True, env=dict(os.environ, PYTHONPATH=str(REPO)),
                               timeout=600)
    return completed


def assert_clean(completed):
    for stream in (completed.stdout, completed.stderr):
        for char in (b"\x1b", b"\r", b"\x07"):
            assert char not in stream, (char, stream[-2000:])


def test_grade_run_and_merge_show_control_characters_escaped(tmp_path):
    cases = tmp_path / "cases"
    write_case(stake_raid_case(), cases / "c1")
    folder = tmp_path / "class"
    submission(folder / EVIL, {"homework.py": LOUD})
    submission(folder / "plain", {"homework.py": "open('output.txt','w').write('ok\\n')\n"})
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"s{index}.json"
        done = engine("grade", "run", "stake_raid", str(folder), "--cases", str(cases),
                      "--shard", f"{index}/2", "--json", str(shard), "--timeout", "5")
        assert done.returncode == 0, done.stderr
        assert_clean(done)
        shards.append(str(shard))
    merged = engine("grade", "merge", *shards, "--json", str(tmp_path / "all.json"))
    assert merged.returncode == 0, merged.stderr
    assert_clean(merged)
    names = [os.path.basename(entry["submission"]) for entry in
             json.loads((tmp_path / "all.json").read_text())["submissions"]]
    assert EVIL in names              # the JSON keeps the name as it is


def test_tournament_run_merge_and_sprt_show_control_characters_escaped(tmp_path):
    evil = submission(tmp_path / EVIL, {"homework.py": FIRST_EMPTY})
    other = submission(tmp_path / "last", {"homework.py": LAST_EMPTY})
    broken = submission(tmp_path / (EVIL + "broken"), {"Makefile": FAILING_MAKEFILE})
    common = ["tournament", "run", "stake_raid", str(evil), str(other), str(broken),
              "--sizes", "3", "--pairs", "1", "--time", "5"]
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"t{index}.json"
        done = engine(*common, "--shard", f"{index}/2", "--json", str(shard))
        assert done.returncode == 0, done.stderr
        assert_clean(done)
        shards.append(str(shard))
    merged = engine("tournament", "merge", *shards, "--json", str(tmp_path / "m.json"))
    assert merged.returncode == 0, merged.stderr
    assert_clean(merged)
    # An SPRT whose entrant does not build stops with one line naming it.
    failed = engine("tournament", "sprt", "stake_raid", str(broken), str(other),
                    "--elo0", "0", "--elo1", "100", "--sizes", "3", "--time", "5")
    assert failed.returncode == 2 and b"did not build" in failed.stderr, failed.stderr
    assert_clean(failed)
    decided = engine("tournament", "sprt", "stake_raid", str(evil), str(other),
                     "--elo0", "0", "--elo1", "100", "--sizes", "3", "--time", "5",
                     "--max-pairs", "1")
    assert decided.returncode == 0, decided.stderr
    assert b"\\x1b" in decided.stdout + decided.stderr      # shown, escaped
    assert_clean(decided)
    # The Elo estimate counts A's games under its own name, not the escaped one: the
    # same code under a plain name gets the same estimate.
    plain = submission(tmp_path / "plain", {"homework.py": FIRST_EMPTY})
    same = engine("tournament", "sprt", "stake_raid", str(plain), str(other),
                  "--elo0", "0", "--elo1", "100", "--sizes", "3", "--time", "5",
                  "--max-pairs", "1")
    assert same.returncode == 0, same.stderr
    assert same.stdout.split(b"; Elo ")[1] == decided.stdout.split(b"; Elo ")[1]


def test_one_line_errors_show_a_named_folder_escaped(tmp_path):
    """A usage error quoting a folder name (a missing submission, an entrant that is no
    entrant) shows it escaped."""
    missing = str(tmp_path / EVIL)
    empty = tmp_path / (EVIL + "empty")
    empty.mkdir()
    for args in (("grade", "run", "stake_raid", missing, "--count", "1"),
                 ("tournament", "run", "stake_raid", missing, str(empty)),
                 ("tournament", "sprt", "stake_raid", str(empty), missing, "--elo0", "0",
                  "--elo1", "100")):
        done = engine(*args)
        assert done.returncode in (0, 2), done.stderr
        assert_clean(done)
