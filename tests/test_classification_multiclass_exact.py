"""Multi-class ROC AUC and average precision of the frame method: scikit-learn's bits (``==``, not
isclose) on random tied data, several groups in one call, any row order; weighted, the expressions' bits."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import classification as C

skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle of these tests")

GROUPS = 3
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def tied_probabilities(seed: int) -> tuple[pl.DataFrame, dict[int, str], int]:
    """g (group), y (class 0..k-1), one probability column per class with 1 to 3 decimals (rows add to 1,
    many ties), w (sample weights); every class in every group."""
    rng = np.random.default_rng(seed)
    k, n, decimals = int(rng.integers(3, 13)), int(rng.integers(50, 801)), int(rng.integers(1, 4))
    n = max(n, GROUPS * k)
    y = rng.integers(0, k, n)
    y[: GROUPS * k] = np.repeat(np.arange(k), GROUPS)
    g = np.arange(n) % GROUPS
    lean = rng.dirichlet([1.0] * k, n) + 0.5 * (y[:, None] == np.arange(k)[None, :])
    scale = 10**decimals
    counts = np.array([rng.multinomial(scale, row / row.sum()) for row in lean])
    prob = counts / scale  # d decimals each; the row sums are 1 up to rounding
    frame = {"g": g, "y": y, "w": np.round(rng.random(n) * 3, 1)} | {f"p{c}": prob[:, c] for c in range(k)}
    return pl.DataFrame(frame), {c: f"p{c}" for c in range(k)}, k


def _scores(df: pl.DataFrame, cols: dict[int, str], **kw: object) -> pl.DataFrame:
    return df.ireval.scores("y", cols, by="g", shape="wide", **kw)


@pytest.mark.parametrize("seed", range(12))
def test_multiclass_roc_auc_and_ap_have_scikit_learns_bits(seed: int) -> None:
    df, cols, k = tied_probabilities(seed)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    for multi_class, averages in (("ovr", ("macro", "weighted", "micro")), ("ovo", ("macro", "weighted"))):
        for average in averages:
            metrics = ["ROC_AUC"] if multi_class == "ovo" else ["ROC_AUC", "average_precision"]
            got = _scores(df, cols, average=average, multi_class=multi_class, metrics=metrics)
            assert got["g"].to_list() == list(range(GROUPS))
            for (g,), part in df.partition_by("g", as_dict=True).items():
                y = part["y"].to_numpy()
                scores = part.select(list(cols.values())).to_numpy()
                row = got.filter(pl.col("g") == g).row(0, named=True)
                want = skm.roc_auc_score(y, scores, multi_class=multi_class, average=average)
                assert row["ROC_AUC"] == want, (seed, k, multi_class, average, g)
                if multi_class == "ovr":
                    onehot = (y[:, None] == np.arange(k)[None, :]).astype(int)
                    want_ap = skm.average_precision_score(onehot, scores, average=average)
                    assert row["average_precision"] == want_ap, (seed, k, average, g)
            again = _scores(shuffled, cols, average=average, multi_class=multi_class, metrics=metrics)
            assert again.equals(got)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_frame_method_has_the_expressions_bits(seed: int) -> None:
    df, cols, _ = tied_probabilities(100 + seed)
    for average in ("macro", "weighted", "micro"):
        got = _scores(df, cols, average=average, weight="w", metrics=["ROC_AUC", "average_precision"])
        want = df.group_by("g").agg(
            C.multiclass_roc_auc("y", cols, average=average, weight="w"),
            C.multiclass_average_precision("y", cols, average=average, weight="w"),
        ).sort("g")
        assert got.equals(want)
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
        assert _scores(shuffled, cols, average=average, weight="w",
                       metrics=["ROC_AUC", "average_precision"]).equals(got)


def test_without_groups_lazy_and_streaming_agree() -> None:
    df, cols, _ = tied_probabilities(7)
    y, scores = df["y"].to_numpy(), df.select(list(cols.values())).to_numpy()
    got = df.ireval.scores("y", cols, average="macro", multi_class="ovo", shape="wide", metrics=["ROC_AUC"])
    assert got.row(0) == (skm.roc_auc_score(y, scores, multi_class="ovo"),)
    lazy = df.lazy().ireval.scores("y", cols, average="macro", multi_class="ovo", shape="wide",
                                   metrics=["ROC_AUC"])
    assert lazy.collect(engine="streaming").equals(got)
    empty = df.clear().ireval.scores("y", cols, average="weighted", shape="wide",
                                     metrics=["ROC_AUC", "AP", "top_k_accuracy"])
    assert empty.rows() == [(None, None, None)]


@pytest.mark.parametrize("seed", [200, 201])
def test_expressions_are_the_frame_method_for_many_classes_one_vs_one_included(seed: int) -> None:
    df, cols, k = tied_probabilities(seed)
    cases = [("ovr", "macro"), ("ovr", "weighted"), ("ovr", "micro"), ("ovo", "macro"), ("ovo", "weighted")]
    exprs = [
        C.multiclass_roc_auc("y", cols, multi_class=mc, average=av).alias(f"{mc}_{av}") for mc, av in cases
    ]
    exprs += [C.multiclass_average_precision("y", cols, average=av).alias(f"ap_{av}")
              for av in ("macro", "weighted", "micro")]
    exprs += [C.multiclass_roc_auc("y", cols, average="weighted", weight="w").alias("ovr_w")]
    got = df.lazy().group_by("g").agg(exprs).sort("g").collect(engine="streaming")
    for mc, av in cases:
        frame = _scores(df, cols, average=av, multi_class=mc, metrics=["ROC_AUC"])
        assert got[f"{mc}_{av}"].to_list() == frame["ROC_AUC"].to_list(), (seed, k, mc, av)
    for av in ("macro", "weighted", "micro"):
        frame = _scores(df, cols, average=av, metrics=["AP"])
        assert got[f"ap_{av}"].to_list() == frame["average_precision"].to_list()
    weighted = _scores(df, cols, average="weighted", weight="w", metrics=["ROC_AUC"])
    assert got["ovr_w"].to_list() == weighted["ROC_AUC"].to_list()
    part = df.filter(pl.col("g") == 0)
    scores = part.select(list(cols.values())).to_numpy()
    want = skm.roc_auc_score(part["y"].to_numpy(), scores, multi_class="ovo")
    assert got["ovo_macro"][0] == want
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    assert shuffled.group_by("g").agg(exprs).sort("g").equals(got)


def test_expressions_leave_out_rows_with_a_null_label_or_a_nan_score() -> None:
    df, cols, _ = tied_probabilities(300)
    bad = df.with_columns(
        y=pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise("y"),
        p1=pl.when(pl.int_range(pl.len()) == 1).then(float("nan")).otherwise("p1"),
    )
    exprs = [C.multiclass_roc_auc("y", cols, multi_class="ovo"), C.multiclass_average_precision("y", cols)]
    assert bad.select(exprs).equals(df.slice(2).select(exprs))
    assert df.clear().select(exprs).rows() == [(None, None)]


@pytest.mark.parametrize("collide", ["all", "some"])
def test_groups_whose_hashes_meet_are_measured_laid_out_with_the_same_bits(
    collide: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sorted runs key each group by a hash; groups sharing one take the long layout instead."""
    from frame_eval.classification import grouped_multiclass

    df, cols, _ = tied_probabilities(400)
    cases = [("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted"), ("ovr", "micro")]
    want = [_scores(df, cols, average=av, multi_class=mc, metrics=["ROC_AUC", "AP"] if mc == "ovr" else
                    ["ROC_AUC"]) for mc, av in cases]

    def shared(by: list[str], classes: int) -> pl.Expr:
        if collide == "all":
            return pl.lit(5, pl.UInt64)
        return pl.when(pl.col("g") < 2).then(pl.lit(5, pl.UInt64)).otherwise(pl.lit(9, pl.UInt64))

    monkeypatch.setattr(grouped_multiclass, "_group_hash", shared)
    for (mc, av), expected in zip(cases, want, strict=True):
        got = _scores(df, cols, average=av, multi_class=mc, metrics=["ROC_AUC", "AP"] if mc == "ovr" else
                      ["ROC_AUC"])
        assert got.equals(expected), (collide, mc, av)


_THREADS_SCRIPT = """
import sys
import numpy as np
import polars as pl
import frame_eval  # noqa: F401

rng = np.random.default_rng(5)
n, k = 150_000, 4
raw = rng.integers(1, 9, (n, k)).astype(float)
prob = raw / raw.sum(axis=1, keepdims=True)
columns = {f"p{c}": prob[:, c] for c in range(k)}
df = pl.DataFrame({"g": rng.integers(0, 7, n), "y": rng.integers(0, k, n)} | columns)
df = df.sample(fraction=1.0, shuffle=True, seed=int(sys.argv[2]))
cols = {c: f"p{c}" for c in range(k)}
parts = []
for mc, av in (("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted")):
    metrics = ["ROC_AUC", "AP"] if mc == "ovr" else ["ROC_AUC"]
    for engine in ("in-memory", "streaming"):
        got = df.lazy().ireval.scores("y", cols, by="g", average=av, multi_class=mc, metrics=metrics,
                                      shape="wide").collect(engine=engine)
        parts.append(got.with_columns(pl.lit(f"{mc} {av} {engine}").alias("case")))
pl.concat(parts, how="diagonal").write_parquet(sys.argv[1])
"""


def test_same_bits_on_any_thread_count_engine_and_row_order(tmp_path: Path) -> None:
    """From 100,000 rows the sorted runs run on a thread of their own: 1, 2 and 8 polars threads, both
    engines and two row orders give the same frames."""
    script = tmp_path / "scores.py"
    script.write_text(_THREADS_SCRIPT)
    outputs = []
    for threads, seed in (("1", "0"), ("2", "1"), ("8", "2")):
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(ROOT)}
        out = tmp_path / f"t{threads}.parquet"
        subprocess.run([sys.executable, str(script), str(out), seed], check=True, env=env)
        outputs.append(pl.read_parquet(out))
    for frame in outputs[1:]:
        assert frame.equals(outputs[0])
    engines = outputs[0].partition_by("case", as_dict=True)
    for (case,), frame in engines.items():
        if case.endswith("in-memory"):
            other = engines[(case.replace("in-memory", "streaming"),)]
            assert frame.drop("case").equals(other.drop("case")), case


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("grouped", [True, False])
def test_per_class_areas_are_each_binary_problems_bits(seed: int, grouped: bool) -> None:
    """scores(score={class: column}) without average: each class against the rest, from one sort of each
    class's scores, has the bits of the binary call with positive=<class>; a label that is no key of the
    mapping is negative for every class; any row order gives the same frame."""
    df, cols, k = tied_probabilities(500 + seed)
    some = {c: cols[c] for c in range(k - 1)}  # the last class is no key: its rows are negatives
    metrics = ["ROC_AUC", "AP", "PR_AUC", "EER"]
    by = ["g"] if grouped else []
    got = df.ireval.scores("y", some, by=by, metrics=metrics, shape="wide")
    assert got.columns == [*by, "class", *(["ROC_AUC", "average_precision", "PR_AUC", "EER"])]
    for c, col in some.items():
        want = df.ireval.scores("y", col, by=by, positive=c, metrics=metrics, shape="wide")
        mine = got.filter(pl.col("class") == c).drop("class")
        assert mine.equals(want), (seed, c)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    assert shuffled.ireval.scores("y", some, by=by, metrics=metrics, shape="wide").equals(got)
    lazy = df.lazy().ireval.scores("y", some, by=by, metrics=metrics, shape="wide")
    assert lazy.collect(engine="streaming").equals(got)


def test_per_class_areas_of_groups_whose_hashes_meet(monkeypatch: pytest.MonkeyPatch) -> None:
    from frame_eval.classification import grouped_multiclass

    df, cols, _ = tied_probabilities(600)
    df = df.with_columns(pl.col("y").cast(pl.String), pl.col("g").cast(pl.String))
    named = {str(c): col for c, col in cols.items()}
    want = df.ireval.scores("y", named, by="g", metrics=["ROC_AUC", "AP"], shape="wide")
    # groups "0" and "1" share a hash; "2" has its own
    shared = pl.when(pl.col("g") == "2").then(pl.lit(4, pl.UInt64)).otherwise(pl.lit(3, pl.UInt64))
    monkeypatch.setattr(grouped_multiclass, "_group_hash", lambda by, classes: shared)
    assert df.ireval.scores("y", named, by="g", metrics=["ROC_AUC", "AP"], shape="wide").equals(want)
