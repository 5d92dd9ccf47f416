"""Time the steps of one evaluation, one at a time, on the benchmark data (best of 3 runs each).

    PYTHONPATH=. python benchmarks/profile_steps.py benchmarks/data/10M

(``PYTHONPATH=.`` from the checkout's root: a script's own folder comes first on the path, so an
installed frame_eval would be profiled instead of this checkout's.)

Where the time of ``run.ireval.evaluate`` and of the classification methods goes: each step is
its own sub-plan, built as ``evaluate`` builds it for an eager run (ranked a slice of rows at a
time above ``_checks.CHUNK_ROWS``), collected alone; wall and CPU seconds (user and system, of
this process: steadier than wall time on a shared machine). A step that needs an earlier one
recomputes it, so read the differences of the cumulative lines. The numbers quoted in the
README's speed section come from here.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import _checks, _own_thread
from frame_eval import classification as C
from frame_eval.evaluate import _aggregations, _number_and_rank, per_query_wide
from frame_eval.evaluate_measures import labelled
from frame_eval.judged import QUERY_NUMBER, RunColumns, evaluation_frame
from frame_eval.judged_ranks import _score_ranks, rank_expr
from frame_eval.ranking._common import ORDERED
from frame_eval.registry import resolve

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]
DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "10M"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def best(label: str, step: Callable[[], object], repeat: int = 3) -> None:
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _cpu()
        step()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    print(f"{label:62s} wall {min(walls):6.3f} s  CPU {min(cpus):6.3f} s", flush=True)


def ranking(data: Path) -> None:
    run_path, qrels_path = data / "run.parquet", data / "qrels.parquet"
    best("read the Parquet files", lambda: (pl.read_parquet(run_path), pl.read_parquet(qrels_path)))
    run, qrels = pl.read_parquet(run_path), pl.read_parquet(qrels_path)
    cols = RunColumns()
    best("evaluate (all steps)", lambda: run.ireval.evaluate(qrels, MEASURES, shape="wide"))
    best("judge (the full judged frame)", lambda: run.ireval.judge(qrels))
    best("rank every row by (score, doc_id) (judge())", lambda: run.select(rank_expr(cols, pl.String)))
    measures = resolve(MEASURES, "ranking")
    # as evaluate() builds it for this eager run: its slices, and judged rows no measure reads
    # (here judgements below 1) left out
    own_thread_rows, _own_thread.OWN_THREAD_ROWS = _own_thread.OWN_THREAD_ROWS, run.height + 1
    with _checks.deferred(rows=run.height, unoptimized_rows=_checks.EVALUATION_UNOPTIMIZED_ROWS) as state:
        # (the qrels' count an eager call takes beside its plan is left out of these sub-plans, not begun)
        step = -(-run.height // state.chunks)
        slices = [(start, step) for start in range(0, run.height, step)] if state.chunks > 1 else []
        # a run ranked by runs of equal keys has its runs' counts collected here, as the plan is built
        best("the runs' counts (sizes, ties, repeats; as the plan is built)",
             lambda: _score_ranks(run.lazy(), cols, pl.String, slices=slices))
        _, ranked, groups, repeats, exact = _score_ranks(run.lazy(), cols, pl.String, slices=slices)
        lowest = min(m.lowest_read for m in measures)
        compact, _, _ = evaluation_frame(run.lazy(), qrels.lazy(), cols, lowest_read=lowest, numbered=True)
        pairs = labelled(MEASURES, labels="canonical", names="canonical")
        result = per_query_wide(run.lazy(), qrels.lazy(), pairs, cols, complete=False, depth=None,
                                duplicates="error")
    _own_thread.OWN_THREAD_ROWS = own_thread_rows
    print(f"({len(slices) or 1} slices of the run)")
    best("rank by score (runs of equal keys, in slices)", ranked.collect)
    best("  + the query groups (num_ret)", lambda: pl.collect_all([ranked, groups]))
    if exact is None:
        print("  (no query is ranked again by the pair)")
        exact = ranked.head(0)
    best("  + the exact re-rank of tied queries", lambda: pl.collect_all([ranked, groups, exact]))
    best("  + the count of repeated documents", lambda: pl.collect_all([ranked, groups, exact, repeats]))
    best("the compact frame (ranks, groups, judgements join; built before)", compact.collect)
    frame = compact.collect()
    # as evaluate() sorts it: by one UInt64 column, the query's number, then the rank
    ordered = frame.lazy().with_columns(_number_and_rank("rank").alias("order")).sort("order").select(
        pl.col(QUERY_NUMBER).set_sorted(), "rank", "relevance"
    )
    best("sort it by query number and rank", ordered.collect)
    frame = ordered.collect()
    # as evaluate() aggregates: rows in rank order, measures through ranking.batched (build_parts)
    roles = (("rank", "rank"), ("relevance", "relevance"), (ORDERED, "1"))
    aggs, columns = _aggregations(tuple(measures), roles, True)
    best("per-query aggregation", frame.lazy().group_by(QUERY_NUMBER).agg(aggs).select(columns).collect)
    for m in measures:
        one, picks = _aggregations((m,), roles, True)
        alone = frame.lazy().group_by(QUERY_NUMBER).agg(one).select(picks)
        best(f"  {m.name} alone", alone.collect)
    best("the result without the data checks (built before)", result.collect)

    def planned() -> tuple[pl.LazyFrame, _checks.Counted]:
        # built afresh: the count an eager call takes beside its plan (repeated judgements) begins on a
        # thread of its own when the plan is built
        with _checks.deferred(rows=run.height, unoptimized_rows=_checks.EVALUATION_UNOPTIMIZED_ROWS) as state:
            state.other_in_memory = True
            built = per_query_wide(run.lazy(), qrels.lazy(), pairs, cols, complete=False, depth=None,
                                   duplicates="error")
            return built, _checks.Counted.of(state.checks)

    def checks_alone() -> None:
        _, counts = planned()
        counts.row.collect()
        for count in counts.outside.values():
            count()

    def as_evaluate_collects() -> None:
        built, counts = planned()
        pl.collect_all([built, counts.row])
        for count in counts.outside.values():
            count()

    best("the data checks alone (with those counted beside the plan)", checks_alone)
    best("the result and the data checks (as evaluate collects)", as_evaluate_collects)


def classification(data: Path) -> None:
    preds = pl.read_parquet(data / "predictions.parquet")
    best("classification: .ireval.scores (AUC, AP)", lambda: preds.ireval.scores(
        "label", "prob", by="model", metrics=["ROC_AUC", "AP"]))
    best("classification: C.roc_auc expression", lambda: preds.group_by("model").agg(
        C.roc_auc("label", "prob")))
    best("classification: C.average_precision expression", lambda: preds.group_by("model").agg(
        C.average_precision("label", "prob")))


def main(data: Path) -> None:
    if not (data / "run.parquet").exists():
        raise SystemExit(f"no run.parquet in {data}: generate it (benchmarks/generate.py) or pass its folder")
    ranking(data)
    if (data / "predictions.parquet").exists() and "--ranking" not in sys.argv:
        classification(data)


if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(paths[0]) if paths else DEFAULT_DATA)
