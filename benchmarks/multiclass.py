"""Multi-class ROC AUC: the frame method against the expression and scikit-learn, one call each.

    python benchmarks/multiclass.py --rows 200 --classes 8
    python benchmarks/multiclass.py --rows 2000 --classes 8 --groups 50
    python benchmarks/multiclass.py --rows 100000 --classes 10 --no-expression

``.ireval.scores(actual, {class: column}, by=..., average=..., multi_class=...)`` lays
the predictions out long and reads every class's (or pair's) area from one sort
(``classification/grouped_multiclass.py``); ``C.multiclass_roc_auc`` in
``group_by(...).agg`` hands each group's rows to the same code (one Python call per
group). Scores are integers 1..5 divided by their row's sum, so there are many ties;
``--groups`` splits the rows into that many groups, each with every class
(scikit-learn is then called per group). Each case prints the best of ``--repeat``
wall times and CPU times (user and system of this process) and checks the values
against scikit-learn with ``==``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

import frame_eval as fe
from frame_eval import classification as C


def _best(call: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    best, cpu, value = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = call()
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return best, cpu, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--classes", type=int, default=8)
    parser.add_argument("--groups", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-expression", action="store_true", help="skip the expression")
    args = parser.parse_args()
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, args.classes, args.rows)
    y[: args.groups * args.classes] = np.repeat(np.arange(args.classes), args.groups)  # every class per group
    raw = rng.integers(1, 6, (args.rows, args.classes)).astype(float)
    probs = raw / raw.sum(axis=1, keepdims=True)
    g = np.arange(args.rows) % args.groups
    frame = pl.DataFrame({"g": g, "y": y, **{f"p{k}": probs[:, k] for k in range(args.classes)}})
    score = {k: f"p{k}" for k in range(args.classes)}
    assert fe  # registers .ireval
    size = f"{args.rows} x {args.classes}, {args.groups} groups"
    for multi_class in ("ovr", "ovo"):
        def reference(mc: str = multi_class) -> list[float]:
            return [roc_auc_score(y[g == i], probs[g == i], multi_class=mc) for i in range(args.groups)]

        want = reference()
        seconds, cpu, value = _best(lambda mc=multi_class: frame.ireval.scores(
            "y", score, by="g", average="macro", multi_class=mc, metrics=["ROC_AUC"])["value"].to_list(),
            args.repeat)
        print(f"{size} {multi_class} frame method: {seconds:.3f} s (CPU {cpu:.3f} s), "
              f"equal to scikit-learn: {value == want}")
        if not args.no_expression:
            seconds, cpu, value = _best(lambda mc=multi_class: frame.group_by("g").agg(
                C.multiclass_roc_auc("y", score, multi_class=mc)).sort("g")["ROC_AUC"].to_list(), args.repeat)
            print(f"{size} {multi_class} expression:   {seconds:.3f} s (CPU {cpu:.3f} s), "
                  f"equal to scikit-learn: {value == want}")
        seconds, cpu, _ = _best(reference, args.repeat)
        print(f"{size} {multi_class} scikit-learn:  {seconds:.3f} s (CPU {cpu:.3f} s)")


if __name__ == "__main__":
    main()
