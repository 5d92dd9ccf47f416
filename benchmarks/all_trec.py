"""trec_eval's whole ``all_trec`` group: frame_eval against the trec_eval 10.0 binary and pytrec_eval.

    python benchmarks/all_trec.py --data benchmarks/data/10M --rounds 3
    python benchmarks/all_trec.py --data benchmarks/data/1M --revisions 7dec9a0 HEAD --tools frame_eval

Every tool evaluates the same run and qrels (the benchmark's Parquet files) on every
measure of ``all_trec``, per query. The binary (built from ``../shared/trec_eval`` by its
``build.sh``) reads the same data written once as TREC text files (``--work``; writing
them is not timed) and writes its ``-q`` output to a file; frame_eval and pytrec_eval
(trec_eval 9.x, its own ``all_trec``) are timed from reading Parquet to per-query
values. Each run is a fresh process, the tools (and with ``--revisions``, two git
revisions of frame_eval, each from its own ``git worktree``) taken in turn, round after
round, since the machine's speed drifts. Prints the median and best seconds and the
median peak resident memory of each, and checks that every tool's per-query values
agree with frame_eval's (the binary's to its printed 4 decimals; pytrec_eval's within
1e-9 on the measures both have, except where 9.x rounds recall levels otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- one timed run, in its own process ---------------------------------------------------------

def _frame_eval(data: Path, out: Path) -> tuple[float, float]:
    import frame_eval  # noqa: F401  (registers .ireval)

    start = time.perf_counter()
    run = pl.read_parquet(data / "run.parquet")
    qrels = pl.read_parquet(data / "qrels.parquet")
    wide = run.ireval.evaluate(qrels, ["all_trec"], shape="wide")
    seconds = time.perf_counter() - start
    wide.write_parquet(out)
    return seconds, _peak_mb()


def _trec_eval(data: Path, out: Path, binary: str, text: Path) -> tuple[float, float]:
    start = time.perf_counter()
    with out.open("w") as sink:
        subprocess.run([binary, "-q", "-m", "all_trec", str(text / "qrels.txt"), str(text / "run.txt")],
                       stdout=sink, check=True)
    seconds = time.perf_counter() - start
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _pytrec_eval(data: Path, out: Path) -> tuple[float, float]:
    import pytrec_eval

    start = time.perf_counter()
    run = pl.read_parquet(data / "run.parquet").group_by("query_id").agg("doc_id", "score")
    qrels = pl.read_parquet(data / "qrels.parquet").group_by("query_id").agg("doc_id", "relevance")
    run_d = {q: dict(zip(d, s, strict=True)) for q, d, s in run.iter_rows()}
    qrels_d = {q: dict(zip(d, r, strict=True)) for q, d, r in qrels.iter_rows()}
    per_query = pytrec_eval.RelevanceEvaluator(qrels_d, {"all_trec"}).evaluate(run_d)
    seconds = time.perf_counter() - start
    rows = [(q, name, float(v)) for q, values in per_query.items() for name, v in values.items()]
    pl.DataFrame(rows, schema=["query_id", "measure", "value"], orient="row").write_parquet(out)
    return seconds, _peak_mb()


def _child(argv: list[str]) -> None:
    tool, data, out = argv[0], Path(argv[1]), Path(argv[2])
    if tool == "frame_eval":
        seconds, peak = _frame_eval(data, out)
    elif tool == "trec_eval":
        seconds, peak = _trec_eval(data, out, argv[3], Path(argv[4]))
    else:
        seconds, peak = _pytrec_eval(data, out)
    print(json.dumps({"seconds": seconds, "peak_mb": peak}))


# -- the driver ------------------------------------------------------------------------------------

def _trec_text(data: Path, work: Path) -> Path:
    """The run and qrels as TREC text files (written once, not timed)."""
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "run.txt").exists():
        run = pl.read_parquet(data / "run.parquet")
        # polars writes the shortest text that reads back as the same double
        text = run.select("query_id", pl.lit("Q0").alias("q0"), "doc_id",
                          pl.int_range(pl.len()).alias("rank"), "score", pl.lit("bench").alias("run_id"))
        text.write_csv(work / "run.tmp", separator=" ", include_header=False, quote_style="never")
        (work / "run.tmp").rename(work / "run.txt")
        qrels = pl.read_parquet(data / "qrels.parquet")
        qrels.select("query_id", pl.lit("0").alias("iteration"), "doc_id", "relevance").write_csv(
            work / "qrels.txt", separator=" ", include_header=False, quote_style="never")
    return work


def _binary() -> str:
    done = subprocess.run(["bash", str(SHARED / "build.sh")], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def _time_once(
    tool: str, checkout: Path, data: Path, out: Path, extra: list[str]
) -> tuple[float, float] | str:
    """(seconds, peak MB), or why the run failed (its last line of errors)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "_child", tool, str(data), str(out),
                           *extra], capture_output=True, text=True, env=env, cwd=checkout, check=False)
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        return f"failed ({lines[-1]})"
    return tuple(json.loads(proc.stdout.strip().splitlines()[-1]).values())  # type: ignore[return-value]


def _agreement(reference: Path, label: str, out: Path) -> str:
    import frame_eval as fe

    ours = pl.read_parquet(reference)
    if label.startswith("trec_eval"):
        theirs = pl.read_csv(out, separator="\t", has_header=False, schema={
            "measure": pl.String, "query_id": pl.String, "value": pl.String})
        theirs = theirs.with_columns(pl.col("measure").str.strip_chars()).filter(
            pl.col("query_id") != "all", pl.col("measure") != "runid", pl.col("measure") != "relstring")
        tolerance = 5e-5 + 1e-12  # printed with 4 decimals
    else:
        # pytrec_eval's per-query gm_map and gm_bpref are logarithms (trec_eval prints none), and
        # trec_eval 9.x rounds recall levels to counts otherwise than 10.0 (see IPrec's rounding=)
        skip = ["runid", "relstring", "gm_map", "gm_bpref", "11pt_avg"]
        theirs = pl.read_parquet(out).filter(~pl.col("measure").is_in(skip),
                                             ~pl.col("measure").str.starts_with("iprec_at_recall"))
        tolerance = 1e-9
    names = {n: str(fe.parse_measures(n)[0]) for n in theirs["measure"].unique().to_list()}
    names = {n: c for n, c in names.items() if c in ours.columns}
    long = ours.unpivot(index="query_id", on=list(set(names.values())), variable_name="label",
                        value_name="ours")
    theirs = theirs.filter(pl.col("measure").is_in(list(names))).with_columns(
        label=pl.col("measure").replace_strict(names), value=pl.col("value").cast(pl.Float64))
    joined = long.join(theirs, on=["query_id", "label"], how="inner")
    if joined.height != theirs.height:
        return f"DIFFERS: {theirs.height - joined.height} of their values have no match"
    worst = joined.select((pl.col("ours") - pl.col("value")).abs().max()).item()
    verdict = "yes" if worst <= tolerance else "DIFFERS"
    return f"{verdict}: {joined.height} values, {len(names)} measures, max abs diff {worst:.1e}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "_child":
        _child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=HERE / "data" / "10M")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tools", nargs="+", default=["frame_eval", "trec_eval", "pytrec_eval"],
                        choices=["frame_eval", "trec_eval", "pytrec_eval"])
    parser.add_argument("--revisions", nargs=2, default=None, help="time frame_eval at two git revisions")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "frame_eval_all_trec")
    args = parser.parse_args(argv)
    data = args.data.resolve()
    work = args.work / data.name
    jobs: list[tuple[str, str, Path, list[str]]] = []  # (label, tool, checkout, extra arguments)
    with tempfile.TemporaryDirectory() as tmp:
        checkouts: list[Path] = []
        if "frame_eval" in args.tools:
            for i, rev in enumerate(args.revisions or []):
                path = Path(tmp) / f"rev{i}"
                git = ["git", "-C", str(ROOT), "worktree"]
                subprocess.run([*git, "add", "--detach", "--quiet", str(path), rev], check=True)
                checkouts.append(path)
                jobs.append((f"frame_eval@{rev}", "frame_eval", path, []))
            if not args.revisions:
                jobs.append(("frame_eval", "frame_eval", ROOT, []))
        if "trec_eval" in args.tools:
            jobs.append(("trec_eval", "trec_eval", ROOT, [_binary(), str(_trec_text(data, work))]))
        if "pytrec_eval" in args.tools:
            jobs.append(("pytrec_eval", "pytrec_eval", ROOT, []))
        outputs = {label: Path(tmp) / f"{i}.out" for i, (label, *_) in enumerate(jobs)}
        timings: dict[str, list[tuple[float, float]]] = {label: [] for label, *_ in jobs}
        failures: dict[str, str] = {}
        try:
            for _ in range(args.rounds):
                for label, tool, checkout, extra in jobs:
                    if label in failures:
                        continue
                    result = _time_once(tool, checkout, data, outputs[label], extra)
                    if isinstance(result, str):
                        failures[label] = result
                        print(f"{label}: {result}", file=sys.stderr, flush=True)
                        continue
                    timings[label].append(result)
                    print(f"{label}: {result[0]:.2f} s, {result[1]:.0f} MB", file=sys.stderr, flush=True)
        finally:
            for path in checkouts:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                               check=True)
        reference = next((outputs[label] for label, tool, *_ in jobs if tool == "frame_eval"), None)
        print(f"all_trec on {data}: {args.rounds} rounds, tools in turn")
        for label, runs in timings.items():
            if not runs:
                print(f"{label:>24s}: {failures[label]}")
                continue
            seconds = [s for s, _ in runs]
            if label in failures:
                print(f"{label:>24s}: then {failures[label]}")
            agrees = ""
            if reference is not None and not label.startswith("frame_eval"):
                agrees = "; agrees with frame_eval " + _agreement(reference, label, outputs[label])
            elif reference is not None and outputs[label] != reference:
                same = pl.read_parquet(outputs[label]).equals(pl.read_parquet(reference))
                agrees = "; the same bits as the first" if same else "; DIFFERS from the first revision"
            print(f"{label:>24s}: median {statistics.median(seconds):.2f} s, best {min(seconds):.2f} s, "
                  f"peak {statistics.median(mb for _, mb in runs):.0f} MB{agrees}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
