"""Null distributions of the paired tests: two-sided p-values from a statistic.

- Student t: SciPy's ``scipy.special.stdtr`` / ``stdtrit`` (the ``[stats]`` extra).
- Normal: ``erfc`` from the standard library.
- Binomial with p = 1/2 (sign test) and Wilcoxon's signed-rank statistic
  (no ties): exact, by counting outcomes with Python integers; the only
  rounding is the final division.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from frame_eval.compare._optional import need


def t_two_sided(t: Sequence[float], df: Sequence[float]) -> list[float]:
    """``2 P(T_df >= |t|)`` for each (t, df) pair (needs SciPy)."""
    special = need("scipy.special")
    np = need("numpy")
    return list(2.0 * special.stdtr(np.asarray(df, float), -np.abs(np.asarray(t, float))))


def t_quantile(q: float, df: Sequence[float]) -> list[float]:
    """The ``q`` quantile of Student's t with each ``df`` (needs SciPy)."""
    special = need("scipy.special")
    np = need("numpy")
    return list(special.stdtrit(np.asarray(df, float), q))


def normal_two_sided(z: float) -> float:
    """``2 P(Z >= |z|)`` for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact binomial p-value of ``wins`` successes in ``wins + losses`` trials, p = 1/2.

    ``min(1, 2 P(X <= min(wins, losses)))``: for p = 1/2 this is SciPy's
    ``binomtest(...).pvalue`` (the outcomes no more likely than the one
    seen). ``None`` when there are no trials.

    >>> sign_test(9, 1)
    0.021484375
    """
    n = wins + losses
    if n == 0:
        return None
    low = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(low + 1))
    return min(1.0, 2 * tail / 2**n)


@lru_cache(maxsize=64)
def _signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign patterns give each rank sum 0 .. n(n+1)/2."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    top = 0
    for rank in range(1, n + 1):
        top += rank
        for total in range(top, rank - 1, -1):
            counts[total] += counts[total - rank]
    return tuple(counts)


def signed_rank_exact(r_plus: float, n: int) -> float:
    """Two-sided exact p-value of Wilcoxon's W+ = ``r_plus`` over ``n`` non-zero, untied differences.

    ``min(1, 2 min(P(W+ >= r), P(W+ <= r)))`` under the null that each
    difference is positive or negative with probability 1/2, independently
    (SciPy's ``wilcoxon(..., method="exact")``).

    >>> signed_rank_exact(0, 5)
    0.0625
    """
    counts = _signed_rank_counts(n)
    r = round(r_plus)
    upper = sum(counts[r:])
    lower = sum(counts[: r + 1])
    return min(1.0, 2 * min(upper, lower) / 2**n)


def signed_rank_normal(r_plus: float, n: int, tie_term: float) -> float:
    """Two-sided normal-approximation p-value of Wilcoxon's W+ (no continuity correction).

    Mean n(n+1)/4, variance (n(n+1)(2n+1) - tie_term / 2) / 24, where
    ``tie_term`` sums t^3 - t over groups of t tied absolute differences
    (SciPy's ``wilcoxon(..., method="asymptotic", correction=False)``).
    """
    mean = n * (n + 1) / 4.0
    sd = math.sqrt((n * (n + 1) * (2 * n + 1) - tie_term / 2.0) / 24.0)
    return normal_two_sided((r_plus - mean) / sd)
