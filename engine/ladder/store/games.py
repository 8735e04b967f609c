"""Games and their leases: a worker leases the next piece of work (a build, a game, or
nothing), renews its lease while it works, and reports a result or gives the work back.

Durability: every change is one transaction. A result is accepted only from the worker
holding the game's live lease, for that game, in the transaction that marks it done, so
a game is never recorded twice. Nothing is leased without limit: a game is leased at most
twice; a lease that expires, or a game given back, goes back to pending the first time
and is voided the second; a game given back twice naming the same entrant (its set-up
failed on the worker, e.g. its build) is recorded as that entrant's forfeit instead.

Privacy: the detail of a forfeit (the end of the player's stderr, sandbox paths) is
kept apart from the public record, which carries the moves, the result and the reason.

Scheduling (engine.ladder.scheduler) adds colour-swapped pairs when fewer than
:data:`POOL` games wait; a worker is given, among the waiting games, a challenge first,
then one whose players it has built already when there is one (fewer builds per game),
unless a game has waited :data:`PATIENCE` seconds: the oldest such game goes first, built
or not. Without that bound a worker that always has a built game at hand would pass over
for ever a game whose players only another (perhaps dead) worker had built; its players,
busy until it is played, would get no other game either.
"""

import json
import time
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from sqlalchemy import func, select, update

from .. import config, scheduler
from .accounts import Caller
from .database import Conflict, Database
from .schema import (CHALLENGE, DONE, LEASED, PENDING, PLACEMENT, RATED, VOID, Game, Player,
                     Submission)
from .standings import Standings
from .submissions import Submissions, current_submissions, describe

# Waiting games kept ready for the workers to choose from (pairs of two games).
POOL = 6
# What a worker may read of a waiting game's list when it looks for one it has built.
SCAN = 60
# Seconds a waiting game may be passed over for games the worker has built.
PATIENCE = 30.0
CHALLENGES_PER_HOUR = 4


class Games:
    """See the module docstring."""

    def __init__(self, db: Database, submissions: Submissions, standings: Standings) -> None:
        self.db = db
        self.submissions = submissions
        self.standings = standings

    # --- leases -------------------------------------------------------------------------

    def lease(self, worker: Caller, built: Sequence[int] = (),
              label: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The next piece of work for ``worker`` (a build, a game) or None; ``label``:
        the name the worker gives itself (kept with a game; the lease is bound to the
        token's worker). Expired leases go back first; builds within their players'
        share come before games, the other builds after them
        (engine.ladder.store.submissions)."""
        now = time.time()
        with self.db.lock, self.db.session.begin() as session:
            self.submissions.expire(session, now)
            self._expire(session, now)
            row = self.submissions.next_build(session, now, fair_only=True)
            if row is not None:
                return self.submissions.start_build(session, row, worker.id,
                                                    config.new_token(), now)
            game = self._waiting_game(session, set(built), now)
            if game is None:
                row = self.submissions.next_build(session, now, fair_only=False)
                if row is not None:
                    return self.submissions.start_build(session, row, worker.id,
                                                        config.new_token(), now)
                return None
            seconds = float(self.db.settings["lease"])
            game.state = LEASED
            game.lease, game.lease_worker = config.new_token(), worker.id
            game.lease_expires = now + seconds
            game.attempts += 1
            game.worker = (label or worker.name)[:100]
            x, o = session.get(Submission, game.x_sub), session.get(Submission, game.o_sub)
            return {"kind": "game", "lease": game.lease, "expires": seconds,
                    "game": {"id": game.id, "pair": game.pair, "board": game.board,
                             "size": game.size,
                             "x": describe(x, session.get(Player, x.player_id)),
                             "o": describe(o, session.get(Player, o.player_id))}}

    def extend(self, lease: str, worker_id: int) -> None:
        """Renew a live lease of the worker's (a build or a game); Conflict otherwise."""
        now = time.time()
        with self.db.session.begin() as session:
            changed = session.execute(update(Game).where(
                Game.lease == lease, Game.state == LEASED, Game.lease_worker == worker_id)
                .values(lease_expires=now + float(self.db.settings["lease"])))
            if changed.rowcount:
                return
            if not self.submissions.extend(session, lease, worker_id, now):
                raise Conflict("this lease has expired")

    def holds(self, worker_id: int, submission_id: int) -> bool:
        """Whether the worker holds a live lease of a build or a game of that submission
        (only then may it download its archive)."""
        now = time.time()
        with self.db.session() as session:
            game = session.scalar(select(Game.id).where(
                Game.state == LEASED, Game.lease_worker == worker_id,
                Game.lease_expires >= now,
                (Game.x_sub == submission_id) | (Game.o_sub == submission_id)).limit(1))
            if game is not None:
                return True
            row = session.get(Submission, submission_id)
            return (row is not None and row.lease_worker == worker_id
                    and row.lease is not None and (row.lease_expires or 0) >= now)

    def finish(self, game_id: int, lease: str, worker_id: int,
               record: Dict[str, Any]) -> None:
        """A worker's finished game, stored in the transaction that marks it done;
        Conflict when the lease is not the worker's live lease of that game."""
        with self.db.session.begin() as session:
            game = session.get(Game, game_id)
            if (game is None or game.lease != lease or game.state != LEASED
                    or game.lease_worker != worker_id):
                raise Conflict("this game's lease has expired")
            self._store_record(session, game, record)
        self.db.changed()

    def give_back(self, lease: str, worker_id: int, entrant: Optional[int],
                  reason: str) -> None:
        """The worker could not play its game: ``entrant`` names the submission whose
        set-up failed there (None: a failure of ours). See the module docstring. A lease
        already settled is left as it is."""
        with self.db.session.begin() as session:
            game = session.scalar(select(Game).where(
                Game.lease == lease, Game.state == LEASED, Game.lease_worker == worker_id))
            if game is None:
                return
            if entrant not in (game.x_sub, game.o_sub):
                entrant = None
            abandons = json.loads(game.abandons or "[]") + [entrant]
            game.abandons = json.dumps(abandons)
            game.lease = game.lease_worker = None
            if entrant is not None and abandons.count(entrant) >= 2:
                self._charge(session, game, entrant, reason)
            else:
                game.state = PENDING if game.attempts < 2 else VOID
        self.db.changed()

    def _expire(self, session: Any, now: float) -> None:
        for game in session.scalars(select(Game).where(Game.state == LEASED,
                                                       Game.lease_expires < now)).all():
            game.state = PENDING if game.attempts < 2 else VOID
            game.lease = game.lease_worker = None

    # --- results ------------------------------------------------------------------------

    def _store_record(self, session: Any, game: Any, record: Dict[str, Any]) -> None:
        """Mark ``game`` done with ``record`` (a tournament record): its forfeit's detail
        goes to the private column, the names are the players'."""
        record = json.loads(json.dumps(record))     # a copy of plain JSON values
        x_name = session.get(Player, session.get(Submission, game.x_sub).player_id).name
        o_name = session.get(Player, session.get(Submission, game.o_sub).player_id).name
        forfeit = record.get("forfeit")
        private = None
        if forfeit:
            private = {"detail": str(forfeit.pop("detail", ""))}
            game.forfeited = forfeit.get("player")
        record.update(id=game.id, round=1, match=game.pair, pair=game.pair, x=x_name,
                      o=o_name, kind=game.kind, rated=game.rated)
        game.record = json.dumps(record, ensure_ascii=False)
        game.private = None if private is None else json.dumps(private, ensure_ascii=False)
        game.state = DONE
        game.finished = time.time()
        game.lease = game.lease_worker = None

    def _charge(self, session: Any, game: Any, entrant: int, reason: str) -> None:
        """Record ``game`` as ``entrant``'s forfeit, unplayed: its set-up failed twice."""
        rules = self.db.rules
        size = rules.parse_sizes(game.size)[0]
        cells = rules.setup(int(self.db.settings["seed"]), game.board, size)
        side = "x" if entrant == game.x_sub else "o"
        winner = "o" if side == "x" else "x"
        record = {"size": size if isinstance(size, int) else str(size), "cells": cells,
                  "moves": [], "result": winner,
                  "score": rules.board(cells).forfeit_scores(winner), "cpu": [0.0, 0.0],
                  "forfeit": {"player": side, "reason": "crash",
                              "detail": "its set-up failed on two workers; the last said: "
                                        + str(reason)[:2000]},
                  "seccomp": {}}
        self._store_record(session, game, record)

    # --- what everyone sees -------------------------------------------------------------

    def record(self, game_id: int) -> Optional[Dict[str, Any]]:
        """The public record of a finished game, or None."""
        with self.db.session() as session:
            game = session.get(Game, game_id)
            if game is None or game.state != DONE:
                return None
            return json.loads(game.record)

    def players_of(self, game_id: int) -> Optional[Dict[str, Dict[str, Any]]]:
        """{"x": {"player", "submission", "staff"}, "o": ...} of a finished game."""
        with self.db.session() as session:
            game = session.get(Game, game_id)
            if game is None or game.state != DONE:
                return None
            sides = {}
            for side, sid in (("x", game.x_sub), ("o", game.o_sub)):
                player = session.get(Player, session.get(Submission, sid).player_id)
                sides[side] = {"player": player.name, "submission": sid,
                               "staff": player.staff}
            return sides

    def listed(self, player: Optional[str] = None, submission: Optional[int] = None,
               limit: int = 500) -> List[Dict[str, Any]]:
        """Finished games' public records, newest first: of ``player`` (a name) or of
        one ``submission`` when given."""
        with self.db.session() as session:
            query = select(Game.record).where(Game.state == DONE)
            if submission is not None:
                query = query.where((Game.x_sub == submission) | (Game.o_sub == submission))
            elif player is not None:
                found = session.scalar(select(Player).where(Player.name == player))
                if found is None:
                    return []
                mine = select(Submission.id).where(Submission.player_id == found.id)
                query = query.where(Game.x_sub.in_(mine) | Game.o_sub.in_(mine))
            texts = session.scalars(query.order_by(Game.id.desc()).limit(limit)).all()
        return [json.loads(text) for text in texts]

    def counts(self) -> Tuple[Dict[str, int], Dict[str, int]]:
        """{state: games} and {status: submissions}."""
        with self.db.session() as session:
            games = dict(session.execute(select(Game.state, func.count())
                                         .group_by(Game.state)).all())
            subs = dict(session.execute(select(Submission.status, func.count())
                                        .group_by(Submission.status)).all())
        return games, subs

    # --- challenges ---------------------------------------------------------------------

    def challenge(self, player_id: int, opponent: str) -> int:
        """A colour-swapped pair between the player's current version and
        ``opponent``'s, rated or not as the instructor set (``challenges``: rated,
        unrated, off); its pair number. LadderError (a sentence for the student) when it
        cannot be: challenges off, past the hourly limit, no such opponent, no version
        playing."""
        mode = str(self.db.settings.get("challenges", "unrated"))
        if mode == "off":
            raise config.LadderError("challenges are off on this ladder")
        limit = int(self.db.settings.get("challenges_per_hour", CHALLENGES_PER_HOUR))
        now = time.time()
        with self.db.lock, self.db.session.begin() as session:
            rival = session.scalar(select(Player).where(Player.name == opponent))
            if rival is None or rival.id == player_id:
                raise config.LadderError(f"no other player named {opponent[:64]!r}")
            asked = session.scalar(select(func.count()).select_from(Game).where(
                Game.requested_by == player_id, Game.created >= now - 3600.0)) or 0
            if asked // 2 >= limit:
                raise config.LadderError(f"at most {limit} challenges an hour")
            current = current_submissions(session)
            mine, theirs = current.get(player_id), current.get(rival.id)
            if mine is None:
                raise config.LadderError("you have no version playing yet")
            if theirs is None:
                raise config.LadderError(f"{opponent[:64]} has no version playing yet")
            return self._add_pair(session, (mine, theirs), CHALLENGE, mode == "rated",
                                  now, requested_by=player_id)

    # --- scheduling ---------------------------------------------------------------------

    def _waiting_game(self, session: Any, built: Set[int], now: float) -> Any:
        """The waiting game to lease: the oldest that has waited PATIENCE seconds, else
        one whose players the worker has built when there is one, else the oldest (see
        the module docstring); None when none can be scheduled either."""
        current = set(current_submissions(session).values())
        staff = set(session.scalars(select(Submission.id).join(
            Player, Player.id == Submission.player_id).where(Player.staff)).all())
        for _ in range(POOL + 1):
            waiting = []
            for game in session.scalars(select(Game).where(Game.state == PENDING)
                                        .order_by(Game.id).limit(SCAN)
                                        .with_for_update(skip_locked=True)).all():
                if game.x_sub in current and game.o_sub in current:
                    waiting.append(game)
                else:
                    game.state = VOID       # a player uploaded a newer version
            if len(waiting) >= POOL or not self._schedule(session, now):
                break
        if not waiting:
            return None
        # A challenge a student asked for goes before the scheduler's games.
        waiting.sort(key=lambda game: (game.kind != CHALLENGE, game.id))
        overdue = [game for game in waiting if now - game.created >= PATIENCE]
        if overdue:
            return min(overdue, key=lambda game: game.id)
        ready = built | staff
        for game in waiting:
            if game.x_sub in ready and game.o_sub in ready:
                return game
        return waiting[0]

    def _schedule(self, session: Any, now: float) -> bool:
        """Add the next colour-swapped pair (engine.ladder.scheduler); whether one was."""
        current = current_submissions(session)
        if len(current) < 2:
            return False
        active, met, busy = self._field(session, current, now)
        chosen = scheduler.next_pair(active, met, busy,
                                     int(self.db.settings["placement_pairs"]), now)
        if chosen is None:
            return False
        pairs = {entrant.submission: entrant.pairs for entrant in active}
        kind = PLACEMENT if pairs[chosen[0]] < int(self.db.settings["placement_pairs"]) \
            else RATED
        self._add_pair(session, chosen, kind, True, now)
        return True

    def _add_pair(self, session: Any, chosen: Tuple[int, int], kind: str, rated: bool,
                  now: float, requested_by: Optional[int] = None) -> int:
        pair = (session.scalar(select(func.max(Game.pair))) or 0) + 1
        size = scheduler.size_of_pair(self.db.sizes, pair)
        for x_sub, o_sub in (chosen, chosen[::-1]):
            session.add(Game(pair=pair, board=pair, size=str(size), x_sub=x_sub,
                             o_sub=o_sub, kind=kind, rated=rated, requested_by=requested_by,
                             state=PENDING, attempts=0, abandons="[]", created=now))
        session.flush()
        return pair

    def _field(self, session: Any, current: Dict[int, int], now: float
               ) -> Tuple[List[scheduler.Active], Dict[FrozenSet[int], float], Set[int]]:
        """What the scheduler needs of the current entrants: their :class:`Active`
        rows, the pairs each two have met, and those with a pair still to play."""
        players = {p.id: p for p in session.scalars(select(Player)).all()}
        ids = set(current.values())
        owner = dict(session.execute(select(Submission.id, Submission.player_id)).all())
        rows = session.execute(select(Game.x_sub, Game.o_sub, Game.state, Game.created,
                                      Game.finished, Game.forfeited)
                               .where(Game.state != VOID).order_by(Game.id)).all()
        games: Dict[int, int] = {}
        turn: Dict[int, float] = {}                 # player -> its last game's creation
        met: Dict[FrozenSet[int], float] = {}
        busy: Set[int] = set()
        streak: Dict[int, int] = {}
        last: Dict[int, float] = {}
        for x_sub, o_sub, state, created, finished, forfeited in rows:
            for sid in (x_sub, o_sub):
                turn[owner[sid]] = max(turn.get(owner[sid], 0.0), created)
            for side, sid in (("x", x_sub), ("o", o_sub)):
                if sid not in ids:
                    continue
                games[sid] = games.get(sid, 0) + 1
                if state in (PENDING, LEASED):
                    busy.add(sid)
                elif state == DONE:
                    streak[sid] = streak.get(sid, 0) + 1 if forfeited == side else 0
                    last[sid] = max(last.get(sid, 0.0), finished or 0.0)
            if x_sub in ids and o_sub in ids:
                key = frozenset((x_sub, o_sub))
                met[key] = met.get(key, 0) + 0.5
        ratings = self.standings.snapshot().by_submission
        active = []
        for player_id, sid in sorted(current.items()):
            rating = ratings.get(sid, (None, None, None))
            staff = players[player_id].staff
            active.append(scheduler.Active(
                sid, players[player_id].name, staff, rating[0], rating[1], rating[2],
                games.get(sid, 0), turn.get(player_id, 0.0), games.get(sid, 0) // 2,
                0.0 if staff else scheduler.resting_until(streak.get(sid, 0),
                                                          last.get(sid, 0.0))))
        return active, met, busy
