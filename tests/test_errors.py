"""One error hierarchy under EngineError (docs/engine.md, "Errors"): every exception class
engine/ defines derives from it (the test imports every module and looks), docs/engine.md
names each, and those that callers caught as a built-in error still are one too."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import engine
from engine.errors import EngineError, SearchTimeout, UsageError

REPO = Path(__file__).resolve().parent.parent
# The built-in error each of these classes also is (callers' ``except`` clauses).
ALSO = {"IsolationError": ValueError, "SandboxError": RuntimeError,
        "LauncherError": OSError, "LandlockError": OSError, "LeaseError": OSError,
        "JudgeError": TypeError, "Ambiguous": ValueError, "BundleError": ValueError,
        "EntrantError": ValueError, "SizeError": ValueError, "ResultsError": ValueError,
        "RatingsError": ValueError, "SprtError": ValueError, "LadderError": ValueError,
        "Refused": ValueError, "FileFormatError": UsageError,
        "TreeSyntaxError": UsageError, "TooManyNodes": UsageError}


def engine_modules():
    """Every module of engine/ that imports here (the ladder's web and store need its
    extra: without it they are left out, as the rest of the suite leaves them)."""
    found = []
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if info.name.endswith("__main__"):
            continue
        try:
            found.append(importlib.import_module(info.name))
        except ImportError as error:
            if "ladder" not in info.name:
                raise
            assert error.name in ("sqlalchemy", "starlette", "uvicorn", "jinja2",
                                  "alembic", "multipart"), error
    return found


def exception_classes():
    """{name: class} of every exception class defined in engine/."""
    classes = {}
    for module in engine_modules():
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == module.__name__):
                classes[f"{module.__name__}.{name}"] = value
    return classes


CLASSES = exception_classes()


def test_the_walk_finds_the_hierarchy():
    names = {qualified.rsplit(".", 1)[1] for qualified in CLASSES}
    assert {"EngineError", "UsageError", "SandboxError", "EntrantError"} <= names
    assert len(CLASSES) >= 25


@pytest.mark.parametrize("qualified", sorted(CLASSES))
def test_every_exception_class_is_an_engine_error(qualified):
    error = CLASSES[qualified]
    assert issubclass(error, EngineError), f"{qualified} is not an EngineError"
    name = qualified.rsplit(".", 1)[1]
    if name in ALSO:
        assert issubclass(error, ALSO[name])    # ``except ValueError`` callers still work
    assert error.exit_code == (0 if name == "InvalidInput" else 2)


def test_the_page_names_every_class():
    page = (REPO / "docs" / "engine.md").read_text()
    errors = page.split("## Errors", 1)[1].split("\n## ", 1)[0]
    missing = sorted({qualified.rsplit(".", 1)[1] for qualified in CLASSES
                      if qualified != "engine.errors.EngineError"}
                     - {word.strip("`") for word in errors.split() if word.startswith("`")
                        for word in [word.rstrip(",")]})
    assert not missing, f"docs/engine.md's Errors table lacks {missing}"


def test_the_core_of_the_hierarchy():
    assert issubclass(UsageError, EngineError) and issubclass(SearchTimeout, EngineError)
    assert EngineError.exit_code == UsageError.exit_code == 2
