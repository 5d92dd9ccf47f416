"""Agreement measures (issue 13): Cohen's kappa with linear and quadratic weights, and
scikit-learn's classification_report as a frame; against scikit-learn per group."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C

TOL = 1e-12


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def labelled(seed: int, n: int = 300, kind: str = "str") -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    a = rng.choice(k, n, p=rng.dirichlet([1.5] * k))
    b = np.clip(a + rng.choice([-2, -1, 0, 0, 0, 1, 2], n), 0, k - 1)
    names = np.array(["ant", "bee", "cat", "dog", "eel"])
    y, yhat = (names[a], names[b]) if kind == "str" else (a, b) if kind == "int" else (a == 0, b == 0)
    w = np.round(rng.random(n) * 2, 3) * (rng.random(n) < 0.9)
    g = rng.integers(0, 3, n)
    g[(a == k - 1) & (g == 2)] = 1  # group 2 lacks the last class
    return pl.DataFrame({"g": g, "y": y, "yhat": yhat, "w": w})


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_is_scikit_learns(seed: int, weights: str) -> None:
    df = labelled(seed, kind="str" if seed % 2 else "int")
    name = f"kappa(weights={weights})"
    frame = df.ireval.rates("y", "yhat", by="g", metrics=[name], average="macro", shape="wide")
    frame_w = df.ireval.rates("y", "yhat", by="g", metrics=[name, "kappa"], average="micro", weight="w",
                              shape="wide")
    exprs = df.group_by("g").agg(
        C.cohen_kappa("y", "yhat", weights=weights, average="macro").alias("plain"),
        C.cohen_kappa("y", "yhat", weights=weights, average="macro", weight="w").alias("weighted"),
    ).sort("g")
    for (g,), part in df.partition_by("g", as_dict=True).items():
        a, b, w = part["y"].to_numpy(), part["yhat"].to_numpy(), part["w"].to_numpy()
        want = skm.cohen_kappa_score(a, b, weights=weights)
        want_w = skm.cohen_kappa_score(a, b, weights=weights, sample_weight=w)
        got = frame.filter(pl.col("g") == g)[name][0]
        row = exprs.filter(pl.col("g") == g).row(0, named=True)
        row_w = frame_w.filter(pl.col("g") == g).row(0, named=True)
        for value, oracle in ((got, want), (row["plain"], want), (row["weighted"], want_w),
                              (row_w[name], want_w)):
            assert (value is None and math.isnan(oracle)) or abs(value - oracle) <= TOL, (g, value, oracle)
        assert abs(row_w["kappa"] - skm.cohen_kappa_score(a, b, sample_weight=w)) <= TOL
    assert frame["g"].to_list() == sorted(frame["g"].to_list())


def test_weighted_kappa_of_two_classes_is_the_plain_kappa() -> None:
    df = labelled(3, kind="bool")
    plain = df.select(C.cohen_kappa("y", "yhat")).item()
    for weights in ("linear", "quadratic"):
        assert df.select(C.cohen_kappa("y", "yhat", weights=weights)).item() == plain
        want = skm.cohen_kappa_score(df["y"].to_numpy(), df["yhat"].to_numpy(), weights=weights)
        assert abs(plain - want) <= TOL
    with pytest.raises(ValueError, match=r"weights='cubic' is not one of \['none', 'linear', 'quadratic'\]"):
        C.cohen_kappa("y", "yhat", weights="cubic")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["str", "int", "bool"])
def test_classification_report_is_scikit_learns(seed: int, kind: str) -> None:
    df = labelled(seed, kind=kind)
    weighted = seed % 2 == 1
    report = df.ireval.classification_report("y", "yhat", by="g", zero_division=0,
                                             weight="w" if weighted else None)
    assert report.columns == ["g", "class", "precision", "recall", "f1-score", "support"]
    assert report.schema["support"] == (pl.Float64 if weighted else pl.Int64)
    for (g,), part in df.partition_by("g", as_dict=True).items():
        a, b = part["y"].to_numpy(), part["yhat"].to_numpy()
        sw = part["w"].to_numpy() if weighted else None
        want = skm.classification_report(a, b, output_dict=True, zero_division=0, sample_weight=sw)
        ours = report.filter(pl.col("g") == g)
        assert ours["class"].to_list() == list(want)
        for row in ours.iter_rows(named=True):
            theirs = want[row["class"]]
            if row["class"] == "accuracy":
                assert abs(row["f1-score"] - theirs) <= TOL
                assert row["precision"] is None and row["recall"] is None
                continue
            for key in ("precision", "recall", "f1-score", "support"):
                assert abs(row[key] - theirs[key]) <= TOL, (g, row["class"], key, row[key], theirs[key])


def test_classification_report_lazy_shuffled_pandas() -> None:
    df = labelled(5, n=2000)
    report = df.ireval.classification_report("y", "yhat", by="g", weight="w")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=2)
    assert shuffled.lazy().ireval.classification_report("y", "yhat", by="g", weight="w").collect(
        engine="streaming").equals(report)
    got = df.to_pandas().ireval.classification_report("y", "yhat", by="g", weight="w")
    pd.testing.assert_frame_equal(got, report.to_pandas())
    bad = df.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(None).otherwise(pl.col("yhat"))
                          .alias("yhat"))
    with pytest.raises(ValueError, match=r"null values in predictions column 'yhat' \(first at row 4"):
        bad.ireval.classification_report("y", "yhat")
