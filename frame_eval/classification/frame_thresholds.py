"""The frame methods at thresholds: ``threshold_rates`` (counts and rates at given thresholds) and
``best_threshold`` (the best threshold of each group by a criterion, with its counts and rates).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval.classification.averages import value
from frame_eval.classification.bounded_rows import _B as BUCKET
from frame_eval.classification.bounded_rows import (
    FP_LEFT,
    TP_LEFT,
    most_sensitive_within_bound,
    rows_that_can_be_best,
    rows_within_bound,
)
from frame_eval.classification.bucketed_best import best_in_buckets, most_specific_within_recall
from frame_eval.classification.counts import (
    AUTO,
    COUNT_NAMES,
    Counts,
    check_zero_division,
    fill_undefined,
    ratio,
    tally,
    weight_total,
)
from frame_eval.classification.curves import Points
from frame_eval.classification.frame_checks import (
    _POSITIVE,
    _SCORE,
    _WEIGHT,
    MeasureArg,
    ScoreArg,
    Shape,
    _check_shape,
    _scored,
    _shaped,
)
from frame_eval.classification.frame_points import curve_points
from frame_eval.classification.grouped_scores import _G as GROUP_ID
from frame_eval.classification.grouped_scores import _S as GROUPED_SCORE
from frame_eval.classification.packed_points import packed_group_points
from frame_eval.classification.rates import DEFAULT_RATES, RATES
from frame_eval.classification.thresholds import (
    BEST_THRESHOLD,
    best_key,
    best_of,
    exact_bound,
    most_false_positives,
)
from frame_eval.registry import measure, resolve

# -- counts and rates at given thresholds ----------------------------------------------------------

def check_thresholds(thresholds: Any) -> list[float]:
    """A list of thresholds, increasing: given as numbers, or as a count of evenly spaced ones in [0, 1]."""
    if isinstance(thresholds, int) and not isinstance(thresholds, bool):
        if thresholds < 2:
            raise ValueError(f"thresholds={thresholds} evenly spaced in [0, 1] needs at least 2")
        return [i / (thresholds - 1) for i in range(thresholds)]
    try:
        values = [float(t) for t in thresholds]
    except (TypeError, ValueError):
        raise TypeError(
            f"thresholds must be a list of numbers or a count of evenly spaced ones, got {thresholds!r}"
        ) from None
    if not values:
        raise ValueError("thresholds=[] names no threshold; pass at least one, e.g. [0.5]")
    bad = next((i for i, t in enumerate(values) if t != t), None)
    if bad is not None:
        raise ValueError(f"thresholds[{bad}] is NaN; pass numbers")
    step = next((i for i in range(1, len(values)) if not values[i - 1] < values[i]), None)
    if step is not None:
        raise ValueError(
            f"thresholds must increase, without repeats: thresholds[{step - 1}] = {values[step - 1]} and "
            f"thresholds[{step}] = {values[step]} (0-based); sort them, e.g. sorted(set(thresholds))"
        )
    return values


def threshold_rates(
    frame: pl.LazyFrame,
    actual: str,
    score: str,
    by: Sequence[str] = (),
    *,
    thresholds: Any,
    inclusive: bool = True,
    metrics: MeasureArg | None = None,
    positive: Any = AUTO,
    zero_division: float | None = None,
    score_range: tuple[float, float] | None = None,
    shape: Shape = "long",
    weight: str | None = None,
) -> pl.LazyFrame:
    """``[*by, threshold, metric, value]``: counts and rates with ``score >= t`` (``> t`` when not
    ``inclusive``) predicted positive, at each threshold ``t``.

    One pass over the rows counts every threshold (two sums per threshold), so
    this suits tens or hundreds of thresholds; the curves (:func:`curve`) give
    every distinct score.
    """
    values = check_thresholds(thresholds)
    if not isinstance(inclusive, bool):
        raise TypeError(f"inclusive must be True (score >= t) or False (score > t), got {inclusive!r}")
    zero_division = check_zero_division(zero_division)
    _check_shape(shape)
    if not isinstance(score, str):
        raise TypeError(f"with thresholds=, score must be one column name, got {score!r}")
    ms = resolve(DEFAULT_RATES if metrics is None else metrics, "classification")
    for m in ms:
        if m.spec.name not in RATES:
            raise ValueError(f"{m.name} is not a count or rate at a threshold: use .ireval.scores()")
    scored, keys, problems = _scored(
        frame, actual, score, by, positive, score_range, ["threshold", "metric", "value", *COUNT_NAMES],
        weight=weight,
    )
    pos, s, w = pl.col(_POSITIVE), pl.col(_SCORE), None if weight is None else _WEIGHT
    said = [s >= t if inclusive else s > t for t in values]
    if w is None:  # each row's count of thresholds passed, then one group-by of (group, count, label)
        passed = pl.col("_passed")
        cells = scored.group_by([*keys, pl.sum_horizontal(said).cast(pl.Int64).alias("_passed"), pos]).agg(
            pl.len().cast(pl.Int64).alias("_rows")
        )
        rows = pl.col("_rows")
        counts = [rows.sum().alias("_n"), rows.filter(pos).sum().alias("_P")]
        for i in range(len(values)):  # a row passes threshold i when it passes more than i of them
            counts += [rows.filter(pos & (passed > i)).sum().alias(f"_tp{i}"),
                       rows.filter(~pos & (passed > i)).sum().alias(f"_fp{i}")]
        per_group = (cells.group_by(keys).agg(counts) if keys else cells.select(counts)).cache()
    else:
        weighted = [weight_total(pl.col(w)).alias("_n"), tally(pos, w).alias("_P")]
        for i, passes in enumerate(said):
            weighted += [tally(pos & passes, w).alias(f"_tp{i}"), tally(~pos & passes, w).alias(f"_fp{i}")]
        per_group = (scored.group_by(keys).agg(weighted) if keys else scored.select(weighted)).cache()
    parts = []
    for i, t in enumerate(values):
        tp, fp = pl.col(f"_tp{i}"), pl.col(f"_fp{i}")
        fn, tn = pl.col("_P") - tp, pl.col("_n") - pl.col("_P") - fp
        parts.append(per_group.select(*keys, pl.lit(t, pl.Float64).alias("threshold"),
                                      tp.alias("tp"), fp.alias("fp"), fn.alias("fn"), tn.alias("tn")))
    grid = pl.concat(parts).sort([*keys, "threshold"]) if keys else pl.concat(parts)
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    wide = grid.select(
        *keys, "threshold",
        *[fill_undefined(value(m, Counts.columns()), zero_division).cast(pl.Float64).alias(k)
          for k, m in zip(names, ms, strict=True)],
    )
    return _checks.attach(_shaped(wide, [*keys, "threshold"], names, shape), problems)


# -- the best threshold with its counts ------------------------------------------------------------

# from this many rows, best_threshold without weights sorts only the rows of the parts of score buckets
# that can hold a group's best point (bucketed_best.best_in_buckets; bounded_rows.rows_that_can_be_best
# when two groups' keys share a hash); fewer rows are all sorted (fewer steps)
BUCKETED_ROWS = 100_000

BEST_COLUMNS: Final = (
    "threshold", "tp", "fp", "fn", "tn", "recall", "specificity", "FPR", "FNR", "precision", "accuracy"
)


def best_threshold(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str] = (),
    *,
    criterion: str = "youden",
    positive: Any = AUTO,
    score_range: tuple[float, float] | None = None,
    weight: str | None = None,
    **options: Any,
) -> pl.LazyFrame:
    """``[*by, (class,) threshold, tp, fp, fn, tn, recall, specificity, FPR, FNR, precision, accuracy]``:
    the best threshold of each group (:func:`frame_eval.classification.thresholds.best_threshold`)
    and the counts and rates there; null when no threshold qualifies."""
    given = {k: v for k, v in options.items() if v is not None}
    m = measure(BEST_THRESHOLD, kind="classification", criterion=criterion, **given)  # checks every value
    scored, keys, problems = _scored(
        frame, actual, score, by, positive, score_range,
        [*BEST_COLUMNS, "_best", "_P", "_N", "_pos", "_neg", "tpr", "fpr", "recall"], weight=weight,
    )
    kwargs = m.kwargs
    criterion = kwargs.pop("criterion")
    # the curve's points of every group (one sort of packed keys; weighted: one sort each), then the best
    # of each group's points
    if weight is None:
        most = most_false_positives(kwargs)
        min_recall = kwargs.get("min_recall")
        schema = scored.collect_schema()  # each group's best point, as every path below gives it
        chosen_schema = {
            **{k: schema[k] for k in keys}, "_P": pl.Int64, "_N": pl.Int64, "threshold": pl.Float64,
            "tp": pl.Int64, "fp": pl.Int64,
        }
        if most is not None and criterion == "recall" and kwargs.get("min_precision") is None and (
            min_recall is None or exact_bound(min_recall) is not None
        ):  # the most sensitive threshold under a bound on false positives: a choice, not a curve
            def most_sensitive(rows: pl.DataFrame) -> pl.DataFrame:
                return most_sensitive_within_bound(rows, keys, _POSITIVE, _SCORE, most, min_recall)

            best = scored.map_batches(most_sensitive, schema=chosen_schema)
        else:
            # the most specific threshold with recall >= a / b: the k-th highest positive score, a choice
            fewest = exact_bound(min_recall) if criterion == "specificity" and min_recall is not None and {
                k for k, v in kwargs.items() if v is not None
            } == {"min_recall"} else None

            def pruned(rows: pl.DataFrame) -> pl.DataFrame:
                if fewest is not None and rows.height >= BUCKETED_ROWS:
                    found = most_specific_within_recall(rows, keys, _POSITIVE, _SCORE, fewest)
                    if found is not None:  # (else two groups' keys share a hash: the path below)
                        return found
                if rows.height >= BUCKETED_ROWS:  # only the rows of the buckets that can hold the best point
                    def key_and_allowed(pts: Points) -> tuple[pl.Expr, pl.Expr]:
                        return best_key(pts, True, criterion, dict(kwargs))

                    found = best_in_buckets(rows, keys, _POSITIVE, _SCORE, key_and_allowed)
                    if found is not None:
                        return found
                    kept, left, totals, bucket = rows_that_can_be_best(
                        rows, keys, _POSITIVE, _SCORE, key_and_allowed, GROUPED_SCORE
                    )
                    return _packed_best(
                        kept.lazy(), keys, criterion, kwargs, totals.lazy(), (left.lazy(), bucket)
                    ).drop(GROUP_ID).collect()  # (the group number is not read after)
                if most is None:
                    return _packed_best(rows.lazy(), keys, criterion, kwargs).drop(GROUP_ID).collect()
                # a bound on false positives: the rows that can qualify, then their points
                kept, totals = rows_within_bound(rows, keys, _POSITIVE, _SCORE, most)
                chosen = _packed_best(kept.lazy(), keys, criterion, kwargs, totals.lazy())
                return chosen.drop(GROUP_ID).collect()

            best = scored.map_batches(pruned, schema=chosen_schema)
    else:
        tp, fp = pl.col("tp"), pl.col("fp")
        pts = curve_points(scored, keys)
        positives, negatives = (tp + pl.col("fn")).first(), (fp + pl.col("tn")).first()
        curve_of = Points(pl.col("threshold"), tp, fp, positives, negatives)
        point = best_of(curve_of, False, criterion, kwargs).alias("_best")
        chosen = (pts.group_by(keys).agg(point) if keys else pts.select(point)).unnest("_best")
        groups = scored.select(keys).unique() if keys else None
        best = groups.join(chosen, on=keys, how="left", nulls_equal=True) if groups is not None else chosen
    tp, fp, positives, negatives = pl.col("tp"), pl.col("fp"), pl.col("_P"), pl.col("_N")
    fn, tn = positives - tp, negatives - fp
    result = best.select(
        *keys, "threshold", tp, fp, fn.alias("fn"), tn.alias("tn"),
        ratio(tp, positives).alias("recall"), ratio(tn, negatives).alias("specificity"),
        ratio(fp, negatives).alias("FPR"), ratio(fn, positives).alias("FNR"),
        ratio(tp, tp + fp).alias("precision"), ratio(tp + tn, positives + negatives).alias("accuracy"),
    )
    return _checks.attach(result.sort(keys) if keys else result, problems)


def _packed_best(
    rows: pl.LazyFrame, keys: list[str], criterion: str, options: dict[str, Any],
    totals: pl.LazyFrame | None = None, left: tuple[pl.LazyFrame, pl.Expr] | None = None,
) -> pl.LazyFrame:
    """``[GROUP_ID, *keys, _P, _N, threshold, tp, fp]``: the best point of each group of the unweighted
    ``rows`` (``[*keys, _POSITIVE, _SCORE]``), from one sort of packed keys; ``totals`` (``[*keys, _n,
    _P]``, every group) are the groups' counts when ``rows`` holds only some of each group's rows: the
    top rows (:func:`~frame_eval.classification.bounded_rows.rows_within_bound`), or, with ``left``, the
    rows of some buckets (:func:`~frame_eval.classification.bounded_rows.rows_that_can_be_best`: the
    counts of the buckets left out above each bucket kept, and a point's bucket)."""
    tp, fp = pl.col("tp"), pl.col("fp")
    groups, pts = packed_group_points(rows, keys, pl.col(_POSITIVE), pl.col(_SCORE))
    if totals is not None:
        numbers = groups.select(GROUP_ID, *keys)
        if keys:
            groups = totals.join(numbers, on=keys, how="left", nulls_equal=True)
        else:
            groups = pl.concat([numbers, totals], how="horizontal")
        pts = pts.drop("_n", "_P").join(
            groups.select(GROUP_ID, "_n", "_P"), on=GROUP_ID, how="left", maintain_order="left"
        )
    if left is not None:  # each point's counts raised by those of the buckets left out above it
        above, bucket = left
        if keys:
            above = above.join(numbers, on=keys, nulls_equal=True)
        else:
            above = above.with_columns(pl.lit(0, pl.UInt64).alias(GROUP_ID))
        pts = pts.with_columns(bucket).join(
            above.select(GROUP_ID, BUCKET, TP_LEFT, FP_LEFT), on=[GROUP_ID, BUCKET], how="left",
            maintain_order="left",
        ).with_columns(tp + pl.col(TP_LEFT), fp + pl.col(FP_LEFT))
    # the key and the constraints row by row over every group's points at once (a group_by of
    # best_of's per-group expressions costs several times more), then the first best point of each
    positives = pl.col("_P").cast(pl.Int64)
    negatives = pl.col("_n").cast(pl.Int64) - positives
    curve_of = Points(pl.col(GROUPED_SCORE), tp, fp, positives, negatives)
    key, allowed = best_key(curve_of, True, criterion, dict(options))
    top = pl.col("_key") == pl.col("_key").max()
    chosen = pts.with_columns(key.alias("_key")).filter(allowed).group_by(GROUP_ID).agg(
        pl.col(GROUPED_SCORE).filter(top).first().alias("threshold"), tp.filter(top).first(),
        fp.filter(top).first(),
    )
    return groups.select(GROUP_ID, *keys, positives, negatives.alias("_N")).join(
        chosen, on=GROUP_ID, how="left"
    )
