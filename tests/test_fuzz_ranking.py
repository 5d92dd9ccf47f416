"""Fuzzing the ranking measures: random runs and qrels against pytrec_eval and the invariants.

Cases have tied scores and near-ties (rounded to floats where pytrec_eval judges), graded and negative
judgements, unjudged documents, queries on one side only, queries without
relevant documents, string or integer ids, several systems (some without a
query, or without any row). Checked on every case: the values of pytrec_eval
(trec_eval 9.x, called in a fresh process), eager == lazy == pandas, the
caller's frames unchanged, nothing read before the user collects, and bad
rows (nulls, NaN, repeats) reported as one clean error naming the column.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import polars as pl
import pytest
from fuzz_support import (
    FUZZ,
    CountingSource,
    assert_clean_error,
    full_frames,  # noqa: F401 - an autouse fixture: examples print in full
    in_fresh_process,
    raised,
    unchanged,
)
from hypothesis import assume, given
from hypothesis import strategies as st
from test_pytrec_eval_parity import PYTREC_NAMES, TREC_MEASURES, assert_same, at_level, trec_dict

import frame_eval as fe

pytrec_eval = pytest.importorskip("pytrec_eval")
pd = pytest.importorskip("pandas")

PAIRS = [pair for family in TREC_MEASURES.values() for pair in family]
RUN_SCHEMA = {"system": pl.String, "query_id": pl.Int64, "doc_id": pl.Int64, "score": pl.Float64}
QRELS_SCHEMA = {"query_id": pl.Int64, "doc_id": pl.Int64, "relevance": pl.Int64}
SCORES = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0]),  # ties
    st.tuples(st.sampled_from([0.5, 0.89124103, 1.0]), st.sampled_from([0.0, 1e-9, 2e-8, 5e-8, 1e-7]))
    .map(sum),  # near-ties: equal or not in single precision
    st.floats(-1e6, 1e6, allow_nan=False, width=32),
)


@st.composite
def ranking_cases(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """(run with a system column, qrels, rel)."""
    systems = [f"s{i}" for i in range(draw(st.integers(1, 3)))]
    queries = draw(st.lists(st.integers(0, 30), min_size=1, max_size=4, unique=True))
    run_rows: list[tuple[Any, ...]] = []
    qrels_rows: list[tuple[Any, ...]] = []
    for q in queries:
        side = draw(st.sampled_from(["both", "both", "both", "run", "qrels"]))
        pool = draw(st.lists(st.integers(0, 120), min_size=1, max_size=12, unique=True))
        if side != "run":
            judged = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
            grades = st.sampled_from([0, 0, 1, 2, 3, -1] if draw(st.booleans()) else [0, -1, -2])
            qrels_rows += [(q, d, draw(grades)) for d in judged]
        if side != "qrels":
            for system in systems:
                ranked = draw(st.lists(st.sampled_from(pool), max_size=len(pool), unique=True))
                run_rows += [(system, q, d, draw(SCORES)) for d in ranked]
    run = pl.DataFrame(run_rows, schema=RUN_SCHEMA, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=QRELS_SCHEMA, orient="row")
    if draw(st.booleans()):  # string ids, whose text order differs from the numbers'
        as_text = [pl.format("q{}", "query_id").alias("query_id"), pl.format("d{}", "doc_id").alias("doc_id")]
        run, qrels = run.with_columns(as_text), qrels.with_columns(as_text)
    return run, qrels, draw(st.sampled_from([1, 1, 2]))


def _measures(rel: int) -> list[fe.Measure]:
    return at_level([name for _, name in PAIRS], rel)


def _oracle(run: pl.DataFrame, qrels: pl.DataFrame, rel: int, measures: list[fe.Measure]) -> pl.DataFrame:
    """pytrec_eval's values as the frame evaluate(by="system", shape="wide") should give.

    A query whose judgements are all negative is given to pytrec_eval judged 0
    instead (for frame_eval, as for trec_eval's documentation, both mean not
    relevant and no gain): pytrec_eval reports such a query's retrieved
    documents as none (num_ret 0) and may hang afterwards, and trec_eval
    10.0 refuses such a qrels file ("Can't calculate measure").
    """
    if not hasattr(os, "fork"):
        pytest.skip("the pytrec_eval oracle runs in forked processes (no os.fork here)")
    qrel_dict = trec_dict(qrels, "relevance")
    for judgements in qrel_dict.values():
        if max(judgements.values()) < 0:
            judgements.update(dict.fromkeys(judgements, 0))
    rows = []
    id_of = {str(q): q for q in run["query_id"].to_list()}
    for (system,), part in run.partition_by("system", as_dict=True, maintain_order=True).items():
        run_dict = trec_dict(part, "score")

        def evaluate(run_dict: dict[str, dict[str, float]] = run_dict) -> Any:
            evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, PYTREC_NAMES, relevance_level=rel)
            return evaluator.evaluate(run_dict)

        values = in_fresh_process(evaluate)
        assume(values is not None)  # pytrec_eval hung or died: no oracle for this case
        for q, by_key in values.items():
            rows.append([system, id_of[q], *(float(by_key[key]) for key, _ in PAIRS)])
    schema = {"system": pl.String, "query_id": run.schema["query_id"]}
    schema.update({m.name: pl.Float64 for m in measures})
    return pl.DataFrame(rows, schema=schema, orient="row").sort("system", "query_id")


@FUZZ
@given(ranking_cases())
def test_values_match_pytrec_eval_and_every_front_end_agrees(
    case: tuple[pl.DataFrame, pl.DataFrame, int],
) -> None:
    run, qrels, rel = case
    # pytrec_eval (trec_eval 9.x) compares scores as floats, trec_eval 10.0 as doubles: scores
    # that are floats already rank alike in both (near-ties become ties or stay apart)
    run = run.with_columns(pl.col("score").cast(pl.Float32).cast(pl.Float64))
    # pytrec_eval cannot take a query judged only negatively (see _oracle): both sides get 0s there
    all_negative = pl.col("relevance").max().over("query_id") < 0
    qrels = qrels.with_columns(relevance=pl.when(all_negative).then(0).otherwise(pl.col("relevance")))
    measures = _measures(rel)
    runs_pd, qrels_pd = run.to_pandas(), qrels.to_pandas()
    same_inputs = unchanged(run, qrels, runs_pd, qrels_pd)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # few judged queries: a warning, not our subject
        got = run.ireval.evaluate(qrels, measures, by="system", shape="wide")
        assert_same(got, _oracle(run, qrels, rel, measures))
        # eager == lazy (both engines) == pandas; assert_same is the suite's one float comparison
        lazy = run.lazy().ireval.evaluate(qrels.lazy(), measures, by="system", shape="wide")
        assert_same(lazy.collect(), got)
        assert_same(lazy.collect(engine="streaming"), got)
        from_pandas = runs_pd.ireval.evaluate(qrels_pd, measures, by="system", shape="wide")
        assert_same(pl.from_pandas(from_pandas), got)
        summary = run.ireval.summarize(qrels, measures[:6], by="system")
        assert_same(pl.from_pandas(runs_pd.ireval.summarize(qrels_pd, measures[:6], by="system")), summary)
        judged = run.ireval.judge(qrels, by="system")
        assert_same(run.lazy().ireval.judge(qrels.lazy(), by="system").collect(), judged)
        assert_same(pl.from_pandas(runs_pd.ireval.judge(qrels_pd, by="system")), judged)
    same_inputs()


@FUZZ
@given(ranking_cases(), st.sampled_from(["judge", "evaluate", "summarize"]))
def test_nothing_is_read_before_the_user_collects(case: tuple[pl.DataFrame, pl.DataFrame, int],
                                                  method: str) -> None:
    run, qrels, _ = case
    run_source, qrels_source = CountingSource(run), CountingSource(qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        plan = getattr(run_source.lazy.ireval, method)(qrels_source.lazy, by="system")
        assert isinstance(plan, pl.LazyFrame)
        assert (run_source.reads, qrels_source.reads) == (0, 0)
        collected = plan.collect()
    assert run_source.reads > 0 and qrels_source.reads > 0
    eager = getattr(run.ireval, method)(qrels, by="system")
    assert_same(collected, eager)


# -- bad input --------------------------------------------------------------------------------------

DEFECTS = {  # name -> (frame, column, how)
    "null run query_id": ("run", "query_id", "null"),
    "null run doc_id": ("run", "doc_id", "null"),
    "null score": ("run", "score", "null"),
    "NaN score": ("run", "score", "nan"),
    "repeated run row": ("run", "doc_id", "repeat"),
    "null qrels doc_id": ("qrels", "doc_id", "null"),
    "null relevance": ("qrels", "relevance", "null"),
    "repeated qrels row": ("qrels", "doc_id", "repeat"),
}


def _spoil(frame: pl.DataFrame, row: int, column: str, how: str) -> pl.DataFrame:
    if how == "repeat":
        return pl.concat([frame, frame.slice(row, 1)])
    value = float("nan") if how == "nan" else None
    values = frame[column].to_list()
    values[row] = value
    return frame.with_columns(pl.Series(column, values, dtype=frame.schema[column]))


def _bad_case(case: tuple[pl.DataFrame, pl.DataFrame, int], defect: str, data: st.DataObject,
              shared_only: bool) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    run, qrels, _ = case
    side, column, how = DEFECTS[defect]
    frame = run if side == "run" else qrels
    shared = set(run["query_id"].to_list()) & set(qrels["query_id"].to_list())
    rows = [i for i, q in enumerate(frame["query_id"].to_list()) if q in shared or not shared_only]
    if shared_only and side == "run" and column == "query_id":  # another row keeps the result non-empty
        rows = rows if len(rows) > 1 else []
    assume(rows)
    row = data.draw(st.sampled_from(rows))
    spoiled = _spoil(frame, row, column, how)
    return (spoiled, qrels, column) if side == "run" else (run, spoiled, column)


@FUZZ
@given(ranking_cases(), st.sampled_from(list(DEFECTS)), st.sampled_from(["judge", "evaluate", "summarize"]),
       st.data())
def test_bad_rows_are_one_clean_error_naming_the_column(
    case: tuple[pl.DataFrame, pl.DataFrame, int], defect: str, method: str, data: st.DataObject
) -> None:
    """Bad rows in queries both sides share; every front end raises a plain error naming the column."""
    run, qrels, column = _bad_case(case, defect, data, shared_only=True)
    for call in (
        lambda: getattr(run.ireval, method)(qrels, by="system"),
        lambda: getattr(run.lazy().ireval, method)(qrels.lazy(), by="system").collect(),
    ):
        assert_clean_error(raised(call), column, chain=False)  # chain: see the skipped test below
    runs_pd, qrels_pd = run.to_pandas(), qrels.to_pandas()
    same_inputs = unchanged(runs_pd, qrels_pd)
    assert_clean_error(raised(lambda: getattr(runs_pd.ireval, method)(qrels_pd, by="system")), column)
    same_inputs()


@FUZZ
@given(ranking_cases(), st.sampled_from(list(DEFECTS)), st.sampled_from(["judge", "evaluate", "summarize"]),
       st.data())
def test_bad_rows_anywhere_are_one_clean_error_without_a_chain(
    case: tuple[pl.DataFrame, pl.DataFrame, int], defect: str, method: str, data: st.DataObject
) -> None:
    run, qrels, column = _bad_case(case, defect, data, shared_only=False)
    for call in (
        lambda: getattr(run.ireval, method)(qrels, by="system"),
        lambda: getattr(run.lazy().ireval, method)(qrels.lazy(), by="system").collect(),
        lambda: getattr(run.lazy().ireval, method)(qrels.lazy(), by="system").collect(engine="streaming"),
        lambda: getattr(run.to_pandas().ireval, method)(qrels.to_pandas(), by="system"),
    ):
        assert_clean_error(raised(call), column)
