"""Scores of predicted probabilities: log-loss (cross-entropy) and the Brier score, binary and multi-class.

Binary: ``prob`` is the predicted probability that the row is positive (its
label equals ``positive``, default ``True`` / ``1``). Multi-class: ``prob`` is
a mapping ``{class label: probability column}``, one column per class (each
row's probabilities summing to 1). Rows with a null label or a null or NaN
probability are not counted; the ``.ireval`` methods refuse them and check
the probabilities (in [0, 1], summing to 1 within scikit-learn's tolerance).

- ``log_loss = mean(-log(p))``, ``p`` the probability given to the row's
  actual class (``1 - prob`` for a binary negative row), clipped to
  ``[eps, 1 - eps]`` (``eps`` the float64 machine epsilon) as scikit-learn's
  ``log_loss`` clips, so 0 and 1 give a large finite loss.
- binary ``brier = mean((y - p)^2)`` (``y`` 1 for positive rows, 0 otherwise; each term
  computed as scikit-learn does, ``((1 - y) - (1 - p))^2 + (y - p)^2`` halved);
  multi-class ``brier = mean(sum over classes k of (y_k - p_k)^2)``, ``y_k``
  1 for the row's class, the classes in sorted order, each row's sum in
  NumPy's order (scikit-learn 1.9's ``brier_score_loss``; with two probability
  columns it halves the mean, as scikit-learn's ``scale_by_half="auto"`` does).
- ``weight=``: a column of non-negative sample weights; the means become
  ``sum(w * term) / sum(w)`` (null when the weights sum to 0).
- **Long layout** (``class_column=``): one row per (sample, class), ``prob``
  the probability of that row's class and ``actual`` the sample's label on
  each of its rows (its weight too). Log-loss reads the rows whose class is
  the label: the wide layout's terms, so the same bits. Brier adds
  ``w (y - p)^2`` over every row and divides by the samples' weight (rows
  whose class is the label), halved when the group has two classes; its
  terms are each row's squared gap, not each sample's sum of them, so it
  agrees with the wide layout within 1e-15 relative rather than bit for bit. The frame method checks
  the layout (every sample has every class of its group once, one label and
  weight per sample, probabilities summing to 1).

Both are null for a group without rows. Each mean is the exact sum of the
terms (``w * term``, each product rounded as a double, with weights) over
the exact sum of the weights (or the number of rows), rounded once
(:mod:`frame_eval._exact_sum`; the Brier score's halving inside that one
rounding): the correctly rounded value, the same bits for any row order,
thread count and engine. scikit-learn adds the terms in NumPy's pairwise
order and divides: within 1e-15 relative.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, Final

import polars as pl

from frame_eval._exact_sum import exact_mean
from frame_eval._float import row_sum
from frame_eval.classification.calibration import ECE
from frame_eval.classification.counts import ACTUAL, AUTO, checked, is_positive, known_labels, parseable
from frame_eval.registry import Doc, MeasureSpec, measure, register

__all__ = ["brier_score", "log_loss"]

PROB: Final = "prob"
EPS: Final = sys.float_info.epsilon


def _rows(columns: Any) -> tuple[pl.Expr, pl.Expr, pl.Expr | None, str, Any]:
    actual, prob = columns.get("actual", ACTUAL), columns.get("score", PROB)
    positive, weight = columns.get("positive", AUTO), columns.get("weight")
    is_pos = is_positive(actual, positive)
    p = pl.col(prob).cast(pl.Float64)
    keep = is_pos.is_not_null() & p.is_not_nan()
    if weight is not None:
        keep = keep & pl.col(weight).is_not_null()
    w = None if weight is None else pl.col(weight).cast(pl.Float64).filter(keep)
    return is_pos.filter(keep), p.filter(keep), w, actual, positive


def class_columns(probs: Mapping[Any, str]) -> list[tuple[Any, str]]:
    """``(label, column)`` pairs in scikit-learn's column order: labels sorted."""
    try:
        return sorted(probs.items(), key=lambda item: item[0])
    except TypeError:
        raise TypeError(
            f"the class labels of prob= must be of one kind (all text, or all numbers), got {list(probs)!r}"
        ) from None


def class_terms(columns: Any) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr | None, int]:
    """Multi-class, row by row: which rows count (as in _rows), the row's log-loss term, its Brier term
    (the sum over classes, not yet halved), its weight, and the number of classes. Every row's terms,
    counted or not: filter by the first item."""
    actual, weight = columns.get("actual", ACTUAL), columns.get("weight")
    classes = class_columns(columns["probs"])
    keep = pl.col(actual).is_not_null()
    for _, column in classes:
        keep = keep & pl.col(column).cast(pl.Float64).is_not_nan()
    if weight is not None:
        keep = keep & pl.col(weight).is_not_null()
    hits = [pl.col(actual) == label for label, _ in classes]
    probs = [pl.col(column).cast(pl.Float64) for _, column in classes]
    given = pl.coalesce([pl.when(hit).then(p) for hit, p in zip(hits, probs, strict=True)])
    w = None if weight is None else pl.col(weight).cast(pl.Float64)
    return keep, -_clipped(given).log(), _squared_gaps(hits, probs), w, len(classes)


def _squared_gaps(hits: list[pl.Expr], probs: list[pl.Expr]) -> pl.Expr:
    """A row's ``sum_c (hit_c - p_c)^2``, the bits of ``row_sum`` of the squares (NumPy's order).

    The gap is ``1 - p`` for the row's class and ``-p`` for the others, and ``(-p)^2`` is ``p * p``
    exactly, so each square is ``g * g`` of ``g = 1 - p`` or ``p``: one choice per class instead of a
    cast and a subtraction (far cheaper in polars; see benchmarks/NOTES.md). Squares are never -0.0, so
    ``row_sum`` need not turn a -0.0 sum into 0.0."""
    gaps = [pl.when(hit).then(1.0 - p).otherwise(p) for hit, p in zip(hits, probs, strict=True)]
    return row_sum([g * g for g in gaps], no_negative_zero=True)


def _long_rows(columns: Any) -> tuple[pl.Expr, pl.Expr, pl.Expr | None, pl.Expr]:
    """Long layout: is the row's class the sample's label, its probability, its weight; rows kept as in
    :func:`_rows`. The last item counts the group's classes."""
    actual, klass, weight = columns.get("actual", ACTUAL), pl.col(columns["class"]), columns.get("weight")
    p = pl.col(columns.get("score", PROB)).cast(pl.Float64)
    keep = pl.col(actual).is_not_null() & klass.is_not_null() & p.is_not_nan()
    if weight is not None:
        keep = keep & pl.col(weight).is_not_null()
    w = None if weight is None else pl.col(weight).cast(pl.Float64).filter(keep)
    return (klass == pl.col(actual)).filter(keep), p.filter(keep), w, klass.filter(keep).n_unique()


def mean_of(terms: pl.Expr, weight: pl.Expr | None, divisor: int = 1) -> pl.Expr:
    """``np.average(terms, weights=weight) / divisor`` of a group's terms, from exact sums rounded once."""
    return exact_mean(terms if weight is None else terms * weight, weight, divisor)


def _known(value: pl.Expr, columns: Any) -> pl.Expr:
    """``value``, raising as it runs on a label with no column in ``prob=`` (see ``known_labels``)."""
    labels = [label for label, _ in class_columns(columns["probs"])]
    return known_labels(value, columns.get("actual", ACTUAL), labels, "prob=")


def _clipped(p: pl.Expr) -> pl.Expr:
    return p.clip(EPS, 1.0 - EPS)


def binary_log_terms(label: pl.Expr, p: pl.Expr) -> pl.Expr:
    """Row-wise binary log-loss terms: ``-log(clip(p))`` for a positive row, ``-log(clip(1 - p))`` for
    the others (null labels too). The row's argument is chosen before the one clip and log (the same
    bits as taking both logs and choosing one; a quarter of the time)."""
    return -_clipped(pl.when(label).then(p).otherwise(1.0 - p)).log()


def binary_brier_terms(label: pl.Expr, p: pl.Expr) -> pl.Expr:
    """Row-wise binary Brier terms, twice the squared gap (the mean halves them): scikit-learn's
    two-column form ``((1 - y) - (1 - p))^2 + (y - p)^2``, ``y`` 1 for a positive row; the same value
    as ``2 (y - p)^2`` in exact arithmetic, and its bits also where ``1 - p`` rounds.

    With ``q = 1 - p``: a positive row's gaps are ``-q`` and ``q``; another's are ``1 - q`` and ``-p``.
    Each square is taken of the gap's magnitude, chosen per row (``1 - q`` as ``1 - (p or q)``): the
    same bits as the cast label and four subtractions, in less than half the time."""
    q = 1.0 - p
    first = 1.0 - pl.when(label).then(p).otherwise(q)
    second = pl.when(label).then(q).otherwise(p)
    return first * first + second * second


def _build_log_loss(columns: Any, cutoff: float | None) -> pl.Expr:
    if "class" in columns:  # long: the rows of each sample's own class
        hit, p, w, _ = _long_rows(columns)
        return mean_of(-_clipped(p.filter(hit)).log(), None if w is None else w.filter(hit))
    if "probs" in columns:
        keep, terms, _, w, _ = class_terms(columns)
        return _known(mean_of(terms.filter(keep), None if w is None else w.filter(keep)), columns)
    label, p, w, actual, positive = _rows(columns)
    return checked(mean_of(binary_log_terms(label, p), w), [actual], positive)


def _build_brier(columns: Any, cutoff: float | None) -> pl.Expr:
    if "class" in columns:  # long: every row's squared gap, over the samples (their own class's rows)
        hit, p, w, k = _long_rows(columns)
        gap = hit.cast(pl.Float64) - p
        # the samples' weights (or count): the rows of their own class, every other row adding 0
        samples = hit.cast(pl.Float64) if w is None else pl.when(hit).then(w).otherwise(0.0)
        terms = gap * gap if w is None else gap * gap * w

        def mean(divisor: int) -> pl.Expr:
            return exact_mean(terms, samples, divisor)

        return pl.when(k == 2).then(mean(2)).when(k > 2).then(mean(1))  # scale_by_half="auto"; 1 class: null
    if "probs" in columns:
        keep, _, terms, w, k = class_terms(columns)
        # scikit-learn's scale_by_half="auto": halved with two classes (inside the mean's one rounding)
        halved = 2 if k < 3 else 1
        return _known(mean_of(terms.filter(keep), None if w is None else w.filter(keep), halved), columns)
    label, p, w, actual, positive = _rows(columns)
    return checked(mean_of(binary_brier_terms(label, p), w, 2), [actual], positive)


def _spec(name: str, summary: str, build: Any, *aliases: str, doc: Doc) -> MeasureSpec:
    spec = MeasureSpec(
        name=name, kind="classification", summary=summary, build=build, aliases=aliases, doc=doc
    )
    return parseable(register(spec))


LOG_LOSS = _spec("log_loss", "log-loss: mean -log of the probability given to the actual class",
                 _build_log_loss, "logloss", "cross_entropy", "cross-entropy", "log loss",
                 doc=Doc(
                     "C.log_loss",
                     "mean of -log(p), p the probability given to the row's actual class (binary: `prob` or "
                     "1 - `prob`; multi-class: `prob={class: column}`, or long: `class_column=`), clipped "
                     "to [eps, 1 - eps] (scikit-learn's `log_loss`); `weight=` for sample weights",
                     "no rows (weights summing to 0)",
                 ))
BRIER = _spec("brier", "Brier score: mean squared gap between the probability and the 0/1 label",
              _build_brier, "brier_score", "brier_score_loss", "Brier score",
              doc=Doc(
                  "C.brier_score",
                  "mean of (y - p)^2, y 1 for positive rows; multi-class: mean of the sum over classes of "
                  "(y_k - p_k)^2, halved with two class columns (scikit-learn 1.9's `brier_score_loss`); "
                  "`weight=`",
                  "no rows (weights summing to 0)",
              ))
PROBABILITY_SPECS: Final = (LOG_LOSS, BRIER, ECE)  # measures that read probabilities in [0, 1]


ProbArg = str | Mapping[Any, str]


def prob_columns(
    prob: Any, positive: Any, weight: str | None, class_column: str | None = None
) -> dict[str, Any]:
    """The builders' columns for ``prob`` (one column, or ``{class label: column}``; with
    ``class_column``, the long layout's probability column)."""
    columns: dict[str, Any] = {"weight": weight} if weight is not None else {}
    if class_column is not None:
        if not isinstance(prob, str) or not isinstance(class_column, str):
            raise TypeError(
                f"with class_column= (a row per sample and class), prob is the one column of the row's "
                f"probability, got prob={prob!r}, class_column={class_column!r}"
            )
        if positive is not AUTO:
            raise ValueError("with class_column=, every class has its rows; leave out positive=")
        return {**columns, "score": prob, "class": class_column}
    if isinstance(prob, str):
        return {**columns, "score": prob, "positive": positive}
    if isinstance(prob, Mapping):
        if positive is not AUTO:
            raise ValueError("with prob={class: column}, every class has its column; leave out positive=")
        if len(prob) < 2:
            raise ValueError(
                f"prob= maps {len(prob)} class to a column; give every class its column (2 or more)"
            )
        return {**columns, "probs": dict(prob)}
    raise TypeError(
        f"prob must be one column name (binary) or a mapping {{class label: probability column}} "
        f"(multi-class), got {type(prob).__name__} {prob!r}"
    )


def _expr(
    spec: MeasureSpec, actual: str, prob: Any, positive: Any, weight: str | None, class_column: str | None
) -> pl.Expr:
    m = measure(spec, kind="classification")
    columns = prob_columns(prob, positive, weight, class_column)
    return spec.build({"actual": actual, **columns}, None).alias(m.name)


def log_loss(
    actual: str = ACTUAL,
    prob: ProbArg = PROB,
    *,
    positive: Any = AUTO,
    weight: str | None = None,
    class_column: str | None = None,
) -> pl.Expr:
    """Log-loss (cross-entropy), scikit-learn's ``log_loss``: ``mean(-log(p))``.

    ``p`` is the probability given to the row's actual class: ``prob`` for a
    positive row and ``1 - prob`` for a negative one (binary), or the actual
    class's column (multi-class); clipped to ``[eps, 1 - eps]``. Null without rows.

    Parameters
    ----------
    actual
        Label column; a row is positive when it equals ``positive``.
    prob
        Predicted probability of the positive class, in [0, 1]; or, for
        several classes, a mapping ``{class label: probability column}``.
    positive
        The positive label (default ``True`` / ``1``); binary only.
    weight
        Optional column of non-negative sample weights (scikit-learn's ``sample_weight``).
    class_column
        Long layout: the column naming each row's class, one row per (sample,
        class); ``prob`` is then that row's probability and ``actual`` the
        sample's label, repeated on its rows (see the module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.1, 0.8, 0.35]})
    >>> round(df.select(C.log_loss("y", "p")).item(), 6)
    0.216162
    >>> three = pl.DataFrame({
    ...     "y": ["a", "b", "c"], "a": [0.7, 0.2, 0.1], "b": [0.2, 0.5, 0.1], "c": [0.1, 0.3, 0.8]
    ... })
    >>> probs = {"a": "a", "b": "b", "c": "c"}
    >>> round(three.select(C.log_loss("y", probs)).item(), 6)  # -(ln .7 + ln .5 + ln .8) / 3
    0.424322
    >>> long = three.with_row_index("id").unpivot(index=["id", "y"], variable_name="class", value_name="p")
    >>> round(long.select(C.log_loss("y", "p", class_column="class")).item(), 6)
    0.424322
    """
    return _expr(LOG_LOSS, actual, prob, positive, weight, class_column)


def brier_score(
    actual: str = ACTUAL,
    prob: ProbArg = PROB,
    *,
    positive: Any = AUTO,
    weight: str | None = None,
    class_column: str | None = None,
) -> pl.Expr:
    """Brier score, scikit-learn's ``brier_score_loss``: ``mean((y - p)^2)``.

    Binary: ``y`` is 1 for positive rows and 0 for the others. Multi-class
    (``prob={class label: column}``): each row adds ``(y_k - p_k)^2`` over the
    classes ``k`` (``y_k`` 1 for the row's class), as scikit-learn 1.9 does;
    with exactly two class columns the mean is halved (its
    ``scale_by_half="auto"``), so it equals the binary score. Null without
    rows. Parameters as in :func:`log_loss`.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.1, 0.8, 0.35]})
    >>> round(df.select(C.brier_score("y", "p")).item(), 6)
    0.045625
    >>> three = pl.DataFrame({
    ...     "y": ["a", "b", "c"], "a": [0.7, 0.2, 0.1], "b": [0.2, 0.5, 0.1], "c": [0.1, 0.3, 0.8]
    ... })
    >>> round(three.select(C.brier_score("y", {"a": "a", "b": "b", "c": "c"})).item(), 6)
    0.193333
    >>> long = three.with_row_index("id").unpivot(index=["id", "y"], variable_name="class", value_name="p")
    >>> round(long.select(C.brier_score("y", "p", class_column="class")).item(), 6)
    0.193333
    """
    return _expr(BRIER, actual, prob, positive, weight, class_column)
