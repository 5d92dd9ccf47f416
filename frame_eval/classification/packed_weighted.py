"""The weighted curve points of many groups from one sort of packed 128-bit keys.

When the sample weights add up exactly in any order
(:func:`~frame_eval.classification.exact_weights.exact_sums`), each weight is a
whole number of units ``2^-k``, and every sum of them is that many units:
integers, which add up in any order to the same bits. So the weighted points
come from the unweighted path's one plain sort
(:mod:`~frame_eval.classification.packed_points`) with each row's units
packed into the key's lowest bits::

    group * 2^(65 + u) + down(score) * 2^(1 + u) + label * 2^u + units

(``u`` bits of units, ``63 - u`` of group numbers; ``down`` the score's order
turned round, so that the ascending sort puts each group's highest score
first). The group numbers count the groups in the keys' order (a join of every
row to the groups), or, for the areas, which need no order, they are the top
``63 - u`` bits of a hash of the keys when no two groups share them (a coarser
unit, the largest power of two dividing every weight, leaves more bits to the
hash when they do; the join when they still do). ``n max(w) 2^k < 2^53`` leaves
``u`` at most ``53 - log2(n)`` bits, so the numbers of the groups always fit.
The keys are made in one streaming pass, which also checks that every weight is
whole units (the bound, :func:`~frame_eval.classification.exact_weights.bounded_exponent`,
is checked before): a row whose weight is not gets a null key, and the caller
adds the weights in order instead. Sorted, the keys put each group's rows
together, scores descending; a run of equal keys is a number of rows of one
(group, score, label, units), its units the run's length times its units.
Running sums of those integers, read at the end of each score, are the points'
``tp`` and ``fp`` in units; times ``2^-k`` they are the sums of the weights
(exact: below ``2^53`` units). No row is moved with a payload; rows of weight
0 are left out, as scikit-learn leaves them out of its curves. Numbered by
the hash, the groups are listed while their keys are made and, where the work
can run at once, the rows go in two parts of whole groups (split at a row
sample's middle group), each part's keys made, sorted on one core and read on
a core of its own: every group's sums are those of one sort of all keys.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import polars as pl

from frame_eval._own_thread import FrameFunction, apart, side_by_side
from frame_eval.classification.packed_points import _G, keys_hash, within_group

__all__ = ["GROUP", "packed_weighted_points"]

GROUP: Final = _G  # the group numbers of the points

_BIG = pl.UInt128
_KEY_BITS: Final = 63  # bits of the key for the group number and the units together
_UNIT_BITS: Final = 51  # at most
_RUNS, _HASH, _PLACED, _KEPT = "__fe_runs", "__fe_hash", "__fe_placed", "__fe_kept"


def packed_weighted_points(
    rows: pl.DataFrame, keys: Sequence[str], positive: str, score: str, weight: str, exponent: int,
    *, with_score: bool = True, in_key_order: bool = True, then: FrameFunction | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """(``[GROUP, *keys]`` every group of ``rows``; ``[GROUP, <score>, tp, fp, _P, _N]`` one point per
    distinct score among the group's rows of weight above 0, each group's points together, threshold
    descending), or None when a weight above 0 is not a whole number of units ``2^-exponent`` (its sums
    could round: the caller adds them in order instead).

    ``tp`` / ``fp`` are the sums of the weights of the positive / negative rows scoring at least the
    point's threshold, ``_P`` / ``_N`` the group's totals (Float64). ``exponent`` is the ``k`` of
    :func:`~frame_eval.classification.exact_weights.bounded_exponent` (``n max(w) 2^k < 2^53``; whether
    every weight times ``2^k`` is a whole number is checked here, row by row, as the keys are made); the
    score column is left out with ``with_score=False``. With ``in_key_order`` the groups are numbered
    from 0 in the keys' order and their points come in that order; else a group's number is the top bits
    of a hash of its keys when no two groups share them (no join of every row to the groups), and the
    groups come in no set order. ``then``, when given, is applied to the points of each part of the
    groups (whole groups; the parts are measured side by side), and its results, put together, come
    in place of the points.
    """
    keys = list(keys)
    unit_bits = _unit_bits(rows, weight, exponent)
    if unit_bits is None:
        return None
    options = {"named": score if with_score else None, "then": then}
    if keys and not in_key_order:
        # numbered by the top bits of the keys' hash, as they are unless two groups share them: measured
        # while the groups are listed, and, where the work can run at once, in two parts of whole groups
        # of about as many rows, each made, sorted (on one core: less work in all than a sort on two) and
        # read on a core of its own
        guess = _Layout(pl.DataFrame(schema={GROUP: pl.UInt64}), _KEY_BITS - unit_bits, unit_bits, 0)
        parts = _parts(rows, keys, weight, guess) if apart(rows.height) else [None]
        *measures, groups = side_by_side([
            *(functools.partial(_measured, rows, keys, positive, score, weight, exponent, guess, part,
                                **options) for part in parts),
            functools.partial(_distinct, rows, keys),
        ], rows.height)
        layout = _Layout.of(rows, keys, weight, exponent, unit_bits, groups, in_key_order)
        if (layout.hash_bits, layout.shift) == (guess.hash_bits, guess.shift):
            return _together(layout.groups, measures)
    else:
        layout = _Layout.of(rows, keys, weight, exponent, unit_bits, None, in_key_order)
    measured = _measured(rows, keys, positive, score, weight, exponent, layout, None, **options)
    return _together(layout.groups, [measured])


def _together(
    groups: pl.DataFrame, measures: list[pl.DataFrame | None]
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    if any(measured is None for measured in measures):  # a weight that is not whole units
        return None
    return groups, measures[0] if len(measures) == 1 else pl.concat(measures)  # type: ignore[arg-type]


_Part = tuple[int | None, int | None]  # the rows whose group, in place in the key, is in [low, high)


def _measured(
    rows: pl.DataFrame, keys: list[str], positive: str, score: str, weight: str, exponent: int,
    layout: _Layout, part: _Part | None, *, named: str | None, then: FrameFunction | None,
) -> pl.DataFrame | None:
    """The points (the score column ``named``, or left out) of the part's groups (all without one), or
    ``then`` of them; None when a weight is not whole units."""
    packed = _keys(rows, keys, positive, score, weight, exponent, layout, part)
    if packed is None:
        return None
    runs = packed.sort(multithreaded=part is None).rle().struct.unnest()
    del packed  # (the keys let go once read as runs)
    points = _points(runs, layout, exponent, named)
    return points if then is None else then(points)


def _parts(rows: pl.DataFrame, keys: list[str], weight: str, layout: _Layout) -> list[_Part | None]:
    """Two parts of whole groups split at the group of the middle row of weight above 0 (estimated from
    every 1024th row), the lower groups first; ``[None]`` (all rows) when one would be empty."""
    sample = rows.gather_every(max(rows.height // 1024, 1)).filter(pl.col(weight) != 0)
    placed = sample.select(_placed(keys, layout).sort()).to_series()
    if placed.len() < 2:
        return [None]
    middle = placed[placed.len() // 2]
    boundary = middle if middle > placed[0] else middle + (1 << (64 - (_KEY_BITS - layout.unit_bits)))
    return [(None, boundary), (boundary, None)] if boundary <= placed[-1] else [None]


def _points(runs: pl.DataFrame, layout: _Layout, exponent: int, score: str | None) -> pl.DataFrame:
    """``[GROUP, <score>, tp, fp, _P, _N]`` of :func:`packed_weighted_points` from the runs of equal sorted
    keys (``[len, value]``; the score left out without a name)."""
    unit_bits = layout.unit_bits
    # a run of equal keys: its block (the group's number times 2^64 plus the score's order turned
    # round), its label and units
    value, block = pl.col("value"), pl.col("_block")
    low = (value % pl.lit(1 << (1 + unit_bits), _BIG)).cast(pl.UInt64)
    positives = low >= _power(unit_bits)
    added = (low % _power(unit_bits)).cast(pl.Int64) * pl.col("len").cast(pl.Int64)
    runs = runs.lazy().select(
        (value // pl.lit(1 << (1 + unit_bits), _BIG)).alias("_block"),
        pl.when(positives).then(added).otherwise(0).cum_sum().alias("tp"),
        pl.when(positives).then(0).otherwise(added).cum_sum().alias("fp"),
    )
    runs = runs.filter((block != block.shift(-1)).fill_null(True)).with_columns(  # each score's last run
        (block // pl.lit(1 << 64, _BIG)).cast(layout.groups.schema[GROUP]).alias(GROUP)
    )
    g = pl.col(GROUP)
    first, last = (g != g.shift(1)).fill_null(True), (g != g.shift(-1)).fill_null(True)

    def within(name: str) -> pl.Expr:  # the group's own running sum of units, as a double
        return within_group(pl.col(name), first).cast(pl.Float64)

    unit = 2.0 ** (layout.shift - exponent)  # a power of two: units times it are sums of weights, exactly
    down = (block % pl.lit(1 << 64, _BIG)).cast(pl.UInt64)
    points = runs.select(
        g, *([] if score is None else [_score_of_down(down).alias(score)]),
        (within("tp") * unit).alias("tp"), (within("fp") * unit).alias("fp"),
    ).with_columns(
        pl.when(last).then(pl.col("tp")).backward_fill().alias("_P"),
        pl.when(last).then(pl.col("fp")).backward_fill().alias("_N"),
    )
    return points.collect(engine="in-memory")


def _unit_bits(rows: pl.DataFrame, weight: str, exponent: int) -> int | None:
    """The bits of the largest weight's units, or None when more than 51 (:func:`_key` adds ``2^u`` to
    them below ``2^53``; ``n max(w) 2^k < 2^53`` leaves at most 51 for 2 rows or more)."""
    largest = rows.get_column(weight).max() if rows.height else None
    unit_bits = max(int(largest * 2.0**exponent).bit_length(), 1) if largest else 1  # type: ignore[operator]
    return unit_bits if unit_bits <= _UNIT_BITS else None


def _placed(keys: list[str], layout: _Layout) -> pl.Expr:
    """A row's group number by the top bits of its keys' hash, in place: times ``2^(64 - group bits)``."""
    group_bits = _KEY_BITS - layout.unit_bits
    return keys_hash(keys) & pl.lit(((1 << group_bits) - 1) << (64 - group_bits), pl.UInt64)


def _keys(
    rows: pl.DataFrame, keys: list[str], positive: str, score: str, weight: str, exponent: int,
    layout: _Layout, part: _Part | None = None,
) -> pl.Series | None:
    """The keys of the rows of weight above 0 (of the part's groups, numbered by their hash); None when a
    weight is not whole units (a null key)."""
    group_bits = _KEY_BITS - layout.unit_bits
    weighted, kept = rows.lazy(), pl.col(weight) != 0
    if layout.hash_bits:
        placed = _placed(keys, layout)
        if part is not None:  # (every row's hash made first: the rows are filtered, not their strings)
            weighted, placed = weighted.with_columns(placed.alias(_PLACED)), pl.col(_PLACED)
            low, high = part
            if low is not None:
                kept &= placed >= pl.lit(low, pl.UInt64)
            if high is not None:
                kept &= placed < pl.lit(high, pl.UInt64)
            weighted, kept = weighted.with_columns(kept.alias(_KEPT)), pl.col(_KEPT)
    elif keys:
        weighted = weighted.join(layout.groups.lazy(), on=keys, how="left", nulls_equal=True)
        placed = pl.col(GROUP).cast(pl.UInt64) * _power(64 - group_bits)
    else:
        placed = pl.lit(0, pl.UInt64)
    key = _key(placed, positive, score, weight, exponent - layout.shift, layout.unit_bits)
    # (the streaming engine makes the keys on every core, with fewer passes over memory)
    packed = weighted.filter(kept).select(key.alias(_RUNS)).collect(engine="streaming").get_column(_RUNS)
    return None if packed.null_count() else packed


def _power(bits: int) -> pl.Expr:
    return pl.lit(1 << bits, pl.UInt64)


_HALF: Final = 1 << 63
_FLOAT_WHOLE: Final = 2.0**52  # from here to 2^53 the doubles are the whole numbers
_FLOAT_WHOLE_BITS: Final = 0x4330000000000000  # its bits (a double of [2^52, 2^53): its bits less these)


def _key(placed: pl.Expr, positive: str, score: str, weight: str, exponent: int, unit_bits: int) -> pl.Expr:
    """A row's 128-bit key, ``placed`` its group's number already times ``2^(64 - group bits)``; null
    when the row's weight times ``2^exponent`` is not a whole number.

    The score's order is reversed (an ascending sort puts the highest score first): a double's bits
    read as an unsigned integer, the negative ones' in their order above the others', the others'
    turned round (-0.0 as 0.0). The label and the units are
    added in floating point: ``x = w 2^exponent`` (a whole number below ``2^u``) plus ``2^52``, plus
    ``2^u`` for a positive, lies in ``[2^52, 2^53)``, where the doubles are the whole numbers, so its
    bits less ``2^52``'s are ``label 2^u + x`` when ``x`` is whole; when it is not, the sum rounds, and
    taking the offset off again does not give ``x`` back.
    """
    group_bits = _KEY_BITS - unit_bits
    raw = pl.col(score).reinterpret(dtype=pl.UInt64)
    below = pl.lit(_HALF - 1, pl.UInt64)  # (the sign bit cleared: -0.0 as 0.0)
    down = pl.when(raw > _HALF).then(raw).otherwise(below - (raw & below))
    high = placed + down // _power(group_bits)
    offset = pl.when(pl.col(positive)).then(pl.lit(_FLOAT_WHOLE + 2.0**unit_bits)).otherwise(
        pl.lit(_FLOAT_WHOLE)
    )
    units = pl.col(weight) * 2.0**exponent
    shifted = units + offset
    low = (down % _power(group_bits)) * _power(1 + unit_bits) + (
        shifted.reinterpret(dtype=pl.UInt64) - pl.lit(_FLOAT_WHOLE_BITS, pl.UInt64)
    )
    low = pl.when(shifted - offset == units).then(low)
    return high.cast(_BIG) * pl.lit(1 << 64, _BIG) + low.cast(_BIG)


def _score_of_down(down: pl.Expr) -> pl.Expr:
    """The double of :func:`_key`'s reversed order."""
    raw = pl.when(down >= _HALF).then(down).otherwise(pl.lit(_HALF - 1, pl.UInt64) - down)
    return raw.reinterpret(dtype=pl.Float64)


@dataclass(frozen=True)
class _Layout:
    """How the key splits its 63 bits between the group number and the units of a weight."""

    groups: pl.DataFrame  # [GROUP, *keys], one row per group
    hash_bits: int  # bits of the keys' hash that number the groups, or 0 when they are numbered 0, 1, ...
    unit_bits: int
    shift: int  # the unit is 2^(shift - k)

    @classmethod
    def of(
        cls, rows: pl.DataFrame, keys: list[str], weight: str, exponent: int, unit_bits: int,
        groups: pl.DataFrame | None, in_key_order: bool,
    ) -> _Layout:
        """The layout of ``rows``' keys; ``groups`` their groups' keys (:func:`_distinct`), when listed."""
        shift = 0
        if keys and groups is None:
            groups = _distinct(rows, keys)
        if groups is not None and not in_key_order:
            hashes = groups.with_columns(keys_hash(keys).alias(_HASH))  # a value's hash: the rows' hash of it
            told_apart = _apart(hashes, _KEY_BITS - unit_bits)
            # if not, a coarser unit (the largest power of two dividing every weight): more hash bits
            if not told_apart:
                scaled = (pl.col(weight) * 2.0**exponent).cast(pl.UInt64)
                low = rows.select(scaled.bitwise_trailing_zeros().min()).item()  # (0 has 64 trailing zeros)
                shift = int(low) if low is not None and low < 64 else 0
                unit_bits = max(unit_bits - shift, 1)
                told_apart = shift > 0 and _apart(hashes, _KEY_BITS - unit_bits)
            if told_apart:
                bits = _KEY_BITS - unit_bits
                groups = hashes.select(_top(pl.col(_HASH), bits).alias(GROUP), *keys)
                return cls(groups, bits, unit_bits, shift)
        if groups is not None:  # numbered from 0 in the keys' order
            groups = groups.sort(keys).with_row_index(GROUP)
        else:
            groups = pl.DataFrame({GROUP: [0]}, schema={GROUP: pl.UInt32})
        # (n max(w) 2^k < 2^53 leaves the groups' numbers at least 10 bits more than the rows' number needs)
        assert max(groups.height - 1, 0).bit_length() + unit_bits <= _KEY_BITS
        return cls(groups, 0, unit_bits, shift)


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
