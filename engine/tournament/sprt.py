"""A sequential probability ratio test over colour-swapped game pairs (pentanomial model).

Two entrants play pairs of games with the colours swapped; a pair scores ``a_i`` in
``(0, 0.25, 0.5, 0.75, 1)`` for A (its points over the pair, halved), and ``counts`` holds
how many pairs scored each (``engine.tournament.ratings.pentanomial``). The hypotheses
are about A's Elo advantage on the logistic scale, expected score
``s(elo) = 1 / (1 + 10 ** (-elo / 400))``: H0 ``elo = elo0`` against H1 ``elo = elo1``.

The statistic is the generalised log-likelihood ratio that fishtest calls GSPRT: under
each hypothesis the pair-score distribution is the maximum-likelihood multinomial whose
mean is ``s(elo_j)``; ``p_i = f_i / (1 + lam (a_i - s))`` with ``f`` the observed
frequencies and ``lam`` the root of ``sum f_i (a_i - s) / (1 + lam (a_i - s)) = 0``,
found by bisection on the interval that keeps every denominator positive. Then
``LLR = sum m_i log(p1_i / p0_i)``.

Regularisation: every cell gets REGULARISATION (1e-3) extra pairs (``m_i = n_i + 1e-3``,
used for ``f`` and in the sum) so that both constrained maxima exist when cells are
empty, even when all pairs fell in one cell. The LLR is exactly 0 when no pair has been
played.

Stopping (Wald): accept H0 when ``LLR <= log(beta / (1 - alpha))``, H1 when
``LLR >= log((1 - beta) / alpha)``; keep playing in between.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple
from ..errors import EngineError

#: A's score in a colour-swapped pair of each pentanomial cell (pair points / 2).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pairs added to every cell before the maximum-likelihood fits.
REGULARISATION = 1e-3
#: Two-sided 95 % normal quantile for :func:`elo_estimate`.
Z95 = 1.96
#: Scores are kept this far inside (0, 1) before they become Elo (about +-2400 Elo).
SCORE_MARGIN = 1e-6


class SprtError(EngineError, ValueError):
    """Arguments that make no test (the message says which and why)."""


def expected_score(elo: float) -> float:
    """The expected score of a player ``elo`` Elo stronger (logistic), in [0, 1]. It rounds
    to 1 above about +6,400 Elo (and to 0 far below -6,400); it never overflows."""
    x = elo * math.log(10.0) / 400.0
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def elo_from_score(score: float) -> float:
    """The Elo difference whose expected score is ``score``.

    Raises:
        SprtError: ``score`` outside the open interval (0, 1).
    """
    if not 0.0 < score < 1.0:
        raise SprtError(f"a score must lie strictly between 0 and 1, not {score!r}")
    return 400.0 * math.log10(score / (1.0 - score))


def _checked_counts(counts: Sequence[float]) -> List[float]:
    try:
        values = [float(c) for c in counts]
    except (TypeError, ValueError):
        raise SprtError(f"counts must be 5 numbers, not {counts!r}") from None
    if len(values) != 5 or not all(0.0 <= v < math.inf for v in values):
        raise SprtError(f"counts must be 5 non-negative finite numbers, not {counts!r}")
    return values


def constrained_mle(counts: Sequence[float], score: float) -> List[float]:
    """The pentanomial distribution of largest likelihood for ``counts`` whose mean pair
    score is ``score``.

    Args:
        counts: 5 non-negative pair counts (REGULARISATION is added to each here).
        score: the required mean, strictly between 0 and 1.

    Returns:
        The 5 probabilities (they sum to 1 and have mean ``score`` up to rounding).

    Raises:
        SprtError: bad counts or a score outside (0, 1).
    """
    if not 0.0 < score < 1.0:
        raise SprtError(f"the mean score must lie strictly between 0 and 1, not {score!r}")
    weights = [c + REGULARISATION for c in _checked_counts(counts)]
    total = sum(weights)
    freqs = [w / total for w in weights]
    offsets = [a - score for a in PAIR_SCORES]

    def balance(lam: float) -> float:
        # Strictly decreasing in lam: its derivative is -sum f d^2 / (1 + lam d)^2.
        total = 0.0
        for f, d in zip(freqs, offsets):
            denominator = 1.0 + lam * d
            if denominator <= 0.0:  # rounding at an end of the interval: past the pole
                return math.inf if d > 0.0 else -math.inf
            total += f * d / denominator
        return total

    # Every 1 + lam * d stays positive for lam in (-1/(1 - score), 1/score); balance runs
    # from +inf (the a=1 cell) to -inf (the a=0 cell) across it, so one root lies inside.
    low, high = -1.0 / (1.0 - score), 1.0 / score
    spread = max(score, 1.0 - score)  # the largest |a_i - score|
    for _ in range(2000):  # floats run out long before (a bisection halves each time)
        mid = 0.5 * (low + high)
        # The smallest denominator over the interval sits at one of its ends; once no
        # denominator can change by more than 1e-15 of itself across it, p is exact.
        smallest = min(1.0 + low * (1.0 - score), 1.0 - high * score)
        if mid <= low or mid >= high or (high - low) * spread <= 1e-15 * smallest:
            break
        if balance(mid) > 0.0:
            low = mid
        else:
            high = mid
    lam = 0.5 * (low + high)
    return [f / (1.0 + lam * d) for f, d in zip(freqs, offsets)]


@dataclass(frozen=True)
class Sprt:
    """The test of ``elo0`` (H0) against ``elo1`` (H1) with error rates ``alpha`` (accept
    H1 when H0 holds) and ``beta`` (accept H0 when H1 holds).

    Raises:
        SprtError (a ValueError): non-finite bounds, ``elo1 <= elo0``, an error rate
        outside (0, 0.5), or a bound so extreme its expected score rounds to 0 or 1.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                raise SprtError(f"SPRT {name} must be a finite number, not {value!r}")
        if not self.elo1 > self.elo0:
            raise SprtError(f"SPRT elo1 ({self.elo1}) must be greater than elo0 ({self.elo0})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise SprtError(f"SPRT {name} must lie strictly between 0 and 0.5, not {value}")
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not 0.0 < expected_score(value) < 1.0:
                raise SprtError(f"SPRT {name} = {value} is too extreme: its expected score "
                                "rounds to 0 or 1")

    @property
    def lower(self) -> float:
        """log(beta / (1 - alpha)): at or below it, H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """log((1 - beta) / alpha): at or above it, H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 to H0 for pentanomial ``counts`` (0 with no
        pairs). Raises SprtError on counts that are not 5 non-negative numbers."""
        values = _checked_counts(counts)
        if sum(values) == 0.0:
            return 0.0
        p0 = constrained_mle(values, expected_score(self.elo0))
        p1 = constrained_mle(values, expected_score(self.elo1))
        return sum((n + REGULARISATION) * math.log(b / a) for n, a, b in zip(values, p0, p1))

    def decision(self, counts: Sequence[float]) -> Optional[str]:
        """``"H1"`` when the LLR has reached the upper bound, ``"H0"`` the lower, ``None``
        while the test goes on."""
        llr = self.llr(counts)
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def elo_estimate(counts: Sequence[float]) -> Tuple[float, float, float]:
    """A's Elo advantage per game with a 95 % interval, from the pentanomial counts.

    The mean pair score and its standard error (the pairs' variance over their number)
    give a normal interval on the score; the score and both ends, kept SCORE_MARGIN
    inside (0, 1), become Elo by the logistic curve.

    Args:
        counts: 5 non-negative pair counts, at least one pair in all.

    Returns:
        ``(elo, low, high)``.

    Raises:
        SprtError (a ValueError): bad counts, or no pairs.
    """
    values = _checked_counts(counts)
    pairs = sum(values)
    if pairs == 0.0:
        raise SprtError("no pairs played: no Elo estimate")
    mean = sum(n * a for n, a in zip(values, PAIR_SCORES)) / pairs
    variance = sum(n * (a - mean) ** 2 for n, a in zip(values, PAIR_SCORES)) / pairs
    half = Z95 * math.sqrt(variance / pairs)

    def elo(score: float) -> float:
        return elo_from_score(min(max(score, SCORE_MARGIN), 1.0 - SCORE_MARGIN))

    return elo(mean), elo(mean - half), elo(mean + half)
