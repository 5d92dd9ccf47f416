"""Confusion counts as polars expressions: one binary problem, or one-vs-rest per class.

The building blocks shared by :mod:`frame_eval.classification` (the measures),
:mod:`frame_eval.curves` and the lazy core :mod:`frame_eval.classify`. A
:class:`Counts` holds the four cells; every measure is a function of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import polars as pl

from frame_eval.registry import MeasureSpec, register_shorthand

Average = Literal["micro", "macro", "weighted"]
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


def binary_counts(actual: str, predicted: str, positive: Any = AUTO) -> Counts:
    """Counts of one binary problem; a row with a null label is in no cell."""
    value = 1 if positive is AUTO else positive
    is_pos, said_pos = pl.col(actual) == value, pl.col(predicted) == value
    cells = (is_pos & said_pos, ~is_pos & said_pos, is_pos & ~said_pos, ~is_pos & ~said_pos)
    return Counts(*(cell.sum().cast(pl.Int64) for cell in cells))


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
    """numerator / denominator as Float64; null where the denominator is 0."""
    return pl.when(denominator != 0).then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))


def fill_undefined(value: pl.Expr, zero_division: float | None) -> pl.Expr:
    """Replace null (undefined) values by ``zero_division``, when one is given."""
    return value if zero_division is None else value.fill_null(float(zero_division))


def check_average(average: Any) -> None:
    if average is not None and average not in AVERAGES:
        raise ValueError(f"average must be None, 'micro', 'macro' or 'weighted', got {average!r}")


def check_zero_division(zero_division: Any) -> None:
    number = isinstance(zero_division, int | float) and not isinstance(zero_division, bool)
    if zero_division is not None and not number:
        raise ValueError(
            f"zero_division must be None (undefined values stay null) or a number, got {zero_division!r}"
        )


def parseable(spec: MeasureSpec) -> MeasureSpec:
    """Let names with characters the parser does not read (``LR+``, ``fall-out``) parse as they are."""
    for key in (spec.name, *spec.aliases):
        if not re.fullmatch(r"\w+", key):
            register_shorthand("classification", re.escape(key), lambda m, name=spec.name: (name, {}))
    return spec
