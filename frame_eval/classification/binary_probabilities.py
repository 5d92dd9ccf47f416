"""Binary log-loss, Brier score and ECE of a whole checked frame: the frame methods' fast path.

The builders of :mod:`~frame_eval.classification.probabilistic` and
:mod:`~frame_eval.classification.calibration` compute a group's value inside
one aggregation, which suits the ``C.*`` expressions; over many groups they
cost a Python call per group, over each group's values.
Here the frame is already checked (no nulls or NaN, probabilities in
[0, 1]), so the same numbers come from frame-wide steps:

- log-loss and Brier: every row's term computed row-wise, then each group's
  exact mean rounded once (:func:`~frame_eval._exact_sum.exact_means`, the
  sums behind the builders' :func:`~frame_eval._exact_sum.exact_mean`);
- ECE: the reliability bins of
  :func:`~frame_eval.classification.calibration.calibration_bins`, then each
  group's bin-weighted gaps added from the lowest bin up.

Same terms, same exact sums, same rounding: the builders' bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from frame_eval._exact_sum import Mean, exact_means
from frame_eval.classification.calibration import ECE, calibration_bins
from frame_eval.classification.counts import ordered_sum, ratio
from frame_eval.classification.frame_checks import _beside
from frame_eval.classification.probabilistic import BRIER, LOG_LOSS, binary_brier_terms, binary_log_terms

__all__ = ["binary_probabilities"]


def _term(spec: Any, positive: pl.Expr, p: pl.Expr) -> pl.Expr:
    """A row's log-loss or (twice its) Brier term, as the builders compute it."""
    return binary_log_terms(positive, p) if spec is LOG_LOSS else binary_brier_terms(positive, p)

def _ece(
    scored: pl.LazyFrame, by: list[str], positive: str, prob: str, kwargs: Mapping[str, Any], key: str
) -> pl.LazyFrame:
    """``[*by, key]``: the ECE of each group from its reliability bins (:func:`calibration_bins`)."""
    n_bins, strategy = kwargs.get("n_bins", 10), kwargs.get("strategy", "uniform")
    keys = {name: f"__frame_eval_by_{i}" for i, name in enumerate(by)}  # (a group column may be "bin")
    bins = calibration_bins(scored.rename(keys), list(keys.values()), positive, prob, n_bins, strategy)
    count = pl.col("count")
    rows = count.sum()
    gap = ratio(count, rows) * (pl.col("mean_predicted") - pl.col("fraction_positive")).abs()
    value = pl.when(rows > 0).then(ordered_sum(gap.sort_by(pl.col("bin")))).alias(key)
    if not by:
        return bins.select(value)
    return bins.group_by(list(keys.values())).agg(value).rename({v: k for k, v in keys.items()})


def binary_probabilities(
    scored: pl.LazyFrame, by: list[str], positive: str, prob: str, weight: str | None,
    chosen: Mapping[str, Any],
) -> pl.LazyFrame:
    """``[*by, *chosen]``: each chosen measure (log-loss, Brier or ECE; keyed by its column) per group.

    ``scored`` holds ``by``, a Boolean ``positive`` column, a Float64 ``prob`` column and the
    ``weight`` column (when given), checked already.
    """
    flat = {k: m for k, m in chosen.items() if m.spec in (LOG_LOSS, BRIER)}
    p, w = pl.col(prob), None if weight is None else pl.col(weight).cast(pl.Float64)
    parts = []
    if flat:
        means = {}
        for key, m in flat.items():
            term = _term(m.spec, pl.col(positive), p)
            # the Brier term is twice the squared gap: halved by the one rounding of the mean
            means[key] = Mean(term if w is None else term * w, w, 2 if m.spec is BRIER else 1)
        parts.append(exact_means(scored, by, means))
    for key, m in chosen.items():
        if m.spec is ECE:
            parts.append(_ece(scored, by, positive, prob, m.kwargs, key))
    wide = parts[0]
    for part in parts[1:]:
        wide = _beside(wide, part, by)
    return wide.select(*by, *chosen)
