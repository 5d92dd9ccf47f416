"""Classification values that can be trusted (issue 10): exact ties, scikit-learn's NaN policy, clear
errors for labels the defaults cannot read, and the same bits on every call, thread count, engine and
row order; bit-identical to scikit-learn where its operation order allows it (see the README)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's zero-division and one-class warnings
        yield


# -- best_threshold: ties compared exactly -------------------------------------------------------

def test_best_threshold_ties_are_exact_and_go_to_the_highest_threshold() -> None:
    # Youden's J is exactly 2/3 at 2 and at 1 (as floats 0.6666666666666667 and 0.6666666666666666);
    # the distance to (0, 1) is exactly 1/3 at both
    df = pl.DataFrame({"y": [1, 1, 1, 0, 0, 0], "s": [2, 2, 1, 1, 0, 0]})
    got = df.select(
        C.best_threshold("y", "s", criterion="youden").alias("youden"),
        C.best_threshold("y", "s", criterion="closest_to_01").alias("closest"),
        C.best_threshold("y", "s", criterion="accuracy").alias("accuracy"),
    ).row(0)
    assert got == (2.0, 2.0, 2.0)
    # F1 = 2 tp / (tp + fp + P), P = 2: 2/3 at threshold 4 (tp 1, fp 0) and 4/6 at threshold 1
    tie = pl.DataFrame({"y": [1, 0, 0, 1], "s": [4.0, 3.0, 2.0, 1.0]})
    assert tie.select(C.best_threshold("y", "s", criterion="f1")).item() == 4.0
    # P = 3: 2/4, 4/5, 4/6, 4/7, 6/8, 6/9, 6/10 from 9 down: the best is at 8
    exact = pl.DataFrame({"y": [1, 1, 0, 0, 1, 0, 0], "s": [9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0]})
    assert exact.select(C.best_threshold("y", "s", criterion="f1")).item() == 8.0


def test_best_threshold_equal_values_as_fractions_pick_the_highest() -> None:
    # many thresholds with Youden's J = 1/3 computed as different float expressions
    y = [1] * 3 + [0] * 3 + [1] * 3 + [0] * 9
    s = [10.0] * 3 + [9.0] * 3 + [8.0] * 3 + [7.0] * 9
    df = pl.DataFrame({"y": y, "s": s})
    # at 10: tpr 1/2, fpr 0 -> 1/2; at 9: 1/2 - 1/4; at 8: 1 - 1/4 = 3/4; at 7: 0: best 8
    assert df.select(C.best_threshold("y", "s")).item() == 8.0
    # mirror: J equal at 10 (1/2 - 0) and at 8 (1 - 1/2) when the negatives between weigh 1/2
    y2 = [1] * 3 + [0] * 6 + [1] * 3 + [0] * 6
    s2 = [10.0] * 3 + [9.0] * 6 + [8.0] * 3 + [7.0] * 6
    assert pl.DataFrame({"y": y2, "s": s2}).select(C.best_threshold("y", "s")).item() == 10.0


# -- zero_division=nan: scikit-learn's way to leave undefined classes out ------------------------

def _sk(name: str, a: np.ndarray, b: np.ndarray, average: str | None, zero_division: float) -> object:
    p, r, f, _ = skm.precision_recall_fscore_support(a, b, average=average, zero_division=zero_division)
    return {"precision": p, "recall": r, "F1": f}[name]


def _same(ours: float | None, theirs: float) -> bool:
    if ours is None:
        return False
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
def test_zero_division_nan_leaves_undefined_classes_out_of_averages(average: str) -> None:
    a, b = np.array(list("aabc")), np.array(list("abbb"))
    df = pl.DataFrame({"y": a, "yhat": b})
    nan = float("nan")
    got = dict(df.ireval.rates("y", "yhat", metrics=["precision", "recall", "F1"], average=average,
                               zero_division=nan).rows())
    for name in ("precision", "recall", "F1"):
        theirs = _sk(name, a, b, average, np.nan)
        assert _same(got[name], float(theirs)), (name, got[name], theirs)  # type: ignore[arg-type]
        expr = {"precision": C.precision, "recall": C.recall, "F1": C.f1}[name]
        assert _same(df.select(expr("y", "yhat", average=average, zero_division=nan)).item(), theirs)
    if average == "macro":
        assert got["precision"] == pytest.approx(2 / 3, abs=1e-15)  # the example: 0.6667


def test_zero_division_nan_gives_nan_per_class_and_when_nothing_is_defined() -> None:
    df = pl.DataFrame({"y": list("aabc"), "yhat": list("abbb")})
    per_class = df.ireval.rates("y", "yhat", metrics=["precision"], positive=None, zero_division=float("nan"))
    values = dict(zip(per_class["class"], per_class["value"], strict=True))
    assert values["a"] == 1.0 and math.isnan(values["c"])
    none = pl.DataFrame({"y": ["a", "a"], "yhat": ["b", "b"]})  # precision of 'a' undefined, of 'b' 0
    p = none.select(C.precision("y", "yhat", average="macro", zero_division=float("nan"))).item()
    assert p == 0.0
    only = pl.DataFrame({"y": [1, 1], "yhat": [0, 0]})
    assert math.isnan(only.select(C.precision("y", "yhat", zero_division=float("nan"))).item())


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("zero_division", [None, 0, 1, float("nan")])
def test_averages_are_bit_identical_to_scikit_learn(seed: int, zero_division: float | None) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    classes = int(rng.integers(2, 7))  # fewer than 8 classes: NumPy adds them one by one, as we do
    a = rng.choice(classes, n, p=np.sort(rng.dirichlet(np.ones(classes)))[::-1])
    b = np.where(rng.random(n) < 0.4, a, rng.choice(classes + 1, n))
    df = pl.DataFrame({"y": a, "yhat": b})
    sk_zero = np.nan if zero_division is None else zero_division
    for average in ("micro", "macro", "weighted"):
        got = dict(df.ireval.rates("y", "yhat", metrics=["precision", "recall", "F1", "F(beta=3)"],
                                   average=average, zero_division=zero_division).rows())
        for beta, name in ((1.0, "F1"), (3.0, "F3")):
            p, r, f, _ = skm.precision_recall_fscore_support(
                a, b, beta=beta, average=average, zero_division=sk_zero
            )
            for ours, theirs in ((got["precision"], p), (got["recall"], r), (got[name], f)):
                if math.isnan(theirs) and zero_division is None:
                    assert ours is None
                else:
                    assert _same(ours, float(theirs)), (average, name, ours, theirs)
    whole = dict(df.ireval.rates("y", "yhat", metrics=["accuracy", "balanced_accuracy", "MCC"],
                                 average="macro", zero_division=0).rows())
    assert whole["accuracy"] == skm.accuracy_score(a, b)
    assert whole["balanced_accuracy"] == skm.balanced_accuracy_score(a, b)
    assert whole["MCC"] == skm.matthews_corrcoef(a, b)


@pytest.mark.parametrize("seed", range(8))
def test_binary_rates_are_bit_identical_to_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(5, 3000))
    a, b = rng.random(n) < rng.uniform(0.05, 0.9), rng.random(n) < rng.uniform(0.05, 0.9)
    df = pl.DataFrame({"y": a, "yhat": b})
    got = dict(df.ireval.rates("y", "yhat", metrics=[
        "precision", "recall", "F1", "F(beta=0.5)", "accuracy", "balanced_accuracy", "MCC", "jaccard",
    ], zero_division=0).rows())
    p, r, f, _ = skm.precision_recall_fscore_support(a, b, average="binary", zero_division=0)
    assert (got["precision"], got["recall"], got["F1"]) == (p, r, f)
    assert got["F0.5"] == skm.fbeta_score(a, b, beta=0.5, zero_division=0)
    assert got["accuracy"] == skm.accuracy_score(a, b)
    assert got["balanced_accuracy"] == skm.balanced_accuracy_score(a, b)
    assert got["MCC"] == skm.matthews_corrcoef(a, b)
    assert got["CSI"] == skm.jaccard_score(a, b, zero_division=0)


# -- scores: scikit-learn's terms in its order ---------------------------------------------------

def _score_frame(seed: int, n: int, decimals: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    return pl.DataFrame({"y": y, "s": np.round(rng.random(n) * 0.5 + 0.3 * y, decimals)})


@pytest.mark.parametrize("seed", range(30))
def test_curve_scores_match_scikit_learn_bits_with_few_points_and_1e_15_otherwise(seed: int) -> None:
    df = _score_frame(seed, n=int(np.random.default_rng(seed).integers(4, 60)), decimals=1 + seed % 3)
    y, s = df["y"].to_numpy(), df["s"].to_numpy()
    if y.all() or not y.any():
        pytest.skip("one class")
    got = dict(df.ireval.scores("y", "s").rows())
    precision, recall, _ = skm.precision_recall_curve(y, s)
    theirs = {
        "ROC_AUC": skm.roc_auc_score(y, s),
        "average_precision": skm.average_precision_score(y, s),
        "PR_AUC": skm.auc(recall, precision),
    }
    # ROC AUC is the exact area, rounded once (scikit-learn's trapezoid sum rounds at every step)
    assert got["ROC_AUC"] == pytest.approx(theirs["ROC_AUC"], rel=0, abs=1e-15)
    for name in ("average_precision", "PR_AUC"):
        if len(recall) - 1 < 8:  # NumPy adds fewer than 8 terms one by one, as we do: the same bits
            assert got[name] == theirs[name], (name, got[name], theirs[name])
        else:
            assert got[name] == pytest.approx(theirs[name], rel=0, abs=1e-15), name


# -- errors that say what to pass ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Float64])
def test_default_positive_on_labels_it_cannot_read(dtype: pl.DataType) -> None:
    df = pl.DataFrame({"y": ["1", "0", "1"], "yhat": ["1", "1", "0"], "s": [0.9, 0.2, 0.4]})
    df = df.with_columns(pl.col("y", "yhat").cast(dtype))
    for expr in (C.recall("y", "yhat"), C.confusion("y", "yhat"), C.roc_auc("y", "s"),
                 C.best_threshold("y", "s")):
        with pytest.raises(TypeError, match=r"column 'y' holds .* labels.*pass positive=<label>"):
            df.select(expr)
        lazy = df.lazy().group_by("yhat").agg(expr)  # nothing runs before collect
        for engine in ("in-memory", "streaming"):
            with pytest.raises(TypeError, match="default positive class"):
                lazy.collect(engine=engine)  # type: ignore[arg-type]
    assert df.select(C.recall("y", "yhat", positive=df["y"][0])).item() == 0.5


def test_default_positive_on_integers_beyond_0_and_1() -> None:
    df = pl.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "s": [0.1, 0.8, 0.7, 0.6]})
    for expr in (C.recall("y", "yhat"), C.tp("y", "yhat"), C.average_precision("y", "s")):
        with pytest.raises(ValueError, match=r"'y' holds integer labels other than 0 and 1 \(e.g. 2\)"):
            df.select(expr)
    with pytest.raises(ValueError, match="column 'yhat' holds integer labels other than 0 and 1"):
        pl.DataFrame({"y": [0, 1, 1], "yhat": [0, 3, 1]}).select(C.precision("y", "yhat"))
    assert df.select(C.recall("y", "yhat", positive=2)).item() == 0.0  # the one 2 is predicted 1
    assert df.select(C.recall("y", "yhat", average="macro")).item() == pytest.approx(
        skm.recall_score(df["y"], df["yhat"], average="macro")
    )


def test_score_must_be_a_column_or_a_mapping() -> None:
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, 0.8, 0.7]})
    for method in ("scores", "roc", "pr_curve"):
        with pytest.raises(TypeError, match=r"score must be one column name .* or a mapping .*got list"):
            getattr(df.ireval, method)("y", ["s"])


def test_zero_division_takes_any_real_number() -> None:
    df = pl.DataFrame({"y": [1, 0], "yhat": [0, 0]})
    for number in (1, 1.0, np.int64(1), np.float32(1), np.float64(1), np.uint8(1)):
        assert df.ireval.rates("y", "yhat", metrics=["precision"], zero_division=number)["value"][0] == 1.0
        assert df.select(C.precision("y", "yhat", zero_division=number)).item() == 1.0
    for bad in (True, "1", "warn", [1]):
        with pytest.raises(ValueError, match=r"zero_division must be None .* or a number"):
            df.ireval.rates("y", "yhat", zero_division=bad)
        with pytest.raises(ValueError, match=r"zero_division must be None .* or a number"):
            C.precision("y", "yhat", zero_division=bad)


def test_average_binary_is_the_binary_problem() -> None:
    df = pl.DataFrame({"y": [1, 0, 1, 1], "yhat": [1, 1, 0, 1]})
    plain = df.ireval.rates("y", "yhat", metrics=["precision", "F1"])
    assert df.ireval.rates("y", "yhat", metrics=["precision", "F1"], average="binary").equals(plain)
    assert df.select(C.f1("y", "yhat", average="binary")).item() == skm.f1_score(df["y"], df["yhat"])
    words = pl.DataFrame({"y": ["a", "b"], "yhat": ["a", "a"]})
    assert words.ireval.rates("y", "yhat", metrics=["recall"], average="binary", positive="a").item(0, 1) == 1
    with pytest.raises(TypeError, match="pass positive=<label>"):
        words.select(C.recall("y", "yhat", average="binary"))


def test_shape_wide_on_rates_and_scores() -> None:
    df = pl.DataFrame({"m": ["a", "a", "a", "b", "b", "b"], "y": [1, 0, 1, 0, 1, 0],
                       "yhat": [1, 0, 0, 1, 1, 0], "s": [0.9, 0.2, 0.4, 0.7, 0.8, 0.1]})
    wide = df.ireval.rates("y", "yhat", by="m", metrics=["recall", "PPV", "F2"], shape="wide")
    assert wide.columns == ["m", "recall", "precision", "F2"]
    assert wide.schema["F2"] == pl.Float64
    long = df.ireval.rates("y", "yhat", by="m", metrics=["recall", "PPV", "F2"])
    assert long.pivot("metric", index="m", values="value").equals(wide)
    per_class = df.ireval.rates("y", "yhat", metrics=["recall"], positive=None, shape="wide")
    assert per_class.columns == ["class", "recall"]
    scores = df.lazy().ireval.scores("y", "s", by="m", metrics=["AUC", "AP"], shape="wide")
    assert isinstance(scores, pl.LazyFrame)
    assert scores.collect().columns == ["m", "ROC_AUC", "average_precision"]
    with pytest.raises(ValueError, match="shape must be 'long' or 'wide'"):
        df.ireval.rates("y", "yhat", shape="tall")  # type: ignore[arg-type]
    # synonyms resolve to one measure, so one column
    assert df.ireval.scores("y", "s", metrics=["AP", "average_precision"], shape="wide").width == 1


# -- determinism: threads, engines, row order ------------------------------------------------------

DETERMINISM_SCRIPT = r"""
import sys
import numpy as np
import polars as pl
import frame_eval
from frame_eval import classification as C

out, engine, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(2024)
n = 30_000
y = rng.random(n) < 0.3
frame = pl.DataFrame({
    "model": rng.choice(["m0", "m1", "m2", "m3", "m4"], n),
    "y": y,
    "yhat": rng.random(n) < 0.35,
    "s": np.round(rng.random(n) * 0.6 + 0.3 * y, 3),
    "k": rng.choice(["ant", "bee", "cat", "dog", "eel", "fox"], n),
    "khat": rng.choice(["ant", "bee", "cat", "dog", "eel", "fox", "gnu"], n),
    "w": np.round(rng.random(n) * 3, 2) * (rng.random(n) < 0.9),
    "w4": np.floor(rng.random(n) * 12) / 4 * (rng.random(n) < 0.9),  # quarters: summed in any order
})
if seed:
    frame = frame.sample(fraction=1.0, shuffle=True, seed=seed)
lazy = frame.lazy()
def run(plan):
    return plan.collect(engine=engine)
results = {
    "rates": run(lazy.ireval.rates("y", "yhat", by="model")),
    "per_class": run(lazy.ireval.rates("k", "khat", by="model")),
    "macro": run(lazy.ireval.rates("k", "khat", by="model", average="macro")),
    "weighted": run(lazy.ireval.rates("k", "khat", by="model", average="weighted")),
    "scores": run(lazy.ireval.scores("y", "s", by="model",
                                     metrics=["ROC_AUC", "AP", "PR_AUC", "EER", "best_threshold"])),
    "roc": run(lazy.ireval.roc("y", "s", by="model")),
    "expressions": run(lazy.group_by("model").agg(
        C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s"),
        C.equal_error_rate("y", "s"), C.best_threshold("y", "s", criterion="f1"),
        C.f1("k", "khat", average="macro"), C.precision("k", "khat", average="weighted"),
        C.mcc("k", "khat", average="micro"), C.balanced_accuracy("k", "khat", average="macro"),
    ).sort("model")),
    "weighted_scores": run(lazy.ireval.scores("y", "s", by="model", weight="w",
                                              metrics=["ROC_AUC", "AP", "PR_AUC", "EER", "best_threshold"])),
    "weighted_rates": run(lazy.ireval.rates("k", "khat", by="model", average="weighted", weight="w",
                                            metrics=["F1", "MCC", "kappa", "kappa(weights=quadratic)"])),
    "weighted_roc": run(lazy.ireval.roc("y", "s", by="model", weight="w")),
    "weighted_binary_rates": run(lazy.ireval.rates("y", "yhat", by="model", weight="w")),
    "exact_weighted_scores": run(lazy.ireval.scores(
        "y", "s", by="model", weight="w4", metrics=["ROC_AUC", "AP", "PR_AUC", "EER", "best_threshold"]
    )),
    "exact_weighted_roc": run(lazy.ireval.roc("y", "s", by="model", weight="w4")),
    "exact_weighted_binary_rates": run(lazy.ireval.rates("y", "yhat", by="model", weight="w4")),
    "best": run(lazy.ireval.best_threshold("y", "s", by="model", criterion="recall", min_specificity=0.8)),
    "report": run(lazy.ireval.classification_report("k", "khat", by="model", weight="w")),
    "weighted_expressions": run(lazy.group_by("model").agg(
        C.roc_auc("y", "s", weight="w"), C.average_precision("y", "s", weight="w"),
        C.f1("k", "khat", average="macro", weight="w"), C.cohen_kappa("k", "khat", average="macro",
                                                                     weights="linear", weight="w"),
    ).sort("model")),
}
for name, result in results.items():
    result.write_ipc(f"{out}/{name}.arrow")
"""


def _results(directory: Path) -> dict[str, pl.DataFrame]:
    return {p.stem: pl.read_ipc(p) for p in sorted(directory.glob("*.arrow"))}


def test_values_are_the_same_bits_on_any_threads_engine_and_row_order(tmp_path: Path) -> None:
    script = tmp_path / "determinism.py"
    script.write_text(DETERMINISM_SCRIPT)
    runs = []
    for threads, engine, seed in [("1", "in-memory", 0), ("2", "in-memory", 1), ("8", "in-memory", 2),
                                  ("8", "streaming", 0), ("2", "streaming", 3), ("1", "streaming", 4),
                                  ("8", "in-memory", 0)]:
        out = tmp_path / f"{threads}-{engine}-{seed}"
        out.mkdir()
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, str(script), str(out), engine, str(seed)], check=True, env=env,
                       cwd=ROOT)
        runs.append(((threads, engine, seed), _results(out)))
    (first_setup, first), rest = runs[0], runs[1:]
    assert set(first) == {"rates", "per_class", "macro", "weighted", "scores", "roc", "expressions",
                          "weighted_scores", "weighted_rates", "weighted_roc", "best", "report",
                          "weighted_expressions", "weighted_binary_rates", "exact_weighted_scores",
                          "exact_weighted_roc", "exact_weighted_binary_rates"}
    for setup, results in rest:
        for name, frame in first.items():
            assert results[name].equals(frame), (name, first_setup, setup)
