"""The frame methods on predicted labels: ``confusion``, ``rates``, ``confusion_matrix`` and
``classification_report`` (one-vs-rest counts of each group, then the registry's builders).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval.classification.averages import averaged, label_based, value
from frame_eval.classification.counts import (
    AUTO,
    COUNT_NAMES,
    Average,
    Counts,
    WeightsSeen,
    binary_counts,
    check_average,
    check_zero_division,
    fill_undefined,
    is_positive,
    ratio,
    weight_total,
)
from frame_eval.classification.exact_weights import when_exact
from frame_eval.classification.frame_averages import class_means
from frame_eval.classification.frame_checks import (
    _ACTUAL,
    _PREDICTED,
    _WEIGHT,
    CLASS,
    MeasureArg,
    Shape,
    _beside,
    _check_by,
    _check_shape,
    _labels,
    _not_binary_problems,
    _noting,
    _per_group,
    _shaped,
    resolve_positive,
)
from frame_eval.classification.rates import DEFAULT_RATES, RATES, weighted_kappa
from frame_eval.registry import resolve

_ONE: Final = "__fe_one_group"

# -- counts ----------------------------------------------------------------------------------------

def _seen(weight: str | None) -> WeightsSeen | None:
    """Where an eager weighted call's exactness test notes what it saw of the weights, for their
    check to read (:func:`~frame_eval.classification.frame_checks.weight_problems`); None otherwise."""
    return None if weight is None or _checks.current() is None else WeightsSeen()


def _weighted(labels: pl.LazyFrame) -> str | None:
    return _WEIGHT if _WEIGHT in labels.collect_schema() else None


def binary_count_frame(
    labels: pl.LazyFrame, by: Sequence[str], positive: Any, seen: WeightsSeen | None = None
) -> pl.LazyFrame:
    """``[*by, tp, fp, fn, tn, p, n, pp, pn, total]`` of one binary problem per group (weighted: Float64;
    weights that add up exactly in any order are added as they come, others from the smallest up;
    ``seen`` notes what the test of that saw: :func:`~frame_eval.classification.exact_weights.when_exact`)."""
    weight = _weighted(labels)

    def counted(rows: pl.LazyFrame, exact: bool = False) -> pl.LazyFrame:
        c = binary_counts(_ACTUAL, _PREDICTED, positive, weight, exact=exact)
        cells = _per_group(rows, by, [c.tp.alias("tp"), c.fp.alias("fp"), c.fn.alias("fn"), c.tn.alias("tn")])
        return cells.select(*by, *(getattr(Counts.columns(), name).alias(name) for name in COUNT_NAMES))

    # the labels need no check when the positive label is given, or Boolean (the default's True)
    plain = positive is not AUTO or labels.collect_schema()[_ACTUAL] == pl.Boolean
    if weight is None:
        return _cell_counts(labels, by, positive) if plain else counted(labels)
    def exactly(rows: pl.LazyFrame) -> pl.LazyFrame:  # weights that add up exactly in any order
        # (each cell's weights added as they come, or the four sums with their exact option)
        return _cell_counts(rows, by, positive, weight) if plain else counted(rows, exact=True)

    return when_exact(labels, weight, exactly, counted, engine="streaming", seen=seen)


_CELL: Final = "__fe_cell"


def _cell_groups(
    labels: pl.LazyFrame, by: Sequence[str], is_pos: pl.Expr, said_pos: pl.Expr, count: pl.Expr
) -> pl.LazyFrame:
    """``[*by, __fe_cell, _n]``: ``count`` per group and binary cell, numbered 2 x (actual positive) +
    (predicted positive) (one UInt8 key beside the group's: polars groups it faster than the two
    label columns; a row with a null label in the null cell)."""
    cell = (is_pos.cast(pl.UInt8) * 2 + said_pos.cast(pl.UInt8)).alias(_CELL)
    return labels.group_by([*by, cell]).agg(count.alias("_n"))


def _cell_counts(
    labels: pl.LazyFrame, by: Sequence[str], positive: Any, weight: str | None = None
) -> pl.LazyFrame:
    """``[*by, tp, fp, fn, tn, ...]`` as :func:`binary_count_frame` gives them: the rows of each group and
    cell (one group-by of the group and a 2-bit cell number costs polars about a fifth less than four
    sums per group), then each cell's count per group (a row with a null label is in no cell). With
    ``weight``, the sums of the cells' weights, added as they come: for weights that add up exactly in
    any order (:func:`~frame_eval.classification.exact_weights.exact_sums`)."""
    count = pl.len() if weight is None else pl.col(weight).sum()
    cells = _cell_groups(labels, by, is_positive(_ACTUAL, positive), is_positive(_PREDICTED, positive), count)
    n, cell = pl.col("_n"), pl.col(_CELL)

    def in_cell(number: int) -> pl.Expr:
        total = n.filter(cell == number).sum()
        return total.cast(pl.Int64) if weight is None else total

    counts = _per_group(cells, by, [
        in_cell(number).alias(name) for number, name in ((3, "tp"), (1, "fp"), (2, "fn"), (0, "tn"))
    ])
    return counts.select(*by, *(getattr(Counts.columns(), name).alias(name) for name in COUNT_NAMES))


def class_count_frame(labels: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """``[*by, class, tp, fp, fn, tn, p, n, pp, pn, total]``: one-vs-rest counts per class and group.

    Weighted (a weight column in ``labels``): each cell is the sum of its weights, the cells are added
    in label order, so every count has the same bits in any row order.
    """
    by = list(by)
    keys = [*by, CLASS]
    weight = _weighted(labels)
    cell_count = pl.len().cast(pl.Int64) if weight is None else weight_total(pl.col(weight))
    # read four times below: computed once (polars repeated the group-by of every row for each)
    cells = labels.group_by([*by, _ACTUAL, _PREDICTED]).agg(cell_count.alias("_n")).cache()

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


def _cell_kappas(labels: pl.LazyFrame, by: Sequence[str], requests: dict[str, str]) -> pl.LazyFrame:
    """``[*by, *requests]``: Cohen's kappa of each group with the disagreement weights of each request
    (``"linear"`` or ``"quadratic"``), from its confusion matrix (unweighted rows).

    :func:`~frame_eval.classification.rates.weighted_kappa`'s formula on the cells instead of the rows:
    with ``i``, ``j`` the positions of a cell's actual and predicted labels among the group's sorted
    classes, ``n_ij`` its rows and ``r_i``, ``c_j`` the row and column sums, kappa is
    ``1 - n sum n_ij w(i - j) / sum r_i c_j w(i - j)``, every sum of integers (so the same bits),
    one group-by of the rows and then work on at most K x K cells per group.
    """
    keys = list(by) or [_ONE]
    rows = labels if by else labels.with_columns(pl.lit(0, pl.Int8).alias(_ONE))
    both = pl.col(_ACTUAL).is_not_null() & pl.col(_PREDICTED).is_not_null()
    cells = rows.filter(both).group_by([*keys, _ACTUAL, _PREDICTED]).agg(pl.len().cast(pl.Int128).alias("_n"))
    cells = cells.cache()
    classes = pl.concat([cells.select(*keys, pl.col(side).alias(CLASS)) for side in (_ACTUAL, _PREDICTED)])
    positions = classes.unique().group_by(keys).agg(
        pl.col(CLASS).sort(), pl.int_range(pl.len(), dtype=pl.Int64).alias("_pos")
    ).explode([CLASS, "_pos"])
    for side, at in ((_ACTUAL, "_i"), (_PREDICTED, "_j")):
        cells = cells.join(positions.rename({CLASS: side, "_pos": at}), on=[*keys, side], nulls_equal=True)
    cells = cells.cache()
    n = pl.col("_n")
    margins = [cells.group_by([*keys, at]).agg(n.sum().alias(sum_name))
               for at, sum_name in (("_i", "_r"), ("_j", "_c"))]
    pairs = margins[0].join(margins[1], on=keys, nulls_equal=True)

    def disagreement(weights: str) -> pl.Expr:
        gap = (pl.col("_i") - pl.col("_j")).abs().cast(pl.Int128)
        return gap if weights == "linear" else gap * gap

    kinds = sorted(set(requests.values()))
    observed = cells.group_by(keys).agg(
        n.sum().alias("_rows"), *((n * disagreement(w)).sum().alias(f"_o{w}") for w in kinds)
    )
    expected = pairs.group_by(keys).agg(
        (pl.col("_r") * pl.col("_c") * disagreement(w)).sum().alias(f"_e{w}") for w in kinds
    )
    kappas = observed.join(expected, on=keys, nulls_equal=True).select(*keys, *(
        (1.0 - ratio(pl.col(f"_o{w}") * pl.col("_rows"), pl.col(f"_e{w}"))).cast(pl.Float64).alias(k)
        for k, w in requests.items()
    ))
    if by:
        return kappas.sort(keys)
    # one row, also for an empty frame (kappa then null)
    return pl.LazyFrame({_ONE: [0]}, schema={_ONE: pl.Int8}).join(kappas, on=_ONE, how="left").drop(_ONE)


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
    seen = None if label is None else _seen(weight)  # (the binary counts' exactness test notes the weights)
    if seen is not None:
        problems = _noting(problems, frame, weight, seen)  # type: ignore[arg-type]
    if binary_only:
        problems += _not_binary_problems(
            frame, [actual, predicted],
            "pass positive=None for one row per class, or positive=<label> for one class against the rest",
        )
    result = class_count_frame(labels, by) if label is None else binary_count_frame(labels, by, label, seen)
    return _checks.attach(result, problems)


# -- rates -----------------------------------------------------------------------------------------

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
        if from_labels and _weighted(labels) is None:  # weighted kappa: unweighted rows from the cells
            kappas = _cell_kappas(labels, by, {
                k: m.kwargs["weights"] for k, m in zip(names, ms, strict=True) if k in from_labels
            }).with_columns(fill_undefined(pl.col(k), zero_division) for k in from_labels)
        elif from_labels:  # weighted kappa with sample weights reads the labels themselves
            kappas = _per_group(labels, by, [
                fill_undefined(weighted_kappa(_ACTUAL, _PREDICTED, m.kwargs["weights"], _weighted(labels)),
                               zero_division).cast(pl.Float64).alias(k)
                for k, m in zip(names, ms, strict=True) if k in from_labels
            ])
        if from_labels == set(names):  # nothing from the counts
            wide = kappas.select(*keys, *names)
        elif from_labels:
            wide = _beside(wide, kappas, keys)
            wide = (wide.sort(keys) if keys else wide).select(*keys, *names)
    else:
        label, binary_only = resolve_positive(dtype, positive, actual)
        seen = None if label is None else _seen(weight)  # (as in confusion)
        if seen is not None:
            problems = _noting(problems, frame, weight, seen)  # type: ignore[arg-type]
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
            counts_frame = binary_count_frame(labels, by, label, seen)
        wide = counts_frame.select(
            *keys,
            *[fill_undefined(value(m, Counts.columns()), zero_division).cast(pl.Float64).alias(k)
              for k, m in zip(names, ms, strict=True)],
        )
    return _checks.attach(_shaped(wide, keys, names, shape), problems)


# -- confusion matrix ------------------------------------------------------------------------------

def confusion_matrix(
    frame: pl.LazyFrame, actual: str, predicted: str, by: Sequence[str] = (), *, weight: str | None = None
) -> pl.LazyFrame:
    """``[*by, actual, predicted, count]``: every cell of each group's K x K matrix, zeros included.

    With ``weight``, each cell is the sum of its rows' sample weights (Float64).
    """
    _check_by(by, ["actual", "predicted", "count", CLASS])
    labels, dtype, problems = _labels(frame, actual, predicted, by, weight)
    by = list(by)

    def counted(rows: pl.LazyFrame, exact: bool = False) -> pl.LazyFrame:  # (exact: added as they come)
        w = pl.col(_WEIGHT)
        count = pl.len().cast(pl.Int64) if weight is None else w.sum() if exact else weight_total(w)
        if dtype != pl.Boolean:
            return rows.group_by([*by, _ACTUAL, _PREDICTED]).agg(count.alias("count"))
        # Boolean labels: grouped by their binary cell (null labels, which the checks refuse, share one)
        cells = _cell_groups(rows, by, pl.col(_ACTUAL), pl.col(_PREDICTED), count)
        cell = pl.col(_CELL)
        return cells.select(
            *by, (cell >= 2).alias(_ACTUAL), (cell % 2 == 1).alias(_PREDICTED), pl.col("_n").alias("count")
        )

    seen = _seen(weight)
    cells = counted(labels) if weight is None else when_exact(
        labels, _WEIGHT, lambda rows: counted(rows, exact=True), counted, engine="streaming", seen=seen
    )
    problems = problems if seen is None else _noting(problems, frame, weight, seen)
    cells = cells.rename({_ACTUAL: "actual", _PREDICTED: "predicted"}).cache()  # read twice: grouped once
    classes = pl.concat([cells.select(*by, pl.col(side).alias(CLASS)) for side in ("actual", "predicted")])
    classes = classes.unique()
    rows, columns = classes.rename({CLASS: "actual"}), classes.rename({CLASS: "predicted"})
    grid = rows.join(columns, on=by, nulls_equal=True) if by else rows.join(columns, how="cross")
    keys = [*by, "actual", "predicted"]
    matrix = grid.join(cells, on=keys, how="left", nulls_equal=True)
    count = pl.col("count").fill_null(0)
    # (a cell of -0.0 weights holds +0.0, as scikit-learn's sums from zero give it; polars drops a
    # `+ 0.0` from the plan)
    count = count if weight is None else pl.when(count == 0).then(0.0).otherwise(count).alias("count")
    matrix = matrix.with_columns(count).select(*keys, "count").sort(keys)
    return _checks.attach(matrix, problems)


# -- classification report -------------------------------------------------------------------------

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
    counts_frame = class_count_frame(labels, by).cache()  # read four times: counted once
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
    accuracy_row = _per_group(counts_frame, by, [
        nothing.alias("precision"), nothing.alias("recall"),
        averaged(accuracy, c, "micro", zero_division, order=order).alias("f1-score"), total,
    ])
    totals = _per_group(counts_frame, by, [total])
    summary = [accuracy_row]
    for average in ("macro", "weighted"):  # every group's means at once (class_means), not group by group
        means = class_means(counts_frame, by, CLASS, ms, average, zero_division)
        summary.append(_beside(means, totals, by))
    for i, (row, part) in enumerate(zip(REPORT_ROWS, summary, strict=True), start=1):
        parts.append(part.select(
            *by, pl.lit(row).alias(CLASS), *REPORT_COLUMNS, pl.lit(i, pl.Int32).alias("_row"),
            pl.lit(None).cast(dtype).alias("_label"),
        ))
    report = pl.concat(parts, how="vertical")
    # classes in label order, then the three summary rows (a sort on every key: the same under any engine)
    report = report.sort([*by, "_row", "_label"], nulls_last=True).drop("_row", "_label")
    return _checks.attach(report, problems)
