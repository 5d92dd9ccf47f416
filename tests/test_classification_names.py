"""Names users bring (issue 13): FAR, FRR, type I and II error, success rate, F(beta=inf)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval as fe
from frame_eval import classification as C


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("FAR", "FPR"), ("false_acceptance_rate", "FPR"), ("type_I_error", "FPR"), ("type I error", "FPR"),
     ("FRR", "FNR"), ("false_rejection_rate", "FNR"), ("type_II_error", "FNR"), ("type II error", "FNR"),
     ("success_rate", "accuracy"), ("success rate", "accuracy"), ("hit rate", "recall")],
)
def test_names_resolve_to_their_measure(name: str, canonical: str) -> None:
    (m,) = fe.parse_measures(name, kind="classification")
    assert m.name == canonical


def test_f_beta_infinite_is_recall_as_in_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.random(200) < 0.3, rng.random(200) < 0.4
    df = pl.DataFrame({"y": a, "yhat": b})
    got = dict(df.ireval.rates("y", "yhat", metrics=["F(beta=inf)", "recall"]).rows())
    assert got["Finf"] == got["recall"] == skm.fbeta_score(a, b, beta=np.inf)
    assert df.select(C.fbeta("y", "yhat", beta=float("inf"))).item() == skm.recall_score(a, b)
    for bad in (-1.0, float("nan"), float("-inf")):
        with pytest.raises(ValueError, match="beta must be a number >= 0"):
            C.fbeta("y", "yhat", beta=bad)


@pytest.mark.parametrize("seed", range(10))
def test_det_curve_is_scikit_learns_per_group(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 400))
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    df = pl.DataFrame({"g": rng.integers(0, 4, n), "y": y,
                       "s": np.round(rng.random(n) * 0.6 + 0.3 * y, 1 + seed % 3)})
    df = df.with_columns(pl.when(pl.col("g") == 3).then(False).otherwise(pl.col("y")).alias("y"))  # one class
    det = df.ireval.det_curve("y", "s", by="g")
    assert det.columns == ["g", "threshold", "fp", "fn", "fpr", "fnr", "fpr_probit", "fnr_probit"]
    for (g,), part in df.partition_by("g", as_dict=True).items():
        ours = det.filter(pl.col("g") == g)
        a, s = part["y"].to_numpy(), part["s"].to_numpy()
        if a.all() or not a.any():
            assert ours.height == 0
            continue
        fpr, fnr, thresholds = skm.det_curve(a, s)
        np.testing.assert_array_equal(ours["threshold"].to_numpy(), thresholds)
        np.testing.assert_array_equal(ours["fpr"].to_numpy(), fpr)  # one division each: exact
        np.testing.assert_array_equal(ours["fnr"].to_numpy(), fnr)
    lazy = df.lazy().ireval.det_curve("y", "s", by="g")
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(det)
    alone = df.filter(pl.col("g") == 0)
    assert alone.ireval.det_curve("y", "s").equals(det.filter(pl.col("g") == 0).drop("g"))
