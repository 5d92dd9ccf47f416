"""Each group's best threshold from two levels of score buckets and one sort of the few rows left.

:func:`~frame_eval.classification.bounded_rows.rows_that_can_be_best` counts each group's rows in 64
score buckets and keeps the buckets whose corner can reach the best bucket end (see that module); a
criterion that is flat near its best (a weighted sum of rates, a cost) keeps several buckets per
group. :func:`best_in_buckets` prunes again inside them: each kept bucket's rows are counted in 64
parts (equal steps 64 times finer, each score's part never falling as it rises within its bucket),
and only the parts whose corner can reach the best end of a bucket or part (both are points, with
their exact counts) are sorted: on the benchmark's 10M rows, a thirtieth to a sixtieth of the rows
the buckets kept.

No row is matched on its group's keys: each group is numbered by its row of the bucket counts'
group table, and a row finds its number by the 64-bit hash of its keys, which is each group's alone
(checked on that table, which lists every group; else None, for the caller's other path). With up
to a few hundred groups, some bits of the hash index a table of the numbers; with more, a join on
(hash, bucket) gives them. A kept bucket is numbered in (group, bucket) order, a kept part by
``bucket number * 64 + part``; a row's 128-bit key is ``part number * 2^65 + order(score) * 2 +
label``, sorted descending, so that each group's points come together, threshold descending; the
runs of equal keys are the points, their counts running from their part's top and raised by the rows
of their group above that part (read off the part's row of the second counts, by run number: every
part kept holds a row, and they come in the key's order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import polars as pl

from frame_eval.classification.bounded_rows import (
    _ABOVE,
    _B,
    _G,
    _N,
    BEST_END,
    BUCKETS,
    KEPT,
    POSITIVES,
    TP_END,
    _bucket_counts,
    _Buckets,
    _group_by,
    _per_group,
    ends_and_corners,
    kept_buckets,
)
from frame_eval.classification.curves import Points
from frame_eval.classification.packed_points import _order, _score, keys_hash, within_group

__all__ = ["best_in_buckets", "most_specific_within_recall"]

PARTS: Final = 64  # the parts of each kept bucket counted again
_H, _K, _C = "__fe_hash", "__fe_kept_bucket", "__fe_part"
_TP_ABOVE, _FP_ABOVE = "__fe_tp_above", "__fe_fp_above"  # a part's group's rows above it
_BIG = pl.UInt128


def _hashed(keys: Sequence[str]) -> pl.Expr:
    return keys_hash(keys) if keys else pl.lit(0, pl.UInt64)


def _numbered(groups: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame | None:
    """The group table ``groups`` (a row per group) numbered (``_G``) and hashed (``_H``); None when two
    groups share a hash (the caller's rows find their group by hash)."""
    groups = groups.with_row_index(_G).with_columns(_hashed(keys).alias(_H))
    return None if groups.get_column(_H).n_unique() < groups.height else groups


def best_in_buckets(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str,
    key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]],
) -> pl.DataFrame | None:
    """``[*keys, _P, _N, threshold, tp, fp]`` (Int64 counts; one row per group, the last three null where
    no point is allowed): each group's best point, the first (thresholds descending) with the highest
    key of ``key_and_allowed`` among the allowed points, as
    :func:`~frame_eval.classification.bounded_rows.rows_that_can_be_best` and a sort of its rows pick
    it; None when two groups' keys share a 64-bit hash.

    ``rows`` holds ``[*keys, positive, score]``; ``key_and_allowed`` is monotone in the counts (see
    :func:`~frame_eval.classification.bounded_rows.rows_that_can_be_best`).
    """
    keys = list(keys)
    buckets, counts = _bucket_counts(rows, keys, positive, score)
    counts = kept_buckets(counts, keys, key_and_allowed)
    groups = _numbered(_group_by(counts, keys, pl.col("_n").sum(), pl.col("_P").sum()), keys)
    if groups is None:
        return None
    if keys:
        counts = counts.join(groups.select(*keys, _G, _H), on=keys, nulls_equal=True, maintain_order="left")
    else:
        counts = counts.with_columns(pl.lit(0, pl.UInt32).alias(_G), _hashed(keys).alias(_H))
    # the kept buckets, numbered in (group, bucket) order
    kept = counts.filter(KEPT).sort(_G, _B).with_row_index(_K)
    parts = _rows_of_kept_buckets(rows, keys, positive, score, buckets, groups, kept)
    second = _kept_parts(parts, positive, kept, key_and_allowed)
    wanted = pl.zeros(kept.height * PARTS, pl.Boolean, eager=True).scatter(second.get_column(_C), True)
    packed = (
        pl.col(_C).cast(_BIG) * pl.lit(1 << 65, _BIG) + _order(pl.col(score)).cast(_BIG) * pl.lit(2, _BIG)
        + pl.col(positive).cast(_BIG)
    )
    found = parts.lazy().filter(pl.lit(wanted).gather(pl.col(_C))).select(packed.alias("_key")).collect()
    return _best_points(found.get_column("_key"), keys, groups, second, key_and_allowed)


def _kept_parts(
    parts: pl.DataFrame, positive: str, kept: pl.DataFrame,
    key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]],
) -> pl.DataFrame:
    """``[_C, _G, _TP_ABOVE, _FP_ABOVE]``, one row per kept part, in the sorted keys' order (``_C``
    descending): the parts of the kept buckets' rows (``parts``, :func:`_rows_of_kept_buckets`' frame;
    ``kept`` the kept buckets as :func:`best_in_buckets` numbers them, with :func:`kept_buckets`'
    columns) whose corner reaches the best end of a bucket or part of their group, and the rows and
    positives of their group above them.

    The parts are counted by one group-by of their number; a part's counts run from its bucket's top
    (the parts of a bucket come together, from the top), raised by those of its group above the bucket;
    the best end of a bucket is the group's first-level one (:func:`kept_buckets`'), that of a part
    its own.
    """
    # the second counts: each kept bucket's parts, from the top (the order of the parts in the sorted
    # keys), their counts from the top of their bucket raised by those of their group above it
    n_pos, n_neg = pl.col("_P"), pl.col("_n") - pl.col("_P")
    bucket = pl.col(_C) // PARTS
    first = (bucket != bucket.shift(1)).fill_null(True)

    def of_bucket(e: pl.Expr) -> pl.Expr:  # the kept bucket's value
        return pl.lit(kept.select(e).to_series()).gather(bucket)

    second = parts.lazy().group_by(_C).agg(
        pl.len().cast(pl.Int64).alias("_n"), pl.col(positive).sum().cast(pl.Int64).alias("_P")
    ).sort(_C, descending=True).with_columns(
        of_bucket(pl.col(_G)).alias(_G), of_bucket(pl.col(POSITIVES)).alias(POSITIVES),
        of_bucket(pl.col(_N)).alias(_N), of_bucket(pl.col(BEST_END)).alias(BEST_END),
        (of_bucket(pl.col(TP_END) - n_pos) + within_group(n_pos.cum_sum(), first)).alias(TP_END),
        (of_bucket(pl.col(_ABOVE) - n_neg) + within_group(n_neg.cum_sum(), first)).alias(_ABOVE),
    ).collect(engine="streaming")
    # a part is kept when its corner reaches the best end of a bucket (its group's at the first level)
    # or of a part
    best_end, reaches = ends_and_corners(
        second.columns, pl.col(TP_END), pl.col(_ABOVE), key_and_allowed, lambda e: e.over(_G)
    )
    return second.filter(reaches(pl.max_horizontal(BEST_END, best_end)).fill_null(False)).select(
        _C, _G, (pl.col(TP_END) - n_pos).alias(_TP_ABOVE), (pl.col(_ABOVE) - n_neg).alias(_FP_ABOVE)
    )


def most_specific_within_recall(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str, min_recall: tuple[int, int]
) -> pl.DataFrame | None:
    """``[*keys, _P, _N, threshold, tp, fp]`` (Int64 counts): ``best_threshold(criterion="specificity",
    min_recall=a / b)`` (``min_recall``, :func:`~frame_eval.classification.thresholds.exact_bound`'s
    ``(a, b)``, ``0 <= a <= b``), with no sort of the rows.

    ``TP / P >= a / b`` is ``TP >= k = ceil(P a / b)``; the false positives never fall as the threshold
    falls, so the fewest, at the highest threshold, are at the highest threshold reaching ``k`` true
    positives: the k-th highest positive score (ties counted each), or, with ``k = 0``, the group's
    highest score. Null without positives or negatives. Only the rows of that score's bucket (the
    highest whose positives from the top reach ``k``) are read one by one; the counts above it come
    from the bucket counts. None when two groups' keys share a 64-bit hash.
    """
    keys = list(keys)
    a, d = min_recall
    buckets, counts = _bucket_counts(rows, keys, positive, score)
    b, n_pos = pl.col(_B), pl.col("_P")
    big = pl.Int128
    positives = _per_group(n_pos.sum(), keys)
    need = (positives.cast(big) * pl.lit(a, big) + pl.lit(d - 1, big)) // pl.lit(d, big)
    counts = counts.with_columns(
        need.cast(pl.Int64).alias("__fe_k"), _per_group(n_pos.cum_sum(), keys).alias("__fe_pe"),
        (pl.col(_ABOVE) - (pl.col("_n") - n_pos)).alias("__fe_a"),
    )
    at = b.filter(pl.col("__fe_pe") >= pl.col("__fe_k")).max()  # the bucket of the threshold
    groups = _group_by(
        counts, keys, pl.col("_n").sum(), n_pos.sum(), pl.col(_N).first(), pl.col("__fe_k").first(),
        at.alias("__fe_b"),
        (pl.col("__fe_pe") - n_pos).filter(b == at).first().alias("__fe_pa"),
        pl.col("__fe_a").filter(b == at).first().alias("__fe_na"),
    ).with_columns(  # no threshold to look for without positives or negatives
        pl.when((pl.col("_P") > 0) & (pl.col(_N) > 0)).then("__fe_b").alias("__fe_b"),
        (pl.col("__fe_k") - pl.col("__fe_pa")).alias("__fe_r"),  # its rank among the bucket's positives
    )
    groups = _numbered(groups, keys)
    if groups is None:
        return None
    # the rows of each group's bucket, numbered by their group (the bucketed path's numbering, by hash)
    wanted = groups.filter(pl.col("__fe_b").is_not_null()).select(
        _G, _H, pl.col("__fe_b").alias(_B), "__fe_r"
    ).with_row_index(_K)
    picked = _rows_of_kept_buckets(rows, keys, positive, score, buckets, groups, wanted)
    s, y = pl.col(score), pl.col(positive)
    rank = pl.col("__fe_r").first()
    threshold = pl.when(rank > 0).then(s.filter(y).top_k(rank).min()).otherwise(s.max())
    found = picked.lazy().select(
        (pl.col(_C) // PARTS).alias(_K), positive, score
    ).join(wanted.lazy().select(_K, _G, "__fe_r"), on=_K).group_by(_G).agg(
        threshold.alias("threshold"), (y & (s >= threshold)).sum().alias("tp"),
        (~y & (s >= threshold)).sum().alias("fp"),
    ).collect()
    best = groups.join(found, on=_G, how="left")
    t = pl.col("threshold").cast(pl.Float64)
    qualifies = pl.col("__fe_b").is_not_null()
    return best.sort(_G).select(
        *keys, pl.col("_P").cast(pl.Int64), pl.col(_N).cast(pl.Int64).alias("_N"),
        pl.when(qualifies).then(pl.when(t == 0.0).then(0.0).otherwise(t)).alias("threshold"),  # -0.0 as 0.0
        pl.when(qualifies).then(pl.col("__fe_pa") + pl.col("tp").cast(pl.Int64)).alias("tp"),
        pl.when(qualifies).then(pl.col("__fe_na") + pl.col("fp").cast(pl.Int64)).alias("fp"),
    )


def _rows_of_kept_buckets(
    rows: pl.DataFrame, keys: list[str], positive: str, score: str, buckets: _Buckets,
    groups: pl.DataFrame, kept: pl.DataFrame,
) -> pl.DataFrame:
    """``[_C, positive, score]``: the rows of the kept buckets, ``_C`` their kept bucket's number times
    ``PARTS`` plus their part of it."""
    first, last = kept.get_column(_B).min(), kept.get_column(_B).max()
    if first is None:
        return rows.select(pl.lit(0, pl.UInt32).alias(_C), positive, score).clear()
    window = rows.lazy().filter(buckets.within(first, last))  # type: ignore[arg-type]
    hashed = keys_hash(keys) if keys else None
    width = BUCKETS + 1
    slots = _slots(groups.get_column(_H)) if hashed is not None else None
    if hashed is not None and slots is None:  # many groups: each row's kept bucket by a join
        number = window.select(hashed.alias(_H), buckets.expr(), positive, score).join(
            kept.lazy().select(_H, _B, _K), on=[_H, _B]
        )
    else:  # the group's number from a table indexed by some bits of the hash, then the kept bucket's
        group = pl.lit(0, pl.UInt64)
        if hashed is not None and slots is not None:
            shift, size = slots
            table = pl.zeros(size, pl.UInt32, eager=True).scatter(
                (groups.get_column(_H) // (1 << shift)) % size, groups.get_column(_G)
            )
            slot = (hashed // (1 << shift) if shift else hashed) & pl.lit(size - 1, pl.UInt64)  # (size: 2^k)
            group = pl.lit(table).gather(slot).cast(pl.UInt64)
        numbers = pl.repeat(kept.height, groups.height * width, dtype=pl.UInt32, eager=True).scatter(
            kept.get_column(_G).cast(pl.UInt64) * width + kept.get_column(_B), kept.get_column(_K)
        )
        number = window.select(
            pl.lit(numbers).gather(group * width + buckets.expr()).alias(_K), positive, score
        ).filter(pl.col(_K) < kept.height)
    # (the part computed on the kept rows only, their bucket read off their kept bucket's number)
    part = buckets.part(PARTS, pl.lit(kept.get_column(_B)).gather(pl.col(_K)))
    # (on the streaming engine: a batch at a time, spread over the cores, no whole-window temporaries)
    return number.select((pl.col(_K) * PARTS + part).alias(_C), positive, score).collect(engine="streaming")


def _slots(hashes: pl.Series) -> tuple[int, int] | None:
    """(shift, size): ``hash // 2^shift % size`` differs between the (distinct) hashes, to index a
    table of ``size`` (a power of two, at most 2^20) slots by; None if no such bits are found."""
    bits = max(16, 2 * hashes.len().bit_length() + 2)
    if bits > 20:
        return None
    size = 1 << bits
    for shift in range(0, 65 - bits):
        if ((hashes // (1 << shift)) % size).n_unique() == hashes.len():
            return shift, size
    return None


def _best_points(
    found: pl.Series, keys: list[str], groups: pl.DataFrame, parts: pl.DataFrame,
    key_and_allowed: Callable[[Points], tuple[pl.Expr, pl.Expr]],
) -> pl.DataFrame:
    """Each group's best point from the packed keys of its kept parts' rows (``parts``: ``[_C, _G,
    _TP_ABOVE, _FP_ABOVE]``, one row per kept part, in the sorted keys' order)."""
    runs = found.sort(descending=True).rle().struct.unnest()
    value, n = pl.col("value"), pl.col("len").cast(pl.Int64)
    block = value // pl.lit(2, _BIG)  # the part and the score
    runs = runs.select(
        (value // pl.lit(1 << 65, _BIG)).rle_id().alias("_i"),  # the part's row of ``parts``
        _score((block % pl.lit(1 << 64, _BIG)).cast(pl.UInt64)).alias("threshold"),
        (block != block.shift(-1)).fill_null(True).alias("_end"),
        n.cum_sum().alias("_k"),
        pl.when((value % pl.lit(2, _BIG)) == 1).then(n).otherwise(0).cum_sum().alias("_tp"),
    )
    i, k, tp = pl.col("_i"), pl.col("_k"), pl.col("_tp")
    starts = (i != i.shift(1)).fill_null(True)

    def of_part(column: str) -> pl.Expr:
        return pl.lit(parts.get_column(column)).gather(i)

    tp_here = within_group(tp, starts)
    totals = groups.select(
        _G, pl.col("_P").cast(pl.Int64), (pl.col("_n") - pl.col("_P")).cast(pl.Int64).alias("_N")
    )
    points = runs.lazy().filter("_end").select(
        of_part(_G).alias(_G), "threshold", (tp_here + of_part(_TP_ABOVE)).alias("tp"),
        (within_group(k, starts) - tp_here + of_part(_FP_ABOVE)).alias("fp"),
    ).join(totals.lazy(), on=_G, how="left", maintain_order="left")
    tp, fp = pl.col("tp"), pl.col("fp")
    key, allowed = key_and_allowed(Points(pl.col("threshold"), tp, fp, pl.col("_P"), pl.col("_N")))
    top = pl.col("_key") == pl.col("_key").max()
    chosen = points.with_columns(key.alias("_key")).filter(allowed).group_by(_G).agg(
        pl.col("threshold").filter(top).first(), tp.filter(top).first(), fp.filter(top).first()
    )
    return groups.lazy().select(_G, *keys).join(totals.lazy(), on=_G).join(
        chosen, on=_G, how="left"
    ).drop(_G).collect()
