"""Tournament ratings: one joint Bradley-Terry fit on the Elo scale, by maximum likelihood.

The model (as Ordo and BayesElo use it): entrant ``a`` scores against ``b`` with expected
score ``P = 1 / (1 + 10 ** ((r_b - r_a) / 400))``. A game in which ``a`` scored ``s``
(1 win, 0.5 draw, 0 loss) adds ``s log P + (1 - s) log(1 - P)`` to the log-likelihood, so
a draw counts as half a win for each side. All games are fitted at once.

Prior: every entrant that played gets ONE virtual draw against a phantom whose rating is
fixed at 0. Without it an undefeated (or winless) entrant's maximum-likelihood rating is
infinite and the level of the ratings is undetermined; with it the penalised likelihood
is strictly concave and every rating is finite, while a real game still outweighs the
phantom's single half-point. The fitted ratings are then centred: shifted so that their
mean over the entrants who played is 0.

Intervals (95 %): the covariance is the inverse of the observed Fisher information (the
Hessian of the negative penalised log-likelihood at the maximum), transformed by the
centring (``C S C^T`` with ``C = I - 11^T / n`` over the n entrants who played); each
entrant gets ``rating +- 1.96 sqrt(variance)``.

:func:`fit` returns ``{name: Rating(rating, low, high)}``, ``None`` for an entrant that
played no game. :func:`pentanomial` counts colour-swapped pair scores.

Pure Python (no numpy): cheap coordinate sweeps find a starting point, Newton's method
(dense Cholesky, damped when a step would not lower the loss) converges to 1e-9 Elo, and
the same factor gives the variances: about 0.3 s for 300 entrants of a 10-round Swiss.
"""

from __future__ import annotations

import math
from operator import mul
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple
from ..errors import EngineError

#: d/dr of the natural-log odds: P = sigmoid(K (r_a - r_b)).
K = math.log(10.0) / 400.0
#: The two-sided 95 % normal quantile used for the intervals.
Z95 = 1.96
#: Newton stops when no rating moves by more than this (Elo).
TOLERANCE = 1e-9
MAX_ITERATIONS = 100
MAX_HALVINGS = 60
#: The starting sweeps stop when no rating moves by more than this (Elo), or after
#: MAX_SWEEPS.
SWEEP_TOLERANCE = 1e-3
MAX_SWEEPS = 50
#: A Hessian factorised within this distance (Elo, largest single rating) of the current
#: ratings is reused: its entries differ by a relative 1e-5 at most.
CHORD_RADIUS = 1e-3


class Rating(NamedTuple):
    """A centred Elo rating and its 95 % interval."""

    rating: float
    low: float
    high: float


class RatingsError(EngineError, ValueError):
    """Input that cannot be rated (the message says which result or name is wrong)."""


def _softplus(x: float) -> float:
    """log(1 + e**x) without overflow; -log(sigmoid(x)) is _softplus(-x)."""
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _collect(names: Sequence[str], results: Iterable) -> Tuple[List[str], list]:
    """Validate the input and sum the games of each pair of entrants.

    Returns the names of the entrants who played (in ``names`` order) and a list of
    ``(p, q, games, score_of_p)`` over their positions in that list."""
    index: Dict[str, int] = {}
    for name in names:
        if name in index:
            raise RatingsError(f"entrant {name!r} is listed twice")
        index[name] = len(index)
    totals: Dict[Tuple[int, int], List[float]] = {}
    for number, item in enumerate(results, 1):
        try:
            a, b, score = item
        except (TypeError, ValueError):
            raise RatingsError(f"result {number} is not (a, b, score_a): {item!r}") from None
        for name in (a, b):
            if name not in index:
                raise RatingsError(f"result {number}: {name!r} is not an entrant")
        if a == b:
            raise RatingsError(f"result {number}: {a!r} cannot play itself")
        if isinstance(score, bool) or not isinstance(score, (int, float)) \
                or not 0.0 <= score <= 1.0:
            raise RatingsError(f"result {number}: score {score!r} is not between 0 and 1")
        i, j, s = index[a], index[b], float(score)
        if i > j:  # one key per unordered pair, the score seen from the first
            i, j, s = j, i, 1.0 - s
        cell = totals.setdefault((i, j), [0.0, 0.0])
        cell[0] += 1.0
        cell[1] += s
    ordered = list(index)
    played_index = sorted({i for pair in totals for i in pair})
    position = {i: p for p, i in enumerate(played_index)}
    pairs = [(position[i], position[j], games, won)
             for (i, j), (games, won) in sorted(totals.items())]
    return [ordered[i] for i in played_index], pairs


def _evaluate(ratings: List[float], pairs: list, need_derivatives: bool = True
              ) -> Tuple[float, List[float], List[List[float]]]:
    """The negative penalised log-likelihood at ``ratings`` (Elo), with its gradient and
    Hessian (a dense list of rows; empty when ``need_derivatives`` is false)."""
    n = len(ratings)
    loss = 0.0
    grad = [0.0] * n
    hess = [[0.0] * n for _ in range(n)] if need_derivatives else []
    k2 = K * K
    for p, q, games, won in pairs:
        x = K * (ratings[p] - ratings[q])
        loss += won * _softplus(-x) + (games - won) * _softplus(x)
        if need_derivatives:
            prob = _sigmoid(x)
            g = K * (games * prob - won)
            grad[p] += g
            grad[q] -= g
            h = k2 * games * prob * (1.0 - prob)
            hess[p][p] += h
            hess[q][q] += h
            hess[p][q] -= h
            hess[q][p] -= h
    for p, r in enumerate(ratings):
        # The phantom draw: half a win and half a loss against rating 0.
        x = K * r
        loss += 0.5 * (_softplus(-x) + _softplus(x))
        if need_derivatives:
            prob = _sigmoid(x)
            grad[p] += K * (prob - 0.5)
            hess[p][p] += k2 * prob * (1.0 - prob)
    return loss, grad, hess


def _cholesky(matrix: List[List[float]]) -> List[List[float]]:
    """The lower factor L of a symmetric positive definite matrix (row i holds i + 1
    entries). The inner products run in C (sum of map) to keep 300 x 300 fast."""
    low: List[List[float]] = []
    for i, row_a in enumerate(matrix):
        row: List[float] = []
        for j in range(i):
            lj = low[j]
            # ``row`` holds j entries so far: map stops there, before lj's diagonal.
            row.append((row_a[j] - sum(map(mul, row, lj))) / lj[j])
        d = row_a[i] - sum(map(mul, row, row))
        if not d > 0.0:
            # The prior makes the Hessian positive definite; only overflow lands here.
            raise ArithmeticError("the information matrix is not positive definite")
        row.append(math.sqrt(d))
        low.append(row)
    return low


def _solve(low: List[List[float]], b: List[float]) -> List[float]:
    """x with L L^T x = b."""
    y: List[float] = []
    for row, value in zip(low, b):
        y.append((value - sum(map(mul, row, y))) / row[-1])
    for i in range(len(low) - 1, -1, -1):
        row = low[i]
        xi = y[i] / row[i]
        y[i] = xi
        for k in range(i):
            y[k] -= row[k] * xi
    return y


def _inverse_diagonal(low: List[List[float]]) -> List[float]:
    """The diagonal of (L L^T)^-1 = W^T W with W = L^-1: the squared norms of W's
    columns, each found by forward substitution."""
    n = len(low)
    diagonal = []
    for j in range(n):
        column = [1.0 / low[j][j]]  # W[j][j], then W[j+1][j], ...
        for i in range(j + 1, n):
            row = low[i]
            column.append(-sum(map(mul, row[j:i], column)) / row[i])
        diagonal.append(sum(map(mul, column, column)))
    return diagonal


def _sweeps(n: int, pairs: list) -> List[float]:
    """A starting point for Newton's method, found cheaply: coordinate-wise Newton sweeps
    (each entrant's rating moved to the 1-D optimum given the others, at most 400 Elo at a
    time), each followed by one Newton step on the common level of all ratings -- the one
    direction that only the phantom draws hold, which the sweeps alone crawl along. Costs
    O(games + n) a sweep instead of a dense factorisation; ends when no rating moves by
    more than SWEEP_TOLERANCE or after MAX_SWEEPS."""
    neighbours: List[List[Tuple[int, float, float]]] = [[] for _ in range(n)]
    for p, q, games, won in pairs:
        neighbours[p].append((q, games, won))
        neighbours[q].append((p, games, games - won))
    ratings = [0.0] * n
    for _ in range(MAX_SWEEPS):
        moved = 0.0
        for i, around in enumerate(neighbours):
            r = ratings[i]
            prob = _sigmoid(K * r)
            slope, curvature = prob - 0.5, prob * (1.0 - prob)  # the phantom draw
            for j, games, won in around:
                prob = _sigmoid(K * (r - ratings[j]))
                slope += games * prob - won
                curvature += games * prob * (1.0 - prob)
            step = min(max(-slope / (K * curvature), -400.0), 400.0)
            ratings[i] = r + step
            moved = max(moved, abs(step))
        slope = curvature = 0.0
        for r in ratings:
            prob = _sigmoid(K * r)
            slope += prob - 0.5
            curvature += prob * (1.0 - prob)
        shift = min(max(-slope / (K * curvature), -400.0), 400.0)
        ratings = [r + shift for r in ratings]
        if max(moved, abs(shift)) < SWEEP_TOLERANCE:
            break
    return ratings


def _maximise(n: int, pairs: list) -> Tuple[List[float], List[List[float]]]:
    """Newton's method on the (strictly convex) negative penalised log-likelihood from the
    sweeps' starting point, halving a step that would increase the loss. A factorisation
    is reused while the ratings stay within CHORD_RADIUS of where it was computed (the
    Hessian barely changes there), so a good start costs one factorisation in all.
    Returns the ratings and the Cholesky factor of the Hessian there."""
    ratings = _sweeps(n, pairs)
    loss, grad, hess = _evaluate(ratings, pairs)
    zero_loss = _evaluate([0.0] * n, pairs, need_derivatives=False)[0]
    if not loss <= zero_loss:  # the sweeps carry no guarantee; Newton's method does
        ratings = [0.0] * n
        loss, grad, hess = _evaluate(ratings, pairs)
    low: Optional[List[List[float]]] = None
    anchor = ratings
    for _ in range(MAX_ITERATIONS):
        fresh = low is None or _distance(anchor, ratings) > CHORD_RADIUS
        if fresh or low is None:        # (fresh when low is None: for mypy)
            low, anchor = _cholesky(hess), ratings
        step = _solve(low, grad)
        scale = 1.0
        for _ in range(MAX_HALVINGS):
            trial = [r - scale * s for r, s in zip(ratings, step)]
            trial_loss, trial_grad, trial_hess = _evaluate(trial, pairs)
            # A hair of slack: at the optimum the loss only changes by rounding.
            if trial_loss <= loss + 1e-13 * (1.0 + abs(loss)):
                break
            scale *= 0.5
        else:
            if fresh:
                break  # no step helps even with the exact Hessian: as close as floats allow
            low = None  # a stale factor that no longer helps: factorise afresh
            continue
        moved = max((abs(scale * s) for s in step), default=0.0)
        ratings, loss, grad, hess = trial, trial_loss, trial_grad, trial_hess
        if moved < TOLERANCE:
            break
    if low is None or _distance(anchor, ratings) > CHORD_RADIUS:
        low = _cholesky(hess)
    return ratings, low


def _distance(a: List[float], b: List[float]) -> float:
    return max((abs(x - y) for x, y in zip(a, b)), default=0.0)


def fit(names: Sequence[str], results: Iterable) -> Dict[str, Optional[Rating]]:
    """Fit Elo ratings to all games at once.

    Args:
        names: the entrants (unique); some may have played no game.
        results: ``(a, b, score_a)`` per game, ``score_a`` in [0, 1] (1 win, 0.5 draw,
            0 loss for ``a``).

    Returns:
        ``{name: Rating(rating, low, high)}`` for every name, in ``names`` order: the
        centred rating (mean 0 over those who played) with its 95 % interval, or ``None``
        for an entrant that played no game.

    Raises:
        RatingsError (a ValueError): a duplicate name, a result naming an unknown entrant
        or one entrant twice, or a score outside [0, 1].
    """
    names = list(names)
    played, pairs = _collect(names, results)
    fitted: Dict[str, Optional[Rating]] = {name: None for name in names}
    n = len(played)
    if n == 0:
        return fitted
    ratings, low = _maximise(n, pairs)
    mean = sum(ratings) / n
    # Var(r_i - mean) = S_ii - 2 (S 1)_i / n + 1^T S 1 / n^2, the diagonal of C S C^T.
    row_sums = _solve(low, [1.0] * n)
    total = sum(row_sums)
    diagonal = _inverse_diagonal(low)
    for name, r, s_ii, s_i in zip(played, ratings, diagonal, row_sums):
        variance = max(s_ii - 2.0 * s_i / n + total / (n * n), 0.0)  # rounding only
        half = Z95 * math.sqrt(variance)
        centred = r - mean
        fitted[name] = Rating(centred, centred - half, centred + half)
    return fitted


#: The points A can score over a colour-swapped pair of games, index = count position.
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)


def pentanomial(pair_scores: Iterable[float]) -> List[int]:
    """Count colour-swapped pairs by the points A scored over the two games.

    Args:
        pair_scores: A's points per pair, each 0, 0.5, 1, 1.5 or 2.

    Returns:
        ``[n0, n0.5, n1, n1.5, n2]``: how many pairs A scored each of those points in.

    Raises:
        ValueError: a value that is not one of the five pair scores.
    """
    counts = [0] * 5
    for value in pair_scores:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or value not in PAIR_SCORES:
            raise ValueError(f"a pair score must be 0, 0.5, 1, 1.5 or 2, not {value!r}")
        counts[int(value * 2)] += 1
    return counts
