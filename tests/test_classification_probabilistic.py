"""Log-loss and the Brier score of binary probabilities against scikit-learn (issue 13)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C


@pytest.mark.parametrize("seed", range(8))
def test_log_loss_and_brier_per_group_match_scikit_learn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 600))
    y = rng.random(n) < rng.uniform(0.05, 0.9)
    p = np.clip(np.round(0.3 * y + rng.random(n) * 0.7, 1 + seed % 3), 0, 1)
    p[:3] = [0.0, 1.0, 0.5]  # the ends: clipped to eps as scikit-learn
    df = pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "p": p})
    got = df.ireval.scores("y", "p", by="g", metrics=["log_loss", "Brier score"], shape="wide")
    expressions = df.group_by("g").agg(C.log_loss("y", "p"), C.brier_score("y", "p")).sort("g")
    assert got.select("g", "log_loss", "brier").equals(expressions.select("g", "log_loss", "brier"))
    for (g,), part in df.partition_by("g", as_dict=True).items():
        row = got.filter(pl.col("g") == g).row(0, named=True)
        a, q = part["y"].to_numpy(), part["p"].to_numpy()
        theirs = skm.log_loss(a, q, labels=[False, True])
        assert row["log_loss"] == pytest.approx(theirs, rel=1e-15, abs=1e-12)
        assert row["brier"] == pytest.approx(skm.brier_score_loss(a, q, pos_label=True), rel=0, abs=1e-15)


@pytest.mark.parametrize(("y", "p", "w"), [
    ([0], [0.5], [2.2250738585e-313]),  # w * term subnormal: found by the fuzz suite
    ([0, 1, 0], [1e-17, 1 - 1e-17, 3e-9], [1.0, 5e-324, 0.25]),  # 1 - p rounds
])
def test_brier_same_bits_as_scikit_learn_at_the_edges(y: list[int], p: list[float], w: list[float]) -> None:
    df = pl.DataFrame({"y": y, "p": p, "w": w})
    weighted = df.ireval.probabilities("y", "p", weight="w", metrics=["brier"])["value"][0]
    plain = df.ireval.probabilities("y", "p", metrics=["brier"])["value"][0]
    assert weighted == skm.brier_score_loss(y, p, sample_weight=w, pos_label=1)
    assert plain == skm.brier_score_loss(y, p, pos_label=1)


def test_same_bits_for_any_row_order() -> None:
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"y": rng.random(5000) < 0.4, "p": rng.random(5000)})
    first = df.select(C.log_loss("y", "p"), C.brier_score("y", "p"))
    for seed in range(3):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
        assert shuffled.select(C.log_loss("y", "p"), C.brier_score("y", "p")).equals(first)
        streamed = shuffled.lazy().select(C.log_loss("y", "p"), C.brier_score("y", "p"))
        assert streamed.collect(engine="streaming").equals(first)


def test_probabilities_outside_0_1_are_an_error_naming_the_row() -> None:
    df = pl.DataFrame({"y": [1, 0, 1], "p": [0.2, 1.5, 0.7]})
    message = r"'p' are outside the declared score range \[0.0, 1.0\] \(first at row 1, counting from 0: 1.5"
    with pytest.raises(ValueError, match=message):
        df.ireval.scores("y", "p", metrics=["log_loss"])
    assert df.ireval.scores("y", "p", metrics=["ROC_AUC"]).height == 1  # other scores take any numbers


def test_brier_terms_are_the_two_column_form_bit_for_bit() -> None:
    """binary_brier_terms chooses each gap per row: the bits of scikit-learn's two-column form
    ((1 - y) - (1 - p))^2 + (y - p)^2 for either label, where 1 - p rounds (p below 1/2), at 0 and 1,
    and for subnormal and tiny p."""
    from frame_eval.classification.probabilistic import binary_brier_terms

    rng = np.random.default_rng(3)
    edges = [0.0, 1.0, 5e-324, 1e-310, 2.0**-1022, 2.0**-54, 0.5, 0.49999999999999994, 1 - 2.0**-53]
    p = np.concatenate([rng.random(20_000), rng.random(20_000) ** 40, 1 - rng.random(20_000) ** 40, edges])
    for label in (True, False):
        y = float(label)
        want = ((1.0 - y) - (1.0 - p)) ** 2 + (y - p) ** 2  # NumPy, elementwise: each operation rounded
        got = pl.DataFrame({"p": p}).select(binary_brier_terms(pl.lit(label), pl.col("p")))["literal"]
        assert got.to_numpy().view(np.uint64).tolist() == want.view(np.uint64).tolist()


_OUTSIDE = r"probabilities in .*'p' outside \[0, 1\] \(first at row "


@pytest.mark.parametrize(("p", "message"), [
    ([0.2, -math.inf, 0.7, 0.1], "1 " + _OUTSIDE + "1, counting from 0: -inf"),
    ([0.2, 0.5, 2.0, math.inf], "2 " + _OUTSIDE + "2, counting from 0: 2.0"),
    ([0.2, 0.5, math.nan, 1.0], r"1 NaN values in .*'p'"),  # NaN: in no range, its own message
    ([0.2, 0.5, None, 1.0], r"1 null values in .*'p'"),
])
def test_probabilities_front_end_range_check(p: list[float | None], message: str) -> None:
    """probabilities() fires on a value outside [0, 1] from the column's least and greatest values and
    then counts the rows for the message; NaN and null have their own messages."""
    df = pl.DataFrame({"y": [1, 0, 1, 0], "p": p}, schema={"y": pl.Int64, "p": pl.Float64})
    for metric in ("log_loss", "brier"):
        with pytest.raises(ValueError, match=message):
            df.ireval.probabilities("y", "p", metrics=[metric])
    wide = pl.DataFrame({"y": [0, 1, 0, 1], "a": p, "b": [0.8, 0.5, 0.3, 0.0]})
    with pytest.raises(ValueError, match=message.replace("'p'", "'a'")):
        wide.ireval.probabilities("y", {0: "a", 1: "b"}, metrics=["brier"])
