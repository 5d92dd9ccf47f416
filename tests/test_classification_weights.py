"""Sample weights (issue 13): ``weight=`` on every classification method and ``C.*`` expression.

Oracle: scikit-learn with ``sample_weight`` on each group's rows, on random
data with zero and fractional weights, tied scores and imbalanced classes;
values within 1e-12. Weighted counts are Float64, unweighted stay Int64; the
weighted values have the same bits for shuffled rows; bad weights are one
clean error naming the column, the first row (0-based) and the value.
"""

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
from frame_eval.classification import exact_weights

TOL = 1e-12


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def weighted_frame(seed: int, n: int = 400) -> pl.DataFrame:
    """g (group), y / yhat (0/1), c / chat (three string classes), s (tied scores), w (weights, some 0)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rng.uniform(0.1, 0.6)).astype(np.int64)
    yhat = np.where(rng.random(n) < 0.7, y, 1 - y)
    c = rng.choice(np.array(["ant", "bee", "cat"]), n, p=[0.6, 0.3, 0.1])
    chat = np.where(rng.random(n) < 0.6, c, rng.choice(np.array(["ant", "bee", "cat"]), n))
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1 + seed % 3)
    w = np.round(rng.random(n) * 3, 3) * (rng.random(n) < 0.85)  # about 15 % zero weights
    return pl.DataFrame(
        {"g": rng.integers(0, 3, n), "y": y, "yhat": yhat, "c": c, "chat": chat, "s": s, "w": w}
    )


def groups(df: pl.DataFrame) -> Iterator[tuple[int, pl.DataFrame]]:
    for (g,), part in sorted(df.partition_by("g", as_dict=True).items()):
        yield g, part


def close(got: float | None, want: float) -> bool:
    if got is None or (isinstance(got, float) and math.isnan(got)):
        return math.isnan(want)
    return abs(got - want) <= TOL


@pytest.mark.parametrize("seed", range(6))
def test_weighted_counts_and_matrix_are_scikit_learns(seed: int) -> None:
    df = weighted_frame(seed)
    binary = df.ireval.confusion("y", "yhat", by="g", weight="w")
    assert all(binary.schema[k] == pl.Float64 for k in ("tp", "fp", "fn", "tn", "total"))
    per_class = df.ireval.confusion("c", "chat", by="g", weight="w")
    matrix = df.ireval.confusion_matrix("c", "chat", by="g", weight="w")
    assert matrix.schema["count"] == pl.Float64
    for g, part in groups(df):
        w = part["w"].to_numpy()
        tn, fp, fn, tp = skm.confusion_matrix(part["y"], part["yhat"], sample_weight=w).ravel()
        row = binary.filter(pl.col("g") == g).row(0, named=True)
        assert [row[k] for k in ("tp", "fp", "fn", "tn")] == pytest.approx([tp, fp, fn, tn], abs=TOL, rel=0)
        labels = sorted(set(part["c"]) | set(part["chat"]))
        theirs = skm.confusion_matrix(part["c"], part["chat"], labels=labels, sample_weight=w)
        ours = matrix.filter(pl.col("g") == g)["count"].to_numpy().reshape(len(labels), len(labels))
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=TOL)
        mcm = skm.multilabel_confusion_matrix(part["c"], part["chat"], labels=labels, sample_weight=w)
        for label, cell in zip(labels, mcm, strict=True):
            row = per_class.filter((pl.col("g") == g) & (pl.col("class") == label)).row(0, named=True)
            (tn, fp), (fn, tp) = cell
            assert [row[k] for k in ("tp", "fp", "fn", "tn")] == pytest.approx([tp, fp, fn, tn], abs=TOL)
    # the expressions give the same counts
    expr = df.group_by("g").agg(C.confusion("y", "yhat", weight="w")).unnest("confusion").sort("g")
    for k in ("tp", "fp", "fn", "tn"):
        np.testing.assert_allclose(expr[k].to_numpy(), binary[k].to_numpy(), rtol=0, atol=TOL)


def test_unweighted_counts_stay_integers() -> None:
    df = weighted_frame(0)
    assert df.ireval.confusion("y", "yhat").schema["tp"] == pl.Int64
    assert df.ireval.confusion_matrix("c", "chat").schema["count"] == pl.Int64
    assert df.ireval.roc("y", "s").schema["tp"] == pl.Int64
    ones = df.with_columns(pl.lit(1.0).alias("w"))
    calls = (("confusion", ("y", "yhat")), ("confusion_matrix", ("c", "chat")), ("roc", ("y", "s")))
    for method, args in calls:
        plain, weighted = getattr(df.ireval, method)(*args), getattr(ones.ireval, method)(*args, weight="w")
        as_float = {c: pl.Float64 for c in plain.columns if plain.schema[c] == pl.Int64}
        assert plain.cast(as_float).equals(weighted)


@pytest.mark.parametrize("seed", range(6))
def test_weighted_rates_and_averages_are_scikit_learns(seed: int) -> None:
    df = weighted_frame(seed)
    metrics = ["precision", "recall", "F1", "F2", "accuracy", "balanced_accuracy", "MCC", "kappa",
               "specificity"]
    binary = df.ireval.rates("y", "yhat", by="g", metrics=metrics, weight="w", shape="wide")
    averaged = {
        average: df.ireval.rates("c", "chat", by="g", metrics=["precision", "recall", "F1", "accuracy", "MCC",
                                                              "balanced_accuracy", "kappa"],
                                 average=average, weight="w", shape="wide", zero_division=0)
        for average in ("micro", "macro", "weighted")
    }
    exprs = df.group_by("g").agg(
        C.precision("y", "yhat", weight="w"), C.mcc("y", "yhat", weight="w"),
        C.f1("c", "chat", average="macro", weight="w", zero_division=0).alias("f1_macro"),
        C.mcc("c", "chat", average="macro", weight="w").alias("mcc_multi"),
    ).sort("g")
    for g, part in groups(df):
        a, b, w = part["y"].to_numpy(), part["yhat"].to_numpy(), part["w"].to_numpy()
        row = binary.filter(pl.col("g") == g).row(0, named=True)
        zd = {"zero_division": np.nan}
        want = {
            "precision": skm.precision_score(a, b, sample_weight=w, **zd),
            "recall": skm.recall_score(a, b, sample_weight=w, **zd),
            "F1": skm.f1_score(a, b, sample_weight=w, **zd),
            "F2": skm.fbeta_score(a, b, beta=2, sample_weight=w, **zd),
            "accuracy": skm.accuracy_score(a, b, sample_weight=w),
            "balanced_accuracy": skm.balanced_accuracy_score(a, b, sample_weight=w),
            "MCC": skm.matthews_corrcoef(a, b, sample_weight=w),
            "kappa": skm.cohen_kappa_score(a, b, sample_weight=w),
            "specificity": skm.recall_score(1 - a, 1 - b, sample_weight=w, **zd),
        }
        for name, value in want.items():
            assert close(row[name], value), (g, name, row[name], value)
        e = exprs.filter(pl.col("g") == g).row(0, named=True)
        assert close(e["precision"], want["precision"]) and close(e["MCC"], want["MCC"])
        ca, cb = part["c"].to_numpy(), part["chat"].to_numpy()
        for average, frame in averaged.items():
            row = frame.filter(pl.col("g") == g).row(0, named=True)
            want = {
                "precision": skm.precision_score(ca, cb, average=average, sample_weight=w, zero_division=0),
                "recall": skm.recall_score(ca, cb, average=average, sample_weight=w, zero_division=0),
                "F1": skm.f1_score(ca, cb, average=average, sample_weight=w, zero_division=0),
                "accuracy": skm.accuracy_score(ca, cb, sample_weight=w),
                "MCC": skm.matthews_corrcoef(ca, cb, sample_weight=w),
                "balanced_accuracy": skm.balanced_accuracy_score(ca, cb, sample_weight=w),
                "kappa": skm.cohen_kappa_score(ca, cb, sample_weight=w),
            }
            for name, value in want.items():
                assert close(row[name], value), (g, average, name, row[name], value)
        assert close(e["f1_macro"], skm.f1_score(ca, cb, average="macro", sample_weight=w, zero_division=0))
        assert close(e["mcc_multi"], skm.matthews_corrcoef(ca, cb, sample_weight=w))


@pytest.mark.parametrize("seed", range(6))
def test_weighted_curves_and_areas_are_scikit_learns(seed: int) -> None:
    df = weighted_frame(seed)
    roc = df.ireval.roc("y", "s", by="g", weight="w")
    det = df.ireval.det_curve("y", "s", by="g", weight="w")
    areas = df.ireval.scores("y", "s", by="g", metrics=["ROC_AUC", "AP", "PR_AUC"], weight="w", shape="wide")
    exprs = df.group_by("g").agg(
        C.roc_auc("y", "s", weight="w"), C.average_precision("y", "s", weight="w"),
        C.best_threshold("y", "s", weight="w"),
    ).sort("g")
    for g, part in groups(df):
        a, s, w = part["y"].to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
        ours = roc.filter(pl.col("g") == g)
        fpr, tpr, thresholds = skm.roc_curve(a, s, sample_weight=w, drop_intermediate=False)
        np.testing.assert_array_equal(ours["threshold"].to_numpy(), thresholds[1:])
        np.testing.assert_allclose(ours["fpr"].to_numpy(), fpr[1:], rtol=0, atol=TOL)
        np.testing.assert_allclose(ours["tpr"].to_numpy(), tpr[1:], rtol=0, atol=TOL)
        precision, recall, _ = skm.precision_recall_curve(a, s, sample_weight=w, drop_intermediate=False)
        np.testing.assert_allclose(ours["precision"].to_numpy(), precision[:-1][::-1], rtol=0, atol=TOL)
        np.testing.assert_allclose(ours["recall"].to_numpy(), recall[:-1][::-1], rtol=0, atol=TOL)
        det_fpr, det_fnr, det_t = skm.det_curve(a, s, sample_weight=w)
        ours_det = det.filter(pl.col("g") == g)
        np.testing.assert_array_equal(ours_det["threshold"].to_numpy(), det_t)
        np.testing.assert_allclose(ours_det["fpr"].to_numpy(), det_fpr, rtol=0, atol=TOL)
        np.testing.assert_allclose(ours_det["fnr"].to_numpy(), det_fnr, rtol=0, atol=TOL)
        row = areas.filter(pl.col("g") == g).row(0, named=True)
        e = exprs.filter(pl.col("g") == g).row(0, named=True)
        auc = skm.roc_auc_score(a, s, sample_weight=w)
        ap = skm.average_precision_score(a, s, sample_weight=w)
        assert close(row["ROC_AUC"], auc) and close(e["ROC_AUC"], auc)
        assert close(row["average_precision"], ap) and close(e["average_precision"], ap)
        assert close(row["PR_AUC"], skm.auc(recall, precision))
        # Youden's J at the chosen threshold is the largest on scikit-learn's weighted curve
        j = tpr - fpr
        assert e["best_threshold"] in thresholds[1:][j[1:] >= j.max() - TOL]


@pytest.mark.parametrize("inclusive", [True, False])
def test_weighted_rates_at_thresholds(inclusive: bool) -> None:
    df = weighted_frame(4)
    got = df.ireval.rates("y", score="s", thresholds=[0.2, 0.5, 0.8], inclusive=inclusive, by="g",
                          metrics=["TP", "FP", "TN", "precision", "recall"], weight="w", shape="wide")
    for g, part in groups(df):
        for t in (0.2, 0.5, 0.8):
            said = (part["s"] >= t) if inclusive else (part["s"] > t)
            a, w = part["y"].to_numpy(), part["w"].to_numpy()
            tn, fp, fn, tp = skm.confusion_matrix(a, said.to_numpy().astype(int), labels=[0, 1],
                                                  sample_weight=w).ravel()
            row = got.filter((pl.col("g") == g) & (pl.col("threshold") == t)).row(0, named=True)
            assert close(row["TP"], tp) and close(row["FP"], fp) and close(row["TN"], tn)
            assert close(row["recall"], tp / (tp + fn))


def test_weighted_values_do_not_depend_on_row_order() -> None:
    df = weighted_frame(2, n=3000)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1)
    calls = [
        lambda f: f.ireval.confusion("c", "chat", by="g", weight="w"),
        lambda f: f.ireval.rates("c", "chat", by="g", average="macro", weight="w"),
        lambda f: f.ireval.confusion_matrix("c", "chat", by="g", weight="w"),
        lambda f: f.ireval.roc("y", "s", by="g", weight="w"),
        lambda f: f.ireval.scores("y", "s", by="g", weight="w"),
        lambda f: f.group_by("g").agg(C.roc_auc("y", "s", weight="w"), C.f1("c", "chat", average="weighted",
                                                                            weight="w")).sort("g"),
    ]
    for call in calls:
        assert call(df).equals(call(shuffled))
        assert call(df.lazy()).collect(engine="streaming").equals(call(df))


BAD_WEIGHTS = [
    (-1.0, "-1.0"), (None, "None"), (float("nan"), "nan"), (float("inf"), "inf"), (-float("inf"), "-inf"),
    (-float("nan"), "nan"), (-5e-324, "-5e-324"),
]


@pytest.mark.parametrize(("bad", "shown"), BAD_WEIGHTS)
@pytest.mark.parametrize(
    ("method", "args"),
    [("confusion", ("y", "yhat")), ("rates", ("c", "chat")), ("confusion_matrix", ("c", "chat")),
     ("roc", ("y", "s")), ("det_curve", ("y", "s")), ("scores", ("y", "s"))],
)
def test_bad_weights_name_column_row_and_value(method: str, args: tuple[str, str], bad: float | None,
                                               shown: str) -> None:
    df = weighted_frame(0, n=20)
    values = df["w"].to_list()
    values[7] = bad
    broken = df.with_columns(pl.Series("w", values, dtype=pl.Float64))
    before = broken.clone()
    message = (
        rf"1 null, NaN, infinite or negative values in predictions column 'w' \(first at row 7, counting "
        rf"from 0: {shown}\); sample weights must be finite numbers >= 0"
    )
    with pytest.raises(ValueError, match=message):
        getattr(broken.ireval, method)(*args, weight="w")
    lazy = getattr(broken.lazy().ireval, method)(*args, weight="w")
    with pytest.raises(ValueError, match=message):
        lazy.collect()
    assert broken.equals(before)


@pytest.mark.parametrize(
    ("method", "args"),
    [("confusion", ("y", "yhat")), ("rates", ("c", "chat")), ("confusion_matrix", ("c", "chat")),
     ("confusion_matrix", ("y", "yhat")), ("roc", ("y", "s")), ("scores", ("y", "s"))],
)
def test_negative_zero_is_a_weight(method: str, args: tuple[str, str]) -> None:
    # -0.0 >= 0: no error, though its bits (sign set) are above +inf's, as a bad weight's are
    df = weighted_frame(0, n=20)
    signed = df.with_columns(pl.when(pl.col("w") == 0).then(-0.0).otherwise(pl.col("w")).alias("w"))
    assert signed["w"].cast(pl.Float64).reinterpret(dtype=pl.UInt64).max() >= 1 << 63
    for frame in (signed, signed.lazy()):
        result = getattr(frame.ireval, method)(*args, weight="w")
        assert (result.collect() if isinstance(result, pl.LazyFrame) else result).height


@pytest.mark.parametrize("labels", [[False, True], [0, 1], ["a", "b"]])
def test_a_cell_of_negative_zero_weights_is_positive_zero(labels: list[object]) -> None:
    # scikit-learn adds a cell's weights to a zero: a cell whose only weights are -0.0 holds +0.0 (the
    # Boolean matrix once kept -0.0 there, the other label types not)
    neg, pos = labels
    many = pl.DataFrame({"y": [neg, pos, pos, neg], "p": [pos, pos, neg, neg], "w": [-0.0, 1.0, -0.0, 2.0]})
    one = pl.DataFrame({"y": [neg], "p": [pos], "w": [-0.0]})  # (scikit-learn refuses all-zero weights)
    want = skm.confusion_matrix(many["y"].to_list(), many["p"].to_list(), sample_weight=many["w"].to_numpy(),
                                labels=labels)
    for df, frame in ((many, many), (many, many.lazy()), (one, one), (one, one.lazy())):
        want = want if df is many else np.zeros((2, 2))
        got = frame.ireval.confusion_matrix("y", "p", weight="w")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        cells = {(r["actual"], r["predicted"]): r["count"] for r in got.iter_rows(named=True)}
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                assert cells[(a, b)] == want[i, j]
                assert math.copysign(1.0, cells[(a, b)]) == 1.0, (a, b)


@pytest.mark.parametrize("bad", [float("nan"), None, 1.5])  # (1.5: all good, no error)
@pytest.mark.parametrize("method", ["confusion", "rates", "confusion_matrix"])
def test_weights_checked_when_the_exactness_test_notes_nothing(
    method: str, bad: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an eager call's check of the weights reads what the exactness test's pass saw; when that pass
    # does not run (here: the bound patched away), the check makes its own
    df = weighted_frame(0, n=20)
    broken = df.with_columns(pl.Series("w", [*df["w"][:7], bad, *df["w"][8:]], dtype=pl.Float64))
    args = ("y", "yhat") if method != "confusion_matrix" else ("c", "chat")
    monkeypatch.setattr(exact_weights, "bounded_exponent", lambda weights, seen=None: None)
    if bad == 1.5:
        assert getattr(broken.ireval, method)(*args, weight="w").height
        return
    with pytest.raises(ValueError, match=r"1 null, NaN, infinite or negative values .* \(first at row 7"):
        getattr(broken.ireval, method)(*args, weight="w")


@pytest.mark.parametrize("method", ["confusion", "rates"])
def test_weighted_binary_calls_keep_every_check(method: str) -> None:
    # the weights' check reads the exactness test's pass; the labels' checks stay, in their order
    df = weighted_frame(0, n=20)
    # (a bad predicted label: its check is the last one)
    two = pl.when(pl.int_range(pl.len()) == 5).then(2).otherwise(pl.col("yhat")).alias("yhat")
    negative = pl.when(pl.col("w") > 0).then(pl.col("w")).otherwise(-1.0).alias("w")
    for frame in (df, df.lazy()):
        def run(f: pl.DataFrame | pl.LazyFrame) -> None:
            result = getattr(f.ireval, method)("y", "yhat", weight="w")
            if isinstance(result, pl.LazyFrame):
                result.collect()

        with pytest.raises(ValueError, match=r"1 values in predictions column 'yhat' are neither 0 nor 1"):
            run(frame.with_columns(two))
        with pytest.raises(ValueError, match=r"negative values in predictions column 'w'"):  # (comes first)
            run(frame.with_columns(two, negative))


def test_weight_column_must_be_numeric_and_exist() -> None:
    df = weighted_frame(0, n=20).with_columns(pl.col("w").cast(pl.String).alias("text"))
    with pytest.raises(TypeError, match=r"column 'text' must hold sample weights .*cast it"):
        df.ireval.confusion("y", "yhat", weight="text")
    with pytest.raises(ValueError, match=r"has no column 'nope'"):
        df.ireval.roc("y", "s", weight="nope")
    with pytest.raises(ValueError, match=r"weight column 'w' holds -2.0 at position 1 of the group"):
        df.with_columns(pl.Series("w", [1.0, -2.0] + [1.0] * 18)).select(C.recall("y", "yhat", weight="w"))
    with pytest.raises(TypeError, match=r"weight column 'text' must hold numbers"):
        df.select(C.roc_auc("y", "s", weight="text"))


def test_pandas_takes_weights() -> None:
    df = weighted_frame(1, n=200)
    got = df.to_pandas().ireval.rates("y", "yhat", by="g", metrics=["F1"], weight="w")
    assert isinstance(got, pd.DataFrame)
    want = df.ireval.rates("y", "yhat", by="g", metrics=["F1"], weight="w").to_pandas()
    pd.testing.assert_frame_equal(got, want)
    bad = df.to_pandas()
    bad.loc[3, "w"] = -1.0
    with pytest.raises(ValueError, match=r"predictions column 'w' \(first at row 3"):
        bad.ireval.confusion("y", "yhat", weight="w")


def test_weighted_frame_methods_and_expressions_give_the_same_bits() -> None:
    df = weighted_frame(5, n=2000)
    frame = df.ireval.scores("y", "s", by="g", metrics=["ROC_AUC", "AP", "PR_AUC", "EER"], weight="w",
                             shape="wide")
    exprs = df.group_by("g").agg(
        C.roc_auc("y", "s", weight="w"), C.average_precision("y", "s", weight="w"),
        C.pr_auc("y", "s", weight="w"), C.equal_error_rate("y", "s", weight="w"),
    ).sort("g")
    assert frame.equals(exprs)
    best = df.ireval.best_threshold("y", "s", by="g", criterion="f1", weight="w")
    chosen = df.group_by("g").agg(C.best_threshold("y", "s", criterion="f1", weight="w").alias("threshold"))
    assert best["threshold"].equals(chosen.sort("g")["threshold"])


@pytest.mark.parametrize("seed", [11, 12])
def test_weighted_areas_without_groups_and_with_zero_weight_groups(seed: int) -> None:
    # the frame method reads every group's areas off one frame of points: without by=, with a group whose
    # weights are all 0 (no points: nulls), and in any row order it gives the expressions' bits
    df = weighted_frame(seed, n=1500)
    df = df.with_columns(pl.when(pl.col("g") == 2).then(0.0).otherwise(pl.col("w")).alias("w"))
    names = ["ROC_AUC", "AP", "PR_AUC", "EER"]
    exprs = [C.roc_auc("y", "s", weight="w"), C.average_precision("y", "s", weight="w"),
             C.pr_auc("y", "s", weight="w"), C.equal_error_rate("y", "s", weight="w")]
    whole = df.ireval.scores("y", "s", metrics=names, weight="w", shape="wide")
    assert whole.equals(df.select(exprs))
    by_group = df.ireval.scores("y", "s", by="g", metrics=names, weight="w", shape="wide")
    assert by_group.equals(df.group_by("g").agg(exprs).sort("g"))
    assert by_group.filter(pl.col("g") == 2).drop("g").row(0) == (None,) * 4
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    again = shuffled.lazy().ireval.scores("y", "s", by="g", metrics=names, weight="w", shape="wide")
    assert again.collect(engine="streaming").equals(by_group)
    nothing = df.with_columns(pl.lit(0.0).alias("w")).ireval.scores("y", "s", metrics=names, weight="w",
                                                                    shape="wide")
    assert nothing.row(0) == (None,) * 4
