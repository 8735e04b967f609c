"""engine/tournament/ratings.py: the joint Bradley-Terry fit (Elo scale, one phantom draw
each, centred) checked against synthetic tournaments drawn from known ratings, against a
brute-force maximum of the same penalised likelihood written out here from its definition,
and on the edge cases; and the pentanomial counts."""

import math
import random

import pytest

from engine.tournament import ratings
from engine.tournament.ratings import Rating, fit, pentanomial

LN10 = math.log(10.0)


def expected(r_a, r_b):
    """The model's expected score of a against b, straight from its definition."""
    return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))


def simulate(true, games, rng):
    """``games`` games between random pairs of the entrants of ``true`` (name -> Elo), each
    a win, draw or loss whose expected score is the model's (draws take part of it)."""
    names = sorted(true)
    results = []
    for _ in range(games):
        a, b = rng.sample(names, 2)
        p = expected(true[a], true[b])
        draw = 0.5 * min(p, 1.0 - p)  # keeps E[score] = p: a win p - draw/2, a draw draw
        u = rng.random()
        score = 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0
        results.append((a, b, score))
    return results


def penalised_loglik(ratings_by_name, results):
    """The log-likelihood of the games plus one draw per entrant who played against a
    phantom at 0, computed game by game from the module's documented definition."""
    total = 0.0
    played = set()
    for a, b, s in results:
        p = expected(ratings_by_name[a], ratings_by_name[b])
        total += s * math.log(p) + (1 - s) * math.log(1 - p)
        played.update((a, b))
    for name in played:
        p = expected(ratings_by_name[name], 0.0)
        total += 0.5 * math.log(p) + 0.5 * math.log(1 - p)
    return total


def centred(values):
    mean = sum(values.values()) / len(values)
    return {k: v - mean for k, v in values.items()}


def half_width(rating):
    return (rating.high - rating.low) / 2


# --- recovering known ratings ----------------------------------------------------------

def test_recovers_the_order_of_known_ratings_within_the_intervals():
    true = {f"p{i}": 100.0 * i for i in range(8)}
    results = simulate(true, 4000, random.Random(20240611))
    fitted = fit(sorted(true), results)
    order = sorted(fitted, key=lambda name: fitted[name].rating)
    assert order == sorted(true, key=true.get)
    truth = centred(true)
    inside = [fitted[n].low <= truth[n] <= fitted[n].high for n in true]
    # 95 % intervals: one miss among 8 is ordinary; two or more would be suspicious.
    assert sum(inside) >= 7, (fitted, truth)
    for name in true:
        assert fitted[name].low < fitted[name].rating < fitted[name].high
        assert abs(fitted[name].rating - truth[name]) < 60


def test_agrees_with_a_brute_force_maximum_of_the_penalised_likelihood():
    results = ([("a", "b", 1)] * 4 + [("b", "a", 0.5)] * 3 + [("a", "b", 0)] * 2
               + [("b", "c", 1)] * 5 + [("c", "b", 1)] + [("a", "c", 0.5)] * 2
               + [("c", "a", 0)] * 3)
    names = ["a", "b", "c"]

    def value(point):
        return penalised_loglik(dict(zip(names, point)), results)

    # Compass search, with the common level (1, 1, 1) as a fourth direction: only the
    # phantom draws pin the level, so that valley is long and flat.
    point, best, step = [0.0, 0.0, 0.0], value([0.0, 0.0, 0.0]), 256.0
    directions = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]
    while step > 1e-6:
        moved = False
        for d in directions:
            for sign in (1, -1):
                trial = [x + sign * step * dx for x, dx in zip(point, d)]
                v = value(trial)
                if v > best:
                    point, best, moved = trial, v, True
        if not moved:
            step /= 2
    brute = centred(dict(zip(names, point)))
    fitted = fit(names, results)
    for name in names:
        assert fitted[name].rating == pytest.approx(brute[name], abs=1e-3)

    # The intervals: the inverse of a finite-difference Hessian of the negative
    # penalised log-likelihood, centred (C S C^T), 1.96 standard deviations.
    h = 0.5

    def shifted(i, j, si, sj):
        p = list(point)
        p[i] += si * h
        p[j] += sj * h
        return value(p)

    hess = [[-(shifted(i, j, 1, 1) - shifted(i, j, 1, -1) - shifted(i, j, -1, 1)
               + shifted(i, j, -1, -1)) / (4 * h * h) for j in range(3)] for i in range(3)]
    cov = inverse3(hess)
    centring = [[(1.0 if i == j else 0.0) - 1 / 3 for j in range(3)] for i in range(3)]
    for i, name in enumerate(names):
        variance = sum(centring[i][k] * cov[k][m] * centring[i][m]
                       for k in range(3) for m in range(3))
        assert half_width(fitted[name]) == pytest.approx(1.96 * math.sqrt(variance), rel=1e-3)


def inverse3(m):
    """The inverse of a 3 x 3 matrix by its adjugate."""
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    adj = [[e * i - f * h, c * h - b * i, b * f - c * e],
           [f * g - d * i, a * i - c * g, c * d - a * f],
           [d * h - e * g, b * g - a * h, a * e - b * d]]
    return [[x / det for x in row] for row in adj]


def test_the_fit_is_a_stationary_point_of_the_penalised_likelihood_on_a_ragged_field():
    # 60 entrants: a Swiss-like field, an undefeated and a winless entrant, a chain of
    # one-game links and a separate group that never meets the rest (only the phantom
    # draws tie the two groups' levels together).
    rng = random.Random(7)
    true = {f"s{i:02d}": rng.gauss(0, 250) for i in range(40)}
    results = simulate(true, 400, rng)
    names = sorted(true)
    for opponent in names[:10]:
        results += [("top", opponent, 1), (opponent, "bottom", 1)]
    chain = [f"c{i}" for i in range(10)]
    results += [(chain[i], chain[i + 1], 1) for i in range(9)] + [(chain[-1], names[0], 0.5)]
    island = {f"i{i}": 80.0 * i for i in range(6)}
    results += simulate(island, 60, rng)
    names += ["top", "bottom"] + chain + sorted(island) + ["idle"]
    fitted = fit(names, results)
    assert fitted["idle"] is None
    played = {n: r.rating for n, r in fitted.items() if r is not None}
    assert sum(played.values()) == pytest.approx(0.0, abs=1e-6)

    # Undo the centring: the level is where the phantom draws balance (the games'
    # derivative along (1, ..., 1) is zero whatever the level).
    def phantom_balance(level):
        return sum(0.5 - expected(r + level, 0.0) for r in played.values())
    low, high = -1000.0, 1000.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if phantom_balance(mid) > 0 else (low, mid)
    absolute = {n: r + low for n, r in played.items()}
    # d log L / d r_i * 400 / ln 10 = sum over i's games of (score - expected) + phantom.
    slope = {n: 0.5 - expected(r, 0.0) for n, r in absolute.items()}
    for a, b, s in results:
        p = expected(absolute[a], absolute[b])
        slope[a] += s - p
        slope[b] -= s - p
    assert max(abs(v) for v in slope.values()) < 1e-7
    assert all(math.isfinite(r.low) and math.isfinite(r.high) for r in fitted.values() if r)
    assert max(played, key=played.get) == "top"
    assert min(played, key=played.get) == "bottom"


# --- properties ---------------------------------------------------------------------------

def test_swapping_the_sides_of_every_game_gives_the_same_fit():
    results = simulate({"a": 0, "b": 50, "c": 120, "d": -80}, 200, random.Random(3))
    swapped = [(b, a, 1 - s) for a, b, s in results]
    one, other = fit("abcd", results), fit("abcd", swapped)
    for name in "abcd":
        for x, y in zip(one[name], other[name]):
            assert x == pytest.approx(y, abs=1e-9)


def test_an_undefeated_entrant_gets_a_finite_rating_above_everyone():
    results = ([("alice", "bob", 1)] * 5 + [("carol", "alice", 0)] * 5
               + [("bob", "carol", 1), ("bob", "carol", 0.5), ("carol", "bob", 1)]
               + [("dave", "bob", 0)] * 3)
    fitted = fit(["alice", "bob", "carol", "dave"], results)
    for rating in fitted.values():
        assert all(math.isfinite(x) for x in rating)
        assert rating.low < rating.rating < rating.high
    others = [fitted[n].rating for n in ("bob", "carol", "dave")]
    assert fitted["alice"].rating > max(others)
    assert fitted["dave"].rating < min(fitted[n].rating for n in ("alice", "bob", "carol"))


def test_a_single_game_between_two_entrants():
    fitted = fit(["w", "l"], [("w", "l", 1)])
    assert fitted["w"].rating > 0 > fitted["l"].rating
    assert fitted["w"].rating == pytest.approx(-fitted["l"].rating)
    assert half_width(fitted["w"]) == pytest.approx(half_width(fitted["l"]))


def test_an_entrant_without_games_gets_none_and_does_not_move_the_centre():
    results = simulate({"a": 0, "b": 100, "c": 200}, 60, random.Random(5))
    fitted = fit(["a", "idle", "b", "c"], results)
    assert list(fitted) == ["a", "idle", "b", "c"]
    assert fitted["idle"] is None
    assert all(isinstance(fitted[n], Rating) for n in "abc")
    assert sum(fitted[n].rating for n in "abc") == pytest.approx(0.0, abs=1e-9)
    without = fit(["a", "b", "c"], results)
    for name in "abc":
        assert fitted[name] == pytest.approx(without[name])


def test_intervals_shrink_as_games_grow():
    true = {"a": -100.0, "b": 0.0, "c": 60.0, "d": 150.0}
    few = simulate(true, 100, random.Random(11))
    widths_few = {n: half_width(r) for n, r in fit(sorted(true), few).items()}
    repeated = {n: half_width(r) for n, r in fit(sorted(true), few * 4).items()}
    many = {n: half_width(r) for n, r in
            fit(sorted(true), simulate(true, 2000, random.Random(12))).items()}
    for name in true:
        # Four times the same games: about half the width (the prior weighs a bit less).
        assert 0.4 * widths_few[name] < repeated[name] < 0.6 * widths_few[name]
        assert many[name] < 0.4 * widths_few[name]


def test_no_entrants_and_one_entrant():
    assert fit([], []) == {}
    assert fit(["solo"], []) == {"solo": None}
    assert fit(["x", "y"], iter(())) == {"x": None, "y": None}


@pytest.mark.parametrize("names, results", [
    (["a", "b"], [("a", "z", 1)]),              # an unknown entrant
    (["a", "b"], [("a", "a", 1)]),              # playing itself
    (["a", "b"], [("a", "b", 2)]),              # a score above 1
    (["a", "b"], [("a", "b", -0.5)]),
    (["a", "b"], [("a", "b", float("nan"))]),
    (["a", "b"], [("a", "b", "1")]),
    (["a", "b"], [("a", "b")]),                 # not a triple
    (["a", "a"], []),                           # a duplicate name
])
def test_bad_input_raises_a_one_line_value_error(names, results):
    with pytest.raises(ValueError) as caught:
        fit(names, results)
    assert "\n" not in str(caught.value)


def test_the_ratings_error_is_a_value_error():
    assert issubclass(ratings.RatingsError, ValueError)


# --- pentanomial ------------------------------------------------------------------------

def test_pentanomial_counts_the_pair_scores():
    assert pentanomial([]) == [0, 0, 0, 0, 0]
    assert pentanomial([2, 1.5, 1, 1, 0.5, 0, 2, 1.0]) == [1, 1, 3, 1, 2]
    assert pentanomial(iter([0.5, 0.5])) == [0, 2, 0, 0, 0]


@pytest.mark.parametrize("bad", [0.25, 2.5, -0.5, 3, "1", None, True, float("nan")])
def test_pentanomial_rejects_other_values(bad):
    with pytest.raises(ValueError):
        pentanomial([1, bad])
