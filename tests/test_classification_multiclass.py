"""Multi-class scores from one probability column per class (issue 13): ROC AUC one-vs-rest and
one-vs-one, average precision per class and averaged, top-k accuracy; against scikit-learn per group."""

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
CLASSES = ["ant", "bee", "cat", "dog"]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def probabilities(
    seed: int, n: int = 300, k: int = 4, *, ties: bool = True
) -> tuple[pl.DataFrame, dict[str, str]]:
    """g (group), y (label), one probability column per class (rows add to 1), w (weights, some 0)."""
    rng = np.random.default_rng(seed)
    classes = CLASSES[:k]
    y = rng.choice(classes, n, p=rng.dirichlet([2] * k))
    y[:k] = classes  # every class in every group below (groups are taken as blocks of rows)
    raw = rng.dirichlet([1] * k, n) + 0.8 * (y[:, None] == np.array(classes)[None, :])
    if ties:
        raw = np.round(raw * 4) + 1  # coarse: many tied scores
    prob = raw / raw.sum(axis=1, keepdims=True)
    cols = {c: f"p_{c}" for c in classes}
    frame = {"g": np.arange(n) % 3, "y": y, "w": np.round(rng.random(n) * 2, 2) * (rng.random(n) < 0.9)}
    frame |= {f"p_{c}": prob[:, i] for i, c in enumerate(classes)}
    df = pl.DataFrame(frame)
    df = df.with_columns(pl.when(pl.int_range(pl.len()) < 3 * k).then(pl.lit(0)).otherwise(pl.col("g"))
                         .alias("g"))  # the first rows: group 0 again
    for g in range(3):  # make sure each group has each class
        extra = pl.DataFrame({"g": [g] * k, "y": classes, "w": [1.0] * k} | {
            f"p_{c}": [1.0 / k] * k for c in classes})
        df = pl.concat([df, extra.cast(df.schema)])
    return df, cols


def close(got: float | None, want: float) -> bool:
    if got is None:
        return math.isnan(want)
    return abs(got - want) <= TOL


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [3, 4])
def test_multiclass_roc_auc_ap_and_top_k_are_scikit_learns(seed: int, k: int) -> None:
    df, cols = probabilities(seed, k=k, ties=seed % 2 == 0)
    cases = [("ROC_AUC", "ovr", "macro"), ("ROC_AUC", "ovr", "weighted"), ("ROC_AUC", "ovr", "micro"),
             ("ROC_AUC", "ovo", "macro"), ("ROC_AUC", "ovo", "weighted"),
             ("average_precision", "ovr", "macro"), ("average_precision", "ovr", "weighted"),
             ("average_precision", "ovr", "micro")]
    results = {
        (name, mc, av): df.ireval.scores("y", cols, by="g", metrics=[name], average=av, multi_class=mc)
        for name, mc, av in cases
    }
    top = df.ireval.scores("y", cols, by="g", average="macro", shape="wide",
                           metrics=[f"top_k_accuracy(k={j})" for j in range(1, k + 1)])
    for (g,), part in df.partition_by("g", as_dict=True).items():
        y = part["y"].to_numpy()
        scores = part.select(list(cols.values())).to_numpy()
        for (name, mc, av), frame in results.items():
            got = frame.filter(pl.col("g") == g)["value"][0]
            if name == "ROC_AUC":
                want = skm.roc_auc_score(y, scores, multi_class=mc, average=av, labels=list(cols))
            else:
                onehot = (y[:, None] == np.array(list(cols))[None, :]).astype(int)
                want = skm.average_precision_score(onehot, scores, average=av)
            assert close(got, want), (g, name, mc, av, got, want)
        row = top.filter(pl.col("g") == g).row(0, named=True)
        for j in range(1, k + 1):
            want = skm.top_k_accuracy_score(y, scores, k=j, labels=list(cols))
            assert row[f"top_k_accuracy(k={j})"] == want  # a ratio of integers: exact


@pytest.mark.parametrize("seed", range(4))
def test_weighted_multiclass_scores_are_scikit_learns(seed: int) -> None:
    df, cols = probabilities(seed + 10)
    for av in ("macro", "weighted", "micro"):
        got = df.ireval.scores("y", cols, by="g", average=av, weight="w", shape="wide",
                               metrics=["ROC_AUC", "AP", "top_k_accuracy(k=2)"])
        for (g,), part in df.partition_by("g", as_dict=True).items():
            y, w = part["y"].to_numpy(), part["w"].to_numpy()
            scores = part.select(list(cols.values())).to_numpy()
            onehot = (y[:, None] == np.array(list(cols))[None, :]).astype(int)
            row = got.filter(pl.col("g") == g).row(0, named=True)
            assert close(row["ROC_AUC"], skm.roc_auc_score(y, scores, multi_class="ovr", average=av,
                                                           labels=list(cols), sample_weight=w))
            assert close(row["average_precision"], skm.average_precision_score(onehot, scores, average=av,
                                                                               sample_weight=w))
            want = skm.top_k_accuracy_score(y, scores, k=2, labels=list(cols), sample_weight=w)
            assert close(row["top_k_accuracy(k=2)"], want)


def test_expressions_equal_the_frame_method_and_do_not_depend_on_row_order() -> None:
    df, cols = probabilities(3, n=2000)
    exprs = [
        C.multiclass_roc_auc("y", cols, average="weighted").alias("ovr"),
        C.multiclass_roc_auc("y", cols, multi_class="ovo").alias("ovo"),
        C.multiclass_roc_auc("y", cols, average="micro", weight="w").alias("micro_w"),
        C.multiclass_average_precision("y", cols, average="micro").alias("ap"),
        C.top_k_accuracy("y", cols, k=2, weight="w").alias("top2"),
    ]
    got = df.group_by("g").agg(exprs).sort("g")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=5)
    assert shuffled.group_by("g").agg(exprs).sort("g").equals(got)
    frame = df.ireval.scores("y", cols, by="g", average="weighted", metrics=["ROC_AUC"], shape="wide")
    assert frame["ROC_AUC"].to_list() == got["ovr"].to_list()
    lazy = shuffled.lazy().ireval.scores("y", cols, by="g", average="weighted", metrics=["ROC_AUC"],
                                         shape="wide")
    assert lazy.collect(engine="streaming").equals(frame)


def test_top_k_ties_follow_scikit_learn() -> None:
    df = pl.DataFrame({"y": ["a", "b", "c", "c"], "pa": [0.4, 0.4, 0.2, 0.3],
                       "pb": [0.4, 0.4, 0.4, 0.3], "pc": [0.2, 0.2, 0.4, 0.4]})
    cols = {"a": "pa", "b": "pb", "c": "pc"}
    scores = df.select("pa", "pb", "pc").to_numpy()
    for k in (1, 2, 3):
        got = df.select(C.top_k_accuracy("y", cols, k=k)).item()
        assert got == skm.top_k_accuracy_score(df["y"].to_numpy(), scores, k=k, labels=list(cols))


@pytest.mark.parametrize("nodes", [2000, 50])
@pytest.mark.parametrize("n_classes", [5, 10])
def test_top_k_at_every_k_equals_scikit_learn(
    n_classes: int, nodes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every k from 1 past the classes, from the comparisons' bitmaps and (with at most 50 operations
    allowed, at 10 classes) from their integer count for some k; coarse scores, so ties are common."""
    from frame_eval.classification import multiclass

    monkeypatch.setattr(multiclass, "_NODES", nodes)
    rng = np.random.default_rng(n_classes)
    classes = list(range(n_classes))
    raw = np.round(rng.random((600, n_classes)) * 3) + 1
    prob = raw / raw.sum(axis=1, keepdims=True)
    y = rng.integers(0, n_classes, 600)
    df = pl.DataFrame({"y": y, "g": np.arange(600) % 2} | {f"p{c}": prob[:, c] for c in classes})
    cols = {c: f"p{c}" for c in classes}
    ks = range(1, n_classes + 2)
    got = df.ireval.scores("y", cols, by="g", average="macro", shape="wide",
                           metrics=[f"top_k_accuracy(k={k})" for k in ks])
    exprs = df.group_by("g").agg(C.top_k_accuracy("y", cols, k=k).alias(str(k)) for k in ks).sort("g")
    for g in (0, 1):
        part = df.filter(pl.col("g") == g)
        scores = part.select(cols.values()).to_numpy()
        for k in ks:
            want = skm.top_k_accuracy_score(part["y"].to_numpy(), scores, k=k, labels=classes)
            assert got.filter(pl.col("g") == g)[f"top_k_accuracy(k={k})"].item() == want, (g, k)
            assert exprs.filter(pl.col("g") == g)[str(k)].item() == want, (g, k)


def test_bad_multiclass_input() -> None:
    df, cols = probabilities(0, n=40, k=3)
    off = df.with_columns(pl.col("p_ant") * pl.when(pl.int_range(pl.len()) == 5).then(1.5).otherwise(1.0))
    with pytest.raises(ValueError, match=r"rows whose probabilities in predictions columns 'p_ant', 'p_bee', "
                                         r"'p_cat' do not add to 1 \(first at row 5, counting from 0\)"):
        off.ireval.scores("y", cols, average="macro")
    assert off.ireval.scores("y", cols, average="macro", metrics=["AP"]).height == 1  # AP reads any scores
    high = df.with_columns(pl.when(pl.int_range(pl.len()) == 2).then(1.5).otherwise(pl.col("p_bee"))
                           .alias("p_bee"))
    with pytest.raises(ValueError, match=r"outside the declared score range \[0.0, 1.0\] \(first at row 2"):
        high.ireval.scores("y", cols, average="weighted")
    stray = df.with_columns(pl.when(pl.int_range(pl.len()) == 7).then(pl.lit("eel")).otherwise(pl.col("y"))
                            .alias("y"))
    with pytest.raises(ValueError, match=r"labels in predictions column 'y' that are no key of score= "
                                         r"\(first at row 7, counting from 0: 'eel'\)"):
        stray.ireval.scores("y", cols, average="macro", metrics=["top_k_accuracy"])
    with pytest.raises(ValueError, match="takes no sample weights"):
        df.ireval.scores("y", cols, average="macro", multi_class="ovo", weight="w")
    with pytest.raises(ValueError, match="'macro' or 'weighted', not 'micro'"):
        df.ireval.scores("y", cols, average="micro", multi_class="ovo")
    with pytest.raises(ValueError, match="multi_class must be one of"):
        df.ireval.scores("y", cols, average="macro", multi_class="both")
    with pytest.raises(TypeError, match=r"pass score=\{class label: score column"):
        df.ireval.scores("y", "p_ant", average="macro")
    with pytest.raises(ValueError, match="has no multi-class average here"):
        df.ireval.scores("y", cols, average="macro", metrics=["EER"])
    with pytest.raises(ValueError, match=r"top_k_accuracy\(k=1\) is one value per group"):
        df.ireval.scores("y", cols, metrics=["top_k_accuracy(k=1)"])
    with pytest.raises(ValueError, match="k=0 must be 1 or more"):
        C.top_k_accuracy("y", cols, k=0)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_expressions_refuse_a_label_without_a_column(engine: str) -> None:
    """As in the frame methods and scikit-learn: a label with no score column is an error, not a miss."""
    df = pl.DataFrame({"g": [1, 1, 2, 2, 2], "y": ["a", "b", "b", None, "eel"],
                       "pa": [0.6, 0.2, 0.3, 0.5, 0.1], "pb": [0.4, 0.8, 0.7, 0.5, 0.9]})
    cols = {"a": "pa", "b": "pb"}
    exprs = {"scores=": [C.top_k_accuracy("y", cols, k=1), C.multiclass_roc_auc("y", cols),
                         C.multiclass_average_precision("y", cols)],
             "prob=": [C.log_loss("y", cols), C.brier_score("y", cols)]}
    for option, group in exprs.items():
        for expr in group:
            message = r"column 'y' holds the label 'eel', which is no"
            with pytest.raises(ValueError, match=f"{message} key of {option}"):
                df.lazy().group_by("g").agg(expr).collect(engine=engine)  # type: ignore[call-overload]
            # without the stray label every value is there (the null label's row is left out)
            clean = df.head(4).lazy().group_by("g").agg(expr).collect(engine=engine)  # type: ignore[call-overload]
            assert clean.height == 2


def test_pandas_gets_multiclass_scores() -> None:
    df, cols = probabilities(1, n=100, k=3)
    got = df.to_pandas().ireval.scores("y", cols, by="g", average="macro", multi_class="ovo")
    want = df.ireval.scores("y", cols, by="g", average="macro", multi_class="ovo").to_pandas()
    pd.testing.assert_frame_equal(got, want)
