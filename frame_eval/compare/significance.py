"""The paired tests: p-values (and intervals) of each group's differences.

Input: the per-group statistics of :func:`frame_eval.compare.paired.statistics`.
Each test adds one row per group. With n pairs, differences d, mean d̄ and
standard deviation s (n - 1 in the denominator):

- ``"t"`` (paired t-test): t = d̄ / (s / sqrt(n)), n - 1 degrees of
  freedom (SciPy's ``ttest_rel``); null when n < 2 or s = 0.
- ``"wilcoxon"`` (signed-rank): zero differences are left out (Wilcoxon's
  rule); W+ is the sum of the average ranks of |d| over positive d. Exact
  null distribution when at most 50 differences remain and no |d| are tied
  (SciPy's ``wilcoxon(method="exact")``), else the normal approximation
  with the tie correction and no continuity correction (SciPy's
  ``method="asymptotic", correction=False``); null when every d is 0.
- ``"sign"``: wins against losses (ties left out), exact binomial with
  p = 1/2 (SciPy's ``binomtest``); null when every d is 0.
- ``"randomization"`` and ``"bootstrap"``: see :mod:`frame_eval.compare.resampling`.

The interval of the difference is Student's t interval d̄ ± t_{(1+level)/2, n-1} s / sqrt(n),
except for the bootstrap rows, which carry the bootstrap percentile interval.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval.compare import distributions as dist
from frame_eval.compare import resampling

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
_ALIASES = {
    "t": "t", "ttest": "t", "t-test": "t", "paired_t": "t", "student": "t",
    "wilcoxon": "wilcoxon", "signed_rank": "wilcoxon", "signed-rank": "wilcoxon",
    "sign": "sign", "binomial": "sign",
    "randomization": "randomization", "permutation": "randomization", "fisher": "randomization",
    "bootstrap": "bootstrap", "paired_bootstrap": "bootstrap",
}


def canonical(test: str) -> str:
    """The canonical name of a test, or a ``ValueError`` listing the known ones."""
    name = _ALIASES.get(str(test).lower())
    if name is None:
        raise ValueError(f"unknown test {test!r}; use some of {', '.join(map(repr, TESTS))}")
    return name


def _t_columns(stats: pl.DataFrame, level: float) -> dict[str, list[Any]]:
    n = stats["n"].to_list()
    diff, sd = stats["diff"].to_list(), stats["sd"].to_list()
    df = [max(k - 1, 1) for k in n]
    quantile = dist.t_quantile((1 + level) / 2, df) if n else []
    se = [None if s is None else s / k**0.5 for s, k in zip(sd, n, strict=True)]
    t = [None if e is None or e == 0 else m / e for m, e in zip(diff, se, strict=True)]
    p_raw = dist.t_two_sided([0.0 if v is None else v for v in t], df) if n else []
    return {
        "p_value": [None if v is None else float(p) for v, p in zip(t, p_raw, strict=True)],
        "ci_low": [None if e is None else m - q * e for m, e, q in zip(diff, se, quantile, strict=True)],
        "ci_high": [None if e is None else m + q * e for m, e, q in zip(diff, se, quantile, strict=True)],
    }


def _wilcoxon(row: dict[str, Any]) -> float | None:
    n = row["n_nonzero"]
    if n == 0:
        return None
    if n <= 50 and row["tie_term"] == 0:
        return dist.signed_rank_exact(row["r_plus"], n)
    return dist.signed_rank_normal(row["r_plus"], n, row["tie_term"])


def run(stats: pl.DataFrame, test: str, *, level: float, n_resamples: int, seed: int) -> pl.DataFrame:
    """``stats`` with ``test``, ``p_value``, ``ci_low``, ``ci_high`` for one test."""
    columns = _t_columns(stats, level)
    rows = stats.select("n_nonzero", "r_plus", "tie_term", "wins", "losses", "d").to_dicts()
    if test == "wilcoxon":
        columns["p_value"] = [_wilcoxon(r) for r in rows]
    elif test == "sign":
        columns["p_value"] = [dist.sign_test(r["wins"], r["losses"]) for r in rows]
    elif test == "randomization":
        columns["p_value"] = [resampling.randomization(r["d"], n_resamples, seed) for r in rows]
    elif test == "bootstrap":
        results = [resampling.bootstrap(r["d"], n_resamples, seed, level) for r in rows]
        columns = {name: [r[i] for r in results] for i, name in enumerate(("p_value", "ci_low", "ci_high"))}
    return stats.with_columns(
        pl.lit(test).alias("test"),
        *(pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items()),
    )
