"""Measures of predicted labels that combine several rates, as polars aggregation expressions.

``C.fbeta``, ``C.f1``, ``C.balanced_accuracy``, ``C.mcc``, ``C.informedness``, ``C.markedness``,
``C.lr_plus``, ``C.lr_minus``, ``C.diagnostic_odds_ratio``, ``C.fowlkes_mallows``,
``C.threat_score`` and Cohen's kappa (``C.cohen_kappa``, with disagreement weights).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval.classification.averages import rate_expr
from frame_eval.classification.counts import ACTUAL, AUTO, PREDICTED, Average
from frame_eval.classification.rates import (
    BALANCED_ACCURACY,
    CSI,
    DOR,
    FM,
    INFORMEDNESS,
    KAPPA,
    LR_MINUS,
    LR_PLUS,
    MARKEDNESS,
    MCC,
    F,
)
from frame_eval.registry import measure

__all__ = [
    "balanced_accuracy",
    "cohen_kappa",
    "diagnostic_odds_ratio",
    "f1",
    "fbeta",
    "fowlkes_mallows",
    "informedness",
    "lr_minus",
    "lr_plus",
    "markedness",
    "mcc",
    "threat_score",
]


def fbeta(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    beta: float = 1.0,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """F-beta score: ``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``, named ``F1``, ``F2``, ``F0.5``...

    The weighted harmonic mean of precision and recall, recall counting
    ``beta`` times as much. Written with counts, as scikit-learn does: 0 when
    ``TP`` is 0 but ``P`` or ``PP`` is not; null only when ``P`` and ``PP``
    are both 0. ``beta=0`` gives precision, ``beta=float("inf")`` recall (as
    scikit-learn). Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 1, 1]})  # TP 1, FN 1, FP 2
    >>> [round(v, 4) for v in df.select(C.fbeta("y", "yhat", beta=2), C.fbeta("y", "yhat", beta=0.5)).row(0)]
    [0.4545, 0.3571]
    """
    m = measure(F, kind="classification", beta=beta)
    return rate_expr(m, actual, predicted, positive, average, zero_division, weight)


def f1(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """F1 score: ``2 TP / (2 TP + FN + FP)``, the harmonic mean of precision and recall.

    :func:`fbeta` with ``beta=1``. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 1, 1]}).select(C.f1("y", "yhat")).item()
    0.4
    """
    return rate_expr(F, actual, predicted, positive, average, zero_division, weight)


def balanced_accuracy(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Balanced accuracy: ``(TPR + TNR) / 2``, the mean recall of the two classes.

    As in scikit-learn, a class without actual rows is left out of the mean
    (only positives: ``TPR``; only negatives: ``TNR``); null for no rows. With
    ``average``, the mean recall over the classes with actual rows
    (scikit-learn's multi-class ``balanced_accuracy_score``). Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 0, 0], "yhat": [1, 0, 1, 0]})  # TPR 1, TNR 2/3
    >>> round(df.select(C.balanced_accuracy("y", "yhat")).item(), 4)
    0.8333
    """
    return rate_expr(BALANCED_ACCURACY, actual, predicted, positive, average, zero_division, weight)


def mcc(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Matthews correlation coefficient (phi): ``(TP TN - FP FN) / sqrt(PP P N PN)``.

    Null when any of ``PP, P, N, PN`` is 0 (scikit-learn returns 0 there:
    pass ``zero_division=0`` for its value). With ``average``, Gorodkin's
    multi-class ``R_K`` on the whole matrix, scikit-learn's multi-class
    ``matthews_corrcoef``. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 0, 0]})
    >>> round(df.select(C.mcc("y", "yhat")).item(), 4)
    0.5774
    """
    return rate_expr(MCC, actual, predicted, positive, average, zero_division, weight)


def informedness(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Informedness (Youden's J, bookmaker informedness): ``TPR + TNR - 1``.

    Null when ``P`` or ``N`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 0, 0]}).select(C.informedness("y", "yhat")).item()
    0.5
    """
    return rate_expr(INFORMEDNESS, actual, predicted, positive, average, zero_division, weight)


def markedness(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Markedness (deltaP): ``PPV + NPV - 1``.

    Null when ``PP`` or ``PN`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 0, 0]})  # PPV 1, NPV 2/3
    >>> round(df.select(C.markedness("y", "yhat")).item(), 4)
    0.6667
    """
    return rate_expr(MARKEDNESS, actual, predicted, positive, average, zero_division, weight)


def lr_plus(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Positive likelihood ratio ``LR+``: ``TPR / FPR``.

    Null when ``P`` or ``N`` is 0, or when there are no false positives
    (``FPR`` is 0). Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 1, 1, 0]}).select(C.lr_plus("y", "yhat")).item()
    2.0
    """
    return rate_expr(LR_PLUS, actual, predicted, positive, average, zero_division, weight)


def lr_minus(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Negative likelihood ratio ``LR-``: ``FNR / TNR``.

    Null when ``P`` or ``N`` is 0, or when there are no true negatives.
    Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 0, 0]}).select(C.lr_minus("y", "yhat")).item()
    0.5
    """
    return rate_expr(LR_MINUS, actual, predicted, positive, average, zero_division, weight)


def diagnostic_odds_ratio(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Diagnostic odds ratio (DOR): ``(TP TN) / (FP FN) = LR+ / LR-``.

    Null when ``FP`` or ``FN`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 1, 0, 0, 0], "yhat": [1, 1, 0, 1, 0, 0]})
    >>> df.select(C.diagnostic_odds_ratio("y", "yhat")).item()
    4.0
    """
    return rate_expr(DOR, actual, predicted, positive, average, zero_division, weight)


def fowlkes_mallows(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Fowlkes-Mallows index (FM): ``sqrt(PPV TPR) = TP / sqrt(PP P)``.

    Null when ``PP`` or ``P`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 1, 1, 1]}).select(C.fowlkes_mallows("y", "yhat")).item()
    0.7071067811865475
    """
    return rate_expr(FM, actual, predicted, positive, average, zero_division, weight)


def threat_score(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Threat score, critical success index (CSI), Jaccard index: ``TP / (TP + FN + FP)``.

    Null when ``TP + FN + FP`` is 0. Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0, 0], "yhat": [1, 0, 1, 0]}).select(C.threat_score("y", "yhat")).item()
    0.3333333333333333
    """
    return rate_expr(CSI, actual, predicted, positive, average, zero_division, weight)



def cohen_kappa(
    actual: str = ACTUAL,
    predicted: str = PREDICTED,
    *,
    weights: str = "none",
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.Expr:
    """Cohen's kappa: ``(p_o - p_e) / (1 - p_e)``, scikit-learn's ``cohen_kappa_score(weights=)``.

    ``weights="linear"`` or ``"quadratic"`` weighs each disagreement by
    ``|i - j|`` or ``(i - j)^2``, ``i`` and ``j`` the positions of the actual
    and predicted labels among the group's sorted classes:
    ``1 - sum w_ij C_ij / sum w_ij E_ij``, ``E`` the matrix expected by
    chance (computed from integer sums and divided once). Ordinal labels
    only make sense here (sorted order is the scale). With two classes the
    weights change nothing.

    ``p_o`` is the share of rows whose labels agree, ``p_e`` the agreement
    expected by chance from the actual and predicted counts of each class.
    Binary by default (the 2 x 2 matrix); with any ``average``, the whole
    K x K matrix of the group's classes. Computed from integer counts and
    divided once. Null when ``p_e`` is 1 (one class on both sides;
    scikit-learn gives NaN). Parameters as in :func:`recall`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": ["a", "a", "b", "c"], "yhat": ["a", "b", "b", "c"]})
    >>> round(df.select(C.cohen_kappa("y", "yhat", average="macro")).item(), 6)
    0.636364
    >>> df.select(C.cohen_kappa("y", "yhat", weights="quadratic", average="macro")).item()
    0.8
    """
    m = measure(KAPPA, kind="classification", weights=weights)
    return rate_expr(m, actual, predicted, positive, average, zero_division, weight)
