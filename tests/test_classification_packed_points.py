"""best_threshold's curve points from one sort of packed 128-bit keys: the per-group sort's values.

:func:`frame_eval.classification.packed_points.packed_group_points` must give
what :func:`frame_eval.classification.grouped_scores.group_points` gives (the
same totals and points, group for group; the group numbers are hashes there)
on negative, tied and zero scores, several keys with nulls, no keys and no
rows, also with the hashes forced to collide; and ``best_threshold`` the same
frame with either, on both engines.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval.classification import frame_thresholds, grouped_scores, packed_points
from frame_eval.classification.grouped_scores import _G
from frame_eval.classification.packed_points import packed_group_points


def frame(seed: int, n: int = 3000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4), 1 + seed % 3)
    return pl.DataFrame({
        "g": rng.integers(0, 6, n),
        "h": pl.Series(rng.choice(np.array(["a", "b", ""]), n).tolist()).replace("", None),
        "y": rng.random(n) < 0.3,
        "s": np.where(s == 0.0, -0.0, s),  # zeros of both signs are one score
    })


def _by_keys(
    totals: pl.DataFrame, points: pl.DataFrame, keys: list[str]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The group numbers replaced by the keys, rows in a fixed order."""
    numbers = totals.select(_G, *keys)
    points = points.join(numbers, on=_G).drop(_G).sort([*keys, "_k"], nulls_last=True)
    return totals.drop(_G).sort(keys, nulls_last=True), points


def _colliding(clash: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the groups' hashes collide: all of them on one, or several groups on each of a few."""
    def hashed(names: list[str]) -> pl.Expr:
        return pl.lit(12345, pl.UInt64) if clash == "all" else pl.struct(names).hash() % 3

    if clash != "none":
        monkeypatch.setattr(packed_points, "_group_hash", hashed)


@pytest.mark.parametrize("clash", ["none", "all", "some"])
@pytest.mark.parametrize("keys", [["g"], ["g", "h"], []])
@pytest.mark.parametrize("seed", range(4))
def test_packed_points_are_the_per_group_sorts(
    seed: int, keys: list[str], clash: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _colliding(clash, monkeypatch)
    df = frame(seed)
    for rows in (df, df.head(0), df.filter(pl.col("g") == 1)):
        want = [x.collect() for x in grouped_scores.group_points(rows.lazy(), keys, pl.col("y"), pl.col("s"))]
        got = [x.collect() for x in packed_group_points(rows.lazy(), keys, pl.col("y"), pl.col("s"))]
        assert got[1].schema == {**want[1].schema, _G: pl.UInt64}
        assert got[1][_G].is_in(got[0][_G].implode()).all()  # no points of merged groups
        want_totals, want_points = _by_keys(*want, keys)
        got_totals, got_points = _by_keys(*got, keys)
        assert got_totals.equals(want_totals) and got_points.equals(want_points)
        distinct = rows.select(pl.col("s") + 0.0, *keys).unique()  # (-0.0 + 0.0 is 0.0)
        assert got_points.height == distinct.height  # a point per distinct score of a group


@pytest.mark.parametrize("clash", ["none", "some"])
@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
@pytest.mark.parametrize("options", [
    {"criterion": "recall", "min_specificity": 0.9}, {}, {"criterion": "f1"}, {"costs": (1, 5)},
    {"criterion": "precision", "min_recall": 0.99},  # groups where no threshold qualifies
])
def test_best_threshold_is_the_same_with_either_points(
    options: dict[str, object], engine: str, clash: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    df = frame(7, n=5000).with_columns(pl.col("h").fill_null("c"))  # by= columns hold no nulls

    def best() -> pl.DataFrame:
        return df.lazy().ireval.best_threshold("y", "s", by=["g", "h"], **options).collect(engine=engine)

    _colliding(clash, monkeypatch)
    packed = best()
    monkeypatch.setattr(frame_thresholds, "packed_group_points", grouped_scores.group_points)
    assert packed.height == 18 and packed.equals(best())
