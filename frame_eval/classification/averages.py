"""A measure of predicted labels as one expression: binary, or averaged over the classes.

:func:`value` applies a measure's builder to counts, :func:`averaged` combines
per-class counts (micro, macro, weighted; the whole-matrix definitions of
accuracy, balanced accuracy, MCC and kappa), and :func:`rate_expr` is the
expression behind every public ``C.*`` count and rate function.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval._float import pairwise_sum
from frame_eval.classification.counts import (
    AUTO,
    Average,
    Counts,
    binary_counts,
    check_average,
    check_zero_division,
    class_counts,
    fill_undefined,
    is_nan,
    ordered_sum,
    ratio,
)
from frame_eval.classification.counts import weighted as weighted_value
from frame_eval.classification.rates import KAPPA, RATES, WHOLE_MATRIX, _sum, weighted_kappa
from frame_eval.registry import Measure, MeasureSpec, measure


def label_based(m: Measure, average: str | None) -> bool:
    """Whether ``m`` needs the label columns themselves, not one-vs-rest counts (weighted kappa)."""
    return average is not None and m.spec is KAPPA and m.kwargs.get("weights", "none") != "none"


def value(m: Measure, counts: Counts) -> pl.Expr:
    """The measure from counts (scalars or per-class vectors), null where undefined."""
    return RATES[m.spec.name](counts, **m.kwargs)


def averaged(
    m: Measure, counts: Counts, average: str, zero_division: float | None, order: pl.Expr | None = None
) -> pl.Expr:
    """One value from per-class count vectors; see the module docstring for the averages.

    ``order`` sorts the classes (a frame's rows of one group come in no set
    order); without it the vectors are in class order already. Means add the
    classes in that order, in NumPy's pairwise order (:func:`~frame_eval._float.pairwise_sum`), then
    divide, as scikit-learn's ``np.nanmean`` / ``np.average`` do: scikit-learn's
    bits for any number of classes, and the same bits on every run.
    ``zero_division=nan`` leaves undefined classes out of macro and weighted
    means, as scikit-learn does.
    """
    if order is not None:
        counts = Counts(*(x.sort_by(order) for x in (counts.tp, counts.fp, counts.fn, counts.tn)))
    fill = None if is_nan(zero_division) else zero_division  # NaN: undefined stays out of the means
    whole = WHOLE_MATRIX.get(m.spec.name)
    if whole is not None:
        result = fill_undefined(whole(counts), fill)
    elif average == "micro":
        summed = Counts(*(_sum(x) for x in (counts.tp, counts.fp, counts.fn, counts.tn)))
        result = fill_undefined(value(m, summed), fill)
    else:
        per_class = fill_undefined(value(m, counts), fill)
        defined = per_class.is_not_null()
        # macro is np.nanmean: undefined classes count as 0 in the sum and not in the count
        mean = ratio(pairwise_sum(per_class), defined.sum())
        if average == "macro":
            result = mean
        else:
            # weighted is np.average over the defined classes, weights their support; when those
            # weights are all 0, the plain mean of the defined classes (as scikit-learn)
            kept, weight = per_class.filter(defined), counts.p.cast(pl.Float64).filter(defined)
            weight_sum = ordered_sum(weight)  # whole numbers: exact in any order
            plain = ratio(pairwise_sum(kept), kept.len())
            weighted = ratio(pairwise_sum(kept * weight), weight_sum)
            result = pl.when(weight_sum > 0).then(weighted).otherwise(plain)
    return fill_undefined(result, zero_division) if is_nan(zero_division) else result


def rate_expr(
    m: Measure | MeasureSpec,
    actual: str,
    predicted: str,
    positive: Any,
    average: Average | None,
    zero_division: float | None,
    weight: str | None = None,
) -> pl.Expr:
    """The expression behind every public count and rate function (``weight``: a sample-weight column)."""
    ms = m if isinstance(m, Measure) else measure(m, kind="classification")
    average = check_average(average)  # type: ignore[assignment]
    zero_division = check_zero_division(zero_division)
    if average is None:
        if positive is None:
            raise ValueError(
                "positive=None (one value per class) is for frame.ireval.rates(); in an expression, "
                "pass a positive label or average='micro', 'macro' or 'weighted'"
            )
        result = fill_undefined(value(ms, binary_counts(actual, predicted, positive, weight)), zero_division)
    else:
        if positive is not AUTO:
            raise ValueError(f"pass either positive= (binary) or average= (multi-class), not both: {ms.name}")
        if label_based(ms, average):
            kappa = weighted_kappa(actual, predicted, ms.kwargs["weights"], weight)
            result = fill_undefined(weighted_value(kappa, weight), zero_division)
        else:
            result = averaged(ms, class_counts(actual, predicted, weight), average, zero_division)
    return result.alias(ms.name)

