"""frame_eval on Dask: the ``.ireval`` methods for :class:`dask.dataframe.DataFrame`.

``fe.dask.evaluate(run, qrels, measures, by=...)`` and the other functions here take and
return Dask DataFrames with the parameters and output columns of the polars methods of
the same name. Lazy in, lazy out: nothing is computed until you call ``compute()``
(or write the result).

How (the design of :mod:`frame_eval.engines.spark`): a bucket number, a hash of the query
id's text, is added to the run and the qrels; both are shuffled on it into the same
number of partitions, so each partition of the run meets the qrels of the same queries;
frame_eval's polars evaluation runs on each pair of partitions (``map_partitions``).
``summarize`` shuffles the per-query values by ``by`` (all into one partition without
``by``) and applies the polars summary there. Classification methods shuffle by ``by``.
Values equal the polars ones exactly.

- Schema errors raise at once (from the inputs' ``meta``); data errors (nulls, NaN,
  repeated rows) raise at ``compute()``, as the ``ValueError`` of the polars front end; a
  row number there counts within one partition, the values shown identify the row.
- Result columns are pandas columns backed by Arrow (``int64[pyarrow]``,
  ``string[pyarrow]``...), so nullable integers (``rank``) stay integers. Rows come in no
  particular order. ``strict=True`` checks the whole run (counted per bucket, added up in
  one task, the polars error at ``compute()``); ``summarize(ci=...)`` gives the polars
  intervals.
- Any scheduler works. On the threaded one (the default), frame_eval's tasks take turns in
  polars (which uses every core for each), convert their results without holding the GIL
  while polars' threads work, and after one of an evaluation's tasks has failed the others
  stop before polars: Dask raises a compute's first error while the tasks it has started
  go on, and those must not block the caller's next polars calls. A result whose compute
  failed raises that error again when computed again; build it anew to retry.
- Needs ``pip install "frame-eval[dask]"``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from frame_eval import evaluate as _core
from frame_eval.engines import _grouped
from frame_eval.pandas_ns import pandas_message

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from dask.dataframe import DataFrame

__all__ = [
    "best_threshold", "calibration", "classification_report", "confusion", "confusion_matrix",
    "det_curve", "evaluate", "evaluate_with", "judge", "pr_curve", "probabilities", "rates", "roc",
    "scores", "summarize",
]

ENGINE = "Dask"


def _dask() -> Any:
    try:
        import dask.dataframe
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError('frame_eval.dask needs dask[dataframe]: pip install "frame-eval[dask]"') from error
    return dask.dataframe


def _require_frame(frame: Any, name: str) -> None:
    if not type(frame).__module__.startswith("dask"):
        raise TypeError(f"{name} must be a dask.dataframe.DataFrame, got {type(frame).__name__}; "
                        f"for polars or pandas frames use the .ireval methods")


def _empty(frame: DataFrame) -> pl.DataFrame:
    return pl.from_pandas(frame._meta)


def _pandas(frame: pl.DataFrame) -> pd.DataFrame:
    import pandas as pd

    # through pyarrow, not DataFrame.to_pandas: that one holds the GIL while it waits for polars'
    # thread pool, so it deadlocks when the pool is running a plan of another thread that calls
    # Python (frame_eval's plans do), as a leftover task of a failed compute would be (see below)
    return frame.to_arrow().to_pandas(types_mapper=pd.ArrowDtype)


def _from_pandas(frame: pd.DataFrame) -> pl.DataFrame:
    return pl.from_pandas(frame).drop(_grouped.BUCKET, strict=False)


# One polars evaluation at a time per process: polars runs each on all cores already.
_POLARS = threading.Lock()


class _Failed:
    """The first error of one evaluation's tasks. Dask's threaded scheduler raises the first
    error of a compute at once and leaves the tasks already handed to its threads running; once
    one of ours has failed, the others give up before touching polars, so no polars work of a
    failed compute goes on beside the caller's next polars calls."""

    def __init__(self) -> None:
        self.error: BaseException | None = None


def _one_at_a_time(step: Callable[..., pl.DataFrame], frames: tuple[pd.DataFrame, ...],
                   failed: _Failed) -> pd.DataFrame:
    # module level, so a pickled step refers to the lock by name instead of carrying it
    with _POLARS:
        if failed.error is not None:
            raise failed.error
        try:
            return _pandas(step(*[_from_pandas(f) for f in frames]))
        except (ValueError, TypeError) as error:
            failed.error = _grouped.with_note(error, ENGINE, pandas_message)
        except BaseException as error:
            failed.error = error
            raise
    raise failed.error from None


def _noted(step: Callable[..., pl.DataFrame], failed: _Failed) -> Callable[..., pd.DataFrame]:
    @functools.wraps(step)
    def call(*frames: pd.DataFrame) -> pd.DataFrame:
        return _one_at_a_time(step, frames, failed)
    return call


def _checked(part: pd.DataFrame, check: Any) -> pd.DataFrame:
    """``part`` once the overlap check (``strict=True``) has passed: it raised otherwise."""
    return part


def _planned(make: Callable[[], Any]) -> Any:
    """``make()``, its schema errors in pandas terms (Dask frames hold pandas dtypes)."""
    try:
        return make()
    except (ValueError, TypeError) as error:
        raise type(error)(pandas_message(str(error))) from None


def _with_bucket(frame: pd.DataFrame, query_id: str, buckets: int) -> pd.DataFrame:
    import pandas as pd

    text = frame[query_id].astype("string")  # integer ids of any width hash alike
    hashed = pd.util.hash_pandas_object(text, index=False).to_numpy()
    return frame.assign(**{_grouped.BUCKET: (hashed % buckets).astype("int64")})


def _bucketed(frame: DataFrame, query_id: str, buckets: int) -> DataFrame:
    meta = _with_bucket(frame._meta, query_id, buckets)
    with_bucket = frame.map_partitions(_with_bucket, query_id, buckets, meta=meta)
    return with_bucket.shuffle(on=_grouped.BUCKET, npartitions=buckets)


def _ranking(method: str, run: DataFrame, qrels: DataFrame, measures: Any, buckets: int | None,
             options: dict[str, Any]) -> DataFrame:
    dd = _dask()
    _require_frame(run, "run")
    _require_frame(qrels, "qrels")
    plan = _planned(lambda: _grouped.ranking_plan(method, _empty(run), _empty(qrels), measures, options))
    if buckets is None:
        buckets = max(run.npartitions, qrels.npartitions)
    if isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1:
        raise ValueError(f"buckets must be a positive integer, got {buckets!r}")
    right = qrels[list(plan.qrels_columns)]
    if plan.per_system:  # every system's judgements, so each system's empty queries are scored
        systems = run[list(plan.by)].drop_duplicates().repartition(npartitions=1)
        one = _grouped.BUCKET  # a constant key: dask has no cross join
        right = right.assign(**{one: 0}).merge(systems.assign(**{one: 0}), on=one).drop(columns=one)
    left, right = _bucketed(run, plan.query_id, buckets), _bucketed(right, plan.query_id, buckets)
    meta = _pandas(pl.DataFrame(schema=plan.schema))
    failed = _Failed()
    per_query = dd.map_partitions(_noted(plan.step, failed), left, right, meta=meta, align_dataframes=False,
                                  enforce_metadata=False)
    if plan.summary is None:
        result = per_query
    else:
        assert plan.summary_schema is not None
        totals = _pandas(pl.DataFrame(schema=plan.summary_schema))
        grouped = per_query.shuffle(on=list(plan.by)) if plan.by else per_query.repartition(npartitions=1)
        result = grouped.map_partitions(_noted(plan.summary, failed), meta=totals, enforce_metadata=False)
    if not plan.strict:
        return result
    # the overlap check over every bucket of the run: counted per bucket, added up in one task
    count = functools.partial(_grouped.overlap_counts, query_id=plan.query_id)
    counts_meta = _pandas(count(_empty(run), _empty(qrels)))
    counts = dd.map_partitions(_noted(count, failed), left, right, meta=counts_meta, align_dataframes=False,
                               enforce_metadata=False)
    check = counts.repartition(npartitions=1).map_partitions(
        _noted(_grouped.overlap_check, failed), meta=_pandas(pl.DataFrame({"checked": [True]}).clear()),
        enforce_metadata=False,
    )
    return result.map_partitions(_checked, check.to_delayed()[0], meta=result._meta, enforce_metadata=False)


def _classification(method: str, predictions: DataFrame, args: tuple[Any, ...],
                    options: dict[str, Any]) -> DataFrame:
    _dask()
    _require_frame(predictions, "predictions")
    plan = _planned(lambda: _grouped.classification_plan(method, _empty(predictions), args, options))
    grouped = predictions.shuffle(on=list(plan.by)) if plan.by else predictions.repartition(npartitions=1)
    meta = _pandas(pl.DataFrame(schema=plan.schema))
    return grouped.map_partitions(_noted(plan.step, _Failed()), meta=meta, enforce_metadata=False)


@_grouped.mirror("evaluate", "run", [_grouped.BUCKETS])
def evaluate(run: DataFrame, qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES, *,
             buckets: int | None = None, **options: Any) -> DataFrame:
    """Per-query values of ``measures`` on Dask, as
    :meth:`frame_eval.polars_ns.IREvalNamespace.evaluate`; ``buckets``: the partitions the
    queries are hashed into (default: the larger input's partition count).

    >>> import dask.dataframe as dd, frame_eval as fe                    # doctest: +SKIP
    >>> fe.dask.evaluate(dd.from_pandas(run_df), dd.from_pandas(qrels_df), ["AP"]).compute()
    ...                                                                  # doctest: +SKIP
    """
    return _ranking("evaluate", run, qrels, measures, buckets, options)


@_grouped.mirror("summarize", "run", [_grouped.BUCKETS])
def summarize(run: DataFrame, qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES, *,
              buckets: int | None = None, **options: Any) -> DataFrame:
    """Summaries over queries on Dask, as :meth:`frame_eval.polars_ns.IREvalNamespace.summarize`
    (intervals with ``ci``), with the same bits.

    >>> fe.dask.summarize(run, qrels, ["AP"], by="system").compute()  # doctest: +SKIP
    """
    return _ranking("summarize", run, qrels, measures, buckets, options)


@_grouped.mirror("judge", "run", [_grouped.BUCKETS])
def judge(run: DataFrame, qrels: DataFrame, *, buckets: int | None = None, **options: Any) -> DataFrame:
    """The judged frame on Dask, as :meth:`frame_eval.polars_ns.IREvalNamespace.judge`.

    >>> fe.dask.judge(run, qrels).compute()  # doctest: +SKIP
    """
    return _ranking("judge", run, qrels, None, buckets, options)


def evaluate_with(qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES,
                  **options: Any) -> Callable[[DataFrame], DataFrame]:
    """:func:`evaluate` as a function of the run, for ``run.pipe(...)`` chains.

    >>> per_query = run.pipe(fe.dask.evaluate_with(qrels, ["AP", "nDCG@10"]))  # doctest: +SKIP
    """
    return lambda run: evaluate(run, qrels, measures, **options)


def _classification_function(name: str) -> Callable[..., DataFrame]:
    return _grouped.classification_function(name, _classification, engine="Dask", module="dask",
                                            holds="one partition holds", collect=".compute()")


confusion = _classification_function("confusion")
rates = _classification_function("rates")
confusion_matrix = _classification_function("confusion_matrix")
roc = _classification_function("roc")
pr_curve = _classification_function("pr_curve")
det_curve = _classification_function("det_curve")
scores = _classification_function("scores")
best_threshold = _classification_function("best_threshold")
classification_report = _classification_function("classification_report")
probabilities = _classification_function("probabilities")
calibration = _classification_function("calibration")
