"""One error hierarchy under EngineError (docs/engine.md, "Errors"): every class the page
lists derives from it, and those that callers caught as ValueError, OSError or
RuntimeError still are one too."""

import importlib

import pytest

from engine.errors import EngineError, SearchTimeout, UsageError

# (module, class, the built-in error it also is, or None), as docs/engine.md lists them.
HIERARCHY = [
    ("engine.errors", "UsageError", None),
    ("engine.errors", "SearchTimeout", None),
    ("engine.games.stake_raid_files", "FileFormatError", None),
    ("engine.games.explicit_tree", "TreeSyntaxError", None),
    ("engine.pictures.stepper", "TooManyNodes", None),
    ("engine.programs.take_stones.program", "InvalidInput", None),
    ("engine.programs.lineemup.check", "LayoutError", None),
    ("engine.grading.fences", "IsolationError", ValueError),
    ("engine.grading.sandbox", "SandboxError", RuntimeError),
    ("engine.grading.launcher", "LauncherError", OSError),
    ("engine.grading.landlock", "LandlockError", OSError),
    ("engine.grading.autograder", "BundleError", ValueError),
    ("engine.tournament.entrants", "EntrantError", ValueError),
    ("engine.tournament.games", "SizeError", ValueError),
    ("engine.tournament.results", "ResultsError", ValueError),
    ("engine.tournament.ratings", "RatingsError", ValueError),
    ("engine.tournament.sprt", "SprtError", ValueError),
]


@pytest.mark.parametrize("module, name, builtin", HIERARCHY)
def test_each_listed_error_is_an_engine_error(module, name, builtin):
    error = getattr(importlib.import_module(module), name)
    assert issubclass(error, EngineError)
    if builtin is not None:
        assert issubclass(error, builtin)       # ``except ValueError`` callers still work
    assert error.exit_code == (0 if name == "InvalidInput" else 2)


def test_the_page_lists_every_class_of_the_table():
    from pathlib import Path
    page = (Path(__file__).resolve().parent.parent / "docs" / "engine.md").read_text()
    for _, name, _ in HIERARCHY:
        assert f"`{name}`" in page, name


def test_the_core_of_the_hierarchy():
    assert issubclass(UsageError, EngineError) and issubclass(SearchTimeout, EngineError)
    assert EngineError.exit_code == UsageError.exit_code == 2
