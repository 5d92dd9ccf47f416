"""Multi-class ROC AUC: the frame method against the expression and scikit-learn, one call each.

    python benchmarks/multiclass.py --rows 200 --classes 8
    python benchmarks/multiclass.py --rows 100000 --classes 10 --no-expression

``.ireval.scores(actual, {class: column}, average=..., multi_class=...)`` lays
the predictions out long and reads every class's (or pair's) area from one sort
(``classification/grouped_multiclass.py``); ``C.multiclass_roc_auc`` builds one
curve per class or pair inside one aggregation (timed one-vs-rest only: one-vs-one
takes minutes at 8 classes). Scores are integers 1..5 divided
by their row's sum, so there are many ties. Each case prints the best of
``--repeat`` wall times and checks the value against scikit-learn with ``==``.
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


def _best(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = call()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--classes", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-expression", action="store_true", help="skip the (slow) expression")
    args = parser.parse_args()
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, args.classes, args.rows)
    raw = rng.integers(1, 6, (args.rows, args.classes)).astype(float)
    probs = raw / raw.sum(axis=1, keepdims=True)
    frame = pl.DataFrame({"y": y, **{f"p{k}": probs[:, k] for k in range(args.classes)}})
    score = {k: f"p{k}" for k in range(args.classes)}
    assert fe  # registers .ireval
    for multi_class in ("ovr", "ovo"):
        reference = roc_auc_score(y, probs, multi_class=multi_class, average="macro")
        seconds, value = _best(lambda mc=multi_class: frame.ireval.scores(
            "y", score, average="macro", multi_class=mc, metrics=["ROC_AUC"])["value"][0], args.repeat)
        print(f"{args.rows} x {args.classes} {multi_class} frame method: {seconds:.3f} s, "
              f"equal to scikit-learn: {value == reference}")
        if not args.no_expression and multi_class == "ovr":  # one-vs-one expressions take minutes
            seconds, value = _best(lambda mc=multi_class: frame.select(
                C.multiclass_roc_auc("y", score, multi_class=mc)).item(), 1)
            print(f"{args.rows} x {args.classes} {multi_class} expression:   {seconds:.3f} s, "
                  f"equal to scikit-learn: {value == reference}")
        seconds, _ = _best(lambda mc=multi_class: roc_auc_score(y, probs, multi_class=mc), args.repeat)
        print(f"{args.rows} x {args.classes} {multi_class} scikit-learn:  {seconds:.3f} s")


if __name__ == "__main__":
    main()
