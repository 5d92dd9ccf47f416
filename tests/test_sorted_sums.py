"""sorted_sums (every group's sorted terms from one sort) against the sort-and-pairwise_sum aggregation."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from frame_eval._float import pairwise_sum
from frame_eval.classification import sorted_sums as module
from frame_eval.classification.sorted_sums import COUNT, SUM, sorted_sums


def _frame(rows: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    # ties, zeros, and values of very different sizes (the order of addition shows in the bits)
    t = np.round(rng.exponential(1.0, rows), 3) * 10.0 ** rng.integers(-8, 8, rows)
    t[rng.random(rows) < 0.05] = 0.0
    return pl.DataFrame({
        "g": rng.choice(["a", "b", "c", "d"], rows), "h": rng.integers(0, 3, rows), "t": t,
    })


def _want(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    aggs = [pairwise_sum(pl.col("t").sort()).alias(SUM), pl.len().cast(pl.Int64).alias(COUNT)]
    return frame.group_by(by).agg(aggs).sort(by) if by else frame.select(aggs)


@pytest.mark.parametrize("by", [[], ["g"], ["g", "h"]])
@pytest.mark.parametrize("rows", [5, 700, 20000])
def test_sorted_sums_are_the_aggregations_bits(by: list[str], rows: int) -> None:
    frame = _frame(rows, rows)
    want = _want(frame, by)
    for shuffled in (frame, frame.sample(fraction=1.0, shuffle=True, seed=1)):
        for engine in ("in-memory", "streaming"):
            got = sorted_sums(shuffled.lazy(), by, pl.col("t")).collect(engine=engine)
            assert (got.sort(by) if by else got).equals(want)


def test_keys_sharing_a_hash_are_numbered_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(3000, 3)
    want = _want(frame, ["g", "h"])
    monkeypatch.setattr(module, "keys_hash", lambda keys: pl.lit(7, pl.UInt64))  # every group one hash
    got = sorted_sums(frame.lazy(), ["g", "h"], pl.col("t")).collect()
    assert got.sort("g", "h").equals(want)


def test_no_rows() -> None:
    frame = _frame(10, 0).head(0)
    assert sorted_sums(frame.lazy(), [], pl.col("t")).collect().rows() == [(0.0, 0)]
    assert sorted_sums(frame.lazy(), ["g"], pl.col("t")).collect().height == 0
