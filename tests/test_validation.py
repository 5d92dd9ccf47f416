"""Bad input gets a clear error naming the column, the value and the fix; nothing is dropped."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import frame_eval as fe

RUN = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
QRELS = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})


def test_missing_column_names_it_and_the_fix() -> None:
    expected = r"run has no column 'score'.*columns are \['query_id', 'doc_id', 'sim'\]"
    with pytest.raises(ValueError, match=expected):
        RUN.rename({"score": "sim"}).ireval.evaluate(QRELS, ["AP"])
    with pytest.raises(ValueError, match=r"qrels has no column 'relevance'.*relevance="):
        RUN.ireval.evaluate(QRELS.rename({"relevance": "rel"}), ["AP"])


def test_id_dtype_mismatch_names_the_column() -> None:
    qrels = QRELS.with_columns(pl.lit(7).alias("doc_id"))
    with pytest.raises(TypeError, match=r"column 'doc_id' is String in the run but Int32 in the qrels"):
        RUN.ireval.evaluate(qrels, ["AP"])


def test_wrong_value_dtypes() -> None:
    with pytest.raises(TypeError, match=r"run column 'score' must be numeric, got String"):
        RUN.with_columns(pl.col("score").cast(pl.String)).ireval.evaluate(QRELS, ["AP"])
    with pytest.raises(TypeError, match=r"qrels column 'relevance' must hold integer judgements"):
        RUN.ireval.evaluate(QRELS.with_columns(pl.col("relevance") * 0.5), ["AP"])


def test_duplicates_raise_with_example_or_keep_max() -> None:
    dup = pl.concat([RUN, RUN.head(1).with_columns(pl.lit(5.0).alias("score"))])
    with pytest.raises(ValueError, match=r"1 \(query_id, doc_id\) combinations occur more than once in the "
                       r"run; the first repeated row is row 0 \(counting from 0\): query_id='q1', "
                       r"doc_id='a', 2 times; .*duplicates=.max."):
        dup.ireval.evaluate(QRELS, ["AP"])
    # lazily: the error comes at collect time, and not before
    lazy = dup.lazy().ireval.evaluate(QRELS, ["AP"])
    with pytest.raises(ValueError, match="more than once"):
        lazy.collect()
    kept = dup.ireval.judge(QRELS, duplicates="max")
    assert kept.select("doc_id", "rank", "score").rows() == [("a", 1, 5.0), ("b", 2, 2.0)]
    dup_qrels = pl.concat([QRELS, QRELS.with_columns(pl.lit(3, dtype=pl.Int64).alias("relevance"))])
    with pytest.raises(ValueError, match=r"combinations occur more than once in the qrels"):
        RUN.ireval.evaluate(dup_qrels, ["AP"])
    assert RUN.ireval.judge(dup_qrels, duplicates="max")["relevance"].to_list() == [None, 3]


@pytest.mark.parametrize(
    ("frame", "column", "bad", "message"),
    [
        ("run", "score", None, r"1 null values in run column 'score' \(first at row 1,"),
        ("run", "score", float("nan"), r"1 NaN values in run column 'score' \(first at row 1,"),
        ("run", "doc_id", None, r"1 null values in run column 'doc_id'"),
        ("qrels", "relevance", None, r"1 null values in qrels column 'relevance' \(first at row 0,"),
    ],
)
def test_nulls_and_nan_raise(frame: str, column: str, bad: object, message: str) -> None:
    run, qrels = RUN, QRELS
    if frame == "run":
        run = run.with_columns(
            pl.when(pl.int_range(pl.len()) == 1).then(pl.lit(bad)).otherwise(pl.col(column)).alias(column)
        )
    else:
        qrels = qrels.with_columns(pl.lit(None, dtype=pl.Int64).alias(column))
    with pytest.raises(ValueError, match=message):
        run.ireval.evaluate(qrels, ["AP"])


def test_duplicate_check_survives_hash_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    # force every key to one hash: the fast pass suspects repeats, the exact pass clears them
    monkeypatch.setattr(pl.Expr, "hash", lambda self, *a, **k: pl.lit(7, dtype=pl.UInt64))
    assert RUN.ireval.evaluate(QRELS, ["AP"])["value"].to_list() == [0.5]


def test_reserved_and_clashing_names() -> None:
    with pytest.raises(ValueError, match="run already has a column 'relevance'"):
        RUN.with_columns(pl.lit(1).alias("relevance")).ireval.evaluate(QRELS, ["AP"])
    with pytest.raises(ValueError, match="clashes"):
        RUN.with_columns(pl.lit("x").alias("metric")).ireval.evaluate(QRELS, ["AP"], by="metric")
    with pytest.raises(ValueError, match=r"shape must be one of \['long', 'wide'\], got 'tall'"):
        RUN.ireval.evaluate(QRELS, ["AP"], shape="tall")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        RUN.ireval.evaluate(QRELS, ["AP"], depth=0)
    with pytest.raises(TypeError, match="qrels must be a polars DataFrame"):
        RUN.ireval.evaluate({"q1": {"a": 1}}, ["AP"])


def test_trec_file_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 high sys\n")
    with pytest.raises(ValueError, match=r"run file .*line 2: score high is not a number; the line"):
        fe.read_trec_run(path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n\nq1 0 d2\n")
    with pytest.raises(ValueError, match=r"qrels file .*line 3: 3 field\(s\), expected 4 whitespace"):
        fe.read_trec_qrels(qrels)
    path.write_text("q1\tQ0\td1\t1\t  2.5\tsys extra junk\n")
    assert fe.read_trec_run(path).row(0) == ("q1", "d1", 1, 2.5, "sys")
