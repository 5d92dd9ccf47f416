"""Bad classification input: each ``.ireval`` method names the column, the offending row or value, the fix.

Schema problems (a label column of the wrong type) raise when the method is
called, eager or lazy; data problems (null labels, scores outside a declared
range) raise when the result is collected. The caller's frame is never changed.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import frame_eval  # noqa: F401
from frame_eval import classification as C

PREDS = pl.DataFrame({
    "model": ["a", "a", "a", "b", "b", "b"],
    "label": [1, 0, 1, 0, 1, 0],
    "pred": [1, 0, 0, 1, 1, 0],
    "prob": [0.9, 0.2, 0.4, 0.7, 0.8, 0.1],
})

LABEL_METHODS: list[tuple[str, dict[str, Any]]] = [
    ("confusion", {"actual": "label", "predicted": "pred", "by": "model"}),
    ("confusion", {"actual": "label", "predicted": "pred", "positive": None}),
    ("rates", {"actual": "label", "predicted": "pred", "by": "model"}),
    ("rates", {"actual": "label", "predicted": "pred", "average": "macro"}),
    ("confusion_matrix", {"actual": "label", "predicted": "pred"}),
]
SCORE_METHODS: list[tuple[str, dict[str, Any]]] = [
    ("roc", {"actual": "label", "score": "prob", "by": "model"}),
    ("pr_curve", {"actual": "label", "score": "prob"}),
    ("scores", {"actual": "label", "score": "prob", "by": "model"}),
    ("scores", {"actual": "label", "score": {0: "prob", 1: "prob"}}),
]
ALL_METHODS = LABEL_METHODS + SCORE_METHODS


def _ids(cases: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [f"{name}-{i}" for i, (name, _) in enumerate(cases)]


def _call(frame: pl.DataFrame | pl.LazyFrame | pd.DataFrame, method: str, options: dict[str, Any]) -> Any:
    return getattr(frame.ireval, method)(**options)


def _with(column: str, row: int, value: Any) -> pl.DataFrame:
    """PREDS with one cell replaced (the column keeps its dtype unless ``value`` forces another)."""
    values = PREDS[column].to_list()
    values[row] = value
    return PREDS.with_columns(pl.Series(column, values, strict=False))


@pytest.mark.parametrize(("method", "options"), ALL_METHODS, ids=_ids(ALL_METHODS))
def test_null_label_names_the_column_and_row(method: str, options: dict[str, Any]) -> None:
    bad = _with("label", 4, None)
    before = bad.clone()
    message = (
        r"1 null values in predictions column 'label' \(first at row 4, counting from 0\); "
        r"drop or fill them"
    )
    with pytest.raises(ValueError, match=message):
        _call(bad, method, options)
    lazy = _call(bad.lazy(), method, options)  # nothing is read yet
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(ValueError, match=message):
        lazy.collect()
    assert_frame_equal(bad, before)


@pytest.mark.parametrize(("method", "options"), LABEL_METHODS, ids=_ids(LABEL_METHODS))
def test_null_predicted_label_names_that_column(method: str, options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"null values in predictions column 'pred' \(first at row 2,"):
        _call(_with("pred", 2, None), method, options)


@pytest.mark.parametrize(("method", "options"), SCORE_METHODS, ids=_ids(SCORE_METHODS))
def test_null_or_nan_score_names_the_column(method: str, options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"null values in predictions column 'prob' \(first at row 1,"):
        _call(_with("prob", 1, None), method, options)
    with pytest.raises(ValueError, match=r"NaN values in predictions column 'prob' \(first at row 3,"):
        _call(_with("prob", 3, float("nan")).lazy(), method, options).collect()


@pytest.mark.parametrize(("method", "options"), ALL_METHODS, ids=_ids(ALL_METHODS))
@pytest.mark.parametrize("dtype", [pl.Float64, pl.Date, pl.List(pl.Int64)], ids=str)
def test_label_column_of_the_wrong_type_fails_at_the_call(
    method: str, options: dict[str, Any], dtype: pl.DataType
) -> None:
    if dtype == pl.Date:
        bad = PREDS.with_columns(pl.col("label").cast(pl.Date))
    elif isinstance(dtype, pl.List):
        bad = PREDS.with_columns(pl.concat_list("label"))
    else:
        bad = PREDS.with_columns(pl.col("label").cast(dtype))
    message = rf"predictions column 'label' must hold class labels .*got {re.escape(str(dtype))}; cast it"
    for frame in (bad, bad.lazy()):  # a schema problem: raised before anything is collected
        with pytest.raises(TypeError, match=message):
            _call(frame, method, options)


@pytest.mark.parametrize(("method", "options"), SCORE_METHODS, ids=_ids(SCORE_METHODS))
def test_score_outside_the_declared_range(method: str, options: dict[str, Any]) -> None:
    bad = _with("prob", 5, 1.25)
    ranged = {**options, "score_range": (0, 1)}
    _call(bad, method, options)  # no range declared: any number is a score
    message = (
        r"1 values in predictions column 'prob' are outside the declared score range \[0.0, 1.0\] "
        r"\(first at row 5, counting from 0: 1.25\); fix the scores or score_range="
    )
    with pytest.raises(ValueError, match=message):
        _call(bad, method, ranged)
    lazy = _call(bad.lazy(), method, ranged)
    with pytest.raises(ValueError, match=message):
        lazy.collect()
    # the bounds belong to the range, and a wider range accepts the score
    _call(PREDS.with_columns(pl.col("prob").round(0)), method, ranged)
    _call(bad, method, {**options, "score_range": (0, 2)})


def test_score_range_must_be_a_pair_in_order() -> None:
    for bad in (0.5, (0, 1, 2), ("low", "high")):
        with pytest.raises(ValueError, match="score_range must be a pair"):
            PREDS.ireval.roc("label", "prob", score_range=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="score_range must have low <= high"):
        PREDS.ireval.scores("label", "prob", score_range=(0, float("nan")))


def test_pandas_missing_labels_are_reported_on_the_column() -> None:
    objects = pd.DataFrame({"label": ["cat", None, "dog"], "pred": ["cat", "cat", "dog"]})
    nullable = pd.DataFrame({"label": pd.array([1, None, 0], dtype="Int64"), "pred": [1, 0, 0]})
    for frame in (objects, nullable):
        before = frame.copy()
        message = r"missing values .* in predictions column 'label' \(first at row 1\b"
        with pytest.raises(ValueError, match=message):
            frame.ireval.confusion("label", "pred")
        pd.testing.assert_frame_equal(frame, before)
    # a plain integer column with a gap becomes float64 in pandas: the message says why
    floats = pd.DataFrame({"label": [1, None, 0], "pred": [1, 0, 0]})
    with pytest.raises(TypeError, match=r"column 'label' must hold class labels .*float64.*missing values"):
        floats.ireval.rates("label", "pred")


def test_expressions_skip_null_labels_instead() -> None:
    bad = _with("label", 4, None)
    assert bad.select(C.total("label", "pred"), C.tp("label", "pred")).row(0) == (5, 1)
