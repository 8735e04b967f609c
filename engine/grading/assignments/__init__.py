"""Each graded assignment's own part of the grading kit: its judge.

One module per assignment (engine.registry names it as the assignment's ``judge``), each
fulfilling engine.grading.judges.Judge, where every member is documented: how a
submission is detected (``ENTRY_POINTS``, ``detect``), what its grader compares
(``STDOUT_GRADED``, ``graded_files``, ``FILE_LABEL``, ``UNREADABLE_ZEROES``), its
generated cases (``edges``, ``draw_stratum``, ``stratum``, ``CATEGORIES``), the
diagnosis of a run (``fits``, ``judge``) and its scoring rule (``score``).
engine.grading.judges.load refuses a module that lacks a member; the type checker (mypy,
see mypy.ini) checks each module's signatures against the contract through the
assignments below.

engine.grading.generate and engine.grading.diagnose hold what they share.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # for mypy only: each module must be a Judge
    from ..judges import Judge
    from . import stake_raid, take_stones, tictactoe, tmmorris

    _TICTACTOE: Judge = tictactoe
    _TMMORRIS: Judge = tmmorris
    _TAKE_STONES: Judge = take_stones
    _STAKE_RAID: Judge = stake_raid
