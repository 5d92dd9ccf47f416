"""The two ways ``grouped_scores.score_measures`` finds each group's points give the same bits.

The usual way sorts every row at once by one 128-bit key (a 63-bit hash of the group's keys,
the score's bits in order, the label); groups whose keys share a hash are measured again with
each group sorted on its own (``_sorted_per_group``). Both are compared here with ``==``:
on scores of every sign (signed zeros, infinities, subnormals), keys of several types with
nulls, no keys, and with the hash forced to collide.
"""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

from frame_eval import _own_thread
from frame_eval.classification import grouped_scores, packed_points

NAMES = ["ROC_AUC", "average_precision", "PR_AUC", "EER"]
SPECIAL = [0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324, 1e308, -1e308, 0.5, -0.5, 1.0]


def _frame(seed: int, n: int = 3000) -> pl.DataFrame:
    rng = random.Random(seed)
    return pl.DataFrame({
        "team": [rng.choice([None, 1, 2, 3]) for _ in range(n)],
        "model": [rng.choice(["a", "b", None]) for _ in range(n)],
        "y": [rng.random() < 0.3 for _ in range(n)],
        "s": [rng.choice(SPECIAL) if rng.random() < 0.3 else round(rng.gauss(0, 3), rng.choice([1, 3, 17]))
              for _ in range(n)],
    })


def _both(frame: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    args = (frame.lazy(), keys, pl.col("y"), pl.col("s"), NAMES)
    packed = grouped_scores.score_measures(*args).collect()
    per_group = grouped_scores._sorted_per_group(*args).collect()
    if keys:
        packed, per_group = packed.sort(keys), per_group.sort(keys)
    return packed, per_group


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keys", [[], ["team"], ["model"], ["team", "model"]])
def test_packed_sort_equals_a_sort_per_group(seed: int, keys: list[str]) -> None:
    frame = _frame(seed)
    packed, per_group = _both(frame, keys)
    assert packed.height == (frame.select(keys).unique().height if keys else 1)
    assert packed.equals(per_group)


def test_packed_sort_has_sklearns_bits_on_scores_of_both_signs() -> None:
    frame = _frame(7).filter(pl.col("s").is_finite())
    packed, _ = _both(frame, ["team"])
    for team, part in frame.group_by("team"):
        y, s = part["y"].to_numpy(), part["s"].to_numpy()
        row = packed.filter(pl.col("team").eq_missing(team[0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert row["ROC_AUC"].item() == skm.roc_auc_score(y, s)
            assert row["average_precision"].item() == skm.average_precision_score(y, s)


def test_signed_zeros_are_one_score() -> None:
    # tied: 0.5; were -0.0 below 0.0, the positive would outrank the negative: 1.0
    frame = pl.DataFrame({"y": [True, False], "s": [0.0, -0.0]})
    packed, per_group = _both(frame, [])
    assert packed["ROC_AUC"].item() == per_group["ROC_AUC"].item() == 0.5
    assert skm.roc_auc_score(np.array([1, 0]), np.array([0.0, -0.0])) == 0.5


@pytest.mark.parametrize("apart", [False, True])
@pytest.mark.parametrize("clash", ["all", "some"])
def test_groups_sharing_a_hash_are_measured_exactly(
    monkeypatch: pytest.MonkeyPatch, clash: str, apart: bool
) -> None:
    if apart:  # the large-input path: keys packed in a streaming pass, the group table on its own thread
        monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)
    frame = _frame(11)
    keys = ["team", "model"]
    want, _ = _both(frame, keys)

    def colliding(names: list[str]) -> pl.Expr:
        if clash == "all":
            return pl.lit(12345, pl.UInt64)
        return pl.struct(names).hash() % 3  # twelve groups on three hashes

    monkeypatch.setattr(packed_points, "_group_hash", colliding)
    got, per_group = _both(frame, keys)
    assert got.equals(want)
    assert per_group.equals(want)
    # the merged groups' own values differ from the true ones, so the re-measuring is what gets them right
    merged = (
        frame.with_columns(pl.lit("x").alias("team"), pl.lit("x").alias("model"))
        .pipe(lambda f: _both(f, keys)[0])
    )
    assert not want["ROC_AUC"].is_in(merged["ROC_AUC"].implode()).all()
