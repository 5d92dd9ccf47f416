"""``by=`` names that clash with frame_eval's own columns: a result with the column, or one clean error.

Every classification and ranking method is called with ``by=`` set to each
name frame_eval makes on the way (``_m0``, a measure's name, the internal
prefixes, the counts of a curve), to an output column and to a repeated
name. Each call must either give a result whose ``by`` column holds the
caller's values, or raise one ``ValueError`` naming the column; never a
polars error.
"""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl
import pytest

import frame_eval  # noqa: F401

NAMES = [
    "_m0", "_m1", "EER", "ROC_AUC", "average_precision", "PR_AUC", "best_threshold", "_P", "_N", "_n", "_k",
    "tp", "fp", "fn", "tn", "total", "threshold", "class", "bin", "count", "metric", "value", "actual",
    "predicted", "_row0", "_pos0", "__fe_group", "__fe_positive", "__fe_score", "__frame_eval_weight",
    "__frame_eval_x", "precision", "recall", "support", "f1-score", "num_q", "num_ret", "query_id",
    "rank", "_row", "_label", "log_loss", "brier", "mean_predicted", "fraction_positive", "fpr_probit",
]

CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("confusion", ("y", "yhat"), {}),
    ("rates", ("y", "yhat"), {}),
    ("rates", ("y", "yhat"), {"shape": "wide"}),
    ("rates", ("y",), {"score": "s", "thresholds": [0.5]}),
    ("rates", ("lab", "labhat"), {"average": "macro"}),
    ("rates", ("lab", "labhat"), {}),
    ("confusion_matrix", ("y", "yhat"), {}),
    ("classification_report", ("y", "yhat"), {}),
    ("roc", ("y", "s"), {}),
    ("det_curve", ("y", "s"), {}),
    ("scores", ("y", "s"), {}),
    ("scores", ("y", "s"), {"metrics": ["ROC_AUC", "best_threshold", "EER"], "weight": "w"}),
    ("scores", ("y", "s"), {"shape": "wide"}),
    ("scores", ("lab", {"a": "p_a", "b": "p_b"}), {"average": "macro"}),
    ("scores", ("lab", {"a": "p_a", "b": "p_b"}), {}),
    ("best_threshold", ("y", "s"), {}),
    ("probabilities", ("y", "s"), {"metrics": ["log_loss", "brier", "ECE"]}),
    ("probabilities", ("lab", {"a": "p_a", "b": "p_b"}), {}),
    ("calibration", ("y", "s"), {}),
]


def _predictions(by: str) -> pl.DataFrame:
    frame = pl.DataFrame({
        "y": [1, 0, 1, 0, 1, 0], "yhat": [1, 1, 0, 0, 1, 0], "s": [0.9, 0.8, 0.3, 0.1, 0.6, 0.4],
        "w": [1.0, 2.0, 1.0, 1.0, 0.5, 1.0], "lab": list("aabbab"), "labhat": list("abbbaa"),
        "p_a": [0.7, 0.6, 0.2, 0.1, 0.5, 0.4],
    }).with_columns(p_b=1.0 - pl.col("p_a"))
    if by in frame.columns:
        return frame
    return frame.with_columns(pl.Series(by, ["g1", "g2"] * 3))


def _clean(call: Any, by: Any) -> pl.DataFrame | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            result = call()
            return result.collect() if isinstance(result, pl.LazyFrame) else result
    except (ValueError, TypeError) as error:
        assert type(error) in (ValueError, TypeError), repr(error)
        names = [by] if isinstance(by, str) else by
        assert any(repr(n) in str(error) for n in names), str(error)
        return None


@pytest.mark.parametrize("call", CALLS, ids=lambda c: f"{c[0]}-{'-'.join(map(str, c[2]))}")
def test_classification_by_names(call: tuple[str, tuple[Any, ...], dict[str, Any]]) -> None:
    method, args, options = call
    for by in [*NAMES, ["g", "g"]]:
        column = by if isinstance(by, str) else by[0]
        frame = _predictions(column)
        for source in (frame, frame.lazy()):
            call = getattr(source.ireval, method)
            result = _clean(lambda call=call, by=by: call(*args, **options, by=by), by)
            if result is not None and column not in args and column not in options.values():
                assert set(result[column].to_list()) <= {"g1", "g2"}, (by, result)


RUN = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "score": [1.0, 0.5, 0.3]})
QRELS = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 1]})


@pytest.mark.parametrize("method", ["judge", "evaluate", "summarize", "ranking_curve"])
def test_ranking_by_names(method: str) -> None:
    for by in [*NAMES, ["g", "g"]]:
        column = by if isinstance(by, str) else by[0]
        run = RUN if column in RUN.columns else RUN.with_columns(pl.Series(column, ["g1", "g1", "g2"]))
        for source, qrels in ((run, QRELS), (run.lazy(), QRELS.lazy())):
            call = getattr(source.ireval, method)
            result = _clean(lambda call=call, qrels=qrels, by=by: call(qrels, by=by), by)
            if result is not None:
                assert set(result[column].to_list()) <= {"g1", "g2"}, (by, result)
