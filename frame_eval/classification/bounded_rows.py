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
rows of the buckets below the lowest of those are dropped. Every group keeps
all of its rows from some score up, so its points at those scores have the
counts of all of its rows, and every point left out has more than ``m`` false
positives. The best of what is kept is then chosen as without a bound.

:func:`most_sensitive_within_bound` answers ``criterion="recall"`` from the
same counts with no sort at all: the threshold is the lowest positive score
above the (m+1)-th highest negative one (or the group's highest score), so
only the rows of two buckets per group are read one by one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import polars as pl

from frame_eval.classification.packed_points import keys_hash

__all__ = ["most_sensitive_within_bound", "rows_within_bound"]

BUCKETS: Final = 64
_B, _N, _ABOVE = "__fe_bucket", "__fe_negatives", "__fe_above"


def _bucket(score: pl.Series) -> pl.Series:
    """A UInt8 in [0, BUCKETS] per score that never falls as the score rises (each step rounds
    monotonically; NaN and null, which the data checks refuse, in bucket 0)."""
    low, high = score.min(), score.max()
    infinite = not (isinstance(low, float) and isinstance(high, float) and math.isfinite(high - low))
    if infinite:  # (rare: a second pass for them)
        finite = score.filter(score.is_finite())
        low, high = finite.min(), finite.max()
    if low is None or high is None or not math.isfinite(high - low) or not high > low:  # type: ignore[operator]
        return pl.repeat(0, score.len(), dtype=pl.UInt8, eager=True)
    steps = (score - low) * (BUCKETS / (high - low))  # type: ignore[operator]
    # from [0, BUCKETS] (the finite scores' steps; infinite ones clipped into it), truncation is the floor
    steps = steps.clip(0.0, float(BUCKETS)) if infinite else steps
    return steps.cast(pl.UInt8, strict=False).fill_null(0)


def _bucket_counts(
    rows: pl.DataFrame, keys: list[str], positive: str, score: str
) -> tuple[pl.Series, pl.DataFrame]:
    """(each row's bucket; ``[*keys, _B, _n, _P, _ABOVE, _N]``: each group's rows and positives per
    bucket, its buckets from the top, with the negatives down to the bucket's, and the group's)."""
    bucket = _bucket(rows.get_column(score)).alias(_B)
    # polars' streaming engine groups by several columns several times faster than the in-memory one
    counts = rows.select(*keys, positive).with_columns(bucket).lazy().group_by([*keys, _B]).agg(
        pl.len().cast(pl.Int64).alias("_n"), pl.col(positive).sum().cast(pl.Int64).alias("_P")
    ).collect(engine="streaming")
    negatives = pl.col("_n") - pl.col("_P")
    return bucket, counts.sort(_B, descending=True).with_columns(
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
    bucket, counts = _bucket_counts(rows, keys, positive, score)
    # the bucket of the group's (m+1)-th highest negative score (0 when every point may qualify)
    reaches = pl.col(_ABOVE).cast(pl.Int128) > most_false_positives(pl.col(_N))
    lowest = pl.col(_B).filter(reaches).max().fill_null(0).alias("__fe_lowest")
    groups = _group_by(counts, keys, pl.col("_n").sum(), pl.col("_P").sum(), pl.col(_N).first(), lowest)
    start = groups.filter(pl.col(_N) > 0).get_column("__fe_lowest").min()
    kept = rows.filter(bucket >= (BUCKETS + 1 if start is None else start))
    return kept, groups.select(*keys, "_n", "_P")


def most_sensitive_within_bound(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str,
    most_false_positives: Callable[[pl.Expr], pl.Expr], min_recall: tuple[int, int] | None = None,
) -> pl.DataFrame:
    """``[*keys, _P, _N, threshold, tp, fp]`` (Int64 counts): ``best_threshold(criterion="recall")``
    allowing at most ``most_false_positives(N)`` false positives (and, with ``min_recall=(a, b)``,
    ``TP / P >= a / b``), with no sort of the rows.

    With ``c`` the group's (m+1)-th highest negative score (none if ``m >= N``), the thresholds allowed
    are the scores above ``c``; the most positives are those above ``c``, reached first (the highest
    threshold wins) at the lowest positive score above ``c``, or, with no positive above ``c``, at the
    group's highest score (no positives; if that is above ``c``). Null without positives or negatives,
    or where nothing qualifies. Only the rows of two buckets per group are read one by one: ``c``'s,
    and the lowest above it holding a positive (if none, the group's top bucket); the counts of the
    buckets above those come from the bucket counts.
    """
    keys = list(keys)
    bucket, counts = _bucket_counts(rows, keys, positive, score)
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
    # the rows of each group's two buckets (those of any group's first, then those whose keys' hash and
    # bucket are a group's, then those of their own group's), with the group's numbers
    wanted = pl.concat([groups.get_column("__fe_bc"), groups.get_column("__fe_b2")]).drop_nulls().unique()
    picked = rows.select(*keys, positive, score).with_columns(bucket).filter(bucket.is_in(wanted.implode()))
    if keys:
        tagged = keys_hash(keys) + b.cast(pl.UInt64)  # (wrapping)
        pairs = groups.select(pl.concat_list(
            keys_hash(keys) + pl.col(name).cast(pl.UInt64) for name in ("__fe_bc", "__fe_b2")
        ).explode().drop_nulls()).to_series()
        picked = picked.filter(tagged.is_in(pairs.implode()))
    numbers = groups.select(
        *keys, "__fe_bc", "__fe_b2", "__fe_next", "__fe_k", "__fe_pc", "__fe_ac", "__fe_a2",
        n_pos.alias("__fe_Pt"),
    )
    picked = _joined(picked, numbers, keys)
    s, y = pl.col(score), pl.col(positive)
    in_c, in_2 = (b == pl.col("__fe_bc")).fill_null(False), b == pl.col("__fe_b2")
    picked = picked.filter(in_c | in_2)
    # c, then the threshold and its true positives, then its false positives
    c = s.filter(~y & in_c).top_k(pl.col("__fe_k").first().fill_null(1)).min()
    picked = _joined(picked, _group_by(picked, keys, c.alias("__fe_c")), keys)
    above_c = in_c & (s > pl.col("__fe_c"))
    in_c_first = s.filter(y & above_c).min()
    after = pl.when(pl.col("__fe_next").first()).then(s.filter(y & in_2).min())
    top = s.filter(in_2).max()
    c_first = pl.col("__fe_c").first()
    t = pl.coalesce(in_c_first, after, pl.when(c_first.is_null() | (top > c_first)).then(top))
    tp = pl.when(c_first.is_null()).then(pl.col("__fe_Pt").first()).otherwise(
        pl.col("__fe_pc").first() + (y & above_c).sum()
    )
    picked = _joined(picked, _group_by(
        picked, keys, t.alias("threshold"), tp.cast(pl.Int64).alias("tp"),
        in_c_first.is_not_null().alias("__fe_t_in_c"),
    ), keys)
    at_or_above = ~y & (s >= pl.col("threshold"))
    fp = pl.when(pl.col("__fe_t_in_c").first()).then(
        pl.col("__fe_ac").first() + (at_or_above & in_c).sum()
    ).otherwise(pl.col("__fe_a2").first() + (at_or_above & in_2).sum())
    chosen = _group_by(
        picked, keys, pl.col("threshold").first(), pl.col("tp").first(), fp.cast(pl.Int64).alias("fp")
    )
    best = groups.select(*keys, n_pos.alias("_P"), (pl.col("_n") - n_pos).alias("_N"))
    best = best.join(chosen, on=keys, how="left", nulls_equal=True) if keys else pl.concat(
        [best, chosen], how="horizontal"
    )
    tp, fp, t = pl.col("tp"), pl.col("fp"), pl.col("threshold")
    qualifies = (pl.col("_P") > 0) & (pl.col("_N") > 0) & t.is_not_null()
    if min_recall is not None:
        least, out_of = (pl.lit(v, pl.Int128) for v in min_recall)
        qualifies = qualifies & (tp.cast(pl.Int128) * out_of >= least * pl.col("_P").cast(pl.Int128))
    return best.select(
        *keys, "_P", "_N",
        pl.when(qualifies).then(pl.when(t == 0.0).then(0.0).otherwise(t)).alias("threshold"),  # -0.0 as 0.0
        pl.when(qualifies).then(tp).alias("tp"), pl.when(qualifies).then(fp).alias("fp"),
    )


def _joined(rows: pl.DataFrame, per_group: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``rows`` with their group's columns of ``per_group`` (one row per group)."""
    if keys:
        return rows.join(per_group, on=keys, nulls_equal=True)
    return rows.join(per_group, how="cross")
