"""frame_eval's polars evaluation of one group of rows: what the Spark and Dask front ends share.

An engine hands each group over as polars frames and gets polars frames back. Rankings are
grouped by a hash of the query id (a bucket holds whole queries of every system); with
``complete=True`` and ``by=``, the qrels are repeated for every system and a group is
(system, bucket), so that a system missing from a bucket's run still gets its queries
scored as retrieving nothing. Classification groups are the ``by`` groups.

Output schemas come from the same polars calls on empty frames of the input schemas, so an
engine knows them without reading any data; schema errors (a missing column, a wrong
dtype) are raised there, at once, with the polars front end's message.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from frame_eval import evaluate as _core
from frame_eval.judged import RunColumns, as_by, mostly_unjudged, overlap_message
from frame_eval.polars_ns import IREvalNamespace

BUCKET = "__frame_eval_bucket"
RANKING = ("judge", "evaluate")
CLASSIFICATION = ("confusion", "rates", "confusion_matrix", "roc", "pr_curve", "det_curve", "scores")

# a polars step: (run, qrels, by) -> result, or (frame, by) -> result
PairStep = Callable[[pl.LazyFrame, pl.LazyFrame, tuple[str, ...]], pl.LazyFrame]
FrameStep = Callable[[pl.LazyFrame, tuple[str, ...]], pl.LazyFrame]


def _quiet(frame: pl.LazyFrame) -> pl.DataFrame:
    """Collect without the 'mostly unjudged' warning: within one bucket the share of judged
    queries says nothing about the run (``strict=True`` checks the whole run instead:
    :func:`overlap_counts`, :func:`overlap_check`)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning, message="only .* queries have judgements")
        return frame.collect()


def with_note(error: Exception, engine: str, rewrite: Callable[[str], str] = str) -> Exception:
    """``error`` again, same type, its message in the engine's terms (``rewrite``) and saying where
    rows are counted from on ``engine``."""
    note = (f" [frame_eval on {engine}: a row number counts from 0 within one shuffle group of the "
            f"input as it reached the worker, not within your whole frame; the values shown identify it]")
    text = rewrite(str(error))
    return type(error)(text + note if " row " in text else text)


@dataclass(frozen=True)
class RankingPlan:
    """What an engine runs for a ranking method: the per-bucket step, its schema, and for
    ``summarize`` the per-``by``-group step after it."""

    step: Callable[[pl.DataFrame, pl.DataFrame], pl.DataFrame]
    schema: pl.Schema  # of ``step``'s result
    query_id: str
    by: tuple[str, ...]
    per_system: bool  # complete with by: the qrels carry the by columns, groups are (system, bucket)
    qrels_columns: tuple[str, ...]
    strict: bool  # the engine adds the overlap check over all buckets (overlap_counts, overlap_check)
    summary: Callable[[pl.DataFrame], pl.DataFrame] | None = None
    summary_schema: pl.Schema | None = None


def _columns(options: dict[str, Any]) -> RunColumns:
    return RunColumns(
        options.get("query_id", "query_id"), options.get("doc_id", "doc_id"), options.get("score", "score"),
        options.get("relevance", "relevance"), _core.RANK, as_by(options.get("by")),
    )


def ranking_plan(
    method: str, run: pl.DataFrame, qrels: pl.DataFrame, measures: Any, options: dict[str, Any]
) -> RankingPlan:
    """The plan of ``.ireval.<method>`` (``judge``, ``evaluate`` or ``summarize``) on an engine;
    ``run`` and ``qrels`` are empty frames of the inputs' schemas."""
    options = dict(options)
    # the polars front end validates every option and the schemas, and gives the result's schema
    namespace = run.lazy().ireval
    args = (qrels.lazy(),) if method == "judge" else (qrels.lazy(), measures)
    schema = getattr(namespace, method)(*args, **options).collect_schema()
    cols = _columns(options)
    by = cols.by
    options.pop("by", None)
    # the overlap check reads every query of the run: the engine runs it over all buckets
    # (overlap_counts, then overlap_check); within one bucket it would mean nothing
    strict = bool(options.pop("strict", False))
    complete = bool(options.get("complete", False))
    qrels_columns = (cols.query_id, cols.doc_id, cols.relevance)

    checked = {k: options[k] for k in ("query_id", "doc_id", "score", "relevance", "complete", "depth",
                                        "duplicates", "judged_only") if k in options}

    def checks(r: pl.LazyFrame, q: pl.LazyFrame, by_: tuple[str, ...]) -> pl.LazyFrame:
        return r.ireval.evaluate(q, ["NumQ"], by=list(by_) or None, **checked)

    if method == "summarize":
        keys = ("complete", "depth", "duplicates", "judged_only", "rel", "collection_size", "ties")
        kept = {"complete": False, "depth": None, "duplicates": "error"}
        kept.update({k: options[k] for k in keys if k in options})
        aggregate = options.get("aggregate")
        shape = options.get("shape", "long")
        intervals = {k: options[k] for k in ("ci", "ci_method", "n_resamples", "seed") if k in options}
        pairs = _core.labelled(measures, labels=options.get("labels", "canonical"),
                               names=options.get("names", "canonical"))

        def values(r: pl.LazyFrame, q: pl.LazyFrame, by_: tuple[str, ...]) -> pl.LazyFrame:
            columns = RunColumns(cols.query_id, cols.doc_id, cols.score, cols.relevance, _core.RANK, by_)
            return _core.per_query_wide(r, q, pairs, columns, micro=aggregate == "micro", **kept)

        def summary(wide: pl.DataFrame) -> pl.DataFrame:
            return _core.summary_of(wide.lazy(), pairs, cols, shape, aggregate, **intervals).collect()

        step = per_bucket(values, by, complete, cols.query_id, checks)
        wide_schema = values(run.lazy(), qrels.lazy(), by).collect_schema()
        return RankingPlan(step, wide_schema, cols.query_id, by, complete and bool(by), qrels_columns,
                           strict, summary, schema)

    def call(r: pl.LazyFrame, q: pl.LazyFrame, by_: tuple[str, ...]) -> pl.LazyFrame:
        target: IREvalNamespace[pl.LazyFrame] = r.ireval
        arguments = (q,) if method == "judge" else (q, measures)
        return getattr(target, method)(*arguments, by=list(by_) or None, **options)

    return RankingPlan(per_bucket(call, by, complete, cols.query_id, checks if method != "judge" else None),
                       schema, cols.query_id, by, complete and bool(by),
                       qrels_columns, strict)


def per_bucket(
    step: PairStep, by: tuple[str, ...], complete: bool, query_id: str, checks: PairStep | None = None,
) -> Callable[[pl.DataFrame, pl.DataFrame], pl.DataFrame]:
    """``step`` on one bucket's run and qrels rows.

    With ``complete`` and ``by``, the qrels rows carry the ``by`` columns (repeated for
    every system): each system present in the run is evaluated with its own judgements,
    and each system without a run row here gets its judged queries scored as retrieving
    nothing (the polars result for an empty run, labelled with the system).
    """
    def evaluated(run: pl.LazyFrame, qrels: pl.LazyFrame, by_: tuple[str, ...]) -> pl.DataFrame:
        if checks is not None and _nothing_evaluated(run, qrels, query_id, complete):
            # a bucket can hold only queries without judgements; measured that way some measures'
            # plans (RBP, RBP_resid on polars 2.1) fail on the empty set of evaluated queries, so
            # only the data checks run (cheaply) and the result is empty, as it is in polars
            _quiet(checks(run, qrels, by_))
            return pl.DataFrame(schema=step(run.clear(), qrels.clear(), by_).collect_schema())
        return _quiet(step(run, qrels, by_))

    if not (complete and by):
        return lambda run, qrels: evaluated(run.lazy(), qrels.lazy(), by)

    keys = list(by)

    def judgements(qrels: pl.DataFrame, key: Sequence[Any]) -> pl.LazyFrame:
        match = pl.all_horizontal(pl.col(k).eq_missing(pl.lit(v, qrels.schema[k])) for k, v in zip(keys, key,
                                                                                                 strict=True))
        return qrels.lazy().filter(match).drop(keys)

    def each_system(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
        parts = []
        seen = set()
        empty = run.lazy().clear().drop(keys)
        names = step(run.lazy().clear(), qrels.lazy().clear().drop(keys), by).collect_schema().names()
        for key, rows in run.partition_by(keys, as_dict=True, maintain_order=True).items():
            seen.add(key)
            parts.append(evaluated(rows.lazy(), judgements(qrels, key), by))
        for key in qrels.select(keys).unique(maintain_order=True).rows():
            if key in seen:
                continue
            alone = evaluated(empty, judgements(qrels, key), ())
            labels = [pl.lit(v, run.schema[k]).alias(k) for k, v in zip(keys, key, strict=True)]
            parts.append(alone.with_columns(labels).select(names))
        if not parts:
            return pl.DataFrame(schema=step(run.lazy().clear(), qrels.lazy().clear().drop(keys), by)
                                .collect_schema())
        return pl.concat(parts)

    return each_system


def _nothing_evaluated(run: pl.LazyFrame, qrels: pl.LazyFrame, query_id: str, complete: bool) -> bool:
    judged = qrels.select(pl.col(query_id).cast(pl.String)).collect().to_series()
    if complete or judged.is_empty():
        return judged.is_empty()
    ran = run.select(pl.col(query_id).cast(pl.String)).collect().to_series()
    return not ran.is_in(judged.implode()).any()


def overlap_counts(run: pl.DataFrame, qrels: pl.DataFrame, query_id: str) -> pl.DataFrame:
    """One bucket's part of the overlap check of ``strict=True``: its run's distinct query ids
    (``queries``), how many of them the qrels judge (``judged``), the qrels' distinct ids
    (``qrels_queries``), the first run id without judgements and the first qrels id. A query's
    rows all fall in one bucket, so over buckets the counts add up and the firsts are minima
    (:func:`overlap_check`).

    >>> run = pl.DataFrame({"query_id": ["q2", "q1", "q1", "q3"]})
    >>> overlap_counts(run, pl.DataFrame({"query_id": ["q1", "q9"]}), "query_id").row(0)
    (3, 1, 2, 'q2', 'q1')
    """
    run_ids = run.select(pl.col(query_id).unique())
    qrels_ids = qrels.select(pl.col(query_id).unique())
    judged = pl.col(query_id).cast(pl.String).is_in(qrels_ids[query_id].cast(pl.String).implode())
    return pl.DataFrame({
        "queries": [run_ids.height], "judged": [run_ids.filter(judged).height],
        "qrels_queries": [qrels_ids.height],
        "first_unjudged": run_ids.filter(~judged).select(pl.col(query_id).min()).to_series(),
        "first_qrels": qrels_ids.select(pl.col(query_id).min()).to_series(),
    }, schema_overrides={"queries": pl.Int64, "judged": pl.Int64, "qrels_queries": pl.Int64})


def overlap_check(counts: pl.DataFrame) -> pl.DataFrame:
    """The buckets' :func:`overlap_counts` added up: raises the polars front end's ``strict=True``
    error (the same test and text) when fewer than half of the run's queries have judgements;
    else one row, ``checked`` true, for the engine to attach the check to its result.

    >>> counts = pl.DataFrame({"queries": [2, 1], "judged": [1, 1], "qrels_queries": [1, 1],
    ...                        "first_unjudged": ["q2", None], "first_qrels": ["q1", "q3"]})
    >>> overlap_check(counts)["checked"].item()
    True
    >>> overlap_check(counts.with_columns(judged=0))
    Traceback (most recent call last):
    ...
    ValueError: only 0 of the run's 3 queries have judgements in the qrels (2 queries); ...
    """
    totals = counts.select(
        pl.col("judged", "queries", "qrels_queries").sum(), pl.col("first_unjudged", "first_qrels").min()
    )
    if totals.select(mostly_unjudged(pl.col("judged"), pl.col("queries"))).item():
        raise ValueError(overlap_message(*totals.row(0)))
    return pl.DataFrame({"checked": [True]})


@dataclass(frozen=True)
class ClassificationPlan:
    step: Callable[[pl.DataFrame], pl.DataFrame]
    schema: pl.Schema
    by: tuple[str, ...]


def classification_plan(method: str, frame: pl.DataFrame, args: Sequence[Any], options: dict[str, Any]
                        ) -> ClassificationPlan:
    """``.ireval.<method>`` of the classification front end, run on each ``by`` group."""
    options = dict(options)
    by = as_by(options.pop("by", None))

    def call(rows: pl.LazyFrame) -> pl.LazyFrame:
        return getattr(rows.ireval, method)(*args, by=list(by) or None, **options)

    schema = call(frame.lazy()).collect_schema()

    def step(rows: pl.DataFrame) -> pl.DataFrame:
        if by and rows.is_empty():  # a partition without groups (Dask); polars gives no rows for none
            return pl.DataFrame(schema=schema)
        return call(rows.lazy()).collect()

    return ClassificationPlan(step, schema, by)


# -- the engines' public functions: the polars methods' signatures and documentation ---------------

BUCKETS = inspect.Parameter("buckets", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="int | None")


def mirror(
    name: str, first: str, extra: Sequence[inspect.Parameter] = ()
) -> Callable[[Callable[..., Any]], Any]:
    """Give a function the signature of the polars method ``name`` (``self`` -> ``first``), with
    ``extra`` keyword-only parameters after the method's own and any ``**options`` last."""
    signature = inspect.signature(getattr(IREvalNamespace, name))
    params = list(signature.parameters.values())
    params[0] = inspect.Parameter(first, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="DataFrame")
    keyword = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    variadic = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    positional = [p for p in params if p.kind not in (inspect.Parameter.KEYWORD_ONLY,
                                                       inspect.Parameter.VAR_KEYWORD)]
    mirrored = signature.replace(parameters=[*positional, *keyword, *extra, *variadic],
                                 return_annotation="DataFrame")

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        function.__signature__ = mirrored  # type: ignore[attr-defined]
        return function
    return decorate


def classification_function(
    name: str, run: Callable[[str, Any, tuple[Any, ...], dict[str, Any]], Any], *, engine: str, module: str,
    holds: str, collect: str = "",
) -> Callable[..., Any]:
    """The engine's ``name`` (a classification method of ``.ireval``): ``run(name, predictions, args,
    options)`` with the polars method's signature, and documentation naming ``engine`` and what one
    unit of its work ``holds``."""
    def function(predictions: Any, *args: Any, **options: Any) -> Any:
        return run(name, predictions, args, options)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = (
        f"``predictions.ireval.{name}(...)`` on a {engine} DataFrame: the parameters and output columns of "
        f":meth:`frame_eval.polars_ns.IREvalNamespace.{name}`, computed per ``by`` group ({holds} "
        f"a group's rows), with the polars values.\n\n"
        f">>> fe.{module}.{name}(predictions, 'label', 'prob', by='model'){collect}  # doctest: +SKIP\n"
    )
    return mirror(name, "predictions")(function)
