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
