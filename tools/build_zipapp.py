"""Build a self-contained executable from a top-level program script (make tictactoe,
make dist).

    python3 tools/build_zipapp.py SCRIPT OUTPUT

OUTPUT is a zip application (PEP 441) holding engine/ and SCRIPT as __main__.py behind a
``#!/usr/bin/env python3`` line: it runs from any working directory, with the same
arguments, stdout and exit code as ``python3 SCRIPT``.
"""

import os
import shutil
import sys
import tempfile
import zipapp
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build(script, output):
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with tempfile.TemporaryDirectory() as staging:
        staging = Path(staging)
        shutil.copytree(ROOT / "engine", staging / "engine",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copy(ROOT / script, staging / "__main__.py")
        temporary = Path(str(output) + ".tmp")
        zipapp.create_archive(staging, temporary, interpreter="/usr/bin/env python3",
                              compressed=True)
        os.chmod(temporary, 0o755)
        os.replace(temporary, output)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: build_zipapp.py SCRIPT OUTPUT")
    build(sys.argv[1], sys.argv[2])
