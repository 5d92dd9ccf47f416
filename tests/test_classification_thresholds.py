"""Rates at thresholds the user chooses (issue 13): score >= t (scikit-learn) or score > t (the textbook)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401

# a classifier's scores on the grid 0, 0.1, ..., 1 (scores on the grid make >= and > differ)
TEXTBOOK = pl.DataFrame({
    "y": [1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0],
    "s": [1.0, 0.9, 0.8, 0.7, 0.7, 0.5, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0],
})


@pytest.mark.parametrize("inclusive", [True, False])
def test_textbook_thresholds_zero_to_one(inclusive: bool) -> None:
    got = TEXTBOOK.ireval.rates("y", score="s", thresholds=11, inclusive=inclusive,
                                metrics=["TP", "FP", "FN", "TN", "TPR", "FPR"], shape="wide")
    assert got.columns == ["threshold", "TP", "FP", "FN", "TN", "recall", "FPR"]
    assert got["threshold"].to_list() == [i / 10 for i in range(11)]
    y, s = TEXTBOOK["y"].to_numpy(), TEXTBOOK["s"].to_numpy()
    for row in got.iter_rows(named=True):
        t = row["threshold"]
        said = s >= t if inclusive else s > t
        tn, fp, fn, tp = skm.confusion_matrix(y, said, labels=[0, 1]).ravel()
        assert (row["TP"], row["FP"], row["FN"], row["TN"]) == (tp, fp, fn, tn), t
        assert row["recall"] == tp / (tp + fn) and row["FPR"] == fp / (fp + tn)
    # at 0.7 the two rules differ: >= counts the two rows scored 0.7
    at = got.filter(pl.col("threshold") == 0.7).row(0, named=True)
    assert (at["TP"], at["FP"]) == ((4, 1) if inclusive else (3, 0))


@pytest.mark.parametrize("seed", range(5))
def test_every_rate_at_each_threshold_per_group_matches_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 500
    y = rng.random(n) < 0.3
    df = pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "s": np.round(rng.random(n), 2)})
    thresholds = [0.1, 0.25, 0.5, 0.75, 0.9]
    got = df.ireval.rates("y", score="s", thresholds=thresholds, by="g",
                          metrics=["precision", "recall", "F1", "accuracy", "MCC"], zero_division=0)
    assert got.columns == ["g", "threshold", "metric", "value"]
    for (g,), part in df.partition_by("g", as_dict=True).items():
        a, s = part["y"].to_numpy(), part["s"].to_numpy()
        for t in thresholds:
            b = s >= t
            here = got.filter((pl.col("g") == g) & (pl.col("threshold") == t))
            mine = dict(here.select("metric", "value").rows())
            assert mine["precision"] == skm.precision_score(a, b, zero_division=0)
            assert mine["recall"] == skm.recall_score(a, b, zero_division=0)
            assert mine["F1"] == skm.f1_score(a, b, zero_division=0)
            assert mine["accuracy"] == skm.accuracy_score(a, b)
            assert mine["MCC"] == skm.matthews_corrcoef(a, b)
    lazy = df.lazy().ireval.rates("y", score="s", thresholds=thresholds, by="g",
                                  metrics=["precision", "recall", "F1", "accuracy", "MCC"], zero_division=0)
    assert lazy.collect().equals(got)


def test_bad_thresholds_are_clear_errors() -> None:
    for bad, message in (([], r"thresholds=\[\] names no threshold"),
                         ([0.5, 0.2], r"must increase.*thresholds\[0\] = 0.5 and thresholds\[1\] = 0.2"),
                         ([0.2, 0.2], "without repeats"), ([float("nan")], "is NaN"), (1, "at least 2")):
        with pytest.raises(ValueError, match=message):
            TEXTBOOK.ireval.rates("y", score="s", thresholds=bad)
    with pytest.raises(TypeError, match="thresholds must be a list of numbers"):
        TEXTBOOK.ireval.rates("y", score="s", thresholds="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need both score= and thresholds="):
        TEXTBOOK.ireval.rates("y", score="s")
    with pytest.raises(TypeError, match="inclusive must be True"):
        TEXTBOOK.ireval.rates("y", score="s", thresholds=[0.5], inclusive="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ROC_AUC is not a count or rate at a threshold"):
        TEXTBOOK.ireval.rates("y", score="s", thresholds=[0.5], metrics=["AUC"])
