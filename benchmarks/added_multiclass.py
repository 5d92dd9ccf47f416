"""Time issue 13's multi-class measures at 10M predictions x 100 models, beside scikit-learn per model.

    python benchmarks/generate.py benchmarks/data/10M --multiclass-predictions 10000000 --classes 5
    PYTHONPATH=. python benchmarks/added_multiclass.py [benchmarks/data/10M] [--only NAME ...]

Reads ``multiclass.parquet`` (``generate.py``: model, actual, predicted, one probability column per
class). For each measure, the frame_eval call on all 100 models (median of 3 wall / CPU seconds,
in one process), then the scikit-learn function called once per model (one pass over the 100
models, the models' NumPy arrays made beforehand), the ratio of the two wall times, and the
largest difference of any per-model value (per class, per cell) from scikit-learn's, which must
be at most 1e-12 (an assertion), so a fast wrong answer cannot pass. Then four floors (median of 3,
plans collected as the library collects them):
a plain polars sort of rows x classes 128-bit keys, and one sort per class of the rows' 128-bit keys
(model hash, the class's score, the actual class: what ROC AUC and AP sort, one-vs-rest and one-vs-one
alike),
the log-loss terms with polars' own per-model mean (no sorted, deterministic order, no checks):
reading the rows once, and the group-by of (model, actual, predicted) that kappa, the confusion
matrix and the report count their cells with (``--floors``: these alone). ``--steps``: what multi-class
Brier and top-k cost step by step (data checks, row terms or hits, their group-by), and one-vs-one ROC
AUC (data checks, each class's sorted keys, the sides' points, their areas). Needs the ``[bench]``
extra.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from sklearn import metrics
from timing import median_times  # (this folder: first on the path of a script run from it)

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval.classification.packed_points import _order  # a double's bits in the same order

TOLERANCE = 1e-12


def _gap(ours: np.ndarray, theirs: np.ndarray) -> float:
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    return float(np.max(np.abs(ours - theirs))) if ours.size else 0.0


def _values(frame: pl.DataFrame, column: str = "value") -> np.ndarray:
    """One value per model (the frame sorted by model), as NumPy."""
    return frame.sort("model")[column].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("data", type=Path, nargs="?", default=Path(__file__).parent / "data" / "10M")
    parser.add_argument("--only", nargs="*", default=None, help="measures to run (names as printed)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-sklearn", action="store_true", help="time frame_eval alone (no check)")
    parser.add_argument("--floors", action="store_true", help="time the floors alone")
    parser.add_argument("--steps", action="store_true", help="time the steps of Brier, top-k and ovo alone")
    args = parser.parse_args()
    preds = pl.read_parquet(args.data / "multiclass.parquet")
    prob_columns = sorted(c for c in preds.columns if c.startswith("p") and c[1:].isdigit())
    classes = list(range(len(prob_columns)))
    mapping = dict(zip(classes, prob_columns, strict=True))
    ns = preds.ireval
    models = sorted(preds["model"].unique().to_list())
    parts = {
        p["model"][0]: (p["actual"].to_numpy(), p["predicted"].to_numpy(), p.select(prob_columns).to_numpy())
        for p in preds.partition_by("model")
    }
    parts = {m: parts[m] for m in models}

    def per_model(step: Callable[[np.ndarray, np.ndarray, np.ndarray], Any]) -> Callable[[], list[Any]]:
        return lambda: [step(y, pred, prob) for y, pred, prob in parts.values()]

    def onehot(y: np.ndarray) -> np.ndarray:
        return (y[:, None] == np.asarray(classes)[None, :]).astype(np.int64)

    # name -> (frame_eval call, scikit-learn call per model, values of ours, values of theirs)
    cases: dict[str, tuple[Callable[[], Any], Callable[[np.ndarray, np.ndarray, np.ndarray], Any],
                           Callable[[Any], np.ndarray], Callable[[list[Any]], np.ndarray]]] = {}

    def scalar(ours: Any) -> np.ndarray:
        return _values(ours)

    def listed(theirs: list[Any]) -> np.ndarray:
        return np.asarray(theirs, dtype=np.float64)

    for multi_class in ("ovr", "ovo"):
        for average in ("macro", "weighted"):
            cases[f"ROC_AUC {multi_class} {average}"] = (
                lambda mc=multi_class, av=average: ns.scores(
                    "actual", mapping, by="model", metrics=["ROC_AUC"], average=av, multi_class=mc),
                lambda y, pred, prob, mc=multi_class, av=average: metrics.roc_auc_score(
                    y, prob, multi_class=mc, average=av, labels=classes),
                scalar, listed,
            )
    cases["top_k_accuracy k=2"] = (
        lambda: ns.scores("actual", mapping, by="model", metrics=["top_k_accuracy(k=2)"], average="macro"),
        lambda y, pred, prob: metrics.top_k_accuracy_score(y, prob, k=2, labels=classes),
        scalar, listed,
    )
    cases["log_loss"] = (
        lambda: ns.probabilities("actual", mapping, by="model", metrics=["log_loss"]),
        lambda y, pred, prob: metrics.log_loss(y, prob, labels=classes),
        scalar, listed,
    )
    cases["brier"] = (
        lambda: ns.probabilities("actual", mapping, by="model", metrics=["brier"]),
        lambda y, pred, prob: metrics.brier_score_loss(y, prob, labels=classes),
        scalar, listed,
    )
    cases["AP per class"] = (
        lambda: ns.scores("actual", mapping, by="model", metrics=["AP"]),
        lambda y, pred, prob: metrics.average_precision_score(onehot(y), prob, average=None),
        lambda ours: ours.sort("model", "class")["value"].to_numpy(),
        lambda theirs: np.concatenate(theirs),
    )
    for average in ("macro", "weighted", "micro"):
        cases[f"AP {average}"] = (
            lambda av=average: ns.scores("actual", mapping, by="model", metrics=["AP"], average=av),
            lambda y, pred, prob, av=average: metrics.average_precision_score(onehot(y), prob, average=av),
            scalar, listed,
        )
    for weights in ("linear", "quadratic"):
        cases[f"kappa {weights}"] = (
            lambda w=weights: ns.rates("actual", "predicted", by="model", metrics=[f"kappa(weights={w})"],
                                       average="macro"),
            lambda y, pred, prob, w=weights: metrics.cohen_kappa_score(y, pred, weights=w),
            scalar, listed,
        )

    def report_rows(reports: list[dict[str, Any]]) -> np.ndarray:
        rows = []
        for report in reports:
            for key in [*map(str, classes), "macro avg", "weighted avg"]:
                entry = report[key]
                rows.append([entry["precision"], entry["recall"], entry["f1-score"], entry["support"]])
            rows.append([np.nan, np.nan, report["accuracy"], np.nan])
        return np.asarray(rows, dtype=np.float64)

    def our_report(ours: pl.DataFrame) -> np.ndarray:
        order = {**{str(c): i for i, c in enumerate(classes)}, "macro avg": len(classes),
                 "weighted avg": len(classes) + 1, "accuracy": len(classes) + 2}
        ours = ours.with_columns(pl.col("class").replace_strict(order).alias("_order"))
        ours = ours.sort("model", "_order")
        is_accuracy = ours["class"] == "accuracy"
        # the report's accuracy is one number
        support = ours["support"].cast(pl.Float64).set(is_accuracy, None)
        return np.column_stack([ours["precision"].fill_null(np.nan).to_numpy(),
                                ours["recall"].fill_null(np.nan).to_numpy(),
                                ours["f1-score"].to_numpy(), support.fill_null(np.nan).to_numpy()])

    cases["classification_report"] = (
        lambda: ns.classification_report("actual", "predicted", by="model"),
        lambda y, pred, prob: metrics.classification_report(y, pred, labels=classes, output_dict=True),
        our_report, report_rows,
    )
    cases["confusion_matrix"] = (
        lambda: ns.confusion_matrix("actual", "predicted", by="model"),
        lambda y, pred, prob: metrics.confusion_matrix(y, pred, labels=classes),
        lambda ours: ours.sort("model", "actual", "predicted")["count"].to_numpy(),
        lambda theirs: np.concatenate([m.ravel() for m in theirs]),
    )

    if args.steps:
        _steps(preds, mapping, args.repeat)
        return
    names = [] if args.floors else list(cases) if args.only is None else args.only
    print(f"{preds.height:,} rows, {len(models)} models, {len(classes)} classes; frame_eval median of "
          f"{args.repeat}, scikit-learn one pass over the models (wall / CPU seconds)", flush=True)
    print("| measure | frame_eval s | CPU s | scikit-learn s | CPU s | ratio | max difference |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
    for name in names:
        ours_call, theirs_call, our_values, their_values = cases[name]
        wall, cpu, ours = median_times(ours_call, args.repeat)
        if args.no_sklearn:
            print(f"| {name} | {wall:.3f} | {cpu:.3f} | | | | |", flush=True)
            continue
        their_wall, their_cpu, theirs = median_times(per_model(theirs_call), 1)
        a, b = our_values(ours), their_values(theirs)
        same_nan = np.isnan(a) == np.isnan(b)
        assert same_nan.all(), f"{name}: undefined values differ"
        gap = _gap(np.nan_to_num(a), np.nan_to_num(b))
        assert gap <= TOLERANCE, f"{name}: frame_eval differs from scikit-learn by {gap}"
        print(f"| {name} | {wall:.3f} | {cpu:.3f} | {their_wall:.3f} | {their_cpu:.3f} | "
              f"{their_wall / wall:.1f}x | {gap:.0e} |", flush=True)
    if args.only is not None:
        return
    print("floors (median of 3, wall / CPU seconds):", flush=True)
    big = pl.UInt128
    count = preds.height * len(classes)
    keys = pl.Series(np.random.default_rng(0).integers(0, 2**63, count, dtype=np.uint64))
    keys = keys.cast(big) * pl.Series([1 << 65], dtype=big)
    wall, cpu, _ = median_times(keys.sort, args.repeat)
    print(f"Series.sort of {count:,} UInt128 values: {wall:.3f} / {cpu:.3f}", flush=True)
    # what multi-class ROC AUC and AP sort: per class, one 128-bit key per row (the model's hash, the
    # class's score, the actual class), each class's keys sorted on their own
    per_class = preds.select(
        ((pl.col("model").hash() // 8).cast(big) * pl.lit(1 << 67, big)
         + _order(pl.col(c)).cast(big) * pl.lit(8, big) + pl.col("actual").cast(big)).alias(c)
        for c in prob_columns
    )
    wall, cpu, _ = median_times(lambda: [per_class.get_column(c).sort(descending=True) for c in prob_columns],
                          args.repeat)
    print(f"{len(prob_columns)} Series.sort of {preds.height:,} UInt128 values each: {wall:.3f} / {cpu:.3f}",
          flush=True)
    given = pl.coalesce([pl.when(pl.col("actual") == k).then(pl.col(c)) for k, c in mapping.items()])
    term = -given.clip(np.finfo(np.float64).eps, 1.0 - np.finfo(np.float64).eps).log()
    per_model_mean = preds.lazy().group_by("model").agg(term.mean())
    wall, cpu, _ = median_times(per_model_mean.collect, args.repeat)
    print(f"log-loss terms and group_by(model).agg(mean): {wall:.3f} / {cpu:.3f}", flush=True)
    cells = preds.lazy().group_by("model", "actual", "predicted").len()
    wall, cpu, _ = median_times(cells.collect, args.repeat)
    print(f"group_by(model, actual, predicted).len(): {wall:.3f} / {cpu:.3f}", flush=True)


def _steps(preds: pl.DataFrame, mapping: dict[int, str], repeat: int) -> None:
    """What multi-class Brier, top-k (k = 2) and one-vs-one ROC AUC cost, step by step (each plan collected
    on its own, as the library collects it): the data checks, the row terms (hits), the group-by that sums
    them; one-vs-one's parts in :func:`_ovo_steps`."""
    from frame_eval import _checks
    from frame_eval._exact_sum import Mean, exact_means
    from frame_eval.classification.frame_multiclass import multiclass_scores
    from frame_eval.classification.multiclass import top_k_hits
    from frame_eval.classification.probabilistic import class_terms
    from frame_eval.classification.probabilities import probabilities

    rows = preds.lazy()
    _, _, brier_terms, _, _ = class_terms({"actual": "actual", "probs": mapping})
    hits = top_k_hits("actual", sorted(mapping.items()), 2, checked=True)
    with _checks.deferred(rows=preds.height) as brier_call:
        brier = probabilities(rows, "actual", mapping, ["model"], metrics=["brier"])
    with _checks.deferred(rows=preds.height) as top_call:
        top = multiclass_scores(rows, "actual", mapping, ["model"], metrics=["top_k_accuracy(k=2)"])
    steps = {
        "Brier: data checks (19 counts)": _checks.Counted.of(brier_call.checks).row.collect,
        "Brier: result without checks": brier.collect,
        "Brier: row terms alone": rows.select("model", brier_terms).collect,
        "Brier: exact means of the terms (exact_means)": exact_means(
            rows, ["model"], {"b": Mean(brier_terms)}).collect,
        "Brier: terms, polars' group_by(model).sum": rows.group_by("model").agg(brier_terms.sum()).collect,
        "top-k: data checks (13 counts)": _checks.Counted.of(top_call.checks).row.collect,
        "top-k: result without checks": top.collect,
        "top-k: row hits alone": rows.select(hits).collect,
        "group_by(model).len()": rows.group_by("model").len().collect,
    }
    steps.update(_ovo_steps(preds, mapping))
    print("steps (median of repeats, wall / CPU seconds):")
    for name, step in steps.items():
        wall, cpu, _ = median_times(step, repeat)
        print(f"{name}: {wall:.3f} / {cpu:.3f}", flush=True)


def _ovo_steps(preds: pl.DataFrame, mapping: dict[int, str]) -> dict[str, Callable[[], Any]]:
    """One-vs-one ROC AUC's steps (``grouped_multiclass._sorted_areas``' frame function, its parts each on
    the previous part's output): the data checks, the result without them, each class's sorted key runs
    (128-bit keys, their sort and runs), the points of the 20 sides read off them, and their areas."""
    import itertools

    from frame_eval import _checks
    from frame_eval.classification import grouped_multiclass as gm
    from frame_eval.classification.frame_multiclass import multiclass_scores

    with _checks.deferred(rows=preds.height) as call:
        ovo = multiclass_scores(
            preds.lazy(), "actual", mapping, ["model"], metrics=["ROC_AUC"], multi_class="ovo"
        )
    k, big = len(mapping), pl.UInt128
    frame = preds.select(
        (gm._group_hash(["model"], k).cast(big) * pl.lit(1 << (64 + k.bit_length()), big)
         + pl.col("actual").cast(big)).alias(gm._BASE),  # (the labels are the class indices 0..k-1)
        *(pl.col(c).alias(f"_s{i}") for i, c in mapping.items()),
    )

    def runs() -> list[pl.DataFrame]:
        positive = [pl.lit(i, pl.UInt64).alias(gm._POS) for i in range(k)]
        return [gm._class_runs(frame, i, k).with_columns(positive[i]) for i in range(k)]

    def sides(per_class: list[pl.DataFrame]) -> pl.DataFrame:  # each side's runs, numbered by problem
        problems = []
        for p, pair in enumerate(itertools.combinations(range(k), 2)):
            for side, i in enumerate(pair):
                problems.append(per_class[i].filter(pl.col(gm._I).is_in(list(pair))).with_columns(
                    pl.lit(k + 2 * p + side, pl.Int32).alias(gm._Q)))
        return pl.concat(problems)

    per_class = runs()
    points = gm._run_points(sides(per_class))
    return {
        "ROC AUC ovo: data checks": _checks.Counted.of(call.checks).row.collect,
        "ROC AUC ovo: result without checks": ovo.collect,
        "ROC AUC ovo: each class's keys sorted, their runs (5 sorts)": runs,
        "ROC AUC ovo: the 20 sides' runs and points (_run_points)": lambda: gm._run_points(sides(per_class)),
        "ROC AUC ovo: the sides' areas (_problem_areas)": lambda: gm._problem_areas(points, ["ROC_AUC"]),
    }


if __name__ == "__main__":
    main()
