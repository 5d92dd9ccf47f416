"""The frame-level front end of probability scores: ``.ireval.probabilities`` and ``.ireval.calibration``.

Checks the frame once, at the boundary (columns, dtypes, nulls, probabilities
in [0, 1], rows summing to 1, known classes, non-negative weights), then runs
the builders of :mod:`~frame_eval.classification.probabilistic` and
:mod:`~frame_eval.classification.calibration` per group. Errors name the
column, the first offending row (counting from 0) and its value, and the fix;
lazy frames raise them when collected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval import _checks
from frame_eval._exact_sum import RESERVED as EXACT_RESERVED
from frame_eval._exact_sum import Mean, exact_means
from frame_eval.classification import frame_checks as _front
from frame_eval.classification.binary_probabilities import binary_probabilities
from frame_eval.classification.calibration import calibration_bins, check_binning
from frame_eval.classification.counts import AUTO
from frame_eval.classification.probabilistic import (
    BRIER,
    LOG_LOSS,
    PROBABILITY_SPECS,
    class_columns,
    class_terms,
    prob_columns,
)
from frame_eval.registry import resolve

__all__ = ["calibration", "probabilities"]

FRAME: Final = _front.FRAME
PROBABILITY_DEFAULTS: Final = (LOG_LOSS.name, BRIER.name)
# scikit-learn warns when a row's probabilities are not close to 1: |sum - 1| <= 1e-8 + sqrt(eps)
SUM_TOLERANCE: Final = 1e-8 + math.sqrt(2.0**-52)
_SUM = "__frame_eval_row_sum"


def _range_problem(frame: pl.LazyFrame, column: str, counted: pl.LazyFrame | None = None) -> _checks.Problem:
    col = pl.col(column)
    # whether any is outside from the column's least and greatest values (NaN and null are neither
    # outside nor counted by them): cheaper than counting the rows, which the message does when it fires
    fires = ((col.min() < 0) | (col.max() > 1)).fill_null(False)
    return _checks.value_problem(
        frame, (col < 0) | (col > 1), f"probabilities in {FRAME} column {column!r} outside [0, 1]",
        "pass probabilities (for scores or logits, apply a sigmoid or softmax first)", value=column,
        fires=fires, counted=counted,
    )


def with_labels(prob: Any, labels: Sequence[Any] | None) -> Any:
    """``prob`` as given, or ``{label: column}`` from a list of columns and scikit-learn's ``labels=``."""
    if labels is None:
        if isinstance(prob, list | tuple):
            raise ValueError(
                f"prob={list(prob)!r} lists probability columns: pass labels=[...] with the class of each "
                f"column, in the same order (or prob={{class label: column}})"
            )
        return prob
    if not isinstance(prob, list | tuple) or len(prob) != len(labels):
        raise ValueError(
            "labels= names the class of each column of prob=[...]: pass a list of as many columns as labels "
            f"(got prob={prob!r}, labels={list(labels)!r})"
        )
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels= holds a label twice: {list(labels)!r}")
    return dict(zip(labels, prob, strict=True))


def _measures(metrics: Any) -> list[Any]:
    ms = resolve(PROBABILITY_DEFAULTS if metrics is None else metrics, "classification")
    for m in ms:
        if m.spec not in PROBABILITY_SPECS:
            raise ValueError(
                f"{m.name} is not a probability score; probabilities() computes "
                f"{', '.join(s.name for s in PROBABILITY_SPECS)} (see .ireval.scores and .ireval.rates)"
            )
    return ms


def probabilities(
    frame: pl.LazyFrame,
    actual: str,
    prob: str | Mapping[Any, str],
    by: Sequence[str] = (),
    *,
    metrics: Any = None,
    positive: Any = AUTO,
    weight: str | None = None,
    labels: Sequence[Any] | None = None,
    shape: Any = "long",
    sample: str | Sequence[str] | None = None,
    class_column: str = "class",
) -> pl.LazyFrame:
    """``[*by, metric, value]``: log-loss, Brier score or ECE of each group's probabilities.

    With ``sample`` the frame is long (a row per sample and class): see :func:`long_probabilities`.
    """
    if sample is not None:
        return long_probabilities(
            frame, actual, prob, by, sample=sample, class_column=class_column, metrics=metrics,
            positive=positive, weight=weight, labels=labels, shape=shape,
        )
    prob = with_labels(prob, labels)
    _front._check_shape(shape)
    ms = _measures(metrics)
    by = list(by)
    _front._check_by(by, ["metric", "value", *EXACT_RESERVED])
    schema = frame.collect_schema()
    prob_columns(prob, positive, weight)  # the expressions' checks of prob= and positive=
    given = list(prob.values()) if isinstance(prob, Mapping) else [prob]
    extra = [weight] if weight is not None else []
    _checks.require_columns(
        schema, _front._unique([*by, actual, *given, *extra]), FRAME,
        "pass actual=, prob=, weight= or by= with your column names",
    )
    dtype = _front._require_labels(schema, actual)
    for c in given:
        _checks.require_numeric(schema, c, FRAME)
    checked_columns = _front._unique([*by, actual, *given, *extra])
    summed, nan_fires = None, None
    if isinstance(prob, Mapping):  # each row's sum of its probabilities, for the check that it is 1
        classes = class_columns(prob)
        columns = [c for _, c in classes]
        row_sums = pl.sum_horizontal(pl.col(c).cast(pl.Float64) for c in columns)
        summed = frame.with_columns(row_sums.alias(_SUM))
        # a NaN probability makes its row's sum NaN: the sums tell whether the NaN checks need to count
        nan_fires = dict.fromkeys(columns, pl.col(_SUM).is_nan().any())
    problems: list[Any] = _checks.null_problems(frame, checked_columns, FRAME, summed, nan_fires)
    problems += [_range_problem(frame, c, summed) for c in _front._unique(given)]
    problems += _front.weight_problems(frame, weight)
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    chosen = {f"_m{i}": m for i, m in enumerate(ms)}
    if isinstance(prob, Mapping):
        for label in prob:
            _front._check_label(dtype, label, actual, "prob key")
        row_sum = pl.col(_SUM)
        # whether any is off from the least and greatest sums (a NaN sum is neither, nor counted)
        off = ((row_sum.max() - 1.0) > SUM_TOLERANCE) | ((1.0 - row_sum.min()) > SUM_TOLERANCE)
        problems.append(_checks.value_problem(
            summed, ((row_sum - 1.0).abs() > SUM_TOLERANCE),
            f"rows whose probabilities in {FRAME} columns {columns} do not sum to 1 "
            f"(within {SUM_TOLERANCE:.3g}, scikit-learn's tolerance; the value shown is the row's sum)",
            "give every class its column in prob=, or divide each row's probabilities by their sum",
            value=_SUM, fires=off.fill_null(False),
        ))
        problems.append(_checks.value_problem(
            frame, ~pl.col(actual).is_in([label for label, _ in classes]),
            f"labels in {FRAME} column {actual!r} with no probability column in prob=",
            "add a column for every class to prob={class label: column}", value=actual, counted=summed,
        ))
        spec_columns: dict[str, Any] = {"actual": actual, "probs": dict(prob)}
        scored = frame
        if any(m.spec not in (LOG_LOSS, BRIER) for m in ms):
            raise ValueError("ECE reads one probability column (binary); pass prob='<column>'")
    else:
        label, binary_only = _front.resolve_positive(dtype, positive, actual)
        if label is None:
            raise ValueError(
                f"{FRAME} column {actual!r} holds {dtype} labels: pass positive=<label> for one binary "
                f"problem, or prob={{label: probability column, ...}} for several classes"
            )
        if binary_only:
            problems += _front._not_binary_problems(
                frame, [actual], "pass positive=<label> to choose the positive class"
            )
        scored = frame.select(
            *by, (pl.col(actual) == label).alias(_front._POSITIVE),
            pl.col(prob).cast(pl.Float64).alias(_front._SCORE), *extra,
        )
        spec_columns = {"actual": _front._POSITIVE, "score": _front._SCORE, "positive": True}
    if weight is not None:
        spec_columns["weight"] = weight
    for m in chosen.values():  # (built, unused: the builders raise on options their measure does not take)
        m.spec.build(spec_columns, None, **m.kwargs)
    if isinstance(prob, Mapping):  # every group's exact sums from frame-wide group-bys
        wide = _class_means(scored, by, chosen, spec_columns)
    else:  # the checked frame's values from frame-wide steps, the builders' bits
        wide = binary_probabilities(scored, by, _front._POSITIVE, _front._SCORE, weight, chosen)
        wide = wide.sort(by) if by else wide
    return _checks.attach(_front._shaped(wide, by, names, shape), problems)


def _class_means(frame: pl.LazyFrame, by: list[str], chosen: Mapping[str, Any], columns: Any) -> pl.LazyFrame:
    """``[*by, *chosen]``: multi-class log-loss and Brier score, as their builders give them (the same
    terms and weights, the same exact sums rounded once), every group's from frame-wide steps
    (:func:`~frame_eval._exact_sum.exact_means`). Every row counts: the rows the builders leave out (a
    null label, weight or probability, a NaN probability) make the checks refuse the frame."""
    _, log_terms, brier_terms, w, k = class_terms(columns)
    means = {}
    for key, m in chosen.items():
        terms = log_terms if m.spec is LOG_LOSS else brier_terms
        halved = m.spec is BRIER and k < 3  # scikit-learn's scale_by_half="auto"
        means[key] = Mean(terms if w is None else terms * w, w, 2 if halved else 1)
    wide = exact_means(frame, by, means)
    return wide.sort(by) if by else wide


_KEY = "__frame_eval_sample"


def long_probabilities(
    frame: pl.LazyFrame,
    actual: str,
    prob: Any,
    by: Sequence[str] = (),
    *,
    sample: str | Sequence[str],
    class_column: str = "class",
    metrics: Any = None,
    positive: Any = AUTO,
    weight: str | None = None,
    labels: Sequence[Any] | None = None,
    shape: Any = "long",
) -> pl.LazyFrame:
    """``[*by, metric, value]`` of a long frame: one row per (sample, class), ``prob`` the probability of
    the row's class, ``actual`` (and ``weight``) the sample's, repeated on each of its rows.

    The classes of a group are the values of ``class_column`` in it (or ``labels``, when given). Checked
    when the result is collected: every sample of a group has a row for each of its classes, exactly once
    (at least 2 classes); a sample's rows agree on the label and the weight; the label is one of the
    classes; probabilities lie in [0, 1] and each sample's add to 1 within scikit-learn's tolerance.
    """
    samples = [sample] if isinstance(sample, str) else list(sample)
    if not samples or not all(isinstance(c, str) for c in samples):
        raise TypeError(f"sample must name the column(s) that identify a sample, got {sample!r}")
    if not isinstance(prob, str):
        raise TypeError(
            f"with sample= (a row per sample and class), prob is the one column of each row's probability, "
            f"got {prob!r}; for a column per class, leave out sample="
        )
    _front._check_shape(shape)
    ms = _measures(metrics)
    if any(m.spec not in (LOG_LOSS, BRIER) for m in ms):
        raise ValueError("ECE reads one probability column of a binary problem; pass prob='<column>' "
                         "without sample=")
    by = list(by)
    _front._check_by(by, ["metric", "value", _KEY, _SUM])
    columns = prob_columns(prob, positive, weight, class_column)
    schema = frame.collect_schema()
    extra = [weight] if weight is not None else []
    used = _front._unique([*by, *samples, class_column, actual, prob, *extra])
    _checks.require_columns(
        schema, used, FRAME,
        "pass actual=, prob=, sample=, class_column=, weight= or by= with your column names",
    )
    _front._common_label_dtype(schema, actual, class_column)
    _checks.require_numeric(schema, prob, FRAME)
    problems: list[Any] = _checks.null_problems(frame, [c for c in used if c != weight], FRAME)
    problems += _front.weight_problems(frame, weight)
    problems.append(_range_problem(frame, prob))
    if labels is not None:
        labels = list(labels)
        if len(set(labels)) != len(labels):
            raise ValueError(f"labels= holds a label twice: {labels!r}")
        dtype = schema[class_column]
        for label in labels:
            _front._check_label(dtype, label, class_column, "labels")
        problems.append(_checks.value_problem(
            frame, ~pl.col(class_column).is_in(labels),
            f"classes in {FRAME} column {class_column!r} that labels={labels!r} does not list",
            "add them to labels=, or drop their rows", value=class_column,
        ))
    group = [*by, *samples]
    shown = pl.col(samples[0]) if len(samples) == 1 else pl.struct(samples)
    keyed = frame.with_columns(shown.alias(_KEY))

    def sample_problem(bad: pl.Expr, describe: str, fix: str, value: str = _KEY) -> _checks.Problem:
        return _checks.value_problem(keyed, bad, describe, fix, value=value)

    where = f"{FRAME} columns {samples}" if len(samples) > 1 else f"{FRAME} column {samples[0]!r}"
    problems.append(sample_problem(
        pl.len().over([*group, class_column]) > 1,
        f"rows of a sample (in {where}) that give its class in column {class_column!r} more than once; "
        f"the value shown is the sample",
        "keep one row per sample and class",
    ))
    n_classes = _class_count(class_column, by, labels)
    problems.append(sample_problem(
        n_classes < 2, f"rows of groups with fewer than 2 classes in {FRAME} column {class_column!r}",
        "log-loss and Brier need at least 2 classes: give each sample a row per class", value=class_column,
    ))
    problems.append(_missing_class_problem(keyed, group, class_column, by, labels, where))
    problems.append(sample_problem(
        pl.col(actual).n_unique().over(group) > 1,
        f"rows of samples (in {where}) whose rows do not all give the same label in {FRAME} column "
        f"{actual!r}; the value shown is the sample",
        f"{actual!r} is the sample's actual class: repeat the same label on each of its rows",
    ))
    problems.append(sample_problem(
        (pl.col(class_column) == pl.col(actual)).sum().over(group) == 0,
        f"labels in {FRAME} column {actual!r} that are none of the sample's classes in column "
        f"{class_column!r}", "give every class the label can take a row of its own", value=actual,
    ))
    if weight is not None:
        problems.append(sample_problem(
            pl.col(weight).n_unique().over(group) > 1,
            f"rows of samples (in {where}) whose rows do not all give the same weight in {FRAME} column "
            f"{weight!r}; the value shown is the sample",
            "a sample weight is the sample's: repeat it on each of its rows",
        ))
    total = pl.col(prob).cast(pl.Float64).sort().cum_sum().last().over(group)
    summed = keyed.with_columns(total.alias(_SUM))
    problems.append(_checks.value_problem(
        summed, (pl.col(_SUM) - 1.0).abs() > SUM_TOLERANCE,
        f"rows of samples (in {where}) whose probabilities in {FRAME} column {prob!r} do not sum to 1 over "
        f"the classes (within {SUM_TOLERANCE:.3g}, scikit-learn's tolerance; the value shown is the sample's "
        f"sum)", "give every class its row, or divide each sample's probabilities by their sum",
        value=_SUM,
    ))
    names = {f"_m{i}": m.name for i, m in enumerate(ms)}
    spec_columns = {"actual": actual, **columns}
    exprs = [
        m.spec.build(spec_columns, None, **m.kwargs).cast(pl.Float64).alias(k)
        for k, m in zip(names, ms, strict=True)
    ]
    rows = frame.select(_front._unique([*by, actual, class_column, prob, *extra]))
    wide = rows.group_by(by).agg(exprs).sort(by) if by else rows.select(exprs)
    return _checks.attach(_front._shaped(wide, by, names, shape), problems)


def _class_count(class_column: str, by: list[str], labels: list[Any] | None) -> pl.Expr:
    """The number of classes of each row's group: of ``labels``, or the group's distinct classes."""
    if labels is not None:
        return pl.lit(len(labels))
    count = pl.col(class_column).n_unique()
    return count.over(by) if by else count


def _missing_class_problem(
    keyed: pl.LazyFrame, group: list[str], class_column: str, by: list[str], labels: list[Any] | None,
    where: str,
) -> _checks.Problem:
    """Samples with fewer rows than their group has classes; the message names the first such sample,
    its first row (0-based) and a class it has no row for."""
    missing = pl.len().over(group) < _class_count(class_column, by, labels)
    counted = _checks.value_problem(keyed, missing, "", "")

    def explain(count: int) -> str:
        n, row, sample = _checks.first_rows(keyed, missing, _KEY)
        if n == 0:
            return ""
        first = keyed.with_row_index("__frame_eval_at").filter(pl.col("__frame_eval_at") == row).collect()
        first_row = first.row(0, named=True)
        in_group = pl.all_horizontal([pl.col(b) == first_row[b] for b in by]) if by else pl.lit(True)
        classes = labels if labels is not None else (
            keyed.filter(in_group).select(pl.col(class_column).unique().sort()).collect().to_series().to_list()
        )
        same = pl.all_horizontal([pl.col(c) == first_row[c] for c in group])
        has = set(keyed.filter(same).select(class_column).collect().to_series().to_list())
        lacking = [c for c in classes if c not in has]
        return (
            f"{n} rows of samples (in {where}) without a row for every class of their group in column "
            f"{class_column!r} (first at row {row}, counting from 0: sample {sample!r}, which has no row "
            f"for class {lacking[0]!r}); give every sample one row per class (probability 0 for a class "
            f"it rules out)"
        )

    return _checks.Problem(counted.frame, explain)


CALIBRATION_COLUMNS: Final = ("bin", "count", "mean_predicted", "fraction_positive")


def calibration(
    frame: pl.LazyFrame,
    actual: str,
    prob: str,
    by: Sequence[str] = (),
    *,
    n_bins: int = 5,
    strategy: str = "uniform",
    positive: Any = AUTO,
) -> pl.LazyFrame:
    """``[*by, bin, count, mean_predicted, fraction_positive]``: the reliability curve of each group."""
    n_bins, strategy = check_binning(n_bins, strategy)
    if not isinstance(prob, str):
        raise TypeError(f"prob must be one probability column (binary), got {type(prob).__name__} {prob!r}")
    scored, keys, problems = _front._scored(
        frame, actual, prob, by, positive, None, [*CALIBRATION_COLUMNS, "_k", "_s"]
    )
    problems = [*problems, _range_problem(frame, prob)]
    result = calibration_bins(scored, keys, _front._POSITIVE, _front._SCORE, n_bins, strategy)
    return _checks.attach(result, problems)
