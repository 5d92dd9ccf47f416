"""Every data check that reports "first at row N" names the FIRST bad row, under every engine.

Each case puts the same defect in several rows (3, 6 and 8 of 10, then a
larger frame whose bad rows lie far apart) and requires the message to name
row 3 (0-based) and, where the message shows a value, that row's value:
eager, lazy with ``collect()`` and ``collect(engine="streaming")``, and the
partitioned path of ``evaluate``; pandas messages name the same position.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import frame_eval  # noqa: F401

BAD_ROWS = (3, 6, 8)
FIRST = BAD_ROWS[0]
N = 10


def _spoil(
    frame: pl.DataFrame, column: str, values: list[Any], rows: tuple[int, ...] = BAD_ROWS
) -> pl.DataFrame:
    """``frame`` with ``column`` set to ``values[i]`` at the i-th of ``rows``."""
    series = frame[column].to_list()
    for row, value in zip(rows, values, strict=True):
        series[row] = value
    return frame.with_columns(pl.Series(column, series, dtype=frame.schema[column]))


def _predictions(n: int = N) -> pl.DataFrame:
    return pl.DataFrame({
        "model": ["a", "b"] * (n // 2),
        "y": [i % 2 for i in range(n)],
        "yhat": [(i // 2) % 2 for i in range(n)],
        "s": [(i % 7) / 7 for i in range(n)],
        "w": [1.0] * n,
        "lab": ["cat", "dog"] * (n // 2),
        "p_cat": [0.25] * n,
        "p_dog": [0.75] * n,
    })


PROBS = {"cat": "p_cat", "dog": "p_dog"}
# name -> (spoiled frame maker, call on a frame, column named, value shown for row 3 or None)
Call = Callable[[Any], Any]
CLASSIFICATION: dict[str, tuple[Callable[[int, tuple[int, ...]], pl.DataFrame], Call, str, Any]] = {
    "null label": (lambda n, rows: _spoil(_predictions(n), "y", [None] * 3, rows),
                   lambda f: f.ireval.rates("y", "yhat", by="model"), "y", None),
    "label 2": (lambda n, rows: _spoil(_predictions(n), "y", [2, 5, 7], rows),
                lambda f: f.ireval.confusion("y", "yhat"), "y", 2),
    "prediction -1": (lambda n, rows: _spoil(_predictions(n), "yhat", [-1, 4, 9], rows),
                      lambda f: f.ireval.rates("y", "yhat"), "yhat", -1),
    "NaN score": (lambda n, rows: _spoil(_predictions(n), "s", [float("nan")] * 3, rows),
                  lambda f: f.ireval.scores("y", "s", by="model"), "s", None),
    "score out of range": (lambda n, rows: _spoil(_predictions(n), "s", [1.5, 2.5, -1.0], rows),
                           lambda f: f.ireval.scores("y", "s", score_range=(0, 1)), "s", 1.5),
    "curve score out of range": (lambda n, rows: _spoil(_predictions(n), "s", [1.25, 2.5, -1.0], rows),
                                 lambda f: f.ireval.roc("y", "s", score_range=(0, 1)), "s", 1.25),
    "best threshold label 3": (lambda n, rows: _spoil(_predictions(n), "y", [3, 4, 5], rows),
                               lambda f: f.ireval.best_threshold("y", "s"), "y", 3),
    "negative weight": (lambda n, rows: _spoil(_predictions(n), "w", [-1.0, -2.0, -3.0], rows),
                        lambda f: f.ireval.rates("y", "yhat", weight="w"), "w", -1.0),
    "infinite weight": (lambda n, rows: _spoil(_predictions(n), "w", [float("inf"), -2.0, None], rows),
                        lambda f: f.ireval.scores("y", "s", weight="w"), "w", float("inf")),
    "probability above 1": (lambda n, rows: _spoil(_predictions(n), "s", [1.5, 2.5, 3.5], rows),
                            lambda f: f.ireval.probabilities("y", "s"), "s", 1.5),
    "probabilities label 2": (lambda n, rows: _spoil(_predictions(n), "y", [2, 3, 4], rows),
                              lambda f: f.ireval.probabilities("y", "s"), "y", 2),
    "probability weight": (lambda n, rows: _spoil(_predictions(n), "w", [-0.5, -2.0, -3.0], rows),
                           lambda f: f.ireval.probabilities("y", "s", weight="w"), "w", -0.5),
    "multi-class sum": (lambda n, rows: _spoil(_predictions(n), "p_cat", [0.5, 0.6, 0.7], rows),
                        lambda f: f.ireval.probabilities("lab", PROBS), "p_cat", 1.25),
    "multi-class label": (lambda n, rows: _spoil(_predictions(n), "lab", ["eel", "fox", "gnu"], rows),
                          lambda f: f.ireval.probabilities("lab", PROBS), "lab", "eel"),
    "multi-class score key": (lambda n, rows: _spoil(_predictions(n), "lab", ["eel", "fox", "gnu"], rows),
                              lambda f: f.ireval.scores("lab", PROBS, average="macro"), "lab", "eel"),
    "multi-class ROC range": (lambda n, rows: _spoil(_predictions(n), "p_dog", [1.5, 2.0, 3.0], rows),
                              lambda f: f.ireval.scores("lab", PROBS, average="macro", metrics=["ROC_AUC"]),
                              "p_dog", 1.5),
    "calibration NaN": (lambda n, rows: _spoil(_predictions(n), "s", [float("nan")] * 3, rows),
                        lambda f: f.ireval.calibration("y", "s"), "s", None),
}


def _run(n: int = N) -> pl.DataFrame:
    return pl.DataFrame({
        "system": ["s1"] * n,
        "query_id": [f"q{i % 2}" for i in range(n)],
        "doc_id": [f"d{i}" for i in range(n)],
        "score": [float(n - i) for i in range(n)],
    })


def _qrels(n: int = N) -> pl.DataFrame:
    return pl.DataFrame({
        "query_id": [f"q{i % 2}" for i in range(n)],
        "doc_id": [f"d{i}" for i in range(n)],
        "relevance": [i % 3 for i in range(n)],
    })


def _repeat(frame: pl.DataFrame, rows: tuple[int, ...]) -> pl.DataFrame:
    """Each of ``rows`` repeats the (query, doc) of the row two before it (same query): the first
    row of a repeated pair is then ``rows[0] - 2``."""
    doc = frame["doc_id"].to_list()
    query = frame["query_id"].to_list()
    for row in rows:
        doc[row], query[row] = doc[row - 2], query[row - 2]
    return frame.with_columns(pl.Series("doc_id", doc), pl.Series("query_id", query))


# name -> (spoiled (run, qrels), column named, first row named)
RANKING: dict[str, tuple[Callable[[int, tuple[int, ...]], tuple[pl.DataFrame, pl.DataFrame]], str, int]] = {
    "null run query_id": (lambda n, rows: (_spoil(_run(n), "query_id", [None] * 3, rows), _qrels(n)),
                          "query_id", FIRST),
    "null doc_id": (lambda n, rows: (_spoil(_run(n), "doc_id", [None] * 3, rows), _qrels(n)),
                    "doc_id", FIRST),
    "NaN score": (lambda n, rows: (_spoil(_run(n), "score", [float("nan")] * 3, rows), _qrels(n)),
                  "score", FIRST),
    "null relevance": (lambda n, rows: (_run(n), _spoil(_qrels(n), "relevance", [None] * 3, rows)),
                       "relevance", FIRST),
    "null qrels doc_id": (lambda n, rows: (_run(n), _spoil(_qrels(n), "doc_id", [None] * 3, rows)),
                          "doc_id", FIRST),
    # the first row of a repeated (query, doc) pair is the earlier twin: row 3 - 2
    "repeated run row": (lambda n, rows: (_repeat(_run(n), rows), _qrels(n)), "doc_id", FIRST - 2),
    "repeated qrels row": (lambda n, rows: (_run(n), _repeat(_qrels(n), rows)), "doc_id", FIRST - 2),
}

SIZES = [(N, BAD_ROWS), (300_000, (FIRST, 150_003, 299_998))]


def _error(call: Callable[[], Any]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises((ValueError, TypeError)) as caught:
            call()
    assert type(caught.value) in (ValueError, TypeError)
    return str(caught.value)


def _named_row(text: str) -> int:
    found = re.search(r"(?:first at row |first repeated row is row )(\d+)", text)
    assert found, text
    return int(found.group(1))


@pytest.mark.parametrize("size", SIZES, ids=["10 rows", "300000 rows"])
@pytest.mark.parametrize("case", list(CLASSIFICATION))
def test_classification_checks_name_the_first_bad_row(case: str, size: tuple[int, tuple[int, ...]]) -> None:
    make, call, column, value = CLASSIFICATION[case]
    frame = make(*size)
    if case == "multi-class sum":
        value = 0.5 + 0.75
    lazy = call(frame.lazy())
    for collect in (lambda: call(frame), lazy.collect, lambda: lazy.collect(engine="streaming")):
        text = _error(collect)
        assert _named_row(text) == FIRST, text
        assert repr(column) in text, text
        if value is not None:
            assert f"counting from 0: {value!r}" in text, text
    if size[0] == N:  # pandas (an integer column with None becomes float: a dtype error, no row)
        text = _error(lambda: call(frame.to_pandas()))
        assert "row" not in text if case == "null label" else _named_row(text) == FIRST, text


@pytest.mark.parametrize("size", SIZES, ids=["10 rows", "300000 rows"])
@pytest.mark.parametrize("method", ["judge", "evaluate", "summarize", "partitioned"])
@pytest.mark.parametrize("case", list(RANKING))
def test_ranking_checks_name_the_first_bad_row(
    case: str, method: str, size: tuple[int, tuple[int, ...]]
) -> None:
    """The partitioned path checks one query range at a time, yet its error is the single plan's:
    the first bad row of the whole input, whichever range holds it, and the count over all ranges."""
    make, column, first = RANKING[case]
    run, qrels = make(*size)

    def call(r: Any, q: Any) -> Any:
        if method == "partitioned":
            return r.ireval.evaluate(q, ["AP", "P@5"], by="system", partitions=3)
        return getattr(r.ireval, method)(q, by="system")

    runs: list[Callable[[], Any]] = [lambda: call(run, qrels)]
    if method != "partitioned":
        lazy = call(run.lazy(), qrels.lazy())
        runs += [lazy.collect, lambda: lazy.collect(engine="streaming")]
    else:
        runs.append(lambda: call(run.lazy(), qrels.lazy()).collect())
    for collect in runs:
        text = _error(collect)
        assert repr(column) in text or f", {column})" in text, text
        assert _named_row(text) == first, text
        if method == "partitioned":  # the single plan's error, word for word
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                assert text == _error(lambda: run.ireval.evaluate(qrels, ["AP", "P@5"], by="system"))
    if size[0] == N and method != "partitioned":  # (pandas: an integer column with None is float)
        text = _error(lambda: call(run.to_pandas(), qrels.to_pandas()))
        assert "must hold integer" in text if case == "null relevance" else _named_row(text) == first, text
