"""Fuzzing the rest of classification: sample weights, chosen thresholds, probabilities, multi-class scores.

Random cases (one to three models, tied scores, zero and fractional weights,
classes missing from a model) are checked against scikit-learn and for the
invariants: the same bits after shuffling rows, under either engine, under 1
and several polars threads; eager == lazy == pandas; the caller's frames
unchanged; nothing read before the user collects; bad weights, probabilities
and labels reported as one plain ``ValueError``/``TypeError`` naming the column.
``FRAME_EVAL_FUZZ_EXAMPLES`` sets the number of examples (see ``fuzz_support``).
"""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from fuzz_support import (
    EXAMPLES,
    FUZZ,
    CountingSource,
    assert_clean_error,
    full_frames,  # noqa: F401 - an autouse fixture: examples print in full
    raised,
    unchanged,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import frame_eval  # noqa: F401

skm = pytest.importorskip("sklearn.metrics")
calibration = pytest.importorskip("sklearn.calibration")
pd = pytest.importorskip("pandas")

TOL = 1e-12
CLASSES = ["a", "b", "c", "d"]
SCORES = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.floats(0, 1, allow_nan=False))
WEIGHTS = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 0.5]), st.floats(0, 10, allow_nan=False))


@st.composite
def weighted_cases(draw: st.DrawFn) -> pl.DataFrame:
    """``[model, y, yhat, s, w]``: 0/1 labels, scores in [0, 1], weights >= 0 (some 0)."""
    rows = []
    for model in [f"m{i}" for i in range(draw(st.integers(1, 3)))]:
        for _ in range(draw(st.integers(1, 14))):
            rows.append(
                (model, draw(st.integers(0, 1)), draw(st.integers(0, 1)), draw(SCORES), draw(WEIGHTS))
            )
    schema = {"model": pl.String, "y": pl.Int64, "yhat": pl.Int64, "s": pl.Float64, "w": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


@st.composite
def multiclass_cases(draw: st.DrawFn) -> tuple[pl.DataFrame, list[str]]:
    """``[model, y, yhat, w, p_a, p_b, ...]``: string labels, a probability per class (rows add to 1)."""
    classes = CLASSES[: draw(st.integers(3, 4))]
    rows = []
    for model in [f"m{i}" for i in range(draw(st.integers(1, 2)))]:
        for _ in range(draw(st.integers(2, 16))):
            raw = [draw(st.integers(0, 4)) for _ in classes]
            total = sum(raw) or len(raw)
            probs = [(r if sum(raw) else 1) / total for r in raw]
            rows.append(
                (model, draw(st.sampled_from(classes)), draw(st.sampled_from(classes)), draw(WEIGHTS), *probs)
            )
    schema = {"model": pl.String, "y": pl.String, "yhat": pl.String, "w": pl.Float64}
    schema.update({f"p_{c}": pl.Float64 for c in classes})
    return pl.DataFrame(rows, schema=schema, orient="row"), classes


def _close(got: Any, want: Any, tol: float = TOL) -> bool:
    if got is None or want is None or (isinstance(want, float) and math.isnan(want)):
        return (got is None or math.isnan(got)) and (want is None or math.isnan(want))
    return abs(got - want) <= tol * max(1.0, abs(want))


def _values(frame: pl.DataFrame) -> dict[tuple[Any, ...], Any]:
    keys = [c for c in frame.columns if c != "value"]
    return {tuple(r[k] for k in keys): r["value"] for r in frame.iter_rows(named=True)}


def _models(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    return {
        key[0]: part for key, part in frame.partition_by("model", as_dict=True, maintain_order=True).items()
    }


# -- values against scikit-learn ---------------------------------------------------------------------


@FUZZ
@given(weighted_cases())
def test_weighted_values_match_scikit_learn(frame: pl.DataFrame) -> None:
    counts = frame.ireval.confusion("y", "yhat", by="model", weight="w")
    rates = _values(
        frame.ireval.rates(
            "y", "yhat", by="model", weight="w", metrics=["precision", "recall", "F1", "accuracy", "MCC"]
        )
    )
    scores = _values(frame.ireval.scores("y", "s", by="model", weight="w", metrics=["ROC_AUC", "AP"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, part in _models(frame).items():
            y, yhat, s, w = (part[c].to_numpy() for c in ("y", "yhat", "s", "w"))
            row = counts.filter(pl.col("model") == model).select("tp", "fp", "fn", "tn").row(0)
            if w.sum() == 0:  # scikit-learn refuses weights that are all 0
                assert row == (0.0, 0.0, 0.0, 0.0)
                continue
            tn, fp, fn, tp = skm.confusion_matrix(y, yhat, labels=[0, 1], sample_weight=w).ravel()
            assert all(_close(a, float(b)) for a, b in zip(row, (tp, fp, fn, tn), strict=True)), (model, row)
            p, r, f, _ = skm.precision_recall_fscore_support(
                y, yhat, average="binary", sample_weight=w, zero_division=np.nan
            )
            for name, want in (
                ("precision", p),
                ("recall", r),
                ("F1", f),
                ("accuracy", skm.accuracy_score(y, yhat, sample_weight=w)),
            ):
                assert _close(rates[(model, name)], float(want)), (model, name, rates[(model, name)], want)
            positive, negative = w[y == 1].sum(), w[y == 0].sum()
            if positive > 0 and negative > 0:
                assert _close(scores[(model, "ROC_AUC")], skm.roc_auc_score(y, s, sample_weight=w)), model
            if positive > 0:
                want = skm.average_precision_score(y, s, sample_weight=w)
                assert _close(scores[(model, "average_precision")], want), model


@FUZZ
@given(
    weighted_cases(),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.7, 1.0]), min_size=1, max_size=4, unique=True),
    st.booleans(),
)
def test_rates_at_chosen_thresholds_match_hard_predictions(
    frame: pl.DataFrame, thresholds: list[float], inclusive: bool
) -> None:
    thresholds = sorted(thresholds)  # rates() takes them in increasing order
    got = frame.ireval.rates(
        "y",
        score="s",
        thresholds=thresholds,
        inclusive=inclusive,
        by="model",
        metrics=["TP", "FP", "FN", "TN", "recall", "precision"],
    )
    values = _values(got)
    for t in thresholds:
        hard = frame.with_columns(
            ((pl.col("s") >= t) if inclusive else (pl.col("s") > t)).cast(pl.Int64).alias("yhat")
        )
        want = _values(
            hard.ireval.rates(
                "y", "yhat", by="model", metrics=["TP", "FP", "FN", "TN", "recall", "precision"]
            )
        )
        for (model, metric), value in want.items():
            assert values[(model, t, metric)] == value or (
                value is None and values[(model, t, metric)] is None
            )


@FUZZ
@given(weighted_cases())
def test_binary_probabilities_match_scikit_learn(frame: pl.DataFrame) -> None:
    got = _values(frame.ireval.probabilities("y", "s", by="model", metrics=["log_loss", "brier"]))
    weighted = _values(
        frame.ireval.probabilities("y", "s", by="model", weight="w", metrics=["log_loss", "brier"])
    )
    bins = frame.ireval.calibration("y", "s", by="model", n_bins=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, part in _models(frame).items():
            y, s, w = part["y"].to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
            assert _close(got[(model, "log_loss")], skm.log_loss(y, s, labels=[0, 1]), 1e-12)
            assert _close(got[(model, "brier")], skm.brier_score_loss(y, s, pos_label=1), 1e-12)
            if w.sum() > 0:
                assert _close(
                    weighted[(model, "log_loss")], skm.log_loss(y, s, labels=[0, 1], sample_weight=w)
                )
                assert _close(
                    weighted[(model, "brier")], skm.brier_score_loss(y, s, sample_weight=w, pos_label=1)
                )
            if len(set(y)) == 2:
                true, pred = calibration.calibration_curve(y, s, n_bins=4)
                mine = bins.filter(pl.col("model") == model)
                assert np.allclose(mine["fraction_positive"].to_numpy(), true, rtol=0, atol=1e-12)
                assert np.allclose(mine["mean_predicted"].to_numpy(), pred, rtol=0, atol=1e-12)


@FUZZ
@given(multiclass_cases(), st.sampled_from(["macro", "weighted"]), st.booleans())
def test_multiclass_scores_match_scikit_learn(
    case: tuple[pl.DataFrame, list[str]], average: str, weighted: bool
) -> None:
    frame, classes = case
    columns = {c: f"p_{c}" for c in classes}
    options: dict[str, Any] = {"weight": "w"} if weighted else {}
    ovr = _values(
        frame.ireval.scores("y", columns, by="model", average=average, metrics=["ROC_AUC", "AP"], **options)
    )
    top2 = _values(
        frame.ireval.scores("y", columns, by="model", average="macro", metrics=["top_k_accuracy(k=2)"])
    )
    probs = _values(
        frame.ireval.probabilities("y", columns, by="model", metrics=["log_loss", "brier"], **options)
    )
    report = frame.ireval.rates(
        "y", "yhat", by="model", average=average, metrics=["precision", "recall", "F1"], **options
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model, part in _models(frame).items():
            y = part["y"].to_list()
            p = part.select(columns.values()).to_numpy()
            w = part["w"].to_numpy() if weighted else None
            if w is not None and w.sum() == 0:
                continue
            assert _close(
                top2[(model, "top_k_accuracy(k=2)")], skm.top_k_accuracy_score(y, p, k=2, labels=classes)
            ), model
            assert _close(
                probs[(model, "log_loss")], skm.log_loss(y, p, labels=classes, sample_weight=w), 1e-12
            )
            if set(y) == set(classes) and (w is None or all(w[np.array(y) == c].sum() > 0 for c in classes)):
                want = skm.roc_auc_score(
                    y, p, multi_class="ovr", average=average, labels=classes, sample_weight=w
                )
                assert _close(ovr[(model, "ROC_AUC")], want), (model, ovr[(model, "ROC_AUC")], want)
                truth = np.array([[label == c for c in classes] for label in y])
                want = skm.average_precision_score(truth, p, average=average, sample_weight=w)
                assert _close(ovr[(model, "average_precision")], want), model
            yhat = part["yhat"].to_list()
            pr, rc, f1, _ = skm.precision_recall_fscore_support(
                y, yhat, average=average, sample_weight=w, zero_division=np.nan
            )
            mine = _values(report.filter(pl.col("model") == model))
            for name, want in (("precision", pr), ("recall", rc), ("F1", f1)):
                assert _close(mine[(model, name)], float(want)), (model, name, mine[(model, name)], want)


# -- invariants ----------------------------------------------------------------------------------------


def _calls(classes: list[str] | None) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    if classes is not None:
        columns = {c: f"p_{c}" for c in classes}
        return [
            ("scores", ("y", columns), {"average": "macro", "weight": "w"}),
            ("scores", ("y", columns), {"average": "weighted", "multi_class": "ovo"}),
            ("probabilities", ("y", columns), {"weight": "w"}),
            ("rates", ("y", "yhat"), {"average": "macro", "weight": "w"}),
            (
                "rates",
                ("y", "yhat"),
                {"average": "weighted", "metrics": ["MCC", "kappa", "balanced_accuracy"]},
            ),
            ("confusion_matrix", ("y", "yhat"), {"weight": "w"}),
            ("classification_report", ("y", "yhat"), {"weight": "w"}),
        ]
    return [
        ("confusion", ("y", "yhat"), {"weight": "w"}),
        ("rates", ("y", "yhat"), {"weight": "w"}),
        ("rates", ("y",), {"score": "s", "thresholds": [0.25, 0.5], "weight": "w"}),
        ("roc", ("y", "s"), {"weight": "w"}),
        ("det_curve", ("y", "s"), {"weight": "w"}),
        (
            "scores",
            ("y", "s"),
            {"weight": "w", "metrics": ["ROC_AUC", "AP", "PR_AUC", "EER", "best_threshold"]},
        ),
        ("best_threshold", ("y", "s"), {"weight": "w", "criterion": "f1"}),
        ("best_threshold", ("y", "s"), {"criterion": "youden", "min_specificity": 0.5}),
        ("probabilities", ("y", "s"), {"weight": "w", "metrics": ["log_loss", "brier"]}),
        ("probabilities", ("y", "s"), {"metrics": ["log_loss", "brier", "ECE"]}),  # ECE takes no weights
        ("calibration", ("y", "s"), {"strategy": "quantile", "n_bins": 3}),
    ]


def _call(frame: Any, call: tuple[str, tuple[Any, ...], dict[str, Any]]) -> Any:
    method, args, options = call
    return getattr(frame.ireval, method)(*args, by="model", **options)


def _check_invariants(frame: pl.DataFrame, classes: list[str] | None) -> None:
    as_pandas = frame.to_pandas()
    same_inputs = unchanged(frame, as_pandas)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=3)
    for call in _calls(classes):
        eager = _call(frame, call)
        lazy = _call(frame.lazy(), call)
        assert isinstance(lazy, pl.LazyFrame)
        for got in (lazy.collect(), lazy.collect(engine="streaming"), _call(shuffled, call)):
            assert got.equals(eager), call
        assert pl.from_pandas(_call(as_pandas, call)).equals(eager, null_equal=True) or _same_values(
            pl.from_pandas(_call(as_pandas, call)), eager
        ), call
    same_inputs()


def _same_values(got: pl.DataFrame, want: pl.DataFrame) -> bool:
    """pandas turns nulls of a float column into NaN: equal but for that."""
    if got.columns != want.columns or got.height != want.height:
        return False
    return all(
        all(
            _close(a, b) if isinstance(b, float) or b is None else a == b
            for a, b in zip(got[c], want[c], strict=True)
        )
        for c in want.columns
    )


@FUZZ
@given(weighted_cases())
def test_binary_results_are_the_same_bits_everywhere(frame: pl.DataFrame) -> None:
    _check_invariants(frame, None)


@FUZZ
@given(multiclass_cases())
def test_multiclass_results_are_the_same_bits_everywhere(case: tuple[pl.DataFrame, list[str]]) -> None:
    _check_invariants(*case)


_THREADS_SCRIPT = """
import sys, pickle, polars as pl, frame_eval
for name, calls in pickle.loads(bytes.fromhex(sys.argv[1])):
    frame = pl.read_parquet(f"{sys.argv[2]}/{name}.parquet")
    for i, (m, a, o) in enumerate(calls):
        out = f"{sys.argv[2]}/{name}_{sys.argv[3]}_{i}.parquet"
        getattr(frame.ireval, m)(*a, by="model", **o).write_parquet(out)
"""
THREADS = ("1", "2", "7")


@settings(parent=FUZZ, max_examples=max(2, EXAMPLES // 10))
@given(frame=weighted_cases(), case=multiclass_cases())
def test_thread_counts_give_the_same_bits(
    frame: pl.DataFrame, case: tuple[pl.DataFrame, list[str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Each thread count in a process of its own (polars reads POLARS_MAX_THREADS when it starts)."""
    folder = tmp_path_factory.mktemp("threads")
    work = [("binary", frame, _calls(None)), ("multi", case[0], _calls(case[1]))]
    for name, data, _ in work:
        data.write_parquet(folder / f"{name}.parquet")
    order = pickle.dumps([(name, calls) for name, _, calls in work]).hex()
    for threads in THREADS:
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(Path(__file__).parents[1])}
        command = [sys.executable, "-c", _THREADS_SCRIPT, order, str(folder), threads]
        subprocess.run(command, check=True, env=env, timeout=300)
    for name, data, calls in work:
        for i, call in enumerate(calls):
            got = [pl.read_parquet(folder / f"{name}_{t}_{i}.parquet") for t in THREADS]
            assert got[0].equals(got[1]) and got[0].equals(got[2]), (name, call)
            assert got[0].equals(_call(data, call)), (name, call)


@FUZZ
@given(weighted_cases(), st.data())
def test_nothing_is_read_before_the_user_collects_and_once_after(
    frame: pl.DataFrame, data: st.DataObject
) -> None:
    call = data.draw(st.sampled_from(_calls(None)))
    source = CountingSource(frame)
    plan = _call(source.lazy, call)
    assert source.reads == 0
    got = plan.collect()
    assert source.reads == 1
    assert got.equals(_call(frame, call))


# -- bad input ---------------------------------------------------------------------------------------

DEFECTS = {  # name -> (column, value, calls it applies to: "binary" / "multi")
    "negative weight": ("w", -1.0, "both"),
    "NaN weight": ("w", float("nan"), "both"),
    "infinite weight": ("w", float("inf"), "both"),
    "null weight": ("w", None, "both"),
    "probability above 1": ("s", 1.5, "binary"),
    "negative probability": ("s", -0.25, "binary"),
    "class probability above 1": ("p_a", 1.5, "multi"),
    "label without a column": ("y", "zz", "multi"),
}


@FUZZ
@given(weighted_cases(), multiclass_cases(), st.sampled_from(list(DEFECTS)), st.data())
def test_bad_weights_probabilities_and_labels_are_one_clean_error(
    frame: pl.DataFrame, case: tuple[pl.DataFrame, list[str]], defect: str, data: st.DataObject
) -> None:
    column, value, kind = DEFECTS[defect]
    if kind == "both":
        kind = data.draw(st.sampled_from(["binary", "multi"]))
    source, classes = (frame, None) if kind == "binary" else case
    calls = [
        c
        for c in _calls(classes)
        if c[2].get("weight") == column
        or (column in c[1] and not isinstance(c[1][-1], str) if column == "y" else column in c[1])
        or (isinstance(c[1][-1], dict) and column in c[1][-1].values())
    ]
    if column == "s":  # probabilities are read as probabilities by probabilities() and calibration()
        calls = [c for c in calls if c[0] in ("probabilities",)]
    if column == "p_a":  # a probability column outside [0, 1]: the ROC AUC and probability checks
        calls = [c for c in calls if c[0] == "probabilities" or (c[0] == "scores")]
    assume(calls)
    call = data.draw(st.sampled_from(calls))
    row = data.draw(st.integers(0, source.height - 1))
    values = source[column].to_list()
    values[row] = value
    bad = source.with_columns(pl.Series(column, values, dtype=source.schema[column]))
    if column == "p_a":  # keep the row adding to 1 for the ROC AUC check: the range check must fire
        bad = bad.with_columns(
            pl.when(pl.int_range(pl.len()) == row).then(pl.lit(-0.5)).otherwise(pl.col("p_b")).alias("p_b")
        )
    as_pandas = bad.to_pandas()
    same_inputs = unchanged(bad, as_pandas)
    named = column if column != "p_a" else None  # the sum check names the columns together
    assert_clean_error(raised(lambda: _call(bad, call)), named)
    assert_clean_error(raised(lambda: _call(bad.lazy(), call).collect()), named)
    assert_clean_error(raised(lambda: _call(bad.lazy(), call).collect(engine="streaming")), named)
    if not (value is None and column == "w"):  # pandas: a null weight is NaN, reported as NaN
        assert_clean_error(raised(lambda: _call(as_pandas, call)), named)
    same_inputs()
