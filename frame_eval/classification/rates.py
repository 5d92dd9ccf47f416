"""Counts and rates of predicted labels: one builder and one registry entry per measure.

Each builder turns :class:`~frame_eval.classification.counts.Counts` into an
expression (null where undefined); each ``_spec(...)`` line registers its
names, aliases and summary. The multi-class averages are in
:mod:`~frame_eval.classification.averages`, the public ``C.*`` functions in
:mod:`~frame_eval.classification.expr_counts`, :mod:`~frame_eval.classification.expr_rates`
and :mod:`~frame_eval.classification.expr_combined`. Conventions are in
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
    PREDICTED,
    Counts,
    binary_counts,
    class_counts,
    parseable,
    ratio,
)
from frame_eval.registry import Doc, MeasureSpec, Param, register, register_shorthand

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
           aggregate="sum",
           doc=Doc("C.tp", "positive rows predicted positive"))
FP = _spec("FP", "false positives: negative rows predicted positive", _count("fp"), "false_positives",
           "false_alarms", aggregate="sum",
           doc=Doc("C.fp", "negative rows predicted positive"))
FN = _spec("FN", "false negatives: positive rows predicted negative", _count("fn"), "false_negatives",
           "misses", aggregate="sum",
           doc=Doc("C.fn", "positive rows predicted negative"))
TN = _spec("TN", "true negatives: negative rows predicted negative", _count("tn"), "true_negatives",
           aggregate="sum",
           doc=Doc("C.tn", "negative rows predicted negative"))
P = _spec("P", "actual positives: TP + FN", _count("p"), "positives", "support", aggregate="sum",
          doc=Doc("C.p", "actual positives, TP + FN"))
N = _spec("N", "actual negatives: FP + TN", _count("n"), "negatives", aggregate="sum",
          doc=Doc("C.n", "actual negatives, FP + TN"))
PP = _spec("PP", "predicted positives: TP + FP", _count("pp"), "predicted_positives", aggregate="sum",
           doc=Doc("C.pp", "predicted positives, TP + FP"))
PN = _spec("PN", "predicted negatives: FN + TN", _count("pn"), "predicted_negatives", aggregate="sum",
           doc=Doc("C.pn", "predicted negatives, FN + TN"))
TOTAL = _spec("total", "all rows: P + N", _count("total"), "samples", aggregate="sum",
              doc=Doc("C.total", "rows counted, P + N"))

RECALL = _spec("recall", "recall, TPR: TP / P", _recall, "TPR", "sensitivity", "hit_rate", "hit rate",
               "true_positive_rate",
               doc=Doc("C.recall", "TP / P", "P = 0"))
FNR = _spec("FNR", "false negative rate, miss rate: FN / P", _fnr, "miss_rate", "miss rate",
            "false_negative_rate", "FRR", "false_rejection_rate", "type_II_error", "type II error",
            doc=Doc("C.fnr", "FN / P", "P = 0"))
SPECIFICITY = _spec("specificity", "specificity, TNR: TN / N", _specificity, "TNR", "selectivity",
                    "true_negative_rate",
                    doc=Doc("C.specificity", "TN / N", "N = 0"))
FPR = _spec("FPR", "false positive rate, fall-out: FP / N", _fpr, "fall_out", "fall-out", "fallout",
            "false_positive_rate", "FAR", "false_acceptance_rate", "type_I_error", "type I error",
            doc=Doc("C.fpr", "FP / N", "N = 0"))
PRECISION = _spec("precision", "precision, PPV: TP / PP", _precision, "PPV", "positive_predictive_value",
                  doc=Doc("C.precision", "TP / PP", "PP = 0"))
FDR = _spec("FDR", "false discovery rate: FP / PP", _fdr, "false_discovery_rate",
            doc=Doc("C.fdr", "FP / PP", "PP = 0"))
NPV = _spec("NPV", "negative predictive value: TN / PN", _npv, "negative_predictive_value",
            doc=Doc("C.npv", "TN / PN", "PN = 0"))
FOR = _spec("FOR", "false omission rate: FN / PN", _for, "false_omission_rate",
            doc=Doc("C.false_omission_rate", "FN / PN", "PN = 0"))
ACCURACY = _spec("accuracy", "accuracy: (TP + TN) / total", _accuracy, "ACC", "success_rate", "success rate",
                 doc=Doc("C.accuracy", "(TP + TN) / total", "no rows"))
ERROR_RATE = _spec("error_rate", "error rate: (FP + FN) / total", _error_rate, "error rate",
                   "misclassification_rate",
                   doc=Doc("C.error_rate", "(FP + FN) / total", "no rows"))
PREVALENCE = _spec("prevalence", "prevalence: P / total", _prevalence,
                   doc=Doc("C.prevalence", "P / total", "no rows"))
_BETA = Param("beta", float, 1.0, doc="weight of recall against precision")
F = _spec(
    "F", "F-beta score: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)", _f, "F_score", "F-score",
    "F_measure", "F-measure", "Fbeta", params=(_BETA,),
    format_name=lambda params, cutoff: f"F{params.get('beta', 1.0):g}",
    doc=Doc(
        "C.f1, C.fbeta",
        "(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP); `F(beta=inf)` is recall",
        "P = PP = 0",
        names=("F1", "F2", "F0.5", "F(beta=3)"),
        accepted="each with `(beta=b)`",
    ),
)
register_shorthand(
    "classification", r"F(\d+(?:\.\d*)?|\.\d+)", lambda m: ("F", {"beta": float(m.group(1))})
)
BALANCED_ACCURACY = _spec("balanced_accuracy", "balanced accuracy: (TPR + TNR) / 2", _balanced_accuracy,
                          "BA", "balanced accuracy",
                          doc=Doc(
                              "C.balanced_accuracy",
                              "(TPR + TNR) / 2, leaving out a class without actual rows",
                              "no rows",
                          ))
MCC = _spec("MCC", "Matthews correlation coefficient", _mcc, "matthews_corrcoef", "phi",
            "phi_coefficient",
            doc=Doc("C.mcc", "(TP TN - FP FN) / sqrt(PP P N PN)", "PP, P, N or PN is 0"))
INFORMEDNESS = _spec("informedness", "informedness, Youden's J: TPR + TNR - 1", _informedness,
                     "youden_j", "Youden's J", "bookmaker_informedness", "BM",
                     doc=Doc("C.informedness", "TPR + TNR - 1", "P or N is 0"))
MARKEDNESS = _spec("markedness", "markedness: PPV + NPV - 1", _markedness, "MK", "deltaP",
                   doc=Doc("C.markedness", "PPV + NPV - 1", "PP or PN is 0"))
LR_PLUS = _spec("LR+", "positive likelihood ratio: TPR / FPR", _lr_plus, "LR_plus",
                "positive_likelihood_ratio",
                doc=Doc("C.lr_plus", "TPR / FPR", "P, N or FP is 0"))
LR_MINUS = _spec("LR-", "negative likelihood ratio: FNR / TNR", _lr_minus, "LR_minus",
                 "negative_likelihood_ratio",
                 doc=Doc("C.lr_minus", "FNR / TNR", "P, N or TN is 0"))
DOR = _spec("DOR", "diagnostic odds ratio: (TP TN) / (FP FN)", _dor, "diagnostic_odds_ratio",
            "diagnostic odds ratio",
            doc=Doc("C.diagnostic_odds_ratio", "(TP TN) / (FP FN) = LR+ / LR-", "FP or FN is 0"))
FM = _spec("FM", "Fowlkes-Mallows index: sqrt(PPV TPR)", _fowlkes_mallows, "fowlkes_mallows",
           "Fowlkes-Mallows", "FMI",
           doc=Doc("C.fowlkes_mallows", "sqrt(PPV TPR) = TP / sqrt(PP P)", "PP or P is 0"))
CSI = _spec("CSI", "threat score, critical success index: TP / (TP + FN + FP)", _csi, "threat_score",
            "threat score", "TS", "critical_success_index", "jaccard",
            doc=Doc("C.threat_score", "TP / (TP + FN + FP)", "TP + FN + FP = 0"))

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
                            "disagreement weights: none, linear |i - j| or quadratic (i - j)^2"),),
              doc=Doc(
                  "C.cohen_kappa",
                  "(p_o - p_e) / (1 - p_e): agreement beyond chance, from the 2 x 2 matrix (with "
                  "`average=`, the K x K matrix); `kappa(weights=linear)` / `(weights=quadratic)` weigh a "
                  "disagreement by |i - j| / (i - j)^2 of the labels' positions among the sorted classes "
                  "(`C.cohen_kappa(weights=)`); scikit-learn's `cohen_kappa_score(weights=)`",
                  "p_e = 1",
              ))

