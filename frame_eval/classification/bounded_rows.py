"""The rows that can still give a threshold when false positives are bounded.

Under ``min_specificity=`` or ``max_fpr=`` a threshold qualifies only where at
most ``m`` negatives of its group score at least as high
(:func:`~frame_eval.classification.thresholds.most_false_positives`), that
is above the group's (m+1)-th highest negative score; and the counts at such a
threshold come from the rows scoring at least as high. So a group's lower rows
can be left out, whatever the criterion and the other constraints, as long as
the group's totals come from all of its rows.

:func:`rows_within_bound` finds such rows without sorting: one group-by counts
each group's rows and positives by a coarse bucket of the score (64 equal
steps between the lowest and the highest finite score; the bucket never falls
as the score rises, so a bucket holds every row of its scores), which gives the
totals and, per group, the bucket of its (m+1)-th highest negative score; the
rows of the buckets below the lowest of those are dropped (a comparison of the
score with that bucket's lowest score, found in Python by bisection). Every
group keeps all of its rows from some score up, so its points at those scores
have the counts of all of its rows, and every point left out has more than
``m`` false positives. The best of what is kept is then chosen as without a
bound.

:func:`most_sensitive_within_bound` answers ``criterion="recall"`` from the
same counts with no sort at all: the threshold is the lowest positive score
above the (m+1)-th highest negative one (or the group's highest score), so
only the rows of that negative score's bucket are read one by one (those of
the bucket above too, for a group with no positive above it in its bucket).
``criterion="specificity"`` with ``min_recall=`` is a choice too
(:func:`~frame_eval.classification.bucketed_best.most_specific_within_recall`): the k-th highest
positive score, read in the bucket where the positives from the top reach k.

:func:`rows_that_can_be_best` prunes by the criterion itself, with or without
a bound. Every criterion and constraint of ``best_threshold`` is monotone: no
worse with more true positives or fewer false positives. A point in a bucket
has at most the true positives down to the bucket's end and at least the false
positives above the bucket (one more when the bucket holds no positive: the
point holds one of its rows), so the criterion and the constraints at that
corner bound every point of the bucket; and the bucket's lowest score is a
point whose counts are those down to its end, exactly. A bucket whose corner
fails a constraint, or whose corner's criterion is below the best point at a
bucket's end, holds no best point; the other buckets' rows (usually a few
buckets per group) are sorted, their counts raised by the rows of the buckets
left out above them. :func:`~frame_eval.classification.bucketed_best.best_in_buckets` prunes the kept
buckets' rows again, by parts of each bucket, before the sort.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

import polars as pl

from frame_eval.classification.curves import Points
from frame_eval.classification.thresholds import at_least

__all__ = ["most_sensitive_within_bound", "rows_that_can_be_best", "rows_within_bound"]

BUCKETS: Final = 64
_B, _N, _ABOVE, _G = "__fe_bucket", "__fe_negatives", "__fe_above", "__fe_group"
KEPT, TP_END = "__fe_kept", "__fe_tp"
POSITIVES, BEST_END = "__fe_positives", "__fe_best_end"  # the group's positives, its best end's key
TP_LEFT, FP_LEFT = "__fe_tp_left", "__fe_fp_left"  # the positives and negatives of the buckets left out above
_SIGN: Final = 1 << 63


@dataclass(frozen=True)
class _Buckets:
    """Each score's bucket: a UInt8 in [0, BUCKETS] that never falls as the score rises (each step
    rounds monotonically), ``BUCKETS`` equal steps from the lowest finite score ``low`` to the highest
    (infinite scores clipped into the ends; every score in bucket 0 when ``low`` is None)."""

    score: str
    low: float | None
    high: float
    clipped: bool

    @classmethod
    def of(cls, score: pl.Series) -> _Buckets:
        low, high = score.min(), score.max()
        clipped = not (isinstance(low, float) and isinstance(high, float) and math.isfinite(high - low))
        if clipped:  # (rare: a second pass for them)
            finite = score.filter(score.is_finite())
            low, high = finite.min(), finite.max()
        if low is None or high is None or not math.isfinite(high - low) or not high > low:  # type: ignore[operator]
            return cls(score.name, None, 0.0, clipped)
        if not math.isfinite(BUCKETS / (high - low)):  # type: ignore[operator]
            return cls(score.name, None, 0.0, clipped)  # (a subnormal range: steps too large)
        return cls(score.name, float(low), float(high), clipped)  # type: ignore[arg-type]

    def expr(self) -> pl.Expr:
        """The bucket of each score (NaN and null, which the data checks refuse, in bucket 0)."""
        if self.low is None:
            return pl.lit(0, dtype=pl.UInt8).alias(_B)
        # from [0, BUCKETS] (the finite scores' steps; infinite ones clipped into it), truncation is the
        # floor; the cast saturates (NaN to 0) and checks nothing: half the cost of a checked one
        return self._steps().cast(pl.UInt8, wrap_numerical=True).fill_null(0).alias(_B)

    def key(self) -> pl.Expr:
        """:meth:`expr`'s bucket as the floor of the same steps (Float64), to group rows by: cheaper
        than the cast to an integer (NaN and null scores each a key of their own, see
        :func:`_bucket_counts`)."""
        return self.expr() if self.low is None else self._steps().floor().alias(_B)

    def _steps(self) -> pl.Expr:
        assert self.low is not None
        steps = (pl.col(self.score) - self.low) * (BUCKETS / (self.high - self.low))
        return steps.clip(0.0, float(BUCKETS)) if self.clipped else steps

    def part(self, parts: int, bucket: pl.Expr) -> pl.Expr:
        """Each score's part of its bucket (``bucket``, :meth:`expr`'s), UInt32 from 0 to ``parts - 1``,
        never falling as the score rises within a bucket: a step ``parts`` times finer, less the
        bucket's first, clipped."""
        factor = BUCKETS * parts / (self.high - self.low) if self.low is not None else math.inf
        if not math.isfinite(factor):
            return pl.lit(0, dtype=pl.UInt32)
        assert self.low is not None
        steps = (pl.col(self.score) - self.low) * factor
        steps = steps.clip(0.0, float(BUCKETS * parts)) if self.clipped else steps
        fine = steps.cast(pl.Int64, wrap_numerical=True).fill_null(0) - bucket.cast(pl.Int64) * parts
        return fine.clip(0, parts - 1).cast(pl.UInt32, wrap_numerical=True)  # (unchecked casts, as in expr)

    def _of(self, x: float) -> int:
        """:meth:`expr`'s bucket of a finite score from ``low`` to ``high`` (the same operations)."""
        assert self.low is not None
        steps = (x - self.low) * (BUCKETS / (self.high - self.low))
        return int(min(max(steps, 0.0), float(BUCKETS)) if self.clipped else steps)

    def _lowest(self, bucket: int) -> float:
        """The lowest score in ``bucket`` or above (inf when no finite score is)."""
        assert self.low is not None
        if self._of(self.high) < bucket:
            return math.inf
        below, at = _ordered(self.low), _ordered(self.high)  # the bucket of ``below`` is 0 < ``bucket``
        while at - below > 1:
            middle = (below + at) // 2
            below, at = (below, middle) if self._of(_unordered(middle)) >= bucket else (middle, at)
        return _unordered(at)

    def within(self, first: int, last: int) -> pl.Expr:
        """Whether a score's bucket is from ``first`` to ``last``, read off the score itself."""
        if self.low is None:
            return pl.lit(first <= 0 <= last)
        s, inside = pl.col(self.score), pl.lit(True)
        if first > 0:
            inside = s >= self._lowest(first)
        if last < BUCKETS:
            inside = inside & (s < self._lowest(last + 1))
        return inside


def _ordered(x: float) -> int:
    """An integer per float in the floats' order (0.0 and -0.0 alike)."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    return bits if bits < _SIGN else -(bits - _SIGN)


def _unordered(key: int) -> float:
    """The float of an :func:`_ordered` key (0.0 for 0)."""
    return struct.unpack("<d", struct.pack("<Q", key if key >= 0 else -key | _SIGN))[0]


def _bucket_counts(
    rows: pl.DataFrame, keys: list[str], positive: str, score: str
) -> tuple[_Buckets, pl.DataFrame]:
    """(the buckets of the scores; ``[*keys, _B, _n, _P, _ABOVE, _N]``: each group's rows and positives
    per bucket, its buckets from the top, with the negatives down to the bucket's, and the group's)."""
    buckets = _Buckets.of(rows.get_column(score))
    # polars' streaming engine groups by several columns several times faster than the in-memory one
    sums = pl.col("_n").sum(), pl.col("_P").sum()
    counts = rows.lazy().group_by([*keys, buckets.key()]).agg(
        pl.len().cast(pl.Int64).alias("_n"), pl.col(positive).sum().cast(pl.Int64).alias("_P")
    ).collect(engine="streaming")
    if counts.schema[_B] != pl.UInt8:  # the floor of the steps: the bucket, NaN and null scores in bucket 0
        b = pl.col(_B)
        apart = counts.select(b.is_null().any() | b.is_nan().any()).item()
        counts = counts.with_columns(b.cast(pl.UInt8, strict=False).fill_null(0))
        counts = counts.group_by([*keys, _B]).agg(*sums) if apart else counts
    negatives = pl.col("_n") - pl.col("_P")
    return buckets, counts.sort(_B, descending=True).with_columns(
        _per_group(negatives.cum_sum(), keys).alias(_ABOVE), _per_group(negatives.sum(), keys).alias(_N)
    )


def _per_group(e: pl.Expr, keys: list[str]) -> pl.Expr:
    return e.over(keys) if keys else e


def _group_by(frame: pl.DataFrame, keys: list[str], *aggs: pl.Expr) -> pl.DataFrame:
    return frame.group_by(keys).agg(*aggs) if keys else frame.select(*aggs)


def rows_within_bound(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str,
    most_false_positives: Callable[[pl.Expr], pl.Expr],
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the rows of ``rows`` that can give a threshold with at most ``most_false_positives(N)`` false
    positives, N the group's negatives, with every row of a group from some score up, in ``rows``'
    order; ``[*keys, _n, _P]`` (Int64) the rows and positives of every group of ``rows``).

    ``rows`` holds ``[*keys, positive, score]``; a group without negatives meets no such bound and keeps
    no rows.
    """
    keys = list(keys)
    buckets, counts = _bucket_counts(rows, keys, positive, score)
    # the bucket of the group's (m+1)-th highest negative score (0 when every point may qualify)
    reaches = pl.col(_ABOVE).cast(pl.Int128) > most_false_positives(pl.col(_N))
    lowest = pl.col(_B).filter(reaches).max().fill_null(0).alias("__fe_lowest")
    groups = _group_by(counts, keys, pl.col("_n").sum(), pl.col("_P").sum(), pl.col(_N).first(), lowest)
    start = groups.filter(pl.col(_N) > 0).get_column("__fe_lowest").min()
    kept = rows.clear() if start is None else rows.filter(buckets.within(start, BUCKETS))
    return kept, groups.select(*keys, "_n", "_P")


def kept_buckets(
    counts: pl.DataFrame, keys: list[str], key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]]
) -> pl.DataFrame:
    """``counts`` (``[*keys, _B, _n, _P, _ABOVE, _N]``, each group's buckets from the top, as
    :func:`_bucket_counts` gives them) with ``KEPT``, whether the bucket can hold its group's best point
    (see the module), ``TP_END``, the group's positives down to the bucket's end, ``POSITIVES``, the
    group's, and ``BEST_END``, the group's best key at a bucket's end (null if none is allowed)."""
    n_pos = pl.col("_P")
    counts = counts.with_columns(
        _per_group(n_pos.cum_sum(), keys).alias(TP_END), _per_group(n_pos.sum(), keys).alias(POSITIVES)
    )
    best_end, kept = ends_and_corners(
        counts.columns, pl.col(TP_END), pl.col(_ABOVE), key_and_allowed, lambda e: _per_group(e, keys)
    )
    return counts.with_columns(best_end.alias(BEST_END)).with_columns(
        kept(pl.col(BEST_END)).fill_null(False).alias(KEPT)
    )


def ends_and_corners(
    columns: Sequence[str], tp_end: pl.Expr, fp_end: pl.Expr,
    key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]], per_group: Callable[[pl.Expr], pl.Expr],
) -> tuple[pl.Expr, Callable[[pl.Expr], pl.Expr]]:
    """(each block's group's best key at a block's end, null if none is allowed; a function of a group's
    best key giving whether the block's corner reaches it (see the module)), for blocks of rows with
    the columns ``_n``, ``_P`` (its rows and positives), ``POSITIVES`` and ``_N`` (its group's), and
    ``tp_end``, ``fp_end``, its group's positives and negatives down to the block's end; ``per_group``
    makes an aggregation its group's (``over``). A block with no positive has a corner one false
    positive below its end's: a point of the block holds one of its rows at least."""
    assert {"_n", "_P", POSITIVES, _N} <= set(columns)
    n_pos, n_neg = pl.col("_P"), pl.col("_n") - pl.col("_P")
    fewest_fp = fp_end - n_neg + (n_pos == 0).cast(pl.Int64)
    positives, negatives, threshold = pl.col(POSITIVES), pl.col(_N), pl.lit(0)  # (the keys read no threshold)
    reached, reached_ok = key_and_allowed(Points(threshold, tp_end, fp_end, positives, negatives))  # an end
    bound, bound_ok = key_and_allowed(Points(threshold, tp_end, fewest_fp, positives, negatives))  # a corner

    def kept(best_end: pl.Expr) -> pl.Expr:
        return bound_ok & (best_end.is_null() | bound.is_null() | (bound >= best_end))

    return per_group(reached.filter(reached_ok).max()), kept


def rows_that_can_be_best(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str,
    key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]], point_score: str,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.Expr]:
    """(the rows of the buckets that can hold a group's best point, ``[*keys, positive, score]`` in
    ``rows``' order; ``[*keys, _B, TP_LEFT, FP_LEFT]``, for each such bucket the positives and negatives
    of its group's buckets above it that were left out, to add to the counts of its points;
    ``[*keys, _n, _P]`` (Int64) the rows and positives of every group; the expression of a point's bucket
    ``_B`` from its score in the column ``point_score``).

    ``key_and_allowed`` gives (the key the best point has the highest of, whether a point may be chosen)
    of :class:`~frame_eval.classification.curves.Points` with integer counts, both monotone in the counts
    (no lower with more true positives or fewer false positives), as
    :func:`~frame_eval.classification.thresholds.best_key` gives them (see the module).
    """
    keys = list(keys)
    buckets, counts = _bucket_counts(rows, keys, positive, score)
    counts = kept_buckets(counts, keys, key_and_allowed)
    n_pos, n_neg = pl.col("_P"), pl.col("_n") - pl.col("_P")
    k = pl.col(KEPT).cast(pl.Int64)

    def left_above(count: pl.Expr) -> pl.Expr:  # the count in the buckets above that are left out
        return _per_group(count.cum_sum() - count - (count * k).cum_sum() + count * k, keys)

    chosen = counts.with_columns(left_above(n_pos).alias(TP_LEFT), left_above(n_neg).alias(FP_LEFT)).filter(
        KEPT
    ).select(*keys, _B, TP_LEFT, FP_LEFT)
    totals = _group_by(counts, keys, pl.col("_n").sum(), pl.col("_P").sum())
    first, last = chosen.get_column(_B).min(), chosen.get_column(_B).max()
    if first is None:
        kept_rows = rows.clear()
    else:
        window = rows.lazy().filter(buckets.within(first, last)).with_columns(buckets.expr())  # type: ignore[arg-type]
        wanted = chosen.lazy().select(*keys, _B)
        if keys:
            window = window.join(wanted, on=[*keys, _B], how="semi", nulls_equal=True, maintain_order="left")
        else:
            window = window.filter(pl.col(_B).is_in(chosen.get_column(_B).implode()))
        kept_rows = window.select(rows.columns).collect()
    return kept_rows, chosen, totals.select(*keys, "_n", "_P"), replace(buckets, score=point_score).expr()


def most_sensitive_within_bound(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str,
    most_false_positives: Callable[[pl.Expr], pl.Expr], min_recall: float | None = None,
) -> pl.DataFrame:
    """``[*keys, _P, _N, threshold, tp, fp]`` (Int64 counts): ``best_threshold(criterion="recall")``
    allowing at most ``most_false_positives(N)`` false positives (and, with ``min_recall``, ``TP / P``
    at least that, compared exactly as :func:`~frame_eval.classification.thresholds.at_least` does),
    with no sort of the rows.

    With ``c`` the group's (m+1)-th highest negative score (none if ``m >= N``), the thresholds allowed
    are the scores above ``c``; the most positives are those above ``c``, reached first (the highest
    threshold wins) at the lowest positive score above ``c``, or, with no positive above ``c``, at the
    group's highest score (no positives; if that is above ``c``). Null without positives or negatives,
    or where nothing qualifies. Only the rows of ``c``'s bucket are read one by one (one window of
    scores over every group's, one join numbering them by group), and, for the groups with no positive
    above ``c`` there, those of the lowest bucket above it holding a positive (if none, the group's top
    bucket); the counts of the buckets above come from the bucket counts, and each step after the join
    is a plain group-by of the rows it counts, on the group's number.
    """
    keys = list(keys)
    buckets, counts = _bucket_counts(rows, keys, positive, score)
    b, n_pos, n = pl.col(_B), pl.col("_P"), pl.col(_N)
    negatives_above = pl.col(_ABOVE) - (pl.col("_n") - n_pos)  # in the buckets above the row's
    counts = counts.with_columns(
        most_false_positives(n).cast(pl.Int64).alias("__fe_m"),  # at most N: it fits
        negatives_above.alias("__fe_a"), (_per_group(n_pos.cum_sum(), keys) - n_pos).alias("__fe_pa"),
    )
    lowest = b.filter(pl.col(_ABOVE) > pl.col("__fe_m")).max()  # c's bucket; null if every point qualifies
    nxt = b.filter((n_pos > 0) & (lowest.is_null() | (b > lowest))).min()  # the next with a positive
    second = pl.coalesce(nxt, b.max())
    groups = _group_by(
        counts, keys,
        pl.col("_n").sum(), n_pos.sum(), n.first(), lowest.alias("__fe_bc"), second.alias("__fe_b2"),
        nxt.is_not_null().alias("__fe_next"),
        # c's rank among its bucket's negatives; the positives above its bucket
        (pl.col("__fe_m").first() + 1 - pl.col("__fe_a").filter(b == lowest).first()).alias("__fe_k"),
        pl.col("__fe_pa").filter(b == lowest).first().alias("__fe_pc"),
        pl.col("__fe_a").filter(b == lowest).first().alias("__fe_ac"),
        pl.col("__fe_a").filter(b == second).first().alias("__fe_a2"),
    )
    # each group's numbers reach its rows by the group's row of ``groups``
    groups = groups.with_row_index(_G)
    numbered = groups.lazy().select(*keys, _G)

    def per_row(column: pl.Series | str) -> pl.Expr:
        """Each row's group's value of a column of ``groups`` (or of a Series in its order)."""
        values = groups.get_column(column) if isinstance(column, str) else column
        return pl.lit(values).gather(pl.col(_G))

    def rows_in(bucket: pl.Series) -> pl.DataFrame:
        """``[_G, positive, score]``: the rows of each group's ``bucket`` (one per group of ``groups``,
        in its order; none where null): those of the buckets from the lowest of them to the highest
        (read off the scores), numbered by their group (one join), then those of their group's."""
        first, last = bucket.min(), bucket.max()
        if first is None:
            return rows.select(pl.lit(0, pl.UInt32).alias(_G), positive, score).clear()
        window = rows.lazy().filter(buckets.within(first, last))  # type: ignore[arg-type]
        wanted = numbered.filter(pl.lit(bucket).is_not_null())
        return _joined(window, wanted, keys).with_columns(buckets.expr()).filter(
            b == per_row(bucket)
        ).select(_G, positive, score).collect()

    order = groups.select(_G)

    def per_group(picked: pl.DataFrame, among: pl.Expr, *aggs: pl.Expr) -> pl.DataFrame:
        """``aggs`` of each group's rows of ``picked`` that are ``among``, in ``groups``' order (null
        for a group without such rows)."""
        found = picked.lazy().filter(among).group_by(_G).agg(*aggs).collect()
        return order.join(found, on=_G, how="left", maintain_order="left")

    s, y = pl.col(score), pl.col(positive)
    # c (the (m+1)-th highest negative score) in its bucket's rows, and the positives above it there: the
    # lowest is the threshold, reached with every positive above c; a group without them there (rare)
    # reads the rows of the bucket above (the next with a positive, or its top bucket)
    bc = groups.get_column("__fe_bc")  # (null: a group without negatives, no c, no threshold)
    rows_c = rows_in(bc)
    k = per_row("__fe_k").first()
    c = per_group(rows_c, ~y, s.top_k(k).min().alias("c")).get_column("c")
    found = per_group(rows_c, y & (s > per_row(c)), s.min().alias("t_c"), pl.len().alias("tp_c"))
    t_c = found.get_column("t_c")
    rows_2 = rows_in(groups.select(pl.when(t_c.is_null() & bc.is_not_null()).then("__fe_b2")).to_series())
    found = pl.concat([
        groups.select("__fe_next", "__fe_pc", "__fe_ac", "__fe_a2", "_n", n_pos), found.drop(_G),
        c.to_frame("c"),
        per_group(rows_2, pl.lit(True), s.filter(y).min().alias("t_2"), s.max().alias("top")).drop(_G),
    ], how="horizontal")
    threshold = pl.coalesce(
        "t_c", pl.when("__fe_next").then("t_2"), pl.when(pl.col("top") > pl.col("c")).then("top")
    )
    found = found.with_columns(threshold.alias("threshold"))
    at_or_above = ~y & (s >= per_row(found.get_column("threshold")))
    fp_c = per_group(rows_c, at_or_above, pl.len().alias("fp")).get_column("fp").fill_null(0)
    fp_2 = per_group(rows_2, at_or_above, pl.len().alias("fp")).get_column("fp").fill_null(0)
    best = pl.concat([groups.select(*keys), found], how="horizontal").select(
        *keys, n_pos.alias("_P"), (pl.col("_n") - n_pos).alias("_N"), "threshold",
        (pl.col("__fe_pc") + pl.col("tp_c").fill_null(0)).cast(pl.Int64).alias("tp"),
        pl.when(pl.col("t_c").is_not_null()).then(pl.col("__fe_ac") + fp_c).otherwise(
            pl.col("__fe_a2") + fp_2
        ).cast(pl.Int64).alias("fp"),
    )
    tp, fp, t = pl.col("tp"), pl.col("fp"), pl.col("threshold")
    qualifies = (pl.col("_P") > 0) & (pl.col("_N") > 0) & t.is_not_null()
    if min_recall is not None:
        qualifies = qualifies & at_least(tp, pl.col("_P"), min_recall, exact=True)
    return best.select(
        *keys, "_P", "_N",
        pl.when(qualifies).then(pl.when(t == 0.0).then(0.0).otherwise(t)).alias("threshold"),  # -0.0 as 0.0
        pl.when(qualifies).then(tp).alias("tp"), pl.when(qualifies).then(fp).alias("fp"),
    )


def _joined(rows: pl.LazyFrame, per_group: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``rows`` with their group's columns of ``per_group`` (one row per group)."""
    if keys:
        return rows.join(per_group, on=keys, nulls_equal=True)
    return rows.join(per_group, how="cross")
