"""The threshold curve's points of scored rows, and the weighted areas read off them.

:func:`curve_points` gives one point per distinct score of each group (counts, or sums of
sample weights added in a fixed order); :func:`weighted_score_measures` reads ROC AUC, AP,
PR AUC and EER of weighted rows off those points; :func:`binary_areas` hands either path to the
multi-class areas.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from frame_eval.classification.counts import ratio
from frame_eval.classification.frame_checks import _POSITIVE, _SCORE, _WEIGHT
from frame_eval.classification.grouped_multiclass import Measures
from frame_eval.classification.grouped_scores import _G as GROUP_ID
from frame_eval.classification.grouped_scores import point_areas, score_measures

# -- threshold curve points ------------------------------------------------------------------------

def _weighted_points(scored: pl.LazyFrame, keys: list[str], weight: str) -> pl.LazyFrame:
    """``[*keys, <score>, tp, fp, _P, _N]`` of weighted rows: each group's rows sorted once by (score
    descending, label, weight), the C.* expressions' order, so the running sums of the weights have their
    bits in any row order; taken at the last row of each score. As scikit-learn, rows of weight 0 are no
    point of the curve."""
    positive, score, w = pl.col(_POSITIVE), pl.col(_SCORE), pl.col(weight)
    scored = scored.filter(w != 0)
    columns, order, descending = [_SCORE, _POSITIVE, weight], [score, positive, w], [True, False, False]
    tp_run = pl.when(positive).then(w).otherwise(0.0).cum_sum()
    fp_run = pl.when(positive).then(0.0).otherwise(w).cum_sum()
    end = (score != score.shift(-1)).fill_null(True)
    at_ends = [
        score.filter(end).alias(_SCORE), tp_run.filter(end).alias("tp"), fp_run.filter(end).alias("fp"),
        tp_run.last().alias("_P"), fp_run.last().alias("_N"),
    ]
    if not keys:
        return scored.sort(order, descending=descending).select(at_ends)
    rows = scored.group_by(keys).agg(pl.struct(columns).sort_by(order, descending=descending).alias("_r"))
    rows = rows.explode("_r").unnest("_r")
    # a group_by keeps each group's rows in their order (the sorted order made above)
    points = rows.group_by(keys, maintain_order=True).agg(at_ends).explode([_SCORE, "tp", "fp"])
    return points.sort(keys, maintain_order=True)


def curve_points(scored: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """From ``[*keys, <is positive>, <score>]`` rows to ``[*keys, threshold, tp, ..., recall]``.

    One point per distinct score of each group, threshold descending; a row is
    predicted positive at threshold ``t`` when its score is ``>= t``.
    """
    keys = list(keys)
    weight = _WEIGHT if _WEIGHT in scored.collect_schema() else None
    positive = pl.col(_POSITIVE)
    if weight is None:  # counts: per distinct score, then running sums over the scores, high to low
        def per_group(e: pl.Expr) -> pl.Expr:
            return e.over(keys) if keys else e

        points = scored.group_by([*keys, _SCORE]).agg(
            positive.sum().cast(pl.Int64).alias("_pos"), (~positive).sum().cast(pl.Int64).alias("_neg")
        )
        points = points.sort([*keys, _SCORE], descending=[False] * len(keys) + [True])
        points = points.with_columns(
            per_group(pl.col("_pos").cum_sum()).alias("tp"), per_group(pl.col("_neg").cum_sum()).alias("fp")
        ).with_columns(per_group(pl.col("tp").last()).alias("_P"), per_group(pl.col("fp").last()).alias("_N"))
    else:
        points = _weighted_points(scored, keys, weight)
    tp, fp, positives, negatives = pl.col("tp"), pl.col("fp"), pl.col("_P"), pl.col("_N")
    return points.select(
        *keys,
        pl.col(_SCORE).alias("threshold"),
        tp,
        fp,
        (positives - tp).alias("fn"),
        (negatives - fp).alias("tn"),
        ratio(tp, positives).alias("tpr"),
        ratio(fp, negatives).alias("fpr"),
        ratio(tp, tp + fp).alias("precision"),
        ratio(tp, positives).alias("recall"),
    )


def weighted_score_measures(scored: pl.LazyFrame, keys: Sequence[str], names: Sequence[str]) -> pl.LazyFrame:
    """``[*keys, <one Float64 column per name>]`` of weighted rows, from the points of :func:`curve_points`
    (sums of weights per distinct score, added in a fixed order): each group's scores sorted once, and
    the areas of all groups read off those points at once (:func:`grouped_scores.point_areas`, the
    unweighted path's code)."""
    keys = list(keys)
    pts = curve_points(scored, keys)  # each group's points contiguous, threshold descending
    tp, fp = pl.col("tp"), pl.col("fp")
    group = pl.struct(keys).rle_id() if keys else pl.lit(0, pl.UInt32)
    pts = pts.with_columns(group.cast(pl.UInt32).alias(GROUP_ID))
    first = (pl.col(GROUP_ID) != pl.col(GROUP_ID).shift(1)).fill_null(True)

    def at_first(e: pl.Expr) -> pl.Expr:  # P and N as the expressions take them, at the group's first point
        return pl.when(first).then(e).forward_fill()

    pts = pts.select(  # (Float64 even when no weight is above 0 and there are no points)
        GROUP_ID, *keys, tp.cast(pl.Float64), fp.cast(pl.Float64),
        at_first(tp + pl.col("fn")).cast(pl.Float64).alias("_P"),
        at_first(fp + pl.col("tn")).cast(pl.Float64).alias("_N"),
    )
    per_group = pts.select(GROUP_ID, *keys, "_P", "_N").unique(GROUP_ID, keep="first", maintain_order=True)
    for part in point_areas(pts.select(GROUP_ID, "tp", "fp", "_P", "_N"), names):
        per_group = per_group.join(part, on=GROUP_ID, how="left")
    both, some = (pl.col("_P") > 0) & (pl.col("_N") > 0), pl.col("_P") > 0
    rules = {"ROC_AUC": both, "EER": both, "average_precision": some, "PR_AUC": some}
    per_group = per_group.select(
        *keys, *(pl.when(rules[name]).then(pl.col(name)).cast(pl.Float64).alias(name) for name in names)
    )
    groups = scored.select(keys).unique() if keys else None
    if groups is not None:  # a group whose weights are all 0 has no points: null values, as unweighted
        per_group = groups.join(per_group, on=keys, how="left", nulls_equal=True)
    else:  # no keys: one row, of nulls when no weight is above 0
        nulls = pl.select(pl.lit(None, pl.Float64).alias(n) for n in names).lazy()
        per_group = pl.concat([per_group.select(names), nulls]).head(1)
    return per_group.select(*keys, *(pl.col(n).cast(pl.Float64) for n in names))


# -- the binary areas of many groups ---------------------------------------------------------------

def binary_areas(weighted: bool) -> tuple[Measures, tuple[str, str]]:
    """The binary areas of many groups that ``grouped_multiclass.multiclass_areas`` reads, and the
    (positive, score) columns they read; weighted ones read the weight column ``_WEIGHT``."""

    def measured(scored: pl.LazyFrame, group: list[str], wanted: list[str]) -> pl.LazyFrame:
        if weighted:
            return weighted_score_measures(scored, group, wanted)
        return score_measures(scored, group, pl.col(_POSITIVE), pl.col(_SCORE), wanted)

    return measured, (_POSITIVE, _SCORE)
