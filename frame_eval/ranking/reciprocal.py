"""Reciprocal rank (trec_eval's ``recip_rank``) and the recommender's hit measures.

``RR``: ``1 / rank`` of the first relevant document retrieved (within the cutoff);
0 when none is. ``ARHR@k`` (average reciprocal hit rank, Deshpande and Karypis):
``1 / rank`` added over every relevant document in ranks ``1..k``, in rank order.
``Hits@k``: the number of relevant documents in ranks ``1..k`` (averaged over
queries in summaries, as ranx does; ``Success@k``, alias ``HitRate``, is whether
there is one). ``ERR@k`` (expected reciprocal rank, Chapelle et al.): a user
stops at rank ``r`` with probability ``R_r = (2**g - 1) / 2**max_grade`` (``g`` the
judgement, 0 for unjudged and negative ones; ``max_grade`` 4 as in gdeval, which
ir_measures runs) once the documents above did not stop them:
``sum over r <= k of R_r / r * prod over i < r of (1 - R_i)``, added in rank order.
Unjudged documents are not relevant.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval._float import ordered_sum
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _reads_gains,
    _reads_relevant,
    _relevant,
    _spec,
    _within,
)
from frame_eval.registry import Doc, Param, measure


def _build_rr(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    first = pl.when(_relevant(relevance, rel) & _within(rank, k)).then(rank).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)


def _build_arhr(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    hits = rank.filter(_relevant(relevance, rel) & _within(rank, k)).sort()
    return ordered_sum(1.0 / hits.cast(pl.Float64))


def _build_hits(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & _within(rank, k)).sum()


def _build_err(columns: Mapping[str, str], k: int | None, *, max_grade: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    gaining = _within(rank, k) & (relevance > 0).fill_null(False)
    ranks = rank.filter(gaining)
    grades = relevance.filter(gaining).sort_by(ranks).cast(pl.Float64)
    ranks = ranks.sort().cast(pl.Float64)
    two = pl.lit(2.0, pl.Float64)  # typed: see ranking.gain._gains
    stop = (two.pow(grades) - 1.0) / two.pow(pl.lit(float(max_grade)))
    reached = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)  # the chance of reading on to r
    return ordered_sum(reached * stop / ranks)


def _check_max_grade(value: int) -> str | None:
    return None if 0 <= value <= 1000 else "must be the highest judgement of the scale (0 to 1000)"


ERR = _spec(
    "ERR", "expected reciprocal rank (Chapelle et al.): where a cascading user stops, 1 / rank",
    _build_err, params=(Param("max_grade", int, 4, doc="the highest judgement of the scale (gdeval: 4)",
                              check=_check_max_grade),),
    cutoff="optional", lowest_read=_reads_gains,
    doc=Doc(
        "fe.ranking.err",
        "expected reciprocal rank (Chapelle): stop at rank r with (2^g - 1) / 2^max_grade (4, as gdeval), "
        "1 / r where one stops",
        names=("ERR@k",),
    ),
)


ARHR = _spec(
    "ARHR", "average reciprocal hit rank: 1 / rank added over the relevant documents in the top k",
    _build_arhr, params=(_REL,), cutoff="optional", lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.arhr",
        "average reciprocal hit rank: 1 / rank added over the relevant documents in the top k",
        names=("ARHR@k",),
    ),
)
HITS = _spec(
    "Hits", "relevant documents in the top k", _build_hits, params=(_REL,), cutoff="optional",
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.hits",
        "relevant documents in the top k (mean in summaries, as ranx); `HitRate@k` is `Success@k`",
        names=("Hits@k",),
    ),
)


RR = _spec(
    "RR", "reciprocal rank of the first relevant document", _build_rr, params=(_REL,),
    cutoff="optional", aliases=("MRR",), trec_name="recip_rank",
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.rr",
        "1 / rank of the first relevant document",
        names=("RR", "RR@k"),
        trec="`recip_rank`",
    ),
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


def arhr(k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Average reciprocal hit rank at ``k``: ``1 / rank`` added over the relevant documents in ``1..k``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]}).select(fe.ranking.arhr(3)).item()
    0.5
    """
    return measure(ARHR, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def hits(k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Hits at ``k``: the relevant documents in ranks ``1..k``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]}).select(fe.ranking.hits(3)).item()
    1
    """
    return measure(HITS, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def err(k: int | None = None, *, max_grade: int = 4, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Expected reciprocal rank at ``k`` (ir_measures ``ERR@k``); see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3], "relevance": [2, 0, 1]})
    >>> round(judged.select(fe.ranking.err(10)).item(), 5)  # 3/16 + (13/16) (1/16) / 3
    0.20443
    """
    return measure(ERR, cutoff=k, max_grade=max_grade).expr(rank=rank, relevance=relevance, guard=GUARD)
