"""One ``best_threshold("label", "prob", by="model", criterion="recall", min_specificity=0.9)`` call.

    python benchmarks/threshold_call.py [--data benchmarks/data/10M] [--repeat 7]
    python benchmarks/threshold_call.py --against <checkout of another revision> [--rounds 3]
    python benchmarks/threshold_call.py --bucketed [--repeat 7]
    python benchmarks/threshold_call.py --steps [--repeat 7]

The first form times, in this process, on the predictions Parquet file (read once, before
timing): the call (best and median wall and CPU seconds of ``--repeat``), then its parts on the
call's checked rows: the bucket counts alone (one group-by of the 10M rows), and the whole
selection (``bounded_rows.most_sensitive_within_bound``) outside a plan; with ``--ideas``, also
ideas measured and dropped: the call with 32 and 128 score buckets instead of 64, and the counts
grouped by one 64-bit key (the model's hash, the bucket in its low bits) alone and with each key's
lowest and highest model name (what telling colliding models apart would take), against the
group-by of (model, bucket) the counts use; with ``--bucketed``, the other forms of ``added_parts.py``
(``weights=``, ``costs=``, ``min_recall=``, ``max_fpr=``) instead, each call with the rows of its kept
buckets and of its kept parts (those sorted; ``bucketed_best.best_in_buckets``); with ``--steps``, those
forms' calls and the steps inside them, each step's best wall and CPU seconds over ``--repeat`` calls
(the bucket counts; the choice of kept buckets; the rows of the kept buckets, each with its part; the
parts' counts and the choice of kept parts; the sort of the kept parts' rows and the best points; the
rest of the call, its checks and frames around them). The second form
runs the call alone in fresh processes, taking turns between the other checkout and this one
(``--rounds`` each), and prints each run's best wall and CPU seconds and the medians of those: old
and new code judged side by side while the machine's load drifts.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
from timing import best_and_median as timed  # (this folder: first on the path of a script run from it)

ROOT = Path(__file__).resolve().parents[1]


def _line(label: str, times: tuple[float, float, float, float]) -> str:
    return (f"{label:44s} wall best {times[0]:.3f} median {times[1]:.3f} s, "
            f"CPU best {times[2]:.3f} median {times[3]:.3f} s")


def in_process(data: Path, repeat: int, parts: bool, ideas: bool = False) -> None:
    import frame_eval

    preds = pl.read_parquet(data / "predictions.parquet")

    def call() -> object:
        return preds.ireval.best_threshold(
            "label", "prob", by="model", criterion="recall", min_specificity=0.9
        )

    call()  # (first call: imports and caches outside the clock)
    print(f"frame_eval from {Path(frame_eval.__file__).parent}", flush=True)
    print(_line("best_threshold(recall, min_specificity=0.9)", timed(call, repeat)), flush=True)
    if not parts:
        return
    from frame_eval.classification import bounded_rows
    from frame_eval.classification.frame_checks import _POSITIVE, _SCORE
    from frame_eval.classification.thresholds import most_false_positives

    rows = preds.select(
        "model", pl.col("label").alias(_POSITIVE), pl.col("prob").cast(pl.Float64).alias(_SCORE)
    )
    most = most_false_positives({"min_specificity": 0.9})
    assert most is not None
    print(_line("  its bucket counts alone", timed(
        lambda: bounded_rows._bucket_counts(rows, ["model"], _POSITIVE, _SCORE), repeat
    )), flush=True)
    print(_line("  its selection outside a plan", timed(
        lambda: bounded_rows.most_sensitive_within_bound(rows, ["model"], _POSITIVE, _SCORE, most), repeat
    )), flush=True)
    if ideas:
        _ideas(call, rows, repeat, _POSITIVE, _SCORE)


def _ideas(call: Callable[[], object], rows: pl.DataFrame, repeat: int, positive: str, score: str) -> None:
    from frame_eval.classification import bounded_rows

    usual = bounded_rows.BUCKETS
    for buckets in (32, 128):
        bounded_rows.BUCKETS = buckets
        try:
            print(_line(f"  the call with {buckets} buckets", timed(call, repeat)), flush=True)
        finally:
            bounded_rows.BUCKETS = usual
    bucket = bounded_rows._Buckets.of(rows.get_column(score)).expr()
    counts = (pl.len(), pl.col(positive).sum())
    key = (pl.col("model").hash() & pl.lit(2**64 - 128, pl.UInt64)) | bucket.cast(pl.UInt64)
    names = (pl.col("model").min().alias("lowest"), pl.col("model").max().alias("highest"))
    for label, by, more in (
        ("counts by (model, bucket), as used", ["model", bucket], ()),
        ("counts by one 64-bit key of hash and bucket", [key.alias("key")], ()),
        ("... with each key's lowest and highest model", [key.alias("key")], names),
    ):
        print(_line(f"  {label}", timed(
            lambda by=by, more=more: rows.lazy().group_by(by).agg(*counts, *more).collect(engine="streaming"),
            repeat,
        )), flush=True)


FORMS = {  # the other forms of added_parts.py's best_threshold group
    "weights=(1, 2)": {"weights": (1, 2)}, "costs=(1, 5)": {"costs": (1, 5)},
    "specificity, min_recall=0.9": {"criterion": "specificity", "min_recall": 0.9},
    "f1, max_fpr=0.1": {"criterion": "f1", "max_fpr": 0.1},
}


def bucketed(data: Path, repeat: int) -> None:
    """The other forms (``bucketed_best.best_in_buckets``): each call, and how many rows its kept buckets
    and kept parts hold (the rows then sorted), beside the bucket counts every form starts with."""
    import frame_eval
    from frame_eval.classification import bounded_rows, bucketed_best
    from frame_eval.classification.frame_checks import _POSITIVE, _SCORE

    preds = pl.read_parquet(data / "predictions.parquet")
    rows = preds.select(
        "model", pl.col("label").alias(_POSITIVE), pl.col("prob").cast(pl.Float64).alias(_SCORE)
    )
    print(f"frame_eval from {Path(frame_eval.__file__).parent}", flush=True)
    print(_line("the bucket counts alone", timed(
        lambda: bounded_rows._bucket_counts(rows, ["model"], _POSITIVE, _SCORE), repeat
    )), flush=True)
    seen: dict[str, int] = {}
    real_rows, real_points = bucketed_best._rows_of_kept_buckets, bucketed_best._best_points

    def rows_of(*args: object) -> pl.DataFrame:
        found = real_rows(*args)  # type: ignore[arg-type]
        seen["kept"] = found.height
        return found

    def points(found: pl.Series, *args: object) -> pl.DataFrame:
        seen["sorted"] = found.len()
        return real_points(found, *args)  # type: ignore[arg-type]

    for label, options in FORMS.items():
        def call(options: dict[str, object] = options) -> object:
            return preds.ireval.best_threshold("label", "prob", by="model", **options)

        call()
        print(_line(f"best_threshold({label})", timed(call, repeat)), flush=True)
        bucketed_best._rows_of_kept_buckets, bucketed_best._best_points = rows_of, points  # type: ignore[assignment]
        try:
            call()
        finally:
            bucketed_best._rows_of_kept_buckets, bucketed_best._best_points = real_rows, real_points
        print(f"  rows of the kept buckets {seen['kept']:,}, of the kept parts (sorted) {seen['sorted']:,}",
              flush=True)


STEPS = (  # (module attribute, label) of the steps --steps times, as bucketed_best calls them
    ("_bucket_counts", "the bucket counts (one group-by of every row)"),
    ("kept_buckets", "the kept buckets (each group's few dozen counts)"),
    ("_rows_of_kept_buckets", "the rows of the kept buckets and their parts"),
    ("_kept_parts", "the parts' counts and the kept parts"),
    ("_best_points", "the sort of the kept parts' rows, the best points"),
)


def steps(data: Path, repeat: int) -> None:
    """Each form of ``FORMS``: the call, then the best wall and CPU seconds of each of its steps over
    ``repeat`` calls (a step called twice in a call, as ``kept_buckets`` is, counted once per call)."""
    import frame_eval
    from frame_eval.classification import bucketed_best

    preds = pl.read_parquet(data / "predictions.parquet")
    print(f"frame_eval from {Path(frame_eval.__file__).parent}", flush=True)
    spent: dict[str, list[float]] = {}
    real = {name: getattr(bucketed_best, name) for name, _ in STEPS}

    def clocked(name: str) -> Callable[..., object]:
        def step(*args: object, **kwargs: object) -> object:
            began, began_cpu = time.perf_counter(), time.process_time()
            try:
                return real[name](*args, **kwargs)
            finally:
                took = spent.setdefault(name, [0.0, 0.0])
                took[0] += time.perf_counter() - began
                took[1] += time.process_time() - began_cpu
        return step

    for label, options in FORMS.items():
        def call(options: dict[str, object] = options) -> object:
            return preds.ireval.best_threshold("label", "prob", by="model", **options)

        call()
        print(_line(f"best_threshold({label})", timed(call, repeat)), flush=True)
        best: dict[str, list[float]] = {}
        for name, _ in STEPS:
            setattr(bucketed_best, name, clocked(name))
        try:
            for _ in range(repeat):
                spent.clear()
                began, began_cpu = time.perf_counter(), time.process_time()
                call()
                spent["rest"] = [time.perf_counter() - began - sum(t[0] for t in spent.values()),
                                 time.process_time() - began_cpu - sum(t[1] for t in spent.values())]
                for name, (wall, cpu) in spent.items():
                    old = best.get(name, [math.inf, math.inf])
                    best[name] = [min(old[0], wall), min(old[1], cpu)]
        finally:
            for name, _ in STEPS:
                setattr(bucketed_best, name, real[name])
        for name, what in (*STEPS, ("rest", "the rest of the call")):
            if name in best:
                wall, cpu = best[name]
                print(f"  {what:58s} wall best {wall:.4f} s, CPU best {cpu:.4f} s", flush=True)


def in_turns(data: Path, repeat: int, against: Path, rounds: int) -> None:
    runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for _ in range(rounds):
        for name, checkout in (("old", against), ("new", ROOT)):
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            done = subprocess.run(
                [sys.executable, __file__, "--data", str(data), "--repeat", str(repeat), "--no-parts"],
                env=env, cwd=checkout, capture_output=True, text=True, check=True,
            )
            words = done.stdout.splitlines()[-1].split()
            wall, cpu = float(words[words.index("wall") + 2]), float(words[words.index("CPU") + 2])
            runs[name].append((wall, cpu))
            print(f"{name} ({checkout}): best of {repeat}: wall {wall:.3f} s, CPU {cpu:.3f} s", flush=True)
    for name, found in runs.items():
        print(f"{name}: median of the rounds' best: wall {statistics.median(w for w, _ in found):.3f} s, "
              f"CPU {statistics.median(c for _, c in found):.3f} s")
    print("load average (1, 5, 15 min):", " ".join(f"{v:.2f}" for v in os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "10M")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--against", type=Path, help="another checkout, run in turns with this one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-parts", action="store_true", help="time the call only")
    parser.add_argument("--ideas", action="store_true", help="also time the ideas measured and dropped")
    parser.add_argument("--bucketed", action="store_true",
                        help="time the other forms instead, with the rows they keep and sort")
    parser.add_argument("--steps", action="store_true",
                        help="time the other forms instead, and the steps inside each call")
    args = parser.parse_args()
    data = args.data.resolve()
    if args.bucketed:
        bucketed(data, args.repeat)
    elif args.steps:
        steps(data, args.repeat)
    elif args.against is not None:
        in_turns(data, args.repeat, args.against.resolve(), args.rounds)
    else:
        in_process(data, args.repeat, not args.no_parts, args.ideas)


if __name__ == "__main__":
    main()
