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

import math
import threading
from typing import Final

import polars as pl

__all__ = ["divide", "log2", "numpy_sum", "ordered_sum", "pairwise_sum"]


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
        return values.gather(positions)


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


def _reversed_bits(value: int, bits: int) -> int:
    return int(format(value, f"0{bits}b")[::-1], 2) if bits else 0


_LANES: Final = (0, 4, 2, 6, 1, 5, 3, 7)  # the eight running sums, bits reversed (see numpy_sum)


def numpy_sum(values: pl.Series) -> float:
    """``np.sum`` of ``values`` (Float64, nulls as 0.0) with NumPy's bits, computed with polars.

    Every level of NumPy's tree is one vectorised addition: the running sums
    and the blocks are laid out with their indices' bits reversed, so that
    the pairs NumPy adds are the two halves of the vector.

    >>> import polars as pl
    >>> numpy_sum(pl.Series([0.1] * 10))  # NumPy: 1.0; one by one: 0.9999999999999999
    1.0
    """
    x = values.cast(pl.Float64).fill_null(0.0)
    n = x.len()
    if n < 8:
        return float(pl.concat([pl.Series([-0.0]), x]).cum_sum()[-1]) + 0.0
    leaves = _leaves(n)
    depth = max(d for _, _, d in leaves)
    # a perfect tree of 2**depth blocks: a block one level up takes two places, itself and an empty one
    blocks: list[tuple[int, int]] = []  # (first index, rows of eight)
    for start, length, d in leaves:
        blocks += [(start, length // 8)] if d == depth else [(start, length // 8), (n, 0)]
    blocks = [blocks[_reversed_bits(i, depth)] for i in range(len(blocks))]
    starts = pl.Series([b[0] for b in blocks], dtype=pl.Int64)
    first = pl.concat([starts + lane for lane in _LANES])  # (lane, block)
    full = pl.concat([pl.Series([b[1] for b in blocks], dtype=pl.Int64)] * 8)
    cells = first.len()
    at = pl.int_range(0, 16 * cells, dtype=pl.Int64)
    row, cell = at // cells, at % cells
    index = pl.select(  # (row, lane, block) -> the value's index, or n for nothing (-0.0)
        pl.when(row < pl.lit(full).gather(cell)).then(pl.lit(first).gather(cell) + 8 * row).otherwise(n)
    ).to_series()
    terms = pl.concat([x, pl.Series([-0.0])]).gather(index)
    lanes = terms.slice(0, cells)
    for r in range(1, _BLOCK // 8):  # the running sums, row after row
        lanes = lanes + terms.slice(r * cells, cells)
    block = _halves(_halves(_halves(lanes)))  # ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    last_start, last_length, _ = leaves[-1]  # only the last block has values past its rows of eight
    rest = x.slice(last_start + 8 * (last_length // 8))
    if rest.len():  # the last block is last in bit-reversed order too
        last = pl.concat([block.slice(-1, 1), rest]).cum_sum()[-1]
        block = pl.concat([block.slice(0, block.len() - 1), pl.Series([last], dtype=pl.Float64)])
    for _ in range(depth):
        block = _halves(block)
    return float(block[0]) + 0.0


def _numpy_sums(lists: pl.Series) -> pl.Series:
    return pl.Series([numpy_sum(v) if v is not None else 0.0 for v in lists], dtype=pl.Float64)


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
