"""Bad input gets one clean error naming the column, the first offending row and the fix.

Rows are counted from 0 in the frame as given, whatever the engine; the
checks run even when the result is empty; every input is read once per
collect; suspicious but legal input (runs and qrels that barely overlap)
warns, or raises with ``strict=True``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator

import polars as pl
import pytest
from polars.io.plugins import register_io_source

import frame_eval as fe
from frame_eval.registry import MeasureSpec, register

RUN = pl.DataFrame({
    "query_id": ["q1"] * 4 + ["q2"] * 4,
    "doc_id": list("abcdabcd"),
    "score": [4.0, 3.0, 2.0, 1.0] * 2,
})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "d"], "relevance": [1, 2, 1]})
ENGINES = ["in-memory", "streaming"]


def clean_error(call, kind: type[Exception] = ValueError) -> str:  # type: ignore[no-untyped-def]
    """Run ``call``; it must raise ``kind`` alone (no chained exception); return the message."""
    with pytest.raises(kind) as info:
        call()
    assert info.value.__cause__ is None and info.value.__context__ is None, repr(info.value.__context__)
    return str(info.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_first_of_several_bad_rows_is_named(engine: str) -> None:
    scores = [4.0, None, 2.0, None, 3.0, float("nan"), 1.0, float("nan")]
    bad = RUN.with_columns(pl.Series("score", scores))
    for method in ("evaluate", "summarize", "judge"):
        lazy = getattr(bad.lazy().ireval, method)(QRELS.lazy())
        message = clean_error(lambda lazy=lazy: lazy.collect(engine=engine))
        assert message.startswith("2 null values in run column 'score' (first at row 1, counting from 0)")
    nan = float("nan")
    nan_only = RUN.with_columns(pl.Series("score", [4.0, 3.0, nan, 1.0, 2.0, nan, 1.0, 0.0]))
    message = clean_error(lambda: nan_only.lazy().ireval.evaluate(QRELS.lazy()).collect(engine=engine))
    assert "2 NaN values in run column 'score' (first at row 2, counting from 0)" in message


def test_checks_of_one_frame_counted_together_report_in_column_order() -> None:
    # the run's null and NaN checks are counted in one pass (_checks._tallies): the error is
    # still the first check's, in the order query_id, doc_id, score, then NaN in score
    bad = RUN.with_columns(
        pl.Series("doc_id", ["a", "b", None, "d", "a", "b", "c", "d"]),
        pl.Series("score", [4.0, None, 2.0, float("nan"), 3.0, 2.0, 1.0, 0.0]),
    )
    qrels = QRELS.with_columns(pl.Series("relevance", [1, None, 1]))
    message = clean_error(lambda: bad.ireval.evaluate(QRELS, ["P@2"]))
    assert message.startswith("1 null values in run column 'doc_id' (first at row 2, counting from 0)")
    message = clean_error(lambda: bad.lazy().ireval.evaluate(QRELS.lazy(), ["P@2"]).collect())
    assert message.startswith("1 null values in run column 'doc_id' (first at row 2, counting from 0)")
    no_doc_nulls = bad.with_columns(pl.col("doc_id").fill_null("c"))
    message = clean_error(lambda: no_doc_nulls.ireval.evaluate(QRELS, ["P@2"]))
    assert message.startswith("1 null values in run column 'score' (first at row 1, counting from 0)")
    message = clean_error(lambda: no_doc_nulls.with_columns(pl.col("score").fill_null(1.5)).ireval.evaluate(
        qrels, ["P@2"]))
    assert message.startswith("1 NaN values in run column 'score' (first at row 3, counting from 0)")


@pytest.mark.parametrize("engine", ENGINES)
def test_first_repeated_row_is_named(engine: str) -> None:
    dup = pl.concat([RUN, RUN.slice(5, 1), RUN.slice(2, 1)])  # rows 8 and 9 repeat rows 5 and 2
    message = clean_error(lambda: dup.lazy().ireval.evaluate(QRELS.lazy(), ["AP"]).collect(engine=engine))
    assert message.startswith(
        "2 (query_id, doc_id) combinations occur more than once in the run; the first repeated row "
        "is row 2 (counting from 0): query_id='q1', doc_id='c', 2 times;"
    )


@pytest.mark.parametrize("method", ["evaluate", "summarize", "judge"])
def test_checks_fire_when_nothing_is_evaluated(method: str) -> None:
    """Bad rows are errors even when the run shares no query with the qrels."""
    elsewhere = RUN.with_columns(pl.lit("q9").alias("query_id"))
    cases = {
        "null values in run column 'query_id'": RUN.with_columns(pl.lit(None, pl.String).alias("query_id")),
        "NaN values in run column 'score'": elsewhere.with_columns(pl.lit(float("nan")).alias("score")),
        "occur more than once in the run": elsewhere.with_columns(pl.lit("a").alias("doc_id")),
    }
    for text, bad in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # and the overlap warning
            message = clean_error(lambda bad=bad: getattr(bad.ireval, method)(QRELS))
        assert text in message


def test_a_repeat_in_a_frame_with_a_system_column_suggests_by() -> None:
    two = pl.concat([RUN.with_columns(system=pl.lit("bm25")), RUN.with_columns(system=pl.lit("dense"))])
    message = clean_error(lambda: two.ireval.evaluate(QRELS, ["AP"]))
    assert "if column 'system' tells runs apart, pass by='system'" in message
    assert message.index("by='system'") < message.index("duplicates='max'")
    assert two.ireval.evaluate(QRELS, ["AP"], by="system").height == 4
    plain = clean_error(lambda: pl.concat([RUN, RUN]).ireval.evaluate(QRELS, ["AP"]))
    assert "by=" not in plain and "duplicates='max'" in plain


def test_runs_and_qrels_that_barely_overlap_warn_or_raise() -> None:
    renamed = RUN.with_columns(pl.format("topic-{}", "query_id").alias("query_id"))
    with pytest.warns(UserWarning, match=r"only 0 of the run's 2 queries have judgements in the qrels "
                                         r"\(2 queries\).*'topic-q1'.*'q1'"):
        assert renamed.ireval.evaluate(QRELS, ["AP"]).height == 0
    message = clean_error(lambda: renamed.ireval.summarize(QRELS, ["AP"], strict=True))
    assert "only 0 of the run's 2 queries" in message

    def plus(frame: pl.DataFrame, source: str, new: str) -> pl.DataFrame:
        copy = frame.filter(pl.col("query_id") == source).with_columns(query_id=pl.lit(new))
        return pl.concat([frame, copy])

    half = plus(RUN, "q1", "q7")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 2 of 3 queries judged: no warning
        half.ireval.evaluate(QRELS, ["AP"], strict=True)
    third = plus(half, "q7", "q8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 2 of 4: exactly half is not fewer than half
        third.ireval.evaluate(QRELS, ["AP"])
    fourth = plus(third, "q8", "q9")
    with pytest.warns(UserWarning, match="only 2 of the run's 5 queries"):
        fourth.ireval.evaluate(QRELS, ["AP"])


class CountingSource:
    """A LazyFrame whose every read is counted (an expensive upstream, such as a text parse)."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame, self.reads = frame, 0

    def lazy(self) -> pl.LazyFrame:
        def read(columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
                 batch_size: int | None) -> Iterator[pl.DataFrame]:
            self.reads += 1
            out = self.frame if columns is None else self.frame.select(columns)
            yield out if predicate is None else out.filter(predicate)

        return register_io_source(read, schema=self.frame.schema)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("method", "options"),
    [("evaluate", {}), ("evaluate", {"complete": True, "depth": 2}), ("evaluate", {"duplicates": "max"}),
     ("summarize", {}), ("judge", {}), ("judge", {"complete": True})],
)
def test_each_input_is_read_once_per_collect(engine: str, method: str, options: dict[str, object]) -> None:
    run, qrels = CountingSource(RUN), CountingSource(QRELS)
    result = getattr(run.lazy().ireval, method)(qrels.lazy(), **options)
    assert (run.reads, qrels.reads) == (0, 0)  # nothing read before the collect
    result.collect(engine=engine)
    assert (run.reads, qrels.reads) == (1, 1)


def test_parameters_are_checked_when_named() -> None:
    for name, text in [
        ("AP(rel=-1)", "rel=-1 is negative"),
        ("nDCG(base=0)", "base=0.0 must be a finite number above 0 other than 1"),
        ("nDCG(base=1)", "base=1.0 must be"),
        ("nDCG(base=nan)", "base=nan must be"),
        ("nDCG(base=inf)", "base=inf must be"),
        ("nDCG@18446744073709551616", "larger than 9223372036854775807"),
    ]:
        assert text in clean_error(lambda name=name: RUN.ireval.evaluate(QRELS, [name]))


def test_large_cutoffs_depths_and_grades_are_exact() -> None:
    huge = 2**62
    got = RUN.ireval.evaluate(QRELS, [f"nDCG@{huge}", f"P@{huge}", f"RR@{huge}"], shape="wide")
    want = RUN.ireval.evaluate(QRELS, ["nDCG", "RR"], shape="wide")
    assert got[f"nDCG@{huge}"].equals(want["nDCG"], check_names=False)
    assert got[f"RR@{huge}"].equals(want["RR"], check_names=False)
    assert got[f"P@{huge}"].to_list() == [2 / huge, 1 / huge]
    assert RUN.ireval.judge(QRELS, depth=2**40).equals(RUN.ireval.judge(QRELS))
    # exponential gains of grades 1024 and more no longer overflow to inf (and NaN)
    high = QRELS.with_columns(pl.col("relevance") + 1100)
    shifted = RUN.ireval.evaluate(high, ["nDCG(gain=exp)"], shape="wide")["nDCG(gain=exp)"]
    assert all(math.isfinite(v) and 0 < v <= 1 for v in shifted)
    small = QRELS.with_columns(pl.col("relevance") + 3)
    values = RUN.ireval.evaluate(small, ["nDCG(gain=exp)"], shape="wide")["nDCG(gain=exp)"].to_list()
    assert values == [sum((2**g - 1) / math.log2(r + 1) for r, g in dcg) / sum(
        (2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal)) for dcg, ideal in [
        ([(1, 4), (3, 5)], [5, 4]), ([(4, 4)], [4])]]


def test_integer_ids_of_any_width() -> None:
    big = 2**63 + 5
    run = pl.DataFrame({"query_id": pl.Series([big] * 2, dtype=pl.UInt64),
                        "doc_id": pl.Series([2**64 - 1, 7], dtype=pl.UInt64), "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": pl.Series([big], dtype=pl.UInt64),
                          "doc_id": pl.Series([2**64 - 1], dtype=pl.UInt64), "relevance": [1]})
    assert run.ireval.evaluate(qrels, ["RR"]).rows() == [(big, "RR", 1.0)]
    signed = qrels.with_columns(pl.col("doc_id").cast(pl.Int8, strict=False).fill_null(7).cast(pl.Int64))
    assert run.ireval.evaluate(signed, ["RR"]).rows() == [(big, "RR", 0.5)]
    too_high = QRELS.with_columns(pl.Series("relevance", [1, 2**63 + 1, 1], dtype=pl.UInt64))
    message = clean_error(lambda: RUN.ireval.evaluate(too_high, ["AP"]))
    assert "judgements above 9223372036854775807 in qrels column 'relevance' (first at row 1" in message


@pytest.mark.parametrize(
    ("by", "text"),
    [("query_id", "already the query_id column"), (["s", "s"], "more than once"),
     ("__frame_eval_x", "keeps for its own columns"), ("metric", "clashes with an output column")],
)
def test_by_names_that_clash_are_named(by: str | list[str], text: str) -> None:
    run = RUN.with_columns(pl.lit("x").alias(b) for b in dict.fromkeys([by] if isinstance(by, str) else by)
                           if b != "query_id")
    assert text in clean_error(lambda: run.ireval.evaluate(QRELS, ["AP"], by=by))


@pytest.mark.parametrize("by", ["num_ret", "_m0", "rank", "relevance_level"])
def test_ordinary_names_are_fine_as_by(by: str) -> None:
    run = RUN.with_columns(pl.lit("s").alias(by))
    got = run.ireval.summarize(QRELS, ["AP", "nDCG"], by=by)
    assert got.columns == [by, "metric", "value", "num_q"] and got.height == 2


def test_ranking_expressions_on_a_raw_run_say_what_to_do() -> None:
    with pytest.raises(ValueError, match=r"call run.ireval.judge\(qrels\) first"):
        RUN.group_by("query_id").agg(fe.ranking.ap())
    judged = RUN.ireval.judge(QRELS)
    assert judged.group_by("query_id").agg(fe.ranking.ap()).height == 2


def test_a_new_measure_reads_the_full_judged_frame_unless_it_says_otherwise() -> None:
    """A measure registered without reads_unjudged gets every retrieved document."""

    def unjudged_in_top(columns, k, **params):  # type: ignore[no-untyped-def]
        rank, relevance = pl.col(columns["rank"]), pl.col(columns["relevance"])
        return ((rank <= k) & relevance.is_null()).sum().cast(pl.Float64)

    spec = register(MeasureSpec("TestUnjudgedTop", "ranking", "unjudged in the top k", unjudged_in_top,
                                cutoff="required"))
    assert spec.reads_unjudged
    got = RUN.ireval.evaluate(QRELS, ["TestUnjudgedTop@3"], shape="wide")
    assert got["TestUnjudgedTop@3"].to_list() == [1.0, 3.0]
