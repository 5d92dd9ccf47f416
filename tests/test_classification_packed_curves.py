"""Unweighted curve points from one sort of packed keys (large frames) equal the group-by path's."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import classification as C
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


def _threshold_bits(frame: pl.DataFrame) -> list[int]:
    return frame.get_column("threshold").reinterpret(dtype=pl.UInt64).to_list()


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("method", ["roc", "pr_curve", "det_curve"])
def test_tied_zeros_give_a_positive_zero_threshold_in_any_row_order(weight: str | None, method: str) -> None:
    """A point of tied 0.0 and -0.0 scores is 0.0 whichever zero comes first, on every path (the grouped
    and weighted ones kept the first row's zero; ``DataFrame.equals`` takes -0.0 for 0.0, so it went
    unseen), as the packed points read it; and so is the best threshold there."""
    df = pl.DataFrame({"y": [True, False, False, True], "s": [-0.0, 0.0, 1.0, 2.0], "w": [1.0, 2, 1, 1]})
    zero = 0
    for rows in (df, df.reverse()):
        for engine in ("in-memory", "streaming"):
            curve = getattr(rows.lazy().ireval, method)("y", "s", weight=weight).collect(engine=engine)
            assert zero in _threshold_bits(curve) and 1 << 63 not in _threshold_bits(curve), curve
        best = rows.ireval.best_threshold("y", "s", weight=weight, criterion="recall")
        assert _threshold_bits(best) == [zero], best
        expr = rows.select(C.best_threshold("y", "s", weight=weight, criterion="recall"))
        assert expr.to_series().reinterpret(dtype=pl.UInt64).to_list() == [zero], expr
