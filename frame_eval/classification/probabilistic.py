"""Scores of predicted probabilities: log-loss (cross-entropy) and the Brier score, binary.

``prob`` is the predicted probability that the row is positive (its label
equals ``positive``, default ``True`` / ``1``). Rows with a null label or a
null or NaN probability are not counted; the ``.ireval`` methods refuse them
and check that probabilities lie in [0, 1].

- ``log_loss = mean(-log(p))`` over positive rows and ``-log(1 - p)`` over
  negative rows, ``p`` clipped to ``[eps, 1 - eps]`` (``eps`` the float64
  machine epsilon) as scikit-learn's ``log_loss`` does, so 0 and 1 give a
  large finite loss.
- ``brier = mean((y - p)^2)`` with ``y`` 1 for positive rows and 0 otherwise
  (scikit-learn's ``brier_score_loss``).

Both are null for a group without rows. Each row's term depends only on its
label and probability, so the terms are summed in sorted order, one by one:
the same bits for any row order, thread count and engine (scikit-learn adds
them pairwise in row order: within 1e-15).
"""

from __future__ import annotations

import sys
from typing import Any, Final

import polars as pl

from frame_eval.classification.counts import ACTUAL, AUTO, checked, is_positive, ordered_sum, parseable, ratio
from frame_eval.registry import MeasureSpec, measure, register

__all__ = ["brier_score", "log_loss"]

PROB: Final = "prob"
EPS: Final = sys.float_info.epsilon


def _rows(columns: Any) -> tuple[pl.Expr, pl.Expr, str, Any]:
    actual, prob = columns.get("actual", ACTUAL), columns.get("score", PROB)
    positive = columns.get("positive", AUTO)
    is_pos = is_positive(actual, positive)
    p = pl.col(prob).cast(pl.Float64)
    keep = is_pos.is_not_null() & p.is_not_nan()
    return is_pos.filter(keep), p.filter(keep), actual, positive


def _mean_of_sorted(terms: pl.Expr, actual: str, positive: Any) -> pl.Expr:
    return checked(ratio(ordered_sum(terms.sort()), terms.len()), [actual], positive)


def _build_log_loss(columns: Any, cutoff: float | None) -> pl.Expr:
    label, p, actual, positive = _rows(columns)
    clipped, other = p.clip(EPS, 1.0 - EPS), (1.0 - p).clip(EPS, 1.0 - EPS)
    terms = pl.when(label).then(-clipped.log()).otherwise(-other.log())
    return _mean_of_sorted(terms, actual, positive)


def _build_brier(columns: Any, cutoff: float | None) -> pl.Expr:
    label, p, actual, positive = _rows(columns)
    gap = label.cast(pl.Float64) - p
    return _mean_of_sorted(gap * gap, actual, positive)


def _spec(name: str, summary: str, build: Any, *aliases: str) -> MeasureSpec:
    spec = MeasureSpec(name=name, kind="classification", summary=summary, build=build, aliases=aliases)
    return parseable(register(spec))


LOG_LOSS = _spec("log_loss", "log-loss: mean -log of the probability given to the actual class",
                 _build_log_loss, "logloss", "cross_entropy", "cross-entropy", "log loss")
BRIER = _spec("brier", "Brier score: mean squared gap between the probability and the 0/1 label",
              _build_brier, "brier_score", "brier_score_loss", "Brier score")
PROBABILITY_SPECS: Final = (LOG_LOSS, BRIER)


def _expr(spec: MeasureSpec, actual: str, prob: str, positive: Any) -> pl.Expr:
    m = measure(spec, kind="classification")
    return spec.build({"actual": actual, "score": prob, "positive": positive}, None).alias(m.name)


def log_loss(actual: str = ACTUAL, prob: str = PROB, *, positive: Any = AUTO) -> pl.Expr:
    """Log-loss (cross-entropy) of binary probabilities, scikit-learn's ``log_loss``.

    ``mean(-log(p))`` over positive rows and ``-log(1 - p)`` over negative
    rows, ``p`` clipped to ``[eps, 1 - eps]``. Null without rows.

    Parameters
    ----------
    actual
        Label column; a row is positive when it equals ``positive``.
    prob
        Predicted probability of the positive class, in [0, 1].
    positive
        The positive label (default ``True`` / ``1``).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.1, 0.8, 0.35]})
    >>> round(df.select(C.log_loss("y", "p")).item(), 6)
    0.216162
    """
    return _expr(LOG_LOSS, actual, prob, positive)


def brier_score(actual: str = ACTUAL, prob: str = PROB, *, positive: Any = AUTO) -> pl.Expr:
    """Brier score of binary probabilities, scikit-learn's ``brier_score_loss``: ``mean((y - p)^2)``.

    ``y`` is 1 for positive rows and 0 for the others. Null without rows.
    Parameters as in :func:`log_loss`.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 0, 1, 0], "p": [0.9, 0.1, 0.8, 0.35]})
    >>> round(df.select(C.brier_score("y", "p")).item(), 6)
    0.045625
    """
    return _expr(BRIER, actual, prob, positive)
