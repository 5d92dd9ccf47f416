"""Classification evaluation of a predictions frame: the one lazy core behind the ``.ireval`` methods.

Everything here takes and returns :class:`polars.LazyFrame` and collects
nothing; the namespaces collect when their input was eager. Schema problems
raise at once, data problems (null labels, integer labels that are not 0/1
under the default positive class, scores outside a declared range) raise
when the result is collected.

Rules:

- **Binary or one-vs-rest.** ``positive=<label>`` scores that label against
  all others. By default Boolean labels are binary with positive ``True``
  and integer labels binary with positive ``1`` (they must then be 0 or 1);
  string and categorical labels, and ``positive=None``, give one row per
  class (one-vs-rest) with a ``class`` column.
- **Classes of a group** are the labels seen in its actual or predicted
  column, so each group is evaluated exactly as scikit-learn evaluates that
  group's rows alone; a class absent from a group has no row there.
- Output rows are sorted by ``by``, then class (the labels' own order).

The front end is split by family; this module gathers its public names (what the
``.ireval`` namespaces call):

- :mod:`~frame_eval.classification.frame_checks`: shared input checks, the checked label and score rows;
- :mod:`~frame_eval.classification.frame_labels`: ``confusion``, ``rates``, ``confusion_matrix``,
  ``classification_report`` (predicted labels);
- :mod:`~frame_eval.classification.frame_points`: threshold-curve points, the weighted areas;
- :mod:`~frame_eval.classification.frame_scores`: ``curve``, ``det_curve``, ``scores`` (scores);
- :mod:`~frame_eval.classification.frame_multiclass`: ``scores(..., average=)`` of one score column per class;
- :mod:`~frame_eval.classification.frame_thresholds`: ``threshold_rates``, ``best_threshold``.
"""

from __future__ import annotations

from frame_eval.classification.frame_checks import (
    CLASS,
    CURVE_COLUMNS,
    FRAME,
    SCORE_DEFAULTS,
    MeasureArg,
    ScoreArg,
    Shape,
    resolve_positive,
    weight_problems,
)
from frame_eval.classification.frame_labels import (
    REPORT_COLUMNS,
    REPORT_ROWS,
    binary_count_frame,
    class_count_frame,
    classification_report,
    confusion,
    confusion_matrix,
    rates,
)
from frame_eval.classification.frame_multiclass import MULTICLASS_DEFAULTS, SUM_TOLERANCE, multiclass_scores
from frame_eval.classification.frame_points import binary_areas, curve_points, weighted_score_measures
from frame_eval.classification.frame_scores import DET_COLUMNS, curve, det_curve, scores
from frame_eval.classification.frame_thresholds import (
    BEST_COLUMNS,
    best_threshold,
    check_thresholds,
    threshold_rates,
)

__all__ = [
    "BEST_COLUMNS",
    "CLASS",
    "CURVE_COLUMNS",
    "DET_COLUMNS",
    "FRAME",
    "MULTICLASS_DEFAULTS",
    "REPORT_COLUMNS",
    "REPORT_ROWS",
    "SCORE_DEFAULTS",
    "SUM_TOLERANCE",
    "MeasureArg",
    "ScoreArg",
    "Shape",
    "best_threshold",
    "binary_areas",
    "binary_count_frame",
    "check_thresholds",
    "class_count_frame",
    "classification_report",
    "confusion",
    "confusion_matrix",
    "curve",
    "curve_points",
    "det_curve",
    "multiclass_scores",
    "rates",
    "resolve_positive",
    "scores",
    "threshold_rates",
    "weight_problems",
    "weighted_score_measures",
]
