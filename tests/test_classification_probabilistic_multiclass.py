"""Multi-class log-loss and Brier score, sample weights, calibration curves and ECE against scikit-learn.

scikit-learn averages the rows' terms in row order (NumPy's pairwise sum);
frame_eval sorts them first so that any row order gives the same bits, so
the means agree within 1e-12 relative. Row terms, bins, fractions of
positives and edges are compared exactly.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import classification as C

TOL = 1e-12


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= TOL * max(1.0, abs(want))


def _multiclass(seed: int, n: int, classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    labels = np.array([f"c{k:02d}" for k in range(classes)])
    y = labels[rng.integers(0, classes, n)]
    y[:classes] = labels  # every class present
    raw = rng.random((n, classes)) ** 3
    raw[rng.random((n, classes)) < 0.05] = 0.0  # some exact zeros: clipped by eps
    raw[:, 0] += 1e-3
    probs = raw / raw.sum(axis=1, keepdims=True)
    weights = rng.random(n) * (rng.random(n) > 0.1)  # some zero weights
    columns = {f"p_{label}": probs[:, k] for k, label in enumerate(labels)}
    frame = pl.DataFrame({"y": y, "w": weights, **columns})
    return y, probs, weights, frame


def _mapping(classes: int) -> dict[str, str]:
    return {f"c{k:02d}": f"p_c{k:02d}" for k in range(classes)}


@pytest.mark.parametrize(
    ("seed", "n", "classes"), [(1, 50, 3), (2, 400, 5), (3, 1000, 9), (4, 2000, 20), (5, 60, 2)]
)
def test_multiclass_log_loss_and_brier_match_sklearn(seed: int, n: int, classes: int) -> None:
    y, probs, weights, frame = _multiclass(seed, n, classes)
    prob = _mapping(classes)
    labels = sorted(prob)
    got = frame.select(C.log_loss("y", prob), C.brier_score("y", prob)).row(0)
    assert _close(got[0], skm.log_loss(y, probs, labels=labels))
    assert _close(got[1], skm.brier_score_loss(y, probs, labels=labels))
    weighted = frame.select(C.log_loss("y", prob, weight="w"), C.brier_score("y", prob, weight="w")).row(0)
    assert _close(weighted[0], skm.log_loss(y, probs, labels=labels, sample_weight=weights))
    assert _close(weighted[1], skm.brier_score_loss(y, probs, labels=labels, sample_weight=weights))
    wide = frame.ireval.probabilities("y", prob, weight="w", shape="wide").row(0)
    assert wide == weighted


def test_class_order_in_the_mapping_does_not_matter() -> None:
    _, _, _, frame = _multiclass(6, 500, 12)
    prob = _mapping(12)
    backwards = dict(reversed(list(prob.items())))
    one = frame.select(C.brier_score("y", prob), C.log_loss("y", prob))
    other = frame.select(C.brier_score("y", backwards), C.log_loss("y", backwards))
    assert one.equals(other)


def test_multiclass_scores_per_group_and_any_row_order() -> None:
    parts = [_multiclass(10 + i, 300 + 50 * i, 4)[3].with_columns(model=pl.lit(f"m{i}")) for i in range(4)]
    frame = pl.concat(parts)
    prob = _mapping(4)
    result = frame.ireval.probabilities("y", prob, by="model", metrics=["log_loss", "brier"], shape="wide")
    for part, row in zip(parts, result.rows(), strict=True):
        y = part["y"].to_numpy()
        probs = part.select(prob.values()).to_numpy()
        assert _close(row[1], skm.log_loss(y, probs, labels=sorted(prob)))
        assert _close(row[2], skm.brier_score_loss(y, probs, labels=sorted(prob)))
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=2).lazy()
    for engine in ("in-memory", "streaming"):
        again = shuffled.ireval.probabilities("y", prob, by="model", shape="wide")
        assert again.collect(engine=engine).equals(result)


def test_binary_with_weights_matches_sklearn() -> None:
    rng = np.random.default_rng(8)
    y = rng.random(2000) < 0.3
    p = np.clip(rng.random(2000) * 0.8 + 0.2 * y, 0, 1)
    p[:3] = [0.0, 1.0, 0.5]
    w = rng.random(2000)
    frame = pl.DataFrame({"y": y, "p": p, "w": w})
    got = frame.ireval.probabilities("y", "p", weight="w", shape="wide").row(0)
    assert _close(got[0], skm.log_loss(y, p, sample_weight=w))
    assert _close(got[1], skm.brier_score_loss(y, p, sample_weight=w))
    plain = frame.select(C.log_loss("y", "p"), C.brier_score("y", "p")).row(0)
    assert _close(plain[0], skm.log_loss(y, p)) and _close(plain[1], skm.brier_score_loss(y, p))


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize(
    ("seed", "n", "n_bins", "decimals"),
    [(1, 10, 3, 2), (2, 500, 5, 3), (3, 2000, 10, 1), (4, 3000, 17, 4), (5, 100, 1, 2)],
)
def test_calibration_matches_calibration_curve(
    strategy: str, seed: int, n: int, n_bins: int, decimals: int
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    y[:2] = [True, False]
    p = np.round(rng.random(n), decimals)
    frame = pl.DataFrame({"y": y, "p": p})
    curve = frame.ireval.calibration("y", "p", n_bins=n_bins, strategy=strategy)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    assert curve["fraction_positive"].to_list() == prob_true.tolist()  # exact: integer ratios
    assert np.allclose(curve["mean_predicted"].to_numpy(), prob_pred, rtol=0, atol=TOL)
    counts = curve["count"].to_numpy()
    assert counts.sum() == n
    ece = frame.select(C.expected_calibration_error("y", "p", n_bins=n_bins, strategy=strategy)).item()
    assert abs(ece - np.sum(counts / n * np.abs(prob_pred - prob_true))) <= TOL
    name = f"ECE(n_bins={n_bins},strategy={strategy})"
    via = frame.ireval.probabilities("y", "p", metrics=[name]).item(0, 1)
    assert via == ece


def test_uniform_edges_are_linspace_and_ties_go_to_the_lower_bin() -> None:
    frame = pl.DataFrame({"y": [0, 1, 1, 0, 1], "p": [0.2, 0.4, 0.6, 0.8, 1.0]})
    curve = frame.ireval.calibration("y", "p", n_bins=5)
    prob_true, prob_pred = calibration_curve(frame["y"], frame["p"], n_bins=5)
    assert curve["bin"].to_list() == [0, 1, 2, 3, 4]
    assert curve["fraction_positive"].to_list() == prob_true.tolist()
    assert curve["mean_predicted"].to_list() == prob_pred.tolist()


def _error(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


def test_bad_probabilities_name_column_row_value_and_fix() -> None:
    frame = pl.DataFrame(
        {"y": ["a", "b", "a", "b"], "pa": [0.5, 1.2, 0.3, 1.5], "pb": [0.5, -0.2, 0.7, -0.5]}
    )
    message = _error(lambda: frame.ireval.probabilities("y", {"a": "pa", "b": "pb"}))
    assert "'pa'" in message and "outside [0, 1]" in message and "row 1, counting from 0" in message
    assert "1.2" in message
    lazy = frame.lazy().ireval.probabilities("y", {"a": "pa", "b": "pb"})  # lazy: raises when collected
    with pytest.raises(ValueError, match="outside"):
        lazy.collect()


def test_rows_not_summing_to_one_are_refused_with_sklearns_tolerance() -> None:
    ok = pl.DataFrame({"y": ["a", "b"], "pa": [0.5, 0.3 + 1e-9], "pb": [0.5, 0.7]})
    ok.ireval.probabilities("y", {"a": "pa", "b": "pb"})  # within 1e-8 + sqrt(eps)
    bad = pl.DataFrame({"y": ["a", "b", "a"], "pa": [0.5, 0.3, 0.2], "pb": [0.5, 0.6, 0.7]})
    message = _error(lambda: bad.ireval.probabilities("y", {"a": "pa", "b": "pb"}))
    assert "do not sum to 1" in message and "row 1, counting from 0" in message and "0.8999" in message
    assert "divide each row's probabilities by their sum" in message


def test_unknown_class_and_negative_weight_are_refused() -> None:
    frame = pl.DataFrame({"y": ["a", "c"], "pa": [0.5, 0.5], "pb": [0.5, 0.5], "w": [1.0, -1.0]})
    message = _error(lambda: frame.ireval.probabilities("y", {"a": "pa", "b": "pb"}))
    assert "no probability column" in message and "'c'" in message and "row 1" in message
    good = frame.with_columns(y=pl.lit("a"))
    message = _error(lambda: good.ireval.probabilities("y", {"a": "pa", "b": "pb"}, weight="w"))
    assert "negative" in message and "'w'" in message and "row 1" in message


def test_calibration_refuses_probabilities_outside_the_unit_interval() -> None:
    frame = pl.DataFrame({"y": [0, 1, 1], "p": [0.5, 1.5, 2.0]})
    message = _error(lambda: frame.ireval.calibration("y", "p"))
    assert "'p'" in message and "row 1" in message


def test_pandas_front_end_has_the_new_methods() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"y": ["a", "b", "a"], "pa": [0.7, 0.2, 0.6], "pb": [0.3, 0.8, 0.4]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = frame.ireval.probabilities("y", {"a": "pa", "b": "pb"}, shape="wide")
    want = skm.log_loss(frame["y"], frame[["pa", "pb"]].to_numpy(), labels=["a", "b"])
    assert _close(float(result["log_loss"].iloc[0]), want)


def test_columns_with_labels_as_in_sklearn() -> None:
    y, probs, _, frame = _multiclass(21, 300, 4)
    labels = [f"c{k:02d}" for k in range(4)]
    columns = [f"p_{label}" for label in labels]
    got = frame.ireval.probabilities("y", columns, labels=labels, metrics=["log_loss"]).item(0, 1)
    assert _close(got, skm.log_loss(y, probs, labels=labels))
    assert "pass labels=" in _error(lambda: frame.ireval.probabilities("y", columns))
    assert "as many columns as labels" in _error(
        lambda: frame.ireval.probabilities("y", columns, labels=labels[:3])
    )


_SCRIPT = """
import sys
import numpy as np
import polars as pl
import frame_eval  # noqa: F401
from frame_eval import classification as C

out, engine = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)
n = 4000
raw = rng.random((n, 3))
probs = raw / raw.sum(axis=1, keepdims=True)
frame = pl.DataFrame({
    "model": rng.integers(0, 5, n), "y": rng.integers(0, 3, n), "w": rng.random(n),
    "p0": probs[:, 0], "p1": probs[:, 1], "p2": probs[:, 2], "s": np.round(rng.random(n), 3),
}).with_columns(b=pl.col("y") == 1)
lazy = frame.sample(fraction=1.0, shuffle=True, seed=int(sys.argv[3])).lazy()
parts = [
    lazy.ireval.probabilities("y", {0: "p0", 1: "p1", 2: "p2"}, by="model", weight="w"),
    lazy.ireval.probabilities("b", "p1", by="model", metrics=["log_loss", "brier", "ECE(strategy=quantile)"]),
    lazy.ireval.calibration("b", "p1", by="model", n_bins=7, strategy="quantile")
        .with_columns(pl.col("count").cast(pl.Float64)).unpivot(index=["model", "bin"])
        .select("model", pl.format("{}@{}", "variable", "bin").alias("metric"), "value"),
    lazy.ireval.scores("b", "s", by="model", metrics=["ROC_AUC", "AP", "PR_AUC"]),
    lazy.group_by("model").agg(  # the C.* expressions' exact means, per group
        C.log_loss("y", {0: "p0", 1: "p1", 2: "p2"}, weight="w").alias("log_loss_w"),
        C.brier_score("b", "p1", weight="w").alias("brier_w"),
        C.expected_calibration_error("b", "p1").alias("ECE"),
    ).unpivot(index="model", variable_name="metric"),
]
# each part's rows sorted by every column: the test compares values, not the order rows come in
collected = [p.collect(engine=engine).with_columns(pl.col("value").cast(pl.Float64)) for p in parts]
pl.concat([c.sort(c.columns) for c in collected], how="vertical_relaxed").write_parquet(out)
"""


def test_same_bits_for_any_thread_count_engine_and_row_order(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    root = Path(__file__).resolve().parents[1]
    frames = []
    for threads, engine, seed in [("1", "in-memory", "1"), ("4", "streaming", "2"), ("2", "in-memory", "3")]:
        out = tmp_path / f"{threads}-{engine}.parquet"
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(root)}
        subprocess.run([sys.executable, str(script), str(out), engine, seed], check=True, env=env)
        frames.append(pl.read_parquet(out))
    assert frames[0].height > 0
    assert all(f.equals(frames[0]) for f in frames[1:])


_NAN, _ONES, _IN = float("nan"), [1.0, 1.0, 1.0], "NaN values in predictions column"


@pytest.mark.parametrize(("pa", "pb", "w", "found"), [
    ([0.5, 0.2, _NAN], [0.5, 0.8, 0.1], _ONES, f"1 {_IN} 'pa' (first at row 2"),
    ([0.5, _NAN, 0.9], [_NAN, 0.8, 0.1], _ONES, f"{_IN} 'pa'"),
    ([0.5, 0.2, 0.9], [0.5, _NAN, 0.1], _ONES, f"{_IN} 'pb' (first at row 1"),
    ([0.5, 0.2, 0.9], [0.5, 0.8, 0.1], [1.0, _NAN, 1.0], f"{_IN} 'w'"),
    ([0.5, 0.2, 0.9], [0.5, 0.7, 0.1], _ONES, "1 rows whose probabilities"),  # below 1
    ([0.5, 0.2, 0.9], [0.6, 0.8, 0.1], _ONES, "1 rows whose probabilities"),  # above 1
    ([0.5, 0.2, float("inf")], [0.5, 0.8, 0.1], _ONES, "probabilities in predictions column 'pa' outside"),
])
def test_nan_and_row_sum_checks_fire_from_the_row_sums(
    pa: list[float], pb: list[float], w: list[float], found: str
) -> None:
    """The NaN checks of the probability columns fire from a NaN row sum, the row-sum check from the
    least and greatest sums; the rows are counted for the message, in the order of the checks (a NaN
    in the weights has its own count)."""
    frame = pl.DataFrame({"y": ["a", "b", "a"], "pa": pa, "pb": pb, "w": w})
    message = _error(lambda: frame.ireval.probabilities("y", {"a": "pa", "b": "pb"}, weight="w"))
    assert found in message
