"""Arrow PyCapsule streams (pyarrow, DuckDB, any ``__arrow_c_stream__``) are accepted as frames."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from engine_cases import prediction_case, ranking_case

import frame_eval as fe

pa = pytest.importorskip("pyarrow", reason='pyarrow is not installed (pip install "frame-eval[pandas]")')

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "RBP"]


class Stream:
    """Only the protocol: no pyarrow, polars or pandas type to recognise."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._table.__arrow_c_stream__(requested_schema)


@pytest.fixture(scope="module")
def case() -> tuple[pl.DataFrame, pl.DataFrame]:
    return ranking_case(21)


def test_arrow_qrels_and_runs_give_the_polars_values(case: tuple) -> None:
    run, qrels = case
    expected = run.ireval.evaluate(qrels, MEASURES, by="system")
    assert run.ireval.evaluate(qrels.to_arrow(), MEASURES, by="system").equals(expected)
    lazy = run.lazy().ireval.evaluate(Stream(qrels.to_arrow()), MEASURES, by="system")
    assert lazy.collect().equals(expected)
    for frame in (run.to_arrow(), Stream(run.to_arrow()), pa.RecordBatchReader.from_batches(
            run.to_arrow().schema, run.to_arrow().to_batches())):
        assert fe.ireval(frame).evaluate(qrels.to_arrow(), MEASURES, by="system").equals(expected)
    summary = fe.ireval(run.to_arrow()).summarize(Stream(qrels.to_arrow()), MEASURES, by="system")
    assert summary.equals(run.ireval.summarize(qrels, MEASURES, by="system"))


def test_pandas_accessor_takes_arrow_qrels(case: tuple) -> None:
    pytest.importorskip("pandas", reason="pandas is not installed")
    run, qrels = case
    ours = run.to_pandas().ireval.evaluate(qrels.to_arrow(), MEASURES, by="system")
    assert pl.from_pandas(ours).equals(run.ireval.evaluate(qrels, MEASURES, by="system"))
    assert list(fe.ireval(run.to_pandas()).evaluate(qrels.to_pandas(), ["AP"], by="system").columns) == [
        "system", "query_id", "metric", "value"]


def test_classification_on_an_arrow_table() -> None:
    predictions = prediction_case(5)
    ours = fe.ireval(predictions.to_arrow()).rates("label", "pred", by="model")
    assert ours.equals(predictions.ireval.rates("label", "pred", by="model"))


def test_duckdb_relations_straight_from_sql(case: tuple) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (it is in the test extra)")
    run, qrels = case
    con = duckdb.connect()
    con.register("run_table", run.to_arrow())
    con.register("qrels_table", qrels.to_arrow())
    top = con.sql("select * from run_table where score >= 0.3")
    judged = con.sql("select query_id, doc_id, relevance::integer as relevance from qrels_table")
    ours = fe.ireval(top).evaluate(judged, MEASURES, by="system")
    expected = run.filter(pl.col("score") >= 0.3).ireval.evaluate(
        qrels.with_columns(pl.col("relevance").cast(pl.Int32)), MEASURES, by="system"
    )
    assert ours.equals(expected)


def test_bad_arrow_input_gets_the_polars_errors(case: tuple) -> None:
    run, qrels = case
    nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
    with pytest.raises(ValueError) as from_polars:
        nulls.ireval.evaluate(qrels, ["AP"], by="system")
    with pytest.raises(ValueError) as from_arrow:
        fe.ireval(nulls.to_arrow()).evaluate(qrels.to_arrow(), ["AP"], by="system")
    assert str(from_arrow.value) == str(from_polars.value)
    with pytest.raises(TypeError, match="__arrow_c_stream__"):
        fe.ireval([1, 2, 3])
    with pytest.raises(TypeError, match="Arrow table"):
        run.ireval.evaluate([1, 2], ["AP"])
    with pytest.raises(TypeError, match="qrels could not be read as an Arrow table"):
        run.ireval.evaluate(pa.chunked_array([[1, 2]]), ["AP"], by="system")  # a stream of integers
