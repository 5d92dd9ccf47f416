"""Regression cases found (or probed) by random differential testing of the speed paths.

Each case is a small frame the fuzzers under the session's scratch directory
reduced to: edge values (-0.0 beside 0.0, subnormals, probabilities exactly 0
and 1, all-equal probabilities, k at least the number of classes, tiny weights)
checked against scikit-learn or against the measure's definition.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import classification as C

skm = pytest.importorskip("sklearn.metrics")
calibration = pytest.importorskip("sklearn.calibration")


def test_weighted_min_recall_with_a_subnormal_positive_weight() -> None:
    """The bound is compared with the rate as reported (count / total): bound * total underflowed to 0."""
    # one positive of weight 5e-324 (the smallest double) scored 0.25, one negative of weight 1 scored 1
    frame = pl.DataFrame({"y": [True, False], "s": [0.25, 1.0], "w": [5e-324, 1.0]})
    row = frame.ireval.best_threshold("y", "s", min_recall=0.5, criterion="specificity", weight="w").row(
        0, named=True
    )
    assert row["recall"] is None or row["recall"] >= 0.5, row
    assert row["threshold"] == 0.25


def test_weighted_max_fpr_with_one_subnormal_negative() -> None:
    """0.9 * 5e-324 rounds up to 5e-324: the FPR as reported (1) is what is compared."""
    frame = pl.DataFrame({"y": [False], "s": [0.0], "w": [5e-324]})
    best = frame.ireval.best_threshold("y", "s", max_fpr=0.9, criterion="accuracy", weight="w")
    assert best["threshold"][0] is None, best.row(0, named=True)


def test_weighted_max_fpr_with_a_subnormal_negative_weight() -> None:
    # every threshold predicts the negative positive (FPR 1 > 1/3): nothing meets max_fpr
    frame = pl.DataFrame({"y": [False, True], "s": [1.0, 0.25], "w": [5e-324, 1.0]})
    best = frame.ireval.best_threshold("y", "s", max_fpr=1 / 3, criterion="recall", weight="w")
    row = best.row(0, named=True)
    assert row["threshold"] is None


def test_scores_zero_and_negative_zero_tie_as_scikit_learn() -> None:
    y = [True, False, True, False, True, False]
    s = [0.0, -0.0, -0.0, 0.0, 5e-324, 0.0]
    frame = pl.DataFrame({"y": y, "s": s})
    got = dict(frame.ireval.scores("y", "s", metrics=["ROC_AUC", "AP"]).iter_rows())
    assert got["ROC_AUC"] == skm.roc_auc_score(y, s)
    assert got["average_precision"] == skm.average_precision_score(y, s)
    agg = frame.select(C.roc_auc("y", "s"), C.average_precision("y", "s").alias("ap")).row(0)
    assert agg == (got["ROC_AUC"], got["average_precision"])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 3, 50])
def test_calibration_of_probabilities_exactly_0_and_1_and_ties(strategy: str, n_bins: int) -> None:
    p = [0.0, 0.0, 1.0, 1.0, 0.5, 0.5, 0.5, 5e-324, 1 - 2**-53, 0.1]
    y = [0, 1, 1, 1, 0, 1, 0, 0, 1, 0]
    frame = pl.DataFrame({"y": y, "p": p})
    bins = frame.ireval.calibration("y", "p", n_bins=n_bins, strategy=strategy).sort("bin")
    prob_true, prob_pred = calibration.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    assert bins["fraction_positive"].to_list() == prob_true.tolist()
    assert np.allclose(bins["mean_predicted"].to_numpy(), prob_pred, rtol=0, atol=1e-12)


def test_quantile_ece_of_all_equal_probabilities() -> None:
    frame = pl.DataFrame({"y": [1, 0, 0, 1, 1], "p": [0.3] * 5})
    value = frame.ireval.probabilities("y", "p", metrics=["ECE(n_bins=4, strategy=quantile)"])["value"][0]
    assert value == pytest.approx(abs(0.3 - 0.6), abs=1e-12)


@pytest.mark.parametrize("k", [3, 4])
def test_top_k_at_least_the_classes_is_one(k: int) -> None:
    frame = pl.DataFrame({
        "y": ["a", "b", "c", "c"],
        "pa": [1.0, 0.0, 0.2, 1 / 3], "pb": [0.0, 0.0, 0.3, 1 / 3], "pc": [0.0, 1.0, 0.5, 1 / 3],
    })
    mapping = {"a": "pa", "b": "pb", "c": "pc"}
    value = frame.ireval.scores("y", mapping, metrics=[f"top_k_accuracy(k={k})"], average="macro")["value"][0]
    assert value == 1.0
    assert frame.select(C.top_k_accuracy("y", mapping, k=k)).item() == 1.0


def test_top_k_ties_and_one_hot_rows_as_scikit_learn() -> None:
    p = np.array([[0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0], [0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 0.5, 0.5]])
    y = [0, 3, 0, 2]
    frame = pl.DataFrame({"y": y, **{f"p{j}": p[:, j] for j in range(4)}})
    mapping = {j: f"p{j}" for j in range(4)}
    for k in (1, 2, 3):
        got = frame.ireval.scores("y", mapping, metrics=[f"top_k_accuracy(k={k})"], average="macro")
        assert got["value"][0] == skm.top_k_accuracy_score(y, p, k=k, labels=[0, 1, 2, 3])


def test_multiclass_brier_of_one_hot_and_uniform_rows() -> None:
    p = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 1 / 3], [0.0, 0.0, 1.0]])
    y = ["a", "a", "c", "c"]
    frame = pl.DataFrame({"y": y, "pa": p[:, 0], "pb": p[:, 1], "pc": p[:, 2]})
    got = frame.ireval.probabilities("y", {"a": "pa", "b": "pb", "c": "pc"}, metrics=["brier"])["value"][0]
    want = skm.brier_score_loss(y, p, labels=["a", "b", "c"])
    assert abs(got - want) <= 1e-12


def test_top_k_of_two_classes_tied_at_one_half_as_scikit_learn() -> None:
    """scikit-learn's binary path (the second class only above 0.5): a tie of two classes is the first's."""
    frame = pl.DataFrame({"y": [0, 0, 1], "p0": [0.5, 0.5, 0.5], "p1": [0.5, 0.5, 0.5]})
    got = frame.ireval.scores("y", {0: "p0", 1: "p1"}, metrics=["top_k_accuracy(k=1)"], average="macro")
    want = skm.top_k_accuracy_score([0, 0, 1], [0.5, 0.5, 0.5], k=1, labels=[0, 1])
    assert want == 2 / 3
    assert got["value"][0] == want
    rng = np.random.default_rng(7)  # many rows at 0.5 and at other ties, p0 = 1 - p1 as a classifier gives
    p1 = rng.choice([0.0, 0.25, 0.5, 0.5, 0.5, 0.75, 1.0, 0.1 + 0.2], size=400)
    y = rng.integers(0, 2, size=400)
    frame = pl.DataFrame({"y": y, "p0": 1.0 - p1, "p1": p1})
    got = frame.ireval.scores("y", {0: "p0", 1: "p1"}, metrics=["top_k_accuracy(k=1)"], average="macro")
    expr = frame.select(C.top_k_accuracy("y", {0: "p0", 1: "p1"}, k=1)).item()
    want = skm.top_k_accuracy_score(y, p1, k=1, labels=[0, 1])
    assert got["value"][0] == expr == want


@pytest.mark.parametrize("criterion", ["accuracy", "f1", "youden"])
def test_best_threshold_of_groups_sharing_a_hash_reads_negative_zero_as_zero(
    monkeypatch: pytest.MonkeyPatch, criterion: str
) -> None:
    """Groups whose keys share a hash are measured one group at a time; their thresholds read -0.0 as
    0.0 too, as every other group's (found with every group's hash made one)."""
    from frame_eval.classification import packed_points

    frame = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "y": [True, False, True, False], "s": [0.0, -0.0, 0.5, -0.0]}
    )
    want = frame.ireval.best_threshold("y", "s", by="g", criterion=criterion).sort("g")
    monkeypatch.setattr(packed_points, "keys_hash", lambda keys: pl.lit(12345 << 40, pl.UInt64))
    got = frame.ireval.best_threshold("y", "s", by="g", criterion=criterion).sort("g")
    assert want["threshold"][0] == 0.0
    assert got.to_numpy().tolist() == want.to_numpy().tolist()
    assert got["threshold"].to_numpy().view("u8").tolist() == want["threshold"].to_numpy().view("u8").tolist()
