"""The threshold curve's points of scored rows, and the weighted areas read off them.

:func:`curve_points` gives one point per distinct score of each group (counts, or sums of
sample weights added in an order that fixes their bits, see
:mod:`~frame_eval.classification.exact_weights`); :func:`weighted_score_measures` reads ROC AUC, AP,
PR AUC and EER of weighted rows off those points; :func:`binary_areas` hands either path to the
multi-class areas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from frame_eval.classification.counts import ratio
from frame_eval.classification.exact_weights import weighted_curve_points, when_exact
from frame_eval.classification.frame_checks import _POSITIVE, _SCORE, _WEIGHT
from frame_eval.classification.grouped_multiclass import Measures
from frame_eval.classification.grouped_scores import _G as GROUP_ID
from frame_eval.classification.grouped_scores import point_areas, score_measures

# -- threshold curve points ------------------------------------------------------------------------

def _weighted_curve(scored: pl.LazyFrame, keys: list[str], weight: str) -> pl.LazyFrame:
    """``[GROUP_ID, *keys, <score>, tp, fp, _P, _N]`` of weighted rows
    (:func:`~frame_eval.classification.exact_weights.weighted_curve_points`): each group sorted by score
    alone when the weights add up exactly in any order, else by (score, label, weight). Made once per
    collect, however many read it."""
    rows = scored.select(*keys, _POSITIVE, _SCORE, weight)

    def sorted_points(exact: bool) -> Callable[[pl.LazyFrame], pl.LazyFrame]:
        return lambda f: weighted_curve_points(f, keys, _POSITIVE, _SCORE, weight, exact=exact)

    return when_exact(rows, weight, sorted_points(True), sorted_points(False)).cache()


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
        points = _weighted_curve(scored, keys, weight)
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
    """``[*keys, <one Float64 column per name>]`` of weighted rows, from the points of :func:`_weighted_curve`
    (sums of weights per distinct score, in an order that fixes their bits): each group sorted once, and
    the areas of all groups read off those points at once (:func:`grouped_scores.point_areas`, the
    unweighted path's code)."""
    keys = list(keys)
    pts = _weighted_curve(scored, keys, _WEIGHT)  # each group's points contiguous, threshold descending
    tp, fp = pl.col("tp"), pl.col("fp")
    first = (pl.col(GROUP_ID) != pl.col(GROUP_ID).shift(1)).fill_null(True)

    def at_first(e: pl.Expr) -> pl.Expr:  # P and N as the expressions take them, at the group's first point
        return pl.when(first).then(e).forward_fill()

    pts = pts.select(  # (Float64 even when no weight is above 0 and there are no points)
        GROUP_ID, *keys, tp.cast(pl.Float64), fp.cast(pl.Float64),
        at_first(tp + (pl.col("_P") - tp)).cast(pl.Float64).alias("_P"),
        at_first(fp + (pl.col("_N") - fp)).cast(pl.Float64).alias("_N"),
    )
    per_group = pts.filter(first).select(GROUP_ID, *keys, "_P", "_N")
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
