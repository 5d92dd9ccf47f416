"""Quantile calibration bins of every group from one sort of packed 128-bit keys.

Quantile edges are order statistics of each group's probabilities, so each
group's values must be in order. A ``group_by(...).agg(p.sort())`` builds a
list per group and sorts each (and the rows must then be joined to their
group's edges to find their bins). Here each row becomes one unsigned
128-bit key, ``group * 2^64 + bits(p) * 2 + label`` (``group`` a 64-bit hash
of the group's keys; a probability in [0, 1] is a non-negative double, whose
bits are in the same order as its value, below 2^62), and one plain sort
lays every group's probabilities out in ascending order, labels beside them.
Then, with no join:

- the edges: each group's values at ``np.percentile``'s two indices per
  level, interpolated as :func:`~frame_eval.classification.calibration.bin_edges` does;
- the bins: a value's bin counts the inner edges strictly below it, so in a
  sorted group the rows of bin ``b`` or above start where the values above
  edge ``b - 1`` start (one binary search per group and edge); a running
  count of these starts over the sorted rows gives every row's bin;
- the means: :func:`~frame_eval._exact_sum.exact_means` per (group, bin).

Same edges, bins and exact sums as the per-group path: the same values.
Groups whose keys share a hash are numbered exactly instead (a join of the
rows to the group table), so a collision costs time, never a wrong number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

from frame_eval._exact_sum import Mean, exact_means
from frame_eval._float import positive_zero
from frame_eval._own_thread import on_own_thread
from frame_eval.classification.counts import ratio
from frame_eval.classification.packed_points import keys_hash

__all__ = ["quantile_bins"]

_G, _K, _P, _Y, _BIN = "__fe_qb_group", "__fe_qb_key", "__fe_qb_p", "__fe_qb_y", "__fe_qb_bin"
_N = "__fe_qb_rows"
_BIG: Final = pl.UInt128
_LOW: Final = 1 << 64


def _edges(values: pl.Series, first: pl.Series, rows: pl.Series, level: float) -> pl.Series:
    """Each group's edge at ``level`` (``np.percentile``'s linear method, ``bin_edges``' formula): the
    group's sorted values are ``values[first : first + rows]``."""
    last = rows.cast(pl.Int64) - 1
    virtual = last.cast(pl.Float64) * (level * 100.0 / 100.0)
    below = virtual.floor()
    lower = below.cast(pl.Int64).clip(0, last)
    upper = (lower + 1).clip(0, last)
    a, b = values.gather(first + lower), values.gather(first + upper)
    gamma, gap = virtual - below, b - a
    frame = pl.DataFrame({"a": a, "b": b, "gamma": gamma, "gap": gap})
    return frame.select(
        pl.when(pl.col("gamma") >= 0.5).then(pl.col("b") + (-(pl.col("gap") * (1.0 - pl.col("gamma")))))
        .otherwise(pl.col("a") - (-(pl.col("gap") * pl.col("gamma"))))
    ).to_series()


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
        if keys:
            hashed = df.select(*keys, keys_hash(keys).alias(_G), positive, prob)
            table = hashed.group_by(keys).agg(pl.col(_G).first(), pl.len().cast(pl.Int64).alias(_N))
            if table[_G].n_unique() < table.height:  # keys sharing a hash: number the groups exactly
                table = table.drop(_G).with_row_index(_G).with_columns(pl.col(_G).cast(pl.UInt64))
                hashed = df.join(table.drop(_N), on=keys, how="left", nulls_equal=True)
        else:
            table = pl.DataFrame({_G: [0], _N: [df.height]}, schema={_G: pl.UInt64, _N: pl.Int64})
            hashed = df.with_columns(pl.lit(0, pl.UInt64).alias(_G))
        table = table.sort(_G)  # the groups in the order the sort lays them out
        bits = positive_zero(pl.col(prob)).reinterpret(dtype=pl.UInt64)  # -0.0 sorts as 0.0
        low = bits * pl.lit(2, pl.UInt64) + pl.col(positive).cast(pl.UInt64)
        packed = hashed.select((pl.col(_G).cast(_BIG) * pl.lit(_LOW, _BIG) + low.cast(_BIG)).alias(_K))
        ordered = packed.get_column(_K).sort()
        low_bits = ordered.cast(pl.UInt64, wrap_numerical=True).to_frame(_K)  # bits(p) * 2 + label
        values = low_bits.select((pl.col(_K) // pl.lit(2, pl.UInt64)).reinterpret(dtype=pl.Float64))
        values = values.to_series()
        counts = table.get_column(_N)
        first = counts.cum_sum() - counts
        group_keys = table.get_column(_G).cast(_BIG) * pl.lit(_LOW, _BIG)
        # where each group's rows of bin b + 1 or above start: after its values up to edge b
        starts = []
        for level in levels:
            edge = _edges(values, first, counts, level).to_frame("e")
            edge_bits = edge.select(positive_zero(pl.col("e")).reinterpret(dtype=pl.UInt64)).to_series()
            needle = group_keys + (edge_bits * 2 + 1).cast(_BIG)
            starts.append(ordered.search_sorted(needle, side="right"))
        # a row's place (group g, bin b) as one number, g * n_bins + b: the starts at or before the row
        # (every group's lie within its rows or at the next group's first row: g * (n_bins - 1) of them
        # before group g), plus one at each group's first row
        n_bins, n = len(levels) + 1, table.height
        moves = pl.DataFrame({
            "at": pl.concat([*(s.cast(pl.Int64) for s in starts), first.slice(1)]),
        }).group_by("at").agg(pl.len().cast(pl.Int64).alias("by"))
        marks = pl.zeros(ordered.len() + 1, dtype=pl.Int64, eager=True).scatter(moves["at"], moves["by"])
        binned = pl.DataFrame({
            _BIN: marks.head(ordered.len()).cum_sum(), _P: values,
            _Y: (low_bits.get_column(_K) % 2).cast(pl.Int64),
        })
        means = exact_means(
            binned.lazy(), [_BIN], {"mean_predicted": Mean(pl.col(_P))}, count="count",
            sums={"_k": pl.col(_Y)},
        ).collect()
        place = pl.col(_BIN)
        means = means.with_columns((place // n_bins).alias(_N), (place % n_bins).alias("bin"))
        fraction = ratio(pl.col("_k"), pl.col("count")).alias("fraction_positive")
        groups = table.select(*keys, pl.int_range(pl.len(), dtype=pl.Int64).alias(_N))
        assert means.height == 0 or means.get_column(_N).max() < n  # (every row in one of the groups)
        return groups.join(means, on=_N, how="inner").select(
            *keys, "bin", "count", "mean_predicted", fraction
        )

    return scored.select(*keys, positive, prob).map_batches(on_own_thread(run), schema=out_schema)
