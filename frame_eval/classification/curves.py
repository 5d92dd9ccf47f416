"""Threshold curves of a classifier score and the areas under them: ROC AUC, average precision, PR AUC, EER.

Each function is a polars aggregation expression over an actual-label column
and a numeric score column, like those of :mod:`frame_eval.classification`
(which re-exports them: ``C.roc_auc("label", "prob")``).

The threshold curve underneath has **one point per distinct score**: at
threshold ``t`` a row is predicted positive when ``score >= t``, so rows
with equal scores always fall on the same side (ties form one point). This
is scikit-learn's ``roc_curve`` / ``precision_recall_curve`` with
``drop_intermediate=False``, without their extra end points (see
:meth:`frame_eval.polars_ns.IREvalNamespace.roc` for the exact relation).

A row is positive when its actual label equals ``positive`` (default
``True`` / ``1``). Rows with a null label or a null or NaN score are not
counted. A score is null (undefined) when the group has no positive (or, for
ROC AUC, EER and some thresholds, no negative) rows; scikit-learn raises or
warns there instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import polars as pl

from frame_eval._float import pairwise_sum, positive_zero
from frame_eval.classification.counts import (
    ACTUAL,
    AUTO,
    checked,
    is_positive,
    parseable,
    ratio,
    weighted,
)
from frame_eval.registry import Doc, MeasureSpec, measure, register

__all__ = ["average_precision", "equal_error_rate", "pr_auc", "roc_auc"]

SCORE: Final = "score"


@dataclass(frozen=True)
class Points:
    """The curve of one group as vectors, threshold descending: one entry per distinct score."""

    threshold: pl.Expr
    tp: pl.Expr  # positives with score >= threshold (Int64; with weights the sum of theirs, Float64)
    fp: pl.Expr
    positives: pl.Expr  # P and N of the group (scalars)
    negatives: pl.Expr

    @property
    def tpr(self) -> pl.Expr:
        return ratio(self.tp, self.positives)

    @property
    def fpr(self) -> pl.Expr:
        return ratio(self.fp, self.negatives)

    @property
    def precision(self) -> pl.Expr:
        return ratio(self.tp, self.tp + self.fp)


def points(actual: str, score: str, positive: Any = AUTO, weight: str | None = None) -> Points:
    """The distinct scores, high to low, with the positives and negatives scoring at least as much.

    Counted by binary search in the sorted scores of each side, which is a few
    times faster in a group than a cumulative sum over all rows sorted by score.
    With ``weight``, see :func:`points_from`.
    """
    w = None if weight is None else pl.col(weight).cast(pl.Float64)
    pts = points_from(is_positive(actual, positive), pl.col(score).cast(pl.Float64), w)
    # every measure reads the positives: the label and weight checks go there
    return replace(pts, positives=weighted(checked(pts.positives, [actual], positive), weight))


def points_from(label: pl.Expr, value: pl.Expr, weight: pl.Expr | None = None) -> Points:
    """The curve of a Boolean ``label`` and a Float64 ``value`` vector (rows with a null label or a
    null or NaN value are left out); see :func:`points`.

    With ``weight`` (a Float64 vector): ``tp``, ``fp``, ``P``, ``N`` are sums
    of weights. As scikit-learn's ``_binary_clf_curve``, rows of weight 0 are
    left out (a score held only by them is no point). The rows are sorted by
    (score descending, label, weight) and the weights of each side added one
    by one in that order; a point takes the running sums at the end of its
    tied scores. That order depends on the values only, so the sums have the
    same bits for any row order.
    """
    keep = label.is_not_null() & value.is_not_nan()  # null and NaN scores give null: dropped
    if weight is None:
        label, value = label.filter(keep), value.filter(keep)
        thresholds = value.unique().sort(descending=True)

        def at_least(side: pl.Expr) -> pl.Expr:
            ordered = side.sort()
            return (ordered.len() - ordered.search_sorted(thresholds, side="left")).cast(pl.Int64)

        positives = label.sum().cast(pl.Int64)
        return Points(
            threshold=positive_zero(thresholds),  # a -0.0 point reads 0.0, whichever zero came first
            tp=at_least(value.filter(label)),
            fp=at_least(value.filter(~label)),
            positives=positives,
            negatives=label.len().cast(pl.Int64) - positives,
        )
    keep = keep & weight.is_not_null() & (weight != 0)
    label, value, w = label.filter(keep), value.filter(keep), weight.filter(keep)
    order, descending = [value, label, w], [True, False, False]
    value, label, w = (x.sort_by(order, descending=descending) for x in (value, label, w))
    tp_run = pl.when(label).then(w).otherwise(0.0).cum_sum()
    fp_run = pl.when(label).then(0.0).otherwise(w).cum_sum()
    end = (value != value.shift(-1)).fill_null(True)
    return Points(
        threshold=positive_zero(value.filter(end)),
        tp=tp_run.filter(end),
        fp=fp_run.filter(end),
        positives=tp_run.last().fill_null(0.0),
        negatives=fp_run.last().fill_null(0.0),
    )


def measure_from(
    label: pl.Expr, value: pl.Expr, weight: pl.Expr | None, measure: Callable[[Points], pl.Expr]
) -> pl.Expr:
    """``measure`` of the curve of ``label`` / ``value`` (optionally ``weight``) vectors, one value per group.

    With weights the rows are sorted once by (score descending, label, weight), packed into one list,
    and the curve and ``measure`` are computed inside that list (``list.eval``): polars would otherwise
    sort again for every place the measure reads the curve. The sums are those of :func:`points_from`.
    """
    if weight is None:
        return measure(points_from(label, value))
    keep = label.is_not_null() & value.is_not_nan() & weight.is_not_null() & (weight != 0)
    v, lab, w = value.filter(keep), label.filter(keep), weight.filter(keep)
    rows = pl.struct(v.alias("v"), lab.alias("l"), w.alias("w"))
    rows = rows.sort_by([v, lab, w], descending=[True, False, False])
    row = pl.element()
    ev, el, ew = row.struct.field("v"), row.struct.field("l"), row.struct.field("w")
    tp_run = pl.when(el).then(ew).otherwise(0.0).cum_sum()
    fp_run = pl.when(el).then(0.0).otherwise(ew).cum_sum()
    end = (ev != ev.shift(-1)).fill_null(True)
    curve = Points(
        threshold=positive_zero(ev.filter(end)), tp=tp_run.filter(end), fp=fp_run.filter(end),
        positives=tp_run.last().fill_null(0.0), negatives=fp_run.last().fill_null(0.0),
    )
    return rows.implode().list.eval(measure(curve)).list.first()


def measure_of(columns: Any, measure: Callable[[Points], pl.Expr]) -> pl.Expr:
    """``measure`` of the curve of a registry call's columns (actual, score, positive, weight), checked."""
    actual, score, positive = _args(columns)
    weight = columns.get("weight")
    w = None if weight is None else pl.col(weight).cast(pl.Float64)
    value = measure_from(is_positive(actual, positive), pl.col(score).cast(pl.Float64), w, measure)
    return weighted(checked(value, [actual], positive), weight)


# -- builders: (columns, cutoff, **params) -> unaliased expression ------------------------------------

def _args(columns: Any) -> tuple[str, str, Any]:
    return columns.get("actual", ACTUAL), columns.get("score", SCORE), columns.get("positive", AUTO)


def _points_of(columns: Any) -> Points:
    return points(*_args(columns), columns.get("weight"))


def _build_roc_auc(columns: Any, cutoff: float | None) -> pl.Expr:
    return _area_of_points("ROC_AUC", columns)


def _build_average_precision(columns: Any, cutoff: float | None) -> pl.Expr:
    return _area_of_points("average_precision", columns)


def _build_pr_auc(columns: Any, cutoff: float | None) -> pl.Expr:
    return _area_of_points("PR_AUC", columns)


def _build_eer(columns: Any, cutoff: float | None) -> pl.Expr:
    return _area_of_points("EER", columns)


# -- the areas, from a group's points (threshold descending) --------------------------------------------
#
# A float sum's last bits depend on the order of its additions. The areas add scikit-learn's terms (the
# same divisions, differences and products) in NumPy's pairwise order (frame_eval._float.pairwise_sum),
# the order np.sum, np.trapezoid and scipy's trapezoid use: scikit-learn's bits, on every call, thread
# count and engine. ROC AUC first drops the points scikit-learn's roc_curve drops (drop_intermediate).

def point_terms(
    tp: pl.Expr, fp: pl.Expr, tp_before: pl.Expr, fp_before: pl.Expr, positives: pl.Expr, negatives: pl.Expr
) -> dict[str, pl.Expr]:
    """Each point's share of every area, from its counts and those of the point before (0, 0 first).

    The expressions and :mod:`~frame_eval.classification.grouped_scores` both use these: the same bits.
    ``tp`` and ``fp`` are kept for :func:`roc_terms`.
    """
    recall, recall_before = ratio(tp, positives), ratio(tp_before, positives)
    precision = ratio(tp, tp + fp)
    precision_before = pl.when(tp_before + fp_before > 0).then(ratio(tp_before, tp_before + fp_before))
    precision_before = precision_before.otherwise(1.0)  # scikit-learn's point (recall 0, precision 1)
    fpr, fnr = ratio(fp, negatives), 1.0 - recall
    fpr_before, fnr_before = ratio(fp_before, negatives), 1.0 - recall_before
    gap, gap_before = fpr - fnr, fpr_before - fnr_before
    return {
        "tp": tp,
        "fp": fp,
        # scikit-learn's -sum(diff(recall) * precision[:-1]) term, sign turned (exactly)
        "average_precision": (recall - recall_before) * precision,
        # the trapezoid of auc(recall, precision), sign turned (exactly)
        "PR_AUC": (recall - recall_before) * (precision_before + precision) / 2.0,
        # where the segment to this point crosses FPR = FNR; the first point with FPR >= FNR (in integers)
        # fpr_before + step, to the bit; written as a - (-step) because polars 2.1 fuses a + b * c (and
        # a - b * c) into one kernel that panics on an empty group_by
        "EER": fpr_before - (-((-gap_before / (gap - gap_before)) * (fpr - fpr_before))),
        "EER_crossed": fp * positives >= (positives - tp) * negatives,
    }


def roc_terms(tp: pl.Expr, fp: pl.Expr, positives: pl.Expr, negatives: pl.Expr) -> pl.Expr:
    """The trapezoids of scikit-learn's ``auc(*roc_curve(...)[:2])``, in its order, from a group's points.

    ``roc_curve`` (``drop_intermediate=True``) keeps the first and last points
    and those where the second difference of ``fps`` or ``tps`` is not 0
    (differences of differences, as ``np.diff(x, 2)``), puts the origin in front and divides by the
    totals; ``auc`` adds ``(fpr_k - fpr_{k-1}) * (tpr_k + tpr_{k-1}) / 2``.
    """
    def bends(counts: pl.Expr) -> pl.Expr:  # np.diff(counts, 2) != 0: exact for counts, as NumPy for weights
        return ((counts.shift(-1) - counts) - (counts - counts.shift(1))) != 0

    keep = (bends(fp) | bends(tp)).fill_null(True)  # the first and last points have no second difference
    fpr, tpr = ratio(fp.filter(keep), negatives), ratio(tp.filter(keep), positives)
    return (fpr - fpr.shift(1, fill_value=0.0)) * (tpr + tpr.shift(1, fill_value=0.0)) / 2.0


def area(name: str, terms: Mapping[str, pl.Expr], positives: pl.Expr, negatives: pl.Expr) -> pl.Expr:
    """One group's ``name`` from its points' :func:`point_terms` (vectors, threshold descending)."""
    both = (positives > 0) & (negatives > 0)
    if name == "ROC_AUC":
        return pl.when(both).then(pairwise_sum(roc_terms(terms["tp"], terms["fp"], positives, negatives)))
    if name == "EER":
        return pl.when(both).then(terms["EER"].filter(terms["EER_crossed"]).first())
    # scikit-learn lists these terms from the lowest threshold up
    return pl.when(positives > 0).then(pairwise_sum(terms[name].reverse()))


def _area_of_points(name: str, columns: Any) -> pl.Expr:
    if columns.get("weight") is None:
        return area_of(name, _points_of(columns))
    return measure_of(columns, lambda pts: area_of(name, pts))


def area_of(name: str, pts: Points) -> pl.Expr:
    """One group's area ``name`` (a key of :func:`point_terms`) from its curve."""
    tp_before, fp_before = pts.tp.shift(1, fill_value=0), pts.fp.shift(1, fill_value=0)
    terms = point_terms(pts.tp, pts.fp, tp_before, fp_before, pts.positives, pts.negatives)
    return area(name, terms, pts.positives, pts.negatives)


def _spec(name: str, summary: str, build: Any, *aliases: str, **kwargs: Any) -> MeasureSpec:
    spec = MeasureSpec(
        name=name, kind="classification", summary=summary, build=build, aliases=aliases, **kwargs
    )
    return parseable(register(spec))


ROC_AUC = _spec(
    "ROC_AUC", "area under the ROC curve", _build_roc_auc, "AUROC", "AUC", "ROC AUC", "ROC-AUC",
    "roc_auc_score",
    doc=Doc(
        "C.roc_auc",
        "the chance that a positive outscores a negative, ties counting 1/2: the trapezoids under "
        "scikit-learn's `roc_curve` points (with its `drop_intermediate`), added in NumPy's order",
        "P or N is 0",
    ),
)
AVERAGE_PRECISION = _spec(
    "average_precision", "average precision: precision at each threshold weighted by the recall gained",
    _build_average_precision, "AP", "average precision", "average_precision_score",
    doc=Doc(
        "C.average_precision",
        "sum over thresholds of the recall gained there times the precision there (scikit-learn's step-wise "
        "sum)",
        "P = 0",
    ),
)
PR_AUC = _spec(
    "PR_AUC", "area under the precision-recall curve, by trapezoids", _build_pr_auc, "PR AUC", "PR-AUC",
    "AUC-PR", "AUCPR",
    doc=Doc(
        "C.pr_auc",
        "trapezoids under the precision-recall points, from (recall 0, precision 1)",
        "P = 0",
    ),
)
EER = _spec(
    "EER", "equal error rate: where FPR equals FNR on the ROC curve", _build_eer, "equal_error_rate",
    "equal error rate",
    doc=Doc(
        "C.equal_error_rate",
        "the FPR where FPR and FNR cross, interpolated between ROC points",
        "P or N is 0",
    ),
)
SCORE_SPECS: Final = (ROC_AUC, AVERAGE_PRECISION, PR_AUC, EER)


def _expr(
    spec: MeasureSpec, actual: str, score: str, positive: Any, weight: str | None = None, **params: Any
) -> pl.Expr:
    m = measure(spec, kind="classification", **params)
    columns = {"actual": actual, "score": score, "positive": positive, "weight": weight}
    return spec.build(columns, None, **m.kwargs).alias(m.name)


# -- public expression functions ----------------------------------------------------------------------

def roc_auc(
    actual: str = ACTUAL, score: str = SCORE, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Area under the ROC curve (scikit-learn's binary ``roc_auc_score``).

    The probability that a random positive row scores higher than a random
    negative one, a tie counting one half: the trapezoidal area under the ROC
    curve. Computed as scikit-learn computes it (``roc_curve`` with its
    default ``drop_intermediate=True``, then ``auc``: the same divisions and
    trapezoids, added in NumPy's pairwise order), so the value has
    scikit-learn's bits. Null when the group has no positive or no negative rows.

    Parameters
    ----------
    actual
        Label column; a row is positive when it equals ``positive``.
    score
        Numeric score column, higher meaning more likely positive.
    positive
        The positive label (default ``True`` / ``1``).
    weight
        A column of sample weights >= 0 (scikit-learn's ``sample_weight``):
        the curve's counts become sums of weights (rows of weight 0 are left
        out, as scikit-learn does) and the area is the weighted trapezoid sum,
        added in a fixed order (:func:`points_from`).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8], "w": [1.0, 1.0, 3.0, 1.0]})
    >>> df.select(C.roc_auc("y", "prob")).item()
    0.75
    >>> df.select(C.roc_auc("y", "prob", weight="w")).item()  # the 0.35 positive counts 3 times
    0.625
    """
    return _expr(ROC_AUC, actual, score, positive, weight)


def average_precision(
    actual: str = ACTUAL, score: str = SCORE, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Average precision, scikit-learn's step-wise ``average_precision_score``.

    ``AP = sum over thresholds t of (R(t) - R(t_prev)) * P(t)``, thresholds
    being the distinct scores from high to low: the precision at each
    threshold, weighted by the recall it adds. Tied positives enter together,
    at the precision of their whole tie. No interpolation. Null when the group
    has no positive rows (scikit-learn warns and returns 0).

    Parameters as in :func:`roc_auc`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
    >>> round(df.select(C.average_precision("y", "prob")).item(), 4)  # (1 + 2/3) / 2
    0.8333
    """
    return _expr(AVERAGE_PRECISION, actual, score, positive, weight)


def pr_auc(
    actual: str = ACTUAL, score: str = SCORE, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Area under the precision-recall curve by the trapezoidal rule.

    The curve's points (one per distinct score) joined by straight lines,
    starting from (recall 0, precision 1) as scikit-learn's
    ``precision_recall_curve`` does: equal to ``sklearn.metrics.auc(recall,
    precision)``. Linear interpolation is optimistic for PR curves;
    :func:`average_precision` is the usual summary. Null without positive rows.

    Parameters as in :func:`roc_auc`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
    >>> round(df.select(C.pr_auc("y", "prob")).item(), 4)
    0.7917
    """
    return _expr(PR_AUC, actual, score, positive, weight)


def equal_error_rate(
    actual: str = ACTUAL, score: str = SCORE, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Equal error rate: the error rate where FPR equals FNR (``1 - TPR``).

    The ROC curve's points (one per distinct score, from the origin where
    nothing is predicted positive) are joined by straight lines, and the
    value is where that line crosses ``FPR = FNR``; it is exact when a point
    lies on it. Null when the group has no positive or no negative rows.

    Parameters as in :func:`roc_auc`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
    >>> df.select(C.equal_error_rate("y", "prob")).item()  # at threshold 0.4: FPR = FNR = 1/2
    0.5
    """
    return _expr(EER, actual, score, positive, weight)
