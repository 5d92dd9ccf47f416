"""Counts of documents and queries (trec_eval's ``num_q``, ``num_ret``, ``num_rel``, ``num_rel_ret``).

Counts are per query and summed, not averaged, in summaries. ``num_ret`` is the
number of documents ranked (after ``depth``); ``num_rel`` counts the query's
relevant judgements whether retrieved or not; ``num_rel_ret`` the relevant
documents retrieved; ``num_nonrel_judged_ret`` the retrieved documents judged
non-relevant (``0 <= judgement < rel``; negative judgements count as
unjudged). A query missing from the run (``complete=True``) has
``num_ret = num_rel_ret = 0``.
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
    _reads_no_judgement,
    _reads_relevant,
    _relevant,
    _spec,
)
from frame_eval.registry import Doc, measure


def _build_num_ret(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    rank, _ = _columns(columns)
    # ranks run 1..n, so the deepest rank is the count (and needs only the last row)
    return rank.max().fill_null(0).cast(pl.UInt32)


def _build_num_rel(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    _, relevance = _columns(columns)
    return _relevant(relevance, rel).sum()


def _build_num_rel_ret(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & rank.is_not_null()).sum()


def _build_num_q(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    return pl.lit(1, dtype=pl.UInt32)


def _build_num_nonrel_judged_ret(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return ((relevance >= 0) & (relevance < rel) & rank.is_not_null()).fill_null(False).sum()


def _reads_judged(params: Mapping[str, object]) -> float:
    """Reads the judgements of 0 or more."""
    return 0


NUM_RET = _spec(
    "NumRet", "number of documents retrieved", _build_num_ret, aggregate="sum",
    trec_name="num_ret",
    lowest_read=_reads_no_judgement,
    doc=Doc(
        "fe.ranking.num_ret",
        "documents retrieved (summed in summaries)",
        trec="`num_ret`",
    ),
)


NUM_REL = _spec(
    "NumRel", "number of relevant documents", _build_num_rel, params=(_REL,),
    aggregate="sum", trec_name="num_rel",
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.num_rel",
        "relevant documents (summed)",
        trec="`num_rel`",
    ),
)


NUM_REL_RET = _spec(
    "NumRelRet", "number of relevant documents retrieved", _build_num_rel_ret, params=(_REL,),
    aggregate="sum", trec_name="num_rel_ret",
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.num_rel_ret",
        "relevant documents retrieved (summed)",
        trec="`num_rel_ret`",
    ),
)


NUM_NONREL_JUDGED_RET = _spec(
    "NumNonRelJudgedRet", "number of retrieved documents judged non-relevant", _build_num_nonrel_judged_ret,
    params=(_REL,), aggregate="sum", trec_name="num_nonrel_judged_ret",
    lowest_read=_reads_judged,
    doc=Doc(
        "fe.ranking.num_nonrel_judged_ret",
        "retrieved documents judged non-relevant (summed)",
        trec="`num_nonrel_judged_ret`",
    ),
)


NUM_Q = _spec(
    "NumQ", "number of queries evaluated (1 per query; summed in summaries)", _build_num_q,
    aggregate="sum", trec_name="num_q",
    lowest_read=_reads_no_judgement,
    doc=Doc(
        "fe.ranking.num_q",
        "queries evaluated (summed)",
        trec="`num_q`",
    ),
)


def num_ret(*, rank: str = RANK) -> pl.Expr:
    """Number of retrieved documents (trec_eval ``num_ret``): the deepest rank (ranks run 1..n).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]}).select(fe.ranking.num_ret()).item()
    2
    """
    return measure(NUM_RET).expr(rank=rank, relevance=RELEVANCE, guard=GUARD)


def num_rel(*, rel: int = 1, relevance: str = RELEVANCE) -> pl.Expr:
    """Number of relevant documents of the query, retrieved or not (trec_eval ``num_rel``).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]}).select(fe.ranking.num_rel()).item()
    2
    """
    return measure(NUM_REL, rel=rel).expr(rank=RANK, relevance=relevance, guard=GUARD)


def num_rel_ret(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Number of relevant documents retrieved (trec_eval ``num_rel_ret``).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]})
    >>> judged.select(fe.ranking.num_rel_ret()).item()
    1
    """
    return measure(NUM_REL_RET, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def num_q() -> pl.Expr:
    """1 for each group (query) evaluated; ``summarize`` sums it into trec_eval's ``num_q``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"q": ["a", "b"]}).group_by("q").agg(fe.ranking.num_q())["NumQ"].sum()
    2
    """
    return measure(NUM_Q).expr()


def num_nonrel_judged_ret(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Retrieved documents judged non-relevant, ``0 <= judgement < rel``.

    trec_eval ``num_nonrel_judged_ret``; negative judgements count as unjudged.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [0, None, -1, 0]})
    >>> judged.select(fe.ranking.num_nonrel_judged_ret()).item()
    1
    """
    return measure(NUM_NONREL_JUDGED_RET, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
