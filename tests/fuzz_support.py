"""Shared pieces of the fuzz suite (``tests/test_fuzz_*.py``).

The number of examples per fuzz test is small by default, so the suite stays
quick in CI; ``FRAME_EVAL_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_*.py``
runs a long search on demand.
"""

from __future__ import annotations

import copy
import os
import pickle
import select
import signal
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("FRAME_EVAL_FUZZ_EXAMPLES", "25"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)


@pytest.fixture(autouse=True)
def full_frames() -> Iterator[None]:
    """Falsifying examples print every row and every digit (near-ties differ in the 8th)."""
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_float="full"):
        yield


def in_fresh_process(function: Callable[[], Any], timeout: float = 60.0) -> Any:
    """``function()`` computed in a forked child; ``None`` if the child hangs, dies or fails.

    pytrec_eval can hang in a process that has evaluated a query whose judgements
    are all negative, so each oracle call gets a process of its own. The child
    must not use polars (its thread pool does not survive a fork): prepare plain
    Python data first.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send the pickled value, leave without cleanup
        status = 1
        try:
            os.close(read_end)
            data = pickle.dumps(function())
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            chunk = os.read(pipe.fileno(), 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return None
    return pickle.loads(b"".join(chunks))


class CountingSource:
    """A LazyFrame over ``frame`` that counts how often polars reads it."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.reads = 0
        self.lazy = frame.lazy().map_batches(self._read, schema=frame.schema)

    def _read(self, batch: pl.DataFrame) -> pl.DataFrame:
        self.reads += 1
        return batch


def assert_clean_error(error: BaseException, column: str | None = None, chain: bool = True) -> None:
    """One plain ``ValueError``/``TypeError`` (no polars type), naming ``column``; with ``chain``,
    no chained exception is shown."""
    assert type(error) in (ValueError, TypeError), f"{type(error).__module__}.{type(error).__name__}: {error}"
    if chain:
        shown = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
        assert shown is None, f"chained {type(shown).__name__}: {shown}"
    if column is not None:
        assert repr(column) in str(error) or column in str(error), (column, str(error))


def unchanged(*frames: Any) -> Callable[[], None]:
    """Snapshot frames (polars or pandas); the returned check asserts each is as it was."""
    copies = [f.clone() if isinstance(f, pl.DataFrame) else copy.deepcopy(f) for f in frames]

    def check() -> None:
        for before, after in zip(copies, frames, strict=True):
            if isinstance(after, pl.DataFrame):
                assert after.equals(before, null_equal=True) and after.schema == before.schema
            else:
                import pandas.testing

                pandas.testing.assert_frame_equal(after, before)

    return check


def raised(call: Callable[[], Any]) -> BaseException:
    """The exception ``call`` raises (warnings about thin overlaps silenced); fails when none is."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            call()
        except Exception as error:
            return error
    raise AssertionError("no error raised")
