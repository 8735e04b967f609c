"""Seeded, valid, distinct cases for the four graded programs, with expected outputs.

Contract: ``generate_cases(program, count, seed)`` returns ``count`` distinct
:class:`~engine.grading.case.Case` objects (edge cases first, then random ones), the same
for the same arguments on any machine; their expected outputs are what our own programs
produce. ``PROGRAMS`` names the programs that can be graded.

FIRST VERSION: not written yet.
"""

PROGRAMS = ("tictactoe", "tmmorris", "take_stones", "stake_raid")


def generate_cases(program, count, seed):
    """``count`` cases for ``program`` from ``seed`` (see the module docstring)."""
    raise NotImplementedError("case generation is not written yet")
