"""frame_eval on Spark (local[2]) and Dask against frame_eval on polars: time, peak memory, agreement.

    python benchmarks/engines.py --sizes 1M 10M [--repeat 1] [--out benchmarks/engines.md]

Each (engine, size) runs in its own process tree: a first (warm-up) run, then ``--repeat``
timed runs (``--repeat 0``: the first run only), each from reading the Parquet files to the
per-query values written to Parquet (Spark's session start is timed apart; the first run is
shown too); an engine is stopped past ``--max-mb`` (default 8 GiB) or ``--max-seconds``. Peak
memory is the largest sum of the resident memory of the process and all its children
(the JVM and Spark's Python workers included), sampled every 0.1 s. The 1M data are the
first tenth of the 10M queries (``benchmarks/data/10M``, see ``generate.py``); other sizes are
read from ``--data``/SIZE. ``frame_eval_scan`` reads the files lazily (``scan_parquet``), which
splits a large run into query ranges (100M rows in about 2 GB). Measures:
AP, nDCG@10, P@10, RR, R@100, per query. Agreement: every per-query value compared with
frame_eval on polars with ``==``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]
ENGINES = ("frame_eval", "spark", "dask")  # and frame_eval_scan


# -- one engine, in a child process -------------------------------------------------------------

def _child(engine: str, data: Path, out: Path, buckets: int, repeat: int) -> None:
    """One warm-up run, then ``repeat`` timed runs in this process; prints the median."""
    sys.path.insert(0, str(ROOT))
    import frame_eval as fe

    report: dict[str, float] = {}
    if engine == "spark":
        os.environ["PYTHONPATH"] = str(ROOT)
        began = time.perf_counter()
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.driver.memory", "3g").config("spark.sql.shuffle.partitions", str(buckets))
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        report["session_seconds"] = time.perf_counter() - began
    elif engine == "dask":
        import dask.dataframe as dd

    def once() -> None:
        if engine == "frame_eval":
            run, qrels = pl.read_parquet(data / "run.parquet"), pl.read_parquet(data / "qrels.parquet")
            run.ireval.evaluate(qrels, MEASURES, shape="wide").write_parquet(out)
        elif engine == "frame_eval_scan":  # lazy: split into query ranges when the run is large
            run, qrels = pl.scan_parquet(data / "run.parquet"), pl.scan_parquet(data / "qrels.parquet")
            run.ireval.evaluate(qrels, MEASURES, shape="wide").collect().write_parquet(out)
        elif engine == "spark":
            run = spark.read.parquet(str(data / "run.parquet"))
            qrels = spark.read.parquet(str(data / "qrels.parquet"))
            per_query = fe.spark.evaluate(run, qrels, MEASURES, shape="wide")
            per_query.write.mode("overwrite").parquet(str(out) + ".dir")
        else:
            run, qrels = dd.read_parquet(data / "run.parquet"), dd.read_parquet(data / "qrels.parquet")
            per_query = fe.dask.evaluate(run, qrels, MEASURES, shape="wide", buckets=buckets)
            per_query.to_parquet(str(out) + ".dir", overwrite=True)

    times = []
    for _ in range(1 + repeat):
        start = time.perf_counter()
        once()
        times.append(time.perf_counter() - start)
    report["first_seconds"] = times[0]
    timed = times[1:] or times  # --repeat 0: the first run only
    report["seconds"] = sorted(timed)[len(timed) // 2]
    if engine == "spark":
        spark.stop()
    if engine in ("spark", "dask"):
        pl.scan_parquet(str(out) + ".dir/*.parquet").collect().write_parquet(out)
    print(json.dumps(report))


# -- the harness ---------------------------------------------------------------------------------

def _tree_rss_mb(root: int) -> tuple[float, float]:
    """Resident memory of ``root`` and all its descendants, from /proc; and the largest single
    Python worker among the descendants (Spark's workers: what grows with a bucket's rows)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            names[int(entry)] = stat[stat.index("(") + 1:stat.rindex(")")]
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    workers = [rss.get(pid, 0) for pid in tree - {root} if names.get(pid, "").startswith("python")]
    return sum(rss.get(pid, 0) for pid in tree) / 2**20, max(workers, default=0) / 2**20


def _measure(engine: str, data: Path, out: Path, buckets: int, repeat: int, max_mb: float,
             max_seconds: float) -> dict[str, float] | str:
    """The child's report with its peak memory; or why it was stopped (its whole process tree
    is ended past ``max_mb`` of resident memory or ``max_seconds``)."""
    command = [sys.executable, __file__, "--child", engine, str(data), str(out), "--buckets", str(buckets),
               "--repeat", str(repeat)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               start_new_session=True)
    peak = [0.0, 0.0]
    stopped: list[str] = []
    began = time.perf_counter()

    def watch() -> None:
        while process.poll() is None:
            total, worker = _tree_rss_mb(process.pid)
            peak[0], peak[1] = max(peak[0], total), max(peak[1], worker)
            elapsed = time.perf_counter() - began
            if not stopped and (total > max_mb or elapsed > max_seconds):
                why = f"stopped at {total:.0f} MB" if total > max_mb else f"stopped after {elapsed:.0f} s"
                stopped.append(why)
                os.killpg(process.pid, 9)  # the child leads its own session: the JVM and workers go too
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    stdout, _ = process.communicate()
    watcher.join()
    if stopped:
        return stopped[0]
    if process.returncode:
        raise RuntimeError(f"{engine} failed with exit code {process.returncode}")
    report = json.loads(stdout.strip().splitlines()[-1])
    report["peak_mb"], report["worker_mb"] = peak
    return report


def _one_million(work: Path, source: Path) -> Path:
    """The first tenth of the 10M queries (in the text order of their ids), written once."""
    target = work / "1M"
    target.mkdir(exist_ok=True)
    run = pl.scan_parquet(source / "10M" / "run.parquet")
    queries = run.select(pl.col("query_id").unique().sort()).collect().head(10_000)
    for name in ("run", "qrels"):
        frame = pl.scan_parquet(source / "10M" / f"{name}.parquet")
        kept = frame.join(queries.lazy(), on="query_id", how="semi").collect()
        kept.write_parquet(target / f"{name}.parquet")
    return target


def _agreement(reference: Path, other: Path) -> str:
    if not reference.exists():
        return "(no frame_eval run to compare)"
    ours, theirs = pl.read_parquet(reference).sort("query_id"), pl.read_parquet(other).sort("query_id")
    if ours.height != theirs.height:
        return f"no ({theirs.height} of {ours.height} queries)"
    equal = all((ours[m] == theirs[m]).all() for m in MEASURES)
    return f"yes (== on {ours.height * len(MEASURES)} values)" if equal else "no (values differ)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "DATA", "OUT"))
    parser.add_argument("--sizes", nargs="+", default=["1M", "10M"])
    parser.add_argument("--engines", nargs="+", default=list(ENGINES))
    parser.add_argument("--buckets", type=int, default=0, help="Spark/Dask groups (default: 20 per 1M rows)")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs after the first (0: none)")
    parser.add_argument("--max-mb", type=float, default=8192, help="stop an engine past this memory (tree)")
    parser.add_argument("--max-seconds", type=float, default=1800, help="stop an engine after this long")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--data", type=Path, default=DATA, help="holds 10M/ (run and qrels Parquet files)")
    args = parser.parse_args(argv)
    if args.child:
        engine, data, out = args.child
        _child(engine, Path(data), Path(out), args.buckets, args.repeat)
        return 0
    rows = ["| size | engine | buckets | median s | first run s | session start s | peak MB (process tree) | "
            "largest worker MB | time vs frame_eval | memory vs frame_eval | agrees |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for size in args.sizes:
            data = _one_million(work, args.data) if size == "1M" else args.data / size
            buckets = args.buckets or 20 * int(size.rstrip("M"))
            results: dict[str, dict[str, float]] = {}
            for engine in args.engines:
                r = _measure(engine, data, work / f"{engine}_{size}_0.parquet", buckets, args.repeat,
                             args.max_mb, args.max_seconds)
                if isinstance(r, str):
                    rows.append(f"| {size} | {engine} | {buckets} | {r} | | | | | | | |")
                    print(rows[-1], flush=True)
                    continue
                results[engine] = {"seconds": r["seconds"], "first": r["first_seconds"],
                                   "peak_mb": r["peak_mb"], "session": r.get("session_seconds", 0.0),
                                   "worker": r["worker_mb"]}
                ours = next((e for e in ("frame_eval", "frame_eval_scan") if e in results), engine)
                base = results[ours]
                reference, other = (work / f"{name}_{size}_0.parquet" for name in (ours, engine))
                agrees = "reference" if engine == ours else _agreement(reference, other)
                r = results[engine]
                session = f"{r['session']:.1f}" if engine == "spark" else ""
                parts = "" if engine.startswith("frame_eval") else str(buckets)
                worker = f"{r['worker']:.0f}" if engine == "spark" else ""
                rows.append(f"| {size} | {engine} | {parts} | {r['seconds']:.2f} | {r['first']:.2f} | "
                            f"{session} | {r['peak_mb']:.0f} | {worker} | "
                            f"{r['seconds'] / base['seconds']:.2f}x | "
                            f"{r['peak_mb'] / base['peak_mb']:.2f}x | {agrees} |")
                print(rows[-1], flush=True)
    table = "\n".join(rows)
    if args.out:
        args.out.write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
