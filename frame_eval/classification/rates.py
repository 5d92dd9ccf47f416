"""Counts and rates of predicted labels as polars aggregation expressions (``C.recall``, ``C.f1``...).

One builder per measure, from :class:`~frame_eval.classification.counts.Counts`,
and one registry entry; the public functions below build the expression a
frame method or a ``group_by().agg()`` uses. Conventions are in
:mod:`frame_eval.classification`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

import polars as pl

from frame_eval._float import pairwise_sum
from frame_eval.classification.counts import (
    ACTUAL,
    AUTO,
    COUNT_NAMES,
    PREDICTED,
    Average,
    Counts,
    binary_counts,
    check_average,
    check_zero_division,
    class_counts,
    fill_undefined,
    is_nan,
    ordered_sum,
    parseable,
    ratio,
)
from frame_eval.classification.counts import (
    weighted as weighted_value,
)
from frame_eval.registry import Measure, MeasureSpec, Param, measure, register, register_shorthand

__all__ = [
    "AUTO",
    "accuracy",
    "balanced_accuracy",
    "confusion",
    "diagnostic_odds_ratio",
    "error_rate",
    "f1",
    "false_omission_rate",
    "fbeta",
    "fdr",
    "fn",
    "fnr",
    "fowlkes_mallows",
    "fp",
    "fpr",
    "informedness",
    "lr_minus",
    "lr_plus",
    "markedness",
    "mcc",
    "n",
    "npv",
    "p",
    "pn",
    "pp",
    "precision",
    "prevalence",
    "recall",
    "specificity",
    "threat_score",
    "tn",
    "total",
    "tp",
]

# -- builders: Counts -> unaliased expression; null where undefined --------------------------------

def _recall(c: Counts) -> pl.Expr:
    return ratio(c.tp, c.p)


def _fnr(c: Counts) -> pl.Expr:
    return ratio(c.fn, c.p)


def _specificity(c: Counts) -> pl.Expr:
    return ratio(c.tn, c.n)


def _fpr(c: Counts) -> pl.Expr:
    return ratio(c.fp, c.n)


def _precision(c: Counts) -> pl.Expr:
    return ratio(c.tp, c.pp)


def _fdr(c: Counts) -> pl.Expr:
    return ratio(c.fp, c.pp)


def _npv(c: Counts) -> pl.Expr:
    return ratio(c.tn, c.pn)


def _for(c: Counts) -> pl.Expr:
    return ratio(c.fn, c.pn)


def _accuracy(c: Counts) -> pl.Expr:
    return ratio(c.tp + c.tn, c.total)


def _error_rate(c: Counts) -> pl.Expr:
    return ratio(c.fp + c.fn, c.total)


def _prevalence(c: Counts) -> pl.Expr:
    return ratio(c.p, c.total)


def _f(c: Counts, *, beta: float) -> pl.Expr:
    if not beta >= 0:  # NaN fails too
        raise ValueError(f"F: beta must be a number >= 0 (inf for recall), got {beta!r}")
    if math.isinf(beta):  # the limit, as scikit-learn: recall
        return _recall(c)
    b2 = beta * beta
    # (1 + b2) PPV TPR / (b2 PPV + TPR), written with counts so that it is defined when only TP is 0
    return ratio((1.0 + b2) * c.tp.cast(pl.Float64), b2 * c.p.cast(pl.Float64) + c.pp.cast(pl.Float64))


def _balanced_accuracy(c: Counts) -> pl.Expr:
    # the mean recall of the two classes; a class absent from the actual labels is left out
    tpr, tnr = _recall(c), _specificity(c)
    return pl.when((c.p > 0) & (c.n > 0)).then((tpr + tnr) / 2.0).otherwise(pl.coalesce(tpr, tnr))


def _mcc(c: Counts) -> pl.Expr:
    # scikit-learn's operations in its order (the multi-class formula on the 2 x 2 matrix), so the bits agree
    tp, fp, fn, tn = (x.cast(pl.Float64) for x in (c.tp, c.fp, c.fn, c.tn))
    rows, correct = tp + fp + fn + tn, tp + tn
    support, said = (tn + fp, fn + tp), (tn + fn, fp + tp)  # per class, negative then positive
    cov_actual_said = correct * rows - (support[0] * said[0] + support[1] * said[1])
    cov_said = rows * rows - (said[0] * said[0] + said[1] * said[1])
    cov_actual = rows * rows - (support[0] * support[0] + support[1] * support[1])
    return ratio(cov_actual_said, (cov_actual * cov_said).sqrt())


def _informedness(c: Counts) -> pl.Expr:
    return _recall(c) + _specificity(c) - 1.0


def _markedness(c: Counts) -> pl.Expr:
    return _precision(c) + _npv(c) - 1.0


def _lr_plus(c: Counts) -> pl.Expr:
    return ratio(_recall(c), _fpr(c))


def _lr_minus(c: Counts) -> pl.Expr:
    return ratio(_fnr(c), _specificity(c))


def _dor(c: Counts) -> pl.Expr:
    tp, fp, fn, tn = (x.cast(pl.Float64) for x in (c.tp, c.fp, c.fn, c.tn))
    return ratio(tp * tn, fp * fn)


def _fowlkes_mallows(c: Counts) -> pl.Expr:
    return ratio(c.tp.cast(pl.Float64), (c.pp.cast(pl.Float64) * c.p.cast(pl.Float64)).sqrt())


def _csi(c: Counts) -> pl.Expr:
    return ratio(c.tp, c.tp + c.fn + c.fp)


def _kappa_of(rows: pl.Expr, agreed: pl.Expr, chance: pl.Expr) -> pl.Expr:
    # 1 - observed disagreement / disagreement expected by chance, both times n^2 (integers):
    # (n - agreed) n / (n^2 - sum of predicted x actual counts per class)
    return 1.0 - ratio((rows - agreed) * rows, rows * rows - chance)


def _kappa(c: Counts, *, weights: str = "none") -> pl.Expr:
    # with two classes every disagreement weighs 1 (|0 - 1| = (0 - 1)^2), so the weights change nothing
    return _kappa_of(c.total, c.tp + c.tn, c.pp * c.p + c.pn * c.n)


def weighted_kappa(actual: str, predicted: str, weights: str, weight: str | None = None) -> pl.Expr:
    """Cohen's kappa of the group's K x K matrix with disagreement weights ``|i - j|`` (linear) or
    ``(i - j)^2`` (quadratic), ``i``, ``j`` the positions of the two labels among the sorted classes.

    ``kappa = 1 - sum_ij w_ij C_ij / sum_ij w_ij E_ij``, ``E_ij = r_i c_j / n`` (``r``, ``c`` the
    actual and predicted counts per class): ``1 - n O / E'`` with ``O`` the weighted disagreement
    of the rows and ``E' = sum_ij w_ij r_i c_j``, integers without sample weights, divided once.
    """
    keep = pl.col(actual).is_not_null() & pl.col(predicted).is_not_null()
    a, b = pl.col(actual).filter(keep), pl.col(predicted).filter(keep)
    classes = a.append(b).unique().sort()
    gap = (classes.search_sorted(a).cast(pl.Int64) - classes.search_sorted(b).cast(pl.Int64)).abs()
    disagreement = gap if weights == "linear" else gap * gap
    counts = class_counts(actual, predicted, weight)
    exact = pl.Int128 if weight is None else pl.Float64
    r, c = counts.p.cast(exact), counts.pp.cast(exact)
    position = pl.int_range(0, classes.len(), dtype=pl.Int64).cast(exact)
    rows = _sum(c)
    if weight is None:
        observed = _sum(disagreement.cast(exact))
    else:
        terms = disagreement.cast(pl.Float64) * pl.col(weight).cast(pl.Float64).filter(keep)
        observed = _sum(terms.sort())
    if weights == "linear":  # sum_j |i - j| c_j for every i, from running sums over j
        below, below_pos = c.cum_sum(), (c * position).cum_sum()
        spread = position * below - below_pos + (_sum(c * position) - below_pos) - position * (rows - below)
    else:  # sum_j (i - j)^2 c_j = i^2 n - 2 i sum_j j c_j + sum_j j^2 c_j
        first, second = _sum(c * position), _sum(c * position * position)
        spread = position * position * rows - 2 * position * first + second
    expected = _sum(r * spread)
    return 1.0 - ratio(observed * rows, expected)


def _multi_kappa(c: Counts) -> pl.Expr:
    return _kappa_of(c.total.first(), _sum(c.tp), _sum(c.pp * c.p))


def _sum(values: pl.Expr) -> pl.Expr:
    # counts stay integers (exact); weighted counts (floats) are added one by one in class order
    return values.cum_sum().last()


# -- whole-matrix definitions used by every multi-class average -------------------------------------

def _multi_accuracy(c: Counts) -> pl.Expr:
    return ratio(_sum(c.tp), c.total.first())


def _multi_error_rate(c: Counts) -> pl.Expr:
    return 1.0 - _multi_accuracy(c)


def _multi_balanced_accuracy(c: Counts) -> pl.Expr:
    recall = _recall(c)  # classes without actual rows (null) are left out, as scikit-learn drops them
    defined = recall.drop_nulls()
    return ratio(pairwise_sum(defined), defined.len())


def _multi_mcc(c: Counts) -> pl.Expr:
    # Gorodkin's R_K: covariances of the actual and predicted one-hot matrices, in scikit-learn's
    # operations; the sums of products are integers, summed exactly before the cast (weighted: in class order)
    rows = c.total.first().cast(pl.Float64)
    support, said = c.p, c.pp
    cov_actual_said = _sum(c.tp).cast(pl.Float64) * rows - _sum(support * said).cast(pl.Float64)
    cov_said = rows * rows - _sum(said * said).cast(pl.Float64)
    cov_actual = rows * rows - _sum(support * support).cast(pl.Float64)
    return ratio(cov_actual_said, (cov_actual * cov_said).sqrt())


# -- registry --------------------------------------------------------------------------------------

RateFn = Callable[..., pl.Expr]
RATES: dict[str, RateFn] = {}  # spec name -> builder from Counts, for counts and rates
WHOLE_MATRIX: dict[str, Callable[[Counts], pl.Expr]] = {
    "accuracy": _multi_accuracy,
    "error_rate": _multi_error_rate,
    "balanced_accuracy": _multi_balanced_accuracy,
    "MCC": _multi_mcc,
    "kappa": _multi_kappa,
}


def counts_of(columns: Any) -> Counts:
    """Counts from a registry call: label columns (``actual``/``predicted``, binary with
    ``positive``), count column names (``tp``...), or :class:`Counts` itself."""
    if isinstance(columns, Counts):
        return columns
    if ACTUAL in columns or PREDICTED in columns:
        return binary_counts(
            columns.get(ACTUAL, ACTUAL), columns.get(PREDICTED, PREDICTED), columns.get("positive", AUTO),
            columns.get("weight"),
        )
    return Counts.columns(columns)


def _builder(fn: RateFn) -> Callable[..., pl.Expr]:
    def build(columns: Any, cutoff: float | None, **params: Any) -> pl.Expr:
        return fn(counts_of(columns), **params)

    return build


def _spec(name: str, summary: str, fn: RateFn, *aliases: str, **kwargs: Any) -> MeasureSpec:
    RATES[name] = fn
    spec = MeasureSpec(
        name=name, kind="classification", summary=summary, build=_builder(fn), aliases=aliases, **kwargs
    )
    return parseable(register(spec))


def _count(field: str) -> RateFn:
    return lambda c: getattr(c, field)


TP = _spec("TP", "true positives: positive rows predicted positive", _count("tp"), "true_positives",
           aggregate="sum")
FP = _spec("FP", "false positives: negative rows predicted positive", _count("fp"), "false_positives",
           "false_alarms", aggregate="sum")
FN = _spec("FN", "false negatives: positive rows predicted negative", _count("fn"), "false_negatives",
           "misses", aggregate="sum")
TN = _spec("TN", "true negatives: negative rows predicted negative", _count("tn"), "true_negatives",
           aggregate="sum")
P = _spec("P", "actual positives: TP + FN", _count("p"), "positives", "support", aggregate="sum")
N = _spec("N", "actual negatives: FP + TN", _count("n"), "negatives", aggregate="sum")
PP = _spec("PP", "predicted positives: TP + FP", _count("pp"), "predicted_positives", aggregate="sum")
PN = _spec("PN", "predicted negatives: FN + TN", _count("pn"), "predicted_negatives", aggregate="sum")
TOTAL = _spec("total", "all rows: P + N", _count("total"), "samples", aggregate="sum")

RECALL = _spec("recall", "recall, TPR: TP / P", _recall, "TPR", "sensitivity", "hit_rate", "hit rate",
               "true_positive_rate")
FNR = _spec("FNR", "false negative rate, miss rate: FN / P", _fnr, "miss_rate", "miss rate",
            "false_negative_rate", "FRR", "false_rejection_rate", "type_II_error", "type II error")
SPECIFICITY = _spec("specificity", "specificity, TNR: TN / N", _specificity, "TNR", "selectivity",
                    "true_negative_rate")
FPR = _spec("FPR", "false positive rate, fall-out: FP / N", _fpr, "fall_out", "fall-out", "fallout",
            "false_positive_rate", "FAR", "false_acceptance_rate", "type_I_error", "type I error")
PRECISION = _spec("precision", "precision, PPV: TP / PP", _precision, "PPV", "positive_predictive_value")
FDR = _spec("FDR", "false discovery rate: FP / PP", _fdr, "false_discovery_rate")
NPV = _spec("NPV", "negative predictive value: TN / PN", _npv, "negative_predictive_value")
FOR = _spec("FOR", "false omission rate: FN / PN", _for, "false_omission_rate")
ACCURACY = _spec("accuracy", "accuracy: (TP + TN) / total", _accuracy, "ACC", "success_rate", "success rate")
ERROR_RATE = _spec("error_rate", "error rate: (FP + FN) / total", _error_rate, "error rate",
                   "misclassification_rate")
PREVALENCE = _spec("prevalence", "prevalence: P / total", _prevalence)
_BETA = Param("beta", float, 1.0, doc="weight of recall against precision")
F = _spec(
    "F", "F-beta score: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)", _f, "F_score", "F-score",
    "F_measure", "F-measure", "Fbeta", params=(_BETA,),
    format_name=lambda params, cutoff: f"F{params.get('beta', 1.0):g}",
)
register_shorthand(
    "classification", r"F(\d+(?:\.\d*)?|\.\d+)", lambda m: ("F", {"beta": float(m.group(1))})
)
BALANCED_ACCURACY = _spec("balanced_accuracy", "balanced accuracy: (TPR + TNR) / 2", _balanced_accuracy,
                          "BA", "balanced accuracy")
MCC = _spec("MCC", "Matthews correlation coefficient", _mcc, "matthews_corrcoef", "phi",
            "phi_coefficient")
INFORMEDNESS = _spec("informedness", "informedness, Youden's J: TPR + TNR - 1", _informedness,
                     "youden_j", "Youden's J", "bookmaker_informedness", "BM")
MARKEDNESS = _spec("markedness", "markedness: PPV + NPV - 1", _markedness, "MK", "deltaP")
LR_PLUS = _spec("LR+", "positive likelihood ratio: TPR / FPR", _lr_plus, "LR_plus",
                "positive_likelihood_ratio")
LR_MINUS = _spec("LR-", "negative likelihood ratio: FNR / TNR", _lr_minus, "LR_minus",
                 "negative_likelihood_ratio")
DOR = _spec("DOR", "diagnostic odds ratio: (TP TN) / (FP FN)", _dor, "diagnostic_odds_ratio",
            "diagnostic odds ratio")
FM = _spec("FM", "Fowlkes-Mallows index: sqrt(PPV TPR)", _fowlkes_mallows, "fowlkes_mallows",
           "Fowlkes-Mallows", "FMI")
CSI = _spec("CSI", "threat score, critical success index: TP / (TP + FN + FP)", _csi, "threat_score",
            "threat score", "TS", "critical_success_index", "jaccard")

COUNT_SPECS: Final = (TP, FP, FN, TN, P, N, PP, PN, TOTAL)
RATE_SPECS: Final = (
    RECALL, FNR, SPECIFICITY, FPR, PRECISION, FDR, NPV, FOR, ACCURACY, ERROR_RATE, PREVALENCE, F,
    BALANCED_ACCURACY, MCC, INFORMEDNESS, MARKEDNESS, LR_PLUS, LR_MINUS, DOR, FM, CSI,
)
DEFAULT_RATES: Final = tuple(s.name if s is not F else "F1" for s in RATE_SPECS)
# agreement beyond chance; not among the default rates
KAPPA_WEIGHTS: Final = ("none", "linear", "quadratic")
KAPPA = _spec("kappa", "Cohen's kappa: agreement of actual and predicted labels beyond chance", _kappa,
              "cohen_kappa", "cohens_kappa", "Cohen's kappa", "cohen_kappa_score",
              params=(Param("weights", str, "none", KAPPA_WEIGHTS,
                            "disagreement weights: none, linear |i - j| or quadratic (i - j)^2"),))


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


# -- public expression functions --------------------------------------------------------------------

def confusion(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """All binary counts as one struct ``confusion{tp, fp, fn, tn, p, n, pp, pn, total}`` (Int64).

    With ``weight`` (a column of sample weights >= 0), each count is the sum
    of its rows' weights, Float64 (scikit-learn's ``sample_weight``).

    ``p = tp + fn`` (actual positives), ``n = fp + tn``, ``pp = tp + fp``
    (predicted positives), ``pn = fn + tn``, ``total = p + n``. A row is
    positive when its label equals ``positive``; a row with a null label is
    not counted. ``.struct.unnest()`` (or ``DataFrame.unnest``) spreads the fields.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 0, 0, 0], "yhat": [1, 0, 1, 0, 0]})
    >>> df.select(C.confusion("y", "yhat")).unnest("confusion").row(0)
    (1, 1, 1, 2, 2, 3, 2, 3, 5)
    """
    c = binary_counts(actual, predicted, positive, weight)
    fields = {name: getattr(c, name) for name in COUNT_NAMES}
    return pl.struct(**fields).alias("confusion")


def tp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """True positives: rows whose actual and predicted labels are both ``positive`` (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.tp("y", "yhat")).item()
    1
    """
    return rate_expr(TP, actual, predicted, positive, None, None, weight)


def fp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """False positives (type I errors): negative rows predicted ``positive`` (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.fp("y", "yhat")).item()
    1
    """
    return rate_expr(FP, actual, predicted, positive, None, None, weight)


def fn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """False negatives (type II errors, misses): ``positive`` rows predicted negative (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.fn("y", "yhat")).item()
    1
    """
    return rate_expr(FN, actual, predicted, positive, None, None, weight)


def tn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """True negatives: negative rows predicted negative (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [1, 0, 1]}).select(C.tn("y", "yhat")).item()
    1
    """
    return rate_expr(TN, actual, predicted, positive, None, None, weight)


def p(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Actual positives ``P = TP + FN`` (scikit-learn's *support* of the positive class).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.p("y", "yhat")).item()
    2
    """
    return rate_expr(P, actual, predicted, positive, None, None, weight)


def n(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Actual negatives ``N = FP + TN``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.n("y", "yhat")).item()
    1
    """
    return rate_expr(N, actual, predicted, positive, None, None, weight)


def pp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Predicted positives ``PP = TP + FP``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.pp("y", "yhat")).item()
    2
    """
    return rate_expr(PP, actual, predicted, positive, None, None, weight)


def pn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Predicted negatives ``PN = FN + TN``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.pn("y", "yhat")).item()
    1
    """
    return rate_expr(PN, actual, predicted, positive, None, None, weight)


def total(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Rows counted, ``P + N`` (rows with a null label are not counted).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, None, 0], "yhat": [1, 0, 1]}).select(C.total("y", "yhat")).item()
    2
    """
    return rate_expr(TOTAL, actual, predicted, positive, None, None, weight)


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
