"""Sums of sample weights whose bits do not depend on the order of the rows.

A floating-point sum's last bits depend on the order of its terms, so the
weighted measures fix one: a weighted count adds its weights from the
smallest up, a weighted curve adds each group's weights sorted by (score,
label, weight). Those sorts cost most of the weighted measures' time, and
they are not needed when the weights are *exact*:

- every weight is a whole multiple of one power of two ``2^-k`` (integers,
  0.25, 3.5, any float with few significant bits), and
- all the weights of the call together come to less than ``2^53`` such units.

Then every partial sum, in any order, is a multiple of ``2^-k`` below
``2^53 2^-k``, which a double holds exactly: no addition rounds, so every
order of adding gives the same bits (scikit-learn's too). :func:`exact_sums`
checks that in one pass over the weights of a whole call (the bound then
holds for every group and class in it); :func:`when_exact` builds a plan that
makes the check when it runs and takes the cheaper plan when it holds, the
ordered one otherwise. Both give the same values wherever the cheap one is
taken, which the tests check on both paths.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import polars as pl

__all__ = ["exact_sums", "exact_sums_points", "when_exact"]

_MAX_EXPONENT = 1023  # 2.0 ** k stays finite


def exact_sums(weights: pl.Series) -> bool:
    """Whether the (Float64) ``weights`` add up to the same bits in every order (see the module).

    True when each weight is a whole multiple of one ``2^-k`` and ``n max(w) 2^k`` stays below ``2^53``
    for ``n`` weights (a bound on every partial sum of weights >= 0). False for null, NaN, infinite or
    negative weights (the callers' checks report those), and when ``k`` would be negative (weights
    near ``2^53 / n``).

    >>> import polars as pl
    >>> exact_sums(pl.Series([0.25, 3.5, 0.0, 2.0]))
    True
    >>> exact_sums(pl.Series([0.1, 0.2]))  # 0.1 is no multiple of a power of two that 0.2 shares in range
    False
    """
    n = weights.len()
    if n == 0:
        return True
    if weights.null_count() or weights.is_nan().any() or weights.is_infinite().any():
        return False
    low, top = weights.min(), weights.max()
    if low < 0:  # type: ignore[operator]
        return False
    if top == 0:
        return True
    # top < 2^e and n < 2^b, so every partial sum is below 2^(e + b): scaled by 2^k it must stay below 2^53
    k = 53 - math.frexp(float(top))[1] - n.bit_length()  # type: ignore[arg-type]
    if k < 0:
        return False
    scaled = weights * 2.0 ** min(k, _MAX_EXPONENT)  # a power of two: exact (the values stay below 2^53)
    return bool((scaled == scaled.floor()).all())


def when_exact(
    frame: pl.LazyFrame,
    weight: str,
    exact: Callable[[pl.LazyFrame], pl.LazyFrame],
    ordered: Callable[[pl.LazyFrame], pl.LazyFrame],
    *,
    engine: Literal["in-memory", "streaming"] = "in-memory",
) -> pl.LazyFrame:
    """``exact(frame)`` when ``frame``'s column ``weight`` passes :func:`exact_sums`, else ``ordered(frame)``.

    Decided when the plan runs (nothing is collected before), on ``frame`` as a whole, in one frame
    function that runs the chosen plan on ``engine`` (sorts within groups run faster on the in-memory
    engine, aggregations of many expressions on the streaming one; the same values either way). The
    two plans must give the same columns and dtypes.
    """
    schema = ordered(frame).collect_schema()

    def run(rows: pl.DataFrame) -> pl.DataFrame:
        chosen = exact if exact_sums(rows.get_column(weight)) else ordered
        return chosen(rows.lazy()).collect(engine=engine)

    return frame.map_batches(run, schema=schema, streamable=False)


def exact_sums_points(
    rows: pl.LazyFrame, keys: Sequence[str], positive: str, score: str, weight: str
) -> pl.LazyFrame:
    """``[*keys, <score>, tp, fp, _P, _N]`` of exactly summable weights (:func:`exact_sums`): per group
    (sorted by ``keys``), one point per distinct score with weight above 0, threshold descending;
    ``tp`` / ``fp`` the weights of the positive / negative rows scoring at least it, ``_P`` / ``_N``
    the group's totals (Float64).

    Each group's rows are sorted by score alone and the weights added in that order over all groups at
    once (no addition rounds, so the order within tied scores and the running totals of the groups
    before do not matter): the same values as adding them sorted by (score, label, weight) per group.
    """
    keys = list(keys)
    lab, s, w = pl.col(positive), pl.col(score), pl.col(weight)
    rows = rows.filter(w != 0)
    g, run = "__fe_group", "__fe_rows"
    if keys:
        groups = rows.group_by(keys).agg(pl.struct(lab, s, w).sort_by(s, descending=True).alias(run))
        groups = groups.sort(keys).with_row_index(g)  # numbered in the keys' order
        names = groups.select(g, *keys)
        rows = groups.select(g, run).explode(run).unnest(run)
    else:
        names = None
        rows = rows.sort(score, descending=True).select(pl.lit(0, pl.UInt32).alias(g), lab, s, w)
    group = pl.col(g)
    # running totals over all rows, read at the end of each run of tied scores; a group's own totals are
    # those minus the totals where the group before ended (exact: no sum rounds)
    rows = rows.with_columns(
        pl.when(lab).then(w).otherwise(0.0).cum_sum().alias("tp"), w.cum_sum().alias("_all")
    )
    end = ((s != s.shift(-1)) | (group != group.shift(-1))).fill_null(True)
    points = rows.filter(end).select(g, s, "tp", "_all")
    first, last = (group != group.shift(1)).fill_null(True), (group != group.shift(-1)).fill_null(True)

    def within(name: str) -> pl.Expr:
        running = pl.col(name)
        return running - pl.when(first).then(running.shift(1).fill_null(0.0)).forward_fill()

    points = points.with_columns(within("tp"), within("_all"))
    tp, fp = pl.col("tp"), pl.col("_all") - pl.col("tp")
    points = points.select(
        g, s, tp, fp.alias("fp"),
        pl.when(last).then(tp).backward_fill().alias("_P"),
        pl.when(last).then(fp).backward_fill().alias("_N"),
    )
    if names is None:
        return points.drop(g)
    return points.join(names, on=g, how="left", maintain_order="left").select(
        *keys, score, "tp", "fp", "_P", "_N"
    )
