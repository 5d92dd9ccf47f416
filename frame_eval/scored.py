"""Score-based measures of many groups at once, from one sort per group.

The ``C.roc_auc`` / ``C.average_precision`` expressions are self-contained,
so each one sorts its group again. A frame method can do better: sort the
scores of every group once, keep one point per distinct score (the end of
each block of tied scores) and read every area off those points with plain
sums. That is what :func:`score_measures` builds; :func:`frame_eval.classify.rates`
uses it when it is given a score column.

On the points of a group, threshold descending, with ``tp_i`` / ``fp_i`` the
positives / negatives scoring at least the i-th threshold (``tp_0 = fp_0 = 0``),
``P`` and ``N`` the group's positives and negatives:

- ``ROC_AUC = sum_i (fp_i - fp_{i-1}) (tp_i + tp_{i-1}) / 2 / (P N)`` (the
  trapezoid under the ROC curve, which equals the Mann-Whitney statistic with
  ties counted one half); null unless ``P > 0`` and ``N > 0``.
- ``average_precision = sum_i (tp_i - tp_{i-1}) / P * precision_i`` (scikit-learn's
  step-wise average precision); null when ``P = 0``.
- ``PR_AUC``: trapezoids under the precision-recall points, starting at
  (recall 0, precision 1); null when ``P = 0``.
- ``EER``: the false positive rate where the ROC's FPR and FNR cross,
  linearly interpolated between the two points around the crossing; null
  unless ``P > 0`` and ``N > 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

SCORE_MEASURES: Final = ("ROC_AUC", "average_precision", "PR_AUC", "EER")

_G, _L, _S = "__fe_group", "__fe_positive", "__fe_score"


def _previous(value: pl.Expr, first: pl.Expr, start: float) -> pl.Expr:
    """The value at the group's previous point; ``start`` at its first point."""
    return pl.when(first).then(pl.lit(start)).otherwise(value.shift(1))


def score_measures(
    frame: pl.LazyFrame, keys: Sequence[str], positive: pl.Expr, score: pl.Expr, names: Sequence[str]
) -> pl.LazyFrame:
    """``[*keys, <one Float64 column per name>]`` for names in :data:`SCORE_MEASURES`.

    ``positive`` is a Boolean expression (is the row's label the positive
    class?) and ``score`` a numeric one; both must be free of nulls and NaN
    (the front ends check that first). One row per group, in no set order.
    """
    unknown = [n for n in names if n not in SCORE_MEASURES]
    if unknown:
        raise ValueError(f"not a score measure: {unknown[0]!r}; choose from {', '.join(SCORE_MEASURES)}")
    keys = list(keys)
    g, lab, s = pl.col(_G), pl.col(_L), pl.col(_S)
    base = frame.select(*keys, positive.alias(_L), score.cast(pl.Float64).alias(_S))
    n, pos_count = pl.col("_n").cast(pl.Int64), pl.col("_P").cast(pl.Int64)
    if keys:
        # one sort per group; maintain_order makes the row index below a stable group id
        grouped = base.group_by(keys, maintain_order=True).agg(
            pl.len().alias("_n"), lab.sum().alias("_P"), pl.struct(lab, s).sort_by(s, descending=True)
        ).with_row_index(_G)
        totals = grouped.select(_G, *keys, "_n", "_P")
        # where each group starts in the exploded rows: rows and positives of the groups before it
        starts = grouped.select(
            _G, "_n", "_P",
            (n.cum_sum() - n).alias("_row0"), (pos_count.cum_sum() - pos_count).alias("_pos0"),
            _L,
        )
        rows = starts.explode(_L).unnest(_L)
    else:
        totals = base.select(pl.lit(0, pl.UInt32).alias(_G), pl.len().alias("_n"), lab.sum().alias("_P"))
        rows = base.sort(_S, descending=True).select(
            pl.lit(0, pl.UInt32).alias(_G), pl.len().alias("_n"), lab.sum().alias("_P"),
            pl.lit(0, pl.Int64).alias("_row0"), pl.lit(0, pl.Int64).alias("_pos0"), _L, _S,
        )

    # running counts within each group: running counts over all rows minus the group's start
    k = pl.int_range(1, pl.len() + 1, dtype=pl.Int64) - pl.col("_row0")
    tp = lab.cum_sum().cast(pl.Int64) - pl.col("_pos0")
    rows = rows.with_columns(k.alias("_k"), tp.alias("tp"))
    # a point ends each run of tied scores, and each group
    block_end = (s != s.shift(-1)).fill_null(True) | (pl.col("_k") == n)
    points = rows.filter(block_end).select(_G, "tp", (pl.col("_k") - pl.col("tp")).alias("fp"), "_n", "_P")

    f64 = pl.Float64
    tp, fp = pl.col("tp").cast(f64), pl.col("fp").cast(f64)
    pos, neg = pl.col("_P").cast(f64), (pl.col("_n") - pl.col("_P")).cast(f64)
    first = (g != g.shift(1)).fill_null(True)
    tp0, fp0 = _previous(tp, first, 0.0), _previous(fp, first, 0.0)
    precision = tp / (tp + fp)
    parts = {
        "ROC_AUC": (fp - fp0) * (tp + tp0) / 2.0,
        "average_precision": (tp - tp0) * precision,
        "PR_AUC": (tp - tp0) * (precision + _previous(precision, first, 1.0)) / 2.0,
    }
    sums = [parts[n].alias(n) for n in names if n in parts]
    per_group = points.with_columns(sums).group_by(_G).agg(pl.col(n).sum() for n in names if n in parts)
    result = totals.join(per_group, on=_G, how="left")
    if "EER" in names:
        fpr, fnr = fp / neg, 1.0 - tp / pos
        before_fpr, before_fnr = _previous(fpr, first, 0.0), _previous(fnr, first, 1.0)
        gap, before_gap = fpr - fnr, before_fpr - before_fnr
        crossing = before_fpr + (-before_gap / (gap - before_gap)) * (fpr - before_fpr)
        # the first point with FPR >= FNR, compared exactly in integers: fp / N >= fn / P
        crossed = pl.col("fp") * pl.col("_P") >= (pl.col("_P") - pl.col("tp")) * (pl.col("_n") - pl.col("_P"))
        eer = (
            points.with_columns(crossing.alias("EER"), crossed.alias("_crossed"))
            .filter(pl.col("_crossed"))
            .group_by(_G)
            .agg(pl.col("EER").first())
        )
        result = result.join(eer, on=_G, how="left")
    both = (pl.col("_P") > 0) & (pl.col("_n") > pl.col("_P"))
    some = pl.col("_P") > 0
    defined = {"ROC_AUC": both, "average_precision": some, "PR_AUC": some, "EER": both}
    scale = {"ROC_AUC": pos * neg, "average_precision": pos, "PR_AUC": pos, "EER": pl.lit(1.0)}
    return result.select(
        *keys, *(pl.when(defined[n]).then(pl.col(n) / scale[n]).cast(f64).alias(n) for n in names)
    )
