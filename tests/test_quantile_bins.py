"""Quantile calibration bins (bucket counts, the rows of a few buckets sorted) against NumPy's percentiles."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from frame_eval.classification import quantile_bins as module
from frame_eval.classification.calibration import calibration_bins


def _frame(rows: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(rows), 2)  # ties, values on the edges
    p[rng.random(rows) < 0.05] = 0.0
    p[rng.random(rows) < 0.02] = -0.0
    p[rng.random(rows) < 0.05] = 1.0
    return pl.DataFrame({
        "g": rng.choice(["a", "b", "c", "d", "e"], rows), "h": rng.integers(0, 2, rows),
        "y": rng.random(rows) < 0.4, "p": p,
    })


def _reference(frame: pl.DataFrame, keys: list[str], n_bins: int, strategy: str = "quantile") -> pl.DataFrame:
    rows = []
    parts = frame.group_by(keys) if keys else [((), frame)]
    for key, part in parts:
        p, y = part["p"].to_numpy(), part["y"].to_numpy()
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        if strategy == "quantile":
            edges = np.percentile(p, edges * 100)
        which = np.searchsorted(edges[1:-1], p, side="left")
        for b in np.unique(which):
            inside = which == b
            total = sum((Fraction(float(v)) for v in p[inside]), Fraction(0))
            n = int(inside.sum())
            rows.append((*key, int(b), n, float(total / n), int(y[inside].sum()) / n))
    schema = {**{k: frame.schema[k] for k in keys}, "bin": pl.Int64, "count": pl.Int64,
              "mean_predicted": pl.Float64, "fraction_positive": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row").sort([*keys, "bin"])


@pytest.mark.parametrize("keys", [[], ["g"], ["g", "h"]])
@pytest.mark.parametrize(("rows", "n_bins"), [(1, 3), (7, 4), (3000, 10), (3000, 7)])
def test_bins_are_numpys(keys: list[str], rows: int, n_bins: int) -> None:
    frame = _frame(rows, rows + n_bins)
    want = _reference(frame, keys, n_bins)
    for order in range(2):
        shuffled = frame.sample(fraction=1.0, shuffle=True, seed=order).lazy()
        for engine in ("in-memory", "streaming"):
            got = calibration_bins(shuffled, keys, "y", "p", n_bins, "quantile").collect(engine=engine)  # type: ignore[call-overload]
            assert got.equals(want)


def test_keys_sharing_a_hash_are_numbered_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(2000, 3)
    want = _reference(frame, ["g", "h"], 5)
    monkeypatch.setattr(module, "keys_hash", lambda keys: pl.lit(7, pl.UInt64))  # every group one hash
    got = calibration_bins(frame.lazy(), ["g", "h"], "y", "p", 5, "quantile").collect()
    assert got.equals(want)


@pytest.mark.parametrize("bits", [0, 1, 20])
def test_any_bucket_width(monkeypatch: pytest.MonkeyPatch, bits: int) -> None:
    # 0: a bucket per exponent (many rows taken again, several edges in one bucket); 20: nearly a bucket
    # per value (edges between buckets, in empty ones, or alone in theirs)
    monkeypatch.setattr(module, "_K", bits)
    for seed, rows in ((1, 3000), (2, 5), (3, 40)):
        frame = _frame(rows, seed)
        frame = frame.with_columns(pl.col("p") * 0.37 + 0.5 ** (seed * 7))  # values over several exponents
        for n_bins in (2, 10, 60):  # 60: more bins than some groups have rows
            got = calibration_bins(frame.lazy(), ["g"], "y", "p", n_bins, "quantile").collect()
            assert got.equals(_reference(frame, ["g"], n_bins)), (seed, n_bins)


@pytest.mark.parametrize("value", [0.0, -0.0, 0.3, 1.0, 5e-324])
def test_every_probability_equal(value: float) -> None:
    frame = pl.DataFrame({"g": ["a"] * 500 + ["b"] * 3, "y": [True, False] * 251 + [True]})
    frame = frame.with_columns(pl.lit(value, pl.Float64).alias("p"))
    want = _reference(frame, ["g"], 10)
    assert want.height == 2  # (each group one bin: every edge equals the value, no value above one)
    for engine in ("in-memory", "streaming"):
        got = calibration_bins(frame.lazy(), ["g"], "y", "p", 10, "quantile").collect(engine=engine)  # type: ignore[call-overload]
        assert got.equals(want)


def test_ties_at_the_edges() -> None:
    # a few distinct values, so nearly every edge is a value many rows hold: those rows go to the lower bin
    rng = np.random.default_rng(5)
    frame = pl.DataFrame({
        "g": rng.choice(["a", "b"], 4000), "y": rng.random(4000) < 0.3,
        "p": rng.choice([0.1, 0.25, 0.5, 0.5000000000000001, 0.75], 4000),
    })
    for n_bins in (3, 4, 10):
        got = calibration_bins(frame.lazy(), ["g"], "y", "p", n_bins, "quantile").collect()
        assert got.equals(_reference(frame, ["g"], n_bins))


def test_blocks_sharing_a_number_are_numbered_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # hashes 1, 2, 3, ... differ, but a block is the hash xor the bucket: (a, 2k + 1) and (b, 2k)
    # share one, so the groups are numbered by a join instead
    frame = _frame(3000, 6)
    want = _reference(frame, ["g"], 10)
    monkeypatch.setattr(module, "keys_hash", lambda keys: pl.col(keys[0]).rank("dense").cast(pl.UInt64))
    got = calibration_bins(frame.lazy(), ["g"], "y", "p", 10, "quantile").collect()
    assert got.equals(want)


def test_rows_not_found_by_hash_are_numbered_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # the rows' hashes disagree with the group table's (as if hashing were not the same for both: here
    # it depends on the frame's length): the rows found fall short of the buckets' counts, so the groups
    # are numbered by a join instead
    frame = _frame(2000, 4)
    want = _reference(frame, ["g"], 5)
    by_length = pl.len().cast(pl.UInt64) * pl.lit(1 << 40, pl.UInt64)
    monkeypatch.setattr(module, "keys_hash", lambda keys: pl.col(keys[0]).hash() // 2 + by_length)
    got = calibration_bins(frame.lazy(), ["g"], "y", "p", 5, "quantile").collect()
    assert got.equals(want)


@pytest.mark.parametrize("n_bins", [1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 300])
def test_uniform_bins_are_numpys(n_bins: int) -> None:
    # values on the edges and one step either side of them (300 bins: the bin counted in 16 bits; around
    # powers of two: the bits of the bin read off the comparisons)
    frame = _frame(3000, n_bins)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    near = np.concatenate([edges, np.nextafter(edges, 2.0), np.nextafter(edges, -1.0)])
    near = near[(near >= 0.0) & (near <= 1.0)]
    frame = pl.concat([frame, pl.DataFrame({
        "g": ["a"] * near.size, "h": [0] * near.size, "y": [True] * near.size, "p": near,
    })])
    want = _reference(frame, ["g"], n_bins, "uniform")
    for order in range(2):
        shuffled = frame.sample(fraction=1.0, shuffle=True, seed=order).lazy()
        for engine in ("in-memory", "streaming"):
            got = calibration_bins(shuffled, ["g"], "y", "p", n_bins, "uniform").collect(engine=engine)  # type: ignore[call-overload]
            assert got.equals(want)


def test_no_rows() -> None:
    frame = _frame(10, 0).head(0)
    for keys in ([], ["g"]):
        got = calibration_bins(frame.lazy(), keys, "y", "p", 5, "quantile").collect()
        assert got.height == 0
        assert got.columns == [*keys, "bin", "count", "mean_predicted", "fraction_positive"]
