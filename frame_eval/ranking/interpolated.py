"""Interpolated precision (trec_eval's ``iprec_at_recall``).

The interpolated precision at recall level ``x`` is the best precision at
any rank where at least ``round(x * R)`` relevant documents have been
found (trec_eval 10.0 rounds halves away from zero; 9.x truncated
``x * R + 0.9``). 0 where that many are never found; 0 for every level
when ``R`` is 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _reads_relevant,
    _relevant,
    _spec,
)
from frame_eval.registry import measure, register_shorthand


def _build_iprec(columns: Mapping[str, str], recall_level: float | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert recall_level is not None
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & rank.is_not_null())
    found = hit_ranks.rank("ordinal")
    # trec_eval 10.0 rounds the recall level to a count of relevant documents (half away from 0)
    needed = (is_rel.sum().cast(pl.Float64) * recall_level).round(0, mode="half_away_from_zero")
    return (found.cast(pl.Float64) / hit_ranks).filter(found >= needed).max().fill_null(0.0)

IPREC = _spec(
    "IPrec", "interpolated precision at a recall level: best precision at that recall or beyond",
    _build_iprec, params=(_REL,), cutoff="required", cutoff_type=float, trec_name="iprec_at_recall",
    lowest_read=_reads_relevant,
)

register_shorthand(
    "ranking", r"iprec_at_recall[._](\d*\.?\d+)", lambda m: ("IPrec", {"cutoff": float(m.group(1))})
)

def iprec(
    recall_level: float, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall``, ir_measures ``IPrec@r``).

    With ``R`` relevant documents and ``c = round(recall_level * R)`` (halves
    away from zero, as trec_eval 10.0 does; 9.x truncated ``x + 0.9``): the
    highest precision ``m / rank_m`` over the ``m``-th relevant documents
    found with ``m >= c``. 0 when fewer than ``c`` relevant documents are
    found; at level 0, the best precision at any relevant document (0 if none).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]})
    >>> judged.select(fe.ranking.iprec(0.5), fe.ranking.iprec(1.0)).row(0)
    (0.5, 0.5)
    """
    return measure(IPREC, cutoff=recall_level, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
