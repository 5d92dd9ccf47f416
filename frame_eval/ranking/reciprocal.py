"""Reciprocal rank (trec_eval's ``recip_rank``).

``1 / rank`` of the first relevant document retrieved (within the cutoff);
0 when none is. Unjudged documents are not relevant.
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
    _within,
)
from frame_eval.registry import measure


def _build_rr(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    first = pl.when(_relevant(relevance, rel) & _within(rank, k)).then(rank).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)


RR = _spec(
    "RR", "reciprocal rank of the first relevant document", _build_rr, params=(_REL,),
    cutoff="optional", aliases=("MRR",), trec_name="recip_rank",
    lowest_read=_reads_relevant,
)


def rr(k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Reciprocal rank (trec_eval ``recip_rank``): ``1 / rank`` of the first relevant document.

    0 when no relevant document is retrieved (within ``k``, if given).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2, 3], "relevance": [0, None, 1]}).select(fe.ranking.rr()).item()
    0.3333333333333333
    """
    return measure(RR, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
