"""Unweighted curve points from one sort of packed keys (large frames) equal the group-by path's."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval.classification import frame_points


def _frame(rows: int = 4000) -> pl.DataFrame:
    rng = np.random.default_rng(7)
    scores = np.round(rng.normal(size=rows), 1)  # many ties, negative scores
    scores[:6] = [0.0, -0.0, 0.0, -0.0, 1e300, -np.inf]  # (a score of +inf ties det_curve's origin)
    g = rng.choice(["a", "b", "c"], rows)
    y = rng.random(rows) < 0.3
    y[g == "c"] = False  # a group with one class
    return pl.DataFrame({"g": g, "h": rng.integers(0, 2, rows), "y": y, "s": scores})


@pytest.mark.parametrize("by", [None, "g", ["g", "h"]])
@pytest.mark.parametrize("method", ["roc", "pr_curve", "det_curve"])
def test_packed_points_equal_grouped_points(monkeypatch: pytest.MonkeyPatch, by: object, method: str) -> None:
    df = _frame()
    grouped = getattr(df.ireval, method)("y", "s", by=by)  # fewer rows than PACKED_ROWS
    monkeypatch.setattr(frame_points, "PACKED_ROWS", 0)
    packed = getattr(df.ireval, method)("y", "s", by=by)
    assert packed.equals(grouped)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1).lazy()
    streamed = getattr(shuffled.ireval, method)("y", "s", by=by).collect(engine="streaming")
    assert streamed.equals(grouped)
