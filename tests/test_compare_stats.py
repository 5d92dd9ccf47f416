"""Paired tests, corrections and intervals against SciPy and statsmodels (within 1e-12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

np = pytest.importorskip("numpy")
stats = pytest.importorskip("scipy.stats", reason="the [stats] extra (SciPy) is the oracle")
multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels is the corrections oracle")

import frame_eval as fe  # noqa: E402
from frame_eval.compare import resampling  # noqa: E402

TOL = 1e-12
ALL_TESTS = ["t", "wilcoxon", "sign", "randomization", "bootstrap"]


def long_frame(values: dict[str, list[float]], metric: str = "AP") -> pl.DataFrame:
    rows = [(s, f"q{i:03d}", metric, float(v)) for s, vs in values.items() for i, v in enumerate(vs)]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def one(result: pl.DataFrame, test: str, system: str = "b") -> dict:
    rows = result.filter((pl.col("test") == test) & (pl.col("system") == system)).to_dicts()
    assert len(rows) == 1
    return rows[0]


def case(seed: int, n: int, *, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if ties:  # measure-like values on a grid: zeros and tied |d|
        return rng.integers(0, 6, n) / 5, rng.integers(0, 6, n) / 5
    return rng.random(n), rng.random(n) * 0.9 + 0.05


@pytest.mark.parametrize("seed", range(12))
def test_t_test_and_interval_match_scipy(seed: int) -> None:
    a, b = case(seed, 5 + 7 * seed)
    res = one(fe.compare.compare(long_frame({"a": a, "b": b}), "a", tests="t", level=0.9), "t")
    ref = stats.ttest_rel(b, a)
    assert abs(res["p_value"] - ref.pvalue) < TOL
    low, high = ref.confidence_interval(0.9)
    assert abs(res["ci_low"] - low) < TOL and abs(res["ci_high"] - high) < TOL
    d = b - a
    assert abs(res["effect_size"] - d.mean() / d.std(ddof=1)) < TOL
    assert abs(res["diff"] - d.mean()) < TOL
    assert (res["wins"], res["ties"], res["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())


@pytest.mark.parametrize("seed", range(12))
def test_wilcoxon_matches_scipy(seed: int) -> None:
    ties = seed % 2 == 1
    a, b = case(seed, 6 + 9 * seed, ties=ties)
    res = one(fe.compare.compare(long_frame({"a": a, "b": b}), "a", tests="wilcoxon"), "wilcoxon")
    d = b - a
    nonzero = np.abs(d[d != 0])
    exact = nonzero.size <= 50 and np.unique(nonzero).size == nonzero.size
    if exact:
        ref = stats.wilcoxon(b, a, method="exact")
    else:
        ref = stats.wilcoxon(b, a, method="asymptotic", correction=False)
    assert abs(res["p_value"] - ref.pvalue) < TOL, (exact, res["p_value"], ref.pvalue)


@pytest.mark.parametrize("seed", range(12))
def test_sign_test_matches_binomtest(seed: int) -> None:
    a, b = case(seed, 4 + 5 * seed, ties=True)
    res = one(fe.compare.compare(long_frame({"a": a, "b": b}), "a", tests="sign"), "sign")
    wins, losses = int((b > a).sum()), int((b < a).sum())
    assert abs(res["p_value"] - stats.binomtest(wins, wins + losses).pvalue) < TOL


@pytest.mark.parametrize("n", [2, 3, 6, 9, 12])
def test_exact_randomization_matches_permutation_test(n: int) -> None:
    # permutation_type="samples" swaps the two values of a pair: the sign flip of d.
    a, b = case(n, n)
    res = one(fe.compare.compare(long_frame({"a": a, "b": b}), "a", tests="randomization"), "randomization")
    ref = stats.permutation_test(
        (b, a), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        vectorized=True, n_resamples=np.inf,
    )
    assert abs(res["p_value"] - ref.pvalue) < TOL


def test_randomization_monte_carlo_is_seeded_and_close_to_exact() -> None:
    a, b = case(3, 16)
    d = b - a
    exact = stats.permutation_test((b, a), lambda x, y, axis: np.mean(x - y, axis=axis),
                                   permutation_type="samples", vectorized=True, n_resamples=np.inf).pvalue
    p1 = resampling.randomization(d, 5000, seed=1)
    assert p1 == resampling.randomization(d, 5000, seed=1)
    assert p1 != resampling.randomization(d, 5000, seed=2)
    assert abs(p1 - exact) < 0.03


@pytest.mark.parametrize("seed", range(6))
def test_bootstrap_interval_matches_scipy_and_p_value_by_hand(seed: int) -> None:
    a, b = case(seed, 10 + 10 * seed)
    result = fe.compare.compare(long_frame({"a": a, "b": b}), "a", tests="bootstrap",
                                n_resamples=2500, seed=seed)
    res = one(result, "bootstrap")
    d = b - a
    ref = stats.bootstrap((d,), np.mean, n_resamples=2500, batch=1024, method="percentile",
                          rng=np.random.default_rng(seed))
    assert abs(res["ci_low"] - ref.confidence_interval.low) < TOL
    assert abs(res["ci_high"] - ref.confidence_interval.high) < TOL
    means = ref.bootstrap_distribution
    expected = (1 + np.sum(np.abs(means - d.mean()) >= abs(d.mean()))) / 2501
    assert abs(res["p_value"] - expected) < TOL


@pytest.mark.parametrize("method,ours", [("bonferroni", "bonferroni"), ("holm", "holm"), ("fdr_bh", "bh")])
def test_corrections_match_multipletests(method: str, ours: str) -> None:
    rng = np.random.default_rng(7)
    systems = {f"s{i}": rng.random(30) + 0.02 * i for i in range(9)}
    frame = pl.concat([long_frame(systems, "AP"), long_frame({k: v[::-1] for k, v in systems.items()}, "RR")])
    result = fe.compare.compare(frame, "s0", tests=["t", "sign"], correction=ours)
    for (metric, test), family in result.group_by(["metric", "test"]):
        expected = multitest.multipletests(family["p_value"].to_numpy(), method=method)[1]
        assert np.abs(family["p_adjusted"].to_numpy() - expected).max() < TOL, (metric, test)
        assert family.height == 8


def test_corrections_leave_null_p_values_out_of_the_family() -> None:
    df = pl.DataFrame({"f": ["x"] * 4, "p": [0.01, None, 0.04, 0.03]})
    for ours, theirs in [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")]:
        got = fe.compare.adjust(df, "p", ["f"], ours)["p_adjusted"].to_list()
        ref = multitest.multipletests([0.01, 0.04, 0.03], method=theirs)[1]
        assert got[1] is None
        assert np.abs(np.array([got[0], got[2], got[3]]) - ref).max() < TOL


@pytest.mark.parametrize("seed", range(4))
def test_intervals_match_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.random(8 + 11 * seed)
    frame = long_frame({"a": x})
    t_row = fe.compare.intervals(frame, level=0.9).row(0, named=True)
    low, high = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert abs(t_row["ci_low"] - low) < TOL and abs(t_row["ci_high"] - high) < TOL
    boot = fe.compare.intervals(frame, method="bootstrap", n_resamples=3000, seed=seed).row(0, named=True)
    ref = stats.bootstrap((x,), np.mean, n_resamples=3000, batch=1024, method="percentile",
                          rng=np.random.default_rng(seed)).confidence_interval
    assert abs(boot["ci_low"] - ref.low) < TOL and abs(boot["ci_high"] - ref.high) < TOL


def test_all_pairs_and_shape() -> None:
    rng = np.random.default_rng(0)
    frame = long_frame({s: rng.random(10) for s in ["c", "a", "b"]})
    result = fe.compare.compare(frame, tests=["t", "wilcoxon"])
    assert result.select("system", "baseline", "test").rows() == [
        ("a", "b", "t"), ("a", "b", "wilcoxon"), ("a", "c", "t"), ("a", "c", "wilcoxon"),
        ("b", "c", "t"), ("b", "c", "wilcoxon"),
    ]
    assert result.columns == ["system", *fe.compare.frame.OUTPUT]


def test_missing_policies() -> None:
    frame = long_frame({"a": [0.1, 0.2, 0.3, 0.4], "b": [0.5, 0.6, 0.7, 0.8]})
    frame = frame.filter(~((pl.col("system") == "b") & (pl.col("query_id") == "q002")))
    with pytest.raises(ValueError, match=r"system 'b' has no AP value \(metric column\) for query_id 'q002'"):
        fe.compare.compare(frame, "a")
    zero = one(fe.compare.compare(frame, "a", missing="zero"), "t")
    drop = one(fe.compare.compare(frame, "a", missing="drop"), "t")
    assert (zero["n"], zero["n_missing"], zero["missing"]) == (4, 1, "zero")
    assert zero["mean"] == (0.5 + 0.6 + 0.8) / 4
    assert (drop["n"], drop["n_missing"], drop["missing"]) == (3, 1, "drop")
    assert drop["baseline_mean"] == pytest.approx((0.1 + 0.2 + 0.4) / 3, abs=1e-15)


def test_bad_input_messages() -> None:
    frame = long_frame({"a": [0.1, 0.2], "b": [0.3, 0.4]})
    with pytest.raises(ValueError, match="baseline 'zzz' is not a value of column 'system'"):
        fe.compare.compare(frame, "zzz")
    with pytest.raises(ValueError, match="unknown test 'z'"):
        fe.compare.compare(frame, "a", tests=["z"])
    with pytest.raises(ValueError, match="unknown correction"):
        fe.compare.compare(frame, "a", correction="sidak")
    with pytest.raises(ValueError, match="has no column 'run'"):
        fe.compare.compare(frame, "a", by="run")
    third = pl.int_range(pl.len()) == 2
    nan = frame.with_columns(pl.when(third).then(float("nan")).otherwise("value").alias("value"))
    with pytest.raises(ValueError, match=r"'value' has nan at row 2 \(0-based\)"):
        fe.compare.compare(nan, "a")
    dup = pl.concat([frame, frame.head(1)])
    with pytest.raises(ValueError, match=r"more than one value for system='a', query_id='q000', metric='AP'"):
        fe.compare.compare(dup, "a")
    with pytest.raises(TypeError, match="must be numeric"):
        fe.compare.compare(frame.with_columns(pl.col("value").cast(pl.String)), "a")
    with pytest.raises(TypeError, match="one column"):
        fe.compare.compare(frame, "a", by=["system", "metric"])


def test_lazy_in_lazy_out_and_namespaces() -> None:
    rng = np.random.default_rng(1)
    frame = long_frame({s: rng.random(12) for s in ["a", "b", "c"]})
    eager = frame.ireval.compare("a", tests=ALL_TESTS, correction="holm")
    lazy = frame.lazy().ireval.compare("a", tests=ALL_TESTS, correction="holm")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    assert eager.equals(fe.compare.compare(frame, "a", tests=ALL_TESTS, correction="holm"))
    assert frame.ireval.intervals().equals(fe.compare.intervals(frame))
    pd = pytest.importorskip("pandas")
    got = frame.to_pandas().ireval.compare("a", tests=ALL_TESTS, correction="holm")
    assert isinstance(got, pd.DataFrame)
    assert pl.from_pandas(got).equals(eager)


def test_same_bits_for_any_row_order_and_thread_count(tmp_path) -> None:
    rng = np.random.default_rng(5)
    frame = long_frame({s: rng.random(300) for s in ["a", "b", "c"]} | {"d": rng.integers(0, 3, 300) / 2.0})
    reference = fe.compare.compare(frame, None, tests=ALL_TESTS, correction="bh", n_resamples=2000)
    for seed in range(3):
        shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
        again = fe.compare.compare(shuffled, None, tests=ALL_TESTS, correction="bh", n_resamples=2000)
        assert again.equals(reference)
        assert fe.compare.intervals(shuffled).equals(fe.compare.intervals(frame))
    code = (
        "import sys, polars as pl, frame_eval as fe;"
        "f = pl.read_ipc(sys.argv[1]);"
        f"r = fe.compare.compare(f, None, tests={ALL_TESTS!r}, correction='bh', n_resamples=2000);"
        "r.write_ipc(sys.argv[2])"
    )
    path_in, path_out = str(tmp_path / "in.arrow"), str(tmp_path / "out.arrow")
    frame.sample(fraction=1.0, shuffle=True, seed=9).write_ipc(path_in)
    root = str(Path(__file__).resolve().parent.parent)  # this checkout's frame_eval, not an installed one
    for threads in ("1", "3"):
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": root}
        subprocess.run([sys.executable, "-c", code, path_in, path_out], check=True, env=env, cwd=root)
        assert pl.read_ipc(path_out).equals(reference)


def test_degenerate_groups_give_null_not_false_certainty() -> None:
    one_query = long_frame({"a": [0.1], "b": [0.3]})
    rows = {r["test"]: r for r in fe.compare.compare(one_query, "a", tests=ALL_TESTS).to_dicts()}
    assert rows["t"]["p_value"] is None and rows["t"]["ci_low"] is None
    assert rows["bootstrap"]["p_value"] is None and rows["bootstrap"]["ci_low"] is None
    assert rows["randomization"]["p_value"] == 1.0  # both sign flips are as extreme
    assert rows["sign"]["p_value"] == 1.0 and rows["wilcoxon"]["p_value"] == 1.0
    same = long_frame({"a": [0.1, 0.2, 0.3], "b": [0.1, 0.2, 0.3]})
    rows = {r["test"]: r for r in fe.compare.compare(same, "a", tests=ALL_TESTS).to_dicts()}
    assert rows["t"]["p_value"] is None and rows["t"]["effect_size"] is None
    assert rows["wilcoxon"]["p_value"] is None and rows["sign"]["p_value"] is None
    assert rows["randomization"]["p_value"] == 1.0 and rows["bootstrap"]["p_value"] == 1.0
    assert (rows["t"]["ci_low"], rows["t"]["ci_high"]) == (0.0, 0.0)
    assert fe.compare.compare(long_frame({"a": [0.1]}), "a").height == 0


def test_one_value_column_and_integer_keys() -> None:
    frame = pl.DataFrame({"run": [1, 1, 1, 2, 2, 2], "fold": [3, 1, 2, 1, 2, 3],
                          "accuracy": [0.7, 0.8, 0.9, 0.75, 0.85, 0.8]})
    got = fe.compare.compare(frame, 1, by="run", on="fold", measure=None, value="accuracy", tests="t")
    rows = got.select("run", "baseline", "metric", "n", "wins", "losses").rows()
    assert rows == [(2, 1, "accuracy", 3, 1, 2)]  # fold 3 gains, folds 1 and 2 lose
    ref = stats.ttest_rel([0.75, 0.85, 0.8], [0.8, 0.9, 0.7])
    assert abs(got["p_value"][0] - ref.pvalue) < TOL
    means = fe.compare.intervals(frame, by="run", on="fold", measure=None, value="accuracy")
    assert means.select("run", "metric", "n").rows() == [(1, "accuracy", 3), (2, "accuracy", 3)]


def test_missing_extra_names_the_install_command() -> None:
    from frame_eval.compare._optional import need

    with pytest.raises(ImportError, match=r'pip install "frame-eval\[stats\]"'):
        need("frame_eval_no_such_module")
