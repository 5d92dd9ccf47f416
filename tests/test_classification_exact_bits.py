"""scikit-learn's exact bits: sums in NumPy's pairwise order, ROC AUC, AP, PR AUC and averages with ``==``.

NumPy adds a float64 array pairwise (blocks of up to 128 values in eight
running sums, longer arrays split in halves at a multiple of 8), so a sum
of 8 or more terms added one by one differs from scikit-learn's in the last
bits. :func:`frame_eval._float.pairwise_sum` follows NumPy's tree; these
tests compare with ``==`` (never ``isclose``): the sum itself against
``np.sum``, and every measure that adds 8 or more terms against scikit-learn.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import classification as C
from frame_eval._float import numpy_sum, pairwise_sum

SIZES = [*range(0, 300), 383, 384, 385, 1023, 1024, 1025, 4095, 4096, 4097, 65_536, 65_537, 100_003]


def _values(rng: np.random.Generator, n: int) -> np.ndarray:
    # magnitudes over 16 decades, so that the order of the additions shows in the last bits
    return rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)


@pytest.mark.parametrize("n", SIZES)
def test_numpy_sum_has_numpys_bits(n: int) -> None:
    values = _values(np.random.default_rng(n), n)
    assert numpy_sum(pl.Series(values, dtype=pl.Float64)) == np.sum(values)


def test_sequential_and_pairwise_sums_differ_so_the_test_can_fail() -> None:
    values = [0.1] * 10
    assert numpy_sum(pl.Series(values)) == np.sum(values) == 1.0
    assert pl.Series(values).cum_sum()[-1] == 0.9999999999999999


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), max_size=600))
def test_numpy_sum_on_any_floats(values: list[float]) -> None:
    array = np.asarray(values, dtype=np.float64)
    assert numpy_sum(pl.Series(values, dtype=pl.Float64)) == np.sum(array)


def test_signed_zeros_and_non_finite_values_as_numpy() -> None:
    for values in ([-0.0], [-0.0] * 9, [1.0, np.inf, 2.0] * 5, [np.inf, -np.inf] * 6, [1.0, np.nan] * 7):
        with np.errstate(invalid="ignore"):
            want = np.sum(np.asarray(values))
        got = numpy_sum(pl.Series(values, dtype=pl.Float64))
        assert (got == want and np.signbit(got) == np.signbit(want)) or (np.isnan(got) and np.isnan(want))


def test_pairwise_sum_per_group_in_both_engines() -> None:
    rng = np.random.default_rng(11)
    sizes = [1, 7, 8, 9, 127, 128, 129, 1000, 3001]
    parts = [_values(rng, n) for n in sizes]
    frame = pl.LazyFrame({
        "g": np.repeat(np.arange(len(sizes)), sizes),
        "i": np.concatenate([np.arange(n) for n in sizes]),
        "x": np.concatenate(parts),
    })
    query = frame.group_by("g").agg(pairwise_sum(pl.col("x").sort_by("i"))).sort("g")
    for engine in ("in-memory", "streaming"):
        assert query.collect(engine=engine)["x"].to_list() == [np.sum(p) for p in parts]
    shuffled = frame.collect().sample(fraction=1.0, shuffle=True, seed=3).lazy()
    again = shuffled.group_by("g").agg(pairwise_sum(pl.col("x").sort_by("i"))).sort("g").collect()
    assert again.equals(query.collect())


def _binary_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(20261123)
    cases = []
    for n in [2, 3, 7, 8, 9, 16, 50, 129, 130, 500, 1000, 2500, 5000]:
        for prevalence, decimals in [(0.5, 6), (0.03, 2), (0.9, 1), (0.2, 3)]:
            y = rng.random(n) < prevalence
            y[0], y[-1] = True, False  # both classes
            scores = np.round(rng.random(n) + 0.3 * y, decimals)  # ties at low precision
            cases.append((y, scores))
    return cases


def _sklearn_areas(y: np.ndarray, scores: np.ndarray) -> tuple[float, float, float]:
    precision, recall, _ = skm.precision_recall_curve(y, scores)
    return skm.roc_auc_score(y, scores), skm.average_precision_score(y, scores), skm.auc(recall, precision)


@pytest.mark.parametrize("case", range(len(_binary_cases())))
def test_areas_have_sklearns_bits(case: int) -> None:
    y, scores = _binary_cases()[case]
    want = _sklearn_areas(y, scores)
    frame = pl.DataFrame({"y": y, "s": scores})
    expressions = frame.select(C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s")).row(0)
    assert expressions == want
    wide = frame.ireval.scores("y", "s", metrics=["ROC_AUC", "AP", "PR_AUC"], shape="wide").row(0)
    assert wide == want


def test_areas_per_group_and_under_shuffling() -> None:
    cases = _binary_cases()[::3]
    frame = pl.concat([
        pl.DataFrame({"model": f"m{i:02d}", "y": y, "s": s}) for i, (y, s) in enumerate(cases)
    ])
    names = ["ROC_AUC", "average_precision", "PR_AUC"]
    wide = frame.ireval.scores("y", "s", by="model", metrics=names, shape="wide")
    assert [tuple(row[1:]) for row in wide.rows()] == [_sklearn_areas(y, s) for y, s in cases]
    expressions = frame.group_by("model").agg(
        C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s")
    ).sort("model")
    assert expressions.rows() == wide.rows()
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=5).lazy()
    for engine in ("in-memory", "streaming"):
        again = shuffled.ireval.scores("y", "s", by="model", metrics=names, shape="wide")
        again = again.collect(engine=engine)
        assert again.equals(wide)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=400), st.integers(min_value=0, max_value=2**32 - 1),
    st.sampled_from([1, 2, 4]), st.floats(min_value=0.02, max_value=0.98),
)
def test_areas_on_random_predictions(n: int, seed: int, decimals: int, prevalence: float) -> None:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    if y.all() or not y.any():
        y[0] = not y[0]
    scores = np.round(rng.random(n), decimals)
    frame = pl.DataFrame({"y": y, "s": scores})
    got = frame.select(C.roc_auc("y", "s"), C.average_precision("y", "s"), C.pr_auc("y", "s")).row(0)
    assert got == _sklearn_areas(y, scores)


def _multiclass_cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(99)
    cases = []
    for classes, n in [(3, 50), (8, 200), (9, 300), (20, 1000), (40, 3000), (150, 5000)]:
        y = rng.integers(0, classes, n)
        predicted = np.where(rng.random(n) < 0.5, y, rng.integers(0, classes, n))
        cases.append((y, predicted))
    return cases


@pytest.mark.parametrize("case", range(len(_multiclass_cases())))
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("zero_division", [0, 1])
def test_class_averages_have_sklearns_bits(case: int, average: str, zero_division: int) -> None:
    y, predicted = _multiclass_cases()[case]
    frame = pl.DataFrame({"y": y, "p": predicted})
    got = frame.select(
        C.precision("y", "p", average=average, zero_division=zero_division),
        C.recall("y", "p", average=average, zero_division=zero_division),
        C.f1("y", "p", average=average, zero_division=zero_division),
    ).row(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.precision_recall_fscore_support(y, predicted, average=average, zero_division=zero_division)
    assert got == want[:3]
    wide = frame.ireval.rates(
        "y", "p", metrics=["precision", "recall", "F1"], average=average, zero_division=zero_division,
        shape="wide",
    ).row(0)
    assert wide == want[:3]


@pytest.mark.parametrize("case", range(len(_multiclass_cases())))
def test_balanced_accuracy_has_sklearns_bits(case: int) -> None:
    y, predicted = _multiclass_cases()[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = skm.balanced_accuracy_score(y, predicted)
    frame = pl.DataFrame({"y": y, "p": predicted})
    assert frame.select(C.balanced_accuracy("y", "p", average="macro")).item() == want


def test_class_order_of_rows_does_not_matter() -> None:
    y, predicted = _multiclass_cases()[4]
    frame = pl.DataFrame({"y": y, "p": predicted})
    rows = list(range(frame.height))
    random.Random(1).shuffle(rows)
    one = frame.select(C.f1("y", "p", average="macro"))
    other = frame[rows].select(C.f1("y", "p", average="macro"))
    assert one.equals(other)
