"""Any Arrow frame as input: objects that speak the Arrow PyCapsule stream interface.

A pyarrow ``Table`` or ``RecordBatchReader``, a DuckDB relation (``duckdb.sql(...)``), an
ibis or DataFusion result, a nanoarrow stream: anything with ``__arrow_c_stream__`` is
read into a polars DataFrame (through the C stream interface, without pandas) wherever
frame_eval takes a pandas frame: as ``qrels`` of the ``.ireval`` methods (polars and
pandas), and as the frame itself through :func:`ireval`. A DuckDB relation runs its query
when it is read. polars and pandas frames keep their own paths (they speak the interface
too, but need nothing of it).
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["ireval", "is_arrow_stream", "read_arrow_stream"]


def _is_pandas(frame: Any) -> bool:
    return type(frame).__module__.startswith("pandas")


def is_arrow_stream(frame: Any) -> bool:
    """Whether ``frame`` is an Arrow PyCapsule stream other than a polars or pandas frame."""
    if isinstance(frame, pl.DataFrame | pl.LazyFrame) or _is_pandas(frame):
        return False
    return hasattr(type(frame), "__arrow_c_stream__")


def read_arrow_stream(frame: Any, name: str) -> pl.DataFrame:
    """``frame``'s rows as a polars DataFrame (a ``TypeError`` naming ``name`` if the stream is not
    a table, such as a stream of plain arrays)."""
    try:
        data = pl.DataFrame(frame)
    except Exception as error:  # the producer's own errors vary; say which input and why
        kind = type(frame).__name__
        raise TypeError(f"{name} could not be read as an Arrow table ({kind}): {error}") from None
    return data


def ireval(frame: Any) -> Any:
    """The ``.ireval`` namespace of any frame: polars (``DataFrame`` or ``LazyFrame``), pandas, or an
    Arrow PyCapsule stream such as a pyarrow ``Table`` or a DuckDB relation (read into a polars
    ``DataFrame``, so results are polars DataFrames).

    >>> import pyarrow as pa, frame_eval as fe
    >>> run = pa.table({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.2, 0.9]})
    >>> qrels = pa.table({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> fe.ireval(run).evaluate(qrels, ["P@2", "RR"]).rows()
    [('q1', 'P@2', 0.5), ('q1', 'RR', 1.0)]
    """
    if isinstance(frame, pl.DataFrame | pl.LazyFrame) or _is_pandas(frame):
        return frame.ireval
    if is_arrow_stream(frame):
        return read_arrow_stream(frame, "the frame").ireval
    raise TypeError(
        f"ireval() takes a polars or pandas frame or an object with __arrow_c_stream__ (a pyarrow Table, "
        f"a DuckDB relation, ...), got {type(frame).__name__}"
    )
