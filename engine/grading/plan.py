"""How a submission is built and run: the :class:`Plan` that detection finds.

An assignment's judge (engine.grading.judges) returns one for a folder; the kit
(engine.grading.detect) builds and runs by it, and so does the tournament for its entrants.
"""

import shlex
from typing import List, NamedTuple, Optional, Sequence, Tuple


class Plan(NamedTuple):
    """How to build and run one submission.

    ``kind`` names the way (shown in reports); ``build`` is the build argv (None: nothing
    to build); ``run`` the argv the case's arguments follow (or a ``/bin/sh -c`` template,
    see ``template``); ``keep`` the top-level names to copy (None: the whole folder);
    ``error`` says why the folder cannot be run (then nothing else matters).
    """
    kind: str
    run: Tuple[str, ...] = ()
    build: Optional[Tuple[str, ...]] = None
    keep: Optional[Tuple[str, ...]] = None
    template: Optional[str] = None
    error: Optional[str] = None

    def argv(self, args: Sequence[str]) -> List[str]:
        """The argv that runs this plan on a case's arguments."""
        if self.template is not None:
            quoted = " ".join(shlex.quote(arg) for arg in args)
            if "{args}" in self.template:
                line = self.template.replace("{args}", quoted)
            else:
                line = (self.template + " " + quoted) if quoted else self.template
            return ["/bin/sh", "-c", line]
        return list(self.run) + list(args)
