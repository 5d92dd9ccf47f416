"""Time issue 13's added measures call by call at 10M predictions, beside scikit-learn's functions.

    python benchmarks/added_parts.py [benchmarks/data/10M]

The calls of the ``frame_eval_added`` tool (``tools.py``) one at a time in one process (median of 3
wall / CPU seconds each), then the scikit-learn functions the ``sklearn_added_per_group`` tool calls,
each over the 100 models (one pass, wall / CPU), and a plain polars sort of 10M 128-bit integers (the
kind of key the packed sorts use): what one sorting call cannot go below. Needs the ``[bench]`` extra.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
from sklearn import metrics

import frame_eval  # noqa: F401  (registers .ireval)


def _timed(label: str, step: Callable[[], object], repeat: int = 3) -> None:
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    walls, cpus = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
    print(f"{label:48s} wall {walls[repeat // 2]:6.3f} s  CPU {cpus[repeat // 2]:6.3f} s", flush=True)


def main(data: Path) -> None:
    preds = pl.read_parquet(data / "predictions.parquet")
    preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias("w"))
    ns = preds.ireval
    print("frame_eval, each call on all 100 models (median of 3):")
    _timed("rates(weight=w): precision, recall, F1",
           lambda: ns.rates("label", "pred", by="model", metrics=["precision", "recall", "F1"], weight="w"))
    _timed("scores(weight=w): ROC_AUC, AP",
           lambda: ns.scores("label", "prob", by="model", metrics=["ROC_AUC", "AP"], weight="w"))
    _timed("rates: kappa", lambda: ns.rates("label", "pred", by="model", metrics=["kappa"]))
    _timed("best_threshold(recall, min_specificity=0.9)", lambda: ns.best_threshold(
        "label", "prob", by="model", criterion="recall", min_specificity=0.9))

    parts = [
        (p["label"].to_numpy(), p["pred"].to_numpy(), p["prob"].to_numpy(), p["w"].to_numpy())
        for p in preds.partition_by("model")
    ]

    def per_model(step: Callable[..., object]) -> Callable[[], None]:
        return lambda: [step(y, pred, prob, w) for y, pred, prob, w in parts] and None

    print("scikit-learn, called once per model (one pass over the 100 models):")
    _timed("precision_recall_fscore_support(sample_weight)", per_model(
        lambda y, pred, prob, w: metrics.precision_recall_fscore_support(
            y, pred, average="binary", zero_division=math.nan, sample_weight=w)), repeat=1)
    _timed("roc_auc_score(sample_weight)",
           per_model(lambda y, pred, prob, w: metrics.roc_auc_score(y, prob, sample_weight=w)), repeat=1)
    _timed("average_precision_score(sample_weight)",
           per_model(lambda y, pred, prob, w: metrics.average_precision_score(y, prob, sample_weight=w)),
           repeat=1)
    _timed("cohen_kappa_score",
           per_model(lambda y, pred, prob, w: metrics.cohen_kappa_score(y, pred)), repeat=1)
    _timed("roc_curve(drop_intermediate=False)",
           per_model(lambda y, pred, prob, w: metrics.roc_curve(y, prob, drop_intermediate=False)), repeat=1)

    keys = pl.Series(np.random.default_rng(0).integers(0, 2**63, preds.height, dtype=np.uint64))
    keys = keys.cast(pl.UInt128) * pl.Series([1 << 65], dtype=pl.UInt128)
    print("polars:")
    _timed(f"Series.sort of {preds.height:,} UInt128 values", lambda: keys.sort(descending=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "data" / "10M")
