"""What every ``.ireval`` method on a polars frame shares: the frame, eager or lazy in and out.

The methods themselves are in :mod:`frame_eval.polars_ns` (which puts them together) and its
families :mod:`~frame_eval.polars_ns_ranking`, :mod:`~frame_eval.polars_ns_labels` and
:mod:`~frame_eval.polars_ns_scores`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import polars as pl

from frame_eval import _checks

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
Method = TypeVar("Method", bound=Callable[..., Any])


def _collects(method: Method, unoptimized: str = "UNOPTIMIZED_ROWS") -> Method:
    """For an eager frame, build the result with its data checks set aside (``_checks.deferred``)
    so that ``_finish`` computes both in one ``collect_all``: a smaller plan than the lazy
    result's check branch, which matters for the many small calls of a training loop."""

    @functools.wraps(method)
    def wrapper(self: NamespaceBase[Any], *args: Any, **kwargs: Any) -> Any:
        if isinstance(self._frame, pl.LazyFrame):
            return method(self, *args, **kwargs)
        with _checks.deferred(rows=self._frame.height, unoptimized_rows=getattr(_checks, unoptimized)):
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _evaluates(method: Method) -> Method:
    """:func:`_collects` for ``evaluate`` and ``summarize`` (``_checks.EVALUATION_UNOPTIMIZED_ROWS``)."""
    return _collects(method, "EVALUATION_UNOPTIMIZED_ROWS")


def is_frame(value: Any) -> bool:
    """Whether ``value`` is a polars DataFrame or LazyFrame or a pandas DataFrame."""
    if isinstance(value, pl.DataFrame | pl.LazyFrame):
        return True
    return type(value).__module__.startswith("pandas") and hasattr(value, "columns")


def to_lazy(frame: Any, name: str) -> pl.LazyFrame:
    """A LazyFrame view of a polars, pandas or Arrow frame (converted, never modified)."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    module = type(frame).__module__
    if module.startswith("pandas"):
        return pl.from_pandas(frame).lazy()
    from frame_eval.arrow_input import is_arrow_stream, read_arrow_stream

    if is_arrow_stream(frame):  # a pyarrow Table, a DuckDB relation, ...
        return read_arrow_stream(frame, name).lazy()
    raise TypeError(
        f"{name} must be a polars DataFrame or LazyFrame, a pandas DataFrame or an Arrow table "
        f"(an object with __arrow_c_stream__), got {type(frame).__name__}"
    )


class NamespaceBase(Generic[FrameT]):
    """The frame an ``.ireval`` namespace sits on, and how a method hands back its result."""

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _predictions(self) -> pl.LazyFrame:
        """The predictions as a LazyFrame; a lazy input is cached, so that a collect reads it once
        (the result and each data check read it; an upstream may be a costly parse or scan)."""
        frame = to_lazy(self._frame, "predictions")
        return frame.cache() if isinstance(self._frame, pl.LazyFrame) else frame

    def _finish(self, result: pl.LazyFrame) -> FrameT:
        if isinstance(self._frame, pl.LazyFrame):
            return result  # type: ignore[return-value]
        # eager in: the data checks set aside by ``_collects`` are computed with the result
        # stacklevel 6: warnings point at the caller's line
        return _checks.collect(result, stacklevel=6)  # type: ignore[return-value]
