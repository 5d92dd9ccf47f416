"""The frame-level front end of probability scores: ``.ireval.probabilities`` and ``.ireval.calibration``.

Checks the frame once, at the boundary (columns, dtypes, nulls, probabilities
in [0, 1], rows summing to 1, known classes, non-negative weights), then runs
the builders of :mod:`~frame_eval.classification.probabilistic` and
:mod:`~frame_eval.classification.calibration` per group. Errors name the
column, the first offending row (counting from 0) and its value, and the fix;
lazy frames raise them when collected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval.classification import evaluate as _front
from frame_eval.classification.calibration import calibration_bins, check_binning
from frame_eval.classification.counts import AUTO
from frame_eval.classification.probabilistic import (
    BRIER,
    LOG_LOSS,
    PROBABILITY_SPECS,
    class_columns,
    prob_columns,
)
from frame_eval.registry import resolve

__all__ = ["calibration", "probabilities"]

FRAME: Final = _front.FRAME
PROBABILITY_DEFAULTS: Final = (LOG_LOSS.name, BRIER.name)
# scikit-learn warns when a row's probabilities are not close to 1: |sum - 1| <= 1e-8 + sqrt(eps)
SUM_TOLERANCE: Final = 1e-8 + math.sqrt(2.0**-52)
_SUM = "__frame_eval_row_sum"


def _range_problem(frame: pl.LazyFrame, column: str) -> _checks.Problem:
    col = pl.col(column)
    return _checks.value_problem(
        frame, (col < 0) | (col > 1), f"probabilities in {FRAME} column {column!r} outside [0, 1]",
        "pass probabilities (for scores or logits, apply a sigmoid or softmax first)", value=column,
    )


def _weight_problems(frame: pl.LazyFrame, schema: pl.Schema, weight: str | None) -> list[Any]:
    if weight is None:
        return []
    _checks.require_numeric(schema, weight, FRAME)
    return [_checks.value_problem(
        frame, (pl.col(weight) < 0) | pl.col(weight).is_infinite(),
        f"negative sample weights (or infinite ones) in {FRAME} column {weight!r}",
        "weights must be finite and 0 or more (drop the rows instead of weighting them negatively)",
        value=weight,
    )]


def with_labels(prob: Any, labels: Sequence[Any] | None) -> Any:
    """``prob`` as given, or ``{label: column}`` from a list of columns and scikit-learn's ``labels=``."""
    if labels is None:
        if isinstance(prob, list | tuple):
            raise ValueError(
                f"prob={list(prob)!r} lists probability columns: pass labels=[...] with the class of each "
                f"column, in the same order (or prob={{class label: column}})"
            )
        return prob
    if not isinstance(prob, list | tuple) or len(prob) != len(labels):
        raise ValueError(
            "labels= names the class of each column of prob=[...]: pass a list of as many columns as labels "
            f"(got prob={prob!r}, labels={list(labels)!r})"
        )
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels= holds a label twice: {list(labels)!r}")
    return dict(zip(labels, prob, strict=True))


def probabilities(
    frame: pl.LazyFrame,
    actual: str,
    prob: str | Mapping[Any, str],
    by: Sequence[str] = (),
    *,
    metrics: Any = None,
    positive: Any = AUTO,
    weight: str | None = None,
    labels: Sequence[Any] | None = None,
    shape: Any = "long",
) -> pl.LazyFrame:
    """``[*by, metric, value]``: log-loss, Brier score or ECE of each group's probabilities."""
    prob = with_labels(prob, labels)
    _front._check_shape(shape)
    ms = resolve(PROBABILITY_DEFAULTS if metrics is None else metrics, "classification")
    for m in ms:
        if m.spec not in PROBABILITY_SPECS:
            raise ValueError(
                f"{m.name} is not a probability score; probabilities() computes "
                f"{', '.join(s.name for s in PROBABILITY_SPECS)} (see .ireval.scores and .ireval.rates)"
            )
    by = list(by)
    _front._check_by(by, ["metric", "value"])
    schema = frame.collect_schema()
    prob_columns(prob, positive, weight)  # the expressions' checks of prob= and positive=
    given = list(prob.values()) if isinstance(prob, Mapping) else [prob]
    extra = [weight] if weight is not None else []
    _checks.require_columns(
        schema, _front._unique([*by, actual, *given, *extra]), FRAME,
        "pass actual=, prob=, weight= or by= with your column names",
    )
    dtype = _front._require_labels(schema, actual)
    for c in given:
        _checks.require_numeric(schema, c, FRAME)
    checked_columns = _front._unique([*by, actual, *given, *extra])
    problems: list[Any] = _checks.null_problems(frame, checked_columns, FRAME)
    problems += [_range_problem(frame, c) for c in _front._unique(given)]
    problems += _weight_problems(frame, schema, weight)
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    chosen = {f"_m{i}": m for i, m in enumerate(ms)}
    if isinstance(prob, Mapping):
        for label in prob:
            _front._check_label(dtype, label, actual, "prob key")
        classes = class_columns(prob)
        columns = [c for _, c in classes]
        row_sums = pl.sum_horizontal(pl.col(c).cast(pl.Float64) for c in columns)
        summed = frame.with_columns(row_sums.alias(_SUM))
        problems.append(_checks.value_problem(
            summed, ((pl.col(_SUM) - 1.0).abs() > SUM_TOLERANCE),
            f"rows whose probabilities in {FRAME} columns {columns} do not sum to 1 "
            f"(within {SUM_TOLERANCE:.3g}, scikit-learn's tolerance; the value shown is the row's sum)",
            "give every class its column in prob=, or divide each row's probabilities by their sum",
            value=_SUM,
        ))
        problems.append(_checks.value_problem(
            frame, ~pl.col(actual).is_in([label for label, _ in classes]),
            f"labels in {FRAME} column {actual!r} with no probability column in prob=",
            "add a column for every class to prob={class label: column}", value=actual,
        ))
        spec_columns: dict[str, Any] = {"actual": actual, "probs": dict(prob)}
        scored = frame
        if any(m.spec not in (LOG_LOSS, BRIER) for m in ms):
            raise ValueError("ECE reads one probability column (binary); pass prob='<column>'")
    else:
        label, binary_only = _front.resolve_positive(dtype, positive, actual)
        if label is None:
            raise ValueError(
                f"{FRAME} column {actual!r} holds {dtype} labels: pass positive=<label> for one binary "
                f"problem, or prob={{label: probability column, ...}} for several classes"
            )
        if binary_only:
            problems += _front._not_binary_problems(
                frame, [actual], "pass positive=<label> to choose the positive class"
            )
        scored = frame.select(
            *by, (pl.col(actual) == label).alias(_front._POSITIVE),
            pl.col(prob).cast(pl.Float64).alias(_front._SCORE), *extra,
        )
        spec_columns = {"actual": _front._POSITIVE, "score": _front._SCORE, "positive": True}
    if weight is not None:
        spec_columns["weight"] = weight
    exprs = [
        m.spec.build(spec_columns, None, **m.kwargs).cast(pl.Float64).alias(k) for k, m in chosen.items()
    ]
    wide = scored.group_by(by).agg(exprs).sort(by) if by else scored.select(exprs)
    return _checks.attach(_front._shaped(wide, by, names, shape), problems)


CALIBRATION_COLUMNS: Final = ("bin", "count", "mean_predicted", "fraction_positive")


def calibration(
    frame: pl.LazyFrame,
    actual: str,
    prob: str,
    by: Sequence[str] = (),
    *,
    n_bins: int = 5,
    strategy: str = "uniform",
    positive: Any = AUTO,
) -> pl.LazyFrame:
    """``[*by, bin, count, mean_predicted, fraction_positive]``: the reliability curve of each group."""
    n_bins, strategy = check_binning(n_bins, strategy)
    if not isinstance(prob, str):
        raise TypeError(f"prob must be one probability column (binary), got {type(prob).__name__} {prob!r}")
    scored, keys, problems = _front._scored(
        frame, actual, prob, by, positive, None, [*CALIBRATION_COLUMNS, "_k", "_s"]
    )
    problems = [*problems, _range_problem(frame, prob)]
    result = calibration_bins(scored, keys, _front._POSITIVE, _front._SCORE, n_bins, strategy)
    return _checks.attach(result, problems)
