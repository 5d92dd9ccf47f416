"""Rates of predicted labels, one ratio of counts each, as polars aggregation expressions.

``C.recall``, ``C.fnr``, ``C.specificity``, ``C.fpr``, ``C.precision``, ``C.fdr``, ``C.npv``,
``C.false_omission_rate``, ``C.accuracy``, ``C.error_rate``, ``C.prevalence``: binary, or
averaged over the classes with ``average=`` (:mod:`~frame_eval.classification.averages`).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval.classification.averages import rate_expr
from frame_eval.classification.counts import ACTUAL, AUTO, PREDICTED, Average
from frame_eval.classification.rates import (
    ACCURACY,
    ERROR_RATE,
    FDR,
    FNR,
    FOR,
    FPR,
    NPV,
    PRECISION,
    PREVALENCE,
    RECALL,
    SPECIFICITY,
)

__all__ = [
    "accuracy",
    "error_rate",
    "false_omission_rate",
    "fdr",
    "fnr",
    "fpr",
    "npv",
    "precision",
    "prevalence",
    "recall",
    "specificity",
]


def recall(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Recall, true positive rate (TPR, sensitivity, hit rate): ``TP / P``.

    Null when ``P`` is 0 (no actual positives), or ``zero_division`` if given.

    Parameters
    ----------
    actual, predicted
        Label columns: Boolean, integer, string or categorical.
    positive
        The positive label (default ``True`` / ``1``); every other label is negative.
    average
        ``"micro"``, ``"macro"`` or ``"weighted"``: score every class of the
        group one-vs-rest and combine (see the module docstring); ``positive``
        must then be left out.
    zero_division
        Value for an undefined result (scikit-learn's ``zero_division``); the
        default leaves it null, like scikit-learn's ``np.nan``.
    weight
        A column of sample weights (numbers >= 0; scikit-learn's
        ``sample_weight``): every count becomes the sum of its rows' weights
        (Float64), added in a fixed order so the value does not depend on the
        row order. A weight that is negative, null, NaN or infinite raises a
        ``ValueError`` naming its position in the group.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> weighted = pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 0], "w": [3.0, 1.0, 2.0]})
    >>> weighted.select(C.recall("y", "yhat", weight="w")).item()  # 3 / (3 + 1)
    0.75
    >>> df = pl.DataFrame({"y": ["a", "a", "b", "c"], "yhat": ["a", "b", "b", "b"]})
    >>> df.select(C.recall("y", "yhat", positive="a"), C.recall("y", "yhat", average="macro").alias("macro"))
    shape: (1, 2)
    ┌────────┬───────┐
    │ recall ┆ macro │
    │ ---    ┆ ---   │
    │ f64    ┆ f64   │
    ╞════════╪═══════╡
    │ 0.5    ┆ 0.5   │
    └────────┴───────┘
    """
    return rate_expr(RECALL, actual, predicted, positive, average, zero_division, weight)


def fnr(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """False negative rate (miss rate): ``FN / P = 1 - recall``.

    Null when ``P`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.fnr("y", "yhat")).item()
    0.5
    """
    return rate_expr(FNR, actual, predicted, positive, average, zero_division, weight)


def specificity(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Specificity, true negative rate (TNR, selectivity): ``TN / N``.

    Null when ``N`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [1, 0, 1]}).select(C.specificity("y", "yhat")).item()
    0.5
    """
    return rate_expr(SPECIFICITY, actual, predicted, positive, average, zero_division, weight)


def fpr(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """False positive rate (fall-out): ``FP / N = 1 - specificity``.

    Null when ``N`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [1, 0, 1]}).select(C.fpr("y", "yhat")).item()
    0.5
    """
    return rate_expr(FPR, actual, predicted, positive, average, zero_division, weight)


def precision(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Precision, positive predictive value (PPV): ``TP / PP``.

    Null when nothing is predicted positive (``PP`` is 0). Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 0], "yhat": [0, 0, 0]})
    >>> df.select(C.precision("y", "yhat"), C.precision("y", "yhat", zero_division=0).alias("zd")).row(0)
    (None, 0.0)
    """
    return rate_expr(PRECISION, actual, predicted, positive, average, zero_division, weight)


def fdr(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """False discovery rate: ``FP / PP = 1 - precision``.

    Null when ``PP`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [1, 0, 1]}).select(C.fdr("y", "yhat")).item()
    0.5
    """
    return rate_expr(FDR, actual, predicted, positive, average, zero_division, weight)


def npv(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Negative predictive value: ``TN / PN``.

    Null when nothing is predicted negative. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [0, 0, 1]}).select(C.npv("y", "yhat")).item()
    0.5
    """
    return rate_expr(NPV, actual, predicted, positive, average, zero_division, weight)


def false_omission_rate(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """False omission rate (FOR): ``FN / PN = 1 - NPV``.

    Null when ``PN`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [0, 0, 1]}).select(C.false_omission_rate("y", "yhat")).item()
    0.5
    """
    return rate_expr(FOR, actual, predicted, positive, average, zero_division, weight)


def accuracy(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Accuracy: ``(TP + TN) / total``; with any ``average``, the share of rows predicted right.

    With ``average`` this is scikit-learn's multi-class ``accuracy_score``
    (correct rows over all rows), whichever average is named. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": ["a", "b", "c", "c"], "yhat": ["a", "b", "b", "c"]})
    >>> df.select(C.accuracy("y", "yhat", positive="c"),
    ...           C.accuracy("y", "yhat", average="micro").alias("all")).row(0)
    (0.75, 0.75)
    """
    return rate_expr(ACCURACY, actual, predicted, positive, average, zero_division, weight)


def error_rate(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Error rate (misclassification rate): ``(FP + FN) / total = 1 - accuracy``.

    With ``average``, the share of rows predicted wrong. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0, 0], "yhat": [1, 0, 1, 0]}).select(C.error_rate("y", "yhat")).item()
    0.25
    """
    return rate_expr(ERROR_RATE, actual, predicted, positive, average, zero_division, weight)


def prevalence(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Prevalence: ``P / total``, the share of actual positives.

    Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0, 0], "yhat": [1, 0, 1, 0]}).select(C.prevalence("y", "yhat")).item()
    0.25
    """
    return rate_expr(PREVALENCE, actual, predicted, positive, average, zero_division, weight)
