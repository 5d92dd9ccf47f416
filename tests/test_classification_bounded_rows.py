"""best_threshold under a bound on false positives (``min_specificity=``, ``max_fpr=``) without a sort of
every row: the same frames as the curve of every point.

Under such a bound, ``criterion="recall"`` is answered by selection
(:func:`frame_eval.classification.bounded_rows.most_sensitive_within_bound`) and every other criterion
from the rows that can qualify (:func:`~frame_eval.classification.bounded_rows.rows_within_bound`);
from 100,000 rows, every criterion but that one from the rows of the parts of score buckets that can
hold the best point (:func:`~frame_eval.classification.bucketed_best.best_in_buckets`). All must
give, bit for bit, the frame of the path that reads every point (the bounds switched off in
``frame_thresholds``), on tied, negative, zero (both signs) and infinite scores, groups with no
positives, no negatives or one row, bounds never and always met, one, two and no keys, shuffled
rows, both engines and 1, 2 and 8 threads, and score ranges too narrow (subnormal) or too wide for steps;
and scikit-learn's ``roc_curve`` read as the benchmark reads it. The windows of scores that stand for
ranges of buckets must hold exactly those buckets' scores, at and beside every bucket's edge.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval.classification import bounded_rows, bucketed_best, frame_thresholds

ROOT = Path(__file__).resolve().parents[1]


def frame(seed: int, n: int = 4000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 8, n)
    y = rng.random(n) < np.array([0.0, 1.0, 0.02, 0.3, 0.5, 0.7, 0.3, 0.1])[groups]  # 0: no positives
    s = np.round(rng.standard_normal(n) + 1.5 * y, 1 + seed % 3) * 10.0 ** (seed % 4 - 1)  # ties
    s = np.where(rng.random(n) < 0.01, np.inf, s) if seed % 2 else s
    s = np.where(s == 0.0, np.where(rng.random(n) < 0.5, -0.0, 0.0), s)  # zeros of both signs
    h = rng.choice(np.array(["a", "b", "c"]), n)
    df = pl.DataFrame({"g": groups, "h": h, "y": y, "s": s})
    return pl.concat([df, pl.DataFrame({"g": [9], "h": ["a"], "y": [True], "s": [0.5]})])  # one row


OPTIONS: list[dict[str, Any]] = [
    {"criterion": "recall", "min_specificity": 0.9}, {"criterion": "recall", "min_specificity": 0.0},
    {"criterion": "recall", "min_specificity": 1.0}, {"criterion": "recall", "max_fpr": 0.05},
    {"criterion": "recall", "max_fpr": 1.0}, {"criterion": "recall", "max_fpr": 0.0},
    {"criterion": "recall", "min_specificity": 0.7, "max_fpr": 0.2},
    {"criterion": "recall", "min_specificity": 0.8, "min_recall": 0.3},
    {"criterion": "recall", "min_specificity": 0.8, "min_recall": 0.99},
    {"criterion": "recall", "min_specificity": 1e-30},  # not exact in 64 bits: the curve of every point
    {"criterion": "recall", "min_specificity": 0.6, "min_precision": 0.5},
    {"max_fpr": 0.25}, {"criterion": "f1", "min_specificity": 0.5},
    {"criterion": "accuracy", "max_fpr": 0.3}, {"criterion": "precision", "max_fpr": 0.1},
    {"criterion": "specificity", "max_fpr": 0.5, "min_recall": 0.4},
    {"costs": (1, 5), "min_specificity": 0.95}, {"weights": (2, 1), "max_fpr": 0.0},
]


def bits(df: pl.DataFrame) -> pl.DataFrame:
    """The frame with its floats as their bits (``equals`` takes -0.0 for 0.0)."""
    return df.with_columns(pl.col(pl.Float64).reinterpret(dtype=pl.UInt64))


def every_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the bounded and bucketed paths off: every group's curve of every point."""
    monkeypatch.setattr(frame_thresholds, "most_false_positives", lambda options: None)
    monkeypatch.setattr(frame_thresholds, "BUCKETED_ROWS", 1 << 62)


# every criterion, with and without constraints (the bucketed path prunes by each)
PRUNED: list[dict[str, Any]] = [
    {}, {"criterion": "accuracy"}, {"criterion": "f1"}, {"criterion": "closest_to_01"},
    {"criterion": "precision"}, {"criterion": "specificity", "min_recall": 0.9},
    {"criterion": "specificity", "min_recall": 1.0}, {"criterion": "precision", "min_recall": 0.5},
    {"criterion": "recall", "min_precision": 0.6}, {"criterion": "f1", "min_precision": 0.99},
    {"weights": (1, 2)}, {"weights": (0, 1)}, {"costs": (1, 5)}, {"costs": (2, 1), "prevalence": 0.3},
    {"criterion": "f1", "max_fpr": 0.1}, {"criterion": "youden", "max_fpr": 1e-30},
    *OPTIONS[11:],
]
# the most specific threshold with recall >= r: a choice, no sort (1e-30 is compared in floats: pruned)
SPECIFIC: list[dict[str, Any]] = [
    {"criterion": "specificity", "min_recall": r} for r in (0.0, 1e-30, 0.05, 0.3, 0.5, 0.9, 0.999, 1.0)
]
PRUNED += SPECIFIC[:4]


def best(df: pl.DataFrame, by: list[str], options: dict[str, Any], engine: str = "auto") -> pl.DataFrame:
    lazy = df.lazy().ireval.best_threshold("y", "s", by=by, **options)
    return lazy.collect(engine=engine)  # type: ignore[call-overload]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
@pytest.mark.parametrize("seed", range(4))
def test_bounded_paths_give_the_frame_of_every_point(
    seed: int, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    df = frame(seed)
    cases = [(df, ["g", "h"]), (df, ["g"]), (df.filter(pl.col("g") == 4), []), (df.head(0), ["g"]),
             (df.filter(pl.col("g") == 0), ["g"]), (df.filter(pl.col("g") == 1), [])]
    got = [best(rows, by, options) for rows, by in cases]
    shuffled = best(df.sample(fraction=1.0, shuffle=True, seed=seed), ["g", "h"], options, "streaming")
    in_memory = best(df.sample(fraction=1.0, shuffle=True, seed=seed + 1), ["g"], options, "in-memory")
    every_point(monkeypatch)
    for (rows, by), frame_ in zip(cases, got, strict=True):
        want = best(rows, by, options)
        assert bits(frame_).equals(bits(want)), (by, frame_, want)
    assert bits(shuffled).equals(bits(got[0])) and bits(in_memory).equals(bits(got[1]))
    assert got[0].height == df.select("g", "h").unique().height


@pytest.mark.parametrize("options", PRUNED, ids=[str(o) for o in PRUNED])
@pytest.mark.parametrize("seed", range(4))
def test_bucketed_path_gives_the_frame_of_every_point(
    seed: int, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the rows of the buckets that can hold the best point sorted, whatever the size (the
    threshold set to 0): the frame of every point, bit for bit, on the cases above."""
    df = frame(seed)
    cases = [(df, ["g", "h"]), (df, ["g"]), (df.filter(pl.col("g") == 4), []), (df.head(0), ["g"]),
             (df.filter(pl.col("g") == 0), ["g"]), (df.filter(pl.col("g") == 1), [])]
    monkeypatch.setattr(frame_thresholds, "BUCKETED_ROWS", 0)
    got = [best(rows, by, options) for rows, by in cases]
    shuffled = best(df.sample(fraction=1.0, shuffle=True, seed=seed), ["g", "h"], options, "streaming")
    every_point(monkeypatch)
    for (rows, by), frame_ in zip(cases, got, strict=True):
        want = best(rows, by, options)
        assert bits(frame_).equals(bits(want)), (by, frame_, want)
    assert bits(shuffled).equals(bits(got[0]))


def test_the_bucketed_path_leaves_rows_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above compares what best_in_buckets sorts (a test that cannot fail otherwise): it runs,
    and sorts a part of the rows (the parts kept, a smaller part than the buckets kept)."""
    sorted_rows: list[tuple[int, int, int]] = []
    real_rows, real_points = bucketed_best._rows_of_kept_buckets, bucketed_best._best_points
    seen: dict[str, int] = {}

    def rows_of(rows: pl.DataFrame, *args: Any) -> Any:
        found = real_rows(rows, *args)
        seen.update(rows=rows.height, kept=found.height)
        return found

    def points(found: pl.Series, *args: Any) -> Any:
        sorted_rows.append((found.len(), seen["kept"], seen["rows"]))
        return real_points(found, *args)

    monkeypatch.setattr(bucketed_best, "_rows_of_kept_buckets", rows_of)
    monkeypatch.setattr(bucketed_best, "_best_points", points)
    monkeypatch.setattr(frame_thresholds, "BUCKETED_ROWS", 1000)
    df = frame(1, n=40_000).filter(pl.col("s").is_finite())
    df = df.with_columns(pl.col("s") + pl.int_range(pl.len()) * 1e-9)  # (distinct scores: fine parts)
    for options in ({"weights": (1, 2)}, {"criterion": "precision", "min_recall": 0.9}, {"max_fpr": 0.1}):
        best(df, ["g"], options)
    best(df.head(500), ["g"], {"costs": (1, 5)})  # fewer rows than the threshold: every point
    assert len(sorted_rows) == 3 and all(0 < s < k < n / 2 for s, k, n in sorted_rows), sorted_rows



@pytest.mark.parametrize(
    "options", [{"weights": (1, 2)}, {"costs": (1, 5)}, {"criterion": "f1", "max_fpr": 0.1}], ids=str
)
def test_the_kept_parts_hold_the_best_points_and_count_the_rows_above(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each part ``_kept_parts`` keeps carries its group's positives and negatives scoring above the part
    (counted here from the rows), the part holding each group's best threshold (by the path of every
    point) is kept, and some parts are left out."""
    seen: list[tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]] = []
    real = bucketed_best._kept_parts

    def kept_parts(parts: pl.DataFrame, positive: str, kept: pl.DataFrame, *args: Any) -> pl.DataFrame:
        found = real(parts, positive, kept, *args)
        seen.append((parts, kept, found))
        return found

    monkeypatch.setattr(bucketed_best, "_kept_parts", kept_parts)
    monkeypatch.setattr(frame_thresholds, "BUCKETED_ROWS", 1000)
    df = frame(1, n=40_000).filter(pl.col("s").is_finite())
    df = df.with_columns(pl.col("s") + pl.int_range(pl.len()) * 1e-9)  # (distinct scores: fine parts)
    got = best(df, ["g"], options)
    (parts, kept, found), = seen
    c = bucketed_best._C
    group_of = pl.lit(kept.get_column("g")).gather(pl.col(c) // bucketed_best.PARTS).alias("g")
    tops = parts.group_by(c).agg(pl.col(parts.columns[2]).max().alias("top")).with_columns(group_of)
    above = found.join(tops, on=c).join(df, on="g").filter(pl.col("s") > pl.col("top")).group_by(c).agg(
        pl.col("y").sum().cast(pl.Int64).alias("tp"), (~pl.col("y")).sum().cast(pl.Int64).alias("fp")
    )
    counted = found.join(above, on=c, how="left").with_columns(pl.col("tp", "fp").fill_null(0))
    assert counted.height == found.height > 0
    assert counted.select((pl.col("tp") == pl.col(bucketed_best._TP_ABOVE)).all()).item()
    assert counted.select((pl.col("fp") == pl.col(bucketed_best._FP_ABOVE)).all()).item()
    every_point(monkeypatch)
    want = best(df, ["g"], options)
    assert bits(got).equals(bits(want))
    at_best = parts.with_columns(group_of).join(want.select("g", "threshold"), on="g").filter(
        pl.col(parts.columns[2]) == pl.col("threshold")
    ).get_column(c).unique()
    assert 0 < at_best.len() <= want.get_column("threshold").count()
    assert at_best.is_in(found.get_column(c).implode()).all()
    assert found.height < parts.get_column(c).n_unique()  # (some parts left out)


PATHS = ["hash bits", "join", "shared hash"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("options", [*PRUNED[::3], SPECIFIC[3]], ids=str)
def test_each_way_to_number_the_rows_gives_the_same_frame(
    path: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row finds its group by bits of its keys' hash (few groups), by a join on the hash (many), or,
    when two groups share a hash, the rows are matched on their keys (rows_that_can_be_best; the most
    specific threshold too): the frame of every point each way."""
    df = frame(3)
    monkeypatch.setattr(frame_thresholds, "BUCKETED_ROWS", 0)
    if path == "join":
        monkeypatch.setattr(bucketed_best, "_slots", lambda hashes: None)
    elif path == "shared hash":
        monkeypatch.setattr(bucketed_best, "keys_hash", lambda keys: pl.lit(7, pl.UInt64))
    cases = [(df, ["g", "h"]), (df, ["g"]), (df.filter(pl.col("g") == 4), [])]
    got = [best(rows, by, options) for rows, by in cases]
    every_point(monkeypatch)
    want = [best(rows, by, options) for rows, by in cases]
    for frame_, expected in zip(got, want, strict=True):
        assert bits(frame_).equals(bits(expected)), (frame_, expected)


@pytest.mark.parametrize("options", OPTIONS[:3] + OPTIONS[-4:], ids=str)
def test_a_zero_threshold_is_positive_zero(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    df = pl.DataFrame({
        "g": [1] * 6 + [2] * 4,
        "y": [False, True, True, False, False, True, True, False, True, False],
        "s": [-1.0, -0.0, 0.0, -2.0, -3.0, 5.0, -0.0, -1.0, -0.0, -2.0],
    })
    got = best(df, ["g"], options)
    every_point(monkeypatch)
    assert bits(got).equals(bits(best(df, ["g"], options)))


def test_the_bounded_paths_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests above compare what these functions give (a test that cannot fail otherwise)."""
    calls: list[str] = []
    for name in ("most_sensitive_within_bound", "rows_within_bound"):
        real = getattr(bounded_rows, name)
        monkeypatch.setattr(
            frame_thresholds, name, lambda *a, _r=real, _n=name, **k: calls.append(_n) or _r(*a, **k)
        )
    df = frame(0)
    best(df, ["g"], {"criterion": "recall", "min_specificity": 0.9})
    best(df, ["g"], {"criterion": "f1", "max_fpr": 0.1})
    best(df, ["g"], {"criterion": "recall", "min_specificity": 1e-30})  # compared in floats: every point
    best(df, ["g"], {"criterion": "f1", "min_specificity": 0.0, "max_fpr": 1.0})  # leave out no point
    best(df, ["g"], {"criterion": "recall", "min_specificity": 0.9, "min_precision": 0.2})
    assert calls == ["most_sensitive_within_bound", "rows_within_bound", "rows_within_bound"]


@pytest.mark.parametrize("seed", range(3))
def test_most_specific_threshold_is_the_frame_of_every_point(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``criterion="specificity"`` with an exact ``min_recall=`` from the bucket counts and the rows of one
    bucket per group (:func:`~frame_eval.classification.bucketed_best.most_specific_within_recall`), at the
    size that switches it on: many groups of one to a few rows, a few large ones, heavy ties (a few
    distinct scores, zeros of both signs, infinities), groups without positives or negatives: the frame
    of every point, bit for bit, shuffled too; and it runs wherever the bound is exact."""
    rng = np.random.default_rng(seed)
    n = frame_thresholds.BUCKETED_ROWS + 20_000
    tiny = n // 2
    g = np.where(rng.random(n) < 0.2, rng.integers(0, tiny // 3, n), rng.integers(tiny, tiny + 12, n))
    large = [0.0, 1.0, 0.001, 0.5, 0.3, 0.02, 0.9, 0.1, 0.6, 0.4, 0.2, 0.7]  # 0.0: no positives
    share = np.concatenate([rng.random(tiny), large])
    y = rng.random(n) < share[g]
    s = rng.integers(-3, 4, n) * 10.0 ** (seed - 1) + np.where(g % 3 == 0, rng.integers(0, 40, n) * 0.01, 0.0)
    s = np.where(s == 0.0, np.where(rng.random(n) < 0.5, -0.0, 0.0), s)
    s = np.where(rng.random(n) < 0.001, np.where(rng.random(n) < 0.5, np.inf, -np.inf), s) if seed else s
    df = pl.DataFrame({"g": g, "y": y, "s": s})
    calls: list[int] = []
    real = frame_thresholds.most_specific_within_recall
    monkeypatch.setattr(
        frame_thresholds, "most_specific_within_recall", lambda *a: calls.append(len(a)) or real(*a)
    )
    got = [best(df, ["g"], options) for options in SPECIFIC]
    shuffled = best(df.sample(fraction=1.0, shuffle=True, seed=seed), ["g"], SPECIFIC[4], "streaming")
    alone = best(df.filter(pl.col("g") == tiny + 3), [], SPECIFIC[5])  # (fewer rows: every point)
    assert len(calls) == len(SPECIFIC)  # every exact bound, and the shuffled frame: 1e-30 not
    every_point(monkeypatch)
    for options, frame_ in zip(SPECIFIC, got, strict=True):
        want = best(df, ["g"], options)
        assert bits(frame_).equals(bits(want)), (options, frame_, want)
    assert bits(shuffled).equals(bits(got[4]))
    assert alone.height == 1 and got[0].height == df.get_column("g").n_unique()
    assert got[0].get_column("threshold").null_count() < got[0].height  # (not all null)


def test_most_sensitive_threshold_is_roc_curves(monkeypatch: pytest.MonkeyPatch) -> None:
    """scikit-learn's points with FP <= floor(N / 10) (specificity >= 9/10 in integers): the most true
    positives, at the highest such threshold."""
    metrics = pytest.importorskip("sklearn.metrics")
    df = frame(2).filter(pl.col("s").is_finite())
    got = best(df, ["g"], {"criterion": "recall", "min_specificity": 0.9})
    for (g,), part in df.partition_by("g", as_dict=True).items():
        y, s = part["y"].to_numpy(), part["s"].to_numpy()
        row = got.filter(pl.col("g") == g).row(0, named=True)
        n = int((~y).sum())
        if n == 0 or y.sum() == 0:
            assert row["threshold"] is None
            continue
        fpr, tpr, thresholds = metrics.roc_curve(y, s, drop_intermediate=False)
        fp = np.rint(fpr * n).astype(np.int64)
        allowed = (n - fp) * 10 >= 9 * n
        allowed[0] = False  # scikit-learn's first point, above every score
        if not allowed.any():
            assert row["threshold"] is None
            continue
        top = tpr[allowed].max()
        want = thresholds[allowed & (tpr == top)].max()
        tp = np.rint(tpr * int(y.sum())).astype(np.int64)  # the counts back from the rates (exact)
        assert row["threshold"] == want and row["tp"] == tp[allowed].max()
        assert row["fp"] == fp[allowed & (tpr == top) & (thresholds == want)][0]


SCRIPT = textwrap.dedent("""
    import json, sys
    import polars as pl
    import frame_eval  # noqa: F401
    from frame_eval.classification import frame_thresholds
    frame_thresholds.BUCKETED_ROWS = int(sys.argv[3])
    df = pl.read_parquet(sys.argv[1])
    out = {}
    for i, options in enumerate(json.loads(sys.argv[2])):
        got = df.ireval.best_threshold("y", "s", by=["g", "h"], **options)
        out[str(i)] = got.write_json()
    print(json.dumps(out))
""")


def test_any_thread_count_gives_the_same_frame(tmp_path: Path) -> None:
    df = frame(5, n=60_000)
    df.write_parquet(tmp_path / "rows.parquet")
    options = [{"criterion": "recall", "min_specificity": 0.9}, {"criterion": "f1", "max_fpr": 0.2},
               {"costs": (1, 5)}, {"criterion": "specificity", "min_recall": 0.7}]
    outputs = []
    for threads, bucketed in (("1", 0), ("2", 0), ("8", 0), ("2", 1 << 62)):  # bucketed, then every point
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(tmp_path / "rows.parquet"), json.dumps(options),
             str(bucketed)],
            env=env, capture_output=True, text=True, check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2] == outputs[3]
    assert json.loads(outputs[0])["0"] != json.loads(outputs[0])["1"]


@pytest.mark.parametrize("seed", range(6))
def test_bucket_ranges_read_off_the_scores_are_the_buckets(seed: int) -> None:
    """``within`` compares scores with the lowest score of a bucket (found in Python): it must keep
    exactly the scores whose bucket, computed by polars, is in range, at and beside every edge."""
    rng = np.random.default_rng(seed)
    spread = [1.0, 1e-12, 1e300, 3.0, 1e-300, 7.0][seed]
    s = rng.standard_normal(2000) * spread + [0.0, 0.5, 0.0, -1e3, 0.0, 1e17][seed]
    if seed % 2:
        s[:3] = [np.inf, -np.inf, -0.0]
    buckets = bounded_rows._Buckets.of(pl.Series("s", s))
    assert buckets.low is not None
    edges = [buckets._lowest(j) for j in range(1, bounded_rows.BUCKETS + 1)]
    near = [np.nextafter(e, d) for e in edges if np.isfinite(e) for d in (-np.inf, np.inf)]
    scores = pl.DataFrame({"s": np.concatenate([s, [e for e in edges if np.isfinite(e)], near])})
    with_buckets = scores.with_columns(buckets.expr())
    for first, last in [(0, 64), (1, 1), (5, 9), (31, 32), (63, 64), (64, 64), (0, 0), (20, 63)]:
        kept = with_buckets.filter(buckets.within(first, last))
        want = with_buckets.filter(pl.col(bounded_rows._B).is_between(first, last))
        assert kept.equals(want), (first, last)
    assert with_buckets.get_column(bounded_rows._B).n_unique() > 40  # the buckets are spread
    # a bucket's parts (bucketed_best) never fall as the score rises, and stay within the bucket
    b = pl.col(bounded_rows._B)
    parts = with_buckets.with_columns(buckets.part(64, b).alias("part")).sort("s")
    fine = parts.get_column(bounded_rows._B).cast(pl.Int64) * 64 + parts.get_column("part")
    assert (fine.diff().drop_nulls() >= 0).all() and parts.get_column("part").max() <= 63
    assert fine.n_unique() > 100  # the parts are spread
    # the bucket counts group by the floor of the steps (key): the same buckets as expr, every edge too
    keyed = scores.with_columns(buckets.key().alias("k")).with_columns(buckets.expr())
    assert keyed.select((pl.col("k").cast(pl.UInt8) == pl.col(bounded_rows._B)).all()).item()


@pytest.mark.parametrize("keys", [["g"], []])
def test_bucket_counts_put_nan_and_null_scores_in_bucket_0(keys: list[str]) -> None:
    """Grouped by the floor of the steps, NaN and null scores (which the data checks refuse) fall in keys
    of their own: the counts put them in bucket 0, one row per group and bucket, as expr's buckets do."""
    df = frame(2).filter(pl.col("s").is_finite()).with_columns(pl.col("s").cast(pl.Float64))
    df = pl.concat([df, pl.DataFrame({"g": [2, 2, 3, 5], "h": "a", "y": [True, False, False, True],
                                      "s": [float("nan"), None, float("nan"), None]})])
    _, counts = bounded_rows._bucket_counts(df, keys, "y", "s")
    buckets = bounded_rows._Buckets.of(df.get_column("s"))
    want = df.group_by([*keys, buckets.expr()]).agg(
        pl.len().cast(pl.Int64).alias("_n"), pl.col("y").sum().cast(pl.Int64).alias("_P")
    )
    order = [*keys, bounded_rows._B]
    assert counts.select(*order, "_n", "_P").sort(order).equals(want.sort(order))
    assert counts.filter(pl.col(bounded_rows._B) == 0).get_column("_n").sum() > 0


@pytest.mark.parametrize("scores", [
    [0.0, 1e-310, 5e-311, 2e-311, 7e-311, 1e-310],  # a subnormal range: 64 steps of it overflow
    [0.0, 1e-310, 5e-311, np.inf, 7e-311, -np.inf],
    [-1e308, 1e308, 0.0, 1.0, -1.0, 5.0],  # the range itself overflows
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
], ids=["subnormal", "subnormal and infinite", "overflowing", "one score"])
def test_ranges_too_small_or_too_wide_for_buckets(
    scores: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every score in one bucket when the steps cannot be computed: the same frames, no error."""
    df = pl.DataFrame({"g": [1, 1, 1, 2, 2, 2] * 3, "y": [False, True, False, True, False, False] * 3,
                       "s": scores * 3})
    buckets = bounded_rows._Buckets.of(df.get_column("s"))
    assert buckets.low is None and df.filter(buckets.within(1, 5)).height == 0
    options = {"criterion": "recall", "min_specificity": 0.6}
    got = best(df, ["g"], options), best(df, [], options), best(df, ["g"], {"max_fpr": 0.4})
    every_point(monkeypatch)
    want = best(df, ["g"], options), best(df, [], options), best(df, ["g"], {"max_fpr": 0.4})
    for frame_, expected in zip(got, want, strict=True):
        assert bits(frame_).equals(bits(expected)), (frame_, expected)
