"""Column roles of a run and its qrels (:class:`RunColumns`), and the checks of both inputs.

The schema checks and id casts that come before any ranking (:func:`_prepare`), the data
checks of the values (nulls, repeated documents: :func:`_problems`) and the overlap check of
run and qrels queries (:func:`_overlap_problem`). :mod:`frame_eval.judged` builds on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from frame_eval import _checks

Duplicates = Literal["error", "max"]
INTERNAL = "__frame_eval"  # the prefix of every column frame_eval adds inside a query


@dataclass(frozen=True)
class RunColumns:
    """Column names of a run and its qrels, and the ``by`` keys of the run."""

    query_id: str = "query_id"
    doc_id: str = "doc_id"
    score: str = "score"
    relevance: str = "relevance"
    rank: str = "rank"
    by: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = {"query_id": self.query_id, "doc_id": self.doc_id, "score": self.score,
                 "relevance": self.relevance, "rank": self.rank}
        for role, name in names.items():
            if not isinstance(name, str):
                raise TypeError(f"{role}= takes a column name (a string), got {name!r}")
        for key in self.by:
            if not isinstance(key, str):
                raise TypeError(f"by= takes column names (strings), got {key!r}")
            if key.startswith(INTERNAL):
                raise ValueError(f"by= column {key!r} uses the prefix {INTERNAL!r} that frame_eval keeps "
                                 f"for its own columns; rename it")
            for role, name in names.items():
                if key == name:
                    raise ValueError(f"by= names {key!r}, which is already the {role} column; "
                                     f"by= is for the columns that tell runs apart, such as a system name")
        repeated = sorted({k for k in self.by if self.by.count(k) > 1})
        if repeated:
            raise ValueError(f"by= names {repeated[0]!r} more than once")

    @property
    def query_keys(self) -> list[str]:
        return [*self.by, self.query_id]


def as_by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    return tuple(by)


def _prepare(
    run: pl.LazyFrame, qrels: pl.LazyFrame, cols: RunColumns
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.DataType, list[_checks.Problem]]:
    """Check schemas and cast ids to one dtype per column.

    Returns (run, qrels, doc dtype, checks of values the casts cannot carry). The qrels' relevance
    is an integer type that Int64 holds exactly (UInt64 is cast, its values above Int64 checked);
    the judged frames cast it to Int64."""
    problems: list[_checks.Problem] = []
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    _checks.require_columns(
        run_schema, [*cols.by, cols.query_id, cols.doc_id, cols.score], "run",
        "pass query_id=, doc_id=, score= or by= with your column names",
    )
    _checks.require_columns(
        qrels_schema, [cols.query_id, cols.doc_id, cols.relevance], "qrels",
        "pass query_id=, doc_id= or relevance= with your column names",
    )
    if cols.relevance in run_schema:
        raise ValueError(
            f"run already has a column {cols.relevance!r}, which judge() would fill from the qrels; "
            f"rename or drop it in the run first"
        )
    if cols.rank in (*cols.by, cols.query_id, cols.doc_id, cols.score):
        raise ValueError(f"the rank column name {cols.rank!r} is also an input column; pass rank=")
    _checks.require_numeric(run_schema, cols.score, "run")
    _checks.require_integer(qrels_schema, cols.relevance, "qrels")
    casts_run, casts_qrels = [], []
    doc_dtype: pl.DataType = pl.String
    for name in (cols.query_id, cols.doc_id):
        target = _checks.common_id_dtype(name, run_schema[name], qrels_schema[name], ("run", "qrels"))
        if name == cols.doc_id:
            doc_dtype = target
        if run_schema[name] != target:
            casts_run.append(pl.col(name).cast(target))
        if qrels_schema[name] != target:
            casts_qrels.append(pl.col(name).cast(target))
    if run_schema[cols.score] != pl.Float64:
        casts_run.append(pl.col(cols.score).cast(pl.Float64))
    if qrels_schema[cols.relevance] == pl.UInt64:  # judgements beyond Int64 are errors, not nulls
        too_large = pl.col(cols.relevance) > _INT64_MAX
        problems.append(_checks.value_problem(
            qrels, too_large, f"judgements above {_INT64_MAX} in qrels column {cols.relevance!r}",
            "judgements are small integers: check the column", value=cols.relevance,
        ))
        casts_qrels.append(pl.when(~too_large).then(pl.col(cols.relevance)).cast(pl.Int64))
    # a narrower integer relevance stays as it is (every value is exact in Int64): the judged frames
    # cast it as they come out, so that the qrels the plan caches are the input's own columns (a
    # cast there made the engine hold a copy of all judgements: at 3M of them, about 70 MB of peak)
    if cols.rank in run_schema:
        run = run.drop(cols.rank)
    if casts_run:
        run = run.with_columns(casts_run)
    qrels = qrels.select(cols.query_id, cols.doc_id, cols.relevance)
    if casts_qrels:
        qrels = qrels.with_columns(casts_qrels)
    return run, qrels, doc_dtype, problems


_INT64_MAX = 2**63 - 1


# columns that usually tell runs apart: a repeated (query, document) with one of these
# most likely means a forgotten by=, not a repeated document
_RUN_LABELS = ("system", "run_id", "run", "runid", "run_name", "model", "method", "tag", "config")


def _problems(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    duplicates: Duplicates,
    run_repeats: pl.LazyFrame | None = None,
    run_counted: pl.LazyFrame | None = None,
) -> list[pl.LazyFrame | _checks.Problem]:
    problems: list[pl.LazyFrame | _checks.Problem] = []
    problems += _checks.null_problems(
        run, [*cols.query_keys, cols.doc_id, cols.score], "run", counted=run_counted
    )
    problems += _checks.null_problems(qrels, [cols.query_id, cols.doc_id, cols.relevance], "qrels")
    if duplicates == "error":
        labels = [c for c in run.collect_schema().names() if c.lower() in _RUN_LABELS and c not in cols.by]
        fix = "keep one row per document, or pass duplicates='max' to keep its highest score"
        if labels:
            fix = (
                f"if column {labels[0]!r} tells runs apart, pass by={labels[0]!r} to evaluate each "
                f"separately; otherwise {fix}"
            )
        problems.append(
            _checks.duplicate_problem(run, [*cols.query_keys, cols.doc_id], "run", fix, run_repeats)
        )
        problems.append(
            _checks.duplicate_problem(
                qrels, [cols.query_id, cols.doc_id], "qrels",
                "keep one judgement per document, or pass duplicates='max' to keep the highest",
                in_memory=True,  # a few judgements per query: sorted as one series in an eager call
            )
        )
    return problems


_JUDGED = "__frame_eval_judged"


def mostly_unjudged(judged: pl.Expr, queries: pl.Expr) -> pl.Expr:
    """True when fewer than half of ``queries`` run queries have judgements (``judged`` of them):
    the overlap check of :func:`_overlap_problem`, also applied by :mod:`frame_eval.engines`."""
    return judged * 2 < queries


def overlap_message(judged: int, queries: int, qrels_queries: int, example_run: object,
                    example_qrels: object) -> str:
    """The overlap check's message: ``judged`` of the run's ``queries`` query ids appear among the
    ``qrels_queries`` ids of the qrels; the examples are the first run id without judgements and
    the first qrels id in sorted order (``None``: there is none)."""
    run_example = "none" if example_run is None else repr(example_run)
    qrels_example = "none (the qrels are empty)" if example_qrels is None else repr(example_qrels)
    return (
        f"only {judged} of the run's {queries} queries have judgements in the qrels "
        f"({qrels_queries} queries); queries without judgements are not evaluated. "
        f"Run query ids look like {run_example}, qrels ids like {qrels_example}: check that both "
        f"name queries the same way (strict=True makes this an error)"
    )


def _overlap_problem(
    run_queries: pl.LazyFrame, judged_queries: pl.LazyFrame, query_id: str, strict: bool,
    judged_groups: pl.LazyFrame | None = None,
) -> _checks.Problem:
    """Fires when fewer than half of the run's queries have judgements (none at all included):
    a warning, or with ``strict`` an error, naming both counts and an example of each side.
    ``judged_groups``: the run's queries that have judgements, when the caller has them
    already, and ``run_queries`` holds each query once: both are counted, nothing joined."""
    run_ids = run_queries.select(query_id).unique()
    if judged_groups is None:
        # judged_queries holds each id once, so the left join keeps one row per run query
        judged = judged_queries.with_columns(pl.lit(True).alias(_JUDGED))
        tally = run_ids.join(judged, on=query_id, how="left").select(
            count=mostly_unjudged(pl.col(_JUDGED).count(), pl.len()).cast(pl.UInt64)
        )
    else:
        sizes = [run_queries.select(pl.len().alias("all")), judged_groups.select(pl.len().alias("judged"))]
        tally = pl.concat(sizes, how="horizontal").select(
            count=mostly_unjudged(pl.col("judged"), pl.col("all")).cast(pl.UInt64)
        )

    def explain(count: int) -> str:
        run_side = run_ids.sort(query_id).collect().get_column(query_id)
        qrels_side = judged_queries.sort(query_id).collect().get_column(query_id)
        common = run_side.is_in(qrels_side.implode()).sum()
        only_run = run_side.filter(~run_side.is_in(qrels_side.implode()))
        return overlap_message(common, run_side.len(), qrels_side.len(),
                               only_run[0] if only_run.len() else None,
                               qrels_side[0] if qrels_side.len() else None)

    return _checks.Problem(tally, explain, warn=not strict)
