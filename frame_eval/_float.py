"""Floating-point arithmetic in the reference implementations' order, with the same bits.

Polars' own float reductions do not promise an order: ``sum`` and ``mean``
add in blocks whose layout depends on the thread count, the engine and the
row order, so the last bits of a sum can change from call to call. Polars
also divides by a literal by multiplying with its reciprocal, so
``7 / 10`` comes out as ``0.7000000000000001``; and its ``log(2)`` is not
the C library's ``log2``. trec_eval and pytrec_eval add term after term in
rank order, divide once, and call ``log2``; these helpers do the same:

- :func:`ordered_sum` sorts the terms by a key and adds them one after the
  other (a cumulative sum), whatever order the rows arrive in;
- :func:`divide` divides by a constant with IEEE division;
- :func:`log2` looks the logarithm up in a table made with :func:`math.log2`
  (the C library's), so discounts have trec_eval's bits;
- :func:`pairwise_sum` adds as NumPy's ``np.sum`` does (scikit-learn's order).

NumPy's ``np.sum`` of a float64 array (``np.add.reduce``, also inside
``np.mean``, ``np.average``, ``np.trapezoid`` and SciPy's ``trapezoid``)
adds pairwise (``pairwise_sum`` in ``numpy/_core/src/umath/loops_utils.h.src``),
starting from the identity ``0.0``:

- fewer than 8 values: one after the other, from ``-0.0``;
- 8 to 128 values: eight running sums, the i-th over values ``i, i + 8,
  i + 16, ...`` of the whole rows of eight, combined as
  ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the last
  ``n % 8`` values added one by one;
- more: the sum of the first ``n2`` values plus the sum of the rest, each
  by the same rule, where ``n2`` is ``n // 2`` rounded down to a multiple of 8.

The tree depends only on ``n``, so :func:`pairwise_sum` works the leaves out
from ``n`` (integer arithmetic, one step per block of at least 64 values),
then adds the values with vectorised polars operations: one gather per row
of eight, one pairwise step per level of the tree.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Mapping, Sequence
from typing import Final

import polars as pl

from frame_eval._own_thread import on_own_thread, side_by_side

__all__ = [
    "divide", "frame_pairwise_sums", "log2", "numpy_sum", "numpy_sums", "ordered_sum", "pairwise_sum",
    "pairwise_sums", "positive_zero", "powers", "row_sum",
]


def ordered_sum(terms: pl.Expr, order: pl.Expr | None = None) -> pl.Expr:
    """The sum of ``terms`` added one by one in ascending ``order`` (0.0 when there are none).

    With ``order=None`` the terms are taken as they come, for callers that
    already sorted them. Equal keys keep their relative order, so the key
    should be unique (a rank, a position) for the result to be independent
    of the input's row order.

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [0.1, 0.2, 0.3], "r": [1, 2, 3]})
    >>> df.select(ordered_sum(pl.col("x"), pl.col("r"))).item()  # (0.1 + 0.2) + 0.3
    0.6000000000000001
    >>> df.select(ordered_sum(pl.col("x"), -pl.col("r"))).item()  # (0.3 + 0.2) + 0.1
    0.6
    """
    ordered = terms if order is None else terms.sort_by(order)
    return ordered.cast(pl.Float64).cum_sum().last().fill_null(0.0)


def divide(numerator: pl.Expr, denominator: float | pl.Expr) -> pl.Expr:
    """``numerator / denominator`` for a constant or one-value ``denominator``, correctly rounded.

    Polars turns division by a literal, or of a column by a single value (an
    aggregate such as ``pl.col("x").max()``), into multiplication by the
    reciprocal; dividing by a column that holds the value on every row keeps
    IEEE division (``7 / 10 == 0.7``, ``9 / 14 == 0.6428571428571429``).

    >>> import polars as pl
    >>> pl.DataFrame({"n": [7]}).select(divide(pl.col("n"), 10)).item()
    0.7
    >>> df = pl.DataFrame({"n": [9, 1], "d": [14, 2]})
    >>> df.select(divide(pl.col("n"), pl.col("d").max()))["n"].to_list()
    [0.6428571428571429, 0.07142857142857142]
    """
    value = denominator.cast(pl.Float64) if isinstance(denominator, pl.Expr) else float(denominator)
    spread = numerator.cast(pl.Float64) * 0.0 + value
    return numerator.cast(pl.Float64) / spread


class _Log2Table:
    """``math.log2(i)`` for integers ``i``, grown on demand and shared by every thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values = self._make(1 << 12)

    @staticmethod
    def _make(size: int) -> pl.Series:
        return pl.Series([math.log2(i) if i else -math.inf for i in range(size)], dtype=pl.Float64)

    def lookup(self, positions: pl.Series) -> pl.Series:
        values = self._values
        largest = positions.max()
        if largest is not None and largest >= values.len():  # type: ignore[operator]
            with self._lock:
                if largest >= self._values.len():  # type: ignore[operator]
                    self._values = self._make(1 << int(largest).bit_length())  # type: ignore[arg-type]
                values = self._values
        # indexing with a Series gathers directly (Series.gather runs a query: 20x slower here)
        return values[positions]


_LOG2 = _Log2Table()


def _log2_batch(series: pl.Series, **_: object) -> pl.Series:  # polars passes return_dtype=
    positions = series.cast(pl.Int64)
    if positions.null_count():
        raise AssertionError("log2 of a null position")  # callers pass ranks, never null
    if positions.len() and positions.min() < 1:  # type: ignore[operator]
        raise AssertionError("log2 of a position below 1")
    return _LOG2.lookup(positions).alias(series.name)


def log2(positions: pl.Expr) -> pl.Expr:
    """``log2`` of positive integer ``positions``, with the C library's bits (``math.log2``).

    >>> import polars as pl
    >>> pl.DataFrame({"r": [2, 3]}).select(log2(pl.col("r")))["r"].to_list()
    [1.0, 1.584962500721156]
    """
    return positions.map_batches(_log2_batch, return_dtype=pl.Float64, is_elementwise=True)


class _PowerTable:
    """``p**e`` for integers ``e >= 0``, each the previous times ``p`` (trec_eval's order: its
    ``rbp`` multiplies ``p`` in one rank at a time), grown on demand and shared by every thread."""

    def __init__(self, p: float) -> None:
        self._p = p
        self._lock = threading.Lock()
        self._values = self._make(1 << 8)

    def _make(self, size: int) -> pl.Series:
        values, value = [], 1.0
        for _ in range(size):
            values.append(value)
            value *= self._p
        return pl.Series(values, dtype=pl.Float64)

    def __call__(self, series: pl.Series, **_: object) -> pl.Series:  # polars passes return_dtype=
        exponents = series.cast(pl.Int64)
        lowest = exponents.min()
        if lowest is not None and lowest < 0:  # type: ignore[operator]
            raise AssertionError("a negative exponent")  # callers pass ranks - 1, never below 0
        values = self._values
        largest = exponents.max()
        if largest is not None and largest >= values.len():  # type: ignore[operator]
            with self._lock:
                if largest >= self._values.len():  # type: ignore[operator]
                    self._values = self._make(1 << int(largest).bit_length())  # type: ignore[arg-type]
                values = self._values
        return values.gather(exponents).alias(series.name)


_POWERS: dict[float, _PowerTable] = {}
_POWERS_LOCK = threading.Lock()


def powers(p: float, exponents: pl.Expr) -> pl.Expr:
    """``p**e`` for integer ``exponents`` ``e >= 0`` (null stays null), multiplied out one factor at
    a time as trec_eval does, so with its bits (``p**e`` itself may differ in the last bit).

    >>> import polars as pl
    >>> pl.DataFrame({"e": [0, 1, 3]}).select(powers(0.9, pl.col("e")))["e"].to_list()
    [1.0, 0.9, 0.7290000000000001]
    """
    with _POWERS_LOCK:
        table = _POWERS.setdefault(float(p), _PowerTable(float(p)))
    return exponents.map_batches(table, return_dtype=pl.Float64, is_elementwise=True)


# -- NumPy's pairwise summation ------------------------------------------------------------------------

_BLOCK = 128  # NumPy's PW_BLOCKSIZE


def _leaves(n: int) -> list[tuple[int, int, int]]:
    """``(start, length, depth)`` of the blocks NumPy's pairwise sum of ``n >= 8`` values adds directly."""
    leaves, pending = [], [(0, n, 0)]
    while pending:  # depth first, left before right: the blocks in order
        start, length, depth = pending.pop()
        if length <= _BLOCK:
            leaves.append((start, length, depth))
            continue
        half = length // 2
        half -= half % 8
        pending += [(start + half, length - half, depth + 1), (start, half, depth + 1)]
    return leaves


def _halves(values: pl.Series) -> pl.Series:
    """The first half plus the second half of an even-length series, element by element."""
    half = values.len() // 2
    return values.slice(0, half) + values.slice(half, half)


@functools.lru_cache(maxsize=4096)
def _reversed_bits(value: int, bits: int) -> int:
    return int(format(value, f"0{bits}b")[::-1], 2) if bits else 0


_LANES: Final = (0, 4, 2, 6, 1, 5, 3, 7)  # the eight running sums, bits reversed (see numpy_sum)


def numpy_sum(values: pl.Series) -> float:
    """``np.sum`` of ``values`` (Float64, nulls as 0.0) with NumPy's bits, computed with polars.

    >>> import polars as pl
    >>> numpy_sum(pl.Series([0.1] * 10))  # NumPy: 1.0; one by one: 0.9999999999999999
    1.0
    """
    return float(numpy_sums(values, [values.len()])[0])


def numpy_sums(values: pl.Series, lengths: Sequence[int]) -> pl.Series:
    """``np.sum`` of each run of ``values``: the first ``lengths[0]`` values, the next ``lengths[1]``...

    Vectorised over the values and the runs: the tree of each run is worked
    out from its length (one step per block of at least 64 values), then
    every level of every tree is one polars addition. Runs of fewer than 8
    values are added one by one; longer runs are grouped by the depth of
    their tree, and within a depth the running sums and the blocks are laid
    out with their indices' bits reversed, so that the pairs NumPy adds are
    the two halves of a vector.
    """
    x = values.cast(pl.Float64).fill_null(0.0)
    pad = x.len()  # index of a -0.0, which adds nothing
    padded = pl.concat([x, pl.Series([-0.0])])
    lengths = [int(n) for n in lengths]
    offsets = [0] * len(lengths)
    for i in range(1, len(lengths)):
        offsets[i] = offsets[i - 1] + lengths[i - 1]
    result = [0.0] * len(lengths)
    short = [i for i, n in enumerate(lengths) if n < 8]
    by_depth: dict[int, list[int]] = {}
    trees = {}
    for i, n in enumerate(lengths):
        if n >= 8:
            trees[i] = _leaves(n)
            by_depth.setdefault(max(d for _, _, d in trees[i]), []).append(i)
    if short:  # one by one from -0.0, all runs at once
        first = pl.Series([offsets[i] for i in short], dtype=pl.Int64)
        count = pl.Series([lengths[i] for i in short], dtype=pl.Int64)
        total = pl.Series([-0.0] * len(short))
        for j in range(7):
            total = total + padded.gather((first + j).zip_with(count > j, pl.Series([pad] * len(short))))
        for i, value in zip(short, total.to_list(), strict=True):
            result[i] = value + 0.0
    for depth, runs in by_depth.items():
        sums = _same_depth_sums(padded, pad, depth, [trees[i] for i in runs], [offsets[i] for i in runs])
        for i, value in zip(runs, sums.to_list(), strict=True):
            result[i] = value + 0.0
    return pl.Series(result, dtype=pl.Float64)


def _same_depth_sums(
    padded: pl.Series, pad: int, depth: int, trees: list[list[tuple[int, int, int]]], offsets: list[int]
) -> pl.Series:
    """The pairwise sums of runs whose trees all have ``depth`` levels, one per run."""
    runs = len(trees)
    slots = 1 << depth
    # per run, a perfect tree of 2**depth blocks (a block one level up takes two places, itself and an
    # empty one); laid out (block in bit-reversed order, run)
    starts = [pad] * (slots * runs)
    rows = [0] * (slots * runs)
    for r, (leaves, offset) in enumerate(zip(trees, offsets, strict=True)):
        place = 0
        for start, length, d in leaves:
            at = _reversed_bits(place, depth) * runs + r
            starts[at], rows[at] = offset + start, length // 8
            place += 1 if d == depth else 2
    first = pl.Series(starts, dtype=pl.Int64)
    cells = 8 * len(starts)  # (lane in bit-reversed order, block, run)
    lane_first = pl.concat([first + lane for lane in _LANES])
    full = pl.concat([pl.Series(rows, dtype=pl.Int64)] * 8)
    pads = pl.Series([pad] * cells, dtype=pl.Int64)
    lanes = None
    for r in range(_BLOCK // 8):  # the eight running sums of every block, row after row
        inside = full > r
        if lanes is not None and not inside.any():
            break  # (adding the pad's -0.0 changes nothing)
        term = padded.gather((lane_first + 8 * r).zip_with(inside, pads))  # the value, or the pad
        lanes = term if lanes is None else lanes + term
    assert lanes is not None
    block = _halves(_halves(_halves(lanes)))  # ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    # the last block of a run (last in bit-reversed order too) adds the values past its rows of eight
    tail_first = pl.Series(
        [offset + start + 8 * (length // 8) for (start, length, _), offset in
         zip((t[-1] for t in trees), offsets, strict=True)], dtype=pl.Int64,
    )
    tail_count = pl.Series([t[-1][1] % 8 for t in trees], dtype=pl.Int64)
    last = block.slice((slots - 1) * runs, runs)
    for j in range(7):
        last = last + padded.gather((tail_first + j).zip_with(tail_count > j, pl.Series([pad] * runs)))
    block = pl.concat([block.slice(0, (slots - 1) * runs), last])
    for _ in range(depth):
        block = _halves(block)
    return block


def _numpy_sums(lists: pl.Series) -> pl.Series:
    lists = lists.cast(pl.List(pl.Float64))
    values = lists.explode(empty_as_null=False).fill_null(0.0)
    return numpy_sums(values, lists.list.len().fill_null(0).to_list())


def pairwise_sums(
    frame: pl.LazyFrame, group: str, values: Mapping[str, bool], terms: Sequence[pl.Expr] = ()
) -> pl.LazyFrame:
    """``[group, *values]``: per group, the sum of each column's non-null values in NumPy's order.

    ``frame``'s rows of a group must be contiguous and in the order to add
    them; the columns mapped to ``True`` are added from the group's last row
    to its first. Null values are left out. One call of :func:`numpy_sums`
    per column for all groups together, when the plan runs, so a group adds
    no Python call of its own. Groups without a value in a column get null there.

    ``terms`` (expressions naming columns of ``values``, each reading
    ``frame``'s own columns) are computed on the frame as it reaches the sums,
    each with its column's sums, with polars' in-memory engine: row-wise terms
    that read neighbouring rows (``shift``) cost less there than in a streaming
    plan, and give the same bits. A large frame's columns are summed at once,
    each on a thread of its own (:func:`~frame_eval._own_thread.side_by_side`).
    """
    names = list(values)
    schema = frame.collect_schema()
    inputs = frame if terms else frame.select(group, *names)
    return inputs.map_batches(  # (on a thread of its own, so that its polars work runs on every core)
        on_own_thread(functools.partial(frame_pairwise_sums, group=group, values=values, terms=terms)),
        schema={group: schema[group], **dict.fromkeys(names, pl.Float64)},
    )


def frame_pairwise_sums(
    frame: pl.DataFrame, group: str, values: Mapping[str, bool], terms: Sequence[pl.Expr] = ()
) -> pl.DataFrame:
    """:func:`pairwise_sums` of an in-memory frame, now (the groups in the order of their first rows)."""
    term_of = {term.meta.output_name(): term for term in terms}

    def sums(name: str, backwards: bool) -> pl.DataFrame:
        term = term_of.get(name)
        part = frame.select(group, name) if term is None else (
            frame.lazy().select(group, term).collect(engine="in-memory")
        )
        part = part.filter(pl.col(name).is_not_null())
        if backwards:
            part = part.reverse()  # each group backwards (and the groups in reverse order)
        runs = part.select(pl.col(group).rle()).unnest(group)  # the groups are contiguous
        total = numpy_sums(part[name], runs["len"].to_list()).alias(name)
        return runs.select(pl.col("value").alias(group), total)

    calls = [functools.partial(sums, name, backwards) for name, backwards in values.items()]
    result = frame.select(group).unique(maintain_order=True)
    for part in side_by_side(calls, frame.height):
        result = result.join(part, on=group, how="left", maintain_order="left")
    return result


def row_sum(terms: Sequence[pl.Expr], *, no_negative_zero: bool = False) -> pl.Expr:
    """The sum across ``terms`` (one expression per column) in NumPy's pairwise order, row by row.

    ``np.sum(a, axis=1)`` of a C-ordered array adds each row's values as
    :func:`numpy_sum` adds a vector; the tree depends only on the number of
    columns, so it is built here once, as one expression. NumPy starts a short
    row at -0.0, which changes no sum but one of only -0.0: that one is made 0.0
    at the end, a step ``no_negative_zero=True`` leaves out for terms that are
    never -0.0 (squares, say).

    >>> import polars as pl
    >>> df = pl.DataFrame({f"c{i}": [0.1] for i in range(10)})
    >>> df.select(row_sum([pl.col(c) for c in df.columns])).item()
    1.0
    """
    def tree(items: Sequence[pl.Expr]) -> pl.Expr:
        n = len(items)
        if n < 8:  # from the first item: adding it to NumPy's -0.0 start gives its own bits
            total = items[0]
            for item in items[1:]:
                total = total + item
            return total
        if n <= _BLOCK:
            lanes = list(items[:8])
            for i in range(8, n - n % 8, 8):
                lanes = [lane + items[i + j] for j, lane in enumerate(lanes)]
            r = lanes
            total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            for item in items[n - n % 8:]:
                total = total + item
            return total
        half = n // 2
        half -= half % 8
        return tree(items[:half]) + tree(items[half:])

    total = tree([t.cast(pl.Float64) for t in terms])
    return total if no_negative_zero else positive_zero(total)  # np.sum of only -0.0 is 0.0


def positive_zero(value: pl.Expr) -> pl.Expr:
    """``value`` with -0.0 as 0.0 (so that tied zeros have one sign in any row order).

    ``value + 0.0`` does this in IEEE arithmetic, but polars' optimizer may fold it to
    ``value`` (polars 2.1 does on the in-memory engine, not on the streaming one), so that
    the sign would depend on the engine.

    >>> import polars as pl
    >>> pl.select(positive_zero(pl.lit(-0.0))).item().hex()
    '0x0.0p+0'
    """
    return pl.when(value == 0.0).then(0.0).otherwise(value)


def pairwise_sum(terms: pl.Expr) -> pl.Expr:
    """The sum of ``terms`` in NumPy's pairwise order: ``np.sum`` of them as an array, the same bits.

    An aggregation (one value per group in ``group_by(...).agg``), lazy; the
    terms are taken in the order they come (nulls count as 0.0), so sort
    them first as the reference orders them. Sums of fewer than 8 terms
    equal :func:`ordered_sum`'s; longer ones follow NumPy's tree (see the
    module docstring). Each group's terms are added by :func:`numpy_sum`,
    whose polars operations are vectorised over the terms.

    >>> import polars as pl
    >>> df = pl.DataFrame({"g": [1] * 10 + [2] * 3, "x": [0.1] * 13})
    >>> df.group_by("g", maintain_order=True).agg(pairwise_sum(pl.col("x")))["x"].to_list()
    [1.0, 0.30000000000000004]
    """
    return terms.cast(pl.Float64).implode().map_batches(
        _numpy_sums, return_dtype=pl.Float64, returns_scalar=True
    )
