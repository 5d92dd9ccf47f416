"""DET curves' normal-deviate (probit) columns (issue 13), computed in polars without SciPy."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from scipy.special import ndtri
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval._normal import normal_deviate


def test_normal_deviate_matches_scipy_and_the_standard_library() -> None:
    rng = np.random.default_rng(0)
    p = np.concatenate([
        rng.random(50_000), 10.0 ** -rng.uniform(0, 300, 5_000), 1 - 10.0 ** -rng.uniform(0, 15, 5_000),
        [0.5, 0.075, 0.925, 0.925 + 1e-12, 0.075 - 1e-12, 5e-324, 1 - 2**-53],
    ])
    got = pl.DataFrame({"p": p}).select(normal_deviate(pl.col("p")))["p"].to_numpy()
    want = ndtri(p)
    np.testing.assert_allclose(got, want, rtol=1.1e-15, atol=0)
    stdlib = np.array([NormalDist().inv_cdf(float(x)) for x in p])
    np.testing.assert_array_equal(got, stdlib)  # the same algorithm (AS 241): the same bits


def test_normal_deviate_edges() -> None:
    values = pl.DataFrame({"p": [0.0, 1.0, None, -0.1, 1.5]}).select(normal_deviate(pl.col("p")))["p"]
    assert values[:2].to_list() == [float("-inf"), float("inf")]
    assert values[2] is None
    assert np.isnan(values[3]) and np.isnan(values[4])


@pytest.mark.parametrize("seed", range(5))
def test_det_probit_columns_are_the_deviates_of_scikit_learns_points(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.random(n) < 0.4
    df = pl.DataFrame({"y": y, "s": np.round(rng.random(n) * 0.6 + 0.3 * y, 2)})
    det = df.ireval.det_curve("y", "s")
    fpr, fnr, _ = skm.det_curve(y, df["s"].to_numpy())
    np.testing.assert_allclose(det["fpr_probit"].to_numpy(), ndtri(fpr), rtol=1.1e-15, atol=0)
    np.testing.assert_allclose(det["fnr_probit"].to_numpy(), ndtri(fnr), rtol=1.1e-15, atol=0)
    assert det.schema["fpr_probit"] == pl.Float64


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("inf_labels", [(True, False), (True, True), (False, False)])
def test_det_curve_with_scores_of_inf_has_one_row_order(
    weighted: bool, inf_labels: tuple[bool, bool]
) -> None:
    # the origin (nothing predicted positive) and the points of a score of +inf share threshold inf:
    # the origin comes last going up, on every engine and row order
    rng = np.random.default_rng(5)
    rows = 60
    frame = pl.DataFrame({
        "g": rng.integers(0, 3, rows).astype(str),
        "y": rng.random(rows) < 0.4,
        "s": np.round(rng.random(rows), 1),
        "w": rng.integers(1, 4, rows) * 0.5,
    }).with_columns(
        pl.when(pl.int_range(pl.len()) < 2).then(float("inf")).otherwise("s").alias("s"),
        pl.when(pl.int_range(pl.len()) == 0).then(inf_labels[0])
        .when(pl.int_range(pl.len()) == 1).then(inf_labels[1]).otherwise("y").alias("y"),
    )
    options = {"weight": "w"} if weighted else {}
    eager = frame.ireval.det_curve("y", "s", by="g", **options)
    for other in (
        frame.lazy().ireval.det_curve("y", "s", by="g", **options).collect(),
        frame.lazy().ireval.det_curve("y", "s", by="g", **options).collect(engine="streaming"),
        frame.sample(fraction=1.0, shuffle=True, seed=3).ireval.det_curve("y", "s", by="g", **options),
    ):
        assert eager.equals(other)
    for (_g,), part in eager.group_by("g"):
        # threshold ascending, and along it the false positives never rise and the misses never fall
        assert part["threshold"].is_sorted()
        assert part["fp"].is_sorted(descending=True) and part["fn"].is_sorted()
        if part["threshold"][-1] == float("inf"):
            assert part["fp"][-1] == 0
