"""The sandbox's choice of fences, and the files it hides (engine.sandbox)."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from golden import REPO
from grading_helpers import ISOLATIONS, grade, only_case, stake_raid_case, submission

from engine.sandbox import IsolationError, Sandbox, parse_isolation
from engine.sandbox import _bubblewrap, _isolation, _landlock
from engine.sandbox._landlock import carve

FILE_FENCES = [name for name in ISOLATIONS if name != "rlimits"]


def test_isolation_words():
    assert parse_isolation("auto") == ("auto", set())
    assert parse_isolation("bwrap") == ("bwrap", set())
    assert parse_isolation("landlock+cgroup+uid") == ("landlock", {"cgroup", "uid"})
    assert parse_isolation("rlimits") == ("none", set())
    assert parse_isolation("rlimits+seccomp") == ("none", {"seccomp"})
    assert parse_isolation("bwrap+seccomp") == ("bwrap", {"seccomp"})
    for bad in ("", "docker", "bwrap+landlock"):
        with pytest.raises(IsolationError):
            parse_isolation(bad)


def test_carve_allows_everything_but_the_hidden_paths(tmp_path):
    for path in ("usr/lib/a", "usr/lib/python/engine/x", "usr/lib/python/other",
                 "usr/share/b", "etc"):
        (tmp_path / path).mkdir(parents=True)
    (tmp_path / "usr" / "lib" / "python" / "file.py").write_text("")
    hidden = [str(tmp_path / "usr" / "lib" / "python" / "engine")]
    readable, listable = carve(
        [str(tmp_path / "usr"), str(tmp_path / "etc"), str(tmp_path / "nope")], hidden)

    def relative(paths):
        return sorted(Path(path).relative_to(tmp_path).as_posix() for path in paths)
    assert relative(readable) == [
        "etc", "usr/lib/a", "usr/lib/python/file.py", "usr/lib/python/other", "usr/share"]
    assert relative(listable) == ["usr", "usr/lib", "usr/lib/python"]
    assert carve([str(tmp_path / "usr")], [str(tmp_path / "usr")]) == ([], [])


def test_auto_never_falls_back_to_no_file_fence_silently(monkeypatch):
    monkeypatch.setattr(_bubblewrap, "bwrap_works", lambda uid=None: False)
    monkeypatch.setattr(_landlock, "landlock_works", lambda: False)
    with pytest.raises(IsolationError, match="--isolation rlimits"):
        Sandbox(isolation="auto")
    # Insisting on a fence that cannot run is refused too; rlimits is the user's choice.
    with pytest.raises(IsolationError):
        Sandbox(isolation="landlock")
    sandbox = Sandbox(isolation="rlimits")
    try:
        assert not {"bwrap", "landlock"} & set(sandbox.fences)
    finally:
        sandbox.close()


def test_without_a_file_fence_the_kit_says_so(tmp_path):
    folder = submission(tmp_path / "s", {"homework.py": "open('output.txt','w').write('ok\\n')\n"})
    completed = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", str(folder),
         "--isolation", "rlimits", "--count", "1", "--quiet"],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert ("grade: warning: neither bwrap nor Landlock runs: submissions can read every "
            "world-readable file (the reference, the cases)") in completed.stderr


def test_a_fence_that_cannot_run_is_a_usage_error(tmp_path, monkeypatch):
    folder = submission(tmp_path / "s", {"homework.py": ""})
    completed = subprocess.run(
        [sys.executable, "-m", "engine", "grade", "run", "stake_raid", str(folder),
         "--isolation", "bwrap+landlock", "--count", "1"],
        capture_output=True, text=True, cwd=REPO, timeout=120)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1
    assert "exclude each other" in completed.stderr


@pytest.fixture
def installed_engine():
    """Our engine and a cases folder under /opt, a system folder every sandbox shows:
    as if the kit had been installed there."""
    if not os.access("/opt", os.W_OK):
        pytest.skip("/opt is not writable here")
    home = Path(tempfile.mkdtemp(prefix="grade-test-", dir="/opt"))
    home.chmod(0o755)
    try:
        shutil.copytree(REPO / "engine", home / "site" / "engine",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(REPO / "homework.py", home / "site" / "homework.py")
        os.chmod(home / "site", 0o755)
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.parametrize("isolation", FILE_FENCES)
def test_an_installed_reference_and_cases_are_masked(installed_engine, isolation):
    """Copies of our engine and of the cases inside a system folder are invisible,
    though the folder around them is not."""
    site = installed_engine / "site"
    cases = installed_engine / "cases"
    cases.mkdir()
    (cases / "answers.txt").write_text("the answers\n")
    code = f"""
import os, subprocess
seen = []
for path in ({str(site / 'engine' / 'search.py')!r}, {str(cases / 'answers.txt')!r}):
    try:
        seen.append(open(path).read()[:20])
    except OSError as error:
        seen.append('denied')
ran = subprocess.run(['python3', {str(site / 'homework.py')!r}], capture_output=True)
seen.append('ran' if ran.returncode == 0 else 'refused')
seen.append('listed' if os.listdir({str(installed_engine)!r}) else 'empty')
open('output.txt', 'w').write(' '.join(seen) + '\\n')
"""
    folder = submission(Path(tempfile.mkdtemp()) / "s", {"homework.py": code})
    case = stake_raid_case(output=b"denied denied refused listed\n")
    # The kit hides its own engine wherever it runs from; here, also this copy of it.
    original = _isolation.reference_paths
    _isolation.reference_paths = lambda: original() + [str(site)]
    try:
        record = only_case(grade("stake_raid", [folder], [case], isolation,
                                 hidden=[str(cases)]))
    finally:
        _isolation.reference_paths = original
        shutil.rmtree(folder.parent, ignore_errors=True)
    assert record["passed"], record.get("compared")


def test_reference_paths_name_the_engine_and_its_checkout():
    paths = _isolation.reference_paths()
    assert str(REPO / "engine") in paths
    assert str(REPO) in paths
