"""Per-query evaluation and summaries of rankings: the one core every front end calls.

Everything here takes and returns :class:`polars.LazyFrame`; the namespaces
collect when their input was eager and convert for pandas.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import polars as pl

from frame_eval import _checks
from frame_eval import ranking as _ranking  # noqa: F401  (registers the ranking measures)
from frame_eval._tidy import to_long
from frame_eval.judged import Duplicates, RunColumns, evaluation_frame, judged_frame
from frame_eval.registry import Measure, resolve

Shape = Literal["long", "wide"]
MeasureArg = str | Measure | Iterable[str | Measure]

DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec")


def _check_names(keys: Sequence[str], reserved: Sequence[str]) -> None:
    clash = [k for k in keys if k in reserved]
    if clash:
        raise ValueError(
            f"key column {clash[0]!r} clashes with an output column of the same name; rename it"
        )


def per_query_wide(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: Sequence[Measure],
    cols: RunColumns,
    *,
    complete: bool,
    depth: int | None,
    duplicates: Duplicates,
    strict: bool = False,
) -> pl.LazyFrame:
    """``[*by, query_id, <one Float64 column per measure>]``, sorted by the keys."""
    _check_names(cols.query_keys, [m.name for m in measures])
    options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict}
    if any(m.spec.reads_unjudged for m in measures):
        judged, problems = judged_frame(run, qrels, cols, **options)
    else:
        # most measures read only judged documents, and only some of those: skip the rest
        reads = [m.lowest_read for m in measures]
        lowest = min((r for r in reads if r is not None), default=None) if None not in reads else None
        judged, problems = evaluation_frame(run, qrels, cols, **options, lowest_read=lowest)
    exprs = [
        m.expr(rank=cols.rank, relevance=cols.relevance).cast(pl.Float64) for m in measures
    ]
    per_query = judged.group_by(cols.query_keys).agg(exprs).sort(cols.query_keys)
    return _checks.attach(per_query, problems)


def evaluate(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: MeasureArg,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    shape: Shape = "long",
) -> pl.LazyFrame:
    """Per-query values: long ``[*by, query_id, metric, value]`` or wide (one column per measure)."""
    if shape not in ("long", "wide"):
        raise ValueError(f"shape must be 'long' or 'wide', got {shape!r}")
    ms = resolve(measures, "ranking")
    wide = per_query_wide(
        run, qrels, ms, cols, complete=complete, depth=depth, duplicates=duplicates, strict=strict
    )
    if shape == "wide":
        return wide
    _check_names(cols.query_keys, ["metric", "value"])
    return to_long(wide, cols.query_keys, [m.name for m in ms])


def summarize(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: MeasureArg,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
) -> pl.LazyFrame:
    """``[*by, metric, value, num_q]``: the mean over evaluated queries, counts summed."""
    ms = resolve(measures, "ranking")
    _check_names(cols.by, ["metric", "value", "num_q"])
    wide = per_query_wide(
        run, qrels, ms, cols, complete=complete, depth=depth, duplicates=duplicates, strict=strict
    )
    aggs = [
        (pl.col(m.name).sum() if m.spec.aggregate == "sum" else pl.col(m.name).mean()).cast(
            pl.Float64
        )
        for m in ms
    ]
    num_q = pl.len().cast(pl.Int64).alias("num_q")
    if cols.by:
        totals = wide.group_by(list(cols.by)).agg(*aggs, num_q).sort(list(cols.by))
    else:
        totals = wide.select(*aggs, num_q)
    long = to_long(totals, cols.by, [m.name for m in ms], carry=["num_q"])
    return long.select(*cols.by, "metric", "value", "num_q")
