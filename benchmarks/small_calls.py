"""Small calls: the per-call cost of one evaluation on a few queries, as in a training loop.

    python benchmarks/small_calls.py --sizes 100 1000 10000

Each query has 20 retrieved documents (distinct scores) and 30 judged ones (see
``generate.ranking_chunk``); the measures are the large benchmark's five (AP,
nDCG@10, P@10, RR, R@100). Every tool runs in its own process, gets its input in
its own native form, built before the clock starts (polars DataFrames for
frame_eval, nested dicts for pytrec_eval, ``Qrels``/``Run`` objects for ranx),
then is called ``--warmup`` times untimed (ranx compiles with numba on its first
call) and ``--repeat`` times timed; the table gives the median and the best
milliseconds per call, and the ratio of medians to frame_eval's.
The tool processes import this checkout's frame_eval unless ``PYTHONPATH`` names another:
run it with ``--tools frame_eval`` and ``PYTHONPATH=<checkout>`` at two revisions to judge a
change, alternating, as ``compare.py`` does for the large sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

HERE = Path(__file__).resolve().parent
DEPTH = 20
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]
TOOLS = ["frame_eval", "pytrec_eval", "ranx"]


def _data(queries: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    sys.path.insert(0, str(HERE))
    import generate

    return generate.ranking_chunk(0, queries, DEPTH, seed=20261123)


Dicts = tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]


def _dicts(run: pl.DataFrame, qrels: pl.DataFrame) -> Dicts:
    runs = run.group_by("query_id").agg("doc_id", "score").iter_rows()
    judged = qrels.group_by("query_id").agg("doc_id", "relevance").iter_rows()
    return (
        {q: dict(zip(d, s, strict=True)) for q, d, s in runs},
        {q: dict(zip(d, r, strict=True)) for q, d, r in judged},
    )


def _call(tool: str, run: pl.DataFrame, qrels: pl.DataFrame) -> Callable[[], Any]:
    """The one call to time, its input prepared in the tool's own form."""
    if tool == "frame_eval":
        import frame_eval  # noqa: F401  (registers .ireval)

        return lambda: run.ireval.evaluate(qrels, MEASURES, shape="wide")
    run_d, qrels_d = _dicts(run, qrels)
    if tool == "pytrec_eval":
        import pytrec_eval

        names = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100"}
        return lambda: pytrec_eval.RelevanceEvaluator(qrels_d, names).evaluate(run_d)
    if tool == "ranx":
        from ranx import Qrels, Run, evaluate

        qrels_r, run_r = Qrels(qrels_d), Run(run_d)
        metrics = ["map", "ndcg@10", "precision@10", "mrr", "recall@100"]
        return lambda: evaluate(qrels_r, run_r, metrics, return_mean=False)
    raise ValueError(f"unknown tool {tool!r}; choose from {TOOLS}")


def time_calls(tool: str, queries: int, repeat: int, warmup: int) -> list[float]:
    """Seconds per call, ``repeat`` calls after ``warmup`` untimed ones, in this process."""
    run, qrels = _data(queries)
    call = _call(tool, run, qrels)
    for _ in range(warmup):
        call()
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return seconds


def _in_process(tool: str, queries: int, repeat: int, warmup: int) -> list[float]:
    command = [sys.executable, __file__, "--one", tool, str(queries), str(repeat), str(warmup)]
    # this checkout's frame_eval first (set PYTHONPATH to time another checkout's)
    path = os.environ.get("PYTHONPATH") or str(HERE.parent)
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[100, 1000, 10000], help="queries")
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--repeat", type=int, default=200, help="timed calls (fewer above 1k queries)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # internal: one tool, one size
    args = parser.parse_args(argv)
    if args.one:
        tool, queries, repeat, warmup = args.one
        print(json.dumps(time_calls(tool, int(queries), int(repeat), int(warmup))))
        return 0
    lines = [
        "| queries | tool | median ms | best ms | calls | time vs frame_eval |",
        "| ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for queries in args.sizes:
        repeat = max(10, args.repeat * 1000 // max(queries, 1000))
        medians: dict[str, float] = {}
        for tool in args.tools:
            try:
                seconds = _in_process(tool, queries, repeat, args.warmup)
            except subprocess.CalledProcessError as err:
                last = (err.stderr or "").strip().splitlines()[-1:] or ["failed"]
                lines.append(f"| {queries} | {tool} | {last[0][:80]} | | | |")
                continue
            medians[tool] = statistics.median(seconds)
            ratio = f"{medians[tool] / medians['frame_eval']:.2f}x" if "frame_eval" in medians else ""
            lines.append(
                f"| {queries} | {tool} | {medians[tool] * 1e3:.2f} | {min(seconds) * 1e3:.2f} "
                f"| {len(seconds)} | {ratio} |"
            )
            print(lines[-1], flush=True)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
