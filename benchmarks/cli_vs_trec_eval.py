"""``frame-eval`` against the trec_eval 10.0 binary on the same 10M-line text files.

Writes the benchmark run (``data/10M/run.parquet``) and qrels as TREC text files
(``query Q0 doc rank score run_id``, single spaces), builds trec_eval with
``../shared/trec_eval/build.sh``, then times each command end to end, in its own
process, the tools taking turns (``--rounds`` each): wall time and peak resident
memory (from ``os.wait4``), and checks that both print the same bytes.

    python benchmarks/cli_vs_trec_eval.py --rounds 2

prints a Markdown table; ``--work DIR`` is where the text files and the binary go
(default: a directory under the system's temporary directory).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "trec_eval"
COMMANDS = {"official": ["-m", "official"], "all_trec -q": ["-m", "all_trec", "-q"]}


def write_text_files(data: Path, work: Path) -> tuple[Path, Path]:
    run_txt, qrels_txt = work / "run.txt", work / "qrels.txt"
    if not run_txt.exists():
        run = pl.scan_parquet(data / "run.parquet").with_columns(
            rank=pl.int_range(1, pl.len() + 1).over("query_id"))
        line = pl.format("{} Q0 {} {} {} bench", "query_id", "doc_id", "rank", "score").alias("line")
        run.select(line).collect().write_csv(run_txt, include_header=False, quote_style="never")
    if not qrels_txt.exists():
        qrels = pl.scan_parquet(data / "qrels.parquet")
        line = pl.format("{} 0 {} {}", "query_id", "doc_id", "relevance").alias("line")
        qrels.select(line).collect().write_csv(qrels_txt, include_header=False, quote_style="never")
    return run_txt, qrels_txt


def build_trec_eval(work: Path) -> Path:
    binary = work / "trec_eval" / "trec_eval"
    if not binary.exists():
        subprocess.run(["bash", str(SHARED / "build.sh"), str(work / "trec_eval")], check=True,
                       capture_output=True)
    return binary


def timed(command: list[str], out: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB) of one run, standard output to ``out``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    with open(out, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"{' '.join(command)} failed: {error}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data" / "10M")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "frame_eval_cli_bench")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    run_txt, qrels_txt = write_text_files(args.data, args.work)
    binary = build_trec_eval(args.work)
    tools = {"trec_eval": [str(binary)], "frame-eval": [sys.executable, "-m", "frame_eval"]}
    print(f"run file: {run_txt} ({run_txt.stat().st_size / 1e6:.0f} MB), qrels: {qrels_txt}", file=sys.stderr)
    rows = []
    for name in args.commands:
        times: dict[str, list[float]] = {tool: [] for tool in tools}
        cpus: dict[str, list[float]] = {tool: [] for tool in tools}
        peaks: dict[str, list[float]] = {tool: [] for tool in tools}
        outputs = {}
        for round_ in range(args.rounds):
            for tool, prefix in tools.items():
                out = args.work / f"{tool}.{name.replace(' ', '_')}.out"
                wall, cpu, peak = timed([*prefix, *COMMANDS[name], str(qrels_txt), str(run_txt)], out)
                times[tool].append(wall)
                cpus[tool].append(cpu)
                peaks[tool].append(peak)
                outputs[tool] = digest(out)
                print(f"{name} round {round_ + 1} {tool}: {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB",
                      file=sys.stderr)
        same = "yes" if outputs["trec_eval"] == outputs["frame-eval"] else "NO"
        ref = statistics.median(times["trec_eval"])
        for tool in tools:
            med = statistics.median(times[tool])
            cpu = statistics.median(cpus[tool])
            rows.append(f"| `-m {name}` | {tool} | {med:.1f} | {min(times[tool]):.1f} | "
                        f"{cpu:.1f} | {max(peaks[tool]):.0f} | {ref / med:.2f}x | {same} |")
    print("| command | tool | median wall s | best wall s | median CPU s | peak MB | wall speed-up "
          "| same bytes |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
