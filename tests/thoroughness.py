"""How many examples a property test draws: every one under ``make test-all`` and
``make test-slow`` (which set TESTS_THOROUGH=1, as CI does), a third of them (at least 10)
in the everyday ``make test``, which must stay short."""

import os

THOROUGH = os.environ.get("TESTS_THOROUGH") == "1"


def examples(count: int) -> int:
    """``count`` under the thorough runs; a third of it, at least 10, every day."""
    return count if THOROUGH else min(count, max(10, count // 3))
