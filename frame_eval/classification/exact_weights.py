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
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

import polars as pl

from frame_eval.classification.counts import INFINITE_BITS, WeightsSeen, weight_bits
from frame_eval.classification.grouped_scores import _G as GROUP  # the group numbers the areas read

__all__ = ["GROUP", "bounded_exponent", "exact_sums", "unit_exponent", "weighted_curve_points", "when_exact"]

_MAX_EXPONENT = 1023  # 2.0 ** k stays finite


def exact_sums(weights: pl.Series, seen: WeightsSeen | None = None) -> bool:
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

    ``seen`` notes what the bound's pass saw (:func:`bounded_exponent`). That pass also tests the
    whole units at the ``k`` that the largest of the first weights gives (:func:`_first_exponent`),
    at least the ``k`` of all: the answer when the two are equal (the largest weight's binade is
    among the first), and False when the test fails (whole multiples of ``2^-k`` are multiples of
    any larger power's inverse); else a second pass tests them at ``k``.
    """
    seen = WeightsSeen() if seen is None else seen
    seen.whole_at = _first_exponent(weights)
    k = bounded_exponent(weights, seen)
    if k is None or seen.whole is False:
        return False
    if seen.whole and seen.whole_at == k:
        return True
    return bool(_passed(weights, _whole(k))[0])


def _whole(k: int) -> pl.Expr:
    """Whether every weight (``pl.first()``) times ``2^k`` (a power of two: exact) is a whole number."""
    # (x % 1: cheaper than comparing x with its floor)
    return (pl.first() * 2.0**k % 1.0 == 0.0).all().alias("whole")


def _first_exponent(weights: pl.Series) -> int | None:
    """The ``k`` of :func:`bounded_exponent` that the largest of the first :data:`SAMPLED_ROWS` weights
    gives with all ``n`` of them (so at least the ``k`` of all), when they are finite, >= +0.0 and
    not all 0 and that ``k`` is >= 0; else None."""
    first = weights.head(SAMPLED_ROWS).cast(pl.Float64)
    top_bits = first.reinterpret(dtype=pl.UInt64).max()
    if first.null_count() or not top_bits or top_bits >= INFINITE_BITS:  # type: ignore[operator]
        return None
    k = _exponent(weights.len(), struct.unpack("<d", struct.pack("<Q", top_bits))[0])
    return k if k >= 0 else None


def bounded_exponent(weights: pl.Series, seen: WeightsSeen | None = None) -> int | None:
    """The ``k`` of :func:`exact_sums` (``n max(w) 2^k < 2^53``; 0 when there are no weights or all are
    0) when its other conditions hold: no null, NaN, infinite or negative weight, and ``k >= 0``; else
    None. Whether each weight times ``2^k`` is a whole number is left to the caller: a pass over the
    weights that a caller making keys of them folds into its own.

    >>> import polars as pl
    >>> bounded_exponent(pl.Series([0.25, 3.5, 0.0, 2.0])), bounded_exponent(pl.Series([1.0, -0.5]))
    (48, None)

    ``seen`` notes the weights' null count and largest bits, read in the same pass (with the whole
    units at ``seen.whole_at``, when it asks).
    """
    n = weights.len()
    weights = weights.cast(pl.Float64)
    nulls = weights.null_count()
    if n == 0 or nulls:
        if seen is not None:
            seen.note(nulls, None)
        return None if nulls else 0
    # the largest weight from the largest bits: doubles >= +0.0 order as their bits, and a negative
    # (-0.0 too), NaN or infinite weight has bits at or above those of +inf
    at = None if seen is None else seen.whole_at
    top_bits, *whole = _passed(weights, weight_bits(pl.first()).max(), *([] if at is None else [_whole(at)]))
    if seen is not None:
        seen.note(0, top_bits, bool(whole[0]) if whole else None)
    if top_bits < INFINITE_BITS:
        top = struct.unpack("<d", struct.pack("<Q", top_bits))[0]
    else:  # only then min, max and NaN (-0.0 is a weight >= 0; the others are not)
        w = pl.first()
        low, top, nan = _passed(weights, w.min(), w.max().alias("top"), w.is_nan().any().alias("nan"))
        if nan or low is None or not 0.0 <= low <= top < math.inf:  # (polars' == takes NaN as equal to NaN)
            return None
    if top == 0:
        return 0
    k = _exponent(n, float(top))  # type: ignore[arg-type]
    return k if k >= 0 else None


# how many of the first weights give :func:`exact_sums` the scale its first pass tests the units at
SAMPLED_ROWS: Final = 1_000
# from this many weights, their passes run on the streaming engine (on every core, without temporary
# columns); fewer start faster on the in-memory one
STREAMED_ROWS: Final = 200_000


def _passed(weights: pl.Series, *aggregations: pl.Expr) -> tuple[Any, ...]:
    """The ``aggregations`` (of ``pl.first()``) over ``weights``, as one row: one lazy pass."""
    engine = "streaming" if weights.len() >= STREAMED_ROWS else "in-memory"
    return weights.to_frame().lazy().select(aggregations).collect(engine=engine).row(0)


def _exponent(n: int, top: float) -> int:
    # top < 2^e and n < 2^b, so every partial sum is below 2^(e + b): scaled by 2^k it must stay below 2^53
    return min(53 - math.frexp(top)[1] - n.bit_length(), _MAX_EXPONENT)


def unit_exponent(weights: pl.Series) -> int:
    """The ``k`` of :func:`exact_sums` for ``weights`` that pass it: each weight times ``2^k`` is a whole
    number, and ``n max(w) 2^k`` is below ``2^53`` (0 when every weight is 0)."""
    top = weights.max()
    return _exponent(weights.len(), float(top)) if top else 0  # type: ignore[arg-type]


def when_exact(
    frame: pl.LazyFrame,
    weight: str,
    exact: Callable[[pl.LazyFrame], pl.LazyFrame],
    ordered: Callable[[pl.LazyFrame], pl.LazyFrame],
    *,
    engine: Literal["in-memory", "streaming"] = "in-memory",
    seen: WeightsSeen | None = None,
) -> pl.LazyFrame:
    """``exact(frame)`` when ``frame``'s column ``weight`` passes :func:`exact_sums`, else ``ordered(frame)``.

    Decided when the plan runs (nothing is collected before), on ``frame`` as a whole, in one frame
    function that runs the chosen plan on ``engine`` (sorts within groups run faster on the in-memory
    engine, aggregations of many expressions on the streaming one; the same values either way). The
    two plans must give the same columns and dtypes. ``seen`` notes what the test saw of the weights.
    """
    schema = ordered(frame).collect_schema()

    def run(rows: pl.DataFrame) -> pl.DataFrame:
        chosen = exact if exact_sums(rows.get_column(weight), seen) else ordered
        return chosen(rows.lazy()).collect(engine=engine)

    return frame.map_batches(run, schema=schema, streamable=False)


def weighted_curve_points(
    rows: pl.LazyFrame, keys: Sequence[str], positive: str, score: str, weight: str, *, exact: bool
) -> pl.LazyFrame:
    """``[GROUP, *keys, <score>, tp, fp, _P, _N]``: per group (numbered by ``GROUP`` in the order of
    ``keys``), one point per distinct score among the rows of weight above 0 (scikit-learn leaves rows of
    weight 0 out of its curves), threshold descending; ``tp`` / ``fp`` the sums of the weights of the
    positive / negative rows scoring at least it, ``_P`` / ``_N`` the group's totals (Float64).

    Each group's rows are sorted once and their weights added one by one in that order: by (score
    descending, label, weight), which fixes the bits of every running sum whatever the row order, or,
    with ``exact`` (weights that pass :func:`exact_sums`), by score alone, as no addition rounds then.
    """
    keys = list(keys)
    lab, s, w = pl.col(positive), pl.col(score), pl.col(weight)
    rows = rows.filter(w != 0)
    order, descending = (s, True) if exact else ([s, lab, w], [True, False, False])
    run = "__fe_rows"
    if keys:
        sorted_rows = pl.struct(lab, s, w).sort_by(order, descending=descending).alias(run)
        groups = rows.group_by(keys).agg(sorted_rows).sort(keys).with_row_index(GROUP).cache()
        names = groups.select(GROUP, *keys)
        rows = groups.select(GROUP, run).explode(run).unnest(run)
    else:
        names = None
        rows = rows.sort(order, descending=descending).select(pl.lit(0, pl.UInt32).alias(GROUP), lab, s, w)
    group = pl.col(GROUP)
    rows = rows.with_columns(
        pl.when(lab).then(w).otherwise(0.0).cum_sum().over(GROUP).alias("tp"),
        pl.when(lab).then(0.0).otherwise(w).cum_sum().over(GROUP).alias("fp"),
    )
    # the last row of each score (and so of each group) is a point; the group's last its totals
    end = ((s != s.shift(-1)) | (group != group.shift(-1))).fill_null(True)
    last = (group != group.shift(-1)).fill_null(True)
    points = rows.filter(end).select(
        GROUP, s, "tp", "fp",
        pl.when(last).then(pl.col("tp")).backward_fill().alias("_P"),
        pl.when(last).then(pl.col("fp")).backward_fill().alias("_N"),
    )
    if names is None:
        return points
    # the keys of the (few) groups joined to the points, rather than repeated on every row before
    points = points.join(names, on=GROUP, how="left", maintain_order="left")
    return points.select(GROUP, *keys, score, "tp", "fp", "_P", "_N")
