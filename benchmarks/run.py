"""Benchmark frame_eval against its peers: one command, deterministic data, one Markdown table.

    python benchmarks/run.py --sizes 1M 10M 100M

For each size it generates the data once (``benchmarks/data/<size>/``), runs every
tool in its own process on the same Parquet files (a warm-up run, then
``--repeat`` timed runs), checks that all tools give the same per-query values as
frame_eval, and writes a Markdown table of median wall time and peak memory with
ratios against frame_eval (``benchmarks/results/RESULTS.md`` unless ``--out``).

Time is measured inside the tool's process from reading Parquet to per-query
results (conversions included, imports excluded). Peak memory is the process's
maximum resident set size, interpreter and imports included. A tool whose
resident memory passes ``--memory-limit`` or whose run passes ``--timeout`` is
stopped and reported as such.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import tools  # noqa: E402

# size name -> (queries, classification rows); every query has 100 retrieved documents
SIZES: dict[str, tuple[int, int]] = {
    "tiny": (1_000, 100_000),
    "1M": (10_000, 1_000_000),
    "10M": (100_000, 10_000_000),
    "100M": (1_000_000, 0),
}
DEFAULT_TOOLS = [*tools.RANKING_TOOLS, *tools.CLASSIFICATION_TOOLS]
PEERS = {"pytrec_eval": "pytrec-eval-terrier", "ranx": "ranx", "ir_measures": "ir-measures"}
REFERENCE = {"ranking": "frame_eval", "classification": "frame_eval_classification"}
TOLERANCE = 1e-9


@dataclass
class Outcome:
    tool: str
    size: str
    seconds: list[float] = field(default_factory=list)
    peak_mb: float = 0.0
    failure: str | None = None
    agreement: str = ""


def _available(tool: str) -> bool:
    package = PEERS.get(tool) or ("scikit-learn" if tool.startswith("sklearn") else None)
    if package is None:
        return True
    try:
        metadata.version(package)
    except metadata.PackageNotFoundError:
        return False
    return True


def _run_once(
    tool: str, data: Path, out: Path, timeout: float, memory_limit_mb: float
) -> tuple[float, float]:
    """Run one tool in a fresh process; return (seconds, peak MB) or raise RuntimeError."""
    with tempfile.TemporaryFile("w+") as log:
        # this checkout's frame_eval first, not an installed one (as compare.py does)
        path = os.pathsep.join(p for p in (str(HERE.parent), os.environ.get("PYTHONPATH", "")) if p)
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "tools.py"), tool, str(data), str(out)],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": path},
        )
        stopped: list[str] = []
        last_rss_mb = [0.0]

        def watch() -> None:
            # poll resident memory so an over-budget peer is stopped before the machine runs out
            start = time.monotonic()
            status = Path(f"/proc/{proc.pid}/status")
            while proc.poll() is None:
                try:
                    rss_kb = next(
                        int(line.split()[1]) for line in status.read_text().splitlines()
                        if line.startswith("VmRSS:")
                    )
                except (OSError, StopIteration, ValueError):
                    return
                last_rss_mb[0] = max(last_rss_mb[0], rss_kb / 1024)
                if rss_kb / 1024 > memory_limit_mb:
                    stopped.append(f"stopped above {memory_limit_mb / 1024:.0f} GiB")
                elif time.monotonic() - start > timeout:
                    stopped.append(f"stopped after {timeout:.0f} s")
                if stopped:
                    proc.kill()
                    return
                time.sleep(0.1)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        proc.wait()
        watcher.join()
        log.seek(0)
        text = log.read()
    if stopped:
        raise RuntimeError(f"{stopped[0]} (last seen at {last_rss_mb[0] / 1024:.1f} GiB)")
    if proc.returncode == -9:
        raise RuntimeError(f"killed by the system (out of memory?) at {last_rss_mb[0] / 1024:.1f} GiB")
    if proc.returncode != 0:
        last = text.strip().splitlines()[-1] if text.strip() else f"exit code {proc.returncode}"
        raise RuntimeError(f"failed: {last[:200]}")
    report = json.loads(text.strip().splitlines()[-1])
    return report["seconds"], report["peak_mb"]


def _arrow_mib(path: Path) -> float:
    """The Parquet file's size as an Arrow table (pyarrow ``nbytes``), read batch by batch."""
    return sum(batch.nbytes for batch in pq.ParquetFile(path).iter_batches()) / 2**20


def _agreement(kind: str, reference: Path, other: Path) -> str:
    keys = ["query_id"] if kind == "ranking" else ["model", "metric"]
    ref, got = pl.read_parquet(reference), pl.read_parquet(other)
    joined = ref.join(got, on=keys, how="full", suffix="__other", coalesce=True)
    values = [c for c in ref.columns if c not in keys]
    if joined.height != ref.height or joined.height != got.height:
        return f"DIFFERS: {ref.height} vs {got.height} rows"
    gaps = joined.select(
        pl.max_horizontal((pl.col(c) - pl.col(f"{c}__other")).abs() for c in values).alias("gap")
    )["gap"]
    worst = gaps.max()
    if worst is None or worst > TOLERANCE:
        return f"DIFFERS: {(gaps > TOLERANCE).sum()} rows, max abs diff {worst}"
    return f"yes ({worst:.0e})" if worst else "yes (0)"


def _machine() -> str:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, {platform.system()} {platform.release()}"


def _versions() -> str:
    names = ["polars", "pytrec-eval-terrier", "ranx", "ir-measures", "scikit-learn", "pandas"]
    found = []
    for name in names:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found.append(f"{name} {metadata.version(name)}")
    return f"Python {platform.python_version()}, " + ", ".join(found)


def _reference(kind: str, size: str, by_key: dict[tuple[str, str], Outcome]) -> str:
    """frame_eval's eager run, or (when only that ran) its streaming run, for ratios and agreement."""
    fallback = "frame_eval_streaming"
    if kind == "ranking" and (size, REFERENCE[kind]) not in by_key and (size, fallback) in by_key:
        return fallback
    return REFERENCE[kind]


def _table(outcomes: list[Outcome], arrow_mb: dict[str, float]) -> str:
    lines = [
        "| size | tool | median s | runs | peak MB | time vs frame_eval | memory vs frame_eval | agrees |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    by_key = {(o.size, o.tool): o for o in outcomes}
    for o in outcomes:
        kind = "classification" if o.tool in tools.CLASSIFICATION_TOOLS else "ranking"
        base = by_key.get((o.size, _reference(kind, o.size, by_key)))
        if o.failure:
            lines.append(f"| {o.size} | {o.tool} | {o.failure} | | | | | |")
            continue
        median = statistics.median(o.seconds)
        ratio = mem = ""
        if base and not base.failure and base.seconds:
            ratio = f"{median / statistics.median(base.seconds):.2f}x"
            mem = f"{o.peak_mb / base.peak_mb:.2f}x"
        lines.append(
            f"| {o.size} | {o.tool} | {median:.2f} | {len(o.seconds)} | {o.peak_mb:.0f} | {ratio} | {mem} "
            f"| {o.agreement} |"
        )
    notes = [
        f"- {size}: the run is {mb:.0f} MiB as an Arrow table (pyarrow `nbytes`)"
        for size, mb in arrow_mb.items()
    ]
    return "\n".join([*lines, "", *notes])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark frame_eval against its peers.")
    parser.add_argument("--sizes", nargs="+", default=["1M", "10M"], choices=list(SIZES))
    parser.add_argument("--tools", nargs="+", default=DEFAULT_TOOLS, choices=DEFAULT_TOOLS)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool (median reported)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs first (numba caches, page cache)")
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument("--out", type=Path, default=None, help="Markdown file (default results/RESULTS.md)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run before it is stopped")
    parser.add_argument("--memory-limit", type=float, default=20.0, help="GiB of resident memory per run")
    args = parser.parse_args(argv)

    outcomes: list[Outcome] = []
    arrow_mb: dict[str, float] = {}
    for size in args.sizes:
        queries, predictions = SIZES[size]
        data = args.data / size
        if not (data / "run.parquet").exists() or not (data / "qrels.parquet").exists():
            print(f"[{size}] generating {queries} queries x 100 documents", flush=True)
            generate.write_ranking(data, queries)
        if predictions and not (data / "predictions.parquet").exists():
            print(f"[{size}] generating {predictions} predictions", flush=True)
            generate.write_classification(data / "predictions.parquet", predictions)
        arrow_mb[size] = _arrow_mib(data / "run.parquet")
        results = args.results / size
        results.mkdir(parents=True, exist_ok=True)
        for tool in args.tools:
            if tool in tools.CLASSIFICATION_TOOLS and not predictions:
                continue
            outcome = Outcome(tool, size)
            outcomes.append(outcome)
            if not _available(tool):
                outcome.failure = "not installed"
                continue
            out = results / f"{tool}.parquet"
            for i in range(args.warmup + args.repeat):
                try:
                    seconds, peak = _run_once(tool, data, out, args.timeout, args.memory_limit * 1024)
                except RuntimeError as err:
                    outcome.failure = str(err)
                    break
                outcome.peak_mb = max(outcome.peak_mb, peak)
                if i >= args.warmup:
                    outcome.seconds.append(seconds)
                print(f"[{size}] {tool}: {seconds:.2f} s, {peak:.0f} MB", flush=True)
        for outcome in outcomes:
            if outcome.size != size or outcome.failure:
                continue
            kind = "classification" if outcome.tool in tools.CLASSIFICATION_TOOLS else "ranking"
            by_key = {(o.size, o.tool): o for o in outcomes}
            name = _reference(kind, size, by_key)
            reference = results / f"{name}.parquet"
            if outcome.tool == name:
                outcome.agreement = "reference"
            elif reference.exists():
                outcome.agreement = _agreement(kind, reference, results / f"{outcome.tool}.parquet")

    header = (
        f"Measured {dt.date.today().isoformat()} on {_machine()}; {_versions()}.\n"
        f"Command: `python benchmarks/run.py {' '.join(sys.argv[1:] if argv is None else argv)}`\n"
    )
    report = header + "\n" + _table(outcomes, arrow_mb) + "\n"
    out = args.out or args.results / "RESULTS.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    return 1 if any(o.agreement.startswith("DIFFERS") for o in outcomes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
