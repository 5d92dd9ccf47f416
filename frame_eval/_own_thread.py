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

import threading
from collections.abc import Callable

import polars as pl

# below this many rows the function runs where it is called: a thread's start (about 0.1 ms) would cost
# more than the parallel work saves
OWN_THREAD_ROWS = 100_000

FrameFunction = Callable[[pl.DataFrame], pl.DataFrame]


def on_own_thread(function: FrameFunction) -> FrameFunction:
    """``function`` (a frame function for ``map_batches``) run on a thread of its own when it is called
    on Python's main thread with at least :data:`OWN_THREAD_ROWS` rows, else where it is called; errors
    are raised as ``function`` raised them."""

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        if frame.height < OWN_THREAD_ROWS or threading.current_thread() is not threading.main_thread():
            return function(frame)
        outcome: list[pl.DataFrame] = []
        failure: list[BaseException] = []

        def work() -> None:
            try:
                outcome.append(function(frame))
            except BaseException as error:  # handed to the caller's thread, raised there
                failure.append(error)

        thread = threading.Thread(target=work, name="frame_eval-frame-function")
        thread.start()
        thread.join()
        if failure:
            raise failure[0]
        return outcome[0]

    return run
