"""Confusion counts as polars expressions: one binary problem, or one-vs-rest per class.

The building blocks shared by :mod:`frame_eval.classification` (the measures),
:mod:`frame_eval.classification.curves` and the lazy core :mod:`frame_eval.classification.evaluate`. A
:class:`Counts` holds the four cells; every measure is a function of it.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import polars as pl

from frame_eval._float import ordered_sum as sum_in_order
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


def checked_as_it_runs(column: str, check: Callable[[pl.Series], None]) -> pl.Expr:
    """``True`` once ``check`` (which raises on bad values) has passed over the values of ``column``.

    An expression cannot see its data before it runs, so its checks run with it: elementwise, so
    polars may call ``check`` on any slice of the column, in one pass however many groups there are.
    """

    def passed(values: pl.Series) -> pl.Series:
        check(values)
        return pl.repeat(True, values.len(), dtype=pl.Boolean, eager=True)

    return pl.col(column).map_batches(passed, return_dtype=pl.Boolean, is_elementwise=True).all()


def default_positive_check(column: str) -> pl.Expr:
    """``True`` when the labels of ``column`` suit the default positive class (``True`` / ``1``); else raises.

    The default positive class only makes sense for Boolean labels and integer
    labels that are 0 or 1. Other labels raise when the expression runs (an
    expression does not know its column's dtype before): a ``TypeError`` for
    labels that are not Boolean or integer (string, categorical, float), a
    ``ValueError`` for integers other than 0 and 1; both say what to pass
    instead. Nulls are not checked (they are not counted).
    """

    def check(labels: pl.Series) -> None:
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

    return checked_as_it_runs(column, check)


def known_labels(value: pl.Expr, column: str, labels: Sequence[Any], option: str) -> pl.Expr:
    """``value``, after checking that every label of ``column`` is one of ``labels`` (the keys of the
    ``option`` mapping, one score column per class); else raises when the expression runs.

    scikit-learn refuses a label that has no score column; so does every frame method here. The
    expression checks as it runs (:func:`checked_as_it_runs`): a ``ValueError`` naming the column and
    the label (not its row: the check may see any slice of the column).
    Null labels pass (the measures leave those rows out).
    """
    known = list(labels)

    def check(values: pl.Series) -> None:
        unknown = values.is_not_null() & ~values.is_in(known)
        if unknown.any():
            raise ValueError(
                f"column {column!r} holds the label {values.filter(unknown)[0]!r}, "
                f"which is no key of {option} {known!r}; give every class a column in "
                f"{option}{{class label: column}}, or filter those rows out first"
            )

    return pl.when(checked_as_it_runs(column, check)).then(value)


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


def weight_check(column: str) -> pl.Expr:
    """``True`` when the sample weights in ``column`` are numbers >= 0 (finite, not null); else raises.

    For the ``C.*`` expressions, which cannot see the data before they run:
    the frame methods check weights up front with the row of the frame
    (:func:`frame_eval.classification.evaluate.weight_problems`). Here the
    position is the row's place within the group, counting from 0.
    """

    def check(weights: pl.Series) -> None:
        if not weights.dtype.is_numeric():
            raise TypeError(
                f"weight column {column!r} must hold numbers (sample weights >= 0), got {weights.dtype}; "
                f"cast it, e.g. pl.col({column!r}).cast(pl.Float64)"
            )
        values = weights.cast(pl.Float64)
        bad = values.is_null() | values.is_nan() | values.is_infinite() | (values < 0)
        if bad.any():
            where = int(bad.arg_max())  # type: ignore[arg-type]
            raise ValueError(
                f"weight column {column!r} holds {values[where]} at position {where} of the group "
                f"(counting from 0); sample weights must be finite numbers >= 0: drop or fix that row"
            )

    return checked_as_it_runs(column, check)


# the bits of +inf: a Float64's bits (as UInt64) are below them exactly when it is finite and >= +0.0
INFINITE_BITS: Final = 0x7FF0_0000_0000_0000


def weight_bits(weights: pl.Expr) -> pl.Expr:
    """The bits of Float64 ``weights`` as UInt64 (null stays null): below :data:`INFINITE_BITS` exactly
    for finite weights >= +0.0, and ordered as those weights are, so one ``max`` tells whether every
    weight is such a number, and which is the largest. A negative weight (and -0.0), NaN or an
    infinite one has bits at or above :data:`INFINITE_BITS`."""
    return weights.reinterpret(dtype=pl.UInt64)


@dataclass
class WeightsSeen:
    """What a pass over a call's (Float64) weights saw: their null count and largest bits (see
    :func:`weight_bits`), noted by the exactness test of an eager call so that the weights' own check
    reads it instead of a pass of its own; and, when ``whole_at`` asks, whether every weight times
    ``2^whole_at`` is a whole number (``whole``). Unset (None) until noted."""

    nulls: int | None = None
    top_bits: int | None = None
    whole_at: int | None = None
    whole: bool | None = None

    def note(self, nulls: int, top_bits: int | None, whole: bool | None = None) -> None:
        self.nulls, self.top_bits, self.whole = nulls, top_bits, whole

    def bad(self) -> bool | None:
        """Whether a weight may be bad (null, or bits at or above +inf's: also -0.0, a good one), or
        None when nothing was noted."""
        if self.nulls is None:
            return None
        return self.nulls > 0 or (self.top_bits is not None and self.top_bits >= INFINITE_BITS)


# the weight column the frame methods make after checking the caller's weights with their rows
CHECKED_WEIGHT: Final = "__frame_eval_weight"


def weighted(value: pl.Expr, weight: str | None) -> pl.Expr:
    """``value``, after checking the weights in ``weight`` (nothing to check without weights, or
    when a frame method has checked them already)."""
    return value if weight is None or weight == CHECKED_WEIGHT else pl.when(weight_check(weight)).then(value)


def weight_total(weights: pl.Expr) -> pl.Expr:
    """The sum of Float64 ``weights`` added one by one from the smallest: the same bits in any row order."""
    return sum_in_order(weights, weights)


def tally(cell: pl.Expr, weight: str | None, *, exact: bool = False) -> pl.Expr:
    """Rows where ``cell`` holds: their number (Int64), or with ``weight`` the sum of their weights (Float64).

    An unweighted count is the weighted one with every weight 1, kept as an integer. ``exact``: the
    weights are known to add up to the same bits in any order
    (:func:`frame_eval.classification.exact_weights.exact_sums`), so they are added as they come.
    """
    if weight is None:
        return cell.sum().cast(pl.Int64)
    weights = pl.col(weight).cast(pl.Float64)
    return pl.when(cell).then(weights).otherwise(0.0).sum() if exact else weight_total(weights.filter(cell))


def binary_counts(
    actual: str, predicted: str, positive: Any = AUTO, weight: str | None = None, *, exact: bool = False
) -> Counts:
    """Counts of one binary problem; a row with a null label is in no cell.

    With ``weight``, each cell is the sum of its rows' weights (Float64), as
    scikit-learn's ``sample_weight``; ``exact`` as in :func:`tally`.
    """
    is_pos, said_pos = is_positive(actual, positive), is_positive(predicted, positive)
    cells = (is_pos & said_pos, ~is_pos & said_pos, is_pos & ~said_pos, ~is_pos & ~said_pos)
    return Counts(*(
        weighted(checked(tally(cell, weight, exact=exact), [actual, predicted], positive), weight)
        for cell in cells
    ))


def class_counts(actual: str, predicted: str, weight: str | None = None) -> Counts:
    """Per-class one-vs-rest counts as vectors over the sorted classes of the group.

    The classes are the labels seen in either column; each count is a tally
    found by binary search in a sorted column, so no per-class loop is needed.
    With ``weight``, a class's tally is the difference of two running sums of
    the weights sorted by (label, weight): the same bits in any row order.
    """
    keep = pl.col(actual).is_not_null() & pl.col(predicted).is_not_null()
    a, b = pl.col(actual).filter(keep), pl.col(predicted).filter(keep)
    classes = a.append(b).unique().sort()
    w = None if weight is None else pl.col(weight).cast(pl.Float64).filter(keep)

    def count(values: pl.Expr, weights: pl.Expr | None) -> pl.Expr:
        if weights is None:
            ordered = values.sort()
            found = ordered.search_sorted(classes, side="right") - ordered.search_sorted(classes, side="left")
            return found.cast(pl.Int64)
        ordered = values.sort_by([values, weights])
        running = pl.lit(0.0).append(weights.sort_by([values, weights]).cum_sum())
        end, start = ordered.search_sorted(classes, side="right"), ordered.search_sorted(classes, side="left")
        return running.gather(end) - running.gather(start)

    agree = a == b
    tp = count(a.filter(agree), None if w is None else w.filter(agree))
    support, predicted_support = count(a, w), count(b, w)
    rows = a.len().cast(pl.Int64) if w is None else weight_total(w)
    counts = Counts(tp, predicted_support - tp, support - tp, rows - support - predicted_support + tp)
    if weight is None:
        return counts
    return Counts(*(weighted(x, weight) for x in (counts.tp, counts.fp, counts.fn, counts.tn)))


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
