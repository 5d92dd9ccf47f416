"""class_means (every group's macro and weighted means at once) against averaged (one group at a time)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from frame_eval.classification.averages import averaged
from frame_eval.classification.counts import Counts
from frame_eval.classification.frame_averages import class_means
from frame_eval.classification.frame_checks import _ACTUAL, _PREDICTED, CLASS, _per_group
from frame_eval.classification.frame_labels import class_count_frame
from frame_eval.registry import resolve

NAMES = ["precision", "recall", "F1", "F(beta=0.5)"]


def _counts(rows: int, classes: int, groups: int, seed: int, weighted: bool = False) -> pl.LazyFrame:
    rng = np.random.default_rng(seed)
    # some classes only predicted, some only actual: undefined precision or recall
    frame = pl.DataFrame({
        "g": rng.integers(0, groups, rows),
        _ACTUAL: rng.integers(0, classes, rows),
        _PREDICTED: rng.integers(classes // 3, classes + 3, rows),
    })
    if weighted:
        frame = frame.with_columns(pl.Series("__fe_weight", rng.random(rows) * (rng.random(rows) > 0.2)))
    return class_count_frame(frame.lazy(), ["g"])


@pytest.mark.parametrize(("classes", "rows"), [(3, 200), (9, 600), (20, 3000), (150, 20000)])
@pytest.mark.parametrize("zero_division", [None, 0.0, 1.0, math.nan])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_class_means_has_averaged_bits(
    classes: int, rows: int, zero_division: float | None, average: str
) -> None:
    counts = _counts(rows, classes, 4, classes).collect().lazy()
    ms = dict(zip(NAMES, resolve(NAMES, "classification"), strict=True))
    order = pl.col(CLASS)
    want = _per_group(counts, ["g"], [
        averaged(m, Counts.columns(), average, zero_division, order=order).cast(pl.Float64).alias(name)
        for name, m in ms.items()
    ]).collect()
    got = class_means(counts, ["g"], CLASS, ms, average, zero_division).collect()
    assert got.equals(want)
    assert want.drop("g").null_count().sum_horizontal().item() < want.height * len(NAMES)  # not all null
    shuffled = counts.collect().sample(fraction=1.0, shuffle=True, seed=5).lazy()
    assert class_means(shuffled, ["g"], CLASS, ms, average, zero_division).collect().equals(want)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_class_means_weighted_counts_and_no_groups(average: str) -> None:
    counts = _counts(2000, 11, 3, 7, weighted=True).collect().lazy()
    ms = dict(zip(NAMES, resolve(NAMES, "classification"), strict=True))
    expr = [averaged(m, Counts.columns(), average, None, order=pl.col(CLASS)).cast(pl.Float64).alias(name)
            for name, m in ms.items()]
    assert class_means(counts, ["g"], CLASS, ms, average, None).collect().equals(
        _per_group(counts, ["g"], expr).collect())
    one = counts.filter(pl.col("g") == 0).drop("g")
    want = _per_group(one, [], expr).collect()
    assert class_means(one, [], CLASS, ms, average, None).collect().equals(want)
    empty = class_means(one.head(0), [], CLASS, ms, average, None).collect()
    assert empty.shape == (1, len(NAMES)) and empty.null_count().sum_horizontal().item() == len(NAMES)
