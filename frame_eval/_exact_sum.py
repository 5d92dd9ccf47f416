"""Means from exact sums, rounded once: the same bits for any row order, thread count and engine.

A mean here is ``sum(terms) / (divisor * sum(weights))`` (``sum(weights)``
is the number of rows when there are no weights). Both sums are computed
exactly and the quotient is rounded once, to the nearest double (ties to
even): the correctly rounded value of the exact quotient. With whole-unit
denominators (a row count) the numerator's exact sum is what
:func:`math.fsum` rounds, so ``fsum(terms) / n`` differs from it only where
that second rounding does. A term such as ``w * t`` is the double the caller
computes (rounded once as a product, as NumPy's ``np.average`` forms it);
from there on nothing is rounded until the quotient.

How: a finite double is ``+-m * 2^(q - 1075)``, ``m`` an integer below 2^53
and ``q`` its biased exponent (1 for subnormals and zeros). Integers add
exactly in any order, so the doubles are grouped by their top 12 bits
(sign and biased exponent: within a part every value has the same sign and
scale), and a group-by adds, per (group, top bits), the rows and the two
26-bit halves of the stored fraction as UInt64 (under 2^26 a row: no
overflow below 2^38 rows); the leading 1 of normal doubles is the rows times
2^52. Two summed columns (a weighted mean's terms and weights) share one
group-by of (group, top bits of each), whose rows are then added up per
column. A group's parts, a few dozen (one per sign and exponent its terms
take), are then combined with Python's integers, ``sum(+-(high * 2^26 + low
+ rows * 2^52) * 2^q)`` in units of 2^-1075, and the quotient of two such
integers is Python's ``int / int``: correctly rounded, and ``OverflowError``
past the largest double (taken as an infinity of the sum's sign: what
rounding to nearest gives there). Only the parts, never the rows, reach
Python.

Edge cases:
- non-finite terms or weights: each sum is then what IEEE addition gives
  (NaN if any term is NaN, or holds both infinities; otherwise the
  infinity), and the quotient is the IEEE quotient of the two sums;
- a zero denominator (no rows, weights summing to 0): null;
- an exact zero numerator: ``+0.0`` (a sum starting from 0.0, such as
  ``np.bincount``'s, gives it; ``math.fsum`` of only ``-0.0`` terms
  gives ``-0.0``);
- subnormal terms and quotients: exact, as any other (the quotient rounds
  to the subnormal grid).

Two front ends share the rounding: :func:`exact_means`, every group of a
frame from a group-by per two summed columns (the parts above), and
:func:`exact_mean`, an aggregation for ``group_by(...).agg`` and ``select``
(:func:`python_mean` in other aggregations) that takes a group's values to
Python and finds the same exact sum there (``math.fsum`` of the values, then
of the values less the roundings so far, until nothing is left; one by one
for values that are not finite). The same integers, so the same bits; with
many rows per group the frame methods are faster.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import polars as pl

from frame_eval._own_thread import on_own_thread

__all__ = [
    "Mean", "aggregation", "exact_mean", "exact_means", "fraction_halves", "group_values", "part_means",
    "python_mean", "python_total",
]

_E, _HIGH, _LOW, _ROWS = "__fe_xs_e", "__fe_xs_high", "__fe_xs_low", "__fe_xs_rows"
_GROUP, _COLUMN = "__fe_xs_group", "__fe_xs_column"
RESERVED: Final = (_E, _HIGH, _LOW, _ROWS, _GROUP, _COLUMN)
_U64: Final = pl.UInt64
_SCALE: Final = 1075  # a finite double is a whole number of 2^-1075


@dataclass(frozen=True)
class Mean:
    """``sum(terms) / (divisor * sum(weights))`` of each group, rounded once; without ``weights``, the
    group's rows count instead of their weights. ``terms`` and ``weights`` are row-wise expressions."""

    terms: pl.Expr
    weights: pl.Expr | None = None
    divisor: int = 1


def _lit(value: int) -> pl.Expr:
    return pl.lit(value, _U64)


def fraction_halves(bits: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The high and low 26-bit halves of the stored fraction of doubles given by their bits (UInt64):
    what an exact sum adds (as UInt64 sums, under 2^26 per row, so no overflow below 2^38 rows)."""
    half = _lit((1 << 26) - 1)
    return (bits // _lit(1 << 26)) & half, bits & half


def _parts(value: pl.Expr, suffix: str = "") -> list[pl.Expr]:
    """Row-wise: the top 12 bits ``_E`` (sign, biased exponent; UInt64, as it comes: a cast to a
    narrower type costs more than it saves) and the two 26-bit halves ``_HIGH``, ``_LOW`` of the stored
    fraction, their names ending in ``suffix``."""
    bits = value.cast(pl.Float64).reinterpret(dtype=_U64)
    high, low = fraction_halves(bits)
    return [(bits // _lit(1 << 52)).alias(_E + suffix), high.alias(_HIGH + suffix), low.alias(_LOW + suffix)]


class _Total:
    """A group's exact sum: finite part in units of 2^-1075, and which non-finite values it met."""

    __slots__ = ("nan", "neg_inf", "pos_inf", "units")

    def __init__(self) -> None:
        self.units, self.pos_inf, self.neg_inf, self.nan = 0, False, False, False

    def add_part(self, top: int, high: int, low: int, rows: int) -> None:
        """Add ``rows`` doubles whose top 12 bits are ``top`` and fractions' halves add up to ``high``
        and ``low``."""
        biased = top & 2047
        if biased < 2047:
            value = ((high << 26) + low + (rows << 52 if biased else 0)) << max(biased, 1)
            self.units += -value if top > 2047 else value
        elif high or low:  # a fraction other than 0: NaN
            self.nan = True
        elif top > 2047:
            self.neg_inf = True
        else:
            self.pos_inf = True

    def add_values(self, values: Sequence[float | None]) -> None:
        """Add doubles one by one, exactly (nulls count as 0)."""
        units = 0
        for value in values:
            if value is None:
                continue
            if math.isfinite(value):
                units += _units(value)
            elif value != value:
                self.nan = True
            elif value > 0:
                self.pos_inf = True
            else:
                self.neg_inf = True
        self.units += units

    @property
    def finite(self) -> bool:
        return not (self.nan or self.pos_inf or self.neg_inf)

    def rounded(self) -> float:
        """The sum as a double: IEEE addition's result for non-finite terms, else the exact sum rounded."""
        if self.nan or (self.pos_inf and self.neg_inf):
            return math.nan
        if self.pos_inf or self.neg_inf:
            return math.inf if self.pos_inf else -math.inf
        return _quotient(self.units, 1 << _SCALE)


def _quotient(top: int, bottom: int) -> float:
    """``top / bottom`` (``bottom != 0``) rounded once to the nearest double; past the largest, infinite."""
    try:
        return top / bottom
    except OverflowError:
        return math.inf if (top > 0) == (bottom > 0) else -math.inf


def _mean(total: _Total, weights: _Total | None, rows: int, divisor: int) -> float | None:
    if weights is None:
        if rows == 0:
            return None
        if total.finite:
            return _quotient(total.units, (rows * divisor) << _SCALE)
        return total.rounded() / (rows * divisor)
    if weights.finite and weights.units == 0:
        return None
    if total.finite and weights.finite:
        return _quotient(total.units, weights.units * divisor)
    # an infinity or NaN on either side: IEEE division of the two sums (never by 0 here)
    return total.rounded() / weights.rounded() / divisor


def part_means(groups: int, group: Sequence[int], top: Sequence[int], high: Sequence[int], low: Sequence[int],
               rows: Sequence[int]) -> list[float | None]:
    """Each of ``groups`` groups' exact mean of its doubles, rounded once, from parts summed elsewhere:
    part ``i`` holds ``rows[i]`` doubles of group ``group[i]`` whose top 12 bits are ``top[i]`` and the
    26-bit halves of whose fractions add up to ``high[i]`` and ``low[i]`` (a group's parts may share
    top bits). Null for a group without rows."""
    totals = [_Total() for _ in range(groups)]
    counts = [0] * groups
    for g, t, h, lo, n in zip(group, top, high, low, rows, strict=True):
        totals[g].add_part(t, h, lo, n)
        counts[g] += n
    return [_mean(total, None, n, 1) for total, n in zip(totals, counts, strict=True)]


def _column_parts(
    frame: pl.DataFrame, keys: list[str], columns: Sequence[str], sums: Sequence[str] = ()
) -> list[pl.LazyFrame]:
    """For each of ``columns`` (one or two), ``[*keys, _E, _HIGH, _LOW, _ROWS, *sums]``: one row per
    group and top bits of the column's values (and the sums of the integer columns ``sums`` over those
    rows, beside the first column's parts).

    Two columns (a weighted mean's terms and weights) share one group-by of (group, top bits of the
    first, top bits of the second), whose few rows are then added up per column: one pass over the
    rows instead of two, and the same integer sums."""
    suffixes = [f"_{i}" for i in range(len(columns))]
    parts = [e for c, x in zip(columns, suffixes, strict=True) for e in _parts(pl.col(c).fill_null(0.0), x)]
    rows = frame.lazy().select(*keys, *parts, *sums)
    integers = [pl.col(c).sum().cast(pl.Int64) for c in sums]
    halves = [pl.col(name + x).sum() for x in suffixes for name in (_HIGH, _LOW)]
    if len(columns) == 1:
        return [rows.group_by([*keys, _E + suffixes[0]]).agg(
            *halves, pl.len().cast(pl.Int64).alias(_ROWS), *integers,
        ).rename({n + suffixes[0]: n for n in (_E, _HIGH, _LOW)})]
    joint = rows.group_by([*keys, *(_E + x for x in suffixes)]).agg(
        *halves, pl.len().cast(pl.Int64).alias(_ROWS), *integers,
    ).cache()
    return [
        joint.group_by([*keys, _E + x]).agg(
            pl.col(_HIGH + x).sum(), pl.col(_LOW + x).sum(), pl.col(_ROWS).sum(),
            *(integers if i == 0 else []),
        ).rename({n + x: n for n in (_E, _HIGH, _LOW)})
        for i, x in enumerate(suffixes)
    ]


def _totals(frame: pl.DataFrame, keys: list[str], columns: Sequence[str], sums: Sequence[str] = ()) -> tuple[
        pl.DataFrame, list[list[_Total]], list[int], list[list[int]]]:
    """Each group of ``keys`` (a frame of its keys, in no set order), the exact sum of each of
    ``columns`` (nulls count as 0) in every group, its number of rows, and the sums of the integer
    columns ``sums`` (one list per column)."""
    plans = [
        part.with_columns(pl.lit(i + j, pl.Int64).alias(_COLUMN))
        for i in range(0, len(columns), 2)  # (in pairs: a pair's group-by has a row per pair of top bits)
        for j, part in enumerate(_column_parts(frame, keys, columns[i:i + 2], sums if i == 0 else ()))
    ]
    parts = pl.concat(pl.collect_all(plans), how="diagonal")
    if keys:
        groups = parts.filter(pl.col(_COLUMN) == 0).select(keys).unique()
        groups = groups.with_row_index(_GROUP)
        parts = parts.join(groups, on=keys, how="left", nulls_equal=True)
        groups = groups.drop(_GROUP)
        n = groups.height
    else:
        groups = pl.DataFrame()
        parts = parts.with_columns(pl.lit(0, pl.UInt32).alias(_GROUP))
        n = 1
    totals = [[_Total() for _ in range(n)] for _ in columns]
    rows = [0] * n
    for column, group, key, high, low, count in zip(
        *(parts.get_column(c).to_list() for c in (_COLUMN, _GROUP, _E, _HIGH, _LOW, _ROWS)), strict=True
    ):
        totals[column][group].add_part(key, high, low, count)
        if column == 0:
            rows[group] += count
    integers = []
    first = parts.filter(pl.col(_COLUMN) == 0)
    for name in sums:
        total = [0] * n
        for group, value in zip(first.get_column(_GROUP).to_list(), first.get_column(name).to_list(),
                                strict=True):
            total[group] += value
        integers.append(total)
    return groups, totals, rows, integers


def _frame_means(
    frame: pl.DataFrame, keys: list[str], means: Mapping[str, tuple[str, str | None, int]],
    count: str | None = None, sums: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """``[*keys, *means(, count), *sums]`` of an eager frame whose columns hold the terms and weights
    (and the integers of ``sums``, output name to column)."""
    columns = list(dict.fromkeys(c for t, w, _ in means.values() for c in (t, w) if c is not None))
    at = {c: i for i, c in enumerate(columns)}
    sums = sums or {}
    groups, totals, rows, integers = _totals(frame, keys, columns, list(sums.values()))
    out: dict[str, pl.Series] = {}
    for name, (terms, weights, divisor) in means.items():
        values = [
            _mean(totals[at[terms]][g], None if weights is None else totals[at[weights]][g], rows[g], divisor)
            for g in range(len(rows))
        ]
        out[name] = pl.Series(name, values, dtype=pl.Float64)
    if count is not None:
        out[count] = pl.Series(count, rows, dtype=pl.Int64)
    for name, values in zip(sums, integers, strict=True):
        out[name] = pl.Series(name, values, dtype=pl.Int64)
    if keys:
        return groups.with_columns(*out.values())
    return pl.DataFrame(list(out.values()))


def exact_means(
    rows: pl.LazyFrame, by: Sequence[str], means: Mapping[str, Mean], count: str | None = None,
    sums: Mapping[str, pl.Expr] | None = None,
) -> pl.LazyFrame:
    """``[*by, *means]``: each group's means (see :class:`Mean` and the module docstring), lazy.

    One group-by over every row per two distinct summed expressions (each group's terms never
    leave polars); groups come in no set order. Without ``by``, one row (null means for no
    rows). With ``count``, also each group's rows, in a column of that name; ``sums`` names
    integer expressions whose per-group sums (Int64, exact) come along in the first group-by.
    """
    sums = dict(sums or {})
    by = list(by)
    exprs: list[pl.Expr] = []

    def column(expr: pl.Expr) -> str:
        for i, seen in enumerate(exprs):
            if seen.meta.eq(expr):
                return f"__fe_xs_{i}"
        exprs.append(expr)
        return f"__fe_xs_{len(exprs) - 1}"

    spec = {
        name: (column(m.terms), None if m.weights is None else column(m.weights), m.divisor)
        for name, m in means.items()
    }
    schema = rows.select(*by).collect_schema()
    integers = {name: f"__fe_xs_i{j}" for j, name in enumerate(sums)}
    staged = rows.select(
        *by, *(e.cast(pl.Float64).alias(f"__fe_xs_{i}") for i, e in enumerate(exprs)),
        *(e.cast(pl.Int64).alias(integers[name]) for name, e in sums.items()),
    )
    if any(b.startswith("__fe_xs_") for b in by):
        raise ValueError(f"by= may not name frame_eval's working columns (starting '__fe_xs_'), got {by!r}")
    out = {**schema, **dict.fromkeys(means, pl.Float64), **({count: pl.Int64} if count else {}),
           **dict.fromkeys(sums, pl.Int64)}
    return staged.map_batches(
        on_own_thread(lambda df: _frame_means(df, by, spec, count, integers)), schema=out
    )


def group_values(lists: pl.Series) -> list[dict[str, list[Any]]]:
    """Each list of a list-of-structs series (one per group) as its fields' Python values.

    Only direct conversions, no polars query: the aggregation's function runs on one of polars'
    worker threads, where a query could run other groups' calls nested on the same thread."""
    out = []
    for i in range(lists.len()):
        values = lists[i]
        frame = values.struct.unnest() if values is not None else pl.DataFrame()
        out.append({name: frame.get_column(name).to_list() for name in frame.columns})
    return out


def _units(value: float) -> int:
    """A finite double in units of 2^-1075, exactly."""
    top, bottom = value.as_integer_ratio()  # bottom: a power of 2, at most 2^1074
    return top << (_SCALE + 1 - bottom.bit_length())


def python_total(values: list[float | None]) -> _Total:
    """The exact sum of doubles (nulls count as 0), in Python.

    ``math.fsum`` rounds the exact sum once; the exact sum less that rounding is again a sum of
    doubles (the values and minus the roundings so far), so ``fsum`` of them gives the next part,
    until nothing is left (each part is below the last one's unit in the last place: a few passes).
    Values that are not finite, or whose sum passes the largest double, are added one by one instead."""
    total = _Total()
    finite = [v for v in values if v is not None]
    try:
        rounded = math.fsum(finite)
        rest = finite[:]
        for _ in range(64):
            if rounded == 0.0 or not math.isfinite(rounded):
                break
            total.units += _units(rounded)
            rest.append(-rounded)
            rounded = math.fsum(rest)
    except (OverflowError, ValueError):  # an intermediate overflow, or infinities of both signs
        rounded = math.nan
    if rounded != 0.0:  # (NaN or infinite values, an overflow, or no end: one by one)
        total = _Total()
        total.add_values(finite)
    return total


def python_mean(terms: list[float | None], weights: list[float | None] | None = None, divisor: int = 1
                ) -> float | None:
    """:func:`exact_mean` of one group's values given as Python lists (null without terms)."""
    if not terms:
        return None
    return _mean(python_total(terms), None if weights is None else python_total(weights), len(terms), divisor)


def _list_means(lists: pl.Series, divisor: int, weighted: bool) -> pl.Series:
    groups = group_values(lists)
    means = [python_mean(g.get("t", []), g.get("w", []) if weighted else None, divisor) for g in groups]
    return pl.Series(means, dtype=pl.Float64)


def aggregation(fields: list[pl.Expr], function: Callable[[pl.Series], pl.Series], dtype: pl.DataType
                ) -> pl.Expr:
    """An aggregation calling ``function`` with each group's ``fields`` (a list of structs; read it with
    :func:`group_values`), which returns one value per list."""
    return pl.struct(fields).implode().map_batches(function, return_dtype=dtype, returns_scalar=True)


def exact_mean(terms: pl.Expr, weights: pl.Expr | None = None, divisor: int = 1) -> pl.Expr:
    """Aggregation: ``sum(terms) / (divisor * sum(weights))`` (or over the number of terms) of a
    group, rounded once; null without terms or with weights summing to 0.

    ``terms`` and ``weights`` must have one value per row each (filter both alike). The bits are
    :func:`exact_means`' for the same values.

    >>> import polars as pl
    >>> df = pl.DataFrame({"t": [1e16, 1.0, -1e16, 0.5], "w": [1.0, 2.0, 1.0, 0.0]})
    >>> df.select(exact_mean(pl.col("t"))).item()  # (1e16 + 1 - 1e16 + 0.5) / 4, exactly
    0.375
    >>> df.select(exact_mean(pl.col("t") * pl.col("w"), pl.col("w"))).item()  # 2 / 4
    0.5
    """
    fields = [terms.cast(pl.Float64).alias("t")]
    if weights is not None:
        fields.append(weights.cast(pl.Float64).alias("w"))

    def run(lists: pl.Series) -> pl.Series:
        return _list_means(lists, divisor, weights is not None)

    return aggregation(fields, run, pl.Float64)
