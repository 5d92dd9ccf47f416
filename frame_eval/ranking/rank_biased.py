"""Rank-biased precision (Moffat and Zobel): trec_eval's ``rbp`` and ``rbp_resid``.

A user reads the ranking top down and goes on from each document to the
next with probability ``p`` (the persistence, default 0.9 as in trec_eval;
ir_measures' ``RBP`` defaults to 0.8, so name it: ``RBP(p=0.8)``).

- ``RBP = (1 - p) * sum over retrieved documents at rank r of gain * p**(r - 1)``.
  Gains are the judgements (unjudged and negatively judged documents give 0);
  when the query's highest judgement is above 1, gains are divided by it, so
  they lie in [0, 1], as trec_eval does. ``p**(r - 1)`` is taken as trec_eval
  takes it, by multiplying ``p`` in one rank at a time; terms are added in rank
  order.
- ``RBP_resid`` (trec_eval ``rbp_resid``): the residual, what RBP could still grow by
  if every unjudged retrieved document (no judgement, or a negative one) were
  fully relevant, plus everything below the ranking: ``p**n + (1 - p) * sum over
  unjudged ranks r of p**(r - 1)``, ``n`` documents retrieved. 0 when every
  retrieved document is judged (trec_eval leaves it unset, which prints 0).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval._float import divide, ordered_sum, powers
from frame_eval.ranking._common import (
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_rank_order,
    _reads_gains,
    _spec,
)
from frame_eval.registry import Doc, Param, measure, register_shorthand


def _build_rbp(columns: Mapping[str, str], k: int | None, *, p: float) -> pl.Expr:
    rank, relevance = _columns(columns)
    gaining = rank.is_not_null() & (relevance > 0).fill_null(False)
    highest = relevance.max().fill_null(0).cast(pl.Float64)
    if _in_rank_order(columns):  # rows in rank order: each adds its term, or 0.0, as it comes
        gains = relevance.cast(pl.Float64)
        weights = powers(p, rank.cast(pl.Int64) - 1)
    else:
        ranks = rank.filter(gaining)
        gains = relevance.filter(gaining).sort_by(ranks).cast(pl.Float64)
        weights = powers(p, ranks.sort().cast(pl.Int64) - 1)
    gains = pl.when(highest > 1.0).then(divide(gains, highest)).otherwise(gains)
    terms = gains * weights
    if _in_rank_order(columns):
        terms = pl.when(gaining).then(terms).otherwise(pl.lit(0.0, pl.Float64))
    # summed from 0.0 (0 + x is x), which also types the sum when no query is evaluated
    return pl.lit(1.0 - p, pl.Float64) * ordered_sum(pl.lit(0.0, pl.Float64).append(terms))


def _build_rbp_resid(columns: Mapping[str, str], k: int | None, *, p: float) -> pl.Expr:
    rank, relevance = _columns(columns)
    # the unjudged ranks are those without a judgement of 0 or more: read from the judged
    # rows and the depth alone, so the compact evaluation frame serves
    judged = rank.filter(rank.is_not_null() & (relevance >= 0).fill_null(False)).cast(pl.Int64)
    if not _in_rank_order(columns):
        judged = judged.sort()
    retrieved = rank.max().fill_null(0).cast(pl.Int64)
    every = pl.int_range(1, retrieved + 1, dtype=pl.Int64)
    # judged documents down to each rank (ranks are distinct): a rank is judged where it grows
    seen = judged.search_sorted(every, side="right")
    unjudged = (seen - seen.shift(1, fill_value=0)) == 0
    terms = pl.when(unjudged).then(powers(p, every - 1)).otherwise(pl.lit(0.0, pl.Float64))
    total = ordered_sum(pl.lit(0.0, pl.Float64).append(terms))  # 0 + x is x, and so is x + 0
    residual = powers(p, retrieved) + pl.lit(1.0 - p, pl.Float64) * total
    return pl.when(unjudged.any()).then(residual).otherwise(pl.lit(0.0, pl.Float64))


def _reads_judged(params: Mapping[str, object]) -> float:
    """Reads the judgements of 0 or more (the rest of the ranking is unjudged)."""
    return 0


def _check_p(value: float) -> str | None:
    return None if 0 < value < 1 else "must be between 0 and 1 (the chance of reading on)"


_P = Param("p", float, 0.9, doc="persistence: the chance of reading on to the next document", check=_check_p)
_NUMBER = r"(\d*\.?\d+)"

RBP = _spec(
    "RBP", "rank-biased precision: (1 - p) * sum of gain * p**(rank - 1)", _build_rbp,
    params=(_P,), trec_name="rbp", lowest_read=_reads_gains,
    doc=Doc(
        "fe.ranking.rbp",
        "rank-biased precision, gains divided by the top grade above 1 (p defaults to trec_eval's 0.9; "
        "ir_measures' is 0.8)",
        names=("RBP(p=0.9)",),
        trec="`rbp.p=0.9` (printed `rbp_p=0.9`; `rbp.0.9` accepted)",
    ),
)
RBP_RESID = _spec(
    "RBP_resid", "rank-biased precision's residual: what unjudged documents could still add",
    _build_rbp_resid, params=(_P,), trec_name="rbp_resid", lowest_read=_reads_judged,
    doc=Doc(
        "fe.ranking.rbp_resid",
        "RBP's residual: p^n + (1 - p) sum of p^(r-1) over unjudged ranks; 0 if none",
        names=("RBP_resid(p=0.9)",),
        trec="`rbp_resid.p=0.9`",
    ),
)
register_shorthand("ranking", rf"rbp[._](?:p=)?{_NUMBER}", lambda m: ("RBP", {"p": float(m.group(1))}))
register_shorthand(
    "ranking", rf"rbp_resid[._](?:p=)?{_NUMBER}", lambda m: ("RBP_resid", {"p": float(m.group(1))})
)


def rbp(p: float = 0.9, *, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Rank-biased precision (trec_eval ``rbp.p=0.8``, ir_measures ``RBP(p=0.8)``); see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3], "relevance": [1, 0, 1]})
    >>> round(judged.select(fe.ranking.rbp(0.5)).item(), 4)  # 0.5 * (1 + 0.25)
    0.625
    """
    return measure(RBP, p=p).expr(rank=rank, relevance=relevance, guard=GUARD)


def rbp_resid(p: float = 0.9, *, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """The residual of rank-biased precision (trec_eval ``rbp_resid``); see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3], "relevance": [1, None, 1]})
    >>> judged.select(fe.ranking.rbp_resid(0.5)).item()  # 0.5**3 + 0.5 * 0.5
    0.375
    """
    return measure(RBP_RESID, p=p).expr(rank=rank, relevance=relevance, guard=GUARD)
