"""The tournament's schedules, standings and results file, without playing: pure
functions checked on synthetic results."""

import json
import random
from collections import Counter

import pytest

from engine.tournament import results, schedule, standings
from engine.tournament.games import rules_for

NAMES = ["ann", "bob", "cy", "dee", "eve", "fay", "gus"]


def record(spec, winner, margin=10):
    """A played record of ``spec``: ``winner`` is an entrant name or None (a draw)."""
    if winner is None:
        result, score = "draw", [50, 50]
    else:
        result = "x" if winner == spec.x else "o"
        score = [50 + margin, 50] if result == "x" else [50, 50 + margin]
    return {"id": spec.id, "round": spec.round, "match": spec.match, "pair": spec.pair,
            "size": spec.size, "x": spec.x, "o": spec.o, "cells": [1] * 9,
            "moves": [], "result": result, "score": score, "cpu": [0.1, 0.2],
            "forfeit": None}


def stronger(spec, order):
    """The entrant of ``spec`` that comes first in ``order``: it always wins."""
    return min(spec.x, spec.o, key=order.index)


def play_out(make, order, decide=stronger):
    """Feed a format's schedule its results round after round until it is final."""
    played = {}
    for _ in range(50):
        plan = make(played)
        todo = [spec for spec in plan.games if spec.id not in played]
        if not todo:
            return plan, played
        for spec in todo:
            played[spec.id] = record(spec, decide(spec, order))
    raise AssertionError("the schedule never ended")


def test_round_robin_plays_every_pairing_in_colour_swapped_pairs_on_shared_boards():
    names = NAMES[:4]
    plan = schedule.round_robin(names, 2, [3, 4])
    assert len(plan.games) == 6 * 2 * 2 and plan.final
    assert [spec.id for spec in plan.games] == list(range(1, 25))
    by_pair = {}
    for spec in plan.games:
        by_pair.setdefault(spec.pair, []).append(spec)
    for first, second in by_pair.values():
        assert (first.x, first.o) == (second.o, second.x)
        assert first.board == second.board and first.size == second.size
    assert {spec.board for spec in plan.games} == {0, 1}
    assert Counter(spec.size for spec in plan.games) == {3: 12, 4: 12}
    firsts = Counter(spec.x for spec in plan.games)
    assert set(firsts.values()) == {6}


def test_gauntlet_meets_only_the_staff():
    plan = schedule.gauntlet(NAMES[:5], ["ann", "bob"], 1, [5])
    meetings = {frozenset((spec.x, spec.o)) for spec in plan.games}
    assert meetings == {frozenset((a, b)) for a in ("cy", "dee", "eve") for b in ("ann", "bob")}


@pytest.mark.parametrize("count", [2, 3, 5, 7])
def test_knockout_ends_with_the_strongest_after_n_minus_1_matches(count):
    names = NAMES[:count]
    order = list(reversed(names))          # gus beats everyone, ann loses to all
    plan, played = play_out(
        lambda played: schedule.knockout(names, 3, 3, [3, 4], played), order)
    assert plan.final
    assert len(plan.games) == (count - 1) * 3 == plan.expected
    places = standings.placings(plan, names)
    assert places[order[0]] == "winner"
    assert list(places.values()).count("finalist") == 1
    final = plan.bracket[-1][0]
    assert len(final) == 1 and final[0].winner == order[0]
    for spec in plan.games:                 # colours alternate inside a match
        match = [s for s in plan.games if s.match == spec.match]
        assert [s.x for s in match][:2] == [match[0].x, match[0].o]


def test_knockout_byes_go_to_those_who_had_fewest():
    names = NAMES[:5]                       # rounds of 5 (a bye), 3 (a bye), 2
    for seed in range(1, 8):
        plan, _ = play_out(lambda played, seed=seed: schedule.knockout(names, seed, 1, [3], played),
                           list(names))
        sitters = [bye for _, byes in plan.bracket for bye in byes]
        assert len(sitters) == len(set(sitters)) == 2


def test_a_tied_knockout_match_goes_to_the_larger_margin():
    names = ["ann", "bob"]
    specs = schedule.knockout(names, 1, 3, [3], {}).games
    first, second = specs[0].x, specs[0].o
    assert [spec.x for spec in specs] == [first, second, first]
    played = {specs[0].id: record(specs[0], None),                 # a draw
              specs[1].id: record(specs[1], second, margin=5),
              specs[2].id: record(specs[2], first, margin=30)}
    meeting = schedule.knockout(names, 1, 3, [3], played).bracket[0][0][0]
    assert meeting.points == (1.5, 1.5)
    assert meeting.winner == first
    played[specs[2].id] = record(specs[2], first, margin=2)
    assert schedule.knockout(names, 1, 3, [3], played).bracket[0][0][0].winner == second


@pytest.mark.parametrize("count", [6, 7])
def test_swiss_never_repeats_a_meeting_and_gives_each_bye_once(count):
    names = NAMES[:count]
    rng = random.Random(4)
    plan, played = play_out(
        lambda played: schedule.swiss(names, 2, 3, 1, [3], played), names,
        decide=lambda spec, order: rng.choice([spec.x, spec.o, None]))
    assert plan.final and len({spec.round for spec in plan.games}) == 3
    meetings = Counter(frozenset((spec.x, spec.o)) for spec in plan.games)
    assert set(meetings.values()) == {2}    # one colour-swapped pair per meeting
    assert sum(plan.byes.values()) == (3 if count % 2 else 0)
    assert max(plan.byes.values()) <= 1
    per_round = Counter(spec.round for spec in plan.games)
    assert set(per_round.values()) == {count // 2 * 2}


def test_swiss_pairs_leaders_together():
    names = NAMES[:6]
    order = list(names)
    plan, played = play_out(lambda played: schedule.swiss(names, 9, 2, 1, [3], played),
                            order)
    round_one = [spec for spec in plan.games if spec.round == 1]
    winners = {stronger(spec, order) for spec in round_one}
    round_two = {frozenset((s.x, s.o)) for s in plan.games if s.round == 2}
    # Winners meet winners: at least one round-2 meeting is between two round-1 winners.
    assert any(meeting <= winners for meeting in round_two)


def test_the_shards_split_the_games_without_splitting_a_pair():
    cost = rules_for("stake_raid").size_cost
    plan = schedule.round_robin(NAMES, 2, [3, 8])
    slices = [[spec for spec in plan.games
               if spec.id in schedule.in_shard(plan.games, (i, 3), cost)] for i in (1, 2, 3)]
    ids = [spec.id for part in slices for spec in part]
    assert sorted(ids) == [spec.id for spec in plan.games]
    for part in slices:
        pairs = Counter(spec.pair for spec in part)
        assert set(pairs.values()) == {2}
    # Balanced by board size (8x8 games cost 64, 3x3 ones 9), not by count.
    loads = [sum(cost(spec.size) for spec in part) for part in slices]
    assert max(loads) - min(loads) <= 2 * 64
    assert schedule.in_shard(plan.games, None, cost) == {spec.id for spec in plan.games}


def test_a_schedule_is_a_pure_function_of_its_inputs():
    first = schedule.knockout(NAMES, 7, 5, [3, 4], {})
    again = schedule.knockout(NAMES, 7, 5, [3, 4], {})
    other = schedule.knockout(NAMES, 8, 5, [3, 4], {})
    assert first == again
    assert [(s.x, s.o) for s in first.games] != [(s.x, s.o) for s in other.games]


# --- standings and the results file -------------------------------------------------------

HEADER = {"game": "stake_raid", "format": "round-robin", "time": 5.0, "seed": 1,
          "isolation": "rlimits", "sizes": [3], "pairs": 1, "games_per_match": None,
          "rounds": None, "shard": None}


def entrants(names):
    return [{"name": name, "path": f"/class/{name}", "kind": "python", "staff": False}
            for name in names]


def finished(names):
    plan = schedule.round_robin(names, 1, [3])
    return [record(spec, stronger(spec, names)) for spec in plan.games]


def test_standings_count_points_forfeits_and_pentanomials():
    names = ["ann", "bob", "cy"]
    records = finished(names)
    records[0]["forfeit"] = {"player": "o", "reason": "timeout", "detail": "used 6 s"}
    document = results.assemble(HEADER, entrants(names), {}, records, True)
    rows = {row["name"]: row for row in document["entrants"]}
    assert [rows[n]["points"] for n in names] == [4, 2, 0]
    assert rows["ann"]["wins"] == 4 and rows["cy"]["losses"] == 4
    assert rows[records[0]["o"]]["forfeits"] == {"timeout": 1}
    assert rows["ann"]["rating"] > rows["bob"]["rating"] > rows["cy"]["rating"]
    assert rows["ann"]["margin"] == 10 and rows["cy"]["margin"] == -10
    assert [rows[n]["beaten"] for n in names] == [2, 1, 0]
    assert {(p["a"], p["b"]): p["counts"] for p in document["pentanomial"]} == {
        ("ann", "bob"): [0, 0, 0, 0, 1], ("ann", "cy"): [0, 0, 0, 0, 1],
        ("bob", "cy"): [0, 0, 0, 0, 1]}


def test_beaten_counts_opponents_outscored_head_to_head():
    results_ = [("a", "b", 1.0), ("b", "a", 1.0),        # a and b split: nobody beat
                ("a", "c", 0.5), ("c", "a", 0.0),        # a 1.5 of 2 against c
                ("b", "c", 1.0)]
    assert standings.beaten(results_) == {"a": 1, "b": 1, "c": 0}


def test_merged_shards_equal_the_whole(tmp_path):
    names = ["ann", "bob", "cy", "dee"]
    records = finished(names)
    whole = results.assemble(HEADER, entrants(names), {}, records, True)
    parts = []
    for index in (1, 2):
        mine = [r for r in records if (r["pair"] - 1) % 2 == index - 1]
        parts.append(results.assemble(dict(HEADER, shard=f"{index}/2"), entrants(names),
                                      {}, mine, True))
    for part, index in zip(parts, (1, 2)):
        results.save(str(tmp_path / f"s{index}.json"), part)
    loaded = [results.load(str(tmp_path / f"s{index}.json")) for index in (1, 2)]
    merged = results.merge(loaded, ["s1.json", "s2.json"])
    assert json.loads(json.dumps(merged)) == json.loads(json.dumps(whole))


def test_merge_refuses_another_tournament_or_a_conflicting_game():
    names = ["ann", "bob"]
    records = finished(names)
    one = results.assemble(HEADER, entrants(names), {}, records, True)
    other = results.assemble(dict(HEADER, seed=2), entrants(names), {}, records, True)
    with pytest.raises(results.ResultsError, match="seed"):
        results.merge([one, other], ["a.json", "b.json"])
    changed = [dict(records[0], result="draw")] + records[1:]
    clash = results.assemble(HEADER, entrants(names), {}, changed, True)
    with pytest.raises(results.ResultsError, match="different games"):
        results.merge([one, clash], ["a.json", "b.json"])


def test_a_results_file_that_is_not_one_is_refused(tmp_path):
    for text in ("not json", "[]", json.dumps({"game": "stake_raid"})):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(results.ResultsError):
            results.load(str(path))
    with pytest.raises(results.ResultsError, match="cannot read"):
        results.load(str(tmp_path / "missing.json"))


def test_the_csv_keeps_a_spreadsheet_from_running_a_name():
    names = ["=HYPERLINK(1)", "bob"]
    document = results.assemble(HEADER, entrants(names), {"bob": "make agent failed"},
                                [], True)
    text = results.csv_text(document)
    assert "'=HYPERLINK(1)" in text
    assert text.splitlines()[0].startswith("place,name,")
    assert "make agent failed" in text.splitlines()[-1]


def test_sizes_round_trip_through_the_header():
    header = dict(HEADER, game="lineemup", sizes=["5:4:2", "6:4:3"])
    assert [str(size) for size in results.parse_sizes(header)] == ["5:4:2", "6:4:3"]
    assert rules_for("stake_raid").parse_sizes("3,4") == [3, 4]
