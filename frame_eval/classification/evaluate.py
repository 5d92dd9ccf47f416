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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal

import polars as pl

from frame_eval import _checks
from frame_eval._normal import normal_deviate
from frame_eval._tidy import to_long
from frame_eval.classification.counts import (
    AUTO,
    CHECKED_WEIGHT,
    COUNT_NAMES,
    Average,
    Counts,
    binary_counts,
    check_average,
    check_zero_division,
    fill_undefined,
    ratio,
    tally,
    weight_total,
)
from frame_eval.classification.curves import Points
from frame_eval.classification.exact_weights import weighted_points, when_exact
from frame_eval.classification.grouped_multiclass import RESERVED as MULTICLASS_RESERVED
from frame_eval.classification.grouped_multiclass import Measures, multiclass_areas
from frame_eval.classification.grouped_scores import _G as GROUP_ID
from frame_eval.classification.grouped_scores import _S as GROUPED_SCORE
from frame_eval.classification.grouped_scores import SCORE_MEASURES, group_points, point_areas, score_measures
from frame_eval.classification.multiclass import (
    CLASS_AVERAGES,
    MULTI_CLASS,
    TOP_K_ACCURACY,
    check_choice,
    check_ovo,
    check_scores,
)
from frame_eval.classification.probabilistic import PROBABILITY_SPECS
from frame_eval.classification.rates import DEFAULT_RATES, RATES, averaged, label_based, value, weighted_kappa
from frame_eval.classification.thresholds import BEST_THRESHOLD, best_of
from frame_eval.registry import Measure, measure, resolve

FRAME: Final = "predictions"
CLASS: Final = "class"
CURVE_COLUMNS: Final = ("threshold", "tp", "fp", "fn", "tn", "tpr", "fpr", "precision", "recall")
MeasureArg = str | Measure | Iterable[str | Measure]
ScoreArg = str | Mapping[Any, str]
Shape = Literal["long", "wide"]

_ACTUAL, _PREDICTED = "__frame_eval_actual", "__frame_eval_predicted"
_POSITIVE, _SCORE = "__frame_eval_positive", "__frame_eval_score"
_ALL = "__frame_eval_all"
_WEIGHT = CHECKED_WEIGHT
SCORE_DEFAULTS: Final = SCORE_MEASURES


# -- validation ----------------------------------------------------------------------------------

def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)


def _require_labels(schema: pl.Schema, column: str) -> pl.DataType:
    dtype = schema[column]
    if not (dtype == pl.Boolean or dtype.is_integer() or _is_text(dtype)):
        hint = (
            " (pandas turns an integer column with missing values into floats: drop or fill the "
            "missing labels first)" if dtype.is_float() else ""
        )
        raise TypeError(
            f"{FRAME} column {column!r} must hold class labels (Boolean, integer, string or "
            f"categorical), got {dtype}; cast it, e.g. pl.col({column!r}).cast(pl.Int64){hint}"
        )
    return dtype


def _common_label_dtype(schema: pl.Schema, actual: str, predicted: str) -> pl.DataType:
    left, right = _require_labels(schema, actual), _require_labels(schema, predicted)
    if left == right:
        return left
    if left.is_integer() and right.is_integer():
        return pl.Int64
    if _is_text(left) and _is_text(right):
        return pl.String
    raise TypeError(
        f"{FRAME} columns {actual!r} ({left}) and {predicted!r} ({right}) must hold the same kind of "
        f"labels; cast one, e.g. pl.col({predicted!r}).cast(pl.{left})"
    )


def _check_label(dtype: pl.DataType, label: Any, column: str, what: str) -> None:
    fits = (
        (dtype == pl.Boolean and isinstance(label, bool))
        or (dtype.is_integer() and isinstance(label, int) and not isinstance(label, bool))
        or (_is_text(dtype) and isinstance(label, str))
    )
    if not fits:
        raise TypeError(
            f"{what}={label!r} is not a possible label of {FRAME} column {column!r}, which is {dtype}"
        )
    if isinstance(dtype, pl.Enum) and label not in dtype.categories.to_list():
        raise ValueError(f"{what}={label!r} is not a category of {FRAME} column {column!r} ({dtype})")


def resolve_positive(dtype: pl.DataType, positive: Any, column: str) -> tuple[Any, bool]:
    """(positive label, or None for one-vs-rest; whether labels must be 0 or 1)."""
    if positive is None:
        return None, False
    if positive is AUTO:
        if dtype == pl.Boolean:
            return True, False
        if dtype.is_integer():
            return 1, True
        return None, False
    _check_label(dtype, positive, column, "positive")
    return positive, False


# names of the columns the methods make on the way (besides those each passes to _check_by)
_MADE = re.compile(r"_m\d+|_[PNnkGr]|_row\d*|_pos0|_label|__.*")


def _check_by(by: Sequence[str], outputs: Iterable[str]) -> None:
    """``by`` names each column once, and none that the result has or that is made on the way."""
    twice = [b for i, b in enumerate(by) if b in by[:i]]
    if twice:
        raise ValueError(f"by= names {twice[0]!r} more than once; name each column once")
    clash = [b for b in by if b in set(outputs) or _MADE.fullmatch(b)]
    if clash:
        raise ValueError(
            f"by column {clash[0]!r} clashes with a column of the result (or one made on the way); rename it"
        )


def _unique(columns: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(columns))


def _value_problems(
    frame: pl.LazyFrame, columns: Iterable[str], is_bad: Callable[[pl.Expr], pl.Expr], what: str, fix: str
) -> list[_checks.Problem]:
    """One check per column: how many values are bad, and the first bad row (0-based, in the frame as
    given, whichever engine runs) with its value."""
    return [
        _checks.value_problem(
            frame, is_bad(pl.col(c)), f"values in {FRAME} column {c!r} {what}", fix, value=c
        )
        for c in _unique(columns)
    ]


def _not_binary_problems(frame: pl.LazyFrame, columns: Iterable[str], fix: str) -> list[_checks.Problem]:
    return _value_problems(
        frame, columns, lambda col: ~col.is_in([0, 1]), "are neither 0 nor 1",
        f"integer labels are read as binary with positive class 1: {fix}",
    )


def _range_problems(
    frame: pl.LazyFrame, columns: Iterable[str], score_range: tuple[float, float] | None
) -> list[_checks.Problem]:
    if score_range is None:
        return []
    low, high = score_range
    return _value_problems(
        frame, columns, lambda col: (col < low) | (col > high),
        f"are outside the declared score range [{low}, {high}]", "fix the scores or score_range=",
    )


def _check_range(score_range: Any) -> tuple[float, float] | None:
    if score_range is None:
        return None
    try:
        low, high = (float(x) for x in score_range)
    except (TypeError, ValueError):
        raise ValueError(f"score_range must be a pair (low, high), got {score_range!r}") from None
    if not low <= high:
        raise ValueError(f"score_range must have low <= high, got {score_range!r}")
    return low, high


def weight_problems(frame: pl.LazyFrame, weight: str | None) -> list[Any]:
    """Check a sample-weight column: numeric now (``TypeError``), values when collected.

    A weight that is null, NaN, infinite or negative is one ``ValueError``
    naming the column, how many rows, the first (0-based) and its value.
    """
    if weight is None:
        return []
    if not isinstance(weight, str):
        raise TypeError(f"weight must be the name of a column of sample weights, got {weight!r}")
    schema = frame.collect_schema()
    _checks.require_columns(
        schema, [weight], FRAME, "pass weight= with the name of your sample-weight column"
    )
    if not schema[weight].is_numeric():
        raise TypeError(
            f"{FRAME} column {weight!r} must hold sample weights (numbers >= 0), got {schema[weight]}; "
            f"cast it, e.g. pl.col({weight!r}).cast(pl.Float64)"
        )
    w = pl.col(weight).cast(pl.Float64)
    bad = w.is_null() | w.is_nan() | w.is_infinite() | (w < 0)
    return [_checks.value_problem(
        frame, bad, f"null, NaN, infinite or negative values in {FRAME} column {weight!r}",
        "sample weights must be finite numbers >= 0: drop or fix those rows", value=weight,
    )]


def _weight_column(weight: str | None) -> list[pl.Expr]:
    return [] if weight is None else [pl.col(weight).cast(pl.Float64).alias(_WEIGHT)]


def _labels(
    frame: pl.LazyFrame, actual: str, predicted: str, by: Sequence[str], weight: str | None = None
) -> tuple[pl.LazyFrame, pl.DataType, list[Any]]:
    """Checked labels as ``[*by, <actual>, <predicted>(, <weight>)]`` in one dtype, and the data problems."""
    problems = weight_problems(frame, weight)
    schema = frame.collect_schema()
    _checks.require_columns(
        schema, _unique([*by, actual, predicted]), FRAME,
        "pass actual=, predicted= or by= with your column names",
    )
    dtype = _common_label_dtype(schema, actual, predicted)
    labels = frame.select(
        *by, pl.col(actual).cast(dtype).alias(_ACTUAL), pl.col(predicted).cast(dtype).alias(_PREDICTED),
        *_weight_column(weight),
    )
    return labels, dtype, _checks.null_problems(frame, _unique([*by, actual, predicted]), FRAME) + problems


def _check_shape(shape: Any) -> None:
    if shape not in ("long", "wide"):
        raise ValueError(f"shape must be 'long' or 'wide', got {shape!r}")


def _shaped(wide: pl.LazyFrame, keys: Sequence[str], names: Mapping[str, str], shape: Shape) -> pl.LazyFrame:
    """Tidy long ``[*keys, metric, value]``, or ``wide`` with one column per metric, named by it."""
    if shape == "long":
        return to_long(wide, keys, names)
    labels = list(names.values())
    _check_by(list(keys), labels)
    twice = [label for i, label in enumerate(labels) if label in labels[:i]]
    if twice:
        raise ValueError(
            f"metrics ask for {twice[0]} twice (synonyms name the same measure), and shape='wide' has one "
            f"column per measure: ask once"
        )
    return wide.select(*keys, *(pl.col(k).alias(label) for k, label in names.items()))


def _per_group(frame: pl.LazyFrame, by: Sequence[str], exprs: Sequence[pl.Expr]) -> pl.LazyFrame:
    if not by:
        return frame.select(exprs)
    return frame.group_by(list(by)).agg(exprs).sort(list(by))


# -- counts --------------------------------------------------------------------------------------

def _weighted(labels: pl.LazyFrame) -> str | None:
    return _WEIGHT if _WEIGHT in labels.collect_schema() else None


def binary_count_frame(labels: pl.LazyFrame, by: Sequence[str], positive: Any) -> pl.LazyFrame:
    """``[*by, tp, fp, fn, tn, p, n, pp, pn, total]`` of one binary problem per group (weighted: Float64;
    weights that add up exactly in any order are added as they come, others from the smallest up)."""
    weight = _weighted(labels)

    def counted(rows: pl.LazyFrame, exact: bool = False) -> pl.LazyFrame:
        c = binary_counts(_ACTUAL, _PREDICTED, positive, weight, exact=exact)
        cells = _per_group(rows, by, [c.tp.alias("tp"), c.fp.alias("fp"), c.fn.alias("fn"), c.tn.alias("tn")])
        return cells.select(*by, *(getattr(Counts.columns(), name).alias(name) for name in COUNT_NAMES))

    if weight is None:
        return counted(labels)
    return when_exact(labels, weight, lambda rows: counted(rows, exact=True), counted, engine="streaming")


def class_count_frame(labels: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """``[*by, class, tp, fp, fn, tn, p, n, pp, pn, total]``: one-vs-rest counts per class and group.

    Weighted (a weight column in ``labels``): each cell is the sum of its weights, the cells are added
    in label order, so every count has the same bits in any row order.
    """
    by = list(by)
    keys = [*by, CLASS]
    weight = _weighted(labels)
    cell_count = pl.len().cast(pl.Int64) if weight is None else weight_total(pl.col(weight))
    cells = labels.group_by([*by, _ACTUAL, _PREDICTED]).agg(cell_count.alias("_n"))

    def added(order: str) -> pl.Expr:  # counts exactly; weighted cells one by one in label order
        return pl.col("_n").sort_by(order).cum_sum().last()

    support = cells.group_by([*by, _ACTUAL]).agg(added(_PREDICTED).alias("p")).rename({_ACTUAL: CLASS})
    said = cells.group_by([*by, _PREDICTED]).agg(added(_ACTUAL).alias("pp")).rename({_PREDICTED: CLASS})
    hits = cells.filter(pl.col(_ACTUAL) == pl.col(_PREDICTED)).select(
        *by, pl.col(_ACTUAL).alias(CLASS), pl.col("_n").alias("tp")
    )
    classes = pl.concat([support.select(keys), said.select(keys)]).unique(keys)
    counts = classes
    for part in (hits, support, said):
        counts = counts.join(part, on=keys, how="left", nulls_equal=True)
    total = pl.col("_n").sort_by([_ACTUAL, _PREDICTED]).cum_sum().last().alias("total")
    if by:
        totals = cells.group_by(by).agg(total)
        counts = counts.join(totals, on=by, how="left", nulls_equal=True)
    else:
        counts = counts.join(cells.select(total), how="cross")
    counts = counts.with_columns(pl.col("tp", "p", "pp").fill_null(0))
    c = Counts(pl.col("tp"), pl.col("pp") - pl.col("tp"), pl.col("p") - pl.col("tp"),
               pl.col("total") - pl.col("p") - pl.col("pp") + pl.col("tp"))
    return counts.select(*keys, *[getattr(c, name).alias(name) for name in COUNT_NAMES]).sort(keys)


def confusion(
    frame: pl.LazyFrame,
    actual: str,
    predicted: str,
    by: Sequence[str] = (),
    *,
    positive: Any = AUTO,
    weight: str | None = None,
) -> pl.LazyFrame:
    """Counts per group: binary ``[*by, tp, ...]`` or one-vs-rest ``[*by, class, tp, ...]``.

    With ``weight``, sums of sample weights (Float64) instead of row counts.
    """
    _check_by(by, [CLASS, *COUNT_NAMES, "_n"])
    labels, dtype, problems = _labels(frame, actual, predicted, by, weight)
    label, binary_only = resolve_positive(dtype, positive, actual)
    if binary_only:
        problems += _not_binary_problems(
            frame, [actual, predicted],
            "pass positive=None for one row per class, or positive=<label> for one class against the rest",
        )
    result = class_count_frame(labels, by) if label is None else binary_count_frame(labels, by, label)
    return _checks.attach(result, problems)


# -- rates ---------------------------------------------------------------------------------------

def rates(
    frame: pl.LazyFrame,
    actual: str,
    predicted: str,
    by: Sequence[str] = (),
    *,
    metrics: MeasureArg | None = None,
    positive: Any = AUTO,
    average: Average | None = None,
    zero_division: float | None = None,
    shape: Shape = "long",
    weight: str | None = None,
) -> pl.LazyFrame:
    """``[*by, (class,) metric, value]``: every rate of each group (and class), tidy long.

    ``shape="wide"`` gives ``[*by, (class,) <one Float64 column per metric>]`` instead.
    """
    average = check_average(average)  # type: ignore[assignment]
    zero_division = check_zero_division(zero_division)
    _check_shape(shape)
    ms = resolve(DEFAULT_RATES if metrics is None else metrics, "classification")
    for m in ms:
        if m.spec.name not in RATES:
            raise ValueError(
                f"{m.name} is computed from scores, not predicted labels: use .ireval.scores(actual=, "
                f"score=, metrics=[{m.name!r}]), or its expression from frame_eval.classification "
                f"in group_by().agg()"
            )
    if average is not None and positive is not AUTO and positive is not None:
        raise ValueError("pass either positive= (binary) or average= (multi-class averages), not both")
    _check_by(by, [CLASS, "metric", "value", *COUNT_NAMES, "_n"])
    labels, dtype, problems = _labels(frame, actual, predicted, by, weight)
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    if average is not None:
        keys = list(by)
        counts = Counts.columns()
        from_labels = {k for k, m in zip(names, ms, strict=True) if label_based(m, average)}
        wide = _per_group(
            class_count_frame(labels, by), by,
            [averaged(m, counts, average, zero_division, order=pl.col(CLASS)).cast(pl.Float64).alias(k)
             for k, m in zip(names, ms, strict=True) if k not in from_labels],
        )
        if from_labels:  # weighted kappa reads the labels themselves
            kappas = _per_group(labels, by, [
                fill_undefined(weighted_kappa(_ACTUAL, _PREDICTED, m.kwargs["weights"], _weighted(labels)),
                               zero_division).cast(pl.Float64).alias(k)
                for k, m in zip(names, ms, strict=True) if k in from_labels
            ])
            wide = (wide.join(kappas, on=keys, how="left", nulls_equal=True).sort(keys) if keys
                    else pl.concat([wide, kappas], how="horizontal"))
            wide = wide.select(*keys, *names)
    else:
        label, binary_only = resolve_positive(dtype, positive, actual)
        if binary_only:
            problems += _not_binary_problems(
                frame, [actual, predicted],
                "pass positive=None for one row per class, positive=<label> for one class against the rest, "
                "or average='macro' ('micro', 'weighted')",
            )
        keys = [*by, CLASS] if label is None else list(by)
        if label is None:
            counts_frame = class_count_frame(labels, by)
        else:
            counts_frame = binary_count_frame(labels, by, label)
        wide = counts_frame.select(
            *keys,
            *[fill_undefined(value(m, Counts.columns()), zero_division).cast(pl.Float64).alias(k)
              for k, m in zip(names, ms, strict=True)],
        )
    return _checks.attach(_shaped(wide, keys, names, shape), problems)



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
    rows = pl.len().cast(pl.Int64) if w is None else weight_total(pl.col(w))
    counts = [rows.alias("_n"), tally(pos, w).alias("_P")]
    for i, t in enumerate(values):
        said = s >= t if inclusive else s > t
        counts += [tally(pos & said, w).alias(f"_tp{i}"), tally(~pos & said, w).alias(f"_fp{i}")]
    per_group = (scored.group_by(keys).agg(counts) if keys else scored.select(counts)).cache()
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

# -- confusion matrix ----------------------------------------------------------------------------

def confusion_matrix(
    frame: pl.LazyFrame, actual: str, predicted: str, by: Sequence[str] = (), *, weight: str | None = None
) -> pl.LazyFrame:
    """``[*by, actual, predicted, count]``: every cell of each group's K x K matrix, zeros included.

    With ``weight``, each cell is the sum of its rows' sample weights (Float64).
    """
    _check_by(by, ["actual", "predicted", "count", CLASS])
    labels, _, problems = _labels(frame, actual, predicted, by, weight)
    by = list(by)
    count = pl.len().cast(pl.Int64) if weight is None else weight_total(pl.col(_WEIGHT))
    cells = labels.group_by([*by, _ACTUAL, _PREDICTED]).agg(count.alias("count"))
    cells = cells.rename({_ACTUAL: "actual", _PREDICTED: "predicted"})
    classes = pl.concat([cells.select(*by, pl.col(side).alias(CLASS)) for side in ("actual", "predicted")])
    classes = classes.unique()
    rows, columns = classes.rename({CLASS: "actual"}), classes.rename({CLASS: "predicted"})
    grid = rows.join(columns, on=by, nulls_equal=True) if by else rows.join(columns, how="cross")
    keys = [*by, "actual", "predicted"]
    matrix = grid.join(cells, on=keys, how="left", nulls_equal=True)
    matrix = matrix.with_columns(pl.col("count").fill_null(0)).select(*keys, "count").sort(keys)
    return _checks.attach(matrix, problems)


# -- threshold curves ----------------------------------------------------------------------------

def _weighted_curve(scored: pl.LazyFrame, keys: list[str], weight: str) -> pl.LazyFrame:
    """``[GROUP_ID, *keys, <score>, tp, fp, _P, _N]`` of weighted rows: :func:`exact_weights.weighted_points`,
    each group sorted by score alone when the weights add up exactly in any order, else by (score, label,
    weight)."""
    rows = scored.select(*keys, _POSITIVE, _SCORE, weight)

    def sorted_points(exact: bool) -> Callable[[pl.LazyFrame], pl.LazyFrame]:
        return lambda f: weighted_points(f, keys, _POSITIVE, _SCORE, weight, exact=exact)

    return when_exact(rows, weight, sorted_points(True), sorted_points(False)).cache()  # read more than once


def curve_points(scored: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """From ``[*keys, <is positive>, <score>]`` rows to ``[*keys, threshold, tp, ..., recall]``.

    One point per distinct score of each group, threshold descending; a row is
    predicted positive at threshold ``t`` when its score is ``>= t``.
    """
    keys = list(keys)
    weight = _WEIGHT if _WEIGHT in scored.collect_schema() else None
    positive = pl.col(_POSITIVE)
    if weight is None:  # counts: per distinct score, then running sums over the scores, high to low
        def per_group(e: pl.Expr) -> pl.Expr:
            return e.over(keys) if keys else e

        points = scored.group_by([*keys, _SCORE]).agg(
            positive.sum().cast(pl.Int64).alias("_pos"), (~positive).sum().cast(pl.Int64).alias("_neg")
        )
        points = points.sort([*keys, _SCORE], descending=[False] * len(keys) + [True])
        points = points.with_columns(
            per_group(pl.col("_pos").cum_sum()).alias("tp"), per_group(pl.col("_neg").cum_sum()).alias("fp")
        ).with_columns(per_group(pl.col("tp").last()).alias("_P"), per_group(pl.col("fp").last()).alias("_N"))
    else:
        points = _weighted_curve(scored, keys, weight)
    tp, fp, positives, negatives = pl.col("tp"), pl.col("fp"), pl.col("_P"), pl.col("_N")
    return points.select(
        *keys,
        pl.col(_SCORE).alias("threshold"),
        tp,
        fp,
        (positives - tp).alias("fn"),
        (negatives - fp).alias("tn"),
        ratio(tp, positives).alias("tpr"),
        ratio(fp, negatives).alias("fpr"),
        ratio(tp, tp + fp).alias("precision"),
        ratio(tp, positives).alias("recall"),
    )


def _scored(
    frame: pl.LazyFrame,
    actual: str,
    score: ScoreArg,
    by: Sequence[str],
    positive: Any,
    score_range: tuple[float, float] | None,
    reserved: Sequence[str],
    weight: str | None = None,
) -> tuple[pl.LazyFrame, list[str], list[Any]]:
    """Checked ``[*keys, <is positive>, <score>]`` rows for curves and score measures.

    ``score`` is one score column (binary, positive as in :func:`confusion`)
    or a mapping ``{class label: score column}``: every class against the
    rest, with a ``class`` key. Returns the rows, the keys and the data checks.
    """
    score_range = _check_range(score_range)
    if not isinstance(score, str | Mapping):
        raise TypeError(
            f"score must be one column name (a binary problem) or a mapping {{class label: score column}} "
            f"(one problem per class), got {type(score).__name__} {score!r}; for several score columns of "
            f"one problem, call once per column"
        )
    schema = frame.collect_schema()
    per_class = isinstance(score, Mapping)
    score_columns = list(score.values()) if isinstance(score, Mapping) else [score]
    if per_class and not score_columns:
        raise ValueError("score={} names no score columns; map each class label to its score column")
    _check_by(by, [CLASS, *reserved])
    _checks.require_columns(
        schema, _unique([*by, actual, *score_columns]), FRAME,
        "pass actual=, score= or by= with your column names",
    )
    dtype = _require_labels(schema, actual)
    for c in score_columns:
        _checks.require_numeric(schema, c, FRAME)
    problems = _checks.null_problems(frame, _unique([*by, actual, *score_columns]), FRAME)
    problems += _range_problems(frame, score_columns, score_range)
    problems += weight_problems(frame, weight)
    by = list(by)
    if isinstance(score, Mapping):
        if positive is not AUTO:
            raise ValueError(
                "with score={class: column}, every class is positive in turn; leave out positive="
            )
        parts = []
        for label, column in score.items():
            _check_label(dtype, label, actual, "score key")
            parts.append(
                frame.select(
                    *by,
                    pl.lit(label).cast(dtype).alias(CLASS),
                    (pl.col(actual) == label).alias(_POSITIVE),
                    pl.col(column).cast(pl.Float64).alias(_SCORE),
                    *_weight_column(weight),
                )
            )
        return pl.concat(parts), [*by, CLASS], problems
    label, binary_only = resolve_positive(dtype, positive, actual)
    if label is None:
        raise ValueError(
            f"{FRAME} column {actual!r} holds {dtype} labels: pass positive=<label> for one binary problem, "
            f"or score={{label: score column, ...}} for one per class"
        )
    if binary_only:
        problems += _not_binary_problems(
            frame, [actual], "pass positive=<label> to choose the positive class"
        )
    scored = frame.select(
        *by, (pl.col(actual) == label).alias(_POSITIVE), pl.col(score).cast(pl.Float64).alias(_SCORE),
        *_weight_column(weight),
    )
    return scored, by, problems


def weighted_score_measures(scored: pl.LazyFrame, keys: Sequence[str], names: Sequence[str]) -> pl.LazyFrame:
    """``[*keys, <one Float64 column per name>]`` of weighted rows, from the points of :func:`curve_points`
    (sums of weights per distinct score, added in a fixed order): each group's scores sorted once, and
    the areas of all groups read off those points at once (:func:`grouped_scores.point_areas`, the
    unweighted path's code)."""
    keys = list(keys)
    pts = _weighted_curve(scored, keys, _WEIGHT)  # each group's points contiguous, threshold descending
    tp, fp = pl.col("tp"), pl.col("fp")
    first = (pl.col(GROUP_ID) != pl.col(GROUP_ID).shift(1)).fill_null(True)

    def at_first(e: pl.Expr) -> pl.Expr:  # P and N as the expressions take them, at the group's first point
        return pl.when(first).then(e).forward_fill()

    pts = pts.select(  # (Float64 even when no weight is above 0 and there are no points)
        GROUP_ID, *keys, tp.cast(pl.Float64), fp.cast(pl.Float64),
        at_first(tp + (pl.col("_P") - tp)).cast(pl.Float64).alias("_P"),
        at_first(fp + (pl.col("_N") - fp)).cast(pl.Float64).alias("_N"),
    )
    per_group = pts.filter(first).select(GROUP_ID, *keys, "_P", "_N")
    for part in point_areas(pts.select(GROUP_ID, "tp", "fp", "_P", "_N"), names):
        per_group = per_group.join(part, on=GROUP_ID, how="left")
    both, some = (pl.col("_P") > 0) & (pl.col("_N") > 0), pl.col("_P") > 0
    rules = {"ROC_AUC": both, "EER": both, "average_precision": some, "PR_AUC": some}
    per_group = per_group.select(
        *keys, *(pl.when(rules[name]).then(pl.col(name)).cast(pl.Float64).alias(name) for name in names)
    )
    groups = scored.select(keys).unique() if keys else None
    if groups is not None:  # a group whose weights are all 0 has no points: null values, as unweighted
        per_group = groups.join(per_group, on=keys, how="left", nulls_equal=True)
    else:  # no keys: one row, of nulls when no weight is above 0
        nulls = pl.select(pl.lit(None, pl.Float64).alias(n) for n in names).lazy()
        per_group = pl.concat([per_group.select(names), nulls]).head(1)
    return per_group.select(*keys, *(pl.col(n).cast(pl.Float64) for n in names))


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
    points = curve_points(scored, keys).select(*keys, "threshold", "tp", "fp", "fn", "tn")
    counts = points.collect_schema()["tp"]
    first = [pl.col("tp").first() + pl.col("fn").first(), pl.col("fp").first() + pl.col("tn").first()]
    totals = points.group_by(keys).agg(first) if keys else points.select(first)
    origin = totals.select(  # scikit-learn's point at +inf: nothing predicted positive
        *keys, pl.lit(float("inf")).alias("threshold"), pl.lit(0).cast(counts).alias("tp"),
        pl.lit(0).cast(counts).alias("fp"), pl.col("tp").cast(counts).alias("fn"),
        pl.col("fp").cast(counts).alias("tn"),
    )
    points = pl.concat([origin, points]).sort([*keys, "threshold"], descending=[*(False for _ in keys), True])

    def per_group(e: pl.Expr) -> pl.Expr:
        return e.over(keys) if keys else e

    tp, fp, fn, tn = pl.col("tp"), pl.col("fp"), pl.col("fn"), pl.col("tn")
    positives, lowest_fp = tp + fn, per_group(fp.min())
    next_fp, previous_tp = per_group(fp.shift(-1)), per_group(tp.shift(1))
    # from the last point at the lowest false positive count; to the first that finds every positive
    from_start = (fp > lowest_fp) | next_fp.is_null() | (next_fp > lowest_fp)
    to_end = (tp < positives) | previous_tp.is_null() | (previous_tp < positives)
    both_classes = (positives > 0) & (fp + tn > 0)
    det = points.filter(from_start & to_end & both_classes).select(
        *keys, "threshold", "fp", "fn", ratio(fp, fp + tn).alias("fpr"), ratio(fn, positives).alias("fnr")
    ).with_columns(
        normal_deviate(pl.col("fpr")).alias("fpr_probit"), normal_deviate(pl.col("fnr")).alias("fnr_probit")
    )
    return _checks.attach(det.sort([*keys, "threshold"]), problems)


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
        ["metric", "value", "_n", "_P", *CURVE_COLUMNS, *SCORE_MEASURES, *(m.name for m in ms)],
        weight=weight,
    )
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    fused = {k: m for k, m in zip(names, ms, strict=True) if m.spec.name in SCORE_MEASURES and not m.kwargs}
    others = {k: m for k, m in zip(names, ms, strict=True) if k not in fused}
    columns = {
        "actual": _POSITIVE, "score": _SCORE, "positive": True, "weight": None if weight is None else _WEIGHT
    }
    exprs = [m.spec.build(columns, None, **m.kwargs).cast(pl.Float64).alias(k) for k, m in others.items()]
    extra = (scored.group_by(keys).agg(exprs) if keys else scored.select(exprs)) if others else None
    if fused:
        measured = [m.spec.name for m in fused.values()]
        wide = (
            score_measures(scored, keys, pl.col(_POSITIVE), pl.col(_SCORE), measured) if weight is None
            else weighted_score_measures(scored, keys, measured)
        ).rename({m.spec.name: k for k, m in fused.items()})
        if extra is not None:
            wide = (
                wide.join(extra, on=keys, how="left", nulls_equal=True) if keys
                else pl.concat([wide, extra], how="horizontal")
            )
    else:
        assert extra is not None
        wide = extra
    if keys:
        wide = wide.sort(keys)
    return _checks.attach(_shaped(wide, keys, names, shape), problems)


# -- multi-class scores ------------------------------------------------------------------------------

def binary_areas(weighted: bool) -> tuple[Measures, tuple[str, str]]:
    """The binary areas of many groups that ``grouped_multiclass.multiclass_areas`` reads, and the
    (positive, score) columns they read; weighted ones read the weight column ``_WEIGHT``."""

    def measured(scored: pl.LazyFrame, group: list[str], wanted: list[str]) -> pl.LazyFrame:
        if weighted:
            return weighted_score_measures(scored, group, wanted)
        return score_measures(scored, group, pl.col(_POSITIVE), pl.col(_SCORE), wanted)

    return measured, (_POSITIVE, _SCORE)


MULTICLASS_DEFAULTS: Final = ("ROC_AUC", "average_precision")
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

    ROC AUC and AP come from one sort of every class's (or pair's) scores in
    every group (:mod:`frame_eval.classification.grouped_multiclass`): the
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
                   *(m.name for m in ms)])
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
    inputs = {"actual": actual, "scores": dict(pairs), "weight": w}
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    # ROC AUC and AP: every class's (or pair's) area from one sort (grouped_multiclass); top-k per row
    areas = {k: (m.spec.name, multi_class, average) for k, m in zip(names, ms, strict=True)
             if m.spec.name in ("ROC_AUC", "average_precision")}
    exprs = [m.spec.build(inputs, None, **m.kwargs).cast(pl.Float64).alias(k)
             for k, m in zip(names, ms, strict=True) if k not in areas]

    wide = None
    if areas:
        wide = multiclass_areas(work, keys, actual, pairs, w, areas, *binary_areas(w is not None))
    if exprs:
        rest = work.group_by(keys).agg(exprs)
        wide = rest if wide is None else wide.join(rest, on=keys, how="left", nulls_equal=True)
    assert wide is not None
    if by:
        wide = wide.sort(by)
    else:  # one row, also for an empty frame
        wide = pl.LazyFrame({_ALL: [0]}, schema={_ALL: pl.Int8}).join(wide, on=_ALL, how="left").drop(_ALL)
    wide = wide.select(*by, *names)
    return _checks.attach(_shaped(wide, by, names, shape), problems)


# -- classification report ------------------------------------------------------------------------

REPORT_COLUMNS: Final = ("precision", "recall", "f1-score", "support")
REPORT_ROWS: Final = ("accuracy", "macro avg", "weighted avg")


def classification_report(
    frame: pl.LazyFrame,
    actual: str,
    predicted: str,
    by: Sequence[str] = (),
    *,
    zero_division: float | None = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """scikit-learn's ``classification_report(output_dict=True)`` as a frame, per group.

    ``[*by, class, precision, recall, f1-score, support]``: one row per class
    of the group (labels as text, in label order), then ``accuracy`` (its
    value in ``f1-score``, precision and recall null, support the total, as
    the printed report shows it), ``macro avg`` and ``weighted avg`` (support
    the total). ``support`` is Int64, or Float64 with ``weight``.
    """
    zero_division = check_zero_division(zero_division)
    by = list(by)
    _check_by(by, [CLASS, *REPORT_COLUMNS, *COUNT_NAMES, "_n", "_row", "_label"])
    labels, dtype, problems = _labels(frame, actual, predicted, by, weight)
    counts_frame = class_count_frame(labels, by)
    c = Counts.columns()
    # class labels as scikit-learn's report names them, str(label)
    as_text = (pl.when(pl.col(CLASS)).then(pl.lit("True")).otherwise(pl.lit("False")) if dtype == pl.Boolean
               else pl.col(CLASS).cast(pl.String)).alias(CLASS)
    ms = {name: m for name, m in zip(("precision", "recall", "f1-score"),
                                     resolve(["precision", "recall", "F1"], "classification"), strict=True)}
    per_class = counts_frame.select(
        *by, as_text,
        *[fill_undefined(value(m, c), zero_division).cast(pl.Float64).alias(name) for name, m in ms.items()],
        pl.col("p").alias("support"), pl.lit(0, pl.Int32).alias("_row"), pl.col(CLASS).alias("_label"),
    )
    (accuracy,) = resolve(["accuracy"], "classification")
    total = pl.col("total").first().alias("support")
    parts = [per_class]
    nothing, order = pl.lit(None, pl.Float64), pl.col(CLASS)
    summary = [
        (REPORT_ROWS[0], [nothing.alias("precision"), nothing.alias("recall"),
                          averaged(accuracy, c, "micro", zero_division, order=order).alias("f1-score")]),
        *[(row, [averaged(m, c, average, zero_division, order=order).cast(pl.Float64).alias(name)
                 for name, m in ms.items()])
          for row, average in ((REPORT_ROWS[1], "macro"), (REPORT_ROWS[2], "weighted"))],
    ]
    for i, (row, exprs) in enumerate(summary, start=1):
        part = _per_group(counts_frame, by, [*exprs, total])
        parts.append(part.select(
            *by, pl.lit(row).alias(CLASS), *REPORT_COLUMNS, pl.lit(i, pl.Int32).alias("_row"),
            pl.lit(None).cast(dtype).alias("_label"),
        ))
    report = pl.concat(parts, how="vertical")
    # classes in label order, then the three summary rows (a sort on every key: the same under any engine)
    report = report.sort([*by, "_row", "_label"], nulls_last=True).drop("_row", "_label")
    return _checks.attach(report, problems)


# -- the best threshold with its counts ------------------------------------------------------------

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
    # the curve's points of every group (one sort each), then the best of each group's points
    tp, fp = pl.col("tp"), pl.col("fp")
    if weight is None:
        totals, pts = group_points(scored, keys, pl.col(_POSITIVE), pl.col(_SCORE))
        positives = pl.col("_P").first().cast(pl.Int64)
        negatives = pl.col("_n").first().cast(pl.Int64) - positives
        curve_of = Points(pl.col(GROUPED_SCORE), tp, fp, positives, negatives)
        point = best_of(curve_of, True, kwargs.pop("criterion"), kwargs).alias("_best")
        chosen = pts.group_by(GROUP_ID).agg(point)
        best = totals.select(GROUP_ID, *keys).join(chosen, on=GROUP_ID, how="left").unnest("_best")
    else:
        pts = curve_points(scored, keys)
        positives, negatives = (tp + pl.col("fn")).first(), (fp + pl.col("tn")).first()
        curve_of = Points(pl.col("threshold"), tp, fp, positives, negatives)
        point = best_of(curve_of, False, kwargs.pop("criterion"), kwargs).alias("_best")
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
