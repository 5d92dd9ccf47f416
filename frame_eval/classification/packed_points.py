"""The curve points of many groups from one sort of packed 128-bit keys.

:func:`~frame_eval.classification.grouped_scores.group_points` sorts each
group's (label, score) rows in an aggregation, which costs polars about five
times a plain sort of as many numbers. :func:`packed_group_points` gives the
same frames from one such plain sort: each row becomes one unsigned 128-bit
integer, ``group * 2^65 + order(score) * 2 + label``, where ``group`` is a
63-bit hash of the group's keys (:func:`_group_hash`; ``scores()`` numbers its
groups the same way, see :mod:`~frame_eval.classification.grouped_scores`,
through the same :func:`points_of_rows`) and ``order`` maps a double to an
unsigned 64-bit integer in the same order. Sorted descending, the keys put
each group's rows together, scores descending; a run of equal keys is the
rows of one group, score and label, so the run lengths are the counts. A group
table (one group-by of the keys) maps the hashes back to the keys and finds
groups whose keys share a hash; those are sorted one group at a time instead,
so a collision costs time, never a wrong number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import polars as pl

from frame_eval import _own_thread
from frame_eval._float import positive_zero

__all__ = ["packed_group_points", "points_of_rows"]

# the columns of the rows and points: the group's number, the positive label, the score
_G, _L, _S = "__fe_group", "__fe_positive", "__fe_score"

_HALF: Final = 1 << 63
_ALL_ONES: Final = (1 << 64) - 1
_POINTS: Final = {
    _G: pl.UInt64, "_k": pl.Int64, "tp": pl.Int64, "fp": pl.Int64, "_n": pl.Int64, "_P": pl.Int64,
    _S: pl.Float64,
}


def keys_hash(keys: Sequence[str]) -> pl.Expr:
    """A 64-bit hash of the key columns (UInt64; a row's is its group's)."""
    return pl.col(keys[0]).hash() if len(keys) == 1 else pl.struct(keys).hash()


def _group_hash(keys: Sequence[str]) -> pl.Expr:
    """A 63-bit hash of the key columns (UInt64): a row's is its group's."""
    return keys_hash(keys) // 2


def packed_group_points(
    frame: pl.LazyFrame, keys: Sequence[str], positive: pl.Expr, score: pl.Expr
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """What :func:`~frame_eval.classification.grouped_scores.group_points` gives (the same columns and
    values but for the group numbers, UInt64 here; the points in no set order of groups, each group's
    points together, threshold descending), from one sort of packed keys.

    A group is numbered by :func:`_group_hash` of its keys (below 2^63); groups whose keys share a hash
    are sorted one group at a time (``group_points``) and numbered from 2^63 up.
    """
    # (imported here: grouped_scores imports this module)
    from frame_eval.classification.grouped_scores import group_points

    keys = list(keys)
    base = frame.select(*keys, positive.alias(_L), score.cast(pl.Float64).alias(_S))
    if not keys:
        totals = base.select(pl.lit(0, pl.UInt64).alias(_G), *_COUNTS)
        rows = base.with_columns(pl.lit(0, pl.UInt64).alias(_G))
        return totals, rows.select(_G, _L, _S).map_batches(_points_of_hashed_rows, schema=_POINTS)
    rows, own, shared, again = hashed_groups(frame, base, keys)
    totals = own.select(_G, *keys, "_n", "_P")
    points = rows.select(_G, _L, _S).map_batches(_points_of_hashed_rows, schema=_POINTS)
    points = points.join(shared, on=_G, how="anti")  # merged groups' points
    more_totals, more_points = group_points(again, keys, positive, score)
    renumbered = pl.col(_G).cast(pl.UInt64) + pl.lit(_HALF, pl.UInt64)
    return (
        pl.concat([totals, more_totals.with_columns(renumbered)]),
        # a merged group's points carry its first score of each run: -0.0 read as 0.0, as _order does
        pl.concat([points, more_points.with_columns(renumbered, positive_zero(pl.col(_S)).alias(_S))]),
    )


_COUNTS: Final = (pl.len().alias("_n"), pl.col(_L).sum().alias("_P"))


def hashed_groups(
    frame: pl.LazyFrame, base: pl.LazyFrame, keys: Sequence[str]
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    """The groups of ``base`` (``[*keys, _L, ...]``, rows of ``frame``) numbered by :func:`_group_hash`:

    ``base`` with ``_G``; the table ``[*keys, _G, _n, _P]`` of the groups whose hash is theirs alone;
    ``[_G]``, the hashes several groups share; and ``frame``'s rows of those groups, in ``frame``'s
    order (so that a sort per group numbers them alike in every plan that reads them), to be
    measured on their own: a collision costs time, never a wrong number.
    """
    rows = base.with_columns(_group_hash(keys).alias(_G))
    groups = rows.group_by(keys).agg(pl.col(_G).first(), *_COUNTS).cache()  # read three times below
    own, shared, again = told_apart(frame, groups, keys, _G)
    return rows, own, shared.select(_G), again


def told_apart(
    frame: pl.LazyFrame, table: pl.LazyFrame, keys: Sequence[str], hashed: str
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame]:
    """``table``'s rows (one per group of ``keys``, its hash in column ``hashed``) whose hash is theirs
    alone; its rows whose hash other groups share; and ``frame``'s rows of those other groups, in
    ``frame``'s order (so that a sort per group numbers them alike in every plan that reads them), to be
    measured on their own: a collision costs time, never a wrong number."""
    merged = pl.col(hashed).is_duplicated()
    again = frame.join(
        table.filter(merged).select(keys), on=list(keys), how="semi", nulls_equal=True, maintain_order="left"
    )
    return table.filter(~merged), table.filter(merged), again


def _points_of_hashed_rows(rows: pl.DataFrame) -> pl.DataFrame:
    return points_of_rows(rows, pl.UInt64)


def within_group(running: pl.Expr, first: pl.Expr) -> pl.Expr:
    """A running sum over the rows of many groups (each group's rows together) made each group's own:
    less its value on the row before the group's ``first`` row (its name kept)."""
    return running - pl.when(first).then(running.shift(1).fill_null(0)).forward_fill()


def _order(score: pl.Expr) -> pl.Expr:
    """A double as an unsigned 64-bit integer in the same order (-0.0 as 0.0, so a threshold of -0.0
    reads back as 0.0; no NaN: the callers refuse NaN scores)."""
    bits = pl.when(score == 0.0).then(0.0).otherwise(score).reinterpret(dtype=pl.UInt64)
    return pl.when(bits >= _HALF).then(pl.lit(_ALL_ONES, pl.UInt64) - bits).otherwise(bits + _HALF)


def _score(order: pl.Expr) -> pl.Expr:
    """The double of :func:`_order`'s integer."""
    bits = pl.when(order >= _HALF).then(order - _HALF).otherwise(pl.lit(_ALL_ONES, pl.UInt64) - order)
    return bits.reinterpret(dtype=pl.Float64)


def packed_key(group: pl.Expr | None = None) -> pl.Expr:
    """A row's 128-bit key from its columns ``[<label>, <score>]`` and its group's number (``group``, by
    default the column ``_G``): ``group * 2^65 + order(score) * 2 + label`` (sorted descending: each
    group's rows together, scores descending)."""
    big = pl.UInt128
    number = pl.col(_G) if group is None else group
    return (
        number.cast(big) * pl.lit(1 << 65, big) + _order(pl.col(_S)).cast(big) * pl.lit(2, big)
        + pl.col(_L).cast(big)
    )


def _packed_keys(rows: pl.DataFrame, group: pl.Expr | None) -> pl.Series:
    """:func:`packed_key` of every row. Made in a streaming pass when this thread may wait for polars'
    (see :mod:`frame_eval._own_thread`): each batch's intermediate 128-bit columns are then small and
    reused, where a whole-column expression allocates each of them for every row (at 10M rows about
    30 % less memory touched and faulted in, and the pass on every core); else here, the same values."""
    key = packed_key(group).alias("_key")
    if _own_thread.apart(rows.height):
        return rows.lazy().select(key).collect(engine="streaming").get_column("_key")
    return rows.select(key).get_column("_key")


def points_of_rows(
    rows: pl.DataFrame, group: type[pl.DataType] = pl.UInt32, *, score: bool = True,
    number: pl.Expr | None = None, sorted_then: Callable[[], object] | None = None,
) -> pl.DataFrame:
    """``[_G, _k, tp, fp, _n, _P, <score>]`` points from ``[_G, <label>, <score>]`` rows, each group's
    points together, threshold descending (the score column left out with ``score=False``; ``_G`` cast
    to ``group``, wide enough for the group numbers; with ``number``, each row's group number is that
    expression of its columns instead of ``_G``). A frame function: a Series sorts faster on its own
    than inside a lazy plan. ``sorted_then`` is called once the keys are sorted: work begun there on
    a thread of its own fills the cores that the steps after the sort (mostly on one) leave idle."""
    big = pl.UInt128
    keys = _packed_keys(rows, number).sort(descending=True)
    if sorted_then is not None:
        sorted_then()
    runs = keys.rle().struct.unnest()
    del keys
    value, n = pl.col("value"), pl.col("len").cast(pl.Int64)
    block = value // pl.lit(2, big)  # the group and the score
    runs = runs.select(
        (value // pl.lit(1 << 65, big)).cast(group).alias(_G),
        *([_score((block % pl.lit(1 << 64, big)).cast(pl.UInt64)).alias(_S)] if score else []),
        (block != block.shift(-1)).fill_null(True).alias("_end"),
        n.cum_sum().alias("_k"),
        pl.when((value % pl.lit(2, big)) == 1).then(n).otherwise(0).cum_sum().alias("tp"),
    )
    g = pl.col(_G)
    first, last = (g != g.shift(1)).fill_null(True), (g != g.shift(-1)).fill_null(True)

    k, tp = pl.col("_k"), pl.col("tp")
    return runs.filter("_end").with_columns(within_group(k, first), within_group(tp, first)).select(
        g, k, tp, (k - tp).alias("fp"),
        pl.when(last).then(k).backward_fill().alias("_n"), pl.when(last).then(tp).backward_fill().alias("_P"),
        *([_S] if score else []),
    )
