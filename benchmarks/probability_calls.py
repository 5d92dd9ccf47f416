"""Issue 13's binary probability calls alone (log-loss, Brier, calibration, ECE) on 10M predictions.

    PYTHONPATH=. python benchmarks/probability_calls.py [--data benchmarks/data/10M] [--repeat 7] [--only ...]
    PYTHONPATH=. python benchmarks/probability_calls.py --against <checkout of another revision> [--rounds 3]

The first form times, in this process, each call on all 100 models of the predictions Parquet file
(read once, before timing; the weights ``w`` are ``added_parts.py``'s): best and median wall and CPU
seconds of ``--repeat`` calls. The second form runs the first in fresh processes, taking turns
between the other checkout and this one (``--rounds`` each), and prints, per call, each side's
median over the rounds of the best wall and CPU seconds, and whether both gave the same values
(``DataFrame.equals``: the same bits). ``added_parts.py --only probabilities calibration`` times
the same calls beside scikit-learn and checks their values against it.

``--floors`` times, in this process, plain steps over the same rows that the calls cannot go below:
a group-by of the models alone (their rows) and of two sums per model (one read of the rows), the
log-loss and Brier terms alone (one clip and log, or two squares, a row), the group-by of the exact
sums' parts per (model, top 12 bits) of those terms, the weighted Brier's parts (``w t`` and ``w``)
per (model, top bits of each), the uniform bins alone (nine comparisons and their xors a row), the
uniform bins' group-by (model, bin, top 12 bits) with its sums, the same group-by without the bins
(model, top 12 bits) and the quantile bins' bucket counts (one group-by of (model, bucket) with the
sums).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import polars as pl
from timing import best_and_median as timed  # (this folder: first on the path of a script run from it)

ROOT = Path(__file__).resolve().parents[1]

CALLS: dict[str, tuple[str, dict[str, object]]] = {
    "log_loss": ("probabilities", {"metrics": ["log_loss"]}),
    "log_loss_w": ("probabilities", {"metrics": ["log_loss"], "weight": "w"}),
    "brier": ("probabilities", {"metrics": ["brier"]}),
    "brier_w": ("probabilities", {"metrics": ["brier"], "weight": "w"}),
    "calibration_uniform": ("calibration", {"n_bins": 10, "strategy": "uniform"}),
    "calibration_quantile": ("calibration", {"n_bins": 10, "strategy": "quantile"}),
    "ece_uniform": ("probabilities", {"metrics": ["ECE(n_bins=10, strategy=uniform)"]}),
    "ece_quantile": ("probabilities", {"metrics": ["ECE(n_bins=10, strategy=quantile)"]}),
}


def in_process(data: Path, repeat: int, only: list[str], save: Path | None) -> None:
    import frame_eval

    preds = pl.read_parquet(data / "predictions.parquet")
    preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias("w"))
    print(f"frame_eval from {Path(frame_eval.__file__).parent}", flush=True)
    times = {}
    for name in only:
        method, options = CALLS[name]

        def call(method: str = method, options: dict[str, object] = options) -> pl.DataFrame:
            return getattr(preds.ireval, method)("label", "prob", by="model", **options)

        result = call()  # (first call: imports and caches outside the clock)
        if save is not None:
            result.write_parquet(save / f"{name}.parquet")
        times[name] = timed(call, repeat)
        best, median, best_cpu, median_cpu = times[name]
        print(f"{name:22s} wall best {best:.3f} median {median:.3f} s, "
              f"CPU best {best_cpu:.3f} median {median_cpu:.3f} s", flush=True)
    print("TIMES " + json.dumps(times))


def floors(data: Path, repeat: int) -> None:
    from frame_eval._exact_sum import _E, _HIGH, _LOW, _parts
    from frame_eval.classification import quantile_bins as qb
    from frame_eval.classification.calibration import _levels, _row_bins
    from frame_eval.classification.probabilistic import binary_brier_terms, binary_log_terms

    preds = pl.read_parquet(data / "predictions.parquet").lazy()
    preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias("w"))
    p, y, w = pl.col("prob"), pl.col("label"), pl.col("w")
    bits = p.reinterpret(dtype=pl.UInt64)

    def parts(terms: pl.Expr) -> Callable[[], pl.LazyFrame]:
        return lambda: preds.select("model", *_parts(terms)).group_by("model", _E).agg(
            pl.col(_HIGH).sum(), pl.col(_LOW).sum(), pl.len())

    def weighted_parts(terms: pl.Expr) -> Callable[[], pl.LazyFrame]:
        return lambda: preds.select("model", *_parts(terms * w, "_t"), *_parts(w, "_w")).group_by(
            "model", _E + "_t", _E + "_w").agg(
            *(pl.col(f"{n}_{s}").sum() for n in (_HIGH, _LOW) for s in "tw"), pl.len())

    place = _row_bins(p, _levels(10)[1:-1]) * pl.lit(4096, pl.UInt64) + bits // pl.lit(1 << 52, pl.UInt64)
    steps: dict[str, Callable[[], object]] = {
        "group_by(model): rows only": lambda: preds.group_by("model").agg(pl.len()),
        "group_by(model): sum of prob, sum of label": lambda: preds.group_by("model").agg(p.sum(), y.sum()),
        "log-loss terms alone": lambda: preds.select(binary_log_terms(y, p)),
        "log-loss terms' parts by (model, top 12 bits)": parts(binary_log_terms(y, p)),
        "Brier terms alone": lambda: preds.select(binary_brier_terms(y, p)),
        "Brier terms' parts by (model, top 12 bits)": parts(binary_brier_terms(y, p)),
        "weighted Brier's (w t, w) parts by (model, both top bits)": weighted_parts(binary_brier_terms(y, p)),
        "uniform bins alone (10 bins)": lambda: preds.select(_row_bins(p, _levels(10)[1:-1])),
        "uniform bins' group-by (model, bin, top 12 bits)": lambda: preds.group_by("model", place.alias("k"))
        .agg(qb.bin_sums(bits, "label")),
        "group-by (model, top 12 bits), no bins": lambda: preds.group_by(
            "model", (bits // pl.lit(1 << 52, pl.UInt64)).alias("k")).agg(qb.bin_sums(bits, "label")),
        "quantile bins' bucket counts": lambda: preds.select("model", y.alias(qb._Y), bits.alias(qb._BITS))
        .group_by("model", qb._bucket(pl.col(qb._BITS))).agg(*qb.bin_sums(pl.col(qb._BITS), qb._Y)),
    }
    for label, step in steps.items():
        best, median, best_cpu, median_cpu = timed(lambda step=step: step().collect(), repeat)
        print(f"{label:60s} wall best {best:.3f} median {median:.3f} s, "
              f"CPU best {best_cpu:.3f} median {median_cpu:.3f} s", flush=True)


def in_turns(data: Path, repeat: int, only: list[str], against: Path, rounds: int) -> None:
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as scratch:
        saved = {side: Path(scratch) / side for side in runs}
        for _ in range(rounds):
            for side, checkout in (("old", against), ("new", ROOT)):
                saved[side].mkdir(exist_ok=True)
                env = {**os.environ, "PYTHONPATH": str(checkout)}
                done = subprocess.run(
                    [sys.executable, __file__, "--data", str(data), "--repeat", str(repeat),
                     "--only", *only, "--save", str(saved[side])],
                    env=env, cwd=checkout, capture_output=True, text=True, check=True,
                )
                times = json.loads(done.stdout.splitlines()[-1].removeprefix("TIMES "))
                for name, (best, _, best_cpu, _) in times.items():
                    runs[side].setdefault(name, []).append((best, best_cpu))
                print(f"{side} ({checkout}): " + ", ".join(
                    f"{name} {best:.3f}/{cpu:.3f}" for name, (best, _, cpu, _) in times.items()
                ) + " (best wall/CPU s)", flush=True)
        print(f"median of the rounds' best of {repeat}, wall / CPU seconds, old -> new:")
        for name in only:
            (ow, oc), (nw, nc) = (
                (statistics.median(w for w, _ in found), statistics.median(c for _, c in found))
                for found in (runs["old"][name], runs["new"][name])
            )
            same = pl.read_parquet(saved["old"] / f"{name}.parquet").equals(
                pl.read_parquet(saved["new"] / f"{name}.parquet"))
            print(f"  {name:22s} {ow:.3f} / {oc:.3f} -> {nw:.3f} / {nc:.3f}"
                  f"  ({'same values' if same else 'VALUES DIFFER'})", flush=True)
    print("load average (1, 5, 15 min):", " ".join(f"{v:.2f}" for v in os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "10M")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", nargs="+", choices=list(CALLS), default=list(CALLS))
    parser.add_argument("--against", type=Path, help="another checkout, run in turns with this one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--floors", action="store_true", help="time the plain steps below the calls")
    parser.add_argument("--save", type=Path, help=argparse.SUPPRESS)  # (in turns: each call's values)
    args = parser.parse_args()
    data = args.data.resolve()
    if args.floors:
        floors(data, args.repeat)
    elif args.against is not None:
        in_turns(data, args.repeat, args.only, args.against.resolve(), args.rounds)
    else:
        in_process(data, args.repeat, args.only, args.save)


if __name__ == "__main__":
    main()
