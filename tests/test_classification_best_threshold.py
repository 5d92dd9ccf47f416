"""Threshold selection under constraints, weighted sums of rates and costs (issue 13).

Oracle: every distinct score tried by brute force, the criterion and the
constraints evaluated with exact fractions (``fractions.Fraction``), the
highest threshold kept among equally good ones.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import classification as C


def scored(seed: int, n: int = 120) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.2, 0.7)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1 + seed % 2)  # many ties
    return pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "s": s, "w": np.round(rng.random(n) * 2, 2)})


def _decimal(x: float) -> Fraction:
    return Fraction(repr(float(x)))  # the number as written: 0.9 is 9/10


def _value(criterion: str, tp: int, fp: int, p: int, n: int, o: dict[str, Any]) -> Fraction | None:
    fn, tn = p - tp, n - fp
    f = Fraction
    if criterion == "youden":
        return f(tp, p) - f(fp, n) if p and n else None
    if criterion == "accuracy":
        return f(tp + tn, p + n)
    if criterion == "f1":
        return f(2 * tp, 2 * tp + fp + fn) if 2 * tp + fp + fn else None
    if criterion == "closest_to_01":
        return -(f(fp, n) ** 2 + f(fn, p) ** 2) if p and n else None
    if criterion == "recall":
        return f(tp, p) if p else None
    if criterion == "precision":
        return f(tp, tp + fp) if tp + fp else None
    if criterion == "specificity":
        return f(tn, n) if n else None
    if criterion == "weighted":
        ws, wt = (_decimal(x) for x in o["weights"])
        return ws * f(tp, p) + wt * f(tn, n) if p and n else None
    c_fp, c_fn = (_decimal(x) for x in o["costs"])
    if o.get("prevalence") is None:
        return -(c_fp * fp + c_fn * fn)
    pi = _decimal(o["prevalence"])
    return -(c_fp * (1 - pi) * f(fp, n) + c_fn * pi * f(fn, p)) if p and n else None


def _allowed(tp: int, fp: int, p: int, n: int, o: dict[str, Any]) -> bool:
    f, tn = Fraction, n - fp
    checks = [
        ("min_specificity", lambda b: n > 0 and f(tn, n) >= _decimal(b)),
        ("min_recall", lambda b: p > 0 and f(tp, p) >= _decimal(b)),
        ("min_precision", lambda b: tp + fp > 0 and f(tp, tp + fp) >= _decimal(b)),
        ("max_fpr", lambda b: n > 0 and f(fp, n) <= _decimal(b)),
    ]
    return all(o.get(k) is None or ok(o[k]) for k, ok in checks)


def brute_force(part: pl.DataFrame, criterion: str, o: dict[str, Any]) -> float | None:
    y, s = part["y"].to_numpy(), part["s"].to_numpy()
    p, n = int(y.sum()), int((~y).sum())
    best, best_t = None, None
    for t in sorted(set(s.tolist()), reverse=True):  # high to low: the first best is the highest
        tp, fp = int((y & (s >= t)).sum()), int((~y & (s >= t)).sum())
        if not _allowed(tp, fp, p, n, o):
            continue
        v = _value(criterion, tp, fp, p, n, o)
        if v is not None and (best is None or v > best):
            best, best_t = v, t
    return best_t


CASES: list[tuple[str, dict[str, Any]]] = [
    ("youden", {}), ("accuracy", {}), ("f1", {}), ("closest_to_01", {}),
    ("recall", {"min_specificity": 0.9}), ("recall", {"min_specificity": 0.7, "min_precision": 0.6}),
    ("precision", {"min_recall": 0.8}), ("specificity", {"min_recall": 0.95}),
    ("recall", {"max_fpr": 0.1}), ("youden", {"max_fpr": 0.25, "min_recall": 0.3}),
    ("weighted", {"weights": (2.0, 1.0)}), ("weighted", {"weights": (0.3, 0.7)}),
    ("cost", {"costs": (1.0, 5.0)}), ("cost", {"costs": (1.0, 5.0), "prevalence": 0.1}),
    ("cost", {"costs": (2.5, 1.0), "prevalence": 0.35}), ("f1", {"min_precision": 1.0}),
]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("criterion", "options"), CASES, ids=[f"{c}-{o}" for c, o in CASES])
def test_best_threshold_is_the_brute_force_choice(seed: int, criterion: str, options: dict[str, Any]) -> None:
    df = scored(seed)
    given = dict(options)
    if criterion not in ("weighted", "cost"):
        given["criterion"] = criterion
    frame = df.ireval.best_threshold("y", "s", by="g", **given)
    expr = df.group_by("g").agg(C.best_threshold("y", "s", **given).alias("best")).sort("g")
    for (g,), part in df.partition_by("g", as_dict=True).items():
        want = brute_force(part, criterion, options)
        row = frame.filter(pl.col("g") == g).row(0, named=True)
        assert row["threshold"] == want, (g, row, want)
        assert expr.filter(pl.col("g") == g)["best"][0] == want
        if want is None:
            assert row["tp"] is None
            continue
        y, s = part["y"].to_numpy(), part["s"].to_numpy()
        tp, fp = int((y & (s >= want)).sum()), int((~y & (s >= want)).sum())
        fn, tn = int(y.sum()) - tp, int((~y).sum()) - fp
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (tp, fp, fn, tn)
        assert row["recall"] == (tp / (tp + fn) if tp + fn else None)
        assert row["specificity"] == (tn / (tn + fp) if tn + fp else None)
        assert row["precision"] == tp / (tp + fp)


def test_named_measure_reads_back_and_scores_agree() -> None:
    df = scored(1)
    names = ["best_threshold(costs=1;5,prevalence=0.1)",
             "best_threshold(criterion=recall,min_specificity=0.9)", "best_threshold(weights=2;1)"]
    got = df.ireval.scores("y", "s", by="g", metrics=names, shape="wide")
    assert got.columns == ["g", *names]
    want = df.group_by("g").agg(
        C.best_threshold("y", "s", costs=(1, 5), prevalence=0.1).alias(names[0]),
        C.best_threshold("y", "s", criterion="recall", min_specificity=0.9).alias(names[1]),
        C.best_threshold("y", "s", weights=(2, 1)).alias(names[2]),
    ).sort("g")
    assert got.equals(want)


def test_sample_weights_choose_the_best_weighted_value() -> None:
    df = scored(2, n=300)
    got = df.ireval.best_threshold("y", "s", by="g", criterion="recall", min_specificity=0.8, weight="w")
    for (g,), part in df.partition_by("g", as_dict=True).items():
        y, s, w = part["y"].to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
        p, n = w[y].sum(), w[~y].sum()
        candidates = []
        for t in sorted(set(s.tolist()), reverse=True):
            tp, fp = w[y & (s >= t)].sum(), w[~y & (s >= t)].sum()
            if (n - fp) / n >= 0.8:
                candidates.append((tp / p, t))
        best = max(v for v, _ in candidates)
        row = got.filter(pl.col("g") == g).row(0, named=True)
        assert abs(row["recall"] - best) <= 1e-12
        assert row["threshold"] == max(t for v, t in candidates if abs(v - best) <= 1e-12)


def test_weighted_ties_go_to_the_highest_threshold_on_every_path() -> None:
    # every threshold has recall 1 with these weights: weights=(0.5, 0) ties them all, and the highest
    # wins. The lazy plan once divided by the positives through a reciprocal for some points and not
    # others, and chose 0.0 on two threads (the eager call 0.6)
    df = pl.DataFrame({
        "y": [False, False, True, False, True], "s": [0.6, 0.0, 0.6, 0.4, 0.6],
        "w": [0.514569830864204, 0.49243662012805267, 0.3093489893491985, 0.46524689187393153,
              0.9526470136482831],
    })
    eager = df.ireval.best_threshold("y", "s", weights=(0.5, 0.0), weight="w")
    lazy = df.lazy().ireval.best_threshold("y", "s", weights=(0.5, 0.0), weight="w").collect()
    assert eager["threshold"].to_list() == lazy["threshold"].to_list() == [0.6]
    assert eager.equals(lazy)
    costs = df.lazy().ireval.best_threshold("y", "s", costs=(0.0, 1.0), prevalence=0.5, weight="w")
    assert costs.collect()["threshold"].to_list() == [0.6]


def test_a_bound_reads_as_written() -> None:
    # specificity exactly 9/10 meets min_specificity=0.9 (the float 0.9 is slightly above 9/10)
    df = pl.DataFrame({"y": [False] * 10 + [True] * 2, "s": [float(i) for i in range(10)] + [8.5, 20.0]})
    best = df.ireval.best_threshold("y", "s", criterion="recall", min_specificity=0.9)
    assert best.select("threshold", "specificity", "recall").row(0) == (8.5, 0.9, 1.0)


def test_bad_threshold_options() -> None:
    df = scored(0)
    with pytest.raises(ValueError, match=r"min_specificity=1.5 must lie in \[0, 1\]"):
        df.ireval.best_threshold("y", "s", min_specificity=1.5)
    with pytest.raises(ValueError, match="weights="):
        df.ireval.best_threshold("y", "s", weights=(-1, 1))
    with pytest.raises(ValueError, match="not both"):
        C.best_threshold("y", "s", weights=(1, 1), costs=(1, 1))
    with pytest.raises(ValueError, match=r"needs weights=\(w_sens, w_spec\)"):
        C.best_threshold("y", "s", criterion="weighted")
    with pytest.raises(ValueError, match="prevalence= goes with costs="):
        C.best_threshold("y", "s", prevalence=0.2)
    with pytest.raises(ValueError, match="costs= is the 'cost' criterion, not 'f1'"):
        df.ireval.best_threshold("y", "s", criterion="f1", costs=(1, 2))
    lazy = df.lazy().ireval.best_threshold("y", "s", by="g", min_recall=0.5)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(df.ireval.best_threshold("y", "s", by="g", min_recall=0.5))
