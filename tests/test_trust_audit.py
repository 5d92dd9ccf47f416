"""Issue 10's audit, the cases the other test files did not hold yet.

- every classification method reads a lazy input once per collect (a counting source);
- ``ranking_curve`` reads run and qrels once per collect;
- ``nCG(gain=exp)`` of judgements of 1024 or more is a number, not inf / inf (and the same bits as
  before for ordinary grades: see ``test_ncg_exp_keeps_its_bits``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from test_data_checks import QRELS, RUN, CountingSource

import frame_eval  # noqa: F401

ENGINES = ["in-memory", "streaming"]
PREDS = pl.DataFrame({
    "m": ["a", "b"] * 4, "y": [1, 0, 1, 0, 1, 1, 0, 0], "yhat": [1, 1, 0, 0, 1, 0, 1, 0],
    "s": [0.9, 0.8, 0.3, 0.1, 0.6, 0.4, 0.2, 0.7], "w": [1.0, 2.0, 1.0, 0.5, 1.0, 1.0, 3.0, 1.0],
    "lab": list("abcabcab"), "pa": [0.5] * 8, "pb": [0.25] * 8, "pc": [0.25] * 8,
})
CLASSES = {"a": "pa", "b": "pb", "c": "pc"}
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("confusion", ("y", "yhat"), {}), ("rates", ("y", "yhat"), {}),
    ("rates", ("lab", "lab"), {"average": "macro"}),
    ("rates", ("y",), {"score": "s", "thresholds": 3}), ("confusion_matrix", ("y", "yhat"), {}),
    ("classification_report", ("y", "yhat"), {}), ("roc", ("y", "s"), {}), ("pr_curve", ("y", "s"), {}),
    ("det_curve", ("y", "s"), {}), ("scores", ("y", "s"), {}), ("scores", ("y", "s"), {"weight": "w"}),
    ("scores", ("lab", CLASSES), {"average": "macro"}), ("best_threshold", ("y", "s"), {}),
    ("probabilities", ("y", "s"), {}), ("probabilities", ("lab", CLASSES), {}),
    ("calibration", ("y", "s"), {}),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("call", CALLS, ids=lambda c: f"{c[0]}-{'-'.join(c[2])}")
def test_each_classification_input_is_read_once_per_collect(call: Any, engine: str) -> None:
    method, args, options = call
    source = CountingSource(PREDS)
    plan = getattr(source.lazy().ireval, method)(*args, by="m", **options)
    assert source.reads == 0
    got = plan.collect(engine=engine)
    assert source.reads == 1
    assert got.equals(getattr(PREDS.ireval, method)(*args, by="m", **options))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("options", [{}, {"interpolated": True}, {"interpolated": True, "average": True}])
def test_ranking_curve_reads_each_input_once(engine: str, options: dict[str, Any]) -> None:
    run, qrels = CountingSource(RUN), CountingSource(QRELS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        plan = run.lazy().ireval.ranking_curve(qrels.lazy(), **options)
        assert (run.reads, qrels.reads) == (0, 0)
        plan.collect(engine=engine)
    assert (run.reads, qrels.reads) == (1, 1)


def test_ncg_exp_of_huge_judgements_is_a_number() -> None:
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [5000, 3, 2000]})
    got = run.ireval.evaluate(qrels, ["nCG(gain=exp)@2", "nCG(gain=exp)@5", "nDCG(gain=exp)@2"], shape="wide")
    # (2**5000 - 1 + 2**3 - 1) / (2 (2**5000 - 1)) rounds to 1/2; over 5, to 1/5
    assert got.select("nCG(gain=exp)@2", "nCG(gain=exp)@5", "nDCG(gain=exp)@2").row(0) == (0.5, 0.2, 1.0)


def test_ncg_exp_keeps_its_bits() -> None:
    """nCG(gain=exp) = CG / (k (2**h - 1)) computed as in the plain formula, on random grades 0..6."""
    rng = np.random.default_rng(7)
    run = pl.DataFrame({"query_id": rng.integers(0, 9, 300), "doc_id": rng.integers(0, 40, 300),
                        "score": rng.random(300)}).unique(["query_id", "doc_id"])
    qrels = pl.DataFrame({"query_id": rng.integers(0, 9, 200), "doc_id": rng.integers(0, 40, 200),
                          "relevance": rng.integers(-1, 7, 200)}).unique(["query_id", "doc_id"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = run.ireval.evaluate(qrels, ["nCG(gain=exp)@5", "nCG(gain=exp,max_grade=9)@3"], shape="wide")
        judged = run.ireval.judge(qrels)
    for row in got.iter_rows(named=True):
        ranked = judged.filter(pl.col("query_id") == row["query_id"])
        grades = ranked.filter(pl.col("rank").is_not_null()).sort("rank")["relevance"].fill_null(0).to_list()
        top = max([g for g in ranked["relevance"].drop_nulls().to_list()] + [0])
        for name, k, grade in (("nCG(gain=exp)@5", 5, top), ("nCG(gain=exp,max_grade=9)@3", 3, 9)):
            cg = 0.0
            for g in grades[:k]:
                cg += 2.0 ** g - 1.0 if g > 0 else 0.0
            want = cg / ((2.0 ** grade - 1.0) * k) if grade > 0 else 0.0
            assert row[name] == want, (name, row, want)


def test_probabilities_refuse_infinite_weights_as_every_other_method() -> None:
    """Found by the fuzz suite: an infinite weight made log-loss inf / inf (NaN) without an error."""
    frame = pl.DataFrame({"y": [1, 0, 1], "s": [0.2, 0.4, 0.9], "w": [1.0, float("inf"), 1.0]})
    for call in (lambda f: f.ireval.probabilities("y", "s", weight="w"),
                 lambda f: f.ireval.rates("y", score="s", thresholds=[0.5], weight="w")):
        with pytest.raises(ValueError, match=r"'w' \(first at row 1, counting from 0: inf\)"):
            call(frame)
        with pytest.raises(ValueError, match=r"'w' \(first at row 1, counting from 0: inf\)"):
            call(frame.lazy()).collect(engine="streaming")
