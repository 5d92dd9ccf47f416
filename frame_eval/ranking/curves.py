"""Ranking precision-recall curves as tidy frames (``run.ireval.ranking_curve(qrels)``).

Two curves, both read from trec_eval's rankings (see :mod:`frame_eval.judged`):

- **Per rank** (``interpolated=False``): for each evaluated query, one row per
  retrieved document, ``[*by, query_id, rank, doc_id, relevant, precision, recall]``
  (ids under their own names), rank ascending. With ``found`` the relevant documents (judgement ``>= rel``) in
  ranks ``1..rank`` and ``R`` the query's relevant documents, retrieved or not:
  ``precision = found / rank`` (trec_eval's ``P@rank``, the same bits) and
  ``recall = found / R`` (``R@rank``; 0 when ``R`` is 0, as every measure that
  divides by ``R``). A query that retrieved nothing (``complete=True``) has no rows.
- **Interpolated** (``interpolated=True``): the interpolated precision at recall
  levels (the 11 standard ones, 0, 0.1, ..., 1, or ``levels=``), per query
  ``[*by, query_id, recall, precision]``, or averaged over queries (``average=True``)
  ``[*by, recall, precision, num_q]``, the classic averaged 11-point curve. A level's
  value is exactly ``IPrec@level`` (trec_eval's ``iprec_at_recall``) per query, and
  its average is ``summarize``'s mean of it (queries added in the text order of
  their ids, divided once): the curve is computed by :func:`frame_eval.evaluate.evaluate`
  and :func:`~frame_eval.evaluate.summarize` themselves. ``rounding`` is ``IPrec``'s.

Both are ready for any plotting library: ``recall`` on the x axis, ``precision``
on the y axis, one line per query (per rank) or per system (averaged).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from frame_eval import _checks
from frame_eval.judged import INTERNAL, Duplicates, RunColumns, judged_frame
from frame_eval.ranking.interpolated import DEFAULT_LEVELS
from frame_eval.registry import measure

_RANK = f"{INTERNAL}_curve_rank"
_RELEVANT = f"{INTERNAL}_curve_relevant"
_TOTAL = f"{INTERNAL}_curve_total"
PER_RANK = ("rank", "relevant", "precision", "recall")


def _check_flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")


def _levels(levels: Sequence[float] | None) -> list[float]:
    """The recall levels, sorted and without repeats; each a number from 0 to 1."""
    if levels is None:
        return list(DEFAULT_LEVELS)
    if isinstance(levels, str) or not isinstance(levels, Sequence) or not levels:
        raise TypeError(f"levels must be a non-empty sequence of recall levels such as [0.2, 0.5, 0.8], "
                        f"got {levels!r}")
    for level in levels:
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 <= level <= 1:
            raise ValueError(f"levels must hold recall levels from 0 to 1, got {level!r}")
    return sorted({float(level) for level in levels})


def _clash(keys: Sequence[str], outputs: Sequence[str]) -> None:
    clash = [k for k in keys if k in outputs]
    if clash:
        raise ValueError(f"key column {clash[0]!r} clashes with an output column of the curve; rename it")


def ranking_curve(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    *,
    rel: int = 1,
    interpolated: bool = False,
    levels: Sequence[float] | None = None,
    rounding: str = "trec10",
    average: bool = False,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    judged_only: bool = False,
) -> pl.LazyFrame:
    """The curve of each ranking, lazily; see the module docstring for the columns and values."""
    _check_flag("interpolated", interpolated)
    _check_flag("average", average)
    options: dict[str, Any] = {"complete": complete, "depth": depth, "duplicates": duplicates,
                               "strict": strict, "judged_only": judged_only}
    if not interpolated:
        if average:
            raise ValueError("average=True averages the interpolated curve over queries; pass "
                             "interpolated=True too (per-rank points differ from query to query)")
        if levels is not None:
            raise ValueError("levels= are the recall levels of the interpolated curve; "
                             "pass interpolated=True")
        measure("IPrec", 0.0, rel=rel, rounding=rounding)  # the same checks of rel and rounding
        return _per_rank(run, qrels, cols, rel, options)
    from frame_eval import evaluate as core  # the core imports the ranking package

    chosen = _levels(levels)
    measures = [measure("IPrec", level, rel=rel, rounding=rounding) for level in chosen]
    level_of = pl.col("metric").replace_strict([m.name for m in measures], chosen, return_dtype=pl.Float64)
    if average:
        _clash(cols.by, ("recall", "precision", "num_q"))
        summary = core.summarize(run, qrels, measures, cols, **options)
        return summary.select(*cols.by, level_of.alias("recall"), pl.col("value").alias("precision"), "num_q")
    _clash(cols.query_keys, ("recall", "precision"))
    per_query = core.evaluate(run, qrels, measures, cols, **options)
    return per_query.select(*cols.query_keys, level_of.alias("recall"), pl.col("value").alias("precision"))


def _per_rank(
    run: pl.LazyFrame, qrels: pl.LazyFrame, cols: RunColumns, rel: int, options: dict[str, Any]
) -> pl.LazyFrame:
    keys = cols.query_keys
    _clash(keys, PER_RANK)
    judged_cols = RunColumns(cols.query_id, cols.doc_id, cols.score, cols.relevance, _RANK, cols.by)
    judged, problems = judged_frame(run, qrels, judged_cols, **options)
    relevant = (pl.col(cols.relevance) >= rel).fill_null(False)
    ranked = (
        judged.select(*keys, cols.doc_id, _RANK, relevant.alias(_RELEVANT))
        .with_columns(pl.col(_RELEVANT).sum().over(keys).alias(_TOTAL))
        .filter(pl.col(_RANK).is_not_null())
        .sort([*keys, _RANK])
    )
    found = pl.col(_RELEVANT).cast(pl.Int64).cum_sum().over(keys).cast(pl.Float64)
    total = pl.col(_TOTAL)
    curve = ranked.select(
        *keys,
        pl.col(_RANK).cast(pl.Int64).alias("rank"),
        pl.col(cols.doc_id),
        pl.col(_RELEVANT).alias("relevant"),
        # column by column: IEEE division, the bits of P@rank and R@rank
        (found / pl.col(_RANK).cast(pl.Float64)).alias("precision"),
        pl.when(total > 0).then(found / total.cast(pl.Float64)).otherwise(0.0).alias("recall"),
    )
    return _checks.attach(curve, problems)
