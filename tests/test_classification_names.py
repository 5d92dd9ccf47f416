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
