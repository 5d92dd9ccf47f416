"""fe.spark gives the polars results exactly (``==``), lazily, with the same errors.

One local[2] Spark session for the whole test run. Skipped (with the reason) when PySpark or
Java is missing, except under CI (``FRAME_EVAL_CI=1``, set by ``.ci/run``), where that fails.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine_cases as cases
import polars as pl
import pytest
from engine_cases import all_trec, assert_same, every_ranking, prediction_case, ranking_case

import frame_eval as fe

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


def _missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return 'PySpark is not installed (pip install "frame-eval[spark]")'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs Java, and there is no java on PATH (apt-get install default-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    reason = _missing()
    if reason:
        if os.environ.get("FRAME_EVAL_CI"):
            pytest.fail(f"CI must run the Spark tests: {reason}")
        pytest.skip(reason)
    # the Python workers import this checkout's frame_eval, whatever is installed
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]").appName("frame_eval tests")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g").config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _spark(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_arrow())


def _polars(frame: Any) -> pl.DataFrame:
    return pl.from_arrow(frame.toArrow())  # type: ignore[return-value]


@pytest.fixture(scope="module")
def case(spark: Any) -> tuple[pl.DataFrame, pl.DataFrame, Any, Any]:
    run, qrels = ranking_case(11)
    return run, qrels, _spark(spark, run), _spark(spark, qrels)


@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True},
    {"by": "system", "depth": 5, "judged_only": True, "rel": 2},
    {"by": "system", "shape": "wide", "names": "canonical"},
])
def test_every_all_trec_measure_equals_polars(case: tuple, options: dict[str, Any]) -> None:
    run, qrels, srun, sqrels = case
    ours = _polars(fe.spark.evaluate(srun, sqrels, all_trec(), **options))
    assert_same(ours, run.ireval.evaluate(qrels, all_trec(), **options))


def test_one_system_integer_ids_of_different_widths_and_few_buckets(spark: Any) -> None:
    run, qrels = ranking_case(5)
    run = run.filter(pl.col("system") == "s2").drop("system").with_columns(
        pl.col("query_id").str.slice(1).cast(pl.Int32)
    )
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    measures = ["AP", "nDCG@10", "P@5", "RR", "Rprec", "bpref", "infAP", "ERR@10"]
    ours = _polars(fe.spark.evaluate(_spark(spark, run), _spark(spark, qrels), measures, buckets=3))
    assert_same(ours, run.ireval.evaluate(qrels, measures))


def test_tie_aware_values_equal_polars(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    for ties in ("expected", "optimistic"):
        ours = _polars(fe.spark.evaluate(srun, sqrels, measures, by="system", ties=ties))
        assert_same(ours, run.ireval.evaluate(qrels, measures, by="system", ties=ties))


@pytest.mark.parametrize("options", [
    {"by": "system"},
    {"by": "system", "complete": True, "shape": "wide"},
    {},
])
def test_summaries_have_the_same_bits(case: tuple, options: dict[str, Any]) -> None:
    run, qrels, srun, sqrels = case
    if "by" not in options:
        run, srun = run.filter(pl.col("system") == "s1"), srun.filter("system = 's1'")
    ours = _polars(fe.spark.summarize(srun, sqrels, all_trec(), **options))
    assert_same(ours, run.ireval.summarize(qrels, all_trec(), **options))


def test_micro_and_geometric_summaries(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    for measures, aggregate in ((["P@10", "R@5", "SetP", "NumRet", "NumRelRet"], "micro"),
                                (["AP", "bpref", "nDCG@10"], "gmean")):
        ours = _polars(fe.spark.summarize(srun, sqrels, measures, by="system", aggregate=aggregate))
        assert_same(ours, run.ireval.summarize(qrels, measures, by="system", aggregate=aggregate))


def test_judge_and_transform(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    assert_same(_polars(fe.spark.judge(srun, sqrels, by="system", complete=True)),
                run.ireval.judge(qrels, by="system", complete=True))
    chained = srun.transform(fe.spark.evaluate_with(sqrels, ["AP", "nDCG@10"], by="system"))
    assert_same(_polars(chained), run.ireval.evaluate(qrels, ["AP", "nDCG@10"], by="system"))


CLASSIFICATION = [
    ("confusion", ("label", "pred"), {}),
    ("confusion", ("kind", "kind_pred"), {}),
    ("rates", ("label", "pred"), {}),
    ("rates", ("kind", "kind_pred"), {"average": "macro"}),
    ("rates", ("kind", "kind_pred"), {"average": "weighted", "shape": "wide"}),
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


def test_classification_methods_equal_polars(spark: Any) -> None:
    predictions = prediction_case(3)
    frame = _spark(spark, predictions)
    for name, args, options in CLASSIFICATION:
        ours = _polars(getattr(fe.spark, name)(frame, *args, by="model", **options))
        assert_same(ours, getattr(predictions.ireval, name)(*args, by="model", **options))
    ours = _polars(fe.spark.scores(frame, "label", "prob"))
    assert_same(ours, predictions.ireval.scores("label", "prob"))


def _polars_error(call: Any) -> str:
    with pytest.raises(ValueError) as caught:
        call()
    text = str(caught.value)
    return text[: text.index("(first") if "(first" in text else text.index("; the first")]


def test_data_errors_raise_when_the_job_runs_with_the_polars_text(case: tuple, spark: Any) -> None:
    run, qrels, _, sqrels = case
    nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
    repeats = pl.concat([run, run.head(1)])
    for bad in (nulls, repeats):
        expected = _polars_error(lambda bad=bad: bad.ireval.evaluate(qrels, ["AP"]))
        planned = fe.spark.evaluate(_spark(spark, bad), sqrels, ["AP"])  # nothing runs yet
        with pytest.raises(Exception, match="ValueError") as caught:
            planned.collect()
        assert "on Spark" in str(caught.value)
        # the count differs (a group's rows, not the frame's); the column and the fix are the same
        assert expected.split(" ", 1)[1] in str(caught.value)


def test_schema_and_option_errors_raise_at_once(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    with pytest.raises(ValueError) as polars_error:
        run.ireval.evaluate(qrels, ["AP"], score="points")
    with pytest.raises(ValueError) as spark_error:
        fe.spark.evaluate(srun, sqrels, ["AP"], score="points")
    assert str(spark_error.value) == str(polars_error.value)
    with pytest.raises(ValueError) as polars_error:
        run.ireval.summarize(qrels, ["AP"], ci=0.95, shape="wide")
    with pytest.raises(ValueError) as spark_error:
        fe.spark.summarize(srun, sqrels, ["AP"], ci=0.95, shape="wide")
    assert str(spark_error.value) == str(polars_error.value)
    with pytest.raises(TypeError, match=r"pyspark\.sql\.DataFrame"):
        fe.spark.evaluate(run, sqrels, ["AP"])


def test_nothing_is_read_before_the_caller_acts(case: tuple, spark: Any) -> None:
    from pyspark.sql import functions as F

    _, _, srun, sqrels = case

    def explode(score):  # type: ignore[no-untyped-def]  (type hints make PySpark guess an eval type)
        raise RuntimeError("the run was read")

    exploding = F.udf(explode, "double")

    poisoned = srun.withColumn("score", exploding("score"))
    planned = fe.spark.summarize(poisoned, sqrels, ["AP"], by="system")
    assert [f.name for f in planned.schema.fields] == ["system", "metric", "value", "num_q"]
    with pytest.raises(Exception, match="the run was read"):
        planned.collect()


def test_buckets_holding_only_unjudged_queries(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    measures = ["AP", "RBP", "RBP_resid", "nDCG@10"]
    ours = _polars(fe.spark.evaluate(srun, sqrels, measures, by="system", buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, measures, by="system"))


def test_fix_hints_speak_spark(case: tuple, spark: Any) -> None:
    run, _, _, sqrels = case
    text_scores = _spark(spark, run.with_columns(pl.col("score").cast(pl.String)))
    with pytest.raises(TypeError) as caught:
        fe.spark.evaluate(text_scores, sqrels, ["AP"], by="system")
    assert str(caught.value) == (
        "run column 'score' must be numeric, got string; cast it, e.g. F.col('score').cast('double')"
    )


@pytest.mark.parametrize("options", [
    {"by": "system", "ci": 0.9},
    {"ci": 0.95, "ci_method": "bootstrap", "n_resamples": 300, "seed": 7},
])
def test_summary_intervals_equal_polars(case: tuple, options: dict[str, Any]) -> None:
    pytest.importorskip("scipy", reason='intervals need the [stats] extra (pip install "frame-eval[stats]")')
    run, qrels, srun, sqrels = case
    if "by" not in options:
        run, srun = run.filter(pl.col("system") == "s2"), srun.filter("system = 's2'")
    measures = ["AP", "nDCG@10", "P@5", "NumRet", "gm_map"]
    ours = _polars(fe.spark.summarize(srun, sqrels, measures, **options))
    assert_same(ours, run.ireval.summarize(qrels, measures, **options))


def test_strict_checks_the_whole_run_when_the_job_runs(case: tuple, spark: Any) -> None:
    run, qrels, srun, sqrels = case
    # most buckets hold queries without judgements, the run as a whole is mostly judged: no error
    ours = _polars(fe.spark.evaluate(srun, sqrels, ["AP", "P@5"], by="system", strict=True, buckets=40))
    assert_same(ours, run.ireval.evaluate(qrels, ["AP", "P@5"], by="system", strict=True))
    # ids spelled differently on the two sides for most queries: the polars error, from the job
    renamed = run.with_columns(pl.when(pl.col("query_id") != "q1").then(pl.col("query_id") + "x")
                               .otherwise(pl.col("query_id")).alias("query_id"))
    with pytest.raises(ValueError) as polars_error:
        renamed.ireval.summarize(qrels, ["AP"], by="system", strict=True)
    for method in ("evaluate", "summarize", "judge"):
        arguments = () if method == "judge" else (["AP"],)
        planned = getattr(fe.spark, method)(_spark(spark, renamed), sqrels, *arguments, by="system",
                                            strict=True)
        with pytest.raises(Exception, match="ValueError") as caught:
            planned.collect()
        assert str(polars_error.value) in str(caught.value)
    with pytest.warns(UserWarning, match="only 1 of the run's"):  # without strict: a warning in polars,
        renamed.ireval.evaluate(qrels, ["AP"], by="system")      # nothing on Spark (see the README)
    assert fe.spark.evaluate(_spark(spark, renamed), sqrels, ["AP"], by="system").count() > 0


def test_every_ranking_measure_equals_polars(case: tuple) -> None:
    run, qrels, srun, sqrels = case
    measures = every_ranking()
    assert_same(_polars(fe.spark.evaluate(srun, sqrels, measures, by="system")),
                run.ireval.evaluate(qrels, measures, by="system"))
    assert_same(_polars(fe.spark.summarize(srun, sqrels, measures, by="system", complete=True)),
                run.ireval.summarize(qrels, measures, by="system", complete=True))


def test_bad_qrels_and_predictions_raise_when_the_job_runs(case: tuple, spark: Any) -> None:
    run, qrels, srun, _ = case
    predictions = prediction_case(3)
    unlabelled = predictions.with_columns(label=pl.when(pl.col("prob") > 0.9).then(None)
                                          .otherwise(pl.col("label")))
    repeated = pl.concat([qrels, qrels.tail(1)])
    for polars_call, planned in (
        (lambda: run.ireval.evaluate(repeated, ["AP"], by="system"),
         fe.spark.evaluate(srun, _spark(spark, repeated), ["AP"], by="system")),
        (lambda: unlabelled.ireval.rates("label", "pred", by="model"),
         fe.spark.rates(_spark(spark, unlabelled), "label", "pred", by="model")),
    ):
        with pytest.raises(ValueError) as polars_error:
            polars_call()
        with pytest.raises(Exception, match="ValueError") as caught:
            planned.collect()
        cases.assert_same_error(str(caught.value), str(polars_error.value))


def test_the_other_options_equal_polars(case: tuple, spark: Any) -> None:
    run, qrels, _, _ = case
    run = pl.concat([run, run.head(3).with_columns(pl.col("score") + 0.05)]).rename(
        {"query_id": "q", "doc_id": "d.id", "score": "s"})
    qrels = qrels.rename({"query_id": "q", "doc_id": "d.id", "relevance": "r"})
    srun, sqrels = _spark(spark, run), _spark(spark, qrels)
    options = {"by": "system", "query_id": "q", "doc_id": "d.id", "score": "s", "relevance": "r",
               "duplicates": "max"}
    for method, measures, more in (
        ("evaluate", ["map", "ndcg_cut.10", "P@5", "utility", "Rprec"],
         {"labels": "as_given", "names": "safe", "partitions": 2, "rel": 2, "collection_size": 500}),
        ("summarize", ["map", "ndcg_cut.10", "P@5"], {"ties": "expected", "labels": "as_given"}),
    ):
        ours = _polars(getattr(fe.spark, method)(srun, sqrels, measures, **options, **more))
        assert_same(ours, getattr(run.ireval, method)(qrels, measures, **options, **more))
