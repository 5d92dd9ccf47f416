"""fe.dask gives the polars results exactly (``==``), lazily, with the same errors."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import engine_cases as cases
import polars as pl
import pytest
from engine_cases import all_trec, assert_same, every_ranking, prediction_case, ranking_case

import frame_eval as fe
from frame_eval.pandas_ns import pandas_message

dd = pytest.importorskip("dask.dataframe", reason='Dask is not installed (pip install "frame-eval[dask]")')


def _dask(frame: pl.DataFrame, partitions: int = 3) -> Any:
    return dd.from_pandas(frame.to_pandas(), npartitions=partitions)


def _polars(frame: Any) -> pl.DataFrame:
    return pl.from_pandas(frame.compute())


@pytest.fixture(scope="module")
def case() -> tuple[pl.DataFrame, pl.DataFrame, Any, Any]:
    run, qrels = ranking_case(12)
    return run, qrels, _dask(run), _dask(qrels, 2)


@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True, "buckets": 5},
    {"by": "system", "depth": 5, "judged_only": True, "rel": 2},
    {"by": "system", "shape": "wide"},
    {"by": "system", "ties": "pessimistic", "measures": ["AP", "nDCG@10", "P@10", "RR"]},
])
def test_every_all_trec_measure_equals_polars(case: tuple, options: dict[str, Any]) -> None:
    run, qrels, drun, dqrels = case
    options = dict(options)
    measures = options.pop("measures", all_trec())
    ours = _polars(fe.dask.evaluate(drun, dqrels, measures, **options))
    options.pop("buckets", None)
    assert_same(ours, run.ireval.evaluate(qrels, measures, **options))


@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True, "shape": "wide"},
    {"by": "system", "aggregate": "micro", "measures": ["P@10", "R@5", "SetP", "NumRet", "NumRelRet"]},
    {"by": "system", "aggregate": "gmean", "measures": ["AP", "bpref"]},
    {},
])
def test_summaries_have_the_same_bits(case: tuple, options: dict[str, Any]) -> None:
    run, qrels, drun, dqrels = case
    options = dict(options)
    measures = options.pop("measures", all_trec())
    if "by" not in options:
        run = run.filter(pl.col("system") == "s1")
        drun = drun[drun["system"] == "s1"]
    ours = _polars(fe.dask.summarize(drun, dqrels, measures, **options))
    assert_same(ours, run.ireval.summarize(qrels, measures, **options))


def test_judge_and_integer_ids(case: tuple) -> None:
    run, qrels, drun, dqrels = case
    assert_same(_polars(fe.dask.judge(drun, dqrels, by="system")), run.ireval.judge(qrels, by="system"))
    chained = drun.pipe(fe.dask.evaluate_with(dqrels, ["AP"], by="system"))
    assert_same(_polars(chained), run.ireval.evaluate(qrels, ["AP"], by="system"))
    run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int32))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    ours = _polars(fe.dask.evaluate(_dask(run), _dask(qrels), ["AP", "nDCG@10"], by="system", buckets=4))
    assert_same(ours, run.ireval.evaluate(qrels, ["AP", "nDCG@10"], by="system"))


CLASSIFICATION = [
    ("confusion", ("label", "pred"), {}),
    ("confusion", ("kind", "kind_pred"), {}),
    ("rates", ("label", "pred"), {}),
    ("rates", ("kind", "kind_pred"), {"average": "micro"}),
    ("rates", ("label",), {"score": "prob", "thresholds": [0.2, 0.5, 0.8]}),
    ("confusion_matrix", ("kind", "kind_pred"), {}),
    ("roc", ("label", "prob"), {}),
    ("pr_curve", ("label", "prob"), {}),
    ("det_curve", ("label", "prob"), {}),
    ("scores", ("label", "prob"), {}),
    ("best_threshold", ("label", "prob"), {"criterion": "recall", "min_specificity": 0.5}),
    ("classification_report", ("kind", "kind_pred"), {}),
    ("probabilities", ("label", "prob"), {}),
    ("calibration", ("label", "prob"), {"n_bins": 4}),
]


def test_classification_methods_equal_polars() -> None:
    predictions = prediction_case(4)
    frame = _dask(predictions, 4)
    for name, args, options in CLASSIFICATION:
        ours = _polars(getattr(fe.dask, name)(frame, *args, by="model", **options))
        assert_same(ours, getattr(predictions.ireval, name)(*args, by="model", **options))
    assert_same(_polars(fe.dask.rates(frame, "label", "pred")), predictions.ireval.rates("label", "pred"))


def test_data_errors_raise_at_compute_and_schema_errors_at_once(case: tuple) -> None:
    run, qrels, drun, dqrels = case
    nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
    planned = fe.dask.evaluate(_dask(nulls), dqrels, ["AP"], by="system")  # nothing computed yet
    expected = (r"missing values \(None, NaN or pd.NA\) in run column 'score' \(first at row \d+, counting "
                r"from 0\); drop or fill them \[frame_eval on Dask")
    with pytest.raises(ValueError, match=expected):
        planned.compute()
    with pytest.raises(ValueError) as polars_error:
        run.ireval.evaluate(qrels, ["AP"], doc_id="document")
    with pytest.raises(ValueError) as dask_error:
        fe.dask.evaluate(drun, dqrels, ["AP"], doc_id="document")
    assert str(dask_error.value) == str(polars_error.value)
    with pytest.raises(TypeError, match=r"dask\.dataframe\.DataFrame"):
        fe.dask.evaluate(run, dqrels, ["AP"])


def test_nothing_is_computed_before_the_caller_computes(case: tuple) -> None:
    _, _, drun, dqrels = case

    def exploding(part: Any) -> Any:
        if len(part):
            raise RuntimeError("the run was read")
        return part

    poisoned = drun.map_partitions(exploding, meta=drun._meta)
    planned = fe.dask.summarize(poisoned, dqrels, ["AP"], by="system")
    assert list(planned.columns) == ["system", "metric", "value", "num_q"]
    with pytest.raises(RuntimeError, match="the run was read"):
        planned.compute()


def test_buckets_holding_only_unjudged_queries_still_check_their_rows(case: tuple) -> None:
    run, qrels, drun, dqrels = case
    measures = ["AP", "RBP", "RBP_resid", "nDCG@10"]
    ours = _polars(fe.dask.evaluate(drun, dqrels, measures, by="system", buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, measures, by="system"))
    unjudged = run.join(qrels, on="query_id", how="anti")["query_id"][0]
    gone = pl.when(pl.col("query_id") == unjudged).then(None).otherwise(pl.col("score"))
    bad = run.with_columns(score=gone)
    with pytest.raises(ValueError, match="null values in run column 'score'"):
        bad.ireval.evaluate(qrels, measures, by="system")
    with pytest.raises(ValueError, match=r"missing values .* in run column 'score'"):
        fe.dask.evaluate(_dask(bad), dqrels, measures, by="system", buckets=40).compute()


def test_fix_hints_speak_pandas(case: tuple) -> None:
    run, _, _, dqrels = case
    text_scores = _dask(run.with_columns(pl.col("score").cast(pl.String)))
    with pytest.raises(TypeError) as caught:
        fe.dask.evaluate(text_scores, dqrels, ["AP"], by="system")
    assert "pl." not in str(caught.value)
    assert "df['score'].astype('float64')" in str(caught.value)


@pytest.mark.parametrize("options", [
    {"by": "system", "ci": 0.9},
    {"ci": 0.95, "ci_method": "bootstrap", "n_resamples": 300, "seed": 7},
])
def test_summary_intervals_equal_polars(case: tuple, options: dict[str, Any]) -> None:
    pytest.importorskip("scipy", reason='intervals need the [stats] extra (pip install "frame-eval[stats]")')
    run, qrels, drun, dqrels = case
    if "by" not in options:
        run, drun = run.filter(pl.col("system") == "s2"), drun[drun["system"] == "s2"]
    measures = ["AP", "nDCG@10", "P@5", "NumRet", "gm_map"]
    ours = _polars(fe.dask.summarize(drun, dqrels, measures, **options))
    assert_same(ours, run.ireval.summarize(qrels, measures, **options))


def test_strict_checks_the_whole_run_at_compute(case: tuple) -> None:
    run, qrels, drun, dqrels = case
    # most buckets hold queries without judgements, the run as a whole is mostly judged: no error
    ours = _polars(fe.dask.evaluate(drun, dqrels, ["AP", "P@5"], by="system", strict=True, buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, ["AP", "P@5"], by="system", strict=True))
    renamed = run.with_columns(pl.when(pl.col("query_id") != "q1").then(pl.col("query_id") + "x")
                               .otherwise(pl.col("query_id")).alias("query_id"))
    with pytest.raises(ValueError) as polars_error:
        renamed.ireval.summarize(qrels, ["AP"], by="system", strict=True)
    for method in ("evaluate", "summarize", "judge"):
        arguments = () if method == "judge" else (["AP"],)
        planned = getattr(fe.dask, method)(_dask(renamed), dqrels, *arguments, by="system", strict=True)
        with pytest.raises(ValueError) as caught:
            planned.compute()
        assert str(caught.value) == str(polars_error.value)


HANG = """
import polars as pl, dask.dataframe as dd
import frame_eval as fe
from engine_cases import all_trec, ranking_case

run, qrels = ranking_case(12, queries=400)
nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
bad = fe.dask.evaluate(dd.from_pandas(nulls.to_pandas(), npartitions=8),
                       dd.from_pandas(qrels.to_pandas(), npartitions=4), all_trec(), by="system", buckets=40)
for attempt in range(4):
    try:
        bad.compute(scheduler="threads")
    except ValueError:
        pass
    else:
        raise SystemExit("the compute should have failed")
    for _ in range(3):  # the next polars calls, while the failed compute's other tasks may still run
        run.ireval.evaluate(qrels, all_trec(), by="system")
        run.to_pandas(use_pyarrow_extension_array=True)
print("finished")
"""


def test_a_failed_threaded_compute_leaves_polars_usable() -> None:
    """Dask's threaded scheduler raises a compute's first error at once, leaving the tasks it has
    handed to threads running. Those used to convert their results with polars' to_pandas, which
    holds the GIL while it waits for polars' thread pool: with the caller's next frame_eval plan
    (which calls Python) on that pool, both waited forever. In a subprocess, so a hang fails."""
    tests = Path(__file__).parent
    env_path = os.pathsep.join([str(tests.parent), str(tests)])
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(HANG)], capture_output=True, text=True,
                              timeout=240, env={**os.environ, "PYTHONPATH": env_path})
    except subprocess.TimeoutExpired:
        pytest.fail("polars calls after a failed threaded Dask compute hung (deadlock)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("finished")


def test_every_ranking_measure_equals_polars(case: tuple) -> None:
    run, qrels, drun, dqrels = case
    measures = every_ranking()
    assert_same(_polars(fe.dask.evaluate(drun, dqrels, measures, by="system")),
                run.ireval.evaluate(qrels, measures, by="system"))
    assert_same(_polars(fe.dask.summarize(drun, dqrels, measures, by="system", complete=True)),
                run.ireval.summarize(qrels, measures, by="system", complete=True))


def test_bad_qrels_and_predictions_raise_at_compute(case: tuple) -> None:
    run, qrels, drun, _ = case
    predictions = prediction_case(4)
    unlabelled = predictions.with_columns(label=pl.when(pl.col("prob") > 0.9).then(None)
                                          .otherwise(pl.col("label")))
    repeated = pl.concat([qrels, qrels.tail(1)])
    for polars_call, planned in (
        (lambda: run.ireval.evaluate(repeated, ["AP"], by="system"),
         fe.dask.evaluate(drun, _dask(repeated), ["AP"], by="system")),
        (lambda: unlabelled.ireval.rates("label", "pred", by="model"),
         fe.dask.rates(dd.from_pandas(unlabelled.to_pandas(use_pyarrow_extension_array=True), npartitions=4),
                       "label", "pred", by="model")),  # Arrow-backed: the labels stay integers
    ):
        with pytest.raises(ValueError) as polars_error:
            polars_call()
        with pytest.raises(ValueError) as caught:
            planned.compute()
        cases.assert_same_error(str(caught.value), pandas_message(str(polars_error.value)))


OTHER_OPTIONS = [
    {"labels": "as_given", "names": "safe"},
    {"duplicates": "max"},
    {"rel": 2, "collection_size": 500},
    {"partitions": 2, "memory_limit": "1MiB"},
    {"ties": "expected", "measures": ["AP", "nDCG@10", "P@5"]},
    {"query_id": "q", "doc_id": "d.id", "score": "s", "relevance": "r"},
]


@pytest.mark.parametrize("method", ["evaluate", "summarize"])
@pytest.mark.parametrize("options", OTHER_OPTIONS)
def test_the_other_options_equal_polars(case: tuple, method: str, options: dict[str, Any]) -> None:
    run, qrels, _, _ = case
    options = dict(options)
    measures = options.pop("measures", ["map", "ndcg_cut.10", "P@5", "utility", "Rprec"])
    if "duplicates" in options:  # a repeated document with another score: the highest is kept
        run = pl.concat([run, run.head(3).with_columns(pl.col("score") + 0.05)])
    if "query_id" in options:
        run = run.rename({"query_id": "q", "doc_id": "d.id", "score": "s"})
        qrels = qrels.rename({"query_id": "q", "doc_id": "d.id", "relevance": "r"})
    ours = _polars(getattr(fe.dask, method)(_dask(run), _dask(qrels), measures, by="system", **options))
    assert_same(ours, getattr(run.ireval, method)(qrels, measures, by="system", **options))
