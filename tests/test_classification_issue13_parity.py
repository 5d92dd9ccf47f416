"""The Proof list of issue 13 in one sweep: scikit-learn parity within 1e-12 on random, imbalanced data with
tied scores, a class missing from a group, string / integer / boolean / categorical labels and zero and
fractional sample weights, per group, for the probabilistic, curve, multi-class and agreement measures."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)

skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle of these tests")
calibration_curve = pytest.importorskip("sklearn.calibration").calibration_curve

TOL = 1e-12
KINDS = ("str", "int", "bool", "categorical")
LABELS = {
    "str": ["ant", "bee", "cat"], "int": [3, 7, 11], "bool": [False, True], "categorical": ["x", "y", "z"],
}


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _close(got: float | None, want: float) -> bool:
    return got is not None and abs(got - want) <= TOL * max(1.0, abs(want))


def _data(kind: str, seed: int) -> tuple[pl.DataFrame, list]:  # type: ignore[type-arg]
    """g 0..2 (group 2 lacks the last class as actual label), imbalanced y, yhat, tied scores per class
    (tenths adding to 1), a binary score s, weights with zeros; the classes sorted."""
    rng = np.random.default_rng(seed)
    classes = LABELS[kind]
    k, n = len(classes), 600
    share = np.array([0.6, 0.3, 0.1][:k]) / np.array([0.6, 0.3, 0.1][:k]).sum()
    idx = rng.choice(k, n, p=share)
    g = np.arange(n) % 3
    idx[g == 2] = np.minimum(idx[g == 2], k - 2)  # group 2: no row of the last class
    idx[:6] = [0, 0, 1, 1, 0, 1] if k == 2 else [0, 1, 2, 0, 1, 2]
    idx[[2, 5]] = np.minimum(idx[[2, 5]], k - 2)
    lean = rng.dirichlet([1.0] * k, n) + 0.7 * (idx[:, None] == np.arange(k)[None, :])
    counts = np.array([rng.multinomial(10, row / row.sum()) for row in lean])
    probs = counts / 10  # tenths: many ties
    guess = np.where(rng.random(n) < 0.7, idx, rng.integers(0, k, n))
    s = np.round(np.clip(probs[:, -1] + rng.normal(0, 0.1, n), 0, 1), 1)
    w = np.round(rng.random(n) * 3, 2) * (rng.random(n) > 0.15)  # zero and fractional weights
    labels = [classes[i] for i in idx]
    frame = pl.DataFrame({
        "g": g, "y": labels, "yhat": [classes[i] for i in guess], "s": s, "w": w,
        **{f"p{j}": probs[:, j] for j in range(k)},
    })
    if kind == "categorical":
        frame = frame.with_columns(pl.col("y", "yhat").cast(pl.Categorical))
    return frame, classes


def _groups(frame: pl.DataFrame) -> Iterator[tuple[int, pl.DataFrame]]:
    for (g,), part in sorted(frame.partition_by("g", as_dict=True).items()):
        yield g, part


def _value(result: pl.DataFrame, g: int, metric: str) -> float:
    return result.filter((pl.col("g") == g) & (pl.col("metric") == metric))["value"].item()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_binary_probabilities_calibration_and_det_curve(kind: str, seed: int) -> None:
    frame, classes = _data(kind, seed)
    positive = classes[-1]
    options = {} if kind == "bool" else {"positive": positive}
    probs = frame.ireval.probabilities("y", "s", by="g", weight="w", **options)
    plain = frame.ireval.probabilities("y", "s", by="g", **options)
    curve = frame.ireval.calibration("y", "s", by="g", n_bins=4, strategy="quantile", **options)
    det = frame.ireval.det_curve("y", "s", by="g", weight="w", **options)
    for g, part in _groups(frame):
        labels = part["y"].cast(pl.String) if kind == "categorical" else part["y"]
        truth = (labels == positive).to_numpy()
        s, w = part["s"].to_numpy(), part["w"].to_numpy()
        want = skm.log_loss(truth, s, sample_weight=w, labels=[False, True])
        assert _close(_value(probs, g, "log_loss"), want)
        want = skm.brier_score_loss(truth, s, sample_weight=w, pos_label=True)
        assert _close(_value(probs, g, "brier"), want)
        assert _close(_value(plain, g, "log_loss"), skm.log_loss(truth, s, labels=[False, True]))
        ours = curve.filter(pl.col("g") == g)
        prob_true, prob_pred = calibration_curve(truth, s, n_bins=4, strategy="quantile")
        assert ours["fraction_positive"].to_list() == prob_true.tolist()
        assert np.allclose(ours["mean_predicted"].to_numpy(), prob_pred, rtol=0, atol=TOL)
        points = det.filter(pl.col("g") == g)
        if not truth.any():  # group 2 of the two-class kinds: no positive row, no DET curve
            assert points.height == 0
            continue
        fpr, fnr, thresholds = skm.det_curve(truth, s, sample_weight=w)
        np.testing.assert_array_equal(points["threshold"].to_numpy(), thresholds)
        np.testing.assert_allclose(points["fpr"].to_numpy(), fpr, rtol=0, atol=TOL)
        np.testing.assert_allclose(points["fnr"].to_numpy(), fnr, rtol=0, atol=TOL)


@pytest.mark.parametrize("kind", ["str", "int", "categorical"])
@pytest.mark.parametrize("seed", [3, 4])
def test_multi_class_probabilities_auc_top_k(kind: str, seed: int) -> None:
    frame, classes = _data(kind, seed)
    mapping = {c: f"p{j}" for j, c in enumerate(classes)}
    probs = frame.ireval.probabilities("y", mapping, by="g", weight="w")
    results = {
        (mc, av): frame.ireval.scores("y", mapping, by="g", average=av, multi_class=mc,
                                      weight="w" if mc == "ovr" else None, metrics=["ROC_AUC"])
        for mc, av in (("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted"))
    }
    ap = frame.ireval.scores("y", mapping, by="g", average="macro", weight="w", metrics=["AP", "top_k(k=2)"])
    for g, part in _groups(frame):
        y = part["y"].cast(pl.String).to_list() if kind == "categorical" else part["y"].to_list()
        p, w = part.select(mapping.values()).to_numpy(), part["w"].to_numpy()
        assert _close(_value(probs, g, "log_loss"), skm.log_loss(y, p, labels=classes, sample_weight=w))
        assert _close(_value(probs, g, "brier"), skm.brier_score_loss(y, p, labels=classes, sample_weight=w))
        want_top = skm.top_k_accuracy_score(y, p, k=2, labels=classes, sample_weight=w)
        assert _close(_value(ap, g, "top_k_accuracy(k=2)"), want_top)
        if g == 2:  # a class without rows: left out of the averages (scikit-learn: NaN, or AP 0)
            continue
        for (mc, av), result in results.items():
            want = skm.roc_auc_score(y, p, multi_class=mc, average=av, labels=classes,
                                     sample_weight=w if mc == "ovr" else None)
            assert _close(_value(result, g, "ROC_AUC"), want), (kind, mc, av, g)
        onehot = (np.array(y, dtype=object)[:, None] == np.array(classes, dtype=object)[None, :]).astype(int)
        want_ap = skm.average_precision_score(onehot, p, average="macro", sample_weight=w)
        assert _close(_value(ap, g, "average_precision"), want_ap)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [5, 6])
def test_agreement_report_and_weighted_counts(kind: str, seed: int) -> None:
    frame, classes = _data(kind, seed)
    kappas = frame.ireval.rates("y", "yhat", by="g", weight="w", average="macro",
                                metrics=["kappa", "kappa(weights=linear)", "kappa(weights=quadratic)"])
    report = frame.ireval.classification_report("y", "yhat", by="g", weight="w", zero_division=0)
    matrix = frame.ireval.confusion_matrix("y", "yhat", by="g", weight="w")
    for g, part in _groups(frame):
        cast = kind == "categorical"
        a = part["y"].cast(pl.String).to_list() if cast else part["y"].to_list()
        b = part["yhat"].cast(pl.String).to_list() if cast else part["yhat"].to_list()
        w = part["w"].to_numpy()
        for name, weights in (("kappa", None), ("kappa(weights=linear)", "linear"),
                              ("kappa(weights=quadratic)", "quadratic")):
            want = skm.cohen_kappa_score(a, b, weights=weights, sample_weight=w)
            assert _close(_value(kappas, g, name), want), (kind, g, name)
        want_report = skm.classification_report(a, b, output_dict=True, zero_division=0, sample_weight=w)
        ours = report.filter(pl.col("g") == g)
        assert ours["class"].to_list() == list(want_report)
        for row in ours.iter_rows(named=True):
            theirs = want_report[row["class"]]
            if row["class"] == "accuracy":
                assert _close(row["f1-score"], theirs)
                continue
            for key in ("precision", "recall", "f1-score", "support"):
                assert _close(row[key], theirs[key]), (kind, g, row["class"], key)
        present = sorted(set(a) | set(b), key=classes.index)
        cells = matrix.filter(pl.col("g") == g)
        want_matrix = skm.confusion_matrix(a, b, labels=present, sample_weight=w)
        for i, left in enumerate(present):
            for j, right in enumerate(present):
                actual, predicted = (
                    (pl.col("actual").cast(pl.String), pl.col("predicted").cast(pl.String)) if cast
                    else (pl.col("actual"), pl.col("predicted"))
                )
                here = (actual == left) & (predicted == right)
                cell = cells.filter(here)["count"].item()
                assert _close(cell, want_matrix[i, j])


def _eer_from_det(points: pl.DataFrame) -> float:
    """The EER read off DET points (threshold ascending): where FPR first reaches FNR, high thresholds
    first, compared in counts (fp P >= fn N); linear between that point and the one before it."""
    rows = points.reverse().rows(named=True)  # threshold descending
    negatives = rows[-1]["fp"] / rows[-1]["fpr"]
    positives = rows[0]["fn"] / rows[0]["fnr"]
    for i, row in enumerate(rows):
        if row["fp"] * positives >= row["fn"] * negatives:
            if i == 0:
                return row["fpr"]
            before = rows[i - 1]
            gap, gap_before = row["fpr"] - row["fnr"], before["fpr"] - before["fnr"]
            return before["fpr"] + (-gap_before / (gap - gap_before)) * (row["fpr"] - before["fpr"])
    raise AssertionError("FPR never reaches FNR")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_eer_read_off_the_det_curve_agrees_with_eer(kind: str, weighted: bool) -> None:
    frame, classes = _data(kind, 7)
    options = {} if kind == "bool" else {"positive": classes[-1]}
    weight = "w" if weighted else None
    det = frame.ireval.det_curve("y", "s", by="g", weight=weight, **options)
    eer = frame.ireval.scores("y", "s", by="g", weight=weight, metrics=["EER"], **options)
    checked = 0
    for g, _ in _groups(frame):
        points = det.filter(pl.col("g") == g)
        if points.height == 0:
            continue
        assert abs(_eer_from_det(points) - _value(eer, g, "EER")) <= TOL
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("kind", KINDS)
def test_existing_functions_and_expressions_take_sample_weights(kind: str) -> None:
    from frame_eval import classification as C

    frame, classes = _data(kind, 8)
    positive = classes[-1]
    options = {} if kind == "bool" else {"positive": positive}
    roc = frame.ireval.roc("y", "s", by="g", weight="w", **options)
    pr = frame.ireval.pr_curve("y", "s", by="g", weight="w", **options)
    areas = frame.ireval.scores("y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP"], **options)
    rates = frame.ireval.rates("y", "yhat", by="g", weight="w", average="macro",
                               metrics=["precision", "recall", "F1", "accuracy"])
    exprs = frame.group_by("g").agg(
        C.recall("y", "yhat", weight="w", average="macro").alias("recall"),
        C.roc_auc("y", "s", weight="w", **options).alias("auc"),
        C.log_loss("y", "s", weight="w", **options).alias("log_loss"),
        C.cohen_kappa("y", "yhat", weights="quadratic", average="macro", weight="w").alias("kappa"),
    ).sort("g")
    for g, part in _groups(frame):
        cast = kind == "categorical"
        y = part["y"].cast(pl.String) if cast else part["y"]
        a, b = y.to_list(), (part["yhat"].cast(pl.String) if cast else part["yhat"]).to_list()
        truth, s, w = (y == positive).to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
        row = exprs.filter(pl.col("g") == g).row(0, named=True)
        precision, recall, f1, _ = skm.precision_recall_fscore_support(a, b, average="macro", sample_weight=w,
                                                                       zero_division=np.nan)
        assert _close(_value(rates, g, "recall"), recall) and _close(row["recall"], recall)
        assert _close(_value(rates, g, "precision"), precision) and _close(_value(rates, g, "F1"), f1)
        assert _close(_value(rates, g, "accuracy"), skm.accuracy_score(a, b, sample_weight=w))
        assert _close(row["kappa"], skm.cohen_kappa_score(a, b, weights="quadratic", sample_weight=w))
        assert _close(row["log_loss"], skm.log_loss(truth, s, sample_weight=w, labels=[False, True]))
        if not truth.any():
            assert row["auc"] is None and _value(areas, g, "ROC_AUC") is None
            continue
        auc = skm.roc_auc_score(truth, s, sample_weight=w)
        assert _close(row["auc"], auc) and _close(_value(areas, g, "ROC_AUC"), auc)
        ap = skm.average_precision_score(truth, s, sample_weight=w)
        assert _close(_value(areas, g, "average_precision"), ap)
        fpr, tpr, _ = skm.roc_curve(truth, s, sample_weight=w, drop_intermediate=False)
        ours = roc.filter(pl.col("g") == g)
        np.testing.assert_allclose(ours["fpr"].to_numpy(), fpr[1:], rtol=0, atol=TOL)
        np.testing.assert_allclose(ours["tpr"].to_numpy(), tpr[1:], rtol=0, atol=TOL)
        prec, rec, _ = skm.precision_recall_curve(truth, s, sample_weight=w)
        ours = pr.filter(pl.col("g") == g)
        np.testing.assert_allclose(ours["precision"].to_numpy(), prec[:-1][::-1], rtol=0, atol=TOL)
        np.testing.assert_allclose(ours["recall"].to_numpy(), rec[:-1][::-1], rtol=0, atol=TOL)
