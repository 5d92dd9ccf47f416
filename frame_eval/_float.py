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
  (the C library's), so discounts have trec_eval's bits.
"""

from __future__ import annotations

import math
import threading

import polars as pl

__all__ = ["divide", "log2", "ordered_sum"]


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
