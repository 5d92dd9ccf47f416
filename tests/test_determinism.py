"""The same input gives the same bits: any row order, thread count or engine.

trec_eval adds a query's terms in rank order and divides once; polars' own
float sums add in whatever order threads deliver rows. These tests pin the
ordered arithmetic (frame_eval/_float.py) by comparing whole frames with
``equals`` (bit for bit), never with a tolerance.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "AP@10", "nDCG", "nDCG@10", "nDCG(gain=exp)@5", "P@10", "R@20", "RR", "Rprec",
            "IPrec@0.3", "Success@5", "NumRet", "NumRel", "NumRelRet", "NumQ",
            # one of each family added with issue 11
            "Bpref", "gm_map", "infAP", "SetF", "SetAP", "utility", "11pt_avg", "Rprec_mult(mult=0.4)",
            "relative_P@10", "G", "binG", "nDCG_rel", "RnDCG", "RBP", "RBP_resid", "unj@10", "Judged@10",
            "NumNonRelJudgedRet", "nDCG(gains=1:3;2:9)@10"]


def case(seed: int, queries: int = 300, depth: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Many queries with tied and graded judgements: enough rows for several threads to share."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), depth)
    run = pl.DataFrame({
        "system": np.where(rng.random(q.size) < 0.5, "a", "b"),
        "query_id": [f"q{i}" for i in q],
        "doc_id": [f"d{i}" for i in rng.integers(0, 10 * depth, q.size)],
        "score": rng.integers(0, 40, q.size) / 7.0,  # ties, and sums that are not exact
    }).unique(["system", "query_id", "doc_id"], keep="first", maintain_order=True)
    qj = np.repeat(np.arange(queries), depth // 2)
    qrels = pl.DataFrame({
        "query_id": [f"q{i}" for i in qj],
        "doc_id": [f"d{i}" for i in rng.integers(0, 10 * depth, qj.size)],
        "relevance": rng.choice([-1, 0, 1, 2, 3], qj.size),
    }).unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    return run, qrels


def shuffled(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def results(run: pl.DataFrame, qrels: pl.DataFrame, engine: str | None = None) -> dict[str, pl.DataFrame]:
    lazy_run, lazy_qrels = run.lazy(), qrels.lazy()

    def collect(frame: pl.LazyFrame) -> pl.DataFrame:
        return frame.collect() if engine is None else frame.collect(engine=engine)  # type: ignore[arg-type]

    return {
        "evaluate": collect(lazy_run.ireval.evaluate(lazy_qrels, MEASURES, by="system")),
        "wide": collect(lazy_run.ireval.evaluate(lazy_qrels, MEASURES, by="system", shape="wide")),
        "summarize": collect(lazy_run.ireval.summarize(lazy_qrels, MEASURES, by="system")),
        "complete": collect(
            lazy_run.ireval.summarize(lazy_qrels, ["AP", "nDCG"], complete=True, by="system")
        ),
    }


@pytest.mark.parametrize("seed", [0, 1])
def test_shuffled_rows_and_both_engines_give_identical_frames(seed: int) -> None:
    run, qrels = case(seed)
    reference = results(run, qrels)
    for order in range(2):
        again = results(shuffled(run, order), shuffled(qrels, order + 10), engine="streaming")
        same_engine = results(shuffled(run, order + 20), shuffled(qrels, order + 30), engine="in-memory")
        for name, frame in reference.items():
            assert frame.equals(again[name]), f"{name}: streaming, shuffled ({order})"
            assert frame.equals(same_engine[name]), f"{name}: in-memory, shuffled ({order})"


_SCRIPT = textwrap.dedent(
    """
    import sys, polars as pl, frame_eval as fe
    run, qrels = pl.read_parquet(sys.argv[1]), pl.read_parquet(sys.argv[2])
    for i, engine in enumerate(["in-memory", "streaming"]):
        lazy = run.lazy().ireval.evaluate(qrels.lazy(), {measures}, by="system", shape="wide")
        lazy.collect(engine=engine).write_parquet(f"{{sys.argv[3]}}-{{i}}-pq.parquet")
        summary = run.lazy().ireval.summarize(qrels.lazy(), {measures}, by="system")
        summary.collect(engine=engine).write_parquet(f"{{sys.argv[3]}}-{{i}}-sum.parquet")
    """
)


def test_thread_counts_give_identical_frames(tmp_path: Path) -> None:
    run, qrels = case(7, queries=400)
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    script = tmp_path / "evaluate.py"
    script.write_text(_SCRIPT.format(measures=json.dumps(MEASURES)))
    outputs: dict[str, pl.DataFrame] = {}
    for threads in ("1", "2", "8"):
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(ROOT)}
        prefix = tmp_path / f"t{threads}"
        subprocess.run([sys.executable, str(script), str(tmp_path / "run.parquet"),
                        str(tmp_path / "qrels.parquet"), str(prefix)], check=True, env=env)
        for path in sorted(tmp_path.glob(f"t{threads}-*.parquet")):
            outputs[path.name] = pl.read_parquet(path)
    assert len(outputs) == 12
    for name, frame in outputs.items():
        if name.startswith("t1-0"):
            continue
        reference = outputs["t1-0-" + name.split("-", 2)[2]]
        assert frame.equals(reference), name


def test_precision_divides_exactly() -> None:
    """7 relevant in the top 10 is 0.7, as trec_eval prints it (not 7 * 0.1); 3 is 0.3."""
    run = pl.DataFrame({"query_id": ["q1"] * 10 + ["q2"] * 10, "doc_id": [f"d{i}" for i in range(20)],
                        "score": [float(10 - i % 10) for i in range(20)]})
    relevant = [f"d{i}" for i in range(7)] + [f"d{i}" for i in range(10, 13)]
    qrels = pl.DataFrame({"query_id": ["q1"] * 7 + ["q2"] * 3, "doc_id": relevant, "relevance": [1] * 10})
    values = run.ireval.evaluate(qrels, ["P@10", "P@20", "P@30"], shape="wide").rows()
    assert values == [("q1", 7 / 10, 7 / 20, 7 / 30), ("q2", 3 / 10, 3 / 20, 3 / 30)]
    assert (values[0][1], values[1][1]) == (0.7, 0.3)


def test_summary_adds_queries_in_text_order_then_divides_once() -> None:
    run, qrels = case(3, queries=50)
    per_query = run.ireval.evaluate(qrels, ["AP", "nDCG"], by="system", shape="wide")
    summary = run.ireval.summarize(qrels, ["AP", "nDCG"], by="system", shape="wide")
    for row in summary.iter_rows(named=True):
        rows = per_query.filter(pl.col("system") == row["system"]).sort("query_id")
        for name in ("AP", "nDCG"):
            total = 0.0
            for value in rows[name]:  # text order of the ids, one addition at a time
                total += value
            assert row[name] == total / rows.height
            # and it is the mean to within rounding: the order matters only in the last bits
            exact = sum(Fraction(v) for v in rows[name]) / rows.height
            assert abs(Fraction(row[name]) - exact) < Fraction(1, 10**12)
