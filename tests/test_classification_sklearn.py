"""Parity with scikit-learn: every group of a frame scores as scikit-learn scores that group's rows.

Data: seeded random predictions per group, imbalanced, with tied scores,
with a class missing from one group (in both columns) and a class that is
predicted but never actual in another, as integer, Boolean and string
labels. Values must agree within 1e-12. Our ``zero_division=None`` (null)
is scikit-learn's ``zero_division=np.nan``.

Curves: ours have one row per distinct score (threshold descending).
scikit-learn with ``drop_intermediate=False`` has the same points, and:
``roc_curve`` adds a first point at threshold ``inf`` (the origin);
``precision_recall_curve`` lists them in reverse and adds a last point
(precision 1, recall 0); ``det_curve`` keeps only the rows from the last
without false positives (or its own ``inf`` origin when every row has one)
to the first that finds every positive, in reverse.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import frame_eval as fe
from frame_eval import classification as C

TOL = 1e-12
KINDS = ("binary_int", "binary_bool", "multi_str", "multi_int")
ZERO_DIVISIONS = (None, 0, 1)


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's zero-division and one-class warnings
        yield


def predictions(kind: str, seed: int = 7, n: int = 600) -> pl.DataFrame:
    """Columns g (group), y (actual), yhat (predicted), s (tied scores, binary kinds)."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 4, n)
    if kind.startswith("binary"):
        y = rng.random(n) < 0.15  # imbalanced
        s = np.round(np.clip(0.35 * y + rng.normal(0.3, 0.2, n), 0, 1) * 12) / 12  # many ties
        yhat = rng.random(n) < 0.25
        frame = pl.DataFrame({"g": g, "y": y, "yhat": yhat, "s": s})
        if kind == "binary_int":
            frame = frame.with_columns(pl.col("y", "yhat").cast(pl.Int64))
        return frame
    names = ["ant", "bee", "cat", "dog", "eel"]
    y = rng.choice(5, n, p=[0.5, 0.25, 0.15, 0.07, 0.03])
    yhat = np.where(rng.random(n) < 0.5, y, rng.choice(5, n, p=[0.4, 0.3, 0.15, 0.1, 0.05]))
    frame = pl.DataFrame({"g": g, "y": y, "yhat": yhat})
    # group 0 never sees class 3; in group 1 class 4 is predicted but never actual
    frame = frame.filter(~((pl.col("g") == 0) & ((pl.col("y") == 3) | (pl.col("yhat") == 3))))
    frame = frame.filter(~((pl.col("g") == 1) & (pl.col("y") == 4)))
    frame = frame.with_columns(
        pl.when((pl.col("g") == 1) & (pl.int_range(pl.len()) % 9 == 0)).then(4).otherwise(pl.col("yhat"))
        .alias("yhat")
    )
    if kind == "multi_str":
        as_names = dict(enumerate(names))
        frame = frame.with_columns(pl.col("y", "yhat").replace_strict(as_names, return_dtype=pl.String))
    return frame


def groups(frame: pl.DataFrame) -> Iterator[tuple[int, pl.DataFrame]]:
    for (key,), part in sorted(frame.partition_by("g", as_dict=True).items()):
        yield key, part


def skz(zero_division: float | None) -> float:
    return np.nan if zero_division is None else zero_division


def close(ours: Any, theirs: Any) -> bool:
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return bool(np.isnan(theirs))
    return abs(ours - theirs) <= TOL


def assert_close(ours: Any, theirs: Any, what: str) -> None:
    assert close(ours, theirs), f"{what}: ours {ours!r}, scikit-learn {theirs!r}"


def values(frame: pl.DataFrame, **where: Any) -> dict[str, Any]:
    return dict(frame.filter(**where).select("metric", "value").rows())


def positive_of(kind: str) -> Any:
    return True if kind == "binary_bool" else 1


def test_fixture_has_the_awkward_cases() -> None:
    multi = predictions("multi_int")
    per_group = {k: (set(p["y"]), set(p["yhat"])) for k, p in groups(multi)}
    assert 3 not in per_group[0][0] | per_group[0][1]
    assert 4 in per_group[1][1] and 4 not in per_group[1][0]
    binary = predictions("binary_int")
    assert binary["y"].mean() < 0.2 and binary["s"].n_unique() < 20


@pytest.mark.parametrize("kind", KINDS)
def test_confusion_matrix(kind: str) -> None:
    frame = predictions(kind)
    ours = frame.ireval.confusion_matrix("y", "yhat", by="g")
    for key, part in groups(frame):
        cells = ours.filter(g=key)
        theirs = skm.confusion_matrix(part["y"].to_numpy(), part["yhat"].to_numpy())
        k = theirs.shape[0]
        assert cells.height == k * k
        assert cells["actual"].head(k).to_list() == [cells["actual"][0]] * k
        np.testing.assert_array_equal(cells["count"].to_numpy().reshape(k, k), theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_per_class_precision_recall_f_support(kind: str, zero_division: float | None, beta: float) -> None:
    frame = predictions(kind)
    f_name = fe.measure("F", kind="classification", beta=beta).name
    ours = frame.ireval.rates(
        "y", "yhat", by="g", metrics=["precision", "recall", f_name, "support"], positive=None,
        zero_division=zero_division,
    )
    for key, part in groups(frame):
        a, b = part["y"].to_numpy(), part["yhat"].to_numpy()
        labels = np.unique(np.concatenate([a, b]))
        p, r, f, support = skm.precision_recall_fscore_support(
            a, b, beta=beta, average=None, zero_division=skz(zero_division)
        )
        assert ours.filter(g=key)["class"].unique(maintain_order=True).to_list() == labels.tolist()
        for i, label in enumerate(labels.tolist()):
            got = values(ours, g=key, **{"class": label})
            for name, theirs in (("precision", p[i]), ("recall", r[i]), (f_name, f[i]), ("P", support[i])):
                assert_close(got[name], theirs, f"group {key} class {label} {name}")


@pytest.mark.parametrize("kind", ["binary_int", "binary_bool"])
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
@pytest.mark.parametrize("flip", [False, True])
def test_binary_precision_recall_f(kind: str, zero_division: float | None, flip: bool) -> None:
    frame = predictions(kind)
    pos = positive_of(kind)
    pos = (not pos if kind == "binary_bool" else 0) if flip else pos
    options = {"positive": pos} if flip else {}
    ours = frame.ireval.rates(
        "y", "yhat", by="g", metrics=["precision", "recall", "F1", "F2"], zero_division=zero_division,
        **options,
    )
    for key, part in groups(frame):
        a, b = part["y"].to_numpy(), part["yhat"].to_numpy()
        got = values(ours, g=key)
        for beta, name in ((1.0, "F1"), (2.0, "F2")):
            p, r, f, _ = skm.precision_recall_fscore_support(
                a, b, beta=beta, average="binary", pos_label=pos, zero_division=skz(zero_division)
            )
            assert_close(got["precision"], p, "precision")
            assert_close(got["recall"], r, "recall")
            assert_close(got[name], f, name)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("average", ["micro", "macro", "weighted"])
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_averaged_precision_recall_f(kind: str, average: str, zero_division: float | None) -> None:
    frame = predictions(kind)
    ours = frame.ireval.rates(
        "y", "yhat", by="g", metrics=["precision", "recall", "F1", "F(beta=3)"], average=average,
        zero_division=zero_division,
    )
    options: dict[str, Any] = {"average": average, "zero_division": zero_division}
    expressions = frame.group_by("g").agg(
        C.precision("y", "yhat", **options), C.recall("y", "yhat", **options), C.f1("y", "yhat", **options),
        C.fbeta("y", "yhat", beta=3, **options),
    )
    for key, part in groups(frame):
        a, b = part["y"].to_numpy(), part["yhat"].to_numpy()
        got = values(ours, g=key)
        row = expressions.filter(g=key).row(0, named=True)
        for beta, name in ((1.0, "F1"), (3.0, "F3")):
            p, r, f, _ = skm.precision_recall_fscore_support(
                a, b, beta=beta, average=average, zero_division=skz(zero_division)
            )
            for source in (got, row):
                assert_close(source["precision"], p, f"{average} precision")
                assert_close(source["recall"], r, f"{average} recall")
                assert_close(source[name], f, f"{average} {name}")


@pytest.mark.parametrize("kind", KINDS)
def test_accuracy_balanced_accuracy_mcc(kind: str) -> None:
    frame = predictions(kind)
    names = ["accuracy", "balanced_accuracy", "MCC"]
    averaged = {avg: frame.ireval.rates("y", "yhat", by="g", metrics=names, average=avg)
                for avg in ("micro", "macro", "weighted")}
    binary = kind.startswith("binary")
    plain = frame.ireval.rates("y", "yhat", by="g", metrics=names, zero_division=0) if binary else None
    expressions = frame.group_by("g").agg(
        C.accuracy("y", "yhat", average="macro"), C.balanced_accuracy("y", "yhat", average="weighted"),
        C.mcc("y", "yhat", average="micro"),
    )
    for key, part in groups(frame):
        a, b = part["y"].to_numpy(), part["yhat"].to_numpy()
        theirs = {
            "accuracy": skm.accuracy_score(a, b),
            "balanced_accuracy": skm.balanced_accuracy_score(a, b),
            "MCC": skm.matthews_corrcoef(a, b),
        }
        sources = [values(t, g=key) for t in averaged.values()]
        sources.append(expressions.filter(g=key).row(0, named=True))
        if plain is not None:
            sources.append(values(plain, g=key))
        for got in sources:
            for name, value in theirs.items():
                assert_close(got[name], value, f"group {key} {name}")


def _binary_scores(kind: str) -> pl.DataFrame:
    return predictions(kind).select("g", "y", "s")


@pytest.mark.parametrize("kind", ["binary_int", "binary_bool"])
def test_roc_and_pr_curves(kind: str) -> None:
    frame = _binary_scores(kind)
    roc = frame.ireval.roc("y", "s", by="g")
    pr = frame.ireval.pr_curve("y", "s", by="g")
    assert roc.equals(pr)
    for key, part in groups(frame):
        a, s = part["y"].to_numpy(), part["s"].to_numpy()
        ours = roc.filter(g=key)
        assert ours.height == part["s"].n_unique()
        fpr, tpr, thresholds = skm.roc_curve(a, s, drop_intermediate=False)
        assert thresholds[0] == np.inf and fpr[0] == 0 and tpr[0] == 0
        np.testing.assert_array_equal(ours["threshold"].to_numpy(), thresholds[1:])
        np.testing.assert_array_equal(ours["fpr"].to_numpy(), fpr[1:])  # one division each: exact
        np.testing.assert_array_equal(ours["tpr"].to_numpy(), tpr[1:])  # one division each: exact
        precision, recall, pr_thresholds = skm.precision_recall_curve(a, s, drop_intermediate=False)
        assert precision[-1] == 1 and recall[-1] == 0
        np.testing.assert_array_equal(ours["threshold"].to_numpy(), pr_thresholds[::-1])
        np.testing.assert_array_equal(ours["precision"].to_numpy(), precision[-2::-1])
        np.testing.assert_array_equal(ours["recall"].to_numpy(), recall[-2::-1])  # one division each: exact


@pytest.mark.parametrize("kind", ["binary_int", "binary_bool"])
def test_det_curve(kind: str) -> None:
    frame = _binary_scores(kind)
    roc = frame.ireval.roc("y", "s", by="g")
    for key, part in groups(frame):
        ours = roc.filter(g=key).with_row_index()
        fpr, fnr, thresholds = skm.det_curve(part["y"].to_numpy(), part["s"].to_numpy())
        no_fp = ours.filter(pl.col("fp") == 0)
        first = no_fp["index"].max() if no_fp.height else None
        last = ours.filter(pl.col("tp") == pl.col("tp").max())["index"].min()
        kept = ours.filter(pl.col("index").is_between(first or 0, last))
        expected_fpr = kept["fpr"].to_list()
        expected_fnr = (kept["fn"] / (kept["tp"] + kept["fn"])).to_list()
        expected_thresholds = kept["threshold"].to_list()
        if first is None:  # scikit-learn starts from its own origin point
            expected_fpr, expected_fnr, expected_thresholds = (
                [0.0, *expected_fpr], [1.0, *expected_fnr], [np.inf, *expected_thresholds]
            )
        np.testing.assert_array_equal(thresholds[::-1], expected_thresholds)
        np.testing.assert_allclose(fpr[::-1], expected_fpr, rtol=0, atol=TOL)
        np.testing.assert_allclose(fnr[::-1], expected_fnr, rtol=0, atol=TOL)


@pytest.mark.parametrize("kind", ["binary_int", "binary_bool"])
def test_roc_auc_average_precision_pr_auc(kind: str) -> None:
    frame = _binary_scores(kind)
    scores = frame.group_by("g").agg(
        C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s")
    )
    for key, part in groups(frame):
        a, s = part["y"].to_numpy(), part["s"].to_numpy()
        row = scores.filter(g=key).row(0, named=True)
        precision, recall, _ = skm.precision_recall_curve(a, s, drop_intermediate=False)
        assert_close(row["ROC_AUC"], skm.roc_auc_score(a, s), "ROC AUC")
        assert_close(row["average_precision"], skm.average_precision_score(a, s), "AP")
        assert_close(row["PR_AUC"], skm.auc(recall, precision), "PR AUC")


def test_one_vs_rest_curves_from_a_score_per_class() -> None:
    frame = predictions("multi_str").select("g", "y")
    rng = np.random.default_rng(3)
    probs = np.round(rng.dirichlet([1, 1, 1, 1, 1], frame.height) * 10) / 10
    classes = ["ant", "bee", "cat", "dog", "eel"]
    frame = frame.with_columns(pl.Series(f"p_{c}", probs[:, i]) for i, c in enumerate(classes))
    mapping = {c: f"p_{c}" for c in classes}
    curves = frame.ireval.roc("y", mapping, by="g")
    assert curves.columns[:3] == ["g", "class", "threshold"]
    for key, part in groups(frame):
        for c in classes:
            ours = curves.filter(g=key, **{"class": c})
            a, s = (part["y"] == c).to_numpy(), part[f"p_{c}"].to_numpy()
            if a.all() or not a.any():
                assert ours["tpr"].is_null().all() or ours["fpr"].is_null().all()
                continue
            fpr, tpr, thresholds = skm.roc_curve(a, s, drop_intermediate=False)
            np.testing.assert_array_equal(ours["threshold"].to_numpy(), thresholds[1:])
            np.testing.assert_array_equal(ours["fpr"].to_numpy(), fpr[1:])  # one division each: exact
            np.testing.assert_array_equal(ours["tpr"].to_numpy(), tpr[1:])  # one division each: exact


def _reference_eer(fpr: np.ndarray, tpr: np.ndarray) -> float:
    # along the ROC polyline FPR + TPR strictly grows; FPR = FNR exactly where it equals 1
    return float(np.interp(1.0, fpr + tpr, fpr))


def _reference_best(fpr: np.ndarray, tpr: np.ndarray, thresholds: np.ndarray, p: int, n: int) -> dict:
    tp, fp = np.round(tpr * p), np.round(fpr * n)  # exact counts, then our formulas
    tpr, fpr = tp / p, fp / n
    table = {
        "youden": tpr - fpr,
        "accuracy": (tp + n - fp) / (p + n),
        "f1": 2 * tp / (tp + fp + p),
        "closest_to_01": -(fpr**2 + (1 - tpr) ** 2),
    }
    return {name: float(thresholds[np.argmax(v)]) for name, v in table.items()}


@pytest.mark.parametrize("kind", ["binary_int", "binary_bool"])
def test_equal_error_rate_and_best_threshold(kind: str) -> None:
    frame = _binary_scores(kind)
    criteria = ["youden", "accuracy", "f1", "closest_to_01"]
    scores = frame.group_by("g").agg(
        C.equal_error_rate("y", "s"),
        *[C.best_threshold("y", "s", criterion=c).alias(c) for c in criteria],  # type: ignore[arg-type]
    )
    for key, part in groups(frame):
        a, s = part["y"].to_numpy(), part["s"].to_numpy()
        fpr, tpr, thresholds = skm.roc_curve(a, s, drop_intermediate=False)
        row = scores.filter(g=key).row(0, named=True)
        eer = _reference_eer(fpr, tpr)
        assert_close(row["EER"], eer, "EER")
        fnr_at = 1 - np.interp(1.0, fpr + tpr, tpr)
        assert abs(fnr_at - eer) < 1e-9  # the reference point really has FPR = FNR
        best = _reference_best(fpr[1:], tpr[1:], thresholds[1:], int(a.sum()), int((~a.astype(bool)).sum()))
        for c in criteria:
            assert row[c] == best[c], c


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=25),
    zero_division=st.sampled_from([0, 1]),
)
def test_binary_rates_on_small_frames(pairs: list[tuple[bool, bool]], zero_division: int) -> None:
    """Degenerate groups included: one class only, nothing predicted positive, no negatives..."""
    a = np.array([x for x, _ in pairs])
    b = np.array([y for _, y in pairs])
    frame = pl.DataFrame({"y": a, "yhat": b})
    got = values(frame.ireval.rates("y", "yhat", zero_division=zero_division))
    p, r, f, _ = skm.precision_recall_fscore_support(
        a, b, average="binary", pos_label=True, zero_division=zero_division
    )
    theirs = {
        "precision": p, "recall": r, "F1": f, "accuracy": skm.accuracy_score(a, b),
        "balanced_accuracy": skm.balanced_accuracy_score(a, b),
    }
    if zero_division == 0:
        theirs["MCC"] = skm.matthews_corrcoef(a, b)
    for name, value in theirs.items():
        assert_close(got[name], value, name)


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=30).filter(
        lambda rows: len({y for y, _ in rows}) == 2
    )
)
def test_scores_on_small_frames(rows: list[tuple[bool, int]]) -> None:
    a = np.array([y for y, _ in rows])
    s = np.array([v / 6 for _, v in rows])
    frame = pl.DataFrame({"y": a, "s": s})
    row = frame.select(C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s")).row(0)
    precision, recall, _ = skm.precision_recall_curve(a, s, drop_intermediate=False)
    assert_close(row[0], skm.roc_auc_score(a, s), "ROC AUC")
    assert_close(row[1], skm.average_precision_score(a, s), "AP")
    assert_close(row[2], skm.auc(recall, precision), "PR AUC")
    fpr, tpr, _ = skm.roc_curve(a, s, drop_intermediate=False)
    curve = frame.ireval.roc("y", "s")
    np.testing.assert_array_equal(curve["fpr"].to_numpy(), fpr[1:])  # one division each: exact
    np.testing.assert_array_equal(curve["tpr"].to_numpy(), tpr[1:])  # one division each: exact


@settings(max_examples=80, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abcd")), min_size=1, max_size=20),
    average=st.sampled_from(["micro", "macro", "weighted"]),
    zero_division=st.sampled_from([None, 0, 1]),
)
def test_averages_on_small_frames(
    pairs: list[tuple[str, str]], average: str, zero_division: float | None
) -> None:
    """Classes only predicted, only actual, or a single class; both the expressions and the namespace."""
    a = np.array([x for x, _ in pairs])
    b = np.array([y for _, y in pairs])
    frame = pl.DataFrame({"y": a, "yhat": b})
    names = ["precision", "recall", "F1", "accuracy", "balanced_accuracy"]
    got = values(frame.ireval.rates("y", "yhat", metrics=names, average=average, zero_division=zero_division))
    options: dict[str, Any] = {"average": average, "zero_division": zero_division}
    row = frame.select(C.precision("y", "yhat", **options), C.f1("y", "yhat", **options)).row(0, named=True)
    p, r, f, _ = skm.precision_recall_fscore_support(a, b, average=average, zero_division=skz(zero_division))
    theirs = {
        "precision": p, "recall": r, "F1": f, "accuracy": skm.accuracy_score(a, b),
        "balanced_accuracy": skm.balanced_accuracy_score(a, b),
    }
    for name, value in theirs.items():
        assert_close(got[name], value, f"{average} {name}")
    assert_close(row["precision"], p, "expression precision")
    assert_close(row["F1"], f, "expression F1")
    # scikit-learn's MCC is 0 where it is undefined: our zero_division=0
    mcc = frame.select(C.mcc("y", "yhat", average=average, zero_division=0)).item()  # type: ignore[arg-type]
    assert_close(mcc, skm.matthews_corrcoef(a, b), "MCC")


def test_weighted_average_when_every_defined_class_has_no_support() -> None:
    # precision is undefined for 'a' (never predicted) and 0 for 'b', which has no actual rows
    a, b = np.array(["a", "a"]), np.array(["b", "b"])
    frame = pl.DataFrame({"y": a, "yhat": b})
    ours = frame.select(C.precision("y", "yhat", average="weighted")).item()
    p, _, _, _ = skm.precision_recall_fscore_support(a, b, average="weighted", zero_division=np.nan)
    assert ours == p == 0.0
