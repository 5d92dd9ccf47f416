"""Shared input checks of the frame front end (:mod:`frame_eval.classification.evaluate`).

Column names, label dtypes and the positive class are checked at once (``TypeError`` /
``ValueError``); null labels, labels that are not 0/1, scores outside a declared range and bad
sample weights become data checks raised when the result is collected. :func:`_scored` gives the
checked ``[*keys, <is positive>, <score>]`` rows that every scored method reads. The names with a
leading underscore are shared by the ``frame_*`` modules only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal

import polars as pl

from frame_eval import _checks
from frame_eval._tidy import to_long
from frame_eval.classification.counts import AUTO, CHECKED_WEIGHT, INFINITE_BITS, WeightsSeen, weight_bits
from frame_eval.classification.grouped_scores import SCORE_MEASURES
from frame_eval.registry import Measure

FRAME: Final = "predictions"
CLASS: Final = "class"
CURVE_COLUMNS: Final = ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr", "precision", "recall")
MeasureArg = str | Measure | Iterable[str | Measure]
ScoreArg = str | Mapping[Any, str]
Shape = Literal["long", "wide"]

_ACTUAL, _PREDICTED = "__frame_eval_actual", "__frame_eval_predicted"
_POSITIVE, _SCORE = "__frame_eval_positive", "__frame_eval_score"
_ALL = "__frame_eval_all"
_WEIGHT = CHECKED_WEIGHT
SCORE_DEFAULTS: Final = SCORE_MEASURES


# -- validation ------------------------------------------------------------------------------------

def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)


def _require_labels(schema: pl.Schema, column: str) -> pl.DataType:
    dtype = schema[column]
    if not (dtype == pl.Boolean or dtype.is_integer() or _is_text(dtype)):
        hint = (
            " (pandas turns an integer column with missing values into floats: drop or fill the "
            "missing labels first)" if dtype.is_float() else ""
        )
        raise TypeError(
            f"{FRAME} column {column!r} must hold class labels (Boolean, integer, string or "
            f"categorical), got {dtype}; cast it, e.g. pl.col({column!r}).cast(pl.Int64){hint}"
        )
    return dtype


def _common_label_dtype(schema: pl.Schema, actual: str, predicted: str) -> pl.DataType:
    left, right = _require_labels(schema, actual), _require_labels(schema, predicted)
    if left == right:
        return left
    if left.is_integer() and right.is_integer():
        return pl.Int64
    if _is_text(left) and _is_text(right):
        return pl.String
    raise TypeError(
        f"{FRAME} columns {actual!r} ({left}) and {predicted!r} ({right}) must hold the same kind of "
        f"labels; cast one, e.g. pl.col({predicted!r}).cast(pl.{left})"
    )


def _check_label(dtype: pl.DataType, label: Any, column: str, what: str) -> None:
    fits = (
        (dtype == pl.Boolean and isinstance(label, bool))
        or (dtype.is_integer() and isinstance(label, int) and not isinstance(label, bool))
        or (_is_text(dtype) and isinstance(label, str))
    )
    if not fits:
        raise TypeError(
            f"{what}={label!r} is not a possible label of {FRAME} column {column!r}, which is {dtype}"
        )
    if isinstance(dtype, pl.Enum) and label not in dtype.categories.to_list():
        raise ValueError(f"{what}={label!r} is not a category of {FRAME} column {column!r} ({dtype})")


def resolve_positive(dtype: pl.DataType, positive: Any, column: str) -> tuple[Any, bool]:
    """(positive label, or None for one-vs-rest; whether labels must be 0 or 1)."""
    if positive is None:
        return None, False
    if positive is AUTO:
        if dtype == pl.Boolean:
            return True, False
        if dtype.is_integer():
            return 1, True
        return None, False
    _check_label(dtype, positive, column, "positive")
    return positive, False


# names of the columns the methods make on the way (besides those each passes to _check_by)
_MADE = re.compile(r"_m\d+|_[PNnkGr]|_row\d*|_pos0|_label|__.*")


def _check_by(by: Sequence[str], outputs: Iterable[str]) -> None:
    """``by`` names each column once, and none that the result has or that is made on the way."""
    twice = [b for i, b in enumerate(by) if b in by[:i]]
    if twice:
        raise ValueError(f"by= names {twice[0]!r} more than once; name each column once")
    clash = [b for b in by if b in set(outputs) or _MADE.fullmatch(b)]
    if clash:
        raise ValueError(
            f"by column {clash[0]!r} clashes with a column of the result (or one made on the way); rename it"
        )


def _unique(columns: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(columns))


def _value_problems(
    frame: pl.LazyFrame, columns: Iterable[str], is_bad: Callable[[pl.Expr], pl.Expr], what: str, fix: str
) -> list[_checks.Problem]:
    """One check per column: how many values are bad, and the first bad row (0-based, in the frame as
    given, whichever engine runs) with its value."""
    return [
        _checks.value_problem(
            frame, is_bad(pl.col(c)), f"values in {FRAME} column {c!r} {what}", fix, value=c
        )
        for c in _unique(columns)
    ]


def _not_binary_problems(frame: pl.LazyFrame, columns: Iterable[str], fix: str) -> list[_checks.Problem]:
    return _value_problems(
        frame, columns, lambda col: ~col.is_in([0, 1]), "are neither 0 nor 1",
        f"integer labels are read as binary with positive class 1: {fix}",
    )


def _range_problems(
    frame: pl.LazyFrame, columns: Iterable[str], score_range: tuple[float, float] | None
) -> list[_checks.Problem]:
    if score_range is None:
        return []
    low, high = score_range
    return _value_problems(
        frame, columns, lambda col: (col < low) | (col > high),
        f"are outside the declared score range [{low}, {high}]", "fix the scores or score_range=",
    )


def _check_range(score_range: Any) -> tuple[float, float] | None:
    if score_range is None:
        return None
    try:
        low, high = (float(x) for x in score_range)
    except (TypeError, ValueError):
        raise ValueError(f"score_range must be a pair (low, high), got {score_range!r}") from None
    if not low <= high:
        raise ValueError(f"score_range must have low <= high, got {score_range!r}")
    return low, high


def weight_problems(frame: pl.LazyFrame, weight: str | None, seen: WeightsSeen | None = None) -> list[Any]:
    """Check a sample-weight column: numeric now (``TypeError``), values when collected.

    A weight that is null, NaN, infinite or negative is one ``ValueError``
    naming the column, how many rows, the first (0-based) and its value.
    ``seen``: for an eager call whose plan passes over the weights anyway
    (:func:`~frame_eval.classification.exact_weights.when_exact`), the check
    reads what that pass noted instead of passing over them again (its own
    pass when nothing was noted; a lazy call's plan counts as before).
    """
    if weight is None:
        return []
    if not isinstance(weight, str):
        raise TypeError(f"weight must be the name of a column of sample weights, got {weight!r}")
    schema = frame.collect_schema()
    _checks.require_columns(
        schema, [weight], FRAME, "pass weight= with the name of your sample-weight column"
    )
    if not schema[weight].is_numeric():
        raise TypeError(
            f"{FRAME} column {weight!r} must hold sample weights (numbers >= 0), got {schema[weight]}; "
            f"cast it, e.g. pl.col({weight!r}).cast(pl.Float64)"
        )
    w = pl.col(weight).cast(pl.Float64)
    bad = w.is_null() | w.is_nan() | w.is_infinite() | (w < 0)
    # whether any is bad from the null count and the largest bits (a negative weight, NaN or inf has
    # bits at or above +inf's; so has -0.0, a good weight, which costs the count when it fires): one
    # aggregation over the weights, where min, max and NaN took three
    fires = ((w.null_count() > 0) | (weight_bits(w).max() >= INFINITE_BITS)).fill_null(False)
    problem = _checks.value_problem(
        frame, bad, f"null, NaN, infinite or negative values in {FRAME} column {weight!r}",
        "sample weights must be finite numbers >= 0: drop or fix those rows", value=weight, fires=fires,
    )
    if seen is None:
        return [problem]
    tally = problem.frame

    def outside() -> int:  # (read once the plan has run)
        bad = seen.bad()
        return int(tally.collect().item()) if bad is None else int(bad)

    return [dataclasses.replace(problem, outside=outside)]


def _weight_column(weight: str | None) -> list[pl.Expr]:
    return [] if weight is None else [pl.col(weight).cast(pl.Float64).alias(_WEIGHT)]


def _labels(
    frame: pl.LazyFrame, actual: str, predicted: str, by: Sequence[str], weight: str | None = None
) -> tuple[pl.LazyFrame, pl.DataType, list[Any]]:
    """Checked labels as ``[*by, <actual>, <predicted>(, <weight>)]`` in one dtype, and the data problems
    (the weights' check last)."""
    problems = weight_problems(frame, weight)
    schema = frame.collect_schema()
    _checks.require_columns(
        schema, _unique([*by, actual, predicted]), FRAME,
        "pass actual=, predicted= or by= with your column names",
    )
    dtype = _common_label_dtype(schema, actual, predicted)
    labels = frame.select(
        *by, pl.col(actual).cast(dtype).alias(_ACTUAL), pl.col(predicted).cast(dtype).alias(_PREDICTED),
        *_weight_column(weight),
    )
    return labels, dtype, _checks.null_problems(frame, _unique([*by, actual, predicted]), FRAME) + problems


def _noting(problems: list[Any], frame: pl.LazyFrame, weight: str, seen: WeightsSeen) -> list[Any]:
    """``problems`` as :func:`_labels` gives them (none added: the weights' check is the last) with
    that check reading ``seen``."""
    return [*problems[:-1], *weight_problems(frame, weight, seen)]


def _check_shape(shape: Any) -> None:
    if shape not in ("long", "wide"):
        raise ValueError(f"shape must be 'long' or 'wide', got {shape!r}")


def _shaped(wide: pl.LazyFrame, keys: Sequence[str], names: Mapping[str, str], shape: Shape) -> pl.LazyFrame:
    """Tidy long ``[*keys, metric, value]``, or ``wide`` with one column per metric, named by it."""
    if shape == "long":
        return to_long(wide, keys, names)
    labels = list(names.values())
    _check_by(list(keys), labels)
    twice = [label for i, label in enumerate(labels) if label in labels[:i]]
    if twice:
        raise ValueError(
            f"metrics ask for {twice[0]} twice (synonyms name the same measure), and shape='wide' has one "
            f"column per measure: ask once"
        )
    return wide.select(*keys, *(pl.col(k).alias(label) for k, label in names.items()))


def _per_group(frame: pl.LazyFrame, by: Sequence[str], exprs: Sequence[pl.Expr]) -> pl.LazyFrame:
    if not by:
        return frame.select(exprs)
    return frame.group_by(list(by)).agg(exprs).sort(list(by))


def _beside(left: pl.LazyFrame, right: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """``right``'s columns beside ``left``'s, one row per group: a left join on ``by`` (null keys
    equal), or, without ``by`` (one row each), the two frames side by side."""
    if by:
        return left.join(right, on=list(by), how="left", nulls_equal=True)
    return pl.concat([left, right], how="horizontal")


def _scored(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str],
    positive: Any,
    score_range: tuple[float, float] | None,
    reserved: Sequence[str],
    weight: str | None = None,
) -> tuple[pl.LazyFrame, list[str], list[Any]]:
    """Checked ``[*keys, <is positive>, <score>]`` rows for curves and score measures.

    ``score`` is one score column (binary, positive as in :func:`confusion`)
    or a mapping ``{class label: score column}``: every class against the
    rest, with a ``class`` key. Returns the rows, the keys and the data checks.
    """
    score_range = _check_range(score_range)
    if not isinstance(score, str | Mapping):
        raise TypeError(
            f"score must be one column name (a binary problem) or a mapping {{class label: score column}} "
            f"(one problem per class), got {type(score).__name__} {score!r}; for several score columns of "
            f"one problem, call once per column"
        )
    schema = frame.collect_schema()
    per_class = isinstance(score, Mapping)
    score_columns = list(score.values()) if isinstance(score, Mapping) else [score]
    if per_class and not score_columns:
        raise ValueError("score={} names no score columns; map each class label to its score column")
    _check_by(by, [CLASS, *reserved])
    _checks.require_columns(
        schema, _unique([*by, actual, *score_columns]), FRAME,
        "pass actual=, score= or by= with your column names",
    )
    dtype = _require_labels(schema, actual)
    for c in score_columns:
        _checks.require_numeric(schema, c, FRAME)
    problems = _checks.null_problems(frame, _unique([*by, actual, *score_columns]), FRAME)
    problems += _range_problems(frame, score_columns, score_range)
    problems += weight_problems(frame, weight)
    by = list(by)
    if isinstance(score, Mapping):
        if positive is not AUTO:
            raise ValueError(
                "with score={class: column}, every class is positive in turn; leave out positive="
            )
        parts = []
        for label, column in score.items():
            _check_label(dtype, label, actual, "score key")
            parts.append(
                frame.select(
                    *by,
                    pl.lit(label).cast(dtype).alias(CLASS),
                    (pl.col(actual) == label).alias(_POSITIVE),
                    pl.col(column).cast(pl.Float64).alias(_SCORE),
                    *_weight_column(weight),
                )
            )
        return pl.concat(parts), [*by, CLASS], problems
    label, binary_only = resolve_positive(dtype, positive, actual)
    if label is None:
        raise ValueError(
            f"{FRAME} column {actual!r} holds {dtype} labels: pass positive=<label> for one binary problem, "
            f"or score={{label: score column, ...}} for one per class"
        )
    if binary_only:
        problems += _not_binary_problems(
            frame, [actual], "pass positive=<label> to choose the positive class"
        )
    scored = frame.select(
        *by, (pl.col(actual) == label).alias(_POSITIVE), pl.col(score).cast(pl.Float64).alias(_SCORE),
        *_weight_column(weight),
    )
    return scored, by, problems
