"""The frame methods on scores: ``curve`` (ROC / PR points), ``det_curve`` and ``scores``
(ROC AUC, average precision, PR AUC, EER and the other score measures of each group).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval._normal import normal_deviate
from frame_eval.classification.binary_probabilities import binary_probabilities
from frame_eval.classification.counts import AUTO, ratio
from frame_eval.classification.frame_checks import (
    _POSITIVE,
    _SCORE,
    _WEIGHT,
    CLASS,
    CURVE_COLUMNS,
    SCORE_DEFAULTS,
    MeasureArg,
    ScoreArg,
    Shape,
    _beside,
    _check_shape,
    _scored,
    _shaped,
)
from frame_eval.classification.frame_multiclass import multiclass_scores
from frame_eval.classification.frame_points import curve_points, weighted_score_measures
from frame_eval.classification.grouped_multiclass import _C as _CLASS_NUMBER
from frame_eval.classification.grouped_multiclass import RESERVED as MULTICLASS_RESERVED
from frame_eval.classification.grouped_multiclass import class_areas
from frame_eval.classification.grouped_scores import SCORE_MEASURES, score_measures
from frame_eval.classification.multiclass import TOP_K_ACCURACY
from frame_eval.classification.probabilistic import PROBABILITY_SPECS
from frame_eval.classification.rates import RATES
from frame_eval.registry import resolve

# -- threshold curves ------------------------------------------------------------------------------

def curve(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str] = (),
    *,
    positive: Any = AUTO,
    score_range: tuple[float, float] | None = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """Threshold curves: ``[*by, (class,) threshold, tp, fp, fn, tn, tpr, fpr, precision, recall]``.

    ``score`` is one score column (binary, positive as in :func:`confusion`)
    or a mapping ``{class label: score column}`` for one-vs-rest curves, one
    per class, with a ``class`` column.
    """
    scored, keys, problems = _scored(
        frame, actual, score, by, positive, score_range, [*CURVE_COLUMNS, "_pos", "_neg", "_P", "_N"],
        weight=weight,
    )
    return _checks.attach(curve_points(scored, keys), problems)


DET_COLUMNS: Final = ("threshold", "fp", "fn", "fpr", "fnr", "fpr_probit", "fnr_probit")
_GROUP, _AT = "__fe_group", "__fe_at"  # det_curve's group and point numbers


def det_curve(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str] = (),
    *,
    positive: Any = AUTO,
    score_range: tuple[float, float] | None = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """Detection error tradeoff: ``[*by, (class,) threshold, fp, fn, fpr, fnr, fpr_probit, fnr_probit]``,
    threshold ascending.

    scikit-learn's (1.9) ``det_curve`` points: the curve's points, after a first
    one at threshold ``+inf`` that predicts nothing positive, from the last
    one without a false positive to the first that finds every positive (so
    the ``+inf`` point is there only when the highest score has negatives).
    ``fpr`` is the false acceptance rate (FAR), ``fnr`` the false rejection rate (FRR). ``fpr_probit`` and
    ``fnr_probit`` are their standard normal deviates, the DET plot's axes
    (:func:`frame_eval._normal.normal_deviate`; a rate of 0 gives ``-inf``).
    A group with only one class has no rows (scikit-learn raises there).
    """
    scored, keys, problems = _scored(
        frame, actual, score, by, positive, score_range, [*CURVE_COLUMNS, "_pos", "_neg", "_P", "_N"],
        weight=weight,
    )
    # the points come sorted by the keys, then threshold descending: each group's rows are numbered in
    # that order (a group's number from where its keys change), so that one sort of two integers puts them
    # in the order asked for, instead of sorts on the keys and windows over them
    points = curve_points(scored, keys).select(*keys, "threshold", "tp", "fp", "fn", "tn")
    counts = points.collect_schema()["tp"]
    at = pl.int_range(pl.len(), dtype=pl.Int64)
    first = pl.any_horizontal(at == 0, *(pl.col(k).ne_missing(pl.col(k).shift(1)) for k in keys))
    points = points.with_columns(first.alias(_GROUP), at.alias(_AT))
    points = points.with_columns(pl.col(_GROUP).cum_sum()).cache()
    tp, fp, fn, tn = pl.col("tp"), pl.col("fp"), pl.col("fn"), pl.col("tn")
    group = pl.col(_GROUP)
    # scikit-learn's point at +inf, nothing predicted positive: one per group, from its first point
    origin = points.filter(group != group.shift(1).fill_null(0)).select(
        *keys, pl.lit(float("inf")).alias("threshold"), pl.lit(0).cast(counts).alias("tp"),
        pl.lit(0).cast(counts).alias("fp"), (tp + fn).cast(counts).alias("fn"),
        (fp + tn).cast(counts).alias("tn"), _GROUP, pl.lit(-1, pl.Int64).alias(_AT),
    )
    # the origin shares threshold +inf with a group's points at a score of +inf: it comes first going down
    # (fewest predicted positive), so each group's rows are ordered (origin, then its points) going down,
    # and in reverse going up, as asked for: ascending threshold
    ascending = pl.concat([origin, points]).sort(
        [_GROUP, _AT], descending=[False, True]
    )
    positives = tp + fn
    # going down from the last point at the group's lowest false positive count (the origin's 0: the
    # counts never fall below it), to the first that finds every positive; going up, the point above is
    # the row before and the point below the row after (null across groups)
    next_fp = pl.when(group.shift(1) == group).then(fp.shift(1))
    previous_tp = pl.when(group.shift(-1) == group).then(tp.shift(-1))
    from_start = (fp > 0) | next_fp.is_null() | (next_fp > 0)
    to_end = (tp < positives) | previous_tp.is_null() | (previous_tp < positives)
    both_classes = (positives > 0) & (fp + tn > 0)
    ascending = ascending.filter(from_start & to_end & both_classes).select(
        *keys, "threshold", "fp", "fn", ratio(fp, fp + tn).alias("fpr"), ratio(fn, positives).alias("fnr")
    ).with_columns(
        normal_deviate(pl.col("fpr")).alias("fpr_probit"), normal_deviate(pl.col("fnr")).alias("fnr_probit")
    )
    return _checks.attach(ascending, problems)


def scores(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str] = (),
    *,
    metrics: MeasureArg | None = None,
    positive: Any = AUTO,
    score_range: tuple[float, float] | None = None,
    shape: Shape = "long",
    weight: str | None = None,
    average: str | None = None,
    multi_class: str = "ovr",
) -> pl.LazyFrame:
    """``[*by, (class,) metric, value]``: score-based measures of each group, tidy long (or wide).

    With ``average`` (and ``score`` a mapping ``{class: column}``), one value per group of the
    multi-class measures: see :func:`multiclass_scores`.

    ROC AUC, average precision, PR AUC and EER come from one sort of each
    group's scores (:mod:`frame_eval.classification.grouped_scores`); other score measures, such as
    ``best_threshold``, from their expressions.
    """
    _check_shape(shape)
    if average is not None:
        if positive is not AUTO:
            raise ValueError("with average=, every class of score={class: column} is positive in turn; "
                             "leave out positive=")
        return multiclass_scores(
            frame, actual, score, by, metrics=metrics, average=average, multi_class=multi_class,
            weight=weight, shape=shape,
        )
    ms = resolve(SCORE_DEFAULTS if metrics is None else metrics, "classification")
    for m in ms:
        if m.spec is TOP_K_ACCURACY:
            raise ValueError(
                f"{m.name} is one value per group from every class's score column: pass "
                f"score={{class: column, ...}} and average='macro' (any average gives the same value)"
            )
        if m.spec.name in RATES:
            raise ValueError(
                f"{m.name} is computed from predicted labels, not scores: use .ireval.rates(actual=, "
                f"predicted=, metrics=[{m.name!r}])"
            )
    if score_range is None and any(m.spec in PROBABILITY_SPECS for m in ms):
        score_range = (0.0, 1.0)  # log-loss and Brier read probabilities
    scored, keys, problems = _scored(
        frame, actual, score, by, positive, score_range,
        ["metric", "value", "_n", "_P", *CURVE_COLUMNS, *SCORE_MEASURES, *(m.name for m in ms),
         *MULTICLASS_RESERVED],
        weight=weight,
    )
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    fused = {k: m for k, m in zip(names, ms, strict=True) if m.spec.name in SCORE_MEASURES and not m.kwargs}
    others = {k: m for k, m in zip(names, ms, strict=True) if k not in fused}
    columns = {
        "actual": _POSITIVE, "score": _SCORE, "positive": True, "weight": None if weight is None else _WEIGHT
    }
    exprs = [m.spec.build(columns, None, **m.kwargs).cast(pl.Float64).alias(k) for k, m in others.items()]
    # log-loss, Brier and ECE of the checked rows from frame-wide steps (the builders' bits)
    probs = {k: m for k, m in others.items() if m.spec in PROBABILITY_SPECS}
    plain = [e for e, k in zip(exprs, others, strict=True) if k not in probs]
    extra = (scored.group_by(keys).agg(plain) if keys else scored.select(plain)) if plain else None
    if probs:
        weighted = None if weight is None else _WEIGHT
        fast = binary_probabilities(scored, keys, _POSITIVE, _SCORE, weighted, probs)
        extra = fast if extra is None else _beside(extra, fast, keys)
    if fused:
        measured = [m.spec.name for m in fused.values()]
        if isinstance(score, Mapping) and weight is None:
            # one sort of each class's scores, every group together (no long layout of the classes)
            wide = _class_areas(frame, actual, score, by, measured)
        elif weight is None:
            wide = score_measures(scored, keys, pl.col(_POSITIVE), pl.col(_SCORE), measured)
        else:
            wide = weighted_score_measures(scored, keys, measured)
        wide = wide.rename({m.spec.name: k for k, m in fused.items()})
        if extra is not None:
            wide = _beside(wide, extra, keys)
    else:
        assert extra is not None
        wide = extra
    if keys:
        wide = wide.sort(keys)
    return _checks.attach(_shaped(wide, keys, names, shape), problems)


def _class_areas(
    frame: pl.LazyFrame, actual: str, score: Mapping[Any, str], by: Sequence[str], names: list[str]
) -> pl.LazyFrame:
    """``[*by, class, *names]``: each class of ``score`` against the rest, the areas of
    :func:`~frame_eval.classification.grouped_multiclass.class_areas` (checked rows, no weights)."""
    dtype = frame.collect_schema()[actual]
    pairs = list(score.items())
    labels = pl.concat([
        pl.LazyFrame({_CLASS_NUMBER: [i]}, schema={_CLASS_NUMBER: pl.Int32}).select(
            _CLASS_NUMBER, pl.lit(label).cast(dtype).alias(CLASS)
        )
        for i, (label, _) in enumerate(pairs)
    ])
    areas = class_areas(frame.select(*by, actual, *{c: None for _, c in pairs}), by, actual, pairs, names)
    return areas.join(labels, on=_CLASS_NUMBER).select(*by, CLASS, *names)
