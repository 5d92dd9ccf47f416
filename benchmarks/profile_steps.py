"""Time the steps of one evaluation, one at a time, on the benchmark data (best of 3 runs each).

    python benchmarks/profile_steps.py benchmarks/data/10M

Where the time of ``run.ireval.evaluate`` and of the classification methods goes;
the numbers quoted in the README's speed section come from here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import classification as C
from frame_eval.judged import RunColumns, evaluation_frame
from frame_eval.judged_ranks import _score_ranks, rank_expr
from frame_eval.ranking import batched
from frame_eval.ranking._common import ORDERED
from frame_eval.registry import resolve

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]


def best(label: str, step: Callable[[], object], repeat: int = 3) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print(f"{label:56s} {min(times):7.3f} s", flush=True)


def main(data: Path) -> None:
    run, qrels = pl.read_parquet(data / "run.parquet"), pl.read_parquet(data / "qrels.parquet")
    cols, keys = RunColumns(), ["query_id", "doc_id"]
    best("ranking: evaluate (all steps)", lambda: run.ireval.evaluate(qrels, MEASURES, shape="wide"))
    best("ranking: judge (the full judged frame)", lambda: run.ireval.judge(qrels))
    _, ranked, groups, _, exact = _score_ranks(run.lazy(), cols, pl.String)
    best("ranking: rank by score per query, and the groups", lambda: pl.collect_all([ranked, groups]))
    best("ranking: the same and the exact re-rank (no ties)", lambda: pl.collect_all([ranked, groups, exact]))
    exact_all = rank_expr(cols, pl.String)
    best("ranking: rank every row by (score, doc_id) (judge())", lambda: run.select(exact_all))
    ranks = ranked.collect().lazy()
    # lazily, as evaluate() runs it (an eager DataFrame.join of the same frames takes about twice as long)
    joined = ranks.join(qrels.lazy(), on=keys, how="right")
    best("ranking: join the judgements", joined.collect)
    qrels_repeats = pl.struct(keys).hash().n_unique()
    best("ranking: qrels duplicate check (hash n_unique)", lambda: qrels.select(qrels_repeats))
    measures = resolve(MEASURES, "ranking")
    # as evaluate() builds it: judged rows no measure reads (here judgements below 1) left out
    lowest = min(m.lowest_read for m in measures)
    compact = evaluation_frame(run.lazy(), qrels.lazy(), cols, lowest_read=lowest)[0].collect()
    # as evaluate() aggregates: rows in rank order, measures through ranking.batched (build_parts)
    compact = compact.sort("query_id", "rank", nulls_last=True)
    roles = {"rank": "rank", "relevance": "relevance", ORDERED: "1"}
    aggs, columns = batched.aggregations(measures, roles, "m")
    best("ranking: per-query aggregation", lambda: compact.group_by("query_id").agg(aggs).select(columns))
    if (data / "predictions.parquet").exists():
        preds = pl.read_parquet(data / "predictions.parquet")
        best("classification: .ireval.scores (AUC, AP)", lambda: preds.ireval.scores(
            "label", "prob", by="model", metrics=["ROC_AUC", "AP"]))
        best("classification: C.roc_auc expression", lambda: preds.group_by("model").agg(
            C.roc_auc("label", "prob")))
        best("classification: C.average_precision expression", lambda: preds.group_by("model").agg(
            C.average_precision("label", "prob")))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/data/10M"))
