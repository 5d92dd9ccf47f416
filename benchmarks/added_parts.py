"""Time issue 13's added measures call by call at 10M predictions, beside scikit-learn's functions.

    python benchmarks/added_parts.py [benchmarks/data/10M] [--only GROUP ...] [--sklearn-loops] [--steps]

Each line is one frame_eval call on all 100 models in one process (median of 3 wall / CPU seconds),
then the scikit-learn call(s) doing the same work once per model (one pass over the 100 models), then
the ratio of the two wall (and CPU) times. Each pair's values are checked to agree (within 1e-12, an
assertion: a wrong speed-up cannot pass). ``issue13`` holds the four calls of the ``frame_eval_added``
tool (``tools.py``) against the functions ``sklearn_added_per_group`` calls (``best_threshold``
against ``roc_curve`` alone, its selection left out of the clock), and a plain polars sort of 10M
128-bit integers (the kind of key the packed sorts use: what one sorting call cannot go below). The
other groups, the rest of issue 13's binary measures (``w`` the tool's weights, a quarter of them 0):

- ``probabilities``: ``log_loss`` and ``brier`` from ``.ireval.probabilities``, each alone, without
  and with ``weight=`` (``log_loss``, ``brier_score_loss``, with ``sample_weight``);
- ``calibration``: ``.ireval.calibration(n_bins=10)`` uniform and quantile (``calibration_curve``),
  and the measure ``ECE`` (``calibration_curve`` plus the bins' row counts and the sum in NumPy);
- ``curves``: ``det_curve`` (``det_curve``), weighted ``roc`` and ``pr_curve`` (``roc_curve`` and
  ``precision_recall_curve`` with ``sample_weight``, ``drop_intermediate=False``);
- ``confusion``: weighted ``confusion`` and ``confusion_matrix`` (``confusion_matrix(sample_weight=)``);
  with ``--steps``, then the steps of those calls one at a time (the data checks, the weights'
  exactness test, the cells' group-by; a plain group-by of the models, what reading the rows costs);
- ``thresholds``: ``rates(score=, thresholds=[0, 0.1, ..., 1])`` (precision, recall, F1), against
  one ``roc_curve`` per model read at the 11 thresholds with ``searchsorted`` and the rates in NumPy
  (the fastest way we know with scikit-learn, so the ratio is not flattered; ``--sklearn-loops``
  also times the literal way, ``confusion_matrix(y, prob >= t)`` per threshold per model);
- ``best_threshold``: the other forms (``weights=``, ``costs=``, ``min_recall=``, ``max_fpr=``),
  against ``roc_curve`` per model with the selection in NumPy, on integer counts (exact);
- ``floors``: plain polars steps over the same rows (a group-by summing two columns per model, the
  probabilities sorted within each model, the packed keys' sort and its runs, the curve frame's rates
  from its counts): the least a call that reads the rows once, sorts each model's values, sorts packed
  keys or hands back a curve can cost.

Needs the ``[bench]`` extra. Run from the worktree root with ``PYTHONPATH=.``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from sklearn import calibration as sk_calibration
from sklearn import metrics
from timing import median_times  # (this folder: first on the path of a script run from it)

import frame_eval  # noqa: F401  (registers .ireval)

GROUPS = (
    "issue13", "probabilities", "calibration", "curves", "confusion", "thresholds", "best_threshold",
    "floors",
)
TOLERANCE = 1e-12
THRESHOLDS = [i / 10 for i in range(11)]


def _timed(label: str, step: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    wall_s, cpu_s, result = median_times(step, repeat)
    print(f"{label:60s} wall {wall_s:6.3f} s  CPU {cpu_s:6.3f} s", flush=True)
    return wall_s, cpu_s, result


def _agree(label: str, ours: Any, theirs: Any) -> None:
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    if ours.shape != theirs.shape:
        raise AssertionError(f"{label}: shapes differ, {ours.shape} against {theirs.shape}")
    same = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))
    with np.errstate(invalid="ignore"):  # (inf - inf where both are inf: same)
        gap = np.where(same, 0.0, np.abs(ours - theirs))
    if not (gap <= TOLERANCE).all():
        raise AssertionError(f"{label}: differs by {np.nanmax(gap)!r} from scikit-learn's")


class Bench:
    """The data, each model's NumPy arrays, and the pairs timed so far."""

    def __init__(self, data: Path) -> None:
        preds = pl.read_parquet(data / "predictions.parquet")
        self.preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias("w"))
        self.ns = self.preds.ireval
        by_model = self.preds.partition_by("model", as_dict=True)
        self.models = sorted(key[0] for key in by_model)
        self.parts = [
            tuple(by_model[(m,)][c].to_numpy() for c in ("label", "pred", "prob", "w")) for m in self.models
        ]
        self.ratios: list[tuple[str, float, float]] = []

    def per_model(self, step: Callable[..., Any]) -> Callable[[], list[Any]]:
        return lambda: [step(y, pred, prob, w) for y, pred, prob, w in self.parts]

    def pair(
        self, label: str, ours: Callable[[], Any], theirs: list[tuple[str, Callable[..., Any]]],
        check: Callable[[Any, list[Any]], None] | None = None,
    ) -> None:
        """Time ``ours`` (median of 3), each of ``theirs`` per model (one pass); check; print the ratio."""
        wall, cpu, result = _timed(label, ours)
        their_wall = their_cpu = 0.0
        outputs = []
        for name, step in theirs:
            w, c, out = _timed(f"  scikit-learn: {name}", self.per_model(step), repeat=1)
            their_wall, their_cpu = their_wall + w, their_cpu + c
            outputs.append(out)
        if check is not None:
            check(result, outputs)
        self.ratios.append((label, their_wall / wall, their_cpu / cpu))
        agreed = "values agree" if check is not None else "values not compared"
        print(f"  ratio {their_wall / wall:5.1f}x wall, {their_cpu / cpu:5.1f}x CPU ({agreed})", flush=True)

    def by_model(self, frame: pl.DataFrame) -> list[pl.DataFrame]:
        parts = frame.partition_by("model", as_dict=True)
        return [parts[(m,)] for m in self.models]


# -- the checks: frame_eval's frame against scikit-learn's per-model outputs --------------------------


def _values(bench: Bench, frame: pl.DataFrame, metric: str) -> np.ndarray:
    if frame["metric"].n_unique() > 1:  # else the one measure asked for, whatever its label
        frame = frame.filter(pl.col("metric") == metric)
    return frame.sort("model")["value"].to_numpy()


def _check_values(bench: Bench, metric: str, step: int = 0) -> Callable[[Any, list[Any]], None]:
    return lambda ours, theirs: _agree(metric, _values(bench, ours, metric), theirs[step])


def _best_rows(bench: Bench, frame: pl.DataFrame, theirs: list[tuple[float, int, int]], label: str) -> None:
    frame = frame.sort("model")
    _agree(f"{label} threshold", frame["threshold"].to_numpy(), [t[0] for t in theirs])
    _agree(f"{label} tp", frame["tp"].to_numpy(), [t[1] for t in theirs])
    _agree(f"{label} fp", frame["fp"].to_numpy(), [t[2] for t in theirs])


def _points(y: np.ndarray, prob: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """One model's distinct-score points from ``roc_curve``: thresholds (descending), tp, fp, P, N."""
    fpr, tpr, thresholds = metrics.roc_curve(y, prob, drop_intermediate=False)
    positives = int(y.sum())
    negatives = y.size - positives
    tp = np.rint(tpr * positives).astype(np.int64)  # the counts back from the rates (exact)
    fp = np.rint(fpr * negatives).astype(np.int64)
    return thresholds[1:], tp[1:], fp[1:], positives, negatives  # the first point (inf) is no score


def _pick(thresholds: np.ndarray, tp: np.ndarray, fp: np.ndarray, allowed: np.ndarray,
          key: np.ndarray) -> tuple[float, int, int]:
    """The highest threshold of the allowed points with the largest key (ties: thresholds descend)."""
    masked = np.where(allowed, key, -np.inf if key.dtype.kind == "f" else np.iinfo(np.int64).min)
    i = int(np.argmax(masked))
    return float(thresholds[i]), int(tp[i]), int(fp[i])


def _min_specificity(y: np.ndarray, prob: np.ndarray) -> tuple[float, int, int]:
    thresholds, tp, fp, _, n = _points(y, prob)
    return _pick(thresholds, tp, fp, (n - fp) * 10 >= 9 * n, tp)


def _weighted(y: np.ndarray, prob: np.ndarray) -> tuple[float, int, int]:
    thresholds, tp, fp, p, n = _points(y, prob)  # 1 TPR + 2 TNR, scaled by P N: integers
    return _pick(thresholds, tp, fp, np.ones(tp.size, bool), tp * n + 2 * (n - fp) * p)


def _costs(y: np.ndarray, prob: np.ndarray) -> tuple[float, int, int]:
    thresholds, tp, fp, p, _ = _points(y, prob)  # minimise 1 FP + 5 FN
    return _pick(thresholds, tp, fp, np.ones(tp.size, bool), -(fp + 5 * (p - tp)))


def _min_recall(y: np.ndarray, prob: np.ndarray) -> tuple[float, int, int]:
    thresholds, tp, fp, p, _ = _points(y, prob)  # most specific with recall >= 0.9: fewest FP
    return _pick(thresholds, tp, fp, tp * 10 >= 9 * p, -fp)


def _max_fpr(y: np.ndarray, prob: np.ndarray) -> tuple[float, int, int]:
    thresholds, tp, fp, p, n = _points(y, prob)  # best F1 = 2 TP / (TP + FP + P) with FPR <= 0.1
    # equal fractions of these small integers are equal doubles, unequal ones differ by far more than
    # a rounding, so the floats compare as the fractions do
    return _pick(thresholds, tp, fp, fp * 10 <= n, 2 * tp / (tp + fp + p))


def _at_thresholds(y: np.ndarray, prob: np.ndarray) -> np.ndarray:
    """Precision, recall, F1 at each of THRESHOLDS (score >= t) from one roc_curve: [11, 3]."""
    fpr, tpr, thresholds = metrics.roc_curve(y, prob, drop_intermediate=False)
    positives = int(y.sum())
    tp = np.rint(tpr * positives)
    fp = np.rint(fpr * (y.size - positives))
    at = np.searchsorted(-thresholds, -np.asarray(THRESHOLDS), side="right") - 1  # last point with thr >= t
    tp, fp = tp[at], fp[at]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + fp)
    return np.column_stack([precision, tp / positives, 2 * tp / (tp + fp + positives)])


def _at_thresholds_loops(y: np.ndarray, prob: np.ndarray) -> np.ndarray:
    rows = []
    for t in THRESHOLDS:
        (_, fp), (fn, tp) = metrics.confusion_matrix(y, prob >= t, labels=[False, True])
        pp = tp + fp
        rows.append([tp / pp if pp else math.nan, tp / (tp + fn), 2 * tp / (2 * tp + fp + fn)])
    return np.array(rows)


def _bin_ids(prob: np.ndarray, strategy: str) -> np.ndarray:
    """scikit-learn's calibration_curve bins (its rule, written again for the counts it does not return)."""
    if strategy == "quantile":
        edges = np.percentile(prob, np.linspace(0, 1, 11) * 100)
    else:
        edges = np.linspace(0.0, 1.0, 11)
    return np.searchsorted(edges[1:-1], prob)


def _ece(y: np.ndarray, prob: np.ndarray, strategy: str) -> float:
    prob_true, prob_pred = sk_calibration.calibration_curve(y, prob, n_bins=10, strategy=strategy)
    counts = np.bincount(_bin_ids(prob, strategy), minlength=10)
    counts = counts[counts > 0]
    return float(np.sum(counts / y.size * np.abs(prob_pred - prob_true)))


# -- the groups -----------------------------------------------------------------------------------


def issue13(b: Bench) -> None:
    ns = b.ns

    def rates_check(ours: Any, theirs: list[Any]) -> None:
        for i, metric in enumerate(["precision", "recall", "F1"]):
            _agree(f"weighted {metric}", _values(b, ours, metric), [r[i] for r in theirs[0]])

    b.pair("rates(weight=w): precision, recall, F1",
           lambda: ns.rates("label", "pred", by="model", metrics=["precision", "recall", "F1"], weight="w"),
           [("precision_recall_fscore_support(sample_weight)",
             lambda y, pred, prob, w: metrics.precision_recall_fscore_support(
                 y, pred, average="binary", zero_division=math.nan, sample_weight=w))],
           rates_check)

    def scores_check(ours: Any, theirs: list[Any]) -> None:
        _agree("weighted ROC_AUC", _values(b, ours, "ROC_AUC"), theirs[0])
        _agree("weighted AP", _values(b, ours, "average_precision"), theirs[1])

    b.pair("scores(weight=w): ROC_AUC, AP",
           lambda: ns.scores("label", "prob", by="model", metrics=["ROC_AUC", "AP"], weight="w"),
           [("roc_auc_score(sample_weight)",
             lambda y, pred, prob, w: metrics.roc_auc_score(y, prob, sample_weight=w)),
            ("average_precision_score(sample_weight)",
             lambda y, pred, prob, w: metrics.average_precision_score(y, prob, sample_weight=w))],
           scores_check)
    b.pair("rates: kappa", lambda: ns.rates("label", "pred", by="model", metrics=["kappa"]),
           [("cohen_kappa_score", lambda y, pred, prob, w: metrics.cohen_kappa_score(y, pred))],
           _check_values(b, "kappa"))

    def best_check(ours: Any, theirs: list[Any]) -> None:  # the selection, outside the clock
        _best_rows(b, ours, [_min_specificity(y, prob) for y, _, prob, _ in b.parts], "min_specificity")

    b.pair("best_threshold(recall, min_specificity=0.9)",
           lambda: ns.best_threshold("label", "prob", by="model", criterion="recall", min_specificity=0.9),
           [("roc_curve(drop_intermediate=False)",
             lambda y, pred, prob, w: metrics.roc_curve(y, prob, drop_intermediate=False))],
           best_check)

    keys = pl.Series(np.random.default_rng(0).integers(0, 2**63, b.preds.height, dtype=np.uint64))
    keys = keys.cast(pl.UInt128) * pl.Series([1 << 65], dtype=pl.UInt128)
    print("polars:")
    _timed(f"Series.sort of {b.preds.height:,} UInt128 values", lambda: keys.sort(descending=True))


def probabilities(b: Bench) -> None:
    for weight in (None, "w"):
        given = "(weight=w)" if weight else ""
        sw = "(sample_weight)" if weight else ""
        for metric, function in (("log_loss", metrics.log_loss), ("brier", metrics.brier_score_loss)):
            b.pair(f"probabilities{given}: {metric}",
                   lambda weight=weight, metric=metric: b.ns.probabilities(
                       "label", "prob", by="model", metrics=[metric], weight=weight),
                   [(f"{function.__name__}{sw}", lambda y, pred, prob, w, weight=weight, function=function:
                     function(y, prob, sample_weight=w if weight else None))],
                   _check_values(b, metric))


def calibration(b: Bench) -> None:
    for strategy in ("uniform", "quantile"):
        def curve_check(ours: Any, theirs: list[Any]) -> None:
            for part, (prob_true, prob_pred) in zip(b.by_model(ours.sort("model", "bin")), theirs[0],
                                                    strict=True):
                _agree("fraction_positive", part["fraction_positive"].to_numpy(), prob_true)
                _agree("mean_predicted", part["mean_predicted"].to_numpy(), prob_pred)

        b.pair(f"calibration(n_bins=10, strategy={strategy})",
               lambda strategy=strategy: b.ns.calibration("label", "prob", by="model", n_bins=10,
                                                           strategy=strategy),
               [(f"calibration_curve(n_bins=10, strategy={strategy})",
                 lambda y, pred, prob, w, strategy=strategy: sk_calibration.calibration_curve(
                     y, prob, n_bins=10, strategy=strategy))],
               curve_check)
        name = f"ECE(n_bins=10, strategy={strategy})"
        b.pair(f"probabilities: {name}",
               lambda name=name: b.ns.probabilities("label", "prob", by="model", metrics=[name]),
               [("calibration_curve + bin counts, ECE in NumPy",
                 lambda y, pred, prob, w, strategy=strategy: _ece(y, prob, strategy))],
               _check_values(b, name))


def curves(b: Bench) -> None:
    def det_check(ours: Any, theirs: list[Any]) -> None:
        for part, (fpr, fnr, thresholds) in zip(b.by_model(ours), theirs[0], strict=True):
            part = part.sort("threshold")
            _agree("det threshold", part["threshold"].to_numpy(), thresholds)
            _agree("det fpr", part["fpr"].to_numpy(), fpr)
            _agree("det fnr", part["fnr"].to_numpy(), fnr)

    b.pair("det_curve", lambda: b.ns.det_curve("label", "prob", by="model"),
           [("det_curve", lambda y, pred, prob, w: metrics.det_curve(y, prob))], det_check)

    def roc_check(ours: Any, theirs: list[Any]) -> None:
        for part, (fpr, tpr, thresholds) in zip(b.by_model(ours), theirs[0], strict=True):
            part = part.sort("threshold", descending=True)
            _agree("roc threshold", part["threshold"].to_numpy(), thresholds[1:])
            _agree("roc fpr", part["fpr"].to_numpy(), fpr[1:])
            _agree("roc tpr", part["tpr"].to_numpy(), tpr[1:])

    b.pair("roc(weight=w)", lambda: b.ns.roc("label", "prob", by="model", weight="w"),
           [("roc_curve(sample_weight, drop_intermediate=False)",
             lambda y, pred, prob, w: metrics.roc_curve(y, prob, sample_weight=w, drop_intermediate=False))],
           roc_check)

    def pr_check(ours: Any, theirs: list[Any]) -> None:
        for part, (precision, recall, thresholds) in zip(b.by_model(ours), theirs[0], strict=True):
            part = part.sort("threshold")
            _agree("pr threshold", part["threshold"].to_numpy(), thresholds)
            _agree("pr precision", part["precision"].to_numpy(), precision[:-1])
            _agree("pr recall", part["recall"].to_numpy(), recall[:-1])

    b.pair("pr_curve(weight=w)", lambda: b.ns.pr_curve("label", "prob", by="model", weight="w"),
           [("precision_recall_curve(sample_weight, drop_intermediate=False)",
             lambda y, pred, prob, w: metrics.precision_recall_curve(
                 y, prob, sample_weight=w, drop_intermediate=False))],
           pr_check)


def confusion(b: Bench) -> None:
    def cells_check(ours: Any, theirs: list[Any]) -> None:
        ours = ours.sort("model")
        for i, cell in enumerate(["tn", "fp", "fn", "tp"]):
            _agree(f"weighted {cell}", ours[cell].to_numpy(), [m.ravel()[i] for m in theirs[0]])

    step = ("confusion_matrix(sample_weight)",
            lambda y, pred, prob, w: metrics.confusion_matrix(y, pred, sample_weight=w))
    b.pair("confusion(weight=w)", lambda: b.ns.confusion("label", "pred", by="model", weight="w"), [step],
           cells_check)

    def matrix_check(ours: Any, theirs: list[Any]) -> None:
        ours = ours.sort("model", "actual", "predicted")["count"].to_numpy()
        _agree("weighted confusion_matrix", ours, np.concatenate([m.ravel() for m in theirs[0]]))

    b.pair("confusion_matrix(weight=w)",
           lambda: b.ns.confusion_matrix("label", "pred", by="model", weight="w"), [step], matrix_check)


def confusion_steps(b: Bench) -> None:
    """The weighted counts' steps one at a time (median of 3), on the rows the calls see: what each
    costs of the calls above, and the floor the cells' group-by stands on."""
    from frame_eval import _checks
    from frame_eval.classification import exact_weights, frame_checks

    print("steps of confusion(weight=w) / confusion_matrix(weight=w):")
    labels, _, problems = frame_checks._labels(b.preds.lazy(), "label", "pred", ["model"], "w")
    checks = _checks.Counted.of(problems).row
    rows = labels.collect()
    weights = rows.get_column(frame_checks._WEIGHT)
    actual, predicted = pl.col(frame_checks._ACTUAL), pl.col(frame_checks._PREDICTED)
    cell = (actual.cast(pl.UInt8) * 2 + predicted.cast(pl.UInt8)).alias("__fe_cell")  # (as _cell_groups)
    cells = rows.lazy().group_by("model", cell).agg(pl.col(weights.name).sum())  # (also for older code)
    models = rows.lazy().group_by("model").agg(pl.len())
    for label, step in (
        ("  the data checks (nulls of the keys and labels, the weights')", lambda: checks.collect()),
        ("  the weights' exactness test (exact_sums)", lambda: exact_weights.exact_sums(weights)),
        ("  the cells' group-by, weights added as they come", lambda: cells.collect(engine="streaming")),
        ("  floor: group_by(model) len, streaming", lambda: models.collect(engine="streaming")),
    ):
        _timed(label, step)


def thresholds(b: Bench, loops: bool = False) -> None:
    metrics_ = ["precision", "recall", "F1"]

    def check(ours: Any, theirs: list[Any]) -> None:
        ours = ours.sort("model", "threshold")
        for out in theirs:
            _agree("rates at thresholds", ours.select(metrics_).to_numpy(), np.concatenate(out))

    label = "rates(score=prob, thresholds=[0, 0.1, ..., 1]): precision, recall, F1"
    run = lambda: b.ns.rates("label", score="prob", by="model", thresholds=THRESHOLDS,  # noqa: E731
                             metrics=metrics_, shape="wide")
    b.pair(label, run, [("roc_curve, read at the thresholds (searchsorted)",
                         lambda y, pred, prob, w: _at_thresholds(y, prob))], check)
    if loops:
        b.pair(label, run, [("confusion_matrix(y, prob >= t) per threshold",
                             lambda y, pred, prob, w: _at_thresholds_loops(y, prob))], check)


def best_threshold(b: Bench) -> None:
    forms = [
        ("weights=(1, 2)", {"weights": (1, 2)}, _weighted),
        ("costs=(1, 5)", {"costs": (1, 5)}, _costs),
        ("specificity, min_recall=0.9", {"criterion": "specificity", "min_recall": 0.9}, _min_recall),
        ("f1, max_fpr=0.1", {"criterion": "f1", "max_fpr": 0.1}, _max_fpr),
    ]
    for name, options, select in forms:
        b.pair(f"best_threshold({name})",
               lambda options=options: b.ns.best_threshold("label", "prob", by="model", **options),
               [("roc_curve + the selection in NumPy",
                 lambda y, pred, prob, w, select=select: select(y, prob))],
               lambda ours, theirs, name=name: _best_rows(b, ours, theirs[0], name))


def floors(b: Bench) -> None:
    """Plain polars steps over the same rows, no checks: what a call that reads them cannot go below."""
    frame = b.preds
    _timed("group_by(model): sum of prob, sum of label", lambda: frame.group_by("model").agg(
        pl.col("prob").sum(), pl.col("label").sum()))
    _timed("group_by(model): prob sorted within each model", lambda: frame.group_by("model").agg(
        pl.col("prob").sort()))
    keys = pl.Series(np.random.default_rng(0).integers(0, 2**63, frame.height, dtype=np.uint64))
    keys = keys.cast(pl.UInt128) * pl.Series([1 << 65], dtype=pl.UInt128)
    _timed(f"Series.sort of {frame.height:,} UInt128 values", lambda: keys.sort(descending=True))
    _timed("  the same sort, then its runs of equal values (rle)", lambda: keys.sort(descending=True).rle())
    # what a curve call hands back: one row per distinct score of each model, its rates from its counts
    counts = ("tp", "fp", "fn", "tn")
    points = b.ns.roc("label", "prob", by="model", weight="w").select("model", "threshold", *counts)
    tp, fp, fn, tn = (pl.col(c) for c in counts)
    rates = [(tp / (tp + fn)).alias("tpr"), (fp / (fp + tn)).alias("fpr"),
             (tp / (tp + fp)).alias("precision")]
    _timed(f"the curve frame's rates from its counts ({points.height:,} points, roc(weight=w))",
           lambda: points.lazy().select(pl.all(), *rates).collect())
    # A sum that needs no sort to be the same in any row order: the exact sum, rounded once (as math.fsum
    # rounds). Each double is m * 2^e; integer sums of m per (model, e), in two halves so they cannot
    # overflow, are exact in any order; Python's big integers then add each model's few dozen parts.
    eps = sys.float_info.epsilon
    p, q = pl.col("prob").clip(eps, 1.0 - eps), (1.0 - pl.col("prob")).clip(eps, 1.0 - eps)
    term = pl.when(pl.col("label")).then(-p.log()).otherwise(-q.log())
    exact = _exact_sums(frame, "model", term)
    _timed("log-loss terms: exact sum per model, rounded once (no sort)",
           lambda: _exact_sums(frame, "model", term))
    listed = frame.select("model", term.alias("t")).group_by("model").agg("t")
    fsums = {model: math.fsum(terms) for model, terms in listed.iter_rows()}
    assert exact == fsums, "the exact sums differ from math.fsum's"


def _exact_sums(frame: pl.DataFrame, by: str, term: pl.Expr) -> dict[object, float]:
    u64 = pl.UInt64
    bits = term.reinterpret(dtype=u64)
    exponent = (bits // pl.lit(1 << 52, u64)) % pl.lit(2048, u64)
    mantissa = bits % pl.lit(1 << 52, u64) + pl.when(exponent > 0).then(pl.lit(1 << 52, u64)).otherwise(
        pl.lit(0, u64))
    sign = pl.when(bits >= pl.lit(1 << 63, u64)).then(-1).otherwise(1)
    high = (mantissa // pl.lit(1 << 26, u64)).cast(pl.Int64)
    low = (mantissa % pl.lit(1 << 26, u64)).cast(pl.Int64)
    parts = frame.lazy().group_by(by, exponent.alias("e")).agg(
        (sign * high).sum().alias("high"), (sign * low).sum().alias("low")
    ).collect()
    totals: dict[object, int] = {}
    for key, e, h, lo in parts.iter_rows():  # (finite terms only: exponent 2047 is inf or NaN)
        totals[key] = totals.get(key, 0) + (((h << 26) + lo) << max(e, 1))
    return {key: total / (1 << 1075) for key, total in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=Path(__file__).parent / "data" / "10M")
    parser.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS),
                        help="the groups of lines to run (default: all)")
    parser.add_argument("--sklearn-loops", action="store_true",
                        help="also time confusion_matrix per threshold per model (about 10 s)")
    parser.add_argument("--steps", action="store_true",
                        help="with the confusion group, also time its calls' steps one at a time")
    args = parser.parse_args()
    bench = Bench(args.data)
    for group in args.only:
        print(f"== {group}: frame_eval on all 100 models (median of 3), scikit-learn per model (one pass)")
        if group == "thresholds":
            thresholds(bench, loops=args.sklearn_loops)
        else:
            globals()[group](bench)
        if group == "confusion" and args.steps:
            confusion_steps(bench)
    print("== ratios (scikit-learn per model / frame_eval), wall and CPU:")
    for label, wall, cpu in bench.ratios:
        print(f"{label:72s} {wall:5.1f}x {cpu:5.1f}x{'' if wall >= 10 else '  < 10x'}")


if __name__ == "__main__":
    main()
