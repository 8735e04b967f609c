"""Who plays whom on the ladder: placement, uncertainty, a fair share per student,
backoff of an agent that forfeits every game (engine.ladder.scheduler, a pure function:
no server, no database), and a simulated class of 300 over two hours."""

import random

from engine.ladder import scheduler
from engine.ladder.scheduler import Active, next_pair


def active(submission, player, staff=False, rating=None, width=None, games=0, last=0.0,
           pairs=None, resting=0.0):
    low = None if rating is None else rating - width / 2
    high = None if rating is None else rating + width / 2
    return Active(submission, player, staff, rating, low, high, games, last,
                  games // 2 if pairs is None else pairs, resting)


def anchors():
    return [active(1, "ours:agent", True, 200, 50, 40), active(2, "ours:greedy", True,
                                                                 -200, 50, 40)]


def test_a_newcomer_meets_each_anchor_then_the_nearest_rating():
    field = anchors() + [active(3, "ann", rating=0, width=100, games=20),
                         active(4, "ben", rating=150, width=100, games=20),
                         active(5, "new")]
    assert next_pair(field, {}, set(), 3) == (5, 1)
    field[-1] = active(5, "new", pairs=1)
    assert next_pair(field, {}, set(), 3) == (5, 2)
    # Placed against both anchors: then the one it met least, nearest in rating.
    field[-1] = active(5, "new", pairs=2)
    met = {frozenset((5, 1)): 1, frozenset((5, 2)): 1}
    assert next_pair(field, met, set(), 3) == (5, 3)
    # An anchor may play any number of games at once: busy or not, it is the newcomer's.
    field[-1] = active(5, "new")
    assert next_pair(field, {}, {1, 2}, 3) == (5, 1)


def test_after_placement_the_least_certain_rating_plays():
    field = [active(1, "ours:agent", True, 100, 50, 40), active(2, "ours:greedy", True,
                                                                 -100, 50, 40),
             active(3, "ann", rating=0, width=100, games=10),
             active(4, "ben", rating=60, width=400, games=10)]
    first, second = next_pair(field, {}, set(), 2)
    assert first == 4              # the widest interval
    assert second == 1             # nearest in rating (100 vs 60) among those met least
    assert next_pair(field, {}, {3, 4}, 2) is None      # every student is playing
    assert next_pair(field[:2], {}, set(), 2) is None   # anchors never pair themselves


def test_a_student_who_uploads_often_gets_no_more_than_a_fair_share():
    """A fresh version owed placement still waits behind a student who has waited
    longer: the turn is per player, over every version."""
    field = anchors() + [active(3, "churn", last=500.0, pairs=0),
                         active(4, "calm", rating=0, width=100, games=6, last=100.0)]
    assert next_pair(field, {}, set(), 2)[0] == 4
    field[3] = active(4, "calm", rating=0, width=100, games=6, last=500.0)
    assert next_pair(field, {}, set(), 2)[0] == 3       # equal turns: placement first


def test_an_agent_that_forfeits_every_game_rests_longer_each_time():
    assert scheduler.resting_until(0, 100.0) == scheduler.resting_until(1, 100.0) == 0.0
    assert scheduler.resting_until(2, 100.0) == 100.0 + scheduler.BACKOFF_BASE
    assert scheduler.resting_until(3, 100.0) == 100.0 + 2 * scheduler.BACKOFF_BASE
    assert scheduler.resting_until(60, 100.0) == 100.0 + scheduler.BACKOFF_CAP
    assert scheduler.BACKOFF_CAP < scheduler.HOUR       # it still plays every hour
    field = anchors() + [active(3, "lazy", rating=0, width=900, pairs=2, resting=500.0),
                         active(4, "ann", rating=10, width=100, games=8, last=50.0)]
    # Resting: neither picked first nor as a rival; the others play the anchors.
    assert next_pair(field, {}, set(), 2, now=499.0) == (4, 1)
    assert next_pair(field, {}, set(), 2, now=500.0) == (3, 4)


def simulate(students, minutes, pairs_per_minute, churners=(), forfeiters=(), seed=7):
    """The scheduler in a simulated class: every minute the workers start up to
    ``pairs_per_minute`` pairs (a pair takes a minute), churners upload a new version
    every 10 s, forfeiters lose every game at once. Returns {player: [minute of each
    pair]}."""
    rng = random.Random(seed)
    now, played = 0.0, {name: [] for name in students}
    version = {name: index + 10 for index, name in enumerate(students)}
    pairs = {sid: 0 for sid in version.values()}
    games = {sid: 0 for sid in version.values()}
    last_played = {}                                # player -> time of its last pair
    streak, last = {}, {}
    ratings = {name: rng.uniform(-300, 300) for name in students}
    next_id = 1000
    for minute in range(minutes):
        now = minute * 60.0
        for name in churners:
            for _ in range(6):
                version[name] = next_id
                pairs[next_id] = games[next_id] = 0
                next_id += 1
        field = anchors()
        for name in students:
            sid = version[name]
            rest = scheduler.resting_until(streak.get(sid, 0), last.get(sid, 0.0))
            field.append(active(sid, name, rating=ratings[name] if games[sid] else None,
                                width=800 / (1 + games[sid]) if games[sid] else None,
                                games=games[sid], last=last_played.get(name, 0.0),
                                pairs=pairs[sid],
                                resting=rest))
        busy = set()
        for _ in range(pairs_per_minute):
            chosen = next_pair(field, {}, busy, 2, now)
            if chosen is None:
                break
            busy.update(chosen)
            for sid in chosen:
                owner = next((e.player for e in field if e.submission == sid), None)
                if owner in played:
                    played[owner].append(minute)
                    last_played[owner] = now
                    games[sid] = games.get(sid, 0) + 2
                    pairs[sid] = pairs.get(sid, 0) + 1
                    if owner in forfeiters:
                        streak[sid] = streak.get(sid, 0) + 2
                        last[sid] = now + 30
    return played


def test_a_class_of_300_every_ready_student_plays_every_hour():
    """300 students, 10 re-uploading every 10 s, 5 forfeiting every game, workers enough
    for 6 pairs a minute (360 an hour: a pair per student and a few more): over two hours every
    student, forfeiters included, plays in each hour, and the churners get no more than
    the others."""
    students = [f"s{i:03d}" for i in range(300)]
    churners, forfeiters = students[:10], students[10:15]
    played = simulate(students, 120, 6, churners, forfeiters)
    for name in students:
        for hour in (0, 1):
            assert any(hour * 60 <= minute < (hour + 1) * 60 for minute in played[name]), \
                (name, hour, played[name])
    calm = sorted(len(played[name]) for name in students[15:])
    median = calm[len(calm) // 2]
    assert max(len(played[name]) for name in churners) <= median + 1
    assert max(len(played[name]) for name in forfeiters) <= median + 1


def test_in_a_quiet_ladder_a_forfeiting_agent_is_backed_off():
    """Four students and an agent that forfeits every game at once, workers to spare
    (10 pairs a minute): the agent plays a handful of pairs an hour (it was scheduled
    80 times a minute), still at least one in each hour, and the others play on."""
    students = ["ann", "ben", "cat", "dan", "lazy"]
    played = simulate(students, 120, 10, forfeiters=["lazy"])
    first_hour = [minute for minute in played["lazy"] if minute < 60]
    assert 1 <= len(first_hour) <= 10, played["lazy"]
    assert any(60 <= minute < 120 for minute in played["lazy"])
    assert min(len(played[name]) for name in students[:4]) > 10 * len(played["lazy"]) / 2


def test_sizes_are_dealt_evenly():
    assert [scheduler.size_of_pair([3, 4, 5], k) for k in range(6)] == [3, 4, 5, 3, 4, 5]
