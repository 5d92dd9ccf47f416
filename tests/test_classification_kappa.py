"""Cohen's kappa (unweighted) against scikit-learn's cohen_kappa_score (issue 13)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C


@pytest.mark.parametrize("seed", range(10))
def test_kappa_binary_and_multi_class_per_group(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 500))
    k = int(rng.integers(2, 6))
    a = rng.choice(k, n)
    b = np.where(rng.random(n) < 0.5, a, rng.choice(k, n))
    labels = np.array(["ant", "bee", "cat", "dog", "eel"])
    df = pl.DataFrame({"g": rng.integers(0, 3, n), "y": labels[a], "yhat": labels[b],
                       "yb": a == 0, "yhatb": b == 0})
    multi = df.ireval.rates("y", "yhat", by="g", metrics=["Cohen's kappa"], average="macro")
    binary = df.ireval.rates("yb", "yhatb", by="g", metrics=["kappa"])
    expr = df.group_by("g").agg(C.cohen_kappa("y", "yhat", average="micro"), C.cohen_kappa("yb", "yhatb")
                                .alias("binary")).sort("g")
    for (g,), part in df.partition_by("g", as_dict=True).items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = skm.cohen_kappa_score(part["y"].to_numpy(), part["yhat"].to_numpy())
            theirs_b = skm.cohen_kappa_score(part["yb"].to_numpy(), part["yhatb"].to_numpy())
        ours = multi.filter(pl.col("g") == g)["value"][0]
        ours_b = binary.filter(pl.col("g") == g)["value"][0]
        row = expr.filter(pl.col("g") == g).row(0, named=True)
        pairs = ((ours, theirs), (row["kappa"], theirs), (ours_b, theirs_b), (row["binary"], theirs_b))
        for got, want in pairs:
            if math.isnan(want):
                assert got is None
            else:
                assert got == pytest.approx(want, rel=0, abs=1e-15)


def test_kappa_undefined_when_both_sides_have_one_class() -> None:
    df = pl.DataFrame({"y": ["a", "a"], "yhat": ["a", "a"]})
    assert df.select(C.cohen_kappa("y", "yhat", average="macro")).item() is None
    assert df.select(C.cohen_kappa("y", "yhat", average="macro", zero_division=0)).item() == 0.0
