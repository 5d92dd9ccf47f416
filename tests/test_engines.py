"""fe.spark and fe.dask give the polars results exactly (``==``), lazily, with the same errors.

Every test here runs on both engines (the ``engine`` fixture, :class:`engine_cases.Engine`); each
skips with the reason when its engine is missing (Spark: PySpark or Java, except under CI; Dask:
the package). What only one engine has stays in ``test_spark.py`` and ``test_dask.py``.
"""

from __future__ import annotations

from typing import Any

import engine_cases as cases
import polars as pl
import pytest
from engine_cases import Engine, all_trec, assert_same, every_ranking, prediction_case, ranking_case

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module", params=["spark", "dask"])
def engine(request: pytest.FixtureRequest) -> Engine:
    if request.param == "spark":
        return cases.spark_engine(request.getfixturevalue("spark"))
    return cases.dask_engine()


@pytest.fixture(scope="module")
def case(engine: Engine) -> tuple[pl.DataFrame, pl.DataFrame, Any, Any]:
    run, qrels = ranking_case(engine.ranking_seed)
    return run, qrels, engine.to_engine(run), engine.to_engine(qrels, 2)


# -- rankings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True, "buckets": 5},
    {"by": "system", "depth": 5, "judged_only": True, "rel": 2},
    {"by": "system", "shape": "wide", "names": "canonical"},
    {"by": "system", "ties": "pessimistic", "measures": ["AP", "nDCG@10", "P@10", "RR"]},
])
def test_every_all_trec_measure_equals_polars(engine: Engine, case: tuple, options: dict[str, Any]) -> None:
    run, qrels, erun, eqrels = case
    options = dict(options)
    measures = options.pop("measures", all_trec())
    ours = engine.to_polars(engine.module.evaluate(erun, eqrels, measures, **options))
    options.pop("buckets", None)
    assert_same(ours, run.ireval.evaluate(qrels, measures, **options))


def test_every_ranking_measure_equals_polars(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    measures = every_ranking()
    assert_same(engine.to_polars(engine.module.evaluate(erun, eqrels, measures, by="system")),
                run.ireval.evaluate(qrels, measures, by="system"))
    assert_same(engine.to_polars(engine.module.summarize(erun, eqrels, measures, by="system", complete=True)),
                run.ireval.summarize(qrels, measures, by="system", complete=True))


@pytest.mark.parametrize("by_system", [True, False])
def test_integer_ids_of_different_widths(engine: Engine, by_system: bool) -> None:
    run, qrels = ranking_case(5)
    run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int32))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    if by_system:  # several systems, four buckets
        options: dict[str, Any] = {"by": "system"}
        measures, buckets = ["AP", "nDCG@10"], 4
    else:  # one system without a system column, few buckets
        run, options = run.filter(pl.col("system") == "s2").drop("system"), {}
        measures, buckets = ["AP", "nDCG@10", "P@5", "RR", "Rprec", "bpref", "infAP", "ERR@10"], 3
    erun, eqrels = engine.to_engine(run), engine.to_engine(qrels)
    planned = engine.module.evaluate(erun, eqrels, measures, buckets=buckets, **options)
    assert_same(engine.to_polars(planned), run.ireval.evaluate(qrels, measures, **options))


def test_tie_aware_values_equal_polars(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    for ties in ("expected", "optimistic"):
        ours = engine.to_polars(engine.module.evaluate(erun, eqrels, measures, by="system", ties=ties))
        assert_same(ours, run.ireval.evaluate(qrels, measures, by="system", ties=ties))


@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True, "shape": "wide"},
    {"by": "system", "aggregate": "micro", "measures": ["P@10", "R@5", "SetP", "NumRet", "NumRelRet"]},
    {"by": "system", "aggregate": "gmean", "measures": ["AP", "bpref", "nDCG@10"]},
    {},
])
def test_summaries_have_the_same_bits(engine: Engine, case: tuple, options: dict[str, Any]) -> None:
    run, qrels, erun, eqrels = case
    options = dict(options)
    measures = options.pop("measures", all_trec())
    if "by" not in options:
        run, erun = run.filter(pl.col("system") == "s1"), engine.where_system(erun, "s1")
    ours = engine.to_polars(engine.module.summarize(erun, eqrels, measures, **options))
    assert_same(ours, run.ireval.summarize(qrels, measures, **options))


@pytest.mark.parametrize("options", [
    {"by": "system", "ci": 0.9},
    {"ci": 0.95, "ci_method": "bootstrap", "n_resamples": 300, "seed": 7},
])
def test_summary_intervals_equal_polars(engine: Engine, case: tuple, options: dict[str, Any]) -> None:
    pytest.importorskip("scipy", reason='intervals need the [stats] extra (pip install "frame-eval[stats]")')
    run, qrels, erun, eqrels = case
    if "by" not in options:
        run, erun = run.filter(pl.col("system") == "s2"), engine.where_system(erun, "s2")
    measures = ["AP", "nDCG@10", "P@5", "NumRet", "gm_map"]
    ours = engine.to_polars(engine.module.summarize(erun, eqrels, measures, **options))
    assert_same(ours, run.ireval.summarize(qrels, measures, **options))


def test_judge_and_chaining(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    assert_same(engine.to_polars(engine.module.judge(erun, eqrels, by="system", complete=True)),
                run.ireval.judge(qrels, by="system", complete=True))
    chained = engine.chain(erun, engine.module.evaluate_with(eqrels, ["AP", "nDCG@10"], by="system"))
    assert_same(engine.to_polars(chained), run.ireval.evaluate(qrels, ["AP", "nDCG@10"], by="system"))


def test_the_other_options_equal_polars(engine: Engine, case: tuple) -> None:
    run, qrels, _, _ = case
    # a repeated document with another score (duplicates="max" keeps the highest), columns renamed
    run = pl.concat([run, run.head(3).with_columns(pl.col("score") + 0.05)]).rename(
        {"query_id": "q", "doc_id": "d.id", "score": "s"})
    qrels = qrels.rename({"query_id": "q", "doc_id": "d.id", "relevance": "r"})
    erun, eqrels = engine.to_engine(run), engine.to_engine(qrels)
    options = {"by": "system", "query_id": "q", "doc_id": "d.id", "score": "s", "relevance": "r",
               "duplicates": "max"}
    for method, measures, more in (
        ("evaluate", ["map", "ndcg_cut.10", "P@5", "utility", "Rprec"],
         {"labels": "as_given", "names": "safe", "partitions": 2, "memory_limit": "1MiB", "rel": 2,
          "collection_size": 500}),
        ("summarize", ["map", "ndcg_cut.10", "P@5"], {"ties": "expected", "labels": "as_given"}),
    ):
        ours = engine.to_polars(getattr(engine.module, method)(erun, eqrels, measures, **options, **more))
        assert_same(ours, getattr(run.ireval, method)(qrels, measures, **options, **more))


def test_buckets_holding_only_unjudged_queries_still_check_their_rows(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    measures = ["AP", "RBP", "RBP_resid", "nDCG@10"]
    ours = engine.to_polars(engine.module.evaluate(erun, eqrels, measures, by="system", buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, measures, by="system"))
    unjudged = run.join(qrels, on="query_id", how="anti")["query_id"][0]
    gone = pl.when(pl.col("query_id") == unjudged).then(None).otherwise(pl.col("score"))
    bad = run.with_columns(score=gone)
    with pytest.raises(ValueError, match="null values in run column 'score'") as polars_error:
        bad.ireval.evaluate(qrels, measures, by="system")
    planned = engine.module.evaluate(engine.to_engine(bad), eqrels, measures, by="system", buckets=40)
    cases.assert_same_error(engine.job_error(planned), engine.speak(str(polars_error.value)))


# -- classification -------------------------------------------------------------------------------

CLASSIFICATION = [
    ("confusion", ("label", "pred"), {}),
    ("confusion", ("kind", "kind_pred"), {}),
    ("rates", ("label", "pred"), {}),
    ("rates", ("kind", "kind_pred"), {"average": "micro"}),
    ("rates", ("kind", "kind_pred"), {"average": "macro"}),
    ("rates", ("kind", "kind_pred"), {"average": "weighted", "shape": "wide"}),
    ("rates", ("label",), {"score": "prob", "thresholds": [0.2, 0.5, 0.8]}),
    ("rates", ("label",), {"score": "prob", "thresholds": 5}),
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


def test_classification_methods_equal_polars(engine: Engine) -> None:
    predictions = prediction_case(engine.prediction_seed)
    frame = engine.to_engine(predictions, 4)
    for name, args, options in CLASSIFICATION:
        ours = engine.to_polars(getattr(engine.module, name)(frame, *args, by="model", **options))
        assert_same(ours, getattr(predictions.ireval, name)(*args, by="model", **options))
    for name, args in (("rates", ("label", "pred")), ("scores", ("label", "prob"))):  # without by=
        assert_same(engine.to_polars(getattr(engine.module, name)(frame, *args)),
                    getattr(predictions.ireval, name)(*args))


# -- errors and laziness --------------------------------------------------------------------------

def test_data_errors_raise_when_the_plan_runs_with_the_polars_text(engine: Engine, case: tuple) -> None:
    run, qrels, _, eqrels = case
    nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
    repeats = pl.concat([run, run.head(1)])
    for bad in (nulls, repeats):
        with pytest.raises(ValueError) as polars_error:
            bad.ireval.evaluate(qrels, ["AP"], by="system")
        planned = engine.module.evaluate(engine.to_engine(bad), eqrels, ["AP"], by="system")  # not run yet
        text = engine.job_error(planned)
        assert f"on {engine.module.ENGINE}" in text
        # the count and row differ (a group's rows, not the frame's); the column and the fix are the same
        cases.assert_same_error(text, engine.speak(str(polars_error.value)))


def test_bad_qrels_and_predictions_raise_when_the_plan_runs(engine: Engine, case: tuple) -> None:
    run, qrels, erun, _ = case
    predictions = prediction_case(engine.prediction_seed)
    unlabelled = predictions.with_columns(label=pl.when(pl.col("prob") > 0.9).then(None)
                                          .otherwise(pl.col("label")))
    repeated = pl.concat([qrels, qrels.tail(1)])
    for polars_call, planned in (
        (lambda: run.ireval.evaluate(repeated, ["AP"], by="system"),
         engine.module.evaluate(erun, engine.to_engine(repeated), ["AP"], by="system")),
        (lambda: unlabelled.ireval.rates("label", "pred", by="model"),  # Arrow-backed: integer labels
         engine.module.rates(engine.to_engine(unlabelled, 4, arrow=True), "label", "pred", by="model")),
    ):
        with pytest.raises(ValueError) as polars_error:
            polars_call()
        cases.assert_same_error(engine.job_error(planned), engine.speak(str(polars_error.value)))


def test_schema_and_option_errors_raise_at_once_with_the_polars_text(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    for call, options in (
        ("evaluate", {"score": "points"}),
        ("evaluate", {"doc_id": "document"}),
        ("summarize", {"ci": 0.95, "shape": "wide"}),
    ):
        with pytest.raises(ValueError) as polars_error:
            getattr(run.ireval, call)(qrels, ["AP"], **options)
        with pytest.raises(ValueError) as engine_error:
            getattr(engine.module, call)(erun, eqrels, ["AP"], **options)
        assert str(engine_error.value) == engine.speak(str(polars_error.value))
    with pytest.raises(TypeError, match=engine.frame_type):
        engine.module.evaluate(run, eqrels, ["AP"])


def test_fix_hints_speak_the_engine(engine: Engine, case: tuple) -> None:
    run, qrels, _, eqrels = case
    text_scores = run.with_columns(pl.col("score").cast(pl.String))
    with pytest.raises(TypeError) as polars_error:
        text_scores.ireval.evaluate(qrels, ["AP"], by="system")
    with pytest.raises(TypeError) as caught:
        engine.module.evaluate(engine.to_engine(text_scores), eqrels, ["AP"], by="system")
    assert "pl." in str(polars_error.value) and "pl." not in str(caught.value)
    assert str(caught.value) == engine.speak(str(polars_error.value))


def test_nothing_is_read_before_the_caller_acts(engine: Engine, case: tuple) -> None:
    _, _, erun, eqrels = case
    planned = engine.module.summarize(engine.poisoned(erun), eqrels, ["AP"], by="system")
    assert engine.columns(planned) == ["system", "metric", "value", "num_q"]
    with pytest.raises(Exception, match="the run was read"):
        engine.run(planned)


def test_strict_checks_the_whole_run_when_the_plan_runs(engine: Engine, case: tuple) -> None:
    run, qrels, erun, eqrels = case
    # most buckets hold queries without judgements, the run as a whole is mostly judged: no error
    ours = engine.to_polars(engine.module.evaluate(erun, eqrels, ["AP", "P@5"], by="system", strict=True,
                                                   buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, ["AP", "P@5"], by="system", strict=True))
    # ids spelled differently on the two sides for most queries: the polars error, from the plan
    renamed = run.with_columns(pl.when(pl.col("query_id") != "q1").then(pl.col("query_id") + "x")
                               .otherwise(pl.col("query_id")).alias("query_id"))
    with pytest.raises(ValueError) as polars_error:
        renamed.ireval.summarize(qrels, ["AP"], by="system", strict=True)
    for method in ("evaluate", "summarize", "judge"):
        arguments = () if method == "judge" else (["AP"],)
        planned = getattr(engine.module, method)(engine.to_engine(renamed), eqrels, *arguments, by="system",
                                                 strict=True)
        assert str(polars_error.value) in engine.job_error(planned)
