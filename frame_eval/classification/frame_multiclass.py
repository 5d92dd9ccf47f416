"""The frame method on one score column per class: ``scores(..., average=)``, multi-class ROC AUC
(one-vs-rest, one-vs-one), average precision and top-k accuracy of each group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval.classification.frame_checks import (
    _ALL,
    _POSITIVE,
    _SCORE,
    _WEIGHT,
    FRAME,
    MeasureArg,
    Shape,
    _check_by,
    _check_label,
    _range_problems,
    _require_labels,
    _shaped,
    _unique,
    _weight_column,
    weight_problems,
)
from frame_eval.classification.frame_points import binary_areas
from frame_eval.classification.grouped_multiclass import RESERVED as MULTICLASS_RESERVED
from frame_eval.classification.grouped_multiclass import multiclass_areas
from frame_eval.classification.grouped_scores import SCORE_MEASURES
from frame_eval.classification.multiclass import (
    CLASS_AVERAGES,
    MULTI_CLASS,
    TOP_K_ACCURACY,
    check_choice,
    check_ovo,
    check_scores,
    top_k_hits,
    top_k_share,
)
from frame_eval.registry import resolve

# -- multi-class scores ----------------------------------------------------------------------------

MULTICLASS_DEFAULTS: Final = ("ROC_AUC", "average_precision")
_HIT: Final = "__fe_mc_hit"
SUM_TOLERANCE: Final = (1e-8, 1e-5)  # NumPy's allclose: |1 - sum| <= 1e-8 + 1e-5 |sum|, scikit-learn's check


def multiclass_scores(
    frame: pl.LazyFrame,
    actual: str,
    score: Any,
    by: Sequence[str] = (),
    *,
    metrics: MeasureArg | None = None,
    average: str = "macro",
    multi_class: str = "ovr",
    weight: str | None = None,
    shape: Shape = "long",
) -> pl.LazyFrame:
    """``[*by, metric, value]``: multi-class ROC AUC, average precision and top-k accuracy per group.

    ``score`` maps each class label to its score column; the classes are its
    keys (:mod:`frame_eval.classification.multiclass`). ROC AUC averages
    one-vs-rest or one-vs-one (``multi_class``) with ``average`` ``"macro"``
    or ``"weighted"`` (``"micro"``: one-vs-rest only), AP one-vs-rest with any
    of the three, top-k accuracy ignores ``average``. Data checks (raised on
    collect): nulls, a label that is no key of ``score``, bad weights, and for
    ROC AUC probabilities outside [0, 1] or rows whose probabilities do not
    add to 1 (NumPy's ``allclose`` tolerance, as scikit-learn checks).

    ROC AUC and AP come from one sort of each class's scores, every group
    together (:mod:`frame_eval.classification.grouped_multiclass`): the
    expressions' values, scikit-learn's bits, at the cost of one binary
    problem per class rather than one curve expression per class.
    """
    check_choice("average", average, CLASS_AVERAGES)
    check_choice("multi_class", multi_class, MULTI_CLASS)
    if not isinstance(score, Mapping):
        raise TypeError(
            f"average= scores every class against the others from one score column per class: pass "
            f"score={{class label: score column, ...}}, got {score!r}"
        )
    pairs = check_scores(score)
    ms = resolve(MULTICLASS_DEFAULTS if metrics is None else metrics, "classification")
    allowed = {"ROC_AUC", "average_precision", TOP_K_ACCURACY.name}
    for m in ms:
        if m.spec.name not in allowed:
            raise ValueError(
                f"{m.name} has no multi-class average here (ROC_AUC, average_precision and top_k_accuracy "
                f"do); leave out average= for one value per class"
            )
    by = list(by)
    _check_by(by, ["metric", "value", _WEIGHT, _POSITIVE, _SCORE, _ALL, *MULTICLASS_RESERVED, *SCORE_MEASURES,
                   *(m.name for m in ms), *(f"{_HIT}_m{i}" for i in range(len(ms)))])
    if any(m.spec.name == "ROC_AUC" for m in ms):
        check_ovo(multi_class, average, weight)
    columns = [c for _, c in pairs]
    schema = frame.collect_schema()
    _checks.require_columns(
        schema, _unique([*by, actual, *columns]), FRAME, "pass actual=, score= or by= with your column names"
    )
    dtype = _require_labels(schema, actual)
    for label, _ in pairs:
        _check_label(dtype, label, actual, "score key")
    for c in columns:
        _checks.require_numeric(schema, c, FRAME)
    problems: list[Any] = _checks.null_problems(frame, _unique([*by, actual, *columns]), FRAME)
    problems += weight_problems(frame, weight)
    keys = [label for label, _ in pairs]
    problems.append(_checks.value_problem(
        frame, ~pl.col(actual).is_in(keys), f"labels in {FRAME} column {actual!r} that are no key of score=",
        "map every class to its score column, or drop those rows", value=actual,
    ))
    if any(m.spec.name == "ROC_AUC" for m in ms):
        problems += _range_problems(frame, columns, (0.0, 1.0))
        total = pl.sum_horizontal(pl.col(c).cast(pl.Float64) for c in columns)
        atol, rtol = SUM_TOLERANCE
        off = (1.0 - total).abs() > atol + rtol * total.abs()
        problems.append(_checks.value_problem(
            frame, off.fill_null(False),
            f"rows whose probabilities in {FRAME} columns {', '.join(map(repr, columns))} do not add to 1",
            "multi-class ROC AUC reads probabilities: normalise each row (divide by its sum)",
        ))
    w = None if weight is None else _WEIGHT
    # one key at least: without by=, every row in one group
    keys = by or [_ALL]
    work = frame.select(*by, actual, *_unique(columns), *_weight_column(weight))
    if not by:
        work = work.with_columns(pl.lit(0, pl.Int8).alias(_ALL))
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    # ROC AUC and AP: every class's (or pair's) area from one sort (grouped_multiclass); top-k per row
    areas = {k: (m.spec.name, multi_class, average) for k, m in zip(names, ms, strict=True)
             if m.spec.name in ("ROC_AUC", "average_precision")}
    # top-k: each row's hit in a column first, then one group-by adding them up (the same expressions
    # inside the aggregation cost polars a third more); no label is null here (checked)
    hits = {f"{_HIT}{k}": top_k_hits(actual, pairs, m.kwargs["k"], checked=True)
            for k, m in zip(names, ms, strict=True) if k not in areas}
    exprs = [top_k_share(pl.col(f"{_HIT}{k}"), None, w).cast(pl.Float64).alias(k)
             for k in names if k not in areas]

    wide = None
    if areas:
        wide = multiclass_areas(work, keys, actual, pairs, w, areas, *binary_areas(w is not None))
    if exprs:
        rest = work.with_columns(hit.alias(name) for name, hit in hits.items()).group_by(keys).agg(exprs)
        wide = rest if wide is None else wide.join(rest, on=keys, how="left", nulls_equal=True)
    assert wide is not None
    if by:
        wide = wide.sort(by)
    else:  # one row, also for an empty frame
        wide = pl.LazyFrame({_ALL: [0]}, schema={_ALL: pl.Int8}).join(wide, on=_ALL, how="left").drop(_ALL)
    wide = wide.select(*by, *names)
    return _checks.attach(_shaped(wide, by, names, shape), problems)
