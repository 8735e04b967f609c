"""Test configuration: make the repository and tests/ importable."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# The tests check the error contract's exact stderr: a developer's ENGINE_DEBUG=1 (the
# programs' traceback switch, docs/engine.md) must not reach the programs they run.
os.environ.pop("ENGINE_DEBUG", None)
