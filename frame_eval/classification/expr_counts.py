"""The confusion counts as polars aggregation expressions: ``C.confusion``, ``C.tp`` ... ``C.total``.

Each is one registry measure (:mod:`~frame_eval.classification.rates`) built by
:func:`~frame_eval.classification.averages.rate_expr`; with ``weight``, sums of sample weights.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval.classification.averages import rate_expr
from frame_eval.classification.counts import ACTUAL, AUTO, COUNT_NAMES, PREDICTED, binary_counts
from frame_eval.classification.rates import FN, FP, PN, PP, TN, TOTAL, TP, N, P

__all__ = [
    "AUTO",
    "confusion",
    "fn",
    "fp",
    "n",
    "p",
    "pn",
    "pp",
    "tn",
    "total",
    "tp",
]


def confusion(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """All binary counts as one struct ``confusion{tp, fp, fn, tn, p, n, pp, pn, total}`` (Int64).

    With ``weight`` (a column of sample weights >= 0), each count is the sum
    of its rows' weights, Float64 (scikit-learn's ``sample_weight``).

    ``p = tp + fn`` (actual positives), ``n = fp + tn``, ``pp = tp + fp``
    (predicted positives), ``pn = fn + tn``, ``total = p + n``. A row is
    positive when its label equals ``positive``; a row with a null label is
    not counted. ``.struct.unnest()`` (or ``DataFrame.unnest``) spreads the fields.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [1, 1, 0, 0, 0], "yhat": [1, 0, 1, 0, 0]})
    >>> df.select(C.confusion("y", "yhat")).unnest("confusion").row(0)
    (1, 1, 1, 2, 2, 3, 2, 3, 5)
    """
    c = binary_counts(actual, predicted, positive, weight)
    fields = {name: getattr(c, name) for name in COUNT_NAMES}
    return pl.struct(**fields).alias("confusion")


def tp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """True positives: rows whose actual and predicted labels are both ``positive`` (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.tp("y", "yhat")).item()
    1
    """
    return rate_expr(TP, actual, predicted, positive, None, None, weight)


def fp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """False positives (type I errors): negative rows predicted ``positive`` (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.fp("y", "yhat")).item()
    1
    """
    return rate_expr(FP, actual, predicted, positive, None, None, weight)


def fn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """False negatives (type II errors, misses): ``positive`` rows predicted negative (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.fn("y", "yhat")).item()
    1
    """
    return rate_expr(FN, actual, predicted, positive, None, None, weight)


def tn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """True negatives: negative rows predicted negative (Int64).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 0, 0], "yhat": [1, 0, 1]}).select(C.tn("y", "yhat")).item()
    1
    """
    return rate_expr(TN, actual, predicted, positive, None, None, weight)


def p(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Actual positives ``P = TP + FN`` (scikit-learn's *support* of the positive class).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.p("y", "yhat")).item()
    2
    """
    return rate_expr(P, actual, predicted, positive, None, None, weight)


def n(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Actual negatives ``N = FP + TN``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.n("y", "yhat")).item()
    1
    """
    return rate_expr(N, actual, predicted, positive, None, None, weight)


def pp(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Predicted positives ``PP = TP + FP``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.pp("y", "yhat")).item()
    2
    """
    return rate_expr(PP, actual, predicted, positive, None, None, weight)


def pn(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Predicted negatives ``PN = FN + TN``.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, 1, 0], "yhat": [1, 0, 1]}).select(C.pn("y", "yhat")).item()
    1
    """
    return rate_expr(PN, actual, predicted, positive, None, None, weight)


def total(
    actual: str = ACTUAL, predicted: str = PREDICTED, *, positive: Any = AUTO, weight: str | None = None
) -> pl.Expr:
    """Rows counted, ``P + N`` (rows with a null label are not counted).

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> pl.DataFrame({"y": [1, None, 0], "yhat": [1, 0, 1]}).select(C.total("y", "yhat")).item()
    2
    """
    return rate_expr(TOTAL, actual, predicted, positive, None, None, weight)
