"""Quantile calibration bins of every group from counts of value buckets, sorting only a few rows.

Quantile edges are order statistics of each group's probabilities: at an inner
level ``q``, ``np.percentile`` reads the values of ranks ``lower = floor((n - 1)
q)`` and ``min(lower + 1, n - 1)`` (0-based, ascending) and interpolates between
them (:func:`~frame_eval.classification.calibration.bin_edges`). A probability in
[0, 1] is a non-negative double (-0.0 taken as 0.0) whose bits are in the same
order as its value; the top bits of those (sign, exponent and the fraction's
first ``_K`` bits) number its *bucket*: buckets are ranges of values, in order,
and all values of one bucket share their exponent. So, with no sort of every row:

- one group-by of every row by (group, bucket) counts each bucket's rows and
  positives and adds the 26-bit halves of its values' fractions (the parts of
  their exact sum, see :mod:`frame_eval._exact_sum`);
- the buckets in order, their running counts place every rank: the buckets that
  hold the ranks the edges need (two per level at most) are found by one binary
  search, and only their rows are taken again (a filter and a join) and sorted;
  the edges are read off them;
- a bucket that holds no edge lies in one bin (every edge is below all its values
  or above them) and adds its counts and parts to that bin; the rows of a bucket
  that holds an edge find their bins one by one. Those rows were taken already:
  an edge lies between two neighbouring values, and a bucket strictly between
  theirs holds no rows;
- each (group, bin)'s parts give its exact mean, rounded once
  (:func:`~frame_eval._exact_sum.part_means`).

Same edges, bins and exact sums as the per-group path: the same values. Many
equal values (or a narrow range) put many rows in the few buckets taken again:
slower, never different.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from frame_eval._exact_sum import fraction_halves, part_means
from frame_eval._float import positive_zero
from frame_eval._own_thread import on_own_thread
from frame_eval.classification.counts import ratio
from frame_eval.classification.packed_points import keys_hash

__all__ = ["bin_means", "quantile_bins"]

_K = 5  # fraction bits in a bucket's number, beside the sign and exponent (a module value: tests change it)
_NAMES: Final = ("group", "bucket", "bits", "y", "at", "edge")
_G, _B, _BITS, _Y, _AT, _EDGE = (f"__fe_qb_{n}" for n in _NAMES)
# the columns of bin_means' parts (and the uniform bins' place, bin * 4096 + top 12 bits)
_PARTS: Final = ("rows", "pos", "high", "low", "bin", "top", "place")
N, POS, HIGH, LOW, BIN, TOP, PLACE = (f"__fe_qb_{n}" for n in _PARTS)
_U64: Final = pl.UInt64
_BIG: Final = pl.UInt128
_HALF: Final = (1 << 26) - 1


def _lit(value: int) -> pl.Expr:
    return pl.lit(value, _U64)


def _bucket(bits: pl.Expr) -> pl.Expr:
    """The bucket of a value's bits (UInt64): its top ``12 + _K`` bits (below 2^32)."""
    return bits // _lit(1 << (52 - _K))


def bin_sums(bits: pl.Expr, positive: str) -> list[pl.Expr]:
    """Aggregations: rows, positives (the Boolean column ``positive``) and the two 26-bit halves of the
    fractions of the values whose bits are ``bits`` (the parts :func:`bin_means` reads)."""
    high, low = fraction_halves(bits)
    return [
        pl.len().cast(pl.Int64).alias(N), pl.col(positive).sum().cast(pl.Int64).alias(POS),
        high.sum().alias(HIGH), low.sum().alias(LOW),
    ]


def _edge(a: pl.Expr, b: pl.Expr, gamma: pl.Expr) -> pl.Expr:
    """``np.percentile``'s linear interpolation between neighbouring values ``a <= b`` (``bin_edges``'
    formula: ``b + (-x)`` and ``a - (-x)`` keep polars from fusing the multiply and add)."""
    gap = b - a
    return pl.when(gamma >= 0.5).then(b + (-(gap * (1.0 - gamma)))).otherwise(a - (-(gap * gamma)))


def _ranks(rows: pl.Expr, level: float) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``np.percentile``'s two ranks (0-based, ascending) at ``level`` in a group of ``rows`` values, and
    the weight ``gamma`` of the higher one."""
    last = rows - 1
    virtual = last.cast(pl.Float64) * (level * 100.0 / 100.0)
    below = virtual.floor()
    lower = below.cast(pl.Int64).clip(0, last)
    return lower, (lower + 1).clip(0, last), virtual - below


def _taken(frame: pl.DataFrame, keys: list[str], groups: pl.DataFrame, buckets: pl.DataFrame,
           kept: pl.DataFrame) -> tuple[pl.Series, pl.DataFrame]:
    """The rows of the ``kept`` buckets as ``block * 2^64 + bits * 2 + label`` (UInt128), sorted, and
    ``kept`` in the order of its ``block`` (a column added: the blocks' rows come in that order).

    A bucket's block is its group's hash xor the bucket, when no two of the non-empty ``buckets``
    (``[_G, _B]``, every group's) share it; else (or when the rows found are not the buckets' counts)
    the group's number times 2^32 xor the bucket, the rows numbered by a join on the keys: slower, the
    same result."""
    bits = pl.col(_BITS)
    low = (bits * _lit(2) + pl.col(_Y).cast(_U64)).cast(_BIG)

    def rows_of(blocks: pl.DataFrame, rows: pl.LazyFrame) -> tuple[pl.Series, pl.DataFrame]:
        found = kept.join(blocks, on=_G).with_columns(pl.col("block").xor(pl.col(_B))).sort("block")
        block = pl.col("block").xor(_bucket(bits))
        packed = rows.filter(block.is_in(found.get_column("block").implode())).select(
            (block.cast(_BIG) * pl.lit(1 << 64, _BIG) + low).alias("key")
        )
        return packed.collect().get_column("key").sort(), found

    hashed = groups.select(_G, keys_hash(keys).alias("block"))
    blocks = buckets.join(hashed, on=_G).select(pl.col("block").xor(pl.col(_B)))
    if blocks.get_column("block").n_unique() == blocks.height:
        taken, found = rows_of(hashed, frame.lazy().select(keys_hash(keys).alias("block"), _Y, _BITS))
        if taken.len() == found.get_column(N).sum():
            return taken, found
    numbered = groups.select(*keys, _G, (pl.col(_G).cast(_U64) * _lit(1 << 32)).alias("block"))
    rows = frame.lazy().join(numbered.lazy().drop(_G), on=keys, how="left", nulls_equal=True)
    return rows_of(numbered.select(_G, "block"), rows)


def _pieces(hist: pl.DataFrame, groups: pl.DataFrame, frame: pl.DataFrame, keys: list[str],
            levels: Sequence[float]) -> pl.DataFrame:
    """``[_G, BIN, TOP, N, POS, HIGH, LOW]``: the parts of every non-empty (group, bin), from the
    buckets ``hist`` (every group's in order, groups in order: a bucket's rows come after ``_AT`` rows
    of all groups) and the rows of the few that hold ranks the edges need."""
    # each rank an edge needs, as a place among all groups' values in order, and the bucket holding it
    needs = pl.concat([
        groups.select(
            _G, pl.lit(m, pl.Int64).alias("level"), (pl.col(_AT) + lower).alias("lo"),
            (pl.col(_AT) + upper).alias("hi"), gamma.alias("gamma"),
        )
        for m, (lower, upper, gamma) in enumerate(_ranks(pl.col(N), level) for level in levels)
    ])
    ends = hist.get_column(_AT) + hist.get_column(N)
    needs = needs.with_columns(
        ends.search_sorted(needs.get_column(side), side="right").alias(f"{side}_row") for side in ("lo", "hi")
    )
    wanted = pl.concat([needs.get_column("lo_row"), needs.get_column("hi_row")]).unique().sort()
    # those buckets' rows, sorted: each bucket's first at "taken"; the edges read off them
    taken, kept = _taken(frame, keys, groups, hist.select(_G, _B), hist.select("row", _G, _B, _AT, N)[wanted])
    kept = kept.with_columns((pl.col(N).cum_sum() - pl.col(N)).alias("taken"))
    low = taken.cast(_U64, wrap_numerical=True)  # bits * 2 + label
    value = (pl.col("low") // _lit(2)).reinterpret(dtype=pl.Float64)
    at = kept.select("row", _AT, "taken")
    for side in ("lo", "hi"):
        found = at.rename({"row": f"{side}_row", _AT: f"{side}_at", "taken": f"{side}_taken"})
        needs = needs.join(found, on=f"{side}_row").with_columns(
            (pl.col(f"{side}_taken") + pl.col(side) - pl.col(f"{side}_at")).alias(side)
        )
    a, b = (low.gather(needs.get_column(s)).to_frame("low").select(value).to_series() for s in ("lo", "hi"))
    edges = needs.select(_G, "level", _edge(pl.lit(a), pl.lit(b), pl.col("gamma")).alias(_EDGE))
    edges = edges.with_columns(_bucket(positive_zero(pl.col(_EDGE)).reinterpret(dtype=_U64)).alias(_B))
    # a bucket without an edge lies in one bin: as many edges lie in buckets below it as below its values
    bucket_at = [f"{_B}_{m}" for m in range(len(levels))]
    below = edges.pivot("level", index=_G, values=_B, sort_columns=True).rename(
        {str(m): c for m, c in enumerate(bucket_at)}
    )
    placed = hist.join(below, on=_G).with_columns(
        pl.sum_horizontal(pl.col(c) < pl.col(_B) for c in bucket_at).cast(pl.Int64).alias(BIN),
        pl.any_horizontal(pl.col(c) == pl.col(_B) for c in bucket_at).alias("split"),
    )
    top = (pl.col(_B) // (1 << _K)).cast(pl.Int64).alias(TOP)
    whole = placed.filter(~pl.col("split")).select(_G, BIN, top, N, POS, HIGH, LOW)
    # a bucket holding edges (one of those taken: an edge lies between two neighbouring values, and a
    # bucket strictly between theirs has no rows) is cut where each edge's values end; each piece's
    # sums are differences of running sums over the taken rows (one exponent in a bucket)
    split = kept.join(placed.filter("split").select("row", BIN), on="row")
    needles = edges.join(split.select(_G, _B, "block"), on=[_G, _B]).select(
        "block", (pl.col("block").cast(_BIG) * pl.lit(1 << 64, _BIG)
                  + (positive_zero(pl.col(_EDGE)).reinterpret(dtype=_U64) * _lit(2) + _lit(1)).cast(_BIG)
                  ).alias("needle"),
    )
    cuts = needles.select(
        "block", taken.search_sorted(needles.get_column("needle"), side="right").cast(pl.Int64).alias("at")
    )
    points = pl.concat([
        split.select("block", pl.col("taken").alias("at")), cuts,
        split.select("block", (pl.col("taken") + pl.col(N)).alias("at")),
    ]).sort("block", "at")
    pieces = points.with_columns(
        pl.col("at").shift(-1).over("block").alias("end"),
        pl.int_range(pl.len()).over("block").alias("piece"),
    ).drop_nulls("end").join(split.select("block", _G, _B, BIN), on="block")
    bits = low // 2
    running = pl.DataFrame({POS: low % 2, HIGH: (bits // (1 << 26)) & _HALF, LOW: bits & _HALF})
    running = pl.concat([running.head(1).clear(1).fill_null(0), running.select(pl.all().cum_sum())])
    start, end = pieces.get_column("at"), pieces.get_column("end")
    cut = pieces.select(
        _G, (pl.col(BIN) + pl.col("piece")).alias(BIN), top, (pl.col("end") - pl.col("at")).alias(N),
        *((running.get_column(c).gather(end) - running.get_column(c).gather(start)).alias(c)
          for c in (POS, HIGH, LOW)),
    ).filter(pl.col(N) > 0)
    return pl.concat([whole, cut], how="vertical_relaxed")


def bin_means(parts: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``[*by, bin, count, mean_predicted, fraction_positive]`` of every (group, bin) of ``parts``
    (``[*by, BIN, TOP, N, POS, HIGH, LOW]``: rows, positives and fraction halves of values
    sharing their top 12 bits ``TOP``; a (group, bin) may have several), sorted; each mean the exact
    sum of its values over its rows, rounded once (:func:`~frame_eval._exact_sum.part_means`): the parts
    of a (group, bin) that share their top bits added first (integer sums, exact), so that Python reads
    one part per (group, bin, top bits), not one per bucket."""
    parts = parts.group_by([*by, BIN, TOP]).agg(pl.col(N, POS, HIGH, LOW).sum())
    parts = parts.sort([*by, BIN]).with_columns(pl.struct(*by, BIN).rle_id().alias("pair"))
    pairs = parts.group_by("pair").agg(
        *(pl.col(c).first() for c in (*by, BIN)), pl.col(N).sum(), pl.col(POS).sum()
    ).sort("pair")
    means = part_means(pairs.height, *(parts.get_column(c).to_list() for c in ("pair", TOP, HIGH, LOW, N)))
    return pairs.select(
        *by, pl.col(BIN).alias("bin"), pl.col(N).alias("count"),
        pl.Series("mean_predicted", means, dtype=pl.Float64),
        ratio(pl.col(POS), pl.col(N)).alias("fraction_positive"),
    )


def quantile_bins(
    scored: pl.LazyFrame, keys: Sequence[str], positive: str, prob: str, levels: Sequence[float]
) -> pl.LazyFrame:
    """``[*keys, bin, count, mean_predicted, fraction_positive]`` of every non-empty quantile bin
    (``levels`` the inner levels, ascending), in no set order.

    ``scored`` holds the keys, a Boolean ``positive`` column and a Float64 ``prob`` column, checked
    already (no nulls or NaN, values in [0, 1]).
    """
    keys = list(keys)
    schema = scored.select(keys).collect_schema()
    out_schema = {**schema, "bin": pl.Int64, "count": pl.Int64, "mean_predicted": pl.Float64,
                  "fraction_positive": pl.Float64}

    def run(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        group_keys = keys or ["__fe_qb_all"]
        frame = df.select(
            *(keys or [pl.lit(0, pl.UInt8).alias(group_keys[0])]), pl.col(positive).alias(_Y),
            positive_zero(pl.col(prob)).reinterpret(dtype=_U64).alias(_BITS),
        )
        bits = pl.col(_BITS)
        hist = frame.lazy().group_by(*group_keys, _bucket(bits).alias(_B)).agg(*bin_sums(bits, _Y))
        hist = hist.sort([*group_keys, _B]).collect().with_row_index("row").with_columns(
            pl.struct(group_keys).rle_id().alias(_G), (pl.col(N).cum_sum() - pl.col(N)).alias(_AT),
        )
        groups = hist.group_by(_G).agg(
            pl.col(_AT).first(), pl.col(N).sum(), *(pl.col(k).first() for k in group_keys)
        ).sort(_G)
        parts = _pieces(hist, groups, frame, group_keys, levels)
        out = bin_means(parts, [_G]).join(groups.select(_G, *group_keys), on=_G)
        return out.select(*keys, "bin", "count", "mean_predicted", "fraction_positive")

    return scored.select(*keys, positive, prob).map_batches(on_own_thread(run), schema=out_schema)
