"""``.ireval.scores``: ROC AUC, average precision, PR AUC and EER of many groups from one sort each."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C

ALL = ["ROC_AUC", "average_precision", "PR_AUC", "EER"]


def _random(seed: int, n: int, groups: int, decimals: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "model": rng.choice([f"m{i}" for i in range(groups)], n),
            "label": rng.random(n) < rng.uniform(0.05, 0.9),
            "prob": np.round(rng.random(n), decimals),  # few decimals: many ties
        }
    )


def _wide(long: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return long.pivot("metric", index=keys, values="value") if keys else long.transpose(
        column_names="metric"
    )


@pytest.mark.parametrize("seed", range(12))
def test_matches_scikit_learn_per_group(seed: int) -> None:
    n = int(np.random.default_rng(seed).integers(20, 800))
    preds = _random(seed, n=n, groups=4, decimals=seed % 3 + 1)
    got = _wide(preds.ireval.scores("label", "prob", by="model"), ["model"])
    for (model,), part in preds.partition_by("model", as_dict=True).items():
        row = got.filter(pl.col("model") == model).row(0, named=True)
        y, s = part["label"].to_numpy(), part["prob"].to_numpy()
        if y.all() or not y.any():
            assert row["ROC_AUC"] is None and row["EER"] is None
        else:
            assert row["ROC_AUC"] == pytest.approx(skm.roc_auc_score(y, s), abs=1e-12)
        if y.any():
            assert row["average_precision"] == pytest.approx(skm.average_precision_score(y, s), abs=1e-12)
            precision, recall, _ = skm.precision_recall_curve(y, s)
            assert row["PR_AUC"] == pytest.approx(skm.auc(recall, precision), abs=1e-12)
        else:
            assert row["average_precision"] is None and row["PR_AUC"] is None


@pytest.mark.parametrize("seed", range(6))
def test_equals_the_expressions(seed: int) -> None:
    preds = _random(100 + seed, n=400, groups=3, decimals=2)
    got = _wide(preds.ireval.scores("label", "prob", by="model"), ["model"]).sort("model")
    expected = preds.group_by("model").agg(
        C.roc_auc("label", "prob"), C.average_precision("label", "prob"), C.pr_auc("label", "prob"),
        C.equal_error_rate("label", "prob"),
    ).sort("model")
    for name in ALL:  # the same terms summed in the same order: the same bits
        assert got[name].equals(expected[name]), name


def test_large_groups_do_not_overflow() -> None:
    """2 P N passes 2**32 here (P = N = 50,000): the counts must not stay in polars' UInt32."""
    label = np.arange(100_000) % 2 == 0
    prob = np.round(np.random.default_rng(7).random(100_000) * 0.5 + label * 0.3, 3)
    preds = pl.DataFrame({"model": ["m"] * 100_000, "label": label, "prob": prob})
    got = _wide(preds.ireval.scores("label", "prob", by="model", metrics=["ROC_AUC"]), ["model"])
    assert got["ROC_AUC"][0] == pytest.approx(skm.roc_auc_score(label, prob), abs=1e-12)
    assert got["ROC_AUC"][0] == preds.select(C.roc_auc("label", "prob")).item()


def test_shapes_lazy_pandas_and_no_groups() -> None:
    preds = _random(7, n=300, groups=3, decimals=2)
    eager = preds.ireval.scores("label", "prob", by="model")
    assert eager.columns == ["model", "metric", "value"]
    assert eager.height == 3 * len(ALL)
    assert eager["metric"].to_list()[:4] == ALL
    lazy = preds.lazy().ireval.scores("label", "prob", by="model")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    pandas = preds.to_pandas().ireval.scores("label", "prob", by="model")
    assert pl.from_pandas(pandas).equals(eager)
    overall = preds.ireval.scores("label", "prob", metrics=["AUC", "AP"])
    assert overall.columns == ["metric", "value"]
    assert overall["value"][0] == pytest.approx(skm.roc_auc_score(preds["label"], preds["prob"]), abs=1e-12)
    assert overall["value"][1] == pytest.approx(
        skm.average_precision_score(preds["label"], preds["prob"]), abs=1e-12
    )


def test_one_vs_rest_and_best_threshold() -> None:
    rng = np.random.default_rng(5)
    n = 240
    preds = pl.DataFrame(
        {
            "species": rng.choice(["cat", "dog", "owl"], n),
            **{f"p_{c}": rng.random(n) for c in ("cat", "dog", "owl")},
        }
    )
    got = preds.ireval.scores("species", {"cat": "p_cat", "dog": "p_dog", "owl": "p_owl"}, metrics=["AUC"])
    assert got.columns == ["class", "metric", "value"]
    for label in ("cat", "dog", "owl"):
        y = (preds["species"] == label).to_numpy()
        value = got.filter(pl.col("class") == label)["value"][0]
        assert value == pytest.approx(skm.roc_auc_score(y, preds[f"p_{label}"].to_numpy()), abs=1e-12)
    best = _random(9, 200, 1, 2).ireval.scores("label", "prob", metrics=["best_threshold(criterion=f1)"])
    expected = _random(9, 200, 1, 2).select(C.best_threshold("label", "prob", criterion="f1")).item()
    assert best["value"][0] == expected


def test_errors_and_inputs_untouched() -> None:
    preds = _random(1, 50, 2, 2)
    before = preds.clone()
    with pytest.raises(ValueError, match="rates"):
        preds.ireval.scores("label", "prob", metrics=["recall"])
    with pytest.raises(ValueError, match="scores"):
        preds.ireval.rates("label", "label", metrics=["AUC"])
    with pytest.raises(ValueError, match="'prob'"):
        preds.with_columns(pl.lit(None, pl.Float64).alias("prob")).ireval.scores("label", "prob")
    with pytest.raises(ValueError, match="score range"):
        preds.with_columns(pl.col("prob") * 2).ireval.scores("label", "prob", score_range=(0, 1))
    assert preds.equals(before)
