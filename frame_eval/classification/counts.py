"""Confusion counts as polars expressions: one binary problem, or one-vs-rest per class.

The building blocks shared by :mod:`frame_eval.classification` (the measures),
:mod:`frame_eval.classification.curves` and the lazy core :mod:`frame_eval.classification.evaluate`. A
:class:`Counts` holds the four cells; every measure is a function of it.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import polars as pl

from frame_eval.registry import MeasureSpec, register_shorthand

Average = Literal["micro", "macro", "weighted", "binary"]
AVERAGES: Final = ("micro", "macro", "weighted")
ACTUAL, PREDICTED = "actual", "predicted"
COUNT_NAMES: Final = ("tp", "fp", "fn", "tn", "p", "n", "pp", "pn", "total")


class _Auto:
    """Default positive class: ``True`` for Boolean labels, ``1`` for integer labels."""

    def __repr__(self) -> str:
        return "AUTO"


AUTO: Final = _Auto()


@dataclass(frozen=True)
class Counts:
    """The four cells of a (one-vs-rest) confusion matrix as expressions.

    Either scalars (one binary problem) or equal-length vectors, one entry per
    class of a group (the inputs to a multi-class average).
    """

    tp: pl.Expr
    fp: pl.Expr
    fn: pl.Expr
    tn: pl.Expr

    @property
    def p(self) -> pl.Expr:
        return self.tp + self.fn

    @property
    def n(self) -> pl.Expr:
        return self.fp + self.tn

    @property
    def pp(self) -> pl.Expr:
        return self.tp + self.fp

    @property
    def pn(self) -> pl.Expr:
        return self.fn + self.tn

    @property
    def total(self) -> pl.Expr:
        return self.tp + self.fp + self.fn + self.tn

    @classmethod
    def columns(cls, names: Mapping[str, str] | None = None) -> Counts:
        """Counts read from columns ``tp, fp, fn, tn`` (or the names mapped to them)."""
        names = names or {}
        return cls(*(pl.col(names.get(k, k)) for k in ("tp", "fp", "fn", "tn")))


def default_positive_check(column: str) -> pl.Expr:
    """``True`` when the labels of ``column`` suit the default positive class (``True`` / ``1``); else raises.

    The default positive class only makes sense for Boolean labels and integer
    labels that are 0 or 1. Other labels raise when the expression runs (an
    expression does not know its column's dtype before): a ``TypeError`` for
    labels that are not Boolean or integer (string, categorical, float), a
    ``ValueError`` for integers other than 0 and 1; both say what to pass
    instead. Nulls are not checked (they are not counted).
    """

    def check(labels: pl.Series) -> pl.Series:
        fix = (
            "pass positive=<label> to score one class against the rest, or average='macro' "
            "('micro', 'weighted') for a multi-class average"
        )
        if not (labels.dtype == pl.Boolean or labels.dtype.is_integer()):
            raise TypeError(
                f"column {column!r} holds {labels.dtype} labels, but the default positive class "
                f"(True for Boolean labels, 1 for integer labels) needs Boolean or 0/1 integer labels; {fix}"
            )
        if labels.dtype != pl.Boolean:
            other = labels.filter(labels.is_not_null() & ~labels.is_in([0, 1]))
            if other.len():
                raise ValueError(
                    f"column {column!r} holds integer labels other than 0 and 1 (e.g. {other[0]}), which "
                    f"the default positive class 1 would count as negative; {fix}"
                )
        return pl.repeat(True, labels.len(), dtype=pl.Boolean, eager=True)

    return pl.col(column).map_batches(check, return_dtype=pl.Boolean, is_elementwise=True).all()


def checked(value: pl.Expr, columns: Sequence[str], positive: Any) -> pl.Expr:
    """``value``, after checking the label columns when ``positive`` is the default (see above)."""
    if positive is not AUTO:
        return value
    guard = pl.all_horizontal(default_positive_check(c) for c in dict.fromkeys(columns))
    return pl.when(guard).then(value)


def is_positive(column: str, positive: Any) -> pl.Expr:
    """Boolean: the row's label is ``positive``; for the default, ``== 1`` (``True`` is 1).

    With the default, the comparison is made so that it cannot fail on labels
    of another kind (text, categories): :func:`checked` raises the clear error.
    """
    if positive is AUTO:
        return pl.col(column).to_physical().cast(pl.Int64, strict=False) == 1
    return pl.col(column) == positive


def binary_counts(actual: str, predicted: str, positive: Any = AUTO) -> Counts:
    """Counts of one binary problem; a row with a null label is in no cell."""
    is_pos, said_pos = is_positive(actual, positive), is_positive(predicted, positive)
    cells = (is_pos & said_pos, ~is_pos & said_pos, is_pos & ~said_pos, ~is_pos & ~said_pos)
    return Counts(*(checked(cell.sum().cast(pl.Int64), [actual, predicted], positive) for cell in cells))


def class_counts(actual: str, predicted: str) -> Counts:
    """Per-class one-vs-rest counts as vectors over the sorted classes of the group.

    The classes are the labels seen in either column; each count is a tally
    found by binary search in a sorted column, so no per-class loop is needed.
    """
    keep = pl.col(actual).is_not_null() & pl.col(predicted).is_not_null()
    a, b = pl.col(actual).filter(keep), pl.col(predicted).filter(keep)
    classes = a.append(b).unique().sort()

    def tally(values: pl.Expr) -> pl.Expr:
        ordered = values.sort()
        found = ordered.search_sorted(classes, side="right") - ordered.search_sorted(classes, side="left")
        return found.cast(pl.Int64)

    tp, support, predicted_support = tally(a.filter(a == b)), tally(a), tally(b)
    rows = a.len().cast(pl.Int64)
    return Counts(tp, predicted_support - tp, support - tp, rows - support - predicted_support + tp)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator as Float64, one IEEE division per value; null where the denominator is 0.

    Polars divides a column by a scalar (a group's total, say) by multiplying with the scalar's
    reciprocal, which is not always the correctly rounded quotient: 3 / 5 gives 0.6000000000000001.
    Adding 0 times the numerator turns the denominator into a column of the numerator's length, so
    every value is a true division, as NumPy's (and scikit-learn's) are.
    """
    top = numerator.cast(pl.Float64)
    return pl.when(denominator != 0).then(top / (denominator.cast(pl.Float64) + top * 0.0))


def fill_undefined(value: pl.Expr, zero_division: float | None) -> pl.Expr:
    """Replace null (undefined) values by ``zero_division``, when one is given (NaN included)."""
    return value if zero_division is None else value.fill_null(float(zero_division))


def check_average(average: Any) -> str | None:
    """The average to use: ``None`` (also for scikit-learn's ``"binary"``), micro, macro or weighted."""
    if average is None or average == "binary":
        return None
    if average not in AVERAGES:
        raise ValueError(
            f"average must be None (or 'binary', scikit-learn's name for it), 'micro', 'macro' or "
            f"'weighted', got {average!r}"
        )
    return str(average)


def check_zero_division(zero_division: Any) -> float | None:
    """``zero_division`` as a float: any real number (Python, NumPy...), NaN included; not a bool or text."""
    if zero_division is None:
        return None
    if isinstance(zero_division, bool) or not isinstance(zero_division, numbers.Real):
        raise ValueError(
            f"zero_division must be None (undefined values stay null) or a number such as 0, 1 or "
            f"float('nan'), got {zero_division!r} ({type(zero_division).__name__})"
        )
    return float(zero_division)


def is_nan(zero_division: float | None) -> bool:
    return zero_division is not None and math.isnan(zero_division)


def ordered_sum(values: pl.Expr) -> pl.Expr:
    """Sum of a Float64 vector in its order, one addition after another from 0 (nulls count as 0).

    Polars' ``sum()`` may add in another order (SIMD lanes, thread chunks), so
    its last bits can change; a running sum's last value cannot. For fewer
    than 8 values this is NumPy's order too: its pairwise ``sum`` adds short
    arrays one by one from 0 (longer ones in 8 lanes, then in halves), so
    scikit-learn's sums of fewer than 8 terms have the same bits.
    """
    return pl.lit(0.0).append(values.cast(pl.Float64).fill_null(0.0)).cum_sum().last()


def parseable(spec: MeasureSpec) -> MeasureSpec:
    """Let names with characters the parser does not read (``LR+``, ``fall-out``) parse as they are."""
    for key in (spec.name, *spec.aliases):
        if not re.fullmatch(r"\w+", key):
            register_shorthand("classification", re.escape(key), lambda m, name=spec.name: (name, {}))
    return spec
