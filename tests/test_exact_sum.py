"""Exact sums rounded once (frame_eval/_exact_sum.py) against exact rational arithmetic.

The reference is Python's ``Fraction``: the exact sum of the doubles, divided
exactly, then rounded once by ``float()`` (correct rounding, ties to even).
With weights summing to exactly 1 the mean is the rounded sum itself, which
``math.fsum`` also gives. Data span hundreds of binary orders of magnitude and
cancel, so any summation that rounds on the way gets other bits.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from frame_eval import _exact_sum as module
from frame_eval._exact_sum import Mean, exact_mean, exact_means

TINY = 5e-324  # the smallest subnormal
BIG = sys.float_info.max


def _wide(rows: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    t = rng.standard_normal(rows) * 2.0 ** rng.integers(-1070, 1000, rows)
    big = rng.standard_normal(rows) * 1e16
    t = np.where(rng.random(rows) < 0.3, big, t)  # big terms that cancel, leaving the small ones
    t[rng.random(rows) < 0.05] = 0.0
    t[rng.random(rows) < 0.02] = TINY
    w = np.round(rng.random(rows) * 3, 2)  # weights that are not whole units, a tenth of them 0
    w[rng.random(rows) < 0.1] = 0.0
    return pl.DataFrame({"g": rng.integers(0, 4, rows), "t": t, "w": w})


def _exact(values: list[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def _reference(terms: list[float], weights: list[float] | None = None, divisor: int = 1) -> float | None:
    bottom = Fraction(len(terms)) if weights is None else _exact(weights)
    if bottom == 0:
        return None
    try:
        return float(_exact(terms) / (divisor * bottom))
    except OverflowError:
        return math.copysign(math.inf, _exact(terms) * bottom)


def _means(frame: pl.DataFrame) -> dict[str, Mean]:
    t, w = pl.col("t"), pl.col("w")
    return {"mean": Mean(t), "weighted": Mean(t * w, w), "halved": Mean(t, None, 2)}


def _expected(frame: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for (g,), part in frame.group_by("g"):
        t, w = part["t"].to_list(), part["w"].to_list()
        rows.append((g, _reference(t), _reference([a * b for a, b in zip(t, w, strict=True)], w),
                     _reference(t, None, 2)))
    return pl.DataFrame(rows, schema={"g": pl.Int64, "mean": pl.Float64, "weighted": pl.Float64,
                                      "halved": pl.Float64}, orient="row").sort("g")


def _aggregations() -> list[pl.Expr]:
    t, w = pl.col("t"), pl.col("w")
    return [exact_mean(t).alias("mean"), exact_mean(t * w, w).alias("weighted"),
            exact_mean(t, None, 2).alias("halved")]


def _one_by_one(values: list[float | None]) -> module._Total:
    total = module._Total()
    total.add_values(values)
    return total


@pytest.mark.parametrize("one_by_one", [False, True])  # the aggregation's fsum passes, or value by value
@pytest.mark.parametrize("rows", [40, 3000])
def test_means_are_the_exact_quotients_rounded_once(
    rows: int, one_by_one: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if one_by_one:
        monkeypatch.setattr(module, "python_total", _one_by_one)
    frame = _wide(rows, rows)
    want = _expected(frame)
    assert want.null_count().sum_horizontal().item() == 0
    for engine in ("in-memory", "streaming"):
        for order in range(2):
            shuffled = frame.sample(fraction=1.0, shuffle=True, seed=order).lazy()
            got = exact_means(shuffled, ["g"], _means(frame)).collect(engine=engine)  # type: ignore[call-overload]
            assert got.sort("g").equals(want)
            agg = shuffled.group_by("g").agg(_aggregations()).collect(engine=engine)  # type: ignore[call-overload]
            assert agg.sort("g").equals(want)


def test_naive_sums_would_differ() -> None:
    """The data of the test above are hard: polars' own sum and math.fsum / n get other bits."""
    frame = _wide(3000, 3000)
    exact = exact_means(frame.lazy(), ["g"], {"mean": Mean(pl.col("t"))}).collect().sort("g")
    naive = frame.group_by("g").agg(pl.col("t").mean().alias("mean")).sort("g")
    assert not exact.equals(naive)


def test_a_sum_over_weights_summing_to_one_is_math_fsum() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        t = list(rng.standard_normal(200) * 10.0 ** rng.integers(-300, 300, 200))
        t += [1e300, -1e300, 1.0, -1.0, 1e-300]  # cancellation: naive sums lose the small terms
        frame = pl.DataFrame({"t": t, "one": [1.0] + [0.0] * (len(t) - 1)})
        mean = Mean(pl.col("t") * pl.lit(1.0), pl.col("one"))  # weights summing to 1
        got = exact_means(frame.lazy(), [], {"sum": mean}).collect().item()
        assert got == math.fsum(t)
        assert frame.select(exact_mean(pl.col("t"), pl.col("one"))).item() == math.fsum(t)


@pytest.mark.parametrize(("terms", "want"), [
    ([1e16, 1.0, -1e16], 1.0 / 3),  # cancellation: the 1.0 survives
    ([BIG, BIG, -BIG], BIG / 3),  # past the largest double on the way, not at the end
    ([BIG, BIG], BIG),  # (2 BIG) / 2: exact
    ([TINY, TINY, TINY], TINY),  # subnormal terms and mean
    ([TINY, 0.0], 0.0),  # half the smallest subnormal: a tie, rounded to even (0)
    ([TINY * 3, 0.0], TINY * 2),  # 1.5 of the smallest: a tie, rounded to even (2)
    ([-0.0, -0.0], 0.0),  # an exact zero is +0.0
    ([math.inf, 1.0], math.inf),
    ([-math.inf, 1.0], -math.inf),
    ([math.inf, -math.inf], math.nan),
    ([math.nan, 1.0], math.nan),
])
def test_edge_cases(terms: list[float], want: float) -> None:
    frame = pl.DataFrame({"t": terms})
    for got in (exact_means(frame.lazy(), [], {"m": Mean(pl.col("t"))}).collect().item(),
                frame.select(exact_mean(pl.col("t"))).item()):
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def test_a_sum_past_the_largest_double_is_infinite() -> None:
    frame = pl.DataFrame({"t": [BIG, BIG, BIG, -BIG], "w": [0.25, 0.25, 0.25, 0.25]})
    mean = Mean(pl.col("t"), pl.col("w"))  # (2 BIG) / 1: past the largest double
    assert exact_means(frame.lazy(), [], {"m": mean}).collect().item() == math.inf
    neg = frame.with_columns(-pl.col("t"))
    assert neg.select(exact_mean(pl.col("t"), pl.col("w"))).item() == -math.inf


def test_non_finite_weights_and_zero_denominators() -> None:
    frame = pl.DataFrame({"g": [1, 1, 2, 2, 3], "t": [1.0, 2.0, 1.0, 2.0, 1.0],
                          "w": [math.inf, 1.0, 0.0, 0.0, math.nan]})
    got = exact_means(frame.lazy(), ["g"], {"m": Mean(pl.col("t") * pl.col("w"), pl.col("w"))}).collect()
    values = dict(got.sort("g").iter_rows())
    assert math.isnan(values[1])  # inf / inf
    assert values[2] is None  # weights summing to 0: null
    assert math.isnan(values[3])
    agg = frame.group_by("g").agg(exact_mean(pl.col("t") * pl.col("w"), pl.col("w")).alias("m"))
    kinds = [pl.col("m").is_nan().alias("nan"), pl.col("m").is_null().alias("null")]
    assert agg.sort("g").select(kinds).equals(got.sort("g").select(kinds))


def test_no_rows() -> None:
    empty = pl.DataFrame({"g": [], "t": []}, schema={"g": pl.Int64, "t": pl.Float64})
    assert exact_means(empty.lazy(), [], {"m": Mean(pl.col("t"))}, count="n").collect().rows() == [(None, 0)]
    assert exact_means(empty.lazy(), ["g"], {"m": Mean(pl.col("t"))}).collect().height == 0
    assert empty.select(exact_mean(pl.col("t"))).item() is None
    kept = pl.DataFrame({"g": [1, 1, 2], "t": [1.0, 2.0, 3.0]})
    agg = kept.group_by("g").agg(exact_mean(pl.col("t").filter(pl.col("g") == 2)).alias("m")).sort("g")
    assert agg["m"].to_list() == [None, 3.0]


def test_group_keys_of_any_kind_are_kept() -> None:
    frame = pl.DataFrame({"s": ["x", None, "x", "y"], "c": ["a", "b", "a", "b"], "t": [1.0, 2.0, 3.0, 4.0]})
    frame = frame.with_columns(pl.col("c").cast(pl.Categorical))
    got = exact_means(frame.lazy(), ["s", "c"], {"m": Mean(pl.col("t"))}).collect()
    assert got.schema == pl.Schema({"s": pl.String, "c": frame.schema["c"], "m": pl.Float64})
    want = [("x", "a", 2.0), (None, "b", 2.0), ("y", "b", 4.0)]
    assert sorted(got.rows(), key=str) == sorted(want, key=str)


@pytest.mark.parametrize("seed", [1, 2])
def test_weighted_means_from_one_group_by_of_both_top_bits(seed: int) -> None:
    """A weighted mean's terms and weights share one group-by of (group, top bits of each): weights of
    hundreds of exponents, zeros and subnormals, every group's parts then added up per column; the row
    counts and integer sums beside them once per group, not once per pair of top bits."""
    frame = _wide(4000, seed).with_columns(
        pl.Series("w", np.random.default_rng(seed).random(4000) * 2.0 ** np.random.default_rng(seed).integers(
            -1074, 1, 4000)), pl.col("g").cast(pl.String).replace({"3": None}), pl.lit(3).alias("i"),
    )
    frame = frame.with_columns(pl.when(pl.col("t") > 0).then(0.0).otherwise(pl.col("w")).alias("w"))
    t, w = pl.col("t"), pl.col("w")
    got = exact_means(frame.lazy(), ["g"], {"m": Mean(t * w, w), "u": Mean(t, None, 2)}, count="n",
                      sums={"s": pl.col("i")}).collect()
    for (g,), part in frame.group_by("g"):
        ts, ws = part["t"].to_list(), part["w"].to_list()
        row = got.filter(pl.col("g").eq_missing(g)).row(0, named=True)
        assert row["m"] == _reference([a * b for a, b in zip(ts, ws, strict=True)], ws)
        assert row["u"] == _reference(ts, None, 2)
        assert (row["n"], row["s"]) == (part.height, 3 * part.height)
    assert got.height == 4
