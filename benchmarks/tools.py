"""One benchmark tool per function, each timed from the Parquet files to per-query results.

Run as ``python benchmarks/tools.py TOOL DATA_DIR OUT`` (the harness does): it
imports what the tool needs, starts the clock, reads the Parquet files, converts
them to whatever the tool wants, evaluates, stops the clock, then writes the
per-query values in one common shape (``[query_id, AP, nDCG@10, P@10, RR, R@100]``
or, for classification, ``[model, metric, value]``) to ``OUT`` for the agreement
check and prints ``{"seconds": ..., "cpu_seconds": ..., "peak_mb": ...}`` as the last line of its
output (``cpu_seconds``: the process's user and system CPU time over the same span, steadier than
wall time on a shared machine; peak resident memory of the whole process, interpreter and imports
included).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]
CLASSIFICATION_METRICS = ["tp", "fp", "fn", "tn", "precision", "recall", "F1", "accuracy", "ROC_AUC", "AP"]


# --------------------------------------------------------------------------- ranking


def _frame_eval(data: Path, lazy: bool, engine: str = "auto") -> Callable[[], pl.DataFrame]:
    import frame_eval  # noqa: F401  (registers .ireval)

    def go() -> pl.DataFrame:
        if lazy:
            run = pl.scan_parquet(data / "run.parquet")
            qrels = pl.scan_parquet(data / "qrels.parquet")
            return run.ireval.evaluate(qrels, MEASURES, shape="wide").collect(engine=engine)
        run = pl.read_parquet(data / "run.parquet")
        qrels = pl.read_parquet(data / "qrels.parquet")
        return run.ireval.evaluate(qrels, MEASURES, shape="wide")

    return go


def _frame_eval_partitioned(data: Path) -> Callable[[], pl.DataFrame]:
    """``evaluate`` from ``scan_parquet`` with the default partitioning (``partitions=None``: the
    number of query ranges chosen from the Parquet metadata and the machine's memory);
    ``FRAME_EVAL_PARTITIONS`` / ``FRAME_EVAL_MEMORY_LIMIT`` in the environment set them (a
    revision without them, timed by ``compare.py``, evaluates in one plan)."""
    import inspect

    import frame_eval  # noqa: F401  (registers .ireval)
    from frame_eval.polars_ns import IREvalNamespace

    options: dict[str, Any] = {}
    if os.environ.get("FRAME_EVAL_PARTITIONS"):
        options["partitions"] = int(os.environ["FRAME_EVAL_PARTITIONS"])
    if os.environ.get("FRAME_EVAL_MEMORY_LIMIT"):
        options["memory_limit"] = os.environ["FRAME_EVAL_MEMORY_LIMIT"]
    if "partitions" not in inspect.signature(IREvalNamespace.evaluate).parameters:
        options = {}

    def go() -> pl.DataFrame:
        run = pl.scan_parquet(data / "run.parquet")
        qrels = pl.scan_parquet(data / "qrels.parquet")
        result = run.ireval.evaluate(qrels, MEASURES, shape="wide", **options)
        return result.collect(engine="streaming")

    return go


def _polars_floor(data: Path) -> Callable[[], pl.DataFrame]:
    """What a polars user would write by hand for these five measures (trec_eval semantics)."""

    def go() -> pl.DataFrame:
        run = pl.read_parquet(data / "run.parquet")
        qrels = pl.read_parquet(data / "qrels.parquet")
        # trec_eval compares scores as C floats, hence the Float32 sort key
        key = pl.col("score").cast(pl.Float32)
        order = [pl.col("query_id"), key, pl.col("doc_id")]
        ranked = run.sort(order, descending=[False, True, True]).with_columns(
            rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("query_id")
        )
        ideal = (
            qrels.filter(pl.col("relevance") > 0)
            .sort(["query_id", "relevance"], descending=[False, True])
            .group_by("query_id", maintain_order=True)
            .agg(
                num_rel=pl.len(),
                idcg=(
                    pl.col("relevance").head(10)
                    / (pl.int_range(2, pl.len() + 2).head(10).cast(pl.Float64)).log(2)
                ).sum(),
            )
        )
        rel = pl.col("relevance")
        hit = rel > 0
        rank = pl.col("rank")
        return (
            ranked.join(qrels, on=["query_id", "doc_id"], how="left")
            .join(ideal, on="query_id", how="inner")
            .group_by("query_id")
            .agg(
                (pl.when(hit).then(hit.cum_sum() / rank).otherwise(0.0).sum() / pl.col("num_rel").first())
                .alias("AP"),
                ((rel.filter(rank <= 10) / (rank.filter(rank <= 10) + 1).log(2)).sum()
                 / pl.col("idcg").first()).alias("nDCG@10"),
                (hit.filter(rank <= 10).sum() / 10).alias("P@10"),
                (1 / rank.filter(hit).min()).fill_null(0.0).alias("RR"),
                (hit.filter(rank <= 100).sum() / pl.col("num_rel").first()).alias("R@100"),
            )
        )

    return go


def _trec_dicts(data: Path) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """Run and qrels as the nested dicts pytrec_eval and friends take, built as fast as polars allows."""
    run = pl.read_parquet(data / "run.parquet").group_by("query_id").agg("doc_id", "score")
    qrels = pl.read_parquet(data / "qrels.parquet").group_by("query_id").agg("doc_id", "relevance")
    run_d = {q: dict(zip(d, s, strict=True)) for q, d, s in run.iter_rows()}
    qrels_d = {q: dict(zip(d, r, strict=True)) for q, d, r in qrels.iter_rows()}
    return run_d, qrels_d


def _pytrec_eval(data: Path) -> Callable[[], Any]:
    import pytrec_eval

    names = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recip_rank": "RR", "recall_100": "R@100"}

    def go() -> Any:
        run, qrels = _trec_dicts(data)
        measures = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.100"}
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        return {q: {names[k]: v for k, v in m.items() if k in names} for q, m in per_query.items()}

    return go


def _ranx(data: Path) -> Callable[[], Any]:
    from ranx import Qrels, Run, evaluate

    metrics = {"map": "AP", "ndcg@10": "nDCG@10", "precision@10": "P@10", "mrr": "RR", "recall@100": "R@100"}

    def go() -> Any:
        # ranx wants pandas object columns for ids and int64 judgements
        ids = {"query_id": object, "doc_id": object}
        qrels_pd = pl.read_parquet(data / "qrels.parquet").to_pandas().astype({**ids, "relevance": "int64"})
        run_pd = pl.read_parquet(data / "run.parquet").to_pandas().astype(ids)
        qrels = Qrels.from_df(qrels_pd, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
        run = Run.from_df(run_pd, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
        evaluate(qrels, run, list(metrics), return_mean=False)
        return {metrics[m]: dict(run.scores[m]) for m in metrics}

    return go


def _ir_measures(data: Path) -> Callable[[], Any]:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    measures = [AP, nDCG @ 10, P @ 10, RR, R @ 100]

    def go() -> Any:
        run = pl.read_parquet(data / "run.parquet").to_pandas()
        qrels = pl.read_parquet(data / "qrels.parquet").to_pandas()
        return [(m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc(measures, qrels, run)]

    return go


def _to_wide(tool: str, result: Any) -> pl.DataFrame:
    """Each tool's native result as ``[query_id, AP, nDCG@10, P@10, RR, R@100]``."""
    if isinstance(result, pl.DataFrame):
        return result.select("query_id", *MEASURES)
    if tool == "pytrec_eval":
        return pl.DataFrame(
            [{"query_id": q, **m} for q, m in result.items()]
        ).select("query_id", *MEASURES)
    if tool == "ranx":
        frames = [
            pl.DataFrame({"query_id": list(v), name: list(v.values())}, schema_overrides={name: pl.Float64})
            for name, v in result.items()
        ]
        out = frames[0]
        for f in frames[1:]:
            out = out.join(f, on="query_id")
        return out.select("query_id", *MEASURES)
    if tool == "ir_measures":
        long = pl.DataFrame(result, schema=["query_id", "metric", "value"], orient="row")
        return long.pivot("metric", index="query_id", values="value").select("query_id", *MEASURES)
    raise ValueError(tool)


# --------------------------------------------------------------------------- classification


def _frame_eval_classification(data: Path) -> Callable[[], pl.DataFrame]:
    import frame_eval  # noqa: F401  (registers .ireval)

    def go() -> pl.DataFrame:
        preds = pl.read_parquet(data / "predictions.parquet")
        counts_and_rates = ["TP", "FP", "FN", "TN", "precision", "recall", "F1", "accuracy"]
        rates = preds.ireval.rates("label", "pred", by="model", metrics=counts_and_rates)
        scores = preds.ireval.scores("label", "prob", by="model", metrics=["ROC_AUC", "AP"])
        wide = pl.concat([rates, scores]).pivot("metric", index="model", values="value")
        names = {"TP": "tp", "FP": "fp", "FN": "fn", "TN": "tn", "average_precision": "AP"}
        return wide.rename(names)

    return go


def _sklearn_classification(data: Path) -> Callable[[], Any]:
    from sklearn import metrics

    def go() -> Any:
        preds = pl.read_parquet(data / "predictions.parquet")
        rows = []
        for (model,), part in preds.partition_by("model", as_dict=True).items():
            y, pred, prob = part["label"].to_numpy(), part["pred"].to_numpy(), part["prob"].to_numpy()
            tn, fp, fn, tp = metrics.confusion_matrix(y, pred, labels=[False, True]).ravel()
            precision, recall, f1, _ = metrics.precision_recall_fscore_support(
                y, pred, average="binary", pos_label=True, zero_division=math.nan
            )
            rows.append({
                "model": model, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
                "precision": precision, "recall": recall, "F1": f1,
                "accuracy": metrics.accuracy_score(y, pred),
                "ROC_AUC": metrics.roc_auc_score(y, prob),
                "AP": metrics.average_precision_score(y, prob),
            })
        return rows

    return go


# issue 13's measures on the same predictions: sample weights (a quarter of them 0), Cohen's kappa and
# the most sensitive threshold with specificity at least 0.9; the weights come from the scores, the same
# bits on both sides: floor(1000 prob) mod 4, times 1/4
ADDED_METRICS = ["w_precision", "w_recall", "w_F1", "w_ROC_AUC", "w_AP", "kappa", "best_threshold"]


def _frame_eval_added(data: Path) -> Callable[[], pl.DataFrame]:
    import frame_eval  # noqa: F401  (registers .ireval)

    def go() -> pl.DataFrame:
        preds = pl.read_parquet(data / "predictions.parquet")
        preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias("w"))
        rates = preds.ireval.rates(
            "label", "pred", by="model", metrics=["precision", "recall", "F1"], weight="w"
        )
        scores = preds.ireval.scores("label", "prob", by="model", metrics=["ROC_AUC", "AP"], weight="w")
        kappa = preds.ireval.rates("label", "pred", by="model", metrics=["kappa"])
        best = preds.ireval.best_threshold(
            "label", "prob", by="model", criterion="recall", min_specificity=0.9
        )
        wide = pl.concat([rates, scores]).pivot("metric", index="model", values="value")
        wide = wide.rename({"precision": "w_precision", "recall": "w_recall", "F1": "w_F1",
                            "ROC_AUC": "w_ROC_AUC", "average_precision": "w_AP"})
        wide = wide.join(kappa.select("model", pl.col("value").alias("kappa")), on="model")
        return wide.join(best.select("model", pl.col("threshold").alias("best_threshold")), on="model")

    return go


def _sklearn_added(data: Path) -> Callable[[], Any]:
    import numpy as np
    from sklearn import metrics

    def go() -> Any:
        preds = pl.read_parquet(data / "predictions.parquet")
        rows = []
        for (model,), part in preds.partition_by("model", as_dict=True).items():
            y, pred, prob = part["label"].to_numpy(), part["pred"].to_numpy(), part["prob"].to_numpy()
            w = (np.floor(prob * 1000.0) % 4.0) * 0.25
            precision, recall, f1, _ = metrics.precision_recall_fscore_support(
                y, pred, average="binary", pos_label=True, zero_division=math.nan, sample_weight=w
            )
            fpr, tpr, thresholds = metrics.roc_curve(y, prob, drop_intermediate=False)
            negatives = int((~y).sum())
            fp = np.rint(fpr * negatives).astype(np.int64)  # the counts back from the rates (exact)
            allowed = (negatives - fp) * 10 >= 9 * negatives  # specificity >= 9/10, in integers
            best = tpr[allowed].max()
            rows.append({
                "model": model, "w_precision": precision, "w_recall": recall, "w_F1": f1,
                "w_ROC_AUC": metrics.roc_auc_score(y, prob, sample_weight=w),
                "w_AP": metrics.average_precision_score(y, prob, sample_weight=w),
                "kappa": metrics.cohen_kappa_score(y, pred),
                "best_threshold": thresholds[allowed & (tpr == best)].max(),
            })
        return rows

    return go


def _classification_long(result: Any) -> pl.DataFrame:
    frame = result if isinstance(result, pl.DataFrame) else pl.DataFrame(result)
    frame = frame.with_columns(pl.exclude("model").cast(pl.Float64))
    return frame.unpivot(index="model", variable_name="metric", value_name="value").sort("model", "metric")


# --------------------------------------------------------------------------- entry point


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM: since exec, so not the parent's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource  # not Linux: ru_maxrss (kB on most systems)

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

RANKING_TOOLS: dict[str, Callable[[Path], Callable[[], Any]]] = {
    "frame_eval": lambda d: _frame_eval(d, lazy=False),
    "frame_eval_lazy": lambda d: _frame_eval(d, lazy=True, engine="in-memory"),
    "frame_eval_streaming": lambda d: _frame_eval(d, lazy=True, engine="streaming"),
    "frame_eval_partitioned": _frame_eval_partitioned,
    "polars_floor": _polars_floor,
    "pytrec_eval": _pytrec_eval,
    "ranx": _ranx,
    "ir_measures": _ir_measures,
}
CLASSIFICATION_TOOLS: dict[str, Callable[[Path], Callable[[], Any]]] = {
    "frame_eval_classification": _frame_eval_classification,
    "sklearn_per_group": _sklearn_classification,
    "frame_eval_added": _frame_eval_added,
    "sklearn_added_per_group": _sklearn_added,
}


def main(argv: list[str]) -> None:
    tool, data, out = argv[0], Path(argv[1]), Path(argv[2])
    factory = RANKING_TOOLS.get(tool) or CLASSIFICATION_TOOLS[tool]
    go = factory(data)  # imports happen here, outside the clock
    start, cpu_start = time.perf_counter(), time.process_time()
    result = go()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    table = _classification_long(result) if tool in CLASSIFICATION_TOOLS else _to_wide(tool, result)
    table.sort(table.columns[0]).write_parquet(out)
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "peak_mb": _peak_mb()}))


if __name__ == "__main__":
    main(sys.argv[1:])
