"""Weighted kappa of the frame method (from each group's confusion matrix cells) against the expression
(from the rows): the same bits, in any row order, with and without groups."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import classification as C


def _frame(rows: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    actual = rng.integers(0, 6, rows)
    predicted = np.where(rng.random(rows) < 0.6, actual, rng.integers(1, 9, rows))  # classes only predicted
    return pl.DataFrame({
        "g": rng.choice(["a", "b", "c"], rows), "h": rng.integers(0, 2, rows),
        "y": [f"c{v}" for v in actual], "yhat": [f"c{v}" for v in predicted],
    })


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
@pytest.mark.parametrize("by", [["g"], ["g", "h"]])
def test_frame_kappa_has_the_expressions_bits(weights: str, by: list[str]) -> None:
    frame = _frame(5000, 1)
    name = f"kappa(weights={weights})"
    want = frame.group_by(by).agg(
        C.cohen_kappa("y", "yhat", weights=weights, average="macro").alias("value")
    ).sort(by)["value"]
    for rows in (frame, frame.sample(fraction=1.0, shuffle=True, seed=2)):
        got = rows.ireval.rates("y", "yhat", by=by, metrics=[name], average="macro")
        assert got["metric"].unique().to_list() == [name]
        assert got["value"].equals(want)
    alone = frame.ireval.rates("y", "yhat", metrics=[name], average="macro")["value"].item()
    assert alone == frame.select(C.cohen_kappa("y", "yhat", weights=weights, average="macro")).item()


def test_frame_kappa_undefined_and_with_other_rates() -> None:
    # every row agrees on one class: p_e = 1, kappa undefined (null, or zero_division)
    same = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 1, 2], "yhat": [1, 1, 2]})
    out = same.ireval.rates("y", "yhat", by="g", metrics=["kappa(weights=linear)"], average="macro")
    assert out["value"].to_list() == [None, None]
    out = same.ireval.rates("y", "yhat", by="g", metrics=["kappa(weights=linear)", "recall"], average="macro",
                            zero_division=0.0, shape="wide")
    assert out.columns == ["g", "kappa(weights=linear)", "recall"]
    assert out["kappa(weights=linear)"].to_list() == [0.0, 0.0] and out["recall"].to_list() == [1.0, 1.0]
    empty = same.head(0).ireval.rates("y", "yhat", metrics=["kappa(weights=quadratic)"], average="macro")
    assert empty["value"].to_list() == [None]
