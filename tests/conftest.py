"""Test configuration: make the repository and tests/ importable."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# The tests check the error contract's exact stderr: a developer's ENGINE_DEBUG=1 (the
# programs' traceback switch, docs/engine.md) must not reach the programs they run.
os.environ.pop("ENGINE_DEBUG", None)


@pytest.fixture(scope="session")
def installed_project(tmp_path_factory):
    """A new venv with the project installed by ``pip install`` from a copy of it (engine/,
    pyproject.toml, README.md: what a user's checkout holds, no caches), as a user
    installs it; made once per test process, shared by every installed-command test (a
    pip install costs about 12 s). Skips when pip cannot build the project here."""
    home = tmp_path_factory.mktemp("installed")
    source = home / "project"
    source.mkdir()
    shutil.copytree(ROOT / "engine", source / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    environment = home / "venv"
    venv.create(environment, with_pip=True)
    installing = subprocess.run([str(environment / "bin" / "pip"), "install", "-q",
                                 str(source)], capture_output=True, text=True, timeout=600)
    if installing.returncode != 0:
        pytest.skip("pip cannot install the project here: " + installing.stderr[-300:])
    return environment
