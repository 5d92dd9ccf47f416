"""The weighted curve points of many groups from one sort of packed 128-bit keys.

When the sample weights add up exactly in any order
(:func:`~frame_eval.classification.exact_weights.exact_sums`), each weight is a
whole number of units ``2^-k``, and every sum of them is that many units:
integers, which add up in any order to the same bits. So the weighted points
come from the unweighted path's one plain sort
(:mod:`~frame_eval.classification.packed_points`) with each row's units
packed into the key's lowest bits::

    group * 2^(65 + u) + order(score) * 2^(1 + u) + label * 2^u + units

(``u`` bits of units, ``63 - u`` of group numbers, counted down so that the
descending sort puts the groups in ascending order). The group numbers count
the groups in the keys' order (a join of every row to the groups), or, for
the areas, which need no order, they are the top ``63 - u`` bits of a hash of
the keys when no two groups share them (a coarser unit, the largest power of
two dividing every weight, leaves more bits to the hash when they do; the
join when they still do). ``n max(w) 2^k < 2^53`` leaves ``u`` at most
``53 - log2(n)`` bits, so the numbers of the groups always fit. Sorted
descending, the keys put each group's rows
together, scores descending; a run of equal keys is a number of rows of one
(group, score, label, units), its units the run's length times its units.
Running sums of those integers, read at the end of each score, are the points'
``tp`` and ``fp`` in units; times ``2^-k`` they are the sums of the weights
(exact: below ``2^53`` units). No row is moved with a payload; rows of weight
0 are left out, as scikit-learn leaves them out of its curves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import polars as pl

from frame_eval.classification.packed_points import _G, _order, _score, keys_hash, within_group

__all__ = ["GROUP", "packed_weighted_points"]

GROUP: Final = _G  # the group numbers of the points

_BIG = pl.UInt128
_KEY_BITS: Final = 63  # bits of the key for the group number and the units together
_RUNS, _HASH = "__fe_runs", "__fe_hash"


def packed_weighted_points(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str, weight: str, exponent: int,
    *, with_score: bool = True, in_key_order: bool = True,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(``[GROUP, *keys]`` every group of ``rows``; ``[GROUP, <score>, tp, fp, _P, _N]`` one point per
    distinct score among the group's rows of weight above 0, each group's points together, threshold
    descending).

    ``tp`` / ``fp`` are the sums of the weights of the positive / negative rows scoring at least the
    point's threshold, ``_P`` / ``_N`` the group's totals (Float64). ``exponent`` is the ``k`` of
    :func:`~frame_eval.classification.exact_weights.unit_exponent` (every weight times ``2^k`` a whole
    number, ``n max(w) 2^k < 2^53``); the score column is left out with ``with_score=False``. With
    ``in_key_order`` the groups are numbered from 0 in the keys' order and their points come in that
    order; else a group's number is the top bits of a hash of its keys when no two groups share them
    (no join of every row to the groups), and the groups come in no set order.
    """
    keys = list(keys)
    w = pl.col(weight)
    layout = _Layout.of(rows, keys, weight, exponent, in_key_order)
    weighted = rows.lazy().filter(w != 0)
    if layout.hash_bits:
        weighted = weighted.with_columns(_top(keys_hash(keys), layout.hash_bits).alias(GROUP))
    elif keys:
        weighted = weighted.join(layout.groups.lazy(), on=keys, how="left", nulls_equal=True)
    else:
        weighted = weighted.with_columns(pl.lit(0, pl.UInt32).alias(GROUP))
    unit_bits, top = layout.unit_bits, layout.top
    group_bits = _KEY_BITS - unit_bits

    def power(bits: int) -> pl.Expr:
        return pl.lit(1 << bits, pl.UInt64)

    units = (w * 2.0**exponent).cast(pl.UInt64) // power(layout.shift)
    rank = _order(pl.col(score))
    label = pl.col(positive).cast(pl.UInt64)
    # the group counted down from the largest number, so that the descending sort puts the groups in
    # ascending order; the key's top 64 bits and its bottom 64 bits made apart (cheaper than 128-bit sums)
    counted_down = pl.lit(top, pl.UInt64) - pl.col(GROUP).cast(pl.UInt64)
    top_half = counted_down * power(64 - group_bits) + rank // power(group_bits)
    bottom_half = (rank % power(group_bits)) * power(1 + unit_bits) + label * power(unit_bits) + units
    key = top_half.cast(_BIG) * pl.lit(1 << 64, _BIG) + bottom_half.cast(_BIG)
    packed = weighted.select(key.alias(_RUNS)).collect().get_column(_RUNS).drop_nulls()  # (nulls: refused)
    runs = packed.sort(descending=True).rle().struct.unnest()
    # the key's halves again: the group and the top bits of the score's order; the rest of the order, the
    # label and the units
    value = pl.col("value")
    runs = runs.select(
        (value // pl.lit(1 << 64, _BIG)).cast(pl.UInt64).alias("_hi"),
        (value % pl.lit(1 << 64, _BIG)).cast(pl.UInt64).alias("_lo"),
        pl.col("len").cast(pl.Int64),
    )
    high, low = pl.col("_hi"), pl.col("_lo")
    order_low = low // power(1 + unit_bits)
    positives = (low // power(unit_bits)) % 2 == 1
    added = (low % power(unit_bits)).cast(pl.Int64) * pl.col("len")
    number = pl.lit(top, pl.UInt64) - high // power(64 - group_bits)
    order = (high % power(64 - group_bits)) * power(group_bits) + order_low
    runs = runs.select(
        number.cast(layout.groups.schema[GROUP]).alias(GROUP),
        *([order.alias(score)] if with_score else []),
        ((high != high.shift(-1)) | (order_low != order_low.shift(-1))).fill_null(True).alias("_end"),
        pl.when(positives).then(added).otherwise(0).cum_sum().alias("tp"),
        pl.when(positives).then(0).otherwise(added).cum_sum().alias("fp"),
    )
    g = pl.col(GROUP)
    first, last = (g != g.shift(1)).fill_null(True), (g != g.shift(-1)).fill_null(True)

    def within(name: str) -> pl.Expr:  # the group's own running sum of units, as a double
        return within_group(pl.col(name), first).cast(pl.Float64)

    unit = 2.0 ** (layout.shift - exponent)  # a power of two: units times it are sums of weights, exactly
    points = runs.filter("_end").select(
        g, *([_score(pl.col(score)).alias(score)] if with_score else []),
        (within("tp") * unit).alias("tp"), (within("fp") * unit).alias("fp"),
    )
    points = points.with_columns(
        pl.when(last).then(pl.col("tp")).backward_fill().alias("_P"),
        pl.when(last).then(pl.col("fp")).backward_fill().alias("_N"),
    )
    return layout.groups, points


@dataclass(frozen=True)
class _Layout:
    """How the key splits its 63 bits between the group number and the units of a weight."""

    groups: pl.DataFrame  # [GROUP, *keys], one row per group
    top: int  # the largest possible group number
    hash_bits: int  # bits of the keys' hash that number the groups, or 0 when they are numbered 0, 1, ...
    unit_bits: int
    shift: int  # the unit is 2^(shift - k)

    @classmethod
    def of(
        cls, rows: pl.DataFrame, keys: list[str], weight: str, exponent: int, in_key_order: bool
    ) -> _Layout:
        largest = rows.get_column(weight).max() if rows.height else None
        unit_bits = max(int(largest * 2.0**exponent).bit_length(), 1) if largest else 1  # type: ignore[operator]
        shift = 0
        groups = _distinct(rows, keys) if keys else None
        if groups is not None and not in_key_order:
            hashes = groups.with_columns(keys_hash(keys).alias(_HASH))  # a value's hash: the rows' hash of it
            apart = _apart(hashes, _KEY_BITS - unit_bits)
            if not apart:  # a coarser unit (the largest power of two dividing every weight): more hash bits
                scaled = (pl.col(weight) * 2.0**exponent).cast(pl.UInt64)
                low = rows.select(scaled.bitwise_trailing_zeros().min()).item()  # (0 has 64 trailing zeros)
                shift = int(low) if low is not None and low < 64 else 0
                unit_bits = max(unit_bits - shift, 1)
                apart = shift > 0 and _apart(hashes, _KEY_BITS - unit_bits)
            if apart:
                bits = _KEY_BITS - unit_bits
                groups = hashes.select(_top(pl.col(_HASH), bits).alias(GROUP), *keys)
                return cls(groups, (1 << bits) - 1, bits, unit_bits, shift)
        if groups is not None:  # numbered from 0 in the keys' order
            groups = groups.sort(keys).with_row_index(GROUP)
        else:
            groups = pl.DataFrame({GROUP: [0]}, schema={GROUP: pl.UInt32})
        top = max(groups.height - 1, 0)
        # (n max(w) 2^k < 2^53 leaves the groups' numbers at least 10 bits more than the rows' number needs)
        assert top.bit_length() + unit_bits <= _KEY_BITS
        return cls(groups, top, 0, unit_bits, shift)


def _distinct(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``[*keys]``, each group's once (one key column: its distinct values, cheaper than a group-by)."""
    if len(keys) == 1:
        return rows.get_column(keys[0]).unique().to_frame()
    return rows.lazy().group_by(keys).agg().collect()


def _top(hashes: pl.Expr, bits: int) -> pl.Expr:
    """The top ``bits`` of 64-bit hashes."""
    return hashes // (1 << (64 - bits))


def _apart(groups: pl.DataFrame, bits: int) -> bool:
    """Whether the top ``bits`` of the groups' hashes tell every group apart."""
    return not groups.select(_top(pl.col(_HASH), bits).is_duplicated().any()).item()
