"""The threshold curve's points of scored rows, and the weighted areas read off them.

:func:`curve_points` gives one point per distinct score of each group (counts, or sums of
sample weights added in an order that fixes their bits, see
:mod:`~frame_eval.classification.exact_weights`; weights that add up exactly come, from
:data:`PACKED_ROWS` rows, from one sort of packed keys, see
:mod:`~frame_eval.classification.packed_weighted`); :func:`weighted_score_measures` reads ROC AUC, AP,
PR AUC and EER of weighted rows off those points; :func:`binary_areas` hands either path to the
multi-class areas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import polars as pl

from frame_eval._float import positive_zero
from frame_eval._own_thread import on_own_thread
from frame_eval.classification import exact_weights
from frame_eval.classification.counts import ratio
from frame_eval.classification.exact_weights import weighted_curve_points
from frame_eval.classification.frame_checks import _POSITIVE, _SCORE, _WEIGHT
from frame_eval.classification.grouped_multiclass import Measures
from frame_eval.classification.grouped_scores import _G as GROUP_ID
from frame_eval.classification.grouped_scores import defined_areas, point_areas, score_measures
from frame_eval.classification.packed_points import _G as PACKED_GROUP
from frame_eval.classification.packed_points import _S as PACKED_SCORE
from frame_eval.classification.packed_points import packed_group_points
from frame_eval.classification.packed_weighted import packed_weighted_points

# -- threshold curve points ------------------------------------------------------------------------

# from this many rows, the points of exact weights come from one sort of packed keys; fewer rows are
# sorted group by group (fewer steps, so less fixed cost; the same values)
PACKED_ROWS = 200_000


def _exact_exponent(rows: pl.DataFrame, weight: str) -> int | None:
    """The ``k`` of :func:`~frame_eval.classification.exact_weights.unit_exponent` when the weights of
    ``rows`` add up exactly in any order, else None."""
    weights = rows.get_column(weight)
    return exact_weights.unit_exponent(weights) if exact_weights.exact_sums(weights) else None


def _packed_points(
    rows: pl.DataFrame, keys: list[str], weight: str, **options: Any
) -> tuple[tuple[pl.DataFrame, pl.DataFrame] | None, int | None]:
    """(the packed points of :func:`~frame_eval.classification.packed_weighted.packed_weighted_points`
    when the weights add up exactly in any order and there are at least :data:`PACKED_ROWS` rows, else
    None; the ``k`` of :func:`_exact_exponent` for the ordered path). From that many rows the weights'
    bound is checked first and their whole units as the keys are made, one pass fewer."""
    weights = rows.get_column(weight)
    exponent = exact_weights.bounded_exponent(weights) if rows.height >= PACKED_ROWS else None
    if exponent is not None:
        packed = packed_weighted_points(rows, keys, _POSITIVE, _SCORE, weight, exponent, **options)
        if packed is not None:
            return packed, exponent
    return None, _exact_exponent(rows, weight)


def _ordered_points(rows: pl.DataFrame, keys: list[str], weight: str, exponent: int | None) -> pl.DataFrame:
    """``[GROUP_ID, *keys, <score>, tp, fp, _P, _N]`` from each group's rows sorted in an aggregation
    (:func:`~frame_eval.classification.exact_weights.weighted_curve_points`): by score alone when the
    weights add up exactly (``exponent`` given), else by (score, label, weight)."""
    points = weighted_curve_points(rows.lazy(), keys, _POSITIVE, _SCORE, weight, exact=exponent is not None)
    return points.collect(engine="in-memory")  # (sorts within groups run faster there)


def _weighted_curve(scored: pl.LazyFrame, keys: list[str], weight: str) -> pl.LazyFrame:
    """``[GROUP_ID, *keys, <score>, tp, fp, _P, _N]`` of weighted rows, each group's points together
    (the groups in the keys' order), threshold descending: from one sort of packed keys when the weights
    add up exactly in any order (:func:`~frame_eval.classification.packed_weighted.packed_weighted_points`)
    and there are at least :data:`PACKED_ROWS` rows, else from each group sorted (by score alone, or by
    (score, label, weight) when the weights do not add up exactly). Made once per collect, however many
    read it."""
    rows = scored.select(*keys, _POSITIVE, _SCORE, weight)
    schema = weighted_curve_points(rows, keys, _POSITIVE, _SCORE, weight, exact=False).collect_schema()

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        # numbered by their keys' hash (no join of every row to the groups; parts sorted side by side),
        # then put in the keys' order: the (few) groups sorted, numbered 0, 1, ... in that order, and
        # the points sorted by that number, stably (each group's keep their order)
        packed, exponent = _packed_points(frame, keys, weight, in_key_order=False)
        if packed is None:
            return _ordered_points(frame, keys, weight, exponent)
        groups, points = packed
        if keys:  # the keys of the groups joined to the points, rather than carried by every row
            points = _in_key_order(points, groups, GROUP_ID, keys).with_columns(pl.col(_RANK).alias(GROUP_ID))
        return points.select(schema.names())

    # (on a thread of its own, so that its polars work runs on every core)
    return rows.map_batches(on_own_thread(run), schema=schema, streamable=False).cache()


_RANK = "__fe_rank"
FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _in_key_order(points: FrameT, groups: FrameT, number: str, keys: list[str]) -> FrameT:
    """``points`` (each group's together, the group's number in column ``number``) with their group's
    ``keys`` and ``_RANK``, its place in the keys' order, sorted by that place, stably (each group's
    points keep their order): the few groups are sorted by their keys, not the many points."""
    order = groups.select(number, *keys).sort(keys).with_columns(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias(_RANK)
    )
    return points.join(order, on=number, how="left", maintain_order="left").sort(_RANK, maintain_order=True)


def _grouped_counts(scored: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``[*keys, <score>, tp, fp, _P, _N]``: counts per distinct score, then running sums over the
    scores, high to low; sorted by the keys, then threshold descending."""
    positive = pl.col(_POSITIVE)

    def per_group(e: pl.Expr) -> pl.Expr:
        return e.over(keys) if keys else e

    points = scored.group_by([*keys, _SCORE]).agg(
        positive.sum().cast(pl.Int64).alias("_pos"), (~positive).sum().cast(pl.Int64).alias("_neg")
    )
    points = points.sort([*keys, _SCORE], descending=[False] * len(keys) + [True])
    points = points.with_columns(
        per_group(pl.col("_pos").cum_sum()).alias("tp"), per_group(pl.col("_neg").cum_sum()).alias("fp")
    ).with_columns(per_group(pl.col("tp").last()).alias("_P"), per_group(pl.col("fp").last()).alias("_N"))
    return points.select(*keys, _SCORE, "tp", "fp", "_P", "_N")


def _counted_curve(scored: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """:func:`_grouped_counts`' frame (the same rows, order and values); from :data:`PACKED_ROWS` rows,
    read off one sort of packed keys (:func:`~frame_eval.classification.packed_points.packed_group_points`:
    a group-by of every (group, score) pair costs several times more), then put in its order."""
    rows = scored.select(*keys, _POSITIVE, _SCORE)
    schema = _grouped_counts(rows, keys).collect_schema()

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        if frame.height < PACKED_ROWS:
            return _grouped_counts(frame.lazy(), keys).collect(engine="in-memory")
        groups, points = packed_group_points(frame.lazy(), keys, pl.col(_POSITIVE), pl.col(_SCORE))
        if keys:  # each group's points come together, threshold descending
            points = _in_key_order(points, groups, PACKED_GROUP, keys)
        negatives = (pl.col("_n") - pl.col("_P")).alias("_N")
        points = points.select(*keys, pl.col(PACKED_SCORE).alias(_SCORE), "tp", "fp", "_P", negatives)
        return points.collect(engine="in-memory").cast(dict(schema))  # type: ignore[arg-type]

    return rows.map_batches(on_own_thread(run), schema=schema, streamable=False)


def curve_points(scored: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """From ``[*keys, <is positive>, <score>]`` rows to ``[*keys, threshold, tp, ..., recall]``.

    One point per distinct score of each group, threshold descending; a row is
    predicted positive at threshold ``t`` when its score is ``>= t``.
    """
    keys = list(keys)
    weight = _WEIGHT if _WEIGHT in scored.collect_schema() else None
    points = _counted_curve(scored, keys) if weight is None else _weighted_curve(scored, keys, weight)
    tp, fp, positives, negatives = pl.col("tp"), pl.col("fp"), pl.col("_P"), pl.col("_N")
    return points.select(
        *keys,
        positive_zero(pl.col(_SCORE)).alias("threshold"),  # -0.0 as 0.0, as the packed points read it
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
    """``[*keys, <one Float64 column per name>]`` of weighted rows, one row per group (in no set order),
    from the points of :func:`_weighted_curve` (sums of weights per distinct score that have the same bits
    in any row order): the areas of all groups read off those points at once
    (:func:`grouped_scores.point_areas`, the unweighted path's code). A group whose weights are all 0 has
    no points and null values, as unweighted."""
    keys = list(keys)
    rows = scored.select(*keys, _POSITIVE, _SCORE, _WEIGHT)
    schema = {**rows.select(keys).collect_schema(), **dict.fromkeys(names, pl.Float64)}

    def areas(points: pl.DataFrame) -> pl.DataFrame:
        # (the streaming engine calls the area sums' frame function on this thread, which may then sum
        # the columns side by side: the in-memory engine calls it on a worker of its own, one at a time)
        return _group_areas(points.lazy(), names).collect(engine="in-memory")

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        packed, exponent = _packed_points(
            frame, keys, _WEIGHT, with_score=False, in_key_order=False, then=areas
        )
        if packed is not None:  # (the areas of each part of the groups, measured side by side)
            groups, per_group = packed
        else:  # the groups without points (every weight 0) keep no number: null values
            points = _ordered_points(frame, keys, _WEIGHT, exponent)
            groups = frame.select(keys).unique().join(
                points.select(GROUP_ID, *keys).unique(GROUP_ID), on=keys, how="left", nulls_equal=True
            ) if keys else pl.DataFrame({GROUP_ID: [0]}, schema={GROUP_ID: pl.UInt32})
            per_group = areas(points)
        return groups.join(per_group, on=GROUP_ID, how="left").select(*keys, *defined_areas(names))

    return rows.map_batches(on_own_thread(run), schema=schema, streamable=False)


def _group_areas(points: pl.LazyFrame, names: Sequence[str]) -> pl.LazyFrame:
    """``[GROUP_ID, _P, _N, *names]`` from points ``[GROUP_ID, tp, fp, _P, _N, ...]`` (each group's
    together, threshold descending), one row per group with points."""
    tp, fp = pl.col("tp"), pl.col("fp")
    first = (pl.col(GROUP_ID) != pl.col(GROUP_ID).shift(1)).fill_null(True)

    def at_first(e: pl.Expr) -> pl.Expr:  # P and N as the expressions take them, at the group's first point
        return pl.when(first).then(e).forward_fill()

    points = points.select(  # (Float64 even when no weight is above 0 and there are no points)
        GROUP_ID, tp.cast(pl.Float64), fp.cast(pl.Float64),
        at_first(tp + (pl.col("_P") - tp)).cast(pl.Float64).alias("_P"),
        at_first(fp + (pl.col("_N") - fp)).cast(pl.Float64).alias("_N"),
    )
    per_group = points.filter(first).select(GROUP_ID, "_P", "_N")
    for part in point_areas(points, names):
        per_group = per_group.join(part, on=GROUP_ID, how="left")
    return per_group


# -- the binary areas of many groups ---------------------------------------------------------------

def binary_areas(weighted: bool) -> tuple[Measures, tuple[str, str]]:
    """The binary areas of many groups that ``grouped_multiclass.multiclass_areas`` reads, and the
    (positive, score) columns they read; weighted ones read the weight column ``_WEIGHT``."""

    def measured(scored: pl.LazyFrame, group: list[str], wanted: list[str]) -> pl.LazyFrame:
        if weighted:
            return weighted_score_measures(scored, group, wanted)
        return score_measures(scored, group, pl.col(_POSITIVE), pl.col(_SCORE), wanted)

    return measured, (_POSITIVE, _SCORE)
