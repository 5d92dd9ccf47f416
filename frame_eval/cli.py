"""Command line: evaluate TREC run files against qrels, printed like trec_eval.

    frame-eval QRELS RUN [RUN ...] [-m MEASURE ...] [-q] [-c] [-M N] [-l N] [--csv]

Each line is ``measure <tab> query (or all) <tab> run_id <tab> value``;
``--csv`` prints the tidy frame instead. Measures take every name the
library accepts (``AP``, ``nDCG@10``, ``map``, ``ndcg_cut.10``, ``P.5,10``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import polars as pl

from frame_eval.evaluate import evaluate, summarize
from frame_eval.io import scan_trec_qrels, scan_trec_run
from frame_eval.judged import RunColumns
from frame_eval.registry import Measure, measure, resolve

DEFAULT = ("NumQ", "NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "RR", "nDCG", "nDCG@10",
           "P@5", "P@10", "P@20", "R@100", "Success@10")


def _with_level(measures: list[Measure], level: int) -> list[Measure]:
    out = []
    for m in measures:
        if level != 1 and any(p.name == "rel" for p in m.spec.params):
            m = measure(m.spec, cutoff=m.cutoff, **{**dict(m.params), "rel": level})
        out.append(m)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="frame-eval", description="Evaluate TREC runs against qrels with trec_eval's semantics."
    )
    parser.add_argument("qrels", help="qrels file: query_id iteration doc_id relevance")
    parser.add_argument("runs", nargs="+", help="run file(s): query_id Q0 doc_id rank score run_id")
    parser.add_argument("-m", "--measure", action="append", default=None,
                        help="measure name, repeatable (default: a standard set)")
    parser.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    parser.add_argument("-c", "--complete", action="store_true",
                        help="average over every qrels query; missing queries score 0 (trec_eval -c)")
    parser.add_argument("-M", "--depth", type=int, default=None,
                        help="use only the first N documents of each ranking (trec_eval -M)")
    parser.add_argument("-l", "--level", type=int, default=1,
                        help="a judgement >= LEVEL is relevant (trec_eval -l; default 1)")
    parser.add_argument("--csv", action="store_true", help="print tidy CSV instead of trec_eval lines")
    return parser


def run_cli(argv: Sequence[str] | None = None) -> pl.DataFrame:
    """Parse arguments, evaluate, and return the tidy ``[run_id, query_id, metric, value]`` frame."""
    args = build_parser().parse_args(argv)
    measures = _with_level(resolve(args.measure or list(DEFAULT)), args.level)
    run = pl.concat([scan_trec_run(path) for path in args.runs])
    qrels = scan_trec_qrels(args.qrels)
    cols = RunColumns(by=("run_id",))
    options = {"complete": args.complete, "depth": args.depth}
    summary = summarize(run, qrels, measures, cols, **options).select(
        "run_id", pl.lit("all").alias("query_id"), "metric", "value"
    )
    frames = [summary]
    if args.per_query:
        frames.insert(0, evaluate(run, qrels, measures, cols, **options))
    return pl.concat(pl.collect_all(frames))


def _format(metric: str, value: float, counts: set[str]) -> str:
    return str(int(value)) if metric in counts else f"{value:.4f}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        result = run_cli(argv)
    except (ValueError, TypeError, OSError) as error:
        print(f"frame-eval: error: {error}", file=sys.stderr)
        return 2
    if "--csv" in (argv if argv is not None else sys.argv[1:]):
        sys.stdout.write(result.write_csv())
        return 0
    counts = {m.name for m in resolve(sorted(set(result["metric"]))) if m.spec.aggregate == "sum"}
    for run_id, query_id, metric, value in result.iter_rows():
        sys.stdout.write(f"{metric:<22}\t{query_id}\t{run_id}\t{_format(metric, value, counts)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
