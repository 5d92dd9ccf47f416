"""Score-based measures of many groups at once, from one sort of all their rows.

The ``C.roc_auc`` / ``C.average_precision`` expressions are self-contained,
so each one sorts its group again. A frame method can do better: sort the
scores of every group once, keep one point per distinct score (the end of
each block of tied scores) and read every area off those points with plain
sums. That is what :func:`score_measures` builds (``scores()`` without weights
uses it). It sorts every row at once as one plain 128-bit value that packs a
hash of the row's group, its score and its label (:mod:`~frame_eval.classification.packed_points`): several
times cheaper than sorting each group in an aggregation, and the runs of equal
values give each group's points directly. Groups whose keys share a hash are
measured again from a sort of each group (:func:`group_points`).

On the points of a group (threshold descending; ``tp_i`` / ``fp_i`` the
positives / negatives scoring at least the i-th threshold, ``P`` and ``N``
the group's positives and negatives) the areas are those of
:mod:`frame_eval.classification.curves` (``roc_auc_of``, ``average_precision_of``,
``pr_auc_of``, ``eer_of``): the same expressions on the same points, so the
two give the same bits. Each sums scikit-learn's terms one by one in a fixed
order, so the value does not depend on threads, engine or row order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Final

import polars as pl

from frame_eval._float import frame_pairwise_sums, pairwise_sums
from frame_eval._own_thread import apart, in_background, on_own_thread
from frame_eval.classification import packed_points
from frame_eval.classification.counts import ratio
from frame_eval.classification.curves import point_terms
from frame_eval.classification.packed_points import _G, _L, _S, points_of_rows, told_apart, within_group

SCORE_MEASURES: Final = ("ROC_AUC", "average_precision", "PR_AUC", "EER")



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
    rows = frame.select(*keys, positive.alias(_L), score.cast(pl.Float64).alias(_S))
    # a 63-bit hash of the keys stands for the group in the sort key
    number = packed_points._group_hash(keys) if keys else pl.lit(0, pl.UInt64)
    schema = {**rows.select(keys).collect_schema(), **dict.fromkeys(names, pl.Float64)}
    # all in one frame function, on a thread of its own (the sort then runs on every core, see
    # frame_eval._own_thread)
    measure = functools.partial(_measured, keys=keys, number=number, names=list(names))
    return rows.map_batches(on_own_thread(measure), schema=schema)


def _measured(rows: pl.DataFrame, keys: list[str], number: pl.Expr, names: list[str]) -> pl.DataFrame:
    """``[*keys, *names]`` (one row per group) from ``[*keys, _L, _S]`` rows, ``number`` the 63-bit hash
    of the keys: the points of one sort of packed keys and the areas read off them.

    The group table (the distinct keys, each hashed once) is made meanwhile, on a thread of its own, from
    when the keys are sorted (the sort runs on every core, most steps after it on one): it maps the
    hashes back to the keys and tells apart groups whose keys share a hash, which are measured
    again on their own rows (:func:`_sorted_per_group`): a collision costs time, never a wrong number."""
    def distinct() -> pl.DataFrame:
        if not keys:  # the one group, numbered 0, also when there are no rows
            return pl.DataFrame({_G: [0]}, schema={_G: pl.UInt64})
        dtype = rows.schema[keys[0]]
        if len(keys) == 1 and not dtype.is_float() and not dtype.is_nested():
            # a Series' own unique costs least, on any thread (not for floats: of equal keys such as 0.0
            # and -0.0 it may keep another than a frame's unique, the one in the result)
            distinct = rows.get_column(keys[0]).unique().to_frame()
        else:  # (on the streaming engine where this thread may wait for polars': a quarter of the CPU)
            engine = "streaming" if apart(rows.height) else "in-memory"
            distinct = rows.lazy().select(keys).unique().collect(engine=engine)
        return distinct.with_columns(number.alias(_G))

    table: list[Callable[[], pl.DataFrame]] = []
    points = _points_of_rows(rows, number, lambda: table.append(in_background(distinct, rows.height)))
    first = (pl.col(_G) != pl.col(_G).shift(1)).fill_null(True)
    totals = points.filter(first).select(_G, "_P", "_N")
    measured = totals.join(frame_point_areas(points, names), on=_G, how="left", maintain_order="left")
    own, shared, again = told_apart(rows.lazy(), table[0]().lazy(), keys, _G)
    result = own.join(measured.lazy(), on=_G, how="left").select(*keys, *defined_areas(names)).collect()
    if shared.select(pl.len()).collect().item() == 0:
        return result
    per_group = _sorted_per_group(again, keys, pl.col(_L), pl.col(_S), names)
    return pl.concat([result, per_group.collect(engine="in-memory")])


def _with_areas(
    totals: pl.LazyFrame, areas: Sequence[pl.LazyFrame], keys: Sequence[str], names: Sequence[str]
) -> pl.LazyFrame:
    """``[*keys, *names]`` from the totals ``[_G, *keys, _n, _P]`` and the areas of :func:`point_areas`."""
    result = totals.with_columns(
        pl.col("_P").cast(pl.Int64), (pl.col("_n").cast(pl.Int64) - pl.col("_P").cast(pl.Int64)).alias("_N")
    )
    for part in areas:
        result = result.join(part, on=_G, how="left")
    return result.select(*keys, *defined_areas(names))


def defined_areas(names: Sequence[str]) -> list[pl.Expr]:
    """The area columns ``names`` (Float64), each null where it is undefined: ROC AUC and EER need
    positives and negatives (``_P``, ``_N`` above 0), AP and PR AUC positives."""
    both, some = (pl.col("_P") > 0) & (pl.col("_N") > 0), pl.col("_P") > 0
    rules = {"ROC_AUC": both, "EER": both, "average_precision": some, "PR_AUC": some}
    return [pl.when(rules[name]).then(pl.col(name)).cast(pl.Float64).alias(name) for name in names]


def _sorted_per_group(
    frame: pl.LazyFrame, keys: Sequence[str], positive: pl.Expr, score: pl.Expr, names: Sequence[str]
) -> pl.LazyFrame:
    """:func:`score_measures` from the points of :func:`group_points` (each group sorted on its own)."""
    totals, points = group_points(frame, keys, positive, score)
    totals = totals.with_columns(
        pl.col("_P").cast(pl.Int64), (pl.col("_n").cast(pl.Int64) - pl.col("_P").cast(pl.Int64)).alias("_N")
    )
    positives, negatives = pl.col("_P").cast(pl.Int64), (pl.col("_n") - pl.col("_P")).cast(pl.Int64)
    areas = point_areas(points.select(_G, "tp", "fp", positives.alias("_P"), negatives.alias("_N")), names)
    return _with_areas(totals, areas, keys, names)


# -- one sort of all rows: the group, the score and the label packed in one 128-bit key -------------------



def _points_of_rows(
    rows: pl.DataFrame, number: pl.Expr, sorted_then: Callable[[], object] | None = None
) -> pl.DataFrame:
    """``[_G, tp, fp, _P, _N]`` points, threshold descending, from ``[*keys, _L, _S]`` rows, ``number`` a
    63-bit hash of the keys (:func:`packed_points.points_of_rows`: one sort of the packed keys)."""
    points = points_of_rows(rows, pl.UInt64, score=False, number=number, sorted_then=sorted_then)
    return points.select(_G, "tp", "fp", "_P", (pl.col("_n") - pl.col("_P")).alias("_N"))


def group_points(
    frame: pl.LazyFrame, keys: Sequence[str], positive: pl.Expr, score: pl.Expr
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """(``[_G, *keys, _n, _P]`` one row per group; ``[_G, _k, tp, fp, _n, _P, <score>]`` one row per point).

    A point per distinct score of each group, threshold descending (``_k`` rows scoring at least it);
    ``_G`` numbers the groups. Counts only (no weights); each group's scores sorted once.
    """
    keys = list(keys)
    lab, s = pl.col(_L), pl.col(_S)
    base = frame.select(*keys, positive.alias(_L), score.cast(pl.Float64).alias(_S))
    if keys:
        # one sort per group; maintain_order makes the row index below a stable group id
        grouped = base.group_by(keys, maintain_order=True).agg(
            pl.len().alias("_n"), lab.sum().alias("_P"), pl.struct(lab, s).sort_by(s, descending=True)
        ).with_row_index(_G).cache()  # read by the totals and by the points
        totals = grouped.select(_G, *keys, "_n", "_P")
        rows = grouped.select(_G, _L)
    else:
        totals = base.select(pl.lit(0, pl.UInt32).alias(_G), pl.len().alias("_n"), lab.sum().alias("_P"))
        rows = base.sort(_S, descending=True).select(
            pl.lit(0, pl.UInt32).alias(_G), pl.struct(lab, s).alias(_L)
        )
    schema = {_G: pl.UInt32, "_k": pl.Int64, "tp": pl.Int64, "fp": pl.Int64, "_n": pl.Int64, "_P": pl.Int64,
              _S: pl.Float64}
    # the points from the sorted rows in one frame function, with polars' in-memory engine (running counts
    # and shifts over all rows cost more in a streaming plan; the same values either way)
    points = rows.map_batches(_points_of_sorted, schema=schema)
    return totals, points


def _points_of_sorted(rows: pl.DataFrame) -> pl.DataFrame:
    """``[_G, _k, tp, fp, _n, _P, <score>]`` from ``[_G, <(label, score) sorted by score descending>]``
    (a list per group, or one struct per row, the groups one after the other)."""
    lab, s, g = pl.col(_L), pl.col(_S), pl.col(_G)
    if rows.schema[_L] != pl.Struct:
        rows = rows.explode(_L)
    rows = rows.unnest(_L)
    # running counts over all rows (the groups one after the other), read at the end of each run of tied
    # scores and of each group; a group's own counts are those minus the counts where the group before ended
    rows = rows.with_columns(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("_k"), lab.cum_sum().cast(pl.Int64).alias("tp")
    )
    points = rows.filter(((s != s.shift(-1)) | (g != g.shift(-1))).fill_null(True)).select(_G, "_k", "tp", _S)
    first, last = (g != g.shift(1)).fill_null(True), (g != g.shift(-1)).fill_null(True)

    k, tp = pl.col("_k"), pl.col("tp")
    return points.with_columns(within_group(k, first), within_group(tp, first)).select(
        pl.col(_G).cast(pl.UInt32), k, tp, (k - tp).alias("fp"),
        # the group's rows and positives: the counts at its last point
        pl.when(last).then(k).backward_fill().alias("_n"), pl.when(last).then(tp).backward_fill().alias("_P"),
        _S,
    )


def point_areas(points: pl.LazyFrame, names: Sequence[str]) -> list[pl.LazyFrame]:
    """Frames ``[_G, <some of names>]`` (join them on ``_G``) from ``[_G, tp, fp, _P, _N]`` points: each
    group's rows contiguous, threshold descending; counts (Int64) or sums of weights (Float64).

    The terms of :mod:`frame_eval.classification.curves` on the same points, as columns, and their sums in
    NumPy's order (:func:`~frame_eval._float.pairwise_sums`), all groups at once. No rule for undefined
    values (no positives, no negatives) is applied here.
    """
    sums, columns = _area_terms(names)
    # the terms are computed inside the sums' frame function (polars' in-memory engine)
    areas = [pairwise_sums(points, _G, sums, columns)] if sums else []
    if "EER" in names:  # (a second pass over the points, only when EER is asked for)
        areas.append(_first_crossings(points))
    return areas


def frame_point_areas(points: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """``[_G, *names]`` of :func:`point_areas`, from in-memory points, now (one row per group with points,
    in the order of their first points)."""
    sums, columns = _area_terms(names)
    result = points.select(_G).unique(maintain_order=True)
    if sums:
        sums_of = frame_pairwise_sums(points, _G, sums, columns)
        result = result.join(sums_of, on=_G, how="left", maintain_order="left")
    if "EER" in names:
        crossings = _first_crossings(points.lazy()).collect(engine="in-memory")
        result = result.join(crossings, on=_G, how="left", maintain_order="left")
    return result.select(_G, *names)


def _terms_of_points() -> tuple[pl.Expr, pl.Expr, pl.Expr, dict[str, pl.Expr]]:
    """(is the row's group the row before's, tp, fp, ``point_terms`` of each point and the point before
    it in its group: the origin before a group's first)."""
    group = pl.col(_G)
    same = group == group.shift(1)
    tp, fp = pl.col("tp"), pl.col("fp")

    def before(e: pl.Expr) -> pl.Expr:
        return pl.when(same).then(e.shift(1)).otherwise(0)

    return same, tp, fp, point_terms(tp, fp, before(tp), before(fp), pl.col("_P"), pl.col("_N"))


def _area_terms(names: Sequence[str]) -> tuple[dict[str, bool], list[pl.Expr]]:
    """The columns :func:`~frame_eval._float.pairwise_sums` adds for the areas among ``names`` but EER (each
    mapped to whether it is added from the group's last point up) and their terms, read off the points."""
    group = pl.col(_G)
    same, tp, fp, terms = _terms_of_points()
    sums: dict[str, bool] = {}
    columns = []
    if "ROC_AUC" in names:
        # scikit-learn's roc_curve drops the points where neither count bends (drop_intermediate: the
        # second difference, np.diff(x, 2), is 0); each kept point's trapezoid reaches back to the kept
        # point before it (the origin first)
        after = group == group.shift(-1)
        bends = [
            pl.when(same & after).then(((c.shift(-1) - c) - (c - c.shift(1))) != 0).otherwise(True)
            for c in (fp, tp)
        ]
        kept = bends[0] | bends[1]

        def kept_before(rate: pl.Expr) -> pl.Expr:
            last_kept = pl.when(kept).then(rate).shift(1)
            return pl.when(same).then(last_kept.forward_fill()).otherwise(0.0)

        fpr, tpr = ratio(fp, pl.col("_N")), ratio(tp, pl.col("_P"))
        trapezoid = (fpr - kept_before(fpr)) * (tpr + kept_before(tpr)) / 2.0
        columns.append(pl.when(kept).then(trapezoid).alias("ROC_AUC"))
        sums["ROC_AUC"] = False
    for name in ("average_precision", "PR_AUC"):
        if name in names:  # scikit-learn lists these terms from the lowest threshold up
            columns.append(terms[name].alias(name))
            sums[name] = True
    return sums, columns


def _first_crossings(points: pl.LazyFrame) -> pl.LazyFrame:
    """``[_G, EER]``: each group's EER, at its first point with FPR >= FNR."""
    terms = _terms_of_points()[3]
    # the terms as columns first, then the first crossing of each group: the same values as
    # area("EER", ...) inside the agg, which polars 2.1 cannot plan on an empty input (a panic)
    crossing = points.with_columns(terms["EER"].alias("EER"), terms["EER_crossed"].alias("_crossed"))
    return crossing.group_by(_G).agg(pl.col("EER").filter(pl.col("_crossed")).first())
