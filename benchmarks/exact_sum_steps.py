"""Time the steps of the exact sums behind log-loss, Brier and calibration at 10M predictions.

    PYTHONPATH=. python benchmarks/exact_sum_steps.py [benchmarks/data/10M]

One process, median of 5 wall / CPU seconds per step, on the predictions' 100 models (no input
checks): the row-wise terms alone, the exact means of them per model
(``frame_eval._exact_sum.exact_means``), polars' own mean per model of the same terms (not
deterministic: what an order-free sum costs), the pieces of the quantile bins (the groups' hash, the
packed 128-bit keys, their sort), and two ways to get ``2^r`` per row for a limb layout of the
exact sum (measured and dropped, see NOTES.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
from timing import median_times  # (this folder: first on the path of a script run from it)

from frame_eval._exact_sum import Mean, exact_means
from frame_eval.classification.packed_points import keys_hash


def _timed(label: str, step: Callable[[], Any], repeat: int = 5) -> None:
    wall_s, cpu_s, _ = median_times(step, repeat)
    print(f"{label:62s} wall {wall_s:6.3f} s  CPU {cpu_s:6.3f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=Path(__file__).parent / "data" / "10M")
    args = parser.parse_args()
    preds = pl.read_parquet(args.data / "predictions.parquet").lazy()
    eps = sys.float_info.epsilon
    p, y = pl.col("prob"), pl.col("label")
    log_term = pl.when(y).then(-p.clip(eps, 1.0 - eps).log()).otherwise(-(1.0 - p).clip(eps, 1.0 - eps).log())
    yf = y.cast(pl.Float64)
    brier_term = ((1.0 - yf) - (1.0 - p)) ** 2 + (yf - p) ** 2
    for name, term in (("log-loss", log_term), ("Brier", brier_term)):
        _timed(f"{name} terms alone", lambda term=term: preds.select("model", term).collect())
        _timed(f"{name}: exact means per model", lambda term=term: exact_means(
            preds, ["model"], {"m": Mean(term)}).collect())
        _timed(f"{name}: polars' own mean per model (order-dependent)", lambda term=term: preds.group_by(
            "model").agg(term.mean()).collect())
    frame = preds.select("model", "label", "prob").collect()
    _timed("quantile bins: the groups' 64-bit hash", lambda: frame.select(keys_hash(["model"])))
    hashed = frame.with_columns(keys_hash(["model"]).alias("g"))
    big = pl.UInt128
    low = (p + 0.0).reinterpret(dtype=pl.UInt64) * pl.lit(2, pl.UInt64) + y.cast(pl.UInt64)
    packed = pl.col("g").cast(big) * pl.lit(1 << 64, big) + low.cast(big)
    _timed("quantile bins: packed UInt128 keys", lambda: hashed.select(packed))
    keys = hashed.select(packed).to_series()
    _timed("quantile bins: sort of the packed keys", lambda: keys.sort())
    r = pl.col("g") % 26
    u64 = pl.UInt64
    _timed("limb layout (dropped): 2^r per row by pow", lambda: hashed.select(pl.lit(2, u64).pow(r)))
    _timed("limb layout (dropped): 2^r per row from a double's bits", lambda: hashed.select(
        ((r + 1023) * pl.lit(1 << 52, u64)).reinterpret(dtype=pl.Float64).cast(u64)))


if __name__ == "__main__":
    main()
