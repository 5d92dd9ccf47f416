"""Resampling tests on one vector of paired differences (NumPy, from the ``[stats]`` extra).

The caller passes the differences ``d`` sorted by the pairing key (query
id), so results do not depend on row order or thread count; each call
starts a fresh ``numpy.random.default_rng(seed)``, so a pair's result does
not depend on the other pairs compared either.

Randomization (Fisher's sign-flip test). Under the null each difference is
as likely to have the opposite sign. The statistic is the mean of ``d``;
its null distribution is the mean of ``s * d`` over sign vectors ``s``:
all ``2^n`` of them when ``2^n <= n_resamples`` (exact), otherwise
``n_resamples`` random ones, drawn in blocks of at most 1024 rows as
``rng.integers(0, 2, size=(rows, n))`` (1 keeps the sign, 0 flips it).
Two-sided p-value, as SciPy's ``permutation_test``:
``min(1, 2 min(P_le, P_ge))`` with ``P_le = #{null <= obs + g}`` and
``P_ge = #{null >= obs - g}`` over the count of sign vectors (exact), or
``(count + 1) / (n_resamples + 1)`` (random), where ``g = 100 eps |obs|``
absorbs rounding between equal sums.

Paired bootstrap. ``n_resamples`` resamples of the n pairs with
replacement, drawn in blocks of at most 1024 rows as
``rng.integers(0, n, size=(rows, n))`` (SciPy's ``bootstrap(..., batch=1024)``
draws the same indices); ``means`` is the mean of each resample.
The confidence interval of the mean difference is the percentile interval
of ``means`` (``numpy.percentile``, linear). The p-value tests a zero mean
difference by the shift method: ``(1 + #{|means - mean(d)| >= |mean(d)| - g}) / (n_resamples + 1)``.
With fewer than two pairs the bootstrap p-value and interval are null.
"""

from __future__ import annotations

from typing import Any

from frame_eval.compare._optional import need

BLOCK = 1024


def _blocks(total: int) -> list[int]:
    return [min(BLOCK, total - start) for start in range(0, total, BLOCK)]


def randomization(d: Any, n_resamples: int, seed: int) -> float | None:
    """Two-sided p-value of the paired sign-flip randomization test (see the module docstring)."""
    np = need("numpy")
    d = np.asarray(d, dtype=float)
    n = d.size
    if n == 0:
        return None
    observed = d.mean()
    gamma = abs(np.finfo(float).eps * 100 * observed)
    if 2**n <= n_resamples:
        bits = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        null = ((2 * bits - 1) * d).mean(axis=1)
        le, ge, total, extra = (null <= observed + gamma).sum(), (null >= observed - gamma).sum(), 2**n, 0
    else:
        rng = np.random.default_rng(seed)
        le = ge = 0
        for rows in _blocks(n_resamples):
            signs = 2 * rng.integers(0, 2, size=(rows, n)) - 1
            null = (signs * d).mean(axis=1)
            le += int((null <= observed + gamma).sum())
            ge += int((null >= observed - gamma).sum())
        total, extra = n_resamples, 1
    return float(min(1.0, 2 * min(le + extra, ge + extra) / (total + extra)))


def bootstrap_means(d: Any, n_resamples: int, seed: int) -> Any:
    """The means of ``n_resamples`` bootstrap resamples of ``d`` (see the module docstring)."""
    np = need("numpy")
    d = np.asarray(d, dtype=float)
    rng = np.random.default_rng(seed)
    parts = [d[rng.integers(0, d.size, size=(rows, d.size))].mean(axis=1) for rows in _blocks(n_resamples)]
    return np.concatenate(parts)


Bounds = tuple[float | None, float | None, float | None]


def bootstrap(d: Any, n_resamples: int, seed: int, level: float) -> Bounds:
    """``(p_value, ci_low, ci_high)`` of the paired bootstrap (see the module docstring)."""
    np = need("numpy")
    d = np.asarray(d, dtype=float)
    if d.size < 2:  # one pair resamples to itself: no spread to judge the difference by
        return None, None, None
    means = bootstrap_means(d, n_resamples, seed)
    observed = d.mean()
    gamma = abs(np.finfo(float).eps * 100 * observed)
    extreme = int((np.abs(means - observed) >= abs(observed) - gamma).sum())
    alpha = (1 - level) / 2
    low, high = np.percentile(means, [100 * alpha, 100 * (1 - alpha)])
    return (extreme + 1) / (n_resamples + 1), float(low), float(high)
