"""Calibration of predicted probabilities: the reliability curve and the expected calibration error.

The probabilities ``p`` of a group are put in ``n_bins`` bins, as scikit-learn's
``calibration_curve`` does:

- ``strategy="uniform"``: edges ``0, 1/n_bins, ..., 1`` (``np.linspace``'s values);
- ``strategy="quantile"``: edges at the ``0, 1/n_bins, ..., 1`` quantiles of the
  group's probabilities (``np.percentile``'s linear interpolation, same bits).

A probability goes to the bin whose upper edge is the first inner edge at
least as large (``np.searchsorted(edges[1:-1], p)``: a value on an edge goes
to the lower bin). For each non-empty bin ``b``, with ``n_b`` rows of which
``k_b`` positive and probabilities summing to ``s_b``:

- ``fraction_positive = k_b / n_b`` (scikit-learn's ``prob_true``, same bits);
- ``mean_predicted = s_b / n_b`` (``prob_pred``): the exact sum of the bin's
  probabilities over its rows, rounded once (:mod:`frame_eval._exact_sum`),
  the same for any row order; scikit-learn adds them in row order: within 1e-15;
- the expected calibration error ``ECE = sum_b (n_b / n) * |mean_predicted_b -
  fraction_positive_b|``, the bin-weighted gap, summed over the non-empty bins
  from the lowest up, one by one.

Empty bins have no row (scikit-learn leaves them out too). A group without
rows has no bins and a null ECE.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Final

import polars as pl

from frame_eval._exact_sum import aggregation, group_values, python_mean
from frame_eval.classification import quantile_bins as qb
from frame_eval.classification.counts import ACTUAL, AUTO, checked, is_positive, parseable
from frame_eval.classification.quantile_bins import quantile_bins
from frame_eval.registry import Doc, MeasureSpec, Param, measure, register

__all__ = ["STRATEGIES", "bin_edges", "expected_calibration_error"]

STRATEGIES: Final = ("uniform", "quantile")
PROB: Final = "prob"


def _levels(n_bins: int) -> list[float]:
    """``np.linspace(0, 1, n_bins + 1)``: ``i * (1 / n_bins)``, the last one exactly 1."""
    step = 1.0 / n_bins
    return [*(i * step + 0.0 for i in range(n_bins)), 1.0]


def bin_edges(p: pl.Expr, n_bins: int, strategy: str) -> pl.Expr:
    """The ``n_bins + 1`` bin edges of a group's probabilities ``p`` (a vector in an aggregation).

    Quantile edges follow ``np.percentile(p, levels * 100)`` with its default
    linear method: index ``(n - 1) * q``, and between the two values around it
    ``a + (b - a) * g`` (``b - (b - a) * (1 - g)`` when ``g >= 0.5``).
    """
    levels = _levels(n_bins)
    if strategy == "uniform":
        return pl.lit(pl.Series(levels, dtype=pl.Float64)).implode().explode()
    quantiles = pl.lit(pl.Series([q * 100.0 / 100.0 for q in levels], dtype=pl.Float64))
    # a null after the sorted values: an empty group's indices (clipped to 0) read it, not past the end
    ordered = p.sort().append(pl.lit(None, pl.Float64))
    last = p.len().cast(pl.Int64) - 1
    virtual = last.cast(pl.Float64) * quantiles
    below = virtual.floor()
    lower = below.cast(pl.Int64).clip(0, last)
    upper = (lower + 1).clip(0, last)
    gamma = virtual - below
    a, b = ordered.gather(lower), ordered.gather(upper)
    gap = b - a
    # b + (-x) is b - x and a - (-x) is a + x to the bit: polars 2.1 would fuse a +/- x * y into one
    # kernel that panics on an empty group
    return pl.when(gamma >= 0.5).then(b + (-(gap * (1.0 - gamma)))).otherwise(a - (-(gap * gamma)))


def bins(p: pl.Expr, n_bins: int, strategy: str) -> pl.Expr:
    """Each probability's bin (0-based): how many inner edges lie strictly below it."""
    if n_bins == 1:
        return pl.int_range(0, p.len(), dtype=pl.Int64) * 0
    inner = bin_edges(p, n_bins, strategy).slice(1, n_bins - 1)
    return inner.search_sorted(p, side="left").cast(pl.Int64)


def check_binning(n_bins: Any, strategy: Any) -> tuple[int, str]:
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"n_bins must be a whole number of at least 1, got {n_bins!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    return n_bins, str(strategy)


def _build_ece(columns: Any, cutoff: float | None, n_bins: int = 10, strategy: str = "uniform") -> pl.Expr:
    actual, prob = columns.get("actual", ACTUAL), columns.get("score", PROB)
    positive = columns.get("positive", AUTO)
    if columns.get("weight") is not None:
        raise ValueError(
            "ECE takes no sample weights (nor does scikit-learn's calibration_curve): leave out weight=, "
            "or ask for ECE in a call without weights"
        )
    is_pos = is_positive(actual, positive)
    raw = pl.col(prob).cast(pl.Float64)
    keep = is_pos.is_not_null() & raw.is_not_nan()
    label, p = is_pos.filter(keep), raw.filter(keep)
    ece = _calibration_error(p, label.cast(pl.Int64), bins(p, n_bins, strategy), n_bins)
    return checked(ece, [actual], positive)


def _calibration_error(p: pl.Expr, label: pl.Expr, which: pl.Expr, n_bins: int) -> pl.Expr:
    """Aggregation: a group's ECE from its probabilities, 0/1 labels and bins, in one call per group:
    each bin's exact mean (:func:`~frame_eval._exact_sum.python_mean`), then the frame path's IEEE
    steps (``n_b / n``, ``k_b / n_b``, the bin-weighted gaps added from 0 from the lowest bin up)."""

    def run(lists: pl.Series) -> pl.Series:
        out: list[float | None] = []
        for group in group_values(lists):
            values, labels, where = group.get("p", []), group.get("y", []), group.get("b", [])
            if not values:
                out.append(None)
                continue
            members: dict[int, list[float]] = {}
            positives: dict[int, int] = {}
            for value, y, b in zip(values, labels, where, strict=True):
                members.setdefault(b, []).append(value)
                positives[b] = positives.get(b, 0) + y
            total = 0.0
            for b in range(n_bins):
                if b in members:
                    count = len(members[b])
                    mean = python_mean(members[b])
                    assert mean is not None
                    total += count / len(values) * abs(mean - positives[b] / count)
            out.append(total)
        return pl.Series(out, dtype=pl.Float64)

    fields = [p.alias("p"), label.alias("y"), which.alias("b")]
    return aggregation(fields, run, pl.Float64)


def _positive_int(value: Any) -> str | None:
    return None if value >= 1 else "must be at least 1"


ECE = parseable(register(MeasureSpec(
    name="ECE", kind="classification",
    summary="expected calibration error: bin-weighted mean |mean probability - fraction positive|",
    build=_build_ece,
    params=(
        Param("n_bins", int, 10, doc="number of bins", check=_positive_int),
        Param("strategy", str, "uniform", choices=STRATEGIES, doc="'uniform' or 'quantile' bin edges"),
    ),
    aliases=("expected_calibration_error", "expected calibration error"),
    doc=Doc(
        "C.expected_calibration_error",
        "parameters n_bins (default 10) and strategy (uniform or quantile), e.g. ECE(n_bins=15, "
        "strategy=quantile): sum over the non-empty calibration bins of (rows in the bin / rows) * |mean "
        "probability - fraction positive|, the bins of scikit-learn's `calibration_curve`",
        "no rows",
    ),
)))
CALIBRATION_SPECS: Final = (ECE,)


def expected_calibration_error(
    actual: str = ACTUAL,
    prob: str = PROB,
    *,
    n_bins: int = 10,
    strategy: str = "uniform",
    positive: Any = AUTO,
) -> pl.Expr:
    """Expected calibration error of binary probabilities (see the module docstring for the bins).

    ``ECE = sum over non-empty bins b of (n_b / n) * |mean_predicted_b -
    fraction_positive_b|``: the gap between the mean probability and the
    fraction of positive rows in each bin, weighted by the bin's share of the
    rows. 0 for perfectly calibrated bins; null without rows.

    Parameters
    ----------
    actual
        Label column; a row is positive when it equals ``positive``.
    prob
        Predicted probability of the positive class, in [0, 1].
    n_bins
        Number of bins (default 10).
    strategy
        ``"uniform"`` (equal widths) or ``"quantile"`` (equal counts).
    positive
        The positive label (default ``True`` / ``1``).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "p": [0.1, 0.3, 0.6, 0.8]})
    >>> round(df.select(C.expected_calibration_error("y", "p", n_bins=2)).item(), 6)  # (0.2 + 0.3) / 2
    0.25
    """
    n_bins, strategy = check_binning(n_bins, strategy)
    m = measure(ECE, kind="classification", n_bins=n_bins, strategy=strategy)
    columns = {"actual": actual, "score": prob, "positive": positive}
    return ECE.build(columns, None, **m.kwargs).alias(m.name)


def _row_bins(p: pl.Expr, inner: list[float]) -> pl.Expr:
    """A probability's bin, row by row (UInt64): how many of the inner edges (ascending) lie strictly
    below it (what ``np.searchsorted(inner, p, side="left")`` gives).

    The comparisons ``c_i = p > inner[i - 1]`` hold for ``i = 1 .. k`` and for no other ``i`` when ``k``
    edges lie below ``p``, so bit ``j`` of ``k`` is the xor of ``c_(2^j)``, ``c_(2 * 2^j)``, ...: a
    few xors of Boolean masks and one cast per bit, where adding the comparisons cast one per edge."""
    if not inner:
        return pl.lit(0, pl.UInt64)
    counter = next(t for t, top in ((pl.UInt8, 255), (pl.UInt16, 65535), (pl.UInt32, 2**32 - 1))
                   if len(inner) <= top)
    above = [p > pl.lit(edge, pl.Float64) for edge in inner]
    places = []
    for j in range(len(inner).bit_length()):
        step = 1 << j
        bit = functools.reduce(operator.xor, above[step - 1::step]).cast(counter)
        places.append(bit if j == 0 else bit * pl.lit(step, counter))
    return pl.sum_horizontal(places).cast(pl.UInt64)


def _uniform_bins(scored: pl.LazyFrame, keys: list[str], positive: str, prob: str, n_bins: int
                  ) -> pl.LazyFrame:
    """``[*keys, bin, count, mean_predicted, fraction_positive]``, uniform bins: one group-by of the
    rows by (keys, bin * 4096 + top 12 bits of the probability) counts the rows and positives and adds
    the two 26-bit halves of the fractions (the parts of an exact sum, :mod:`frame_eval._exact_sum`);
    each bin's parts then give its exact mean (:func:`~frame_eval.classification.quantile_bins.bin_means`)."""
    p, u64 = pl.col(prob).cast(pl.Float64), pl.UInt64
    bits = p.reinterpret(dtype=u64)
    place = _row_bins(p, _levels(n_bins)[1:-1]) * pl.lit(4096, u64) + bits // pl.lit(1 << 52, u64)
    parts = scored.group_by(*keys, place.alias(qb.PLACE)).agg(qb.bin_sums(bits, positive))
    schema = {**scored.select(keys).collect_schema(), "bin": pl.Int64, "count": pl.Int64,
              "mean_predicted": pl.Float64, "fraction_positive": pl.Float64}

    def means(frame: pl.DataFrame) -> pl.DataFrame:
        frame = frame.with_columns(
            (pl.col(qb.PLACE) // 4096).cast(pl.Int64).alias(qb.BIN),
            (pl.col(qb.PLACE) % 4096).cast(pl.Int64).alias(qb.TOP),
        )
        return qb.bin_means(frame, keys)

    return parts.map_batches(means, schema=schema)


def calibration_bins(
    scored: pl.LazyFrame, keys: list[str], positive: str, prob: str, n_bins: int, strategy: str
) -> pl.LazyFrame:
    """``[*keys, bin, count, mean_predicted, fraction_positive]`` of every non-empty bin, sorted.

    ``scored`` holds the keys, a Boolean ``positive`` column and a Float64
    ``prob`` column, checked already (no nulls or NaN, values in [0, 1]).
    Uniform bins: each row's bin found row-wise (the edges are constants), then
    the rows and positive labels of each (group, bin) counted and their
    probabilities added exactly in one group-by, the mean rounded once
    (:func:`_uniform_bins`). Quantile bins: the edges are each group's, read
    off the few rows around their ranks, then the same counts and exact means
    (:func:`~frame_eval.classification.quantile_bins.quantile_bins`).
    """
    if strategy == "quantile" and n_bins > 1:
        return quantile_bins(scored, keys, positive, prob, _levels(n_bins)[1:-1]).sort([*keys, "bin"])
    return _uniform_bins(scored, keys, positive, prob, n_bins)
