"""Joining a run with its judgements: trec_eval's ranking rules in one lazy query.

:func:`judge` is the one place where a run becomes rankings. Every front
end (polars and pandas namespaces, ``evaluate``, the CLI) goes through it,
and every ranking measure reads its output.

Rules (trec_eval's ``form_res_rels``):

- Within each query (and each ``by`` group), documents are ordered by score,
  highest first; equal scores are ordered by doc_id *descending* as strings
  (integer ids by their decimal text, as trec_eval sees them). A rank column
  in the run is ignored and replaced.
- ``depth=n`` (trec_eval ``-M``) keeps ranks ``1..n`` after that ordering.
- Queries evaluated: those in both run and qrels. ``complete=True``
  (trec_eval ``-c``) adds every qrels query the run lacks, with no
  retrieved documents, so it scores 0 on every measure. Queries only in
  the run are never evaluated (they have no judgements).
- Judged documents the run did not retrieve are kept as rows with a null
  rank, so measures can count relevant documents that were missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from frame_eval import _checks

Duplicates = Literal["error", "max"]


@dataclass(frozen=True)
class RunColumns:
    """Column names of a run and its qrels, and the ``by`` keys of the run."""

    query_id: str = "query_id"
    doc_id: str = "doc_id"
    score: str = "score"
    relevance: str = "relevance"
    rank: str = "rank"
    by: tuple[str, ...] = ()

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
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.DataType]:
    """Check schemas and cast ids to one dtype per column; returns (run, qrels, doc dtype)."""
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    _checks.require_columns(
        run_schema, [*cols.by, cols.query_id, cols.doc_id, cols.score], "run",
        "pass query_id=, doc_id=, score= or by= with your column names",
    )
    _checks.require_columns(
        qrels_schema, [cols.query_id, cols.doc_id, cols.relevance], "qrels",
        "pass query_id=, doc_id= or relevance= with your column names",
    )
    for name in (cols.relevance,):
        if name in run_schema:
            raise ValueError(
                f"run already has a column {name!r}, which judge() would fill from the qrels; "
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
    if qrels_schema[cols.relevance] != pl.Int64:
        casts_qrels.append(pl.col(cols.relevance).cast(pl.Int64))
    if cols.rank in run_schema:
        run = run.drop(cols.rank)
    if casts_run:
        run = run.with_columns(casts_run)
    qrels = qrels.select(cols.query_id, cols.doc_id, cols.relevance)
    if casts_qrels:
        qrels = qrels.with_columns(casts_qrels)
    return run, qrels, doc_dtype


def _problems(
    run: pl.LazyFrame, ranked: pl.LazyFrame, qrels: pl.LazyFrame, cols: RunColumns, duplicates: Duplicates
) -> list[pl.LazyFrame]:
    problems = _checks.null_problems(run, [*cols.query_keys, cols.doc_id, cols.score], "run")
    problems += _checks.null_problems(qrels, [cols.query_id, cols.doc_id, cols.relevance], "qrels")
    if duplicates == "error":
        # the ranked run is sorted by (query keys, doc_id), so repeats are neighbours
        problems.append(
            _checks.adjacent_duplicate_problem(
                ranked, [*cols.query_keys, cols.doc_id], "run",
                "keep one row per document, or pass duplicates='max' to keep its highest score",
            )
        )
        problems.append(
            _checks.duplicate_problem(
                qrels, [cols.query_id, cols.doc_id], "qrels",
                "keep one judgement per document, or pass duplicates='max' to keep the highest",
            )
        )
    return problems


def rank_run(run: pl.LazyFrame, cols: RunColumns, doc_dtype: pl.DataType) -> pl.LazyFrame:
    """Add a 1-based ``rank`` per query: score descending, then doc_id descending as text.

    The frame is sorted by (query keys, doc_id descending) and ranked with a stable
    ordinal rank of the score, so equal scores keep the doc_id order. The result
    stays sorted by (query keys, doc_id), which also puts repeated documents side by side.
    """
    keys = cols.query_keys
    tie = pl.col(cols.doc_id)
    if doc_dtype != pl.String:
        tie = tie.cast(pl.String)
    by_doc = run.sort([*keys, tie], descending=[False] * len(keys) + [True], nulls_last=True)
    rank = pl.col(cols.score).rank("ordinal", descending=True).over(keys).cast(pl.UInt32)
    return by_doc.with_columns(rank.alias(cols.rank))


def judge_lazy(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    sort: bool = True,
) -> pl.LazyFrame:
    """The judged frame, lazily; see the module docstring for the rules.

    Columns: ``[*by, query_id, doc_id, rank, relevance, score, <other run columns>]``.
    """
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise ValueError(f"depth must be a positive integer (trec_eval -M), got {depth!r}")
    if duplicates not in ("error", "max"):
        raise ValueError(f"duplicates must be 'error' or 'max', got {duplicates!r}")
    run, qrels, doc_dtype = _prepare(run, qrels, cols)
    doc_keys = [*cols.query_keys, cols.doc_id]
    checked_run = run
    if duplicates == "max":
        run = run.sort(cols.score, descending=True, nulls_last=True).unique(doc_keys, keep="first")
        qrels = qrels.sort(cols.relevance, descending=True).unique(
            [cols.query_id, cols.doc_id], keep="first"
        )

    judged_queries = qrels.select(cols.query_id).unique()
    ranked = rank_run(run.join(judged_queries, on=cols.query_id, how="semi"), cols, doc_dtype)
    problems = _problems(checked_run, ranked, qrels, cols, duplicates)
    if depth is not None:
        ranked = ranked.filter(pl.col(cols.rank) <= depth)
    if complete and cols.by:
        groups = run.select(cols.by).unique().join(judged_queries, how="cross")
    elif complete:
        groups = judged_queries
    else:
        groups = ranked.select(cols.query_keys).unique()
    missed_or_found = groups.join(qrels, on=cols.query_id)
    judged = ranked.join(missed_or_found, on=doc_keys, how="full", coalesce=True)

    run_rest = [c for c in run.collect_schema().names() if c not in (*doc_keys, cols.score)]
    order = [*doc_keys, cols.rank, cols.relevance, cols.score, *run_rest]
    judged = judged.select(order)
    if sort:
        judged = judged.sort([*cols.query_keys, cols.rank, cols.doc_id], nulls_last=True)
    return _checks.attach(judged, problems)
