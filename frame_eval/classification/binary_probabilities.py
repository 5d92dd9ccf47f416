"""Binary log-loss, Brier score and ECE of a whole checked frame: the frame methods' fast path.

The builders of :mod:`~frame_eval.classification.probabilistic` and
:mod:`~frame_eval.classification.calibration` compute a group's value inside
one aggregation, which suits the ``C.*`` expressions; over many groups they
cost a Python call, a filter and (for ECE) a pass per bin in every group.
Here the frame is already checked (no nulls or NaN, probabilities in
[0, 1]), so the same numbers come from frame-wide steps:

- log-loss and Brier: every row's term computed row-wise, each group's terms
  (and weights) sorted in one aggregation, and all groups' pairwise sums in
  one :func:`~frame_eval._float.numpy_sums` call; the divisions as
  :func:`~frame_eval.classification.probabilistic.mean_of` does them;
- ECE: the reliability bins of
  :func:`~frame_eval.classification.calibration.calibration_bins`, then each
  group's bin-weighted gaps added from the lowest bin up.

Same terms, same order of additions, same divisions: the builders' bits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval._float import numpy_sums
from frame_eval.classification.calibration import ECE, calibration_bins
from frame_eval.classification.counts import ordered_sum, ratio
from frame_eval.classification.frame_checks import _beside
from frame_eval.classification.probabilistic import BRIER, EPS, LOG_LOSS

__all__ = ["binary_probabilities"]

_TERMS: Final = "__frame_eval_terms_"
_WEIGHTS: Final = "__frame_eval_weights"
_ROWS: Final = "__frame_eval_rows"


def _term(spec: Any, positive: pl.Expr, p: pl.Expr) -> pl.Expr:
    """A row's log-loss or (twice its) Brier term, as the builders compute it."""
    if spec is LOG_LOSS:
        clipped, other = p.clip(EPS, 1.0 - EPS), (1.0 - p).clip(EPS, 1.0 - EPS)
        return pl.when(positive).then(-clipped.log()).otherwise(-other.log())
    y = positive.cast(pl.Float64)
    gap_neg, gap_pos = (1.0 - y) - (1.0 - p), y - p
    return gap_neg * gap_neg + gap_pos * gap_pos


def _sums(lists: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """Each list column replaced by the pairwise sum of its values (all groups in one call per column)."""
    out = []
    for name in columns:
        values = lists.get_column(name)
        flat = values.explode(empty_as_null=False).fill_null(0.0)
        out.append(numpy_sums(flat, values.list.len().fill_null(0).to_list()).alias(name))
    return lists.with_columns(out)


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
    specs = {m.spec for m in flat.values()}
    p, w = pl.col(prob), None if weight is None else pl.col(weight).cast(pl.Float64)
    terms = {spec.name: _term(spec, pl.col(positive), p) for spec in specs}
    parts = []
    if terms:
        listed = [(t if w is None else t * w).sort().alias(_TERMS + name) for name, t in terms.items()]
        if w is not None:
            listed.append(w.sort().alias(_WEIGHTS))
        if not by:  # one list of the whole frame's terms
            listed = [e.implode() for e in listed]
        listed.append(pl.len().cast(pl.Int64).alias(_ROWS))
        lists = scored.group_by(by).agg(listed) if by else scored.select(listed)
        summed = [_TERMS + name for name in terms] + ([] if w is None else [_WEIGHTS])
        schema = lists.collect_schema()
        sums = lists.map_batches(
            lambda df: _sums(df, summed),
            schema={**schema, **dict.fromkeys(summed, pl.Float64)},
        )
        total = pl.col(_ROWS) if w is None else pl.col(_WEIGHTS)
        means = []
        for key, m in flat.items():
            mean = ratio(pl.col(_TERMS + m.spec.name), total)
            means.append((mean * 0.5 if m.spec is BRIER else mean).alias(key))
        parts.append(sums.select(*by, *means))
    for key, m in chosen.items():
        if m.spec is ECE:
            parts.append(_ece(scored, by, positive, prob, m.kwargs, key))
    wide = parts[0]
    for part in parts[1:]:
        wide = _beside(wide, part, by)
    return wide.select(*by, *chosen)
