"""The pandas accessor: real signatures, pandas errors, index levels, labels, NaN, inputs unchanged."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval.pandas_ns import PandasIREval, pandas_message, public_methods
from frame_eval.polars_ns import IREvalNamespace

pd = pytest.importorskip("pandas")
from pandas.testing import assert_frame_equal  # noqa: E402

METHODS = ["judge", "evaluate", "summarize", "confusion", "rates", "confusion_matrix", "roc", "pr_curve",
           "scores"]
POLARS_WORDS = ("pl.", "polars", "LazyFrame", "collect", "Float64", "Int64", "String", "Boolean")

RUN = pd.DataFrame({
    "system": ["a", "a", "a", "b", "b"],
    "query_id": ["q1", "q1", "q2", "q1", "q2"],
    "doc_id": ["d1", "d2", "d1", "d2", "d3"],
    "score": [0.9, 0.4, 0.7, 0.8, 0.2],
})
QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "relevance": [1, 0, 2]})
PREDS = pd.DataFrame({
    "model": ["m", "m", "m", "n", "n", "n"],
    "label": [1, 0, 1, 0, 1, 0],
    "pred": [1, 0, 0, 1, 1, 0],
    "prob": [0.9, 0.2, 0.4, 0.7, 0.8, 0.1],
})


def _ranking(method: str, run: Any = RUN, qrels: Any = QRELS, **options: Any) -> Callable[[], Any]:
    return lambda: getattr(run.ireval, method)(qrels, **{"by": "system", **options})


def _classify(method: str, preds: Any = PREDS, **options: Any) -> Callable[[], Any]:
    return lambda: getattr(preds.ireval, method)(**options)


def _set(frame: Any, column: str, values: list[Any], dtype: Any = None) -> Any:
    out = frame.copy()
    out[column] = pd.Series(values, dtype=dtype, index=out.index)
    return out


# -- signatures and documentation -----------------------------------------------------------------

@pytest.mark.parametrize("method", public_methods())
def test_signature_and_docs_are_the_polars_methods(method: str) -> None:
    pandas_method = getattr(PandasIREval, method)
    polars_method = getattr(IREvalNamespace, method)
    got = inspect.signature(pandas_method)
    want = inspect.signature(polars_method)
    assert list(got.parameters.values()) == list(want.parameters.values())
    if all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in want.parameters.values()):
        assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in got.parameters.values())
    assert got.return_annotation == ("pandas.DataFrame" if "Frame" in str(want.return_annotation) else
                                     want.return_annotation)
    # the accessor instance shows the same parameters, without self (what help() and tab completion read)
    assert set(METHODS) <= set(public_methods())
    bound = inspect.signature(getattr(RUN.ireval, method))
    assert list(bound.parameters) == list(want.parameters)[1:]
    summary = polars_method.__doc__.split("\n        Examples\n")[0].rstrip()
    assert pandas_method.__doc__.startswith(summary)
    assert "pandas" in pandas_method.__doc__.split(summary, 1)[1]


def test_unknown_and_misplaced_arguments_fail_like_a_python_function() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'bi'"):
        RUN.ireval.evaluate(QRELS, bi="system")
    with pytest.raises(TypeError, match="too many positional arguments"):
        RUN.ireval.evaluate(QRELS, ["AP"], "system")


# -- errors in pandas terms -------------------------------------------------------------------------

ERROR_CASES: dict[str, tuple[Callable[[], Any], type[Exception], list[str]]] = {
    "missing run column": (_ranking("evaluate", query_id="qid"), ValueError, ["no column 'qid'"]),
    "missing qrels column": (
        _ranking("judge", qrels=QRELS.rename(columns={"relevance": "rel"})), ValueError, ["'relevance'"]
    ),
    "text scores": (
        _ranking("evaluate", run=_set(RUN, "score", ["1", "2", "3", "4", "5"])), TypeError,
        ["column 'score'", "got str", "df['score'].astype('float64')"],
    ),
    "float judgements": (
        _ranking("summarize", qrels=_set(QRELS, "relevance", [1.0, 0.0, 2.0])), TypeError,
        ["column 'relevance'", "got float64", "df['relevance'].astype('int64')"],
    ),
    "string vs integer ids": (
        _ranking("evaluate", qrels=_set(QRELS, "doc_id", [1, 2, 3])), TypeError,
        ["column 'doc_id'", "df['doc_id'].astype(str)"],
    ),
    "float ids": (
        _ranking("judge", qrels=_set(QRELS, "doc_id", [1.0, 2.0, 3.0])), TypeError,
        ["column 'doc_id'", "got float64", "df['doc_id'].astype(str)"],
    ),
    "NaN score": (
        _ranking("evaluate", run=_set(RUN, "score", [0.9, np.nan, 0.7, 0.8, 0.2])), ValueError,
        ["NaN values in run column 'score'", "row 1"],
    ),
    "None id": (
        _ranking("evaluate", run=_set(RUN, "doc_id", ["d1", None, "d1", "d2", "d3"])), ValueError,
        ["missing values (None, NaN or pd.NA) in run column 'doc_id'", "row 1"],
    ),
    "pd.NA judgement": (
        _ranking("summarize", qrels=_set(QRELS, "relevance", [1, pd.NA, 2], "Int64")), ValueError,
        ["missing values", "qrels column 'relevance'", "row 1"],
    ),
    "duplicate run rows": (_ranking("evaluate", by=None), ValueError, ["query_id", "doc_id", "q1"]),
    "duplicate qrels rows": (
        _ranking("judge", qrels=pd.concat([QRELS, QRELS.head(1)], ignore_index=True)), ValueError,
        ["qrels", "d1"],
    ),
    "bad measure name": (_ranking("evaluate", measures=["APP"]), ValueError, ["'APP'"]),
    "bad depth": (_ranking("evaluate", depth=0), ValueError, ["depth"]),
    "qrels not a frame": (
        _ranking("evaluate", qrels=[1, 2]), TypeError, ["qrels must be a pandas DataFrame"]
    ),
    "mixed object ids": (
        _ranking("evaluate", run=_set(RUN, "doc_id", ["d1", 2, "d1", "d2", "d3"], object)), TypeError,
        ["column 'doc_id'", "int, str", "df['doc_id'].astype(str)"],
    ),
    "int vs bool labels": (
        _classify("confusion", preds=_set(PREDS, "pred", [True, False] * 3), actual="label",
                  predicted="pred"),
        TypeError, ["'label' (int64)", "'pred' (bool)", "df['pred'].astype('int64')"],
    ),
    "bool vs int labels": (
        _classify("rates", preds=_set(PREDS, "label", [True, False] * 3), actual="label", predicted="pred"),
        TypeError, ["df['pred'].astype(bool)"],
    ),
    "float labels (an int column with a gap)": (
        _classify("confusion", preds=_set(PREDS, "label", [1, None, 1, 0, 1, 0]), actual="label",
                  predicted="pred"),
        TypeError, ["column 'label'", "got float64", "df['label'].astype('int64')"],
    ),
    "non-binary labels": (
        _classify("rates", preds=_set(PREDS, "pred", [1, 2, 0, 1, 1, 0]), actual="label", predicted="pred"),
        ValueError, ["column 'pred'", "neither 0 nor 1", "row 1"],
    ),
    "missing labels": (
        _classify("confusion_matrix", preds=_set(PREDS, "label", ["a", None, "b", "a", "b", "a"]),
                  actual="label", predicted="model"),
        ValueError, ["missing values (None, NaN or pd.NA) in predictions column 'label'", "row 1"],
    ),
    "NaN probability": (
        _classify("scores", preds=_set(PREDS, "prob", [0.9, 0.2, np.nan, 0.7, 0.8, 0.1]), actual="label",
                  score="prob"),
        ValueError, ["NaN values in predictions column 'prob'", "row 2"],
    ),
    "score out of range": (
        _classify("roc", actual="label", score="prob", score_range=(0, 0.85)), ValueError,
        ["column 'prob'", "outside", "row 0"],
    ),
    "text score": (
        _classify("pr_curve", preds=_set(PREDS, "prob", list("abcdef")), actual="label", score="prob"),
        TypeError, ["'prob'"],
    ),
    "bad positive label": (
        _classify("confusion", actual="label", predicted="pred", positive="x"), TypeError,
        ["positive='x'", "int64"],
    ),
    "bad classification measure": (
        _classify("rates", actual="label", predicted="pred", metrics=["recal"]), ValueError, ["'recal'"],
    ),
    "score measure in rates": (
        _classify("rates", actual="label", predicted="pred", metrics=["ROC_AUC"]), ValueError, ["scores("],
    ),
    "missing label column": (
        _classify("confusion", actual="y", predicted="pred"), ValueError, ["no column 'y'"],
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_every_error_is_clean_and_in_pandas_terms(case: str) -> None:
    call, kind, fragments = ERROR_CASES[case]
    with pytest.raises(kind) as info:
        call()
    error = info.value
    message = str(error)
    assert type(error) in (ValueError, TypeError), type(error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__), message
    for word in POLARS_WORDS:
        assert word not in message, (word, message)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_rows_are_positions_and_named_by_index_label() -> None:
    run = _set(RUN, "score", [0.9, 0.4, np.nan, 0.8, 0.2]).set_index("system")
    with pytest.raises(ValueError, match=r"row 2 \(0-based position; index label 'a'\)"):
        run.ireval.evaluate(QRELS, by="system")
    shuffled = _set(RUN, "score", [0.9, 0.4, np.nan, 0.8, 0.2]).set_axis([10, 11, 12, 13, 14])
    with pytest.raises(ValueError, match=r"row 2 \(0-based position; index label 12\)"):
        shuffled.ireval.evaluate(QRELS, by="system")


def test_the_first_of_several_bad_rows_is_named() -> None:
    run = _set(RUN, "score", [0.9, 0.4, np.nan, np.nan, np.nan]).set_index("system")
    with pytest.raises(ValueError, match=r"row 2 \(0-based position; index label 'a'\)"):
        run.ireval.evaluate(QRELS, by="system")


MESSAGE_PATTERNS = {
    "run column 'score' must be numeric, got String; cast it, e.g. pl.col('score').cast(pl.Float64)":
        "run column 'score' must be numeric, got str; cast it, e.g. df['score'].astype('float64')",
    "cast one, e.g. pl.col(\"pred\").cast(pl.Boolean)": "cast one, e.g. df[\"pred\"].astype(bool)",
    "e.g. pl.col('c').cast(pl.Enum(categories=['a', 'b'])) or pl.col('c').cast(pl.UInt32)":
        "e.g. df['c'].astype('category') or df['c'].astype('uint32')",
    "e.g. pl.col('c').cast(pl.Categorical)": "e.g. df['c'].astype('category')",
    "filter with pl.col('x').is_not_null()": "filter with df['x'].is_not_null()",
    "got Int64 and Float32; pass a polars DataFrame or LazyFrame or a pandas DataFrame":
        "got int64 and float32; pass a pandas DataFrame",
    "3 null values in run column 'q' (first at row 4); raised when you collect the LazyFrame":
        "3 missing values (None, NaN or pd.NA) in run column 'q' (first at row 4 (0-based))",
    "null values in 'x'. With a LazyFrame this is raised at collect time. Drop them":
        "missing values (None, NaN or pd.NA) in 'x'. Drop them",
    "(first at row 4, counting from 0)": "(first at row 4, counting from 0)",
}


@pytest.mark.parametrize("message", list(MESSAGE_PATTERNS))
def test_message_patterns_are_rewritten(message: str) -> None:
    assert pandas_message(message) == MESSAGE_PATTERNS[message]


# -- index levels, column labels, empty frames -------------------------------------------------------

def _evaluate(run: Any, qrels: Any = QRELS) -> Any:
    return run.ireval.evaluate(qrels, ["AP", "P@1"], by="system")


def test_index_levels_holding_key_columns_are_used() -> None:
    want = _evaluate(RUN)
    assert_frame_equal(_evaluate(RUN.set_index("query_id")), want)
    assert_frame_equal(_evaluate(RUN.set_index(["system", "query_id"])), want)
    both = _evaluate(RUN.set_index(["system", "query_id"]), QRELS.set_index(["query_id", "doc_id"]))
    assert_frame_equal(both, want)
    # a groupby result: the keys are a MultiIndex
    grouped = RUN.groupby(["system", "query_id", "doc_id"]).agg(score=("score", "max"))
    assert_frame_equal(_evaluate(grouped), want)
    # classification: by= and the label from the index
    want = PREDS.ireval.rates("label", "pred", by="model", metrics=["recall"])
    got = PREDS.set_index(["model", "label"]).ireval.rates("label", "pred", by="model", metrics=["recall"])
    assert_frame_equal(got, want)
    # an index level not named in the call is not read, and a column wins over a level of the same name
    unnamed = RUN.set_index("doc_id", drop=False)
    assert_frame_equal(_evaluate(unnamed), _evaluate(RUN))


def test_integer_column_labels() -> None:
    run = RUN.set_axis(range(4), axis=1)  # 0 system, 1 query_id, 2 doc_id, 3 score
    qrels = QRELS.set_axis([1, 2, "relevance"], axis=1)
    got = run.ireval.evaluate(qrels, ["AP"], by=0, query_id=1, doc_id=2, score=3)
    want = RUN.ireval.evaluate(QRELS, ["AP"], by="system")
    assert list(got.columns) == [0, 1, "metric", "value"]
    assert got.values.tolist() == want.values.tolist()
    judged = run.ireval.judge(qrels, by=[0], query_id=1, doc_id=2, score=3)
    assert list(judged.columns)[:3] == [0, 1, 2]
    preds = PREDS.set_axis([10, 11, 12, 13], axis=1)
    got = preds.ireval.scores(11, {0: 13, 1: 13}, by=10, metrics=["ROC_AUC"])
    assert got.columns[0] == 10
    with pytest.raises(TypeError, match=r"run column 3 must be numeric, got str; .*df\[3\]\.astype"):
        _set(run, 3, list("abcde")).ireval.evaluate(qrels, by=0, query_id=1, doc_id=2, score=3)
    with pytest.raises(ValueError, match="columns 0 and '0'"):
        run.assign(**{"0": 1}).ireval.evaluate(qrels, by=0, query_id=1, doc_id=2, score=3)


def test_multiindex_columns_and_repeated_labels_are_refused() -> None:
    wide = RUN.copy()
    wide.columns = pd.MultiIndex.from_tuples([("k", c) for c in RUN.columns])
    with pytest.raises(TypeError, match="MultiIndex columns; flatten"):
        wide.ireval.evaluate(QRELS)
    with pytest.raises(ValueError, match="more than one column labelled 'score'"):
        pd.concat([RUN, RUN[["score"]]], axis=1).ireval.evaluate(QRELS)


def test_empty_categorical_ids_give_the_empty_result() -> None:
    def empty(frame: Any, category: list[str]) -> Any:
        return frame.head(0).astype({c: "category" for c in category})

    run, qrels = empty(RUN, ["system", "query_id", "doc_id"]), empty(QRELS, ["query_id", "doc_id"])
    for method in ("evaluate", "summarize", "judge"):
        got = getattr(run.ireval, method)(qrels, ["AP"], by="system") if method != "judge" else (
            run.ireval.judge(qrels, by="system"))
        assert len(got) == 0
        want = getattr(pl.from_pandas(RUN.head(0)).ireval, method)(
            pl.from_pandas(QRELS.head(0)), *([["AP"]] if method != "judge" else []), by="system")
        assert list(got.columns) == want.columns
    # integer categories keep integer ids: an integer qrels still matches
    run = RUN.head(0).assign(query_id=pd.Categorical([], categories=[1, 2]))
    qrels = pd.DataFrame({"query_id": [1], "doc_id": ["d1"], "relevance": [1]})
    assert len(run.ireval.evaluate(qrels, ["AP"], by="system")) == 0


# -- the caller's frames are never modified -------------------------------------------------------

CALLS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("judge", lambda r, q: r.ireval.judge(q, by="system")),
    ("evaluate", lambda r, q: r.ireval.evaluate(q, ["AP", "nDCG@5"], by="system", shape="wide")),
    ("summarize", lambda r, q: r.ireval.summarize(q, ["AP"], by="system")),
    ("confusion", lambda p, _: p.ireval.confusion("label", "pred", by="model")),
    ("rates", lambda p, _: p.ireval.rates("label", "pred", by="model")),
    ("confusion_matrix", lambda p, _: p.ireval.confusion_matrix("label", "pred")),
    ("roc", lambda p, _: p.ireval.roc("label", "prob", by="model")),
    ("pr_curve", lambda p, _: p.ireval.pr_curve("label", "prob")),
    ("scores", lambda p, _: p.ireval.scores("label", "prob", by="model")),
]


@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize(("method", "call"), CALLS, ids=[m for m, _ in CALLS])
def test_inputs_are_never_modified(method: str, call: Callable[[Any, Any], Any], indexed: bool) -> None:
    assert {m for m, _ in CALLS} == set(METHODS)
    main = RUN if method in ("judge", "evaluate", "summarize") else PREDS
    main = main.set_index(main.columns[0]) if indexed else main.copy()
    main = main.assign(extra=pd.Series([np.nan] * len(main), index=main.index))  # NaN elsewhere is fine
    qrels = QRELS.copy()
    before, qrels_before = copy.deepcopy(main), copy.deepcopy(qrels)
    result = call(main, qrels)
    assert isinstance(result, pd.DataFrame) and len(result) > 0
    assert_frame_equal(main, before)
    assert_frame_equal(qrels, qrels_before)


# -- messages the core may write in future: the layer rewrites them too ---------------------------

def test_new_core_errors_and_warnings_are_rewritten(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core message written later in polars terms still reaches a pandas user in pandas terms."""

    def failing(self: Any, qrels: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            raise KeyError("an internal step")
        except KeyError:
            raise TypeError(
                "qrels column 'grade' is UInt64; cast it, e.g. pl.col('grade').cast(pl.Int64), "
                "or collect the LazyFrame first"
            ) from None

    def warning(self: Any, qrels: Any, *args: Any, **kwargs: Any) -> Any:
        import warnings

        message = "pl.col('query_id') holds few judged queries in this LazyFrame"
        warnings.warn(message, UserWarning, stacklevel=2)
        return pl.DataFrame({"query_id": ["q1"]})

    monkeypatch.setattr(IREvalNamespace, "evaluate", failing)
    with pytest.raises(TypeError) as info:
        RUN.ireval.evaluate(QRELS)
    assert str(info.value) == "qrels column 'grade' is uint64; cast it, e.g. df['grade'].astype('int64')"
    assert info.value.__cause__ is None and info.value.__suppress_context__
    monkeypatch.setattr(IREvalNamespace, "evaluate", warning)
    expected = r"^df\['query_id'\] holds few judged queries in this DataFrame$"
    with pytest.warns(UserWarning, match=expected) as caught:
        RUN.ireval.evaluate(QRELS)
    assert caught[0].filename == __file__  # points at the caller's line
