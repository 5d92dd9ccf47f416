"""Choosing a score threshold: the distinct score that is best by a criterion.

A row is predicted positive when ``score >= threshold``; the candidates are
the distinct scores of the group, the points of its curve
(:func:`frame_eval.classification.curves.points`). Every criterion is a ratio
of integer counts and is compared exactly, so equal values tie, and among
equally good thresholds the highest wins.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import polars as pl

from frame_eval.classification.counts import ACTUAL, AUTO
from frame_eval.classification.curves import SCORE, Points, _expr, _points_of, _spec
from frame_eval.registry import Param

__all__ = ["best_threshold"]

Criterion = Literal["accuracy", "youden", "f1", "closest_to_01"]
CRITERIA: Final = ("accuracy", "youden", "f1", "closest_to_01")


def _criterion(pts: Points, criterion: str) -> tuple[pl.Expr, pl.Expr]:
    """(an exact Int128 key that orders the points as the criterion does, where the criterion is defined).

    Each criterion is a ratio of integer counts; comparing the floats would decide ties by rounding
    (Youden's J is 2/3 at two thresholds, as two floats that differ), so each is compared exactly.
    """
    big = pl.Int128
    tp, fp = pts.tp.cast(big), pts.fp.cast(big)
    positives, negatives = pts.positives.cast(big), pts.negatives.cast(big)
    both = (pts.positives > 0) & (pts.negatives > 0)
    if criterion == "accuracy":  # (tp + tn) / total, the total fixed: tp - fp
        return tp - fp, (pts.positives + pts.negatives) > 0
    if criterion == "youden":  # tp / P - fp / N, times P N
        return tp * negatives - fp * positives, both
    if criterion == "f1":  # 2 tp / (tp + fp + P); distinct ratios of counts < 2^41 differ by >= 2^-82
        return (tp * pl.lit(1 << 85, big)) // (tp + fp + positives), (pts.positives > 0) | (pts.negatives > 0)
    # closest_to_01: the smallest (fp / N)^2 + (fn / P)^2, times (P N)^2
    fn = positives - tp
    return pl.lit(0, big) - (fp * fp * positives * positives + fn * fn * negatives * negatives), both


def _weighted_criterion(pts: Points, criterion: str) -> tuple[pl.Expr, pl.Expr]:
    """As :func:`_criterion` for weighted counts (floats): the criterion's value, compared as a float."""
    tp, fp, positives, negatives = pts.tp, pts.fp, pts.positives, pts.negatives
    both = (positives > 0) & (negatives > 0)
    if criterion == "accuracy":
        return tp - fp, (positives + negatives) > 0
    if criterion == "youden":
        return tp / positives - fp / negatives, both
    if criterion == "f1":
        return 2.0 * tp / (tp + fp + positives), (positives > 0) | (negatives > 0)
    fn = positives - tp
    return -((fp / negatives) ** 2 + (fn / positives) ** 2), both


def _build_best_threshold(columns: Any, cutoff: float | None, *, criterion: str) -> pl.Expr:
    pts = _points_of(columns)
    key, defined = (_weighted_criterion if columns.get("weight") else _criterion)(pts, criterion)
    return pl.when(defined).then(pts.threshold.filter(key == key.max()).max())


_CRITERION = Param("criterion", str, "youden", CRITERIA, "what the best threshold maximises")
BEST_THRESHOLD = _spec(
    "best_threshold", "the score threshold that is best by a criterion", _build_best_threshold,
    params=(_CRITERION,),
)


def best_threshold(
    actual: str = ACTUAL,
    score: str = SCORE,
    *,
    criterion: Criterion = "youden",
    positive: Any = AUTO,
    weight: str | None = None,
) -> pl.Expr:
    """The score threshold (predict positive when ``score >= threshold``) that is best by ``criterion``.

    Candidates are the distinct scores of the group (the curve's points).
    ``criterion``: ``"youden"`` maximises ``TPR - FPR`` (Youden's J);
    ``"accuracy"`` maximises ``(TP + TN) / total``; ``"f1"`` maximises F1;
    ``"closest_to_01"`` minimises the distance to the ROC corner
    ``(FPR 0, TPR 1)``. Among equally good thresholds the highest wins. Null
    when the criterion is undefined everywhere (Youden's J and the distance
    need positive and negative rows).

    Parameters
    ----------
    criterion
        One of ``"youden"``, ``"accuracy"``, ``"f1"``, ``"closest_to_01"``.
    actual, score, positive, weight
        As in :func:`roc_auc`. With weights the counts are sums of weights
        and the criterion is compared as a float (rounded), not exactly.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8, 0.9]})
    >>> df.select(C.best_threshold("y", "prob"), C.best_threshold("y", "prob", criterion="f1")).row(0)
    (0.8, 0.35)
    """
    return _expr(BEST_THRESHOLD, actual, score, positive, weight, criterion=criterion)
