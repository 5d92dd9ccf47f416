"""Classification measures as polars aggregation expressions: counts and rates.

Each function returns an ordinary :class:`polars.Expr` that reduces the rows
of a group (or the whole frame) to one number, so it works in
``group_by(...).agg(...)``, in ``select`` and in ``over``. This package
re-exports them all (``C.recall``, ``C.roc_auc``...); its modules are:

- :mod:`~frame_eval.classification.counts`: confusion counts (binary, one-vs-rest), exact ratios, sums;
- :mod:`~frame_eval.classification.rates`: counts and rates of predicted labels (builders, registry entries);
- :mod:`~frame_eval.classification.averages`: a rate as one expression, binary or averaged over classes;
- :mod:`~frame_eval.classification.expr_counts`, :mod:`~frame_eval.classification.expr_rates`,
  :mod:`~frame_eval.classification.expr_combined`: the ``C.*`` count and rate functions;
- :mod:`~frame_eval.classification.curves`: ROC and precision-recall points, ROC AUC, AP, PR AUC, EER;
- :mod:`~frame_eval.classification.thresholds`: the best threshold by a criterion;
- :mod:`~frame_eval.classification.multiclass`: multi-class ROC AUC (one-vs-rest, one-vs-one), AP, top-k;
- :mod:`~frame_eval.classification.probabilistic`: log-loss and the Brier score of probabilities;
- :mod:`~frame_eval.classification.calibration`: calibration bins and the expected calibration error;
- :mod:`~frame_eval.classification.grouped_scores`: the curve areas of many groups from one sort of all rows;
- :mod:`~frame_eval.classification.evaluate`: the frame-level front end behind ``.ireval.confusion``,
  ``rates``, ``confusion_matrix``, ``roc``, ``pr_curve`` and ``scores``, gathered from its
  ``frame_*`` modules (checks, labels, points, scores, multiclass, thresholds).

Conventions (scikit-learn's, except where noted):

- **Binary** by default: a row is *positive* when its label equals
  ``positive`` (default: ``True`` for Boolean labels, ``1`` for integers;
  the comparison ``== 1`` matches both). Every other label is negative.
- **Multi-class** with ``average="micro" | "macro" | "weighted"``: each class
  of the group (every label seen in its actual or predicted column) is scored
  one-vs-rest, then *macro* takes the plain mean, *weighted* the mean weighted
  by support (``P`` of the class), *micro* computes the measure once from the
  counts summed over classes. Accuracy, error rate, balanced accuracy and MCC
  have standard multi-class definitions on the whole K x K matrix and use them
  with any ``average`` (accuracy is the share of correct rows).
- **Undefined values are null**: a measure whose formula divides by zero
  (recall without actual positives, LR+ without false positives...) is null,
  or ``zero_division`` when given. Nulls are left out of macro and weighted
  means, as scikit-learn does with ``zero_division=np.nan``.
- Rows with a null label are not counted (the ``.ireval`` methods refuse
  them instead).

>>> import polars as pl
>>> from frame_eval import classification as C
>>> preds = pl.DataFrame({"model": ["a"] * 4 + ["b"] * 4,
...                       "label": [1, 1, 0, 0] * 2, "pred": [1, 0, 0, 0, 1, 1, 1, 0]})
>>> preds.group_by("model", maintain_order=True).agg(C.recall("label", "pred"), C.f1("label", "pred"))
shape: (2, 3)
┌───────┬────────┬──────────┐
│ model ┆ recall ┆ F1       │
│ ---   ┆ ---    ┆ ---      │
│ str   ┆ f64    ┆ f64      │
╞═══════╪════════╪══════════╡
│ a     ┆ 0.5    ┆ 0.666667 │
│ b     ┆ 1.0    ┆ 0.8      │
└───────┴────────┴──────────┘
"""

from __future__ import annotations

from frame_eval.classification.calibration import expected_calibration_error
from frame_eval.classification.counts import AUTO
from frame_eval.classification.curves import SCORE_SPECS, average_precision, equal_error_rate, pr_auc, roc_auc
from frame_eval.classification.multiclass import (
    MULTICLASS_SPECS,
    multiclass_average_precision,
    multiclass_roc_auc,
    top_k_accuracy,
)
from frame_eval.classification.probabilistic import brier_score, log_loss

# isort: split
# (the score measures register first, then the counts and rates: fe.measures() lists them in this order)
from frame_eval.classification.averages import averaged, rate_expr, value
from frame_eval.classification.expr_combined import (
    balanced_accuracy,
    cohen_kappa,
    diagnostic_odds_ratio,
    f1,
    fbeta,
    fowlkes_mallows,
    informedness,
    lr_minus,
    lr_plus,
    markedness,
    mcc,
    threat_score,
)
from frame_eval.classification.expr_counts import confusion, fn, fp, n, p, pn, pp, tn, total, tp
from frame_eval.classification.expr_rates import (
    accuracy,
    error_rate,
    false_omission_rate,
    fdr,
    fnr,
    fpr,
    npv,
    precision,
    prevalence,
    recall,
    specificity,
)
from frame_eval.classification.rates import COUNT_SPECS, DEFAULT_RATES, RATE_SPECS, RATES, counts_of
from frame_eval.classification.thresholds import BEST_THRESHOLD, CRITERIA, best_threshold

__all__ = [
    "AUTO",
    "accuracy",
    "average_precision",
    "balanced_accuracy",
    "best_threshold",
    "brier_score",
    "cohen_kappa",
    "confusion",
    "diagnostic_odds_ratio",
    "equal_error_rate",
    "error_rate",
    "expected_calibration_error",
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
    "log_loss",
    "lr_minus",
    "lr_plus",
    "markedness",
    "mcc",
    "multiclass_average_precision",
    "multiclass_roc_auc",
    "n",
    "npv",
    "p",
    "pn",
    "pp",
    "pr_auc",
    "precision",
    "prevalence",
    "recall",
    "roc_auc",
    "specificity",
    "threat_score",
    "tn",
    "top_k_accuracy",
    "total",
    "tp",
]
# the registry's tables and the shared builders, reachable as before the split into modules
__all__ += [
    "BEST_THRESHOLD", "COUNT_SPECS", "CRITERIA", "DEFAULT_RATES", "MULTICLASS_SPECS", "RATES", "RATE_SPECS",
    "SCORE_SPECS",
    "averaged", "counts_of", "rate_expr", "value",
]
