"""Large runs: evaluate and summarize from ``scan_parquet``, and many systems in one call.

    python benchmarks/large.py evaluate benchmarks/data/100M
    python benchmarks/large.py summarize benchmarks/data/100M --memory-limit 3GiB
    python benchmarks/large.py systems benchmarks/data/systems100

Each measurement runs in a fresh process and reports wall time (from the scan to
the collected result, imports excluded) and the peak resident memory of the
process (``VmHWM``), as ``benchmarks/tools.py`` does. ``--partitions`` and
``--memory-limit`` are passed to frame_eval (default: its own choice);
``--progress`` shows its progress lines.

The run and qrels are ``run.parquet`` and ``qrels.parquet`` in the data directory, or
directories ``run/`` and ``qrels/`` of Parquet files.

``systems`` reads a run with a ``system`` column (``generate.py --systems 100``)
and times frame_eval's ``evaluate(..., by="system")`` in one call against
pytrec_eval called once per system: the parent reads that system's rows and
builds its dictionary (the qrels dictionary is built once), and the call runs
in a fresh forked process; the peak reported for pytrec_eval is the largest of
any of its processes (a forked child's peak includes what it inherited). The
two sets of per-query values are compared at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]
PYTREC = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recip_rank": "RR", "recall_100": "R@100"}


def _cpu_seconds() -> float:
    """User and system CPU time of this process and its finished children so far (less shaken by
    a busy machine than wall time)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"progress": args.progress}
    if args.partitions is not None:
        options["partitions"] = args.partitions
    if args.memory_limit is not None:
        options["memory_limit"] = args.memory_limit
    return options


def _scan(data: Path, name: str) -> pl.LazyFrame:
    """``<data>/<name>.parquet``, or every Parquet file of the directory ``<data>/<name>/``."""
    single = data / f"{name}.parquet"
    return pl.scan_parquet(single if single.exists() else data / name)


def _frame_eval(kind: str, data: Path, out: Path, options: dict[str, Any]) -> dict[str, float]:
    import frame_eval  # noqa: F401  (registers .ireval)

    start, cpu = time.perf_counter(), _cpu_seconds()
    run, qrels = _scan(data, "run"), _scan(data, "qrels")
    by = "system" if "system" in run.collect_schema() else None
    if kind == "summarize":
        result = run.ireval.summarize(qrels, MEASURES, by=by, **options)
    else:
        result = run.ireval.evaluate(qrels, MEASURES, by=by, shape="wide", **options)
    frame = result.collect(engine="streaming")
    seconds = time.perf_counter() - start
    frame.write_parquet(out)
    cpu = _cpu_seconds() - cpu
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": _peak_mb(), "rows": frame.height}


def _pytrec_eval_per_system(data: Path, out: Path) -> dict[str, float]:
    import pytrec_eval

    start, cpu = time.perf_counter(), _cpu_seconds()
    qrels = pl.read_parquet(data / "qrels.parquet").group_by("query_id").agg("doc_id", "relevance")
    qrels_d = {q: dict(zip(d, r, strict=True)) for q, d, r in qrels.iter_rows()}
    scan = pl.scan_parquet(data / "run.parquet")
    systems = scan.select(pl.col("system").unique().sort()).collect().get_column("system").to_list()
    measures = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100"}
    rows, peak = [], _peak_mb()
    for system in systems:
        run = scan.filter(pl.col("system") == system).select("query_id", "doc_id", "score").collect()
        grouped = run.group_by("query_id").agg("doc_id", "score")
        run_d = {q: dict(zip(d, s, strict=True)) for q, d, s in grouped.iter_rows()}
        del run, grouped
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the call: no polars here (its thread pool does not survive a fork)
            os.close(read_end)
            values = pytrec_eval.RelevanceEvaluator(qrels_d, measures).evaluate(run_d)
            found = [(system, q, *(m[k] for k in PYTREC)) for q, m in values.items()]
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump((found, _peak_mb()), pipe)
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            found, child_peak = pickle.load(pipe)
        os.waitpid(pid, 0)
        rows += found
        peak = max(peak, child_peak)
    seconds = time.perf_counter() - start
    frame = pl.DataFrame(rows, schema=["system", "query_id", *PYTREC.values()], orient="row")
    cpu = _cpu_seconds() - cpu
    frame.write_parquet(out)
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_mb": max(peak, _peak_mb()), "rows": frame.height}


def _child(argv: list[str]) -> None:
    kind, data, out, options = argv[0], Path(argv[1]), Path(argv[2]), json.loads(argv[3])
    if kind == "pytrec_eval":
        report = _pytrec_eval_per_system(data, out)
    else:
        report = _frame_eval(kind, data, out, options)
    print(json.dumps(report))


def _measure(kind: str, data: Path, out: Path, options: dict[str, Any]) -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, str(data), str(out)]
    path = os.pathsep.join([str(HERE.parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    proc = subprocess.run(  # progress lines (stderr) pass through
        [*command, json.dumps(options)], stdout=subprocess.PIPE, text=True, check=True,
        env={**os.environ, "PYTHONPATH": path},  # this checkout's frame_eval
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _largest_gap(frame_eval: Path, pytrec: Path) -> tuple[int, float]:
    ours, theirs = pl.read_parquet(frame_eval), pl.read_parquet(pytrec)
    joined = ours.join(theirs, on=["system", "query_id"], how="full", suffix="_p", coalesce=True)
    if joined.height != ours.height or joined.height != theirs.height:
        return joined.height, float("inf")
    gap = joined.select(pl.max_horizontal((pl.col(m) - pl.col(f"{m}_p")).abs().max() for m in MEASURES))
    return joined.height, gap.item()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        _child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("kind", choices=["evaluate", "summarize", "systems"])
    parser.add_argument("data", type=Path)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--memory-limit", default=None)
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    options = _options(args)
    with tempfile.TemporaryDirectory() as tmp:
        ours = Path(tmp) / "frame_eval.parquet"
        kind = "evaluate" if args.kind == "systems" else args.kind
        report = _measure(kind, args.data, ours, options)
        print(f"frame_eval {kind} {args.data} {options}: {report['seconds']:.1f} s "
              f"({report['cpu_seconds']:.1f} s of CPU), peak {report['peak_mb']:.0f} MB, "
              f"{report['rows']} result rows", flush=True)
        if args.kind == "systems":
            theirs = Path(tmp) / "pytrec_eval.parquet"
            other = _measure("pytrec_eval", args.data, theirs, {})
            print(f"pytrec_eval once per system, each in a fresh forked process: {other['seconds']:.1f} s "
                  f"({other['cpu_seconds']:.1f} s of CPU), peak {other['peak_mb']:.0f} MB, "
                  f"{other['rows']} result rows", flush=True)
            rows, gap = _largest_gap(ours, theirs)
            print(f"agreement: {rows} (system, query) rows, largest difference {gap:.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
