"""Plans of small eager calls, built once per shape of call and collected again for the next.

A training loop or a notebook evaluates many small frames of one schema with the same
measures and options. Building such a call's lazy plan (resolving the measures, checking
the schemas, writing the expressions and the data checks) is Python work that costs about
a fifth of a 100-query call. So an eager call on a small run (``_checks.SMALL_ROWS``) is
planned once per shape: the method, its measures and options as given (with their types,
so that ``depth=True`` is not taken for ``depth=1``), the column names, both frames'
schemas, whether the optimizer runs (``_checks.Deferred.few``) and the state of the
measure registry. The plan reads two placeholder sources (polars IO sources) that hand
out the frames of the call at hand; a later call of the same shape sets its frames and
collects it. The plan and its data checks are those a fresh call builds, so values,
errors and warnings are the same.

An entry serves one call at a time: a call that finds it busy (another thread) plans
afresh. At most :data:`SIZE` shapes are kept, the least recently used dropped; frames are
let go when their call returns.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from frame_eval import _checks, registry

try:  # polars calls its IO sources unstable: without them, every call is planned afresh
    from polars.io.plugins import register_io_source
except ImportError:  # pragma: no cover
    register_io_source = None

SIZE = 32  # shapes of call kept

Build = Callable[[pl.LazyFrame, pl.LazyFrame], pl.LazyFrame]


@dataclass
class _Entry:
    result: pl.LazyFrame
    counted: _checks.Counted
    flags: pl.QueryOptFlags
    frames: list[pl.DataFrame | None]
    lock: threading.Lock = field(default_factory=threading.Lock)


_entries: OrderedDict[Hashable, _Entry] = OrderedDict()
_entries_lock = threading.Lock()


def key_of(value: Any) -> Hashable | None:
    """``value`` as part of a key, its type included (``True`` is not ``1``, ``1.0`` not ``1``);
    ``None`` for a value that cannot be keyed (the call is then planned as usual)."""
    if value is None or isinstance(value, str | int | float | registry.Measure):
        return (type(value), value)
    if isinstance(value, list | tuple):
        items = tuple(key_of(v) for v in value)
        return None if any(k is None for k in items) else (type(value), items)
    return None


def _placeholder(frames: list[pl.DataFrame | None], i: int, schema: pl.Schema) -> pl.LazyFrame:
    """A lazy frame of ``schema`` that reads ``frames[i]`` when collected."""

    def read(
        columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, _batch_size: int | None
    ) -> Iterator[pl.DataFrame]:
        frame = frames[i]
        if frame is None:
            raise RuntimeError("frame_eval: a reused plan was collected outside its call")
        if columns is not None:
            frame = frame.select(columns)
        if predicate is not None:
            frame = frame.filter(predicate)
        if n_rows is not None:
            frame = frame.head(n_rows)
        yield frame

    return register_io_source(read, schema=schema)


def collect(
    run: pl.DataFrame, qrels: Any, key: Hashable | None, build: Build, stacklevel: int
) -> pl.DataFrame | None:
    """``build(run, qrels)`` collected with its data checks, the plan reused for calls of the same
    shape (``key``: the method and its options, see :func:`key_of`); ``None`` when this call
    cannot reuse a plan (not a small eager call of two polars frames, or an option that cannot
    be keyed), and the caller plans it as usual. Call inside the caller's ``_checks.deferred``
    block; warnings point ``stacklevel`` frames up from here."""
    state = _checks.current()
    if key is None or state is None or not state.small or not isinstance(qrels, pl.DataFrame) \
            or register_io_source is None:
        return None
    flags = state.optimizations
    schemas = tuple(run.schema.items()), tuple(qrels.schema.items())
    full_key = (key, schemas, state.few, registry.generation())
    with _entries_lock:
        entry = _entries.get(full_key)
        if entry is not None:
            _entries.move_to_end(full_key)
    if entry is None:
        frames: list[pl.DataFrame | None] = [None, None]
        with _checks.deferred(rows=state.rows, unoptimized_rows=state.unoptimized_rows) as planned:
            result = build(_placeholder(frames, 0, run.schema), _placeholder(frames, 1, qrels.schema))
        entry = _Entry(result, _checks.Counted.of(planned.checks), flags, frames)
        with _entries_lock:
            _entries[full_key] = entry
            while len(_entries) > SIZE:
                _entries.popitem(last=False)
    if not entry.lock.acquire(blocking=False):
        return None  # in use by another thread
    try:
        entry.frames[:] = [run, qrels]
        return _checks.collect_counted(entry.result, entry.counted, "in-memory", entry.flags, stacklevel + 1)
    finally:
        entry.frames[:] = [None, None]
        entry.lock.release()


def clear() -> None:
    """Forget every kept plan."""
    with _entries_lock:
        _entries.clear()
