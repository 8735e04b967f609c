"""engine/tournament/sprt.py: the pentanomial GSPRT over colour-swapped pairs -- decisions on
simulated matches, the constrained maximum-likelihood distributions, the LLR's shape and
its normal approximation, the Wald bounds, the Elo estimate and argument checking."""

import math
import random

import pytest

from engine.tournament import sprt
from engine.tournament.sprt import (PAIR_SCORES, Sprt, constrained_mle, elo_estimate,
                                    elo_from_score, expected_score)


def run(test, probabilities, seed, max_pairs):
    """Play pairs drawn from ``probabilities`` until ``test`` decides; (decision, pairs)."""
    rng = random.Random(seed)
    counts = [0] * 5
    for pairs in range(1, max_pairs + 1):
        counts[rng.choices(range(5), weights=probabilities)[0]] += 1
        decision = test.decision(counts)
        if decision is not None:
            return decision, pairs
    return None, max_pairs


def mean(probabilities):
    return sum(p * a for p, a in zip(probabilities, PAIR_SCORES))


# --- decisions ------------------------------------------------------------------------------

STRONG = [0.02, 0.08, 0.35, 0.35, 0.20]   # mean 0.6575: about +113 Elo a game
EVEN = [0.05, 0.20, 0.50, 0.20, 0.05]     # symmetric: mean 0.5


def test_a_stronger_entrant_is_accepted_as_h1():
    assert elo_from_score(mean(STRONG)) > 100
    for seed in range(5):
        decision, pairs = run(Sprt(0, 50), STRONG, seed, 2000)
        assert decision == "H1", (seed, pairs)


def test_equal_entrants_are_accepted_as_h0():
    assert mean(EVEN) == pytest.approx(0.5)
    outcomes = [run(Sprt(0, 25), EVEN, seed, 5000) for seed in range(10)]
    # alpha = 0.05: a wrong H1 now and then is the test working; every run must end.
    decisions = [decision for decision, _ in outcomes]
    assert None not in decisions, outcomes
    assert decisions.count("H0") >= 8, outcomes


def test_a_weaker_entrant_is_accepted_as_h0_quickly():
    weak = list(reversed(STRONG))
    decision, pairs = run(Sprt(0, 50), weak, 99, 2000)
    assert decision == "H0"
    assert pairs < 200


# --- the log-likelihood ratio ---------------------------------------------------------------

def test_no_pairs_give_a_zero_llr_and_no_decision():
    test = Sprt(0, 20)
    assert test.llr([0, 0, 0, 0, 0]) == 0.0
    assert test.decision([0, 0, 0, 0, 0]) is None


def test_a_winning_pair_raises_the_llr_and_a_losing_pair_lowers_it():
    rng = random.Random(4)
    cases = [[0] * 5, [0, 0, 3, 0, 0], [0, 0, 0, 0, 6], [9, 0, 0, 0, 0], [1, 4, 9, 4, 1]]
    cases += [[rng.randrange(0, 30) for _ in range(5)] for _ in range(20)]
    for test in (Sprt(0, 20), Sprt(-10, 30), Sprt(100, 200, 0.1, 0.2)):
        for counts in cases:
            llr = test.llr(counts)
            win = counts[:4] + [counts[4] + 1]
            loss = [counts[0] + 1] + counts[1:]
            assert test.llr(win) > llr, (test, counts)
            assert test.llr(loss) < llr, (test, counts)


def test_the_llr_matches_its_normal_approximation_on_many_pairs():
    # For many pairs the GSPRT's LLR approaches
    # N (s1 - s0) (2 mean - s0 - s1) / (2 variance), variance that of one pair's score.
    # (It is a local approximation: the counts keep the mean near s0 and s1.)
    for counts in ([100, 400, 1000, 400, 100], [90, 400, 1000, 420, 95], [10, 80, 400, 90, 8]):
        n = sum(counts)
        m = sum(c * a for c, a in zip(counts, PAIR_SCORES)) / n
        var = sum(c * (a - m) ** 2 for c, a in zip(counts, PAIR_SCORES)) / n
        s0, s1 = expected_score(0), expected_score(10)
        approximation = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)
        assert Sprt(0, 10).llr(counts) == pytest.approx(approximation, rel=0.02, abs=0.02)


def test_all_pairs_in_one_cell_do_not_crash():
    test = Sprt(0, 20)
    for cell in range(5):
        for n in (1, 7, 10 ** 6):
            counts = [0] * 5
            counts[cell] = n
            assert math.isfinite(test.llr(counts))
            test.decision(counts)
    assert test.llr([0, 0, 0, 0, 7]) > 0 > test.llr([7, 0, 0, 0, 0])
    assert test.decision([0, 0, 0, 0, 10 ** 6]) == "H1"
    assert test.decision([10 ** 6, 0, 0, 0, 0]) == "H0"


def test_the_bounds_are_walds():
    test = Sprt(0, 10, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert Sprt(0, 5).lower == pytest.approx(-Sprt(0, 5).upper)


def test_a_decision_is_the_llr_against_the_bounds():
    test = Sprt(0, 30)
    rng = random.Random(8)
    for _ in range(40):
        counts = [rng.randrange(0, 40) for _ in range(5)]
        llr, decision = test.llr(counts), test.decision(counts)
        expected = "H1" if llr >= test.upper else "H0" if llr <= test.lower else None
        assert decision == expected


# --- the constrained maximum-likelihood distribution ------------------------------------------

@pytest.mark.parametrize("counts", [[1, 2, 5, 2, 1], [0, 0, 0, 0, 0], [0, 0, 9, 0, 0],
                                    [12, 0, 3, 0, 40], [0, 1, 0, 1, 0], [300, 20, 5, 20, 1]])
@pytest.mark.parametrize("score", [0.5, expected_score(20), 0.3, 0.9, 0.01])
def test_the_constrained_distribution_sums_to_one_and_has_the_requested_mean(counts, score):
    p = constrained_mle(counts, score)
    assert all(x > 0 for x in p)
    assert sum(p) == pytest.approx(1.0, abs=1e-9)
    assert mean(p) == pytest.approx(score, abs=1e-9)


def test_the_constrained_distribution_is_the_maximum():
    rng = random.Random(6)
    for _ in range(30):
        counts = [rng.randrange(0, 20) for _ in range(5)]
        score = rng.uniform(0.2, 0.8)
        weights = [c + sprt.REGULARISATION for c in counts]
        p = constrained_mle(counts, score)

        def loglik(q, weights=weights):
            return sum(w * math.log(x) for w, x in zip(weights, q))

        # Directions that keep the sum and the mean: orthogonal to (1,..) and (a_i).
        basis = [[1.0] * 5, list(PAIR_SCORES)]
        for _ in range(5):
            v = [rng.gauss(0, 1) for _ in range(5)]
            for b in orthonormal(basis):
                dot = sum(x * y for x, y in zip(v, b))
                v = [x - dot * y for x, y in zip(v, b)]
            t = 0.5 * min(p) / max(abs(x) for x in v)
            for sign in (1, -1):
                q = [x + sign * t * y for x, y in zip(p, v)]
                assert loglik(q) < loglik(p)


def orthonormal(vectors):
    out = []
    for v in vectors:
        for b in out:
            dot = sum(x * y for x, y in zip(v, b))
            v = [x - dot * y for x, y in zip(v, b)]
        norm = math.sqrt(sum(x * x for x in v))
        out.append([x / norm for x in v])
    return out


# --- the Elo estimate -----------------------------------------------------------------------

def test_the_elo_estimate_of_a_symmetric_distribution_is_zero():
    elo, low, high = elo_estimate([3, 10, 20, 10, 3])
    assert elo == pytest.approx(0.0, abs=1e-9)
    assert low < 0 < high
    assert low == pytest.approx(-high)


def test_the_elo_estimate_follows_the_mean_and_its_standard_error():
    counts = [10, 0, 0, 0, 10]  # mean 0.5, a pair's variance 0.25, 20 pairs
    half = 1.96 * math.sqrt(0.25 / 20)
    elo, low, high = elo_estimate(counts)
    assert low == pytest.approx(400 * math.log10((0.5 - half) / (0.5 + half)))
    assert high == pytest.approx(-low)
    elo, low, high = elo_estimate([0, 0, 0, 4, 0])  # every pair 1.5 of 2: no spread
    assert elo == pytest.approx(400 * math.log10(3)) and low == elo == high
    fewer, more = elo_estimate(counts), elo_estimate([20, 0, 0, 0, 20])
    assert more[2] - more[1] < fewer[2] - fewer[1]


def test_the_elo_estimate_stays_finite_at_the_edges():
    for counts in ([0, 0, 0, 0, 5], [5, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 1, 1]):
        assert all(math.isfinite(x) for x in elo_estimate(counts))
        elo, low, high = elo_estimate(counts)
        assert low <= elo <= high


def test_the_elo_estimate_needs_pairs():
    with pytest.raises(ValueError):
        elo_estimate([0, 0, 0, 0, 0])


def test_score_and_elo_are_inverse():
    for elo in (-700, -20, 0, 35.5, 400):
        assert elo_from_score(expected_score(elo)) == pytest.approx(elo)
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-1e9) == 0.0 and expected_score(1e9) == 1.0  # no overflow


# --- arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments", [
    (10, 10), (20, 0), (0, 20, 0.0, 0.05), (0, 20, 0.5, 0.05), (0, 20, -0.1, 0.05),
    (0, 20, 0.05, 0.0), (0, 20, 0.05, 0.6), (float("nan"), 20), (0, float("inf")),
    ("0", 20), (0, 20, True, 0.05), (0, 10 ** 5),
])
def test_bad_test_arguments_raise_a_one_line_value_error(arguments):
    with pytest.raises(ValueError) as caught:
        Sprt(*arguments)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("counts", [[0, 0, 0, 0], [1, 2, 3, 4, 5, 6], [1, -1, 0, 0, 0],
                                    [1, float("nan"), 0, 0, 0], [float("inf"), 0, 0, 0, 0],
                                    ["x", 0, 0, 0, 0], None])
def test_bad_counts_raise_value_error(counts):
    with pytest.raises(ValueError):
        Sprt(0, 20).llr(counts)
    with pytest.raises(ValueError):
        elo_estimate(counts)


@pytest.mark.parametrize("score", [0.0, 1.0, -0.2, 1.5, float("nan")])
def test_a_mean_outside_the_open_unit_interval_is_refused(score):
    with pytest.raises(ValueError):
        constrained_mle([1, 1, 1, 1, 1], score)
    with pytest.raises(ValueError):
        elo_from_score(score)
