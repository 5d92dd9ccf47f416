"""Log-loss and Brier score from a long frame (a row per (sample, class)), weighted scores(), and their
checks, against scikit-learn (within 1e-12: frame_eval sorts the terms before adding them)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import classification as C

TOL = 1e-12


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= TOL * max(1.0, abs(want))


def _binary(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    p = np.round(rng.random(n), 2)
    p[:2] = [0.0, 1.0]  # clipped by eps
    w = rng.random(n) * (rng.random(n) > 0.1)  # zero and fractional weights
    return y, p, w, pl.DataFrame({"y": y, "p": p, "w": w, "model": rng.integers(0, 3, n)})


@pytest.mark.parametrize("seed", [1, 2])
def test_scores_weighs_log_loss_and_brier_as_probabilities_does(seed: int) -> None:
    y, p, w, frame = _binary(seed)
    got = frame.ireval.scores("y", "p", metrics=["log_loss", "brier"], weight="w", shape="wide").row(0)
    assert _close(got[0], skm.log_loss(y, p, sample_weight=w))
    assert _close(got[1], skm.brier_score_loss(y, p, sample_weight=w))
    same = frame.ireval.probabilities("y", "p", weight="w", shape="wide").row(0)
    assert got == same  # one definition
    per_model = frame.ireval.scores("y", "p", by="model", metrics=["log_loss"], weight="w")
    for model, _, value in per_model.rows():
        rows = frame["model"].to_numpy() == model
        assert _close(value, skm.log_loss(y[rows], p[rows], sample_weight=w[rows], labels=[False, True]))


def test_scores_refuses_negative_weights_with_log_loss() -> None:
    frame = pl.DataFrame({"y": [True, False], "p": [0.2, 0.4], "w": [1.0, -2.0]})
    with pytest.raises(ValueError, match=r"(?s)'w'.*row 1"):
        frame.ireval.scores("y", "p", metrics=["log_loss"], weight="w")


def test_ece_refuses_weights_rather_than_ignoring_them() -> None:
    _, _, _, frame = _binary(3, 50)
    for call in (
        lambda: frame.ireval.probabilities("y", "p", metrics=["ECE"], weight="w"),
        lambda: frame.ireval.scores("y", "p", metrics=["ECE"], weight="w"),
    ):
        with pytest.raises(ValueError, match="ECE takes no sample weights"):
            call()


# -- the long layout: one row per (sample, class) -------------------------------------------------------

def _wide(seed: int, n: int, labels: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    rng = np.random.default_rng(seed)
    k = len(labels)
    y = np.array(labels, dtype=object)[rng.integers(0, k, n)]
    y[:k] = labels
    raw = rng.random((n, k)) ** 3
    raw[rng.random((n, k)) < 0.05] = 0.0  # exact zeros: clipped by eps
    raw[:, 0] += 1e-3
    probs = raw / raw.sum(axis=1, keepdims=True)
    w = rng.random(n) * (rng.random(n) > 0.1)  # zero and fractional weights
    return y, probs, w


def _long(y: np.ndarray, probs: np.ndarray, w: np.ndarray, labels: list, seed: int = 0) -> pl.DataFrame:  # type: ignore[type-arg]
    n, k = probs.shape
    rows = {
        "id": np.repeat(np.arange(n), k),
        "class": [labels[j] for _ in range(n) for j in range(k)],
        "y": np.repeat(y, k).tolist(),
        "p": probs.ravel(),
        "w": np.repeat(w, k),
    }
    frame = pl.DataFrame(rows)
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)  # any row order


@pytest.mark.parametrize(
    ("seed", "n", "labels"),
    [
        (1, 60, ["a", "b", "c"]),
        (2, 500, [3, 7, 11, 20, 21]),
        (3, 300, [False, True]),
        (4, 800, [f"c{k:02d}" for k in range(12)]),
        (5, 200, ["no", "yes"]),
    ],
)
def test_long_frame_log_loss_and_brier_match_sklearn(seed: int, n: int, labels: list) -> None:  # type: ignore[type-arg]
    y, probs, w = _wide(seed, n, labels)
    frame = _long(y, probs, w, labels, seed)
    got = frame.ireval.probabilities("y", "p", sample="id", shape="wide").row(0)
    assert _close(got[0], skm.log_loss(list(y), probs, labels=labels))
    assert _close(got[1], skm.brier_score_loss(list(y), probs, labels=labels))
    weighted = frame.ireval.probabilities("y", "p", sample="id", weight="w", shape="wide").row(0)
    assert _close(weighted[0], skm.log_loss(list(y), probs, labels=labels, sample_weight=w))
    assert _close(weighted[1], skm.brier_score_loss(list(y), probs, labels=labels, sample_weight=w))
    if len(labels) == 2:  # a binary problem laid out long: the binary scores
        positive = labels[1]
        binary = skm.log_loss(list(y == positive), probs[:, 1])
        assert _close(got[0], binary)
    # the expressions read the same layout (no sample ids needed) and give the same values
    exprs = frame.select(
        C.log_loss("y", "p", class_column="class", weight="w"), C.brier_score("y", "p", class_column="class",
                                                                             weight="w"),
    ).row(0)
    assert exprs == weighted
    # log-loss has the wide layout's bits (the same terms); any row order gives the same bits
    wide = pl.DataFrame({"y": list(y), "w": w, **{f"p{j}": probs[:, j] for j in range(len(labels))}})
    mapping = {label: f"p{j}" for j, label in enumerate(labels)}
    assert wide.select(C.log_loss("y", mapping, weight="w")).item() == weighted[0]
    again = frame.sample(fraction=1.0, shuffle=True, seed=seed + 100)
    assert again.ireval.probabilities("y", "p", sample="id", weight="w", shape="wide").equals(
        frame.ireval.probabilities("y", "p", sample="id", weight="w", shape="wide")
    )


def test_long_frame_categorical_labels_and_groups_with_their_own_classes() -> None:
    y1, p1, w1 = _wide(11, 120, ["a", "b", "c"])
    y2, p2, w2 = _wide(12, 90, ["a", "c"])  # model m2 never predicts b: its own two classes
    frame = pl.concat([
        _long(y1, p1, w1, ["a", "b", "c"]).with_columns(model=pl.lit("m1")),
        _long(y2, p2, w2, ["a", "c"]).with_columns(model=pl.lit("m2")),
    ]).with_columns(pl.col("y", "class").cast(pl.Categorical))
    out = frame.ireval.probabilities("y", "p", sample="id", by="model", weight="w", shape="wide")
    rows = {r[0]: r[1:] for r in out.rows()}
    assert _close(rows["m1"][0], skm.log_loss(list(y1), p1, labels=["a", "b", "c"], sample_weight=w1))
    assert _close(rows["m1"][1], skm.brier_score_loss(list(y1), p1, labels=["a", "b", "c"], sample_weight=w1))
    assert _close(rows["m2"][0], skm.log_loss(list(y2), p2, labels=["a", "c"], sample_weight=w2))
    assert _close(rows["m2"][1], skm.brier_score_loss(list(y2), p2, labels=["a", "c"], sample_weight=w2))
    lazy = frame.lazy().ireval.probabilities("y", "p", sample=["id"], by="model", weight="w", shape="wide")
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(out)


def test_long_frame_labels_fix_the_classes() -> None:
    y, probs, _ = _wide(13, 80, ["a", "b", "c"])
    frame = _long(y, probs, np.ones(80), ["a", "b", "c"])
    got = frame.ireval.probabilities("y", "p", sample="id", labels=["a", "b", "c"], metrics=["log_loss"])
    assert _close(got.item(0, 1), skm.log_loss(list(y), probs, labels=["a", "b", "c"]))
    message = _error(lambda: frame.ireval.probabilities("y", "p", sample="id", labels=["a", "b"]))
    assert "'class'" in message and "labels=" in message and "'c'" in message


def _error(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


_GOOD = pl.DataFrame({
    "id": [1, 1, 2, 2, 3, 3],
    "class": ["a", "b", "a", "b", "a", "b"],
    "y": ["a", "a", "b", "b", "a", "a"],
    "p": [0.7, 0.3, 0.4, 0.6, 0.5, 0.5],
    "w": [1.0, 1.0, 2.0, 2.0, 0.5, 0.5],
})


def _probabilities(frame: pl.DataFrame, **kwargs) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    return frame.ireval.probabilities("y", "p", sample="id", **kwargs)


def test_long_frame_every_sample_has_every_class_exactly_once() -> None:
    _probabilities(_GOOD, weight="w")
    twice = _GOOD.with_columns(class_=pl.when(pl.int_range(6) == 3).then(pl.lit("a")).otherwise("class"))
    twice = twice.drop("class").rename({"class_": "class"})
    message = _error(lambda: _probabilities(twice))
    assert "'id'" in message and "more than once" in message and "row 2, counting from 0" in message
    missing = _GOOD.filter(pl.int_range(6) != 3)  # sample 2 has no row for b
    message = _error(lambda: _probabilities(missing))
    assert "every class" in message and "row 2" in message
    assert "sample 2" in message and "class 'b'" in message
    lazy = missing.lazy().ireval.probabilities("y", "p", sample="id")  # lazy: raises when collected
    with pytest.raises(ValueError, match="every class"):
        lazy.collect()


def test_long_frame_probability_checks() -> None:
    outside = _GOOD.with_columns(p=pl.Series([0.7, 0.3, 1.4, -0.4, 0.5, 0.5]))
    message = _error(lambda: _probabilities(outside))
    assert "'p'" in message and "outside [0, 1]" in message and "row 2" in message and "1.4" in message
    off = _GOOD.with_columns(p=pl.Series([0.7, 0.3, 0.4, 0.5, 0.5, 0.5]))
    message = _error(lambda: _probabilities(off))
    assert "sum to 1" in message and "row 2" in message and "0.9" in message and "'id'" in message
    near = _GOOD.with_columns(p=pl.Series([0.7, 0.3 + 1e-9, 0.4, 0.6, 0.5, 0.5]))
    _probabilities(near)  # within scikit-learn's tolerance


def test_long_frame_label_and_weight_must_be_the_samples() -> None:
    mixed = _GOOD.with_columns(y=pl.Series(["a", "b", "b", "b", "a", "a"]))
    message = _error(lambda: _probabilities(mixed))
    assert "'y'" in message and "row 0" in message and "same" in message
    unknown = _GOOD.with_columns(y=pl.Series(["a", "a", "c", "c", "a", "a"]))
    message = _error(lambda: _probabilities(unknown))
    assert "'y'" in message and "'c'" in message and "row 2" in message
    weights = _GOOD.with_columns(w=pl.Series([1.0, 1.0, 2.0, 3.0, 0.5, 0.5]))
    message = _error(lambda: _probabilities(weights, weight="w"))
    assert "'w'" in message and "row 2" in message and "same" in message
    negative = _GOOD.with_columns(w=pl.Series([1.0, 1.0, -2.0, -2.0, 0.5, 0.5]))
    message = _error(lambda: _probabilities(negative, weight="w"))
    assert "'w'" in message and "row 2" in message and "-2.0" in message
    infinite = _GOOD.with_columns(w=pl.Series([1.0, 1.0, float("inf"), float("inf"), 0.5, 0.5]))
    assert "'w'" in _error(lambda: _probabilities(infinite, weight="w"))
    with pytest.raises(ValueError, match="ECE"):
        _probabilities(_GOOD, metrics=["ECE"])
    with pytest.raises(ValueError, match="positive="):
        _probabilities(_GOOD, positive="a")
    one_class = _GOOD.filter(pl.col("class") == "a").with_columns(p=pl.lit(1.0), y=pl.lit("a"))
    assert "2 classes" in _error(lambda: _probabilities(one_class))


def test_long_frame_from_pandas_speaks_pandas() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = _GOOD.filter(pl.int_range(6) != 3).to_pandas()
    with pytest.raises(ValueError) as info:
        frame.ireval.probabilities("y", "p", sample="id")
    message = str(info.value)
    assert "row 2" in message and "pl." not in message and "polars" not in message.lower()
    good = _GOOD.to_pandas().set_index("id")  # the sample id as an index level
    got = good.ireval.probabilities("y", "p", sample="id", shape="wide")
    want = _GOOD.ireval.probabilities("y", "p", sample="id", shape="wide")
    assert got["log_loss"].iloc[0] == want["log_loss"][0]
