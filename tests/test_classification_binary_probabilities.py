"""The frame methods' frame-wide path for binary log-loss, Brier and ECE has the ``C.*`` expressions' bits."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import classification as C

METRICS = ["log_loss", "brier", "ECE", "ECE(n_bins=7, strategy=quantile)"]


def _frame(seed: int, rows: int = 3000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({
        "g": rng.choice(["a", "b", "c", "d"], rows),
        "h": rng.integers(0, 2, rows),
        "y": rng.random(rows) < 0.3,
        # ties, the ends 0 and 1, and values on the bin edges
        "p": np.concatenate([np.round(rng.random(rows - 4), 2), [0.0, 1.0, 0.5, 0.1]]),
        "w": rng.integers(0, 5, rows) * 0.25,
    })


def _expressions(weight: str | None) -> list[pl.Expr]:
    exprs = [C.log_loss("y", "p", weight=weight).alias("log_loss"),
             C.brier_score("y", "p", weight=weight).alias("brier")]
    if weight is None:
        exprs += [C.expected_calibration_error("y", "p").alias("ECE"),
                  C.expected_calibration_error("y", "p", n_bins=7, strategy="quantile").alias("ECE_q")]
    return exprs


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [["g"], ["g", "h"], [], ["bin"]])
def test_frame_method_has_the_expressions_bits(seed: int, weight: str | None, by: list[str]) -> None:
    df = _frame(seed).with_columns(bin=pl.col("g"))  # a group column named as a calibration column
    metrics = METRICS if weight is None else METRICS[:2]
    got = df.ireval.probabilities("y", "p", by=by or None, metrics=metrics, weight=weight, shape="wide")
    exprs = _expressions(weight)
    want = (df.group_by(by).agg(exprs).sort(by) if by else df.select(exprs)).cast(
        {e.meta.output_name(): pl.Float64 for e in exprs}
    )
    assert got.rename(dict(zip(got.columns, want.columns, strict=True))).equals(want)
    for s in range(3):  # any row order, either engine
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=s)
        again = shuffled.lazy().ireval.probabilities("y", "p", by=by or None, metrics=metrics, weight=weight,
                                                    shape="wide")
        assert again.collect(engine="streaming" if s else "in-memory").equals(got)


def test_empty_frame_and_empty_by() -> None:
    empty = _frame(0).head(0)
    got = empty.ireval.probabilities("y", "p", metrics=METRICS, shape="wide")
    assert got.rows() == [(None, None, None, None)]
    assert empty.ireval.probabilities("y", "p", by="g", metrics=METRICS).height == 0


def test_ece_with_weights_is_still_an_error() -> None:
    with pytest.raises(ValueError, match="ECE takes no sample weights"):
        _frame(0).ireval.probabilities("y", "p", metrics=["log_loss", "ECE"], weight="w")


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 3, 10])
def test_calibration_of_small_groups_matches_scikit_learn(strategy: str, n_bins: int) -> None:
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(n_bins)
    sizes = list(range(1, 16))
    df = pl.DataFrame({
        "g": np.repeat(sizes, sizes),
        "y": rng.random(sum(sizes)) < 0.5,
        "p": np.round(rng.random(sum(sizes)), 1),  # ties, and values on the edges
    })
    got = df.ireval.calibration("y", "p", by="g", n_bins=n_bins, strategy=strategy)
    for (g,), part in df.partition_by("g", as_dict=True).items():
        prob_true, prob_pred = calibration_curve(part["y"].to_numpy(), part["p"].to_numpy(), n_bins=n_bins,
                                                 strategy=strategy)
        rows = got.filter(pl.col("g") == g)
        np.testing.assert_allclose(rows["fraction_positive"].to_numpy(), prob_true, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rows["mean_predicted"].to_numpy(), prob_pred, rtol=0, atol=1e-12)


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [["g"], []])
def test_scores_gives_the_same_bits(weight: str | None, by: list[str]) -> None:
    df = _frame(3)
    metrics = (METRICS if weight is None else METRICS[:2]) + ["ROC_AUC"]
    got = df.ireval.scores("y", "p", by=by or None, metrics=metrics, weight=weight, shape="wide")
    want = df.ireval.probabilities("y", "p", by=by or None, metrics=metrics[:-1], weight=weight, shape="wide")
    assert got.drop("ROC_AUC").equals(want)
