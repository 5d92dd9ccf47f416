"""Empty inputs: every method and measure gives an empty (or polars-consistent) result, never a panic.

Each classification method with each of its measures, each ranking method, and
the ``C.*`` expressions, on frames with no rows: eager and lazy (both engines),
polars and pandas, with and without ``by=``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import frame_eval as fe
from frame_eval import classification as C

LABELS = {"int": pl.Int64, "bool": pl.Boolean, "str": pl.String}


def _predictions(kind: str) -> pl.DataFrame:
    label = LABELS[kind]
    return pl.DataFrame(schema={
        "model": pl.String, "y": label, "yhat": label, "s": pl.Float64, "w": pl.Float64,
        "p_a": pl.Float64, "p_b": pl.Float64, "p_c": pl.Float64,
    })


def _multiclass_predictions() -> pl.DataFrame:
    return _predictions("str")


def _rate_names() -> list[str]:
    return list(dict.fromkeys(["TP", "FP", "FN", "TN", "P", "N", "PP", "PN", "total", *C.RATES, "kappa",
                               "F2", "kappa(weights=linear)"]))


_CRITERION_NEEDS: dict[str, dict[str, Any]] = {"weighted": {"weights": (1, 2)}, "cost": {"costs": (1, 3)}}
CLASSIFICATION_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("confusion", ("y", "yhat"), {}),
    ("confusion", ("y", "yhat"), {"weight": "w"}),
    ("rates", ("y", "yhat"), {"metrics": _rate_names()}),
    ("rates", ("y", "yhat"), {"metrics": _rate_names(), "weight": "w", "zero_division": 0}),
    ("rates", ("y", "yhat"), {"metrics": _rate_names(), "shape": "wide"}),
    ("rates", ("y",), {"score": "s", "thresholds": [0.2, 0.5]}),
    ("rates", ("y",), {"score": "s", "thresholds": 3, "weight": "w"}),
    ("confusion_matrix", ("y", "yhat"), {}),
    ("confusion_matrix", ("y", "yhat"), {"weight": "w"}),
    ("classification_report", ("y", "yhat"), {}),
    ("roc", ("y", "s"), {}),
    ("roc", ("y", "s"), {"weight": "w"}),
    ("pr_curve", ("y", "s"), {}),
    ("det_curve", ("y", "s"), {}),
    *[("scores", ("y", "s"), {"metrics": [m]})
      for m in ["ROC_AUC", "average_precision", "PR_AUC", "EER", "best_threshold"]],
    ("scores", ("y", "s"), {}),
    ("scores", ("y", "s"), {"weight": "w"}),
    ("scores", ("y", "s"), {"shape": "wide", "score_range": (0, 1)}),
    *[("best_threshold", ("y", "s"), {"criterion": c, **_CRITERION_NEEDS.get(c, {})}) for c in C.CRITERIA],
    ("best_threshold", ("y", "s"), {"weight": "w"}),
    ("probabilities", ("y", "s"), {"metrics": ["log_loss", "brier", "ECE"]}),
    ("probabilities", ("y", "s"), {"weight": "w"}),
    ("calibration", ("y", "s"), {}),
    ("calibration", ("y", "s"), {"strategy": "quantile"}),
]
AVERAGES = ["macro", "micro", "weighted"]
MULTICLASS_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    *[("rates", ("y", "yhat"), {"average": a, "metrics": _rate_names()}) for a in AVERAGES],
    ("rates", ("y", "yhat"), {"average": "macro", "zero_division": float("nan")}),
    *[("scores", ("y", {"a": "p_a", "b": "p_b", "c": "p_c"}), {"average": a, "metrics": ["ROC_AUC", "AP"]})
      for a in AVERAGES],
    ("scores", ("y", {"a": "p_a", "b": "p_b", "c": "p_c"}), {"average": "macro", "multi_class": "ovo"}),
    ("scores", ("y", {"a": "p_a", "b": "p_b", "c": "p_c"}), {"average": "macro",
                                                             "metrics": ["top_k_accuracy(k=2)"]}),
    ("probabilities", ("y", {"a": "p_a", "b": "p_b", "c": "p_c"}), {"metrics": ["log_loss", "brier"]}),
]


def _case_id(call: tuple[str, tuple[Any, ...], dict[str, Any]]) -> str:
    method, _, options = call
    return f"{method}-{'-'.join(f'{k}={v}' for k, v in options.items() if k != 'metrics')}" + (
        f"-{options['metrics'][0]}" if len(options.get("metrics", [])) == 1 else "")


def _runs(frame: pl.DataFrame, method: str, args: tuple[Any, ...], options: dict[str, Any]) -> None:
    """The call eager, lazy (both engines) and on pandas, with and without by=: same empty frame."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for by in ({}, {"by": "model"}):
            eager = getattr(frame.ireval, method)(*args, **options, **by)
            assert isinstance(eager, pl.DataFrame)
            lazy = getattr(frame.lazy().ireval, method)(*args, **options, **by)
            assert isinstance(lazy, pl.LazyFrame)
            for engine in ("in-memory", "streaming"):
                got = lazy.collect(engine=engine)
                assert got.equals(eager) and got.schema == eager.schema, engine
            if by:  # grouped: no group, no row
                assert eager.height == 0, eager
            if pd is not None and method != "classification_report":
                got = getattr(frame.to_pandas().ireval, method)(*args, **options, **by)
                assert len(got) == eager.height


try:
    import pandas as pd
except ImportError:  # pragma: no cover - pandas is a test dependency
    pd = None


@pytest.mark.parametrize("kind", ["int", "bool", "str"])
@pytest.mark.parametrize("call", CLASSIFICATION_CALLS, ids=_case_id)
def test_every_classification_method_on_an_empty_frame(call: Any, kind: str) -> None:
    method, args, options = call
    if kind == "str" and method not in ("confusion_matrix", "classification_report", "confusion", "rates"):
        options = {**options, "positive": "a"}
    if kind == "str" and method == "rates" and "score" in options:
        options = {**options, "positive": "a"}
    _runs(_predictions(kind), method, args, options)


@pytest.mark.parametrize("call", MULTICLASS_CALLS, ids=_case_id)
def test_every_multiclass_method_on_an_empty_frame(call: Any) -> None:
    method, args, options = call
    _runs(_multiclass_predictions(), method, args, options)


def _expressions(kind: str) -> list[pl.Expr]:
    positive: dict[str, Any] = {"positive": "a"} if kind == "str" else {}
    exprs = []
    for spec in fe.registry.specs("classification"):
        if spec.name in ("top_k_accuracy", "best_threshold"):
            continue
        scored = spec.name in ("ROC_AUC", "average_precision", "PR_AUC", "EER", "log_loss", "brier", "ECE")
        m = fe.registry.measure(spec, None)
        columns = {"actual": "y", "score": "s"} if scored else {"actual": "y", "predicted": "yhat"}
        exprs.append(m.expr(**columns, **positive).alias(spec.name))
    exprs.append(C.best_threshold("y", "s", **positive).alias("best_threshold"))
    exprs.append(C.roc_auc("y", "s", weight="w", **positive).alias("weighted_ROC_AUC"))
    exprs.append(C.equal_error_rate("y", "s", weight="w", **positive).alias("weighted_EER"))
    return exprs


@pytest.mark.parametrize("kind", ["int", "bool", "str"])
def test_every_expression_on_an_empty_frame(kind: str) -> None:
    frame = _predictions(kind)
    for expr in _expressions(kind):
        for plan in (frame.lazy().group_by("model").agg(expr), frame.lazy().select(expr)):
            results = [plan.collect(engine=e) for e in ("in-memory", "streaming")]
            assert results[0].equals(results[1])
            if "model" in results[0].columns:
                assert results[0].height == 0


def _ranking_inputs(ids: type[pl.DataType]) -> tuple[pl.DataFrame, pl.DataFrame]:
    run = pl.DataFrame(schema={"system": pl.String, "query_id": ids, "doc_id": ids, "score": pl.Float64})
    qrels = pl.DataFrame(schema={"query_id": ids, "doc_id": ids, "relevance": pl.Int64})
    return run, qrels


def _ranking_measures() -> list[Any]:
    measures: list[Any] = ["all_trec", "AP(interpolation=11pt)", "nCG@5", "SE", "yaap", "nDCG(gain=exp)@10"]
    for spec in fe.registry.specs("ranking"):
        if spec.name.startswith("prefs_") or spec.name.endswith("_avgjg"):  # other judgement files
            continue
        cutoff = None if spec.cutoff != "required" else (5 if spec.cutoff_type is int else 0.5)
        measures.append(fe.registry.measure(spec, cutoff))
    return measures


RANKING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("judge", {}),
    ("judge", {"judged_only": True}),
    ("evaluate", {"measures": _ranking_measures()}),
    ("evaluate", {"measures": _ranking_measures(), "shape": "wide", "complete": True}),
    ("evaluate", {"measures": ["AP", "P@5"], "depth": 10, "judged_only": True}),
    ("summarize", {"measures": _ranking_measures()}),
    ("summarize", {"measures": ["P@5", "R@10", "NumRet"], "aggregate": "micro", "shape": "wide"}),
    ("summarize", {"measures": ["AP", "gm_map"], "aggregate": "gmean"}),
    ("ranking_curve", {}),
    ("ranking_curve", {"interpolated": True}),
    ("ranking_curve", {"interpolated": True, "average": True}),
    ("evaluate", {"measures": ["AP", "nDCG@10"], "partitions": 3}),
]


@pytest.mark.parametrize("ids", [pl.String, pl.Int64, pl.Categorical])
@pytest.mark.parametrize("call", RANKING_CALLS, ids=lambda c: "-".join([c[0], *c[1]]))
def test_every_ranking_method_on_empty_inputs(call: tuple[str, dict[str, Any]], ids: Any) -> None:
    method, options = call
    run, qrels = _ranking_inputs(ids)
    options = dict(options)
    measures = options.pop("measures", None)
    args: tuple[Any, ...] = (qrels,) if measures is None else (qrels, measures)
    lazy_args: tuple[Any, ...] = (qrels.lazy(),) if measures is None else (qrels.lazy(), measures)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for by in ({}, {"by": "system"}):
            eager = getattr(run.ireval, method)(*args, **options, **by)
            lazy = getattr(run.lazy().ireval, method)(*lazy_args, **options, **by)
            for engine in ("in-memory", "streaming"):
                got = lazy.collect(engine=engine)
                assert got.equals(eager) and got.schema == eager.schema, engine
            if method != "summarize" and not (method == "ranking_curve" and options.get("average")):
                assert eager.height == 0
            if pd is not None:
                got = getattr(run.to_pandas().ireval, method)(
                    qrels.to_pandas(), *args[1:], **options, **by)
                assert len(got) == eager.height


def test_empty_run_against_nonempty_qrels_and_back() -> None:
    run, qrels = _ranking_inputs(pl.String)
    full_run = pl.DataFrame({"system": ["s"], "query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    full_qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "relevance": [1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for r, q in ((run, full_qrels), (full_run, qrels)):
            assert r.ireval.evaluate(q, ["AP", "nDCG@10"], by="system").height == 0
            summary = r.lazy().ireval.summarize(q.lazy(), ["AP"], by="system")
            assert summary.collect(engine="streaming").equals(r.ireval.summarize(q, ["AP"], by="system"))
        completed = run.ireval.evaluate(full_qrels, ["AP", "P@5"], complete=True)
        assert completed["value"].to_list() == [0.0, 0.0]


def test_compare_on_an_empty_per_query_frame() -> None:
    per_query = pl.DataFrame(schema={"system": pl.String, "query_id": pl.String, "metric": pl.String,
                                     "value": pl.Float64})
    for frame in (per_query, per_query.lazy()):
        result: Callable[[], Any] = lambda frame=frame: frame.ireval.compare()  # noqa: E731
        try:
            got = result()
        except (ValueError, TypeError):
            continue  # a clean error is fine here: nothing to compare
        if isinstance(got, pl.LazyFrame):
            got = got.collect()
        assert got.height == 0
