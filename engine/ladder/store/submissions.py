"""Uploads and their builds: a submission is recorded as it arrives, queued once its
normalised archive is stored, built once by a worker holding its lease, then ``ready``
(it plays, if it is its player's latest ready one) or ``failed`` (its log says why).

Fairness: a new upload replaces its player's queued ones (``superseded``: never built);
builds are handed out oldest first among players with fewer than :data:`BUILD_SHARE`
builds in the last :data:`BUILD_WINDOW` seconds, and a player past that share waits
until no game does. Nothing is leased without limit: a build whose lease expires or is
abandoned twice is charged to the entrant (``failed``).
"""

import json
import time
from typing import Any, Dict, List, Optional, Tuple

from sqlalchemy import func, select, update

from .database import Conflict, Database
from .schema import (BUILDING, DONE, FAILED, QUEUED, READY, SUPERSEDED, UPLOADING, Game,
                     Player, Submission)

LOG_CHARS = 20000
BUILD_SHARE = 3
BUILD_WINDOW = 600.0
NORMALISED = "normalised"


def current_submissions(session: Any) -> Dict[int, int]:
    """player id -> the id of its latest ready submission."""
    rows = session.execute(select(Submission.player_id, func.max(Submission.id))
                           .where(Submission.status == READY)
                           .group_by(Submission.player_id)).all()
    return {player_id: submission_id for player_id, submission_id in rows}


def describe(submission: Any, player: Any) -> Dict[str, Any]:
    """A submission as the workers' protocol names it."""
    return {"id": submission.id, "player": player.name, "staff": player.staff,
            "path": submission.path, "archive": submission.archive,
            "sha256": submission.sha256}


class Submissions:
    """See the module docstring."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- uploads ------------------------------------------------------------------------

    def add(self, player_id: int, size: int, digest: str) -> int:
        """Record an upload whose normalised archive is being stored; its id."""
        with self.db.session.begin() as session:
            row = Submission(player_id=player_id, created=time.time(), status=UPLOADING,
                             archive=NORMALISED, size=size, sha256=digest, attempts=0)
            session.add(row)
            session.flush()
            return row.id

    def identical(self, player_id: int, digest: str, seconds: float) -> Optional[Tuple[int, str]]:
        """(id, status) of the player's upload of the same files in the last ``seconds``
        that did not fail, or None: an identical re-upload is acknowledged, not rebuilt."""
        with self.db.session() as session:
            row = session.scalar(select(Submission).where(
                Submission.player_id == player_id, Submission.sha256 == digest,
                Submission.created >= time.time() - seconds,
                Submission.status.in_((QUEUED, BUILDING, READY)))
                .order_by(Submission.id.desc()).limit(1))
            return None if row is None else (row.id, row.status)

    def queue(self, submission_id: int) -> None:
        """The upload's archive is in place: a worker may build it. The player's older
        uploads still queued are superseded: only the newest is built."""
        with self.db.session.begin() as session:
            row = session.get(Submission, submission_id)
            for older in session.scalars(select(Submission).where(
                    Submission.player_id == row.player_id, Submission.status == QUEUED,
                    Submission.id < submission_id)).all():
                older.status = SUPERSEDED
                older.build_log = f"replaced by submission {submission_id} before it was built"
            row.status = QUEUED

    def drop(self, submission_id: int) -> None:
        """Forget an upload whose archive could not be stored."""
        with self.db.session.begin() as session:
            row = session.get(Submission, submission_id)
            if row is not None:
                session.delete(row)

    def recover(self) -> None:
        """At the web process's start: an upload cut off by a crash (its archive never
        stored) is marked failed; leases left by the last run expire by themselves."""
        with self.db.session.begin() as session:
            for row in session.scalars(select(Submission).where(
                    Submission.status == UPLOADING)).all():
                row.status = FAILED
                row.build_log = "the server stopped while this upload was being stored"

    # --- what students see --------------------------------------------------------------

    def view(self, submission_id: int,
             player_id: Optional[int] = None) -> Optional[Dict[str, Any]]:
        """The submission as its owner sees it (own only when ``player_id`` is given:
        another's is None, as a missing one): status, build log, games, and each forfeit
        with its private detail."""
        with self.db.session() as session:
            row = session.get(Submission, submission_id)
            if row is None or (player_id is not None and row.player_id != player_id):
                return None
            player = session.get(Player, row.player_id)
            games = session.execute(select(Game.id, Game.x_sub, Game.record, Game.private)
                                    .where(Game.state == DONE, (Game.x_sub == row.id)
                                           | (Game.o_sub == row.id))
                                    .order_by(Game.id)).all()
        forfeits = []
        for game_id, x_sub, text, private in games:
            forfeit = json.loads(text).get("forfeit")
            side = "x" if x_sub == row.id else "o"
            if forfeit and forfeit.get("player") == side:
                detail = json.loads(private).get("detail", "") if private else ""
                forfeits.append({"game": game_id, "reason": forfeit.get("reason"),
                                 "detail": detail})
        return {"id": row.id, "player": player.name, "status": row.status,
                "created": row.created, "size": row.size, "sha256": row.sha256,
                "build_log": row.build_log or "", "games": len(games),
                "forfeits": forfeits}

    def of_player(self, player_id: int) -> List[Dict[str, Any]]:
        """The player's submissions as :meth:`view` shows them, newest first."""
        with self.db.session() as session:
            ids = session.scalars(select(Submission.id).where(
                Submission.player_id == player_id).order_by(Submission.id.desc())).all()
        return [view for view in (self.view(sid) for sid in ids) if view is not None]

    def current_of(self, player_id: int) -> Optional[int]:
        """The id of the player's submission that plays now, or None."""
        with self.db.session() as session:
            return current_submissions(session).get(player_id)

    def working_versions(self, before: Optional[float] = None) -> List[Tuple[str, int, str]]:
        """(player, submission id, digest) of each student's latest working version
        (built and ready; with ``before``, uploaded no later than that), by name."""
        with self.db.session() as session:
            query = select(Submission.player_id, func.max(Submission.id)).where(
                Submission.status == READY, Submission.archive == NORMALISED)
            if before is not None:
                query = query.where(Submission.created <= before)
            latest = dict(session.execute(query.group_by(Submission.player_id)).all())
            found = []
            for player_id, submission_id in latest.items():
                player = session.get(Player, player_id)
                if not player.staff:
                    found.append((player.name, submission_id,
                                  session.get(Submission, submission_id).sha256))
        return sorted(found)

    def archive_of(self, submission_id: int) -> Optional[str]:
        """The kind of the submission's stored archive (None for our anchors), or None
        when there is no such submission with an archive."""
        with self.db.session() as session:
            row = session.get(Submission, submission_id)
            return None if row is None else row.archive

    # --- builds -------------------------------------------------------------------------

    def next_build(self, session: Any, now: float, fair_only: bool) -> Any:
        """The queued submission to build next (see the module docstring), or None;
        ``fair_only``: only of a player within its share."""
        queued = session.scalars(select(Submission).where(Submission.status == QUEUED)
                                 .order_by(Submission.id)
                                 .with_for_update(skip_locked=True)).all()
        if not queued:
            return None
        recent = dict(session.execute(
            select(Submission.player_id, func.count()).where(
                (Submission.built_at >= now - BUILD_WINDOW) | (Submission.status == BUILDING))
            .group_by(Submission.player_id)).all())
        within = [row for row in queued if recent.get(row.player_id, 0) < BUILD_SHARE]
        if within:
            return within[0]
        return None if fair_only else queued[0]

    def start_build(self, session: Any, row: Any, worker_id: int, lease: str,
                    now: float) -> Dict[str, Any]:
        """Lease the build of ``row`` to the worker; the lease as the protocol gives it."""
        seconds = float(self.db.settings["lease"])
        row.status = BUILDING
        row.lease, row.lease_worker = lease, worker_id
        row.lease_expires = now + seconds
        row.attempts += 1
        return {"kind": "build", "lease": lease, "expires": seconds,
                "submission": describe(row, session.get(Player, row.player_id))}

    def finish_build(self, submission_id: int, lease: str, worker_id: int,
                     error: Optional[str]) -> None:
        """A worker's build result; Conflict when the lease is not its live one."""
        with self.db.session.begin() as session:
            row = session.get(Submission, submission_id)
            if (row is None or row.lease != lease or row.status != BUILDING
                    or row.lease_worker != worker_id):
                raise Conflict("this build's lease has expired")
            row.status = READY if error is None else FAILED
            row.build_log = None if error is None else str(error)[:LOG_CHARS]
            row.lease = row.lease_worker = None
            row.built_at = time.time()
        self.db.changed()

    def abandon_build(self, lease: str, worker_id: int, reason: str) -> None:
        """The worker could not build (a failure of ours): queued again, or after two
        attempts charged to the entrant. A lease already settled is left as it is."""
        with self.db.session.begin() as session:
            row = session.scalar(select(Submission).where(
                Submission.lease == lease, Submission.status == BUILDING,
                Submission.lease_worker == worker_id))
            if row is not None:
                self._give_back(row, f"the build could not be done twice: {reason}")
        self.db.changed()

    def expire(self, session: Any, now: float) -> None:
        """Builds whose worker went silent are queued again (or charged, the second time)."""
        for row in session.scalars(select(Submission).where(
                Submission.status == BUILDING, Submission.lease_expires < now)).all():
            self._give_back(row, "the build's worker stopped twice before it finished")

    @staticmethod
    def _give_back(row: Any, why: str) -> None:
        if row.attempts < 2:
            row.status = QUEUED
        else:
            row.status = FAILED
            row.build_log = why[:LOG_CHARS]
            row.built_at = time.time()
        row.lease = row.lease_worker = None

    def extend(self, session: Any, lease: str, worker_id: int, now: float) -> bool:
        """Renew a live build lease of the worker's; whether there was one."""
        changed = session.execute(update(Submission).where(
            Submission.lease == lease, Submission.status == BUILDING,
            Submission.lease_worker == worker_id)
            .values(lease_expires=now + float(self.db.settings["lease"])))
        return bool(changed.rowcount)
