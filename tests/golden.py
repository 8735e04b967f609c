"""The golden harness: replay fixture cases exactly the way a grader runs a program.

Two kinds of case live under ``fixtures/<program>/``:

* OUR cases, one YAML file each (``fixtures/<program>/<case>.yml``), read and rewritten
  by pytest-golden: ``make update-goldens`` (``pytest --update-goldens``) records what
  the programs print now, after a reviewed change. The fields are those of
  :func:`engine.grading.case.case_to_fields`: inputs ``cmd``, ``stdin``, ``files``;
  expected ``exit``, ``stdout``, ``stderr`` (checked only when present), ``expected``
  (files that must exist afterwards; the folder must hold nothing else).
* The OFFICIAL samples (:data:`OFFICIAL`: expected outputs that came with the
  assignments) stay raw case folders (``cmd``, ``stdout``, ``files/``, ``expected/``, ...,
  see :mod:`engine.grading.case`): no tool ever rewrites them, and tests/test_golden.py
  proves that an update run leaves them untouched.

Bytes YAML cannot carry faithfully are ESCAPED, never left to the YAML writer. A text is
stored plainly only when it is UTF-8 without CR, other control characters (LF and TAB
excepted), format characters (a BOM), line/paragraph separators or unassigned code
points; pytest-golden writes plain texts as literal blocks, and trailing blanks, tabs,
leading spaces, blank last lines and a missing final newline all come back byte for
byte (tests/test_golden.py checks that rule with hypothesis through pytest-golden's own
writer and reader). Any other text is stored under ``<field>_escaped`` (``stdout_escaped``,
or an entry of ``files_escaped`` / ``expected_escaped``) with ``\\\\``, ``\\r``,
``\\xNN`` (a byte that is not UTF-8) and ``\\uNNNN`` escapes, so CRLF input such as
``stake_raid/sample3_crlf_trailing_spaces`` is still compared exactly.

Both kinds become a :class:`engine.grading.case.Case` and are checked by the one
:func:`engine.grading.case.compare`. PYTHON is ``sys.executable`` unless the environment
variable GOLDEN_PYTHON names another interpreter (``.ci/run`` sets it to pypy3 and
python3.8 to replay under them); pytest itself always runs in the venv.

``PYTHONPATH=. .venv/bin/python tests/golden.py convert FOLDER...`` turns raw case folders
into YAML files (checking that each file reads back as exactly the same Case) and removes
the folders.
"""

import os
import shutil
import sys
from pathlib import Path

from engine.grading.case import (REPO, case_from_fields, case_to_fields, load_case,
                                 replay as replay_case)

FIXTURES = REPO / "fixtures"
YAML_SUFFIX = ".yml"

# The official samples: the assignments' own expected outputs, raw bytes, never rewritten.
# ``lineemup/course-samples`` is not a runnable case (no cmd: real times in it); it is
# compared line by line by tests/test_lineemup.py.
OFFICIAL = frozenset(
    [f"tictactoe/case{number:03d}" for number in range(1, 13)]
    + [f"stake_raid/sample{number}" for number in range(1, 4)]
    + [f"take_stones/official_case{number}" for number in range(1, 6)]
    + ["lineemup/course-samples"])


def interpreter():
    """The Python that runs the programs under test."""
    return os.environ.get("GOLDEN_PYTHON") or sys.executable


# --- finding cases ---------------------------------------------------------------------
def raw_cases(fixtures=FIXTURES):
    """Every raw case folder (one holding a ``cmd`` file), sorted, as paths."""
    return sorted(path.parent for path in fixtures.glob("*/*/cmd"))


def yaml_cases(fixtures=FIXTURES):
    """Every YAML golden file, sorted, as paths."""
    return sorted(fixtures.glob(f"*/*{YAML_SUFFIX}"))


def case_id(path):
    """``program/case`` for a case folder or YAML file."""
    name = path.name[:-len(YAML_SUFFIX)] if path.name.endswith(YAML_SUFFIX) else path.name
    return f"{path.parent.name}/{name}"


def load_any(path):
    """The Case stored in a raw case folder or a YAML golden file."""
    path = Path(path)
    if path.name.endswith(YAML_SUFFIX):
        return case_from_fields(path.name[:-len(YAML_SUFFIX)], read_yaml(path))
    return load_case(path)


def program_cases(program, fixtures=FIXTURES):
    """Every case of ``fixtures/<program>/``, raw and YAML, as Cases sorted by name."""
    paths = [path for path in raw_cases(fixtures) + yaml_cases(fixtures)
             if path.parent.name == program]
    return sorted((load_any(path) for path in paths), key=lambda case: case.name)


def replay(case, workdir, timeout=600):
    """Run ``case`` (a Case, a case folder or a YAML file) in the empty ``workdir``;
    return a list of mismatches."""
    if not hasattr(case, "program"):
        case = load_any(case)
    return replay_case(case, workdir, python=interpreter(), timeout=timeout)


# --- YAML through pytest-golden's own reader and writer ---------------------------------
def read_yaml(path):
    """The mapping in a golden file, read as pytest-golden reads it."""
    from pytest_golden import yaml
    with open(path, encoding="utf-8") as handle:
        return yaml._safe.load(handle) or {}


def dump_yaml(fields, path):
    """Write ``fields`` as pytest-golden's ``--update-goldens`` writes a golden file, so
    that an update run leaves a file it does not change byte for byte the same."""
    from pytest_golden import yaml
    fields = dict(fields)
    yaml._prepare_for_output(fields)
    with open(path, "w", encoding="utf-8") as handle:
        yaml._rt.dump(fields, handle)


def convert(folder):
    """Turn the raw case folder ``folder`` into ``<folder>.yml`` and remove the folder.

    Lossless or nothing: the YAML file must read back as exactly the Case the folder
    held, else it is deleted and ValueError raised. Official samples are refused.
    """
    folder = Path(folder).resolve()
    if case_id(folder) in OFFICIAL:
        raise ValueError(f"{case_id(folder)} is an official sample: it stays raw")
    case = load_case(folder)
    target = folder.with_name(folder.name + YAML_SUFFIX)
    if target.exists():
        raise ValueError(f"{target} exists already")
    dump_yaml(case_to_fields(case), target)
    if load_any(target) != case:
        target.unlink()
        raise ValueError(f"{case_id(folder)}: the YAML file does not read back the same")
    shutil.rmtree(folder)
    return target


def main(argv):
    if len(argv) < 2 or argv[0] != "convert":
        print("usage: PYTHONPATH=. .venv/bin/python tests/golden.py convert FOLDER...",
              file=sys.stderr)
        return 2
    for folder in argv[1:]:
        print(convert(folder).relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
