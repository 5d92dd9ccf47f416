"""Frame functions of a plan that run their polars work on every thread.

polars' streaming engine calls a frame function (``LazyFrame.map_batches``)
on the thread that collects, and the function's own polars work then runs on
one core: a sort of 10M 128-bit keys there takes 0.21 s on one core where the
same call made outside a plan takes 0.14 s on two (polars 2.1, 2 cores).
Called from a thread of our own instead, the function's work spreads over
polars' threads again. Only a function called on Python's main thread is
handed over: the in-memory engine calls frame functions on its own worker
threads, and workers blocked waiting for another thread's polars work could
leave none free to do it (a deadlock). The function and its result are
unchanged, so are the values; the wall time falls (and a little CPU rises: a
parallel sort costs more in all).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import polars as pl

T = TypeVar("T")

# below this many rows the function runs where it is called: a thread's start (about 0.1 ms) would cost
# more than the parallel work saves
OWN_THREAD_ROWS = 100_000

FrameFunction = Callable[[pl.DataFrame], pl.DataFrame]


_NAME = "frame_eval-frame-function"


def _may_wait() -> bool:
    """Whether this thread may wait for threads of ours: Python's main thread or one of ours, never a
    polars worker (see the module's docstring)."""
    here = threading.current_thread()
    return here is threading.main_thread() or here.name.startswith(_NAME)


def _started(call: Callable[[], T]) -> Callable[[], T]:
    """``call`` started on a thread of its own; the function returned waits for it and gives its result
    (or raises its error)."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(call())
        except BaseException as error:  # handed to the waiting thread, raised there
            failure.append(error)

    thread = threading.Thread(target=work, name=_NAME)
    thread.start()

    def result() -> T:
        thread.join()
        if failure:
            raise failure[0]
        return outcome[0]

    return result


def apart(rows: int) -> bool:
    """Whether :func:`side_by_side` would compute pieces of work on about ``rows`` rows at once here."""
    return rows >= OWN_THREAD_ROWS and _may_wait()


def side_by_side(calls: Sequence[Callable[[], T]], rows: int) -> list[T]:
    """The results of ``calls`` (each a piece of polars work on about ``rows`` rows), computed at once,
    each but the first on a thread of its own, when there are at least :data:`OWN_THREAD_ROWS` rows and
    this thread may wait for them; else one after the other here."""
    if len(calls) < 2 or not apart(rows):
        return [call() for call in calls]
    waits = [_started(call) for call in calls[1:]]
    try:
        first = calls[0]()
    except BaseException:
        for wait in waits:  # (their errors give way to this one)
            with contextlib.suppress(BaseException):
                wait()
        raise
    return [first, *(wait() for wait in waits)]


def in_background(call: Callable[[], T], rows: int) -> Callable[[], T]:
    """``call`` begun at once on a thread of its own, beside what this thread does next (the collect
    of a plan, whose phases run one after the other: work that needs none of it then fills the
    cores those phases leave idle), when there are at least :data:`OWN_THREAD_ROWS` rows and this
    thread may wait for it; else run here when its result is first asked for. The function
    returned gives the result (or raises the error), as often as it is asked."""
    if apart(rows):
        return _started(call)
    return functools.cache(call)  # (an error is not kept: asked again, it runs again)


def on_own_thread(function: FrameFunction) -> FrameFunction:
    """``function`` (a frame function for ``map_batches``) run on a thread of its own when it is called
    on Python's main thread with at least :data:`OWN_THREAD_ROWS` rows, else where it is called; errors
    are raised as ``function`` raised them."""

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        if frame.height < OWN_THREAD_ROWS or threading.current_thread() is not threading.main_thread():
            return function(frame)
        return _started(lambda: function(frame))()

    return run
