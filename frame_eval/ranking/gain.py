"""Graded gain measures: nDCG (trec_eval's ``ndcg`` and ``ndcg_cut``).

The gain of a document is its judgement (``gain=linear``, trec_eval's) or
``2**g - 1``; unjudged and negatively judged documents give none. The
discount of rank ``r`` is ``log2(r + 1)`` (the C library's bits). The
ideal ranking orders every judged document of the query by gain, whether
retrieved or not; a cutoff applies to both rankings. 0 when no judged
document has gain. ``rel`` plays no part, as in trec_eval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

from frame_eval._float import divide, log2, ordered_sum
from frame_eval.ranking._common import (
    _BASE,
    _GAIN,
    _RANKS,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _reads_gains,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import measure


def _gains(relevance: pl.Expr, gain: str, highest: pl.Expr) -> pl.Expr:
    """Gain of each judgement: ``g`` (linear) or ``2**g - 1`` (exp); 0 for null and negative ``g``.

    Exponential gains are scaled by ``2**-highest`` (the query's highest judgement), which
    leaves nDCG's bits unchanged (a power of two scales exactly) and keeps judgements of
    1024 or more from overflowing to infinity.
    """
    g = relevance.fill_null(0).clip(lower_bound=0).cast(pl.Float64)
    if gain == "linear":
        return g
    top = highest.cast(pl.Float64)
    return pl.when(g > 0).then(pl.lit(2.0).pow(g - top) - pl.lit(2.0).pow(-top)).otherwise(0.0)

def _discount(positions: pl.Expr, base: float) -> pl.Expr:
    """log_base(position + 1), with the C library's log2 bits (trec_eval's discount) for base 2."""
    discount = log2(positions + 1)
    return discount if base == 2.0 else divide(discount, math.log2(base))

def _build_ndcg(columns: Mapping[str, str], k: int | None, *, gain: str, base: float) -> pl.Expr:
    rank, relevance = _columns(columns)
    highest = relevance.max().fill_null(0)
    g = _gains(relevance, gain, highest)
    # DCG: gains of the retrieved documents over their discounts, added in rank order
    # (discounts are looked up before filtering: polars runs a lookup after a filter slowly)
    scoring = _within(rank, k) & (g > 0)
    terms = g / _discount(rank.fill_null(0), base)
    dcg = ordered_sum(terms.filter(scoring), rank.filter(scoring))
    # ideal ranking: every judgement of the query, best first (zero gains add nothing)
    ideal = relevance.filter(relevance > 0).sort(descending=True)
    if k is not None and k < _RANKS:
        ideal = ideal.head(k)
    positions = pl.int_range(1, ideal.len() + 1, dtype=pl.UInt32)
    idcg = ordered_sum(_gains(ideal, gain, highest) / _discount(positions, base))
    return _safe_ratio(dcg, idcg)

NDCG = _spec(
    "nDCG", "normalised discounted cumulative gain", _build_ndcg, params=(_GAIN, _BASE),
    cutoff="optional", trec_name="ndcg", trec_cut_name="ndcg_cut",
    lowest_read=_reads_gains,
)

def ndcg(
    k: int | None = None,
    *,
    gain: str = "linear",
    base: float = 2.0,
    rank: str = RANK,
    relevance: str = RELEVANCE,
) -> pl.Expr:
    """Normalised discounted cumulative gain (trec_eval ``ndcg``, ``ndcg_cut.k``).

    ``DCG@k = sum over ranks r <= k of gain(g_r) / log_base(r + 1)``;
    ``nDCG@k = DCG@k / IDCG@k``, where the ideal ranking sorts every judged
    document of the query by gain. Without ``k`` the run's whole ranking is
    scored against the whole ideal ranking. 0 when no document has gain.

    Parameters
    ----------
    k
        Cutoff for both the run and the ideal ranking.
    gain
        ``"linear"`` (the judgement, trec_eval's) or ``"exp"`` (``2**g - 1``).
        Negative and null judgements give no gain.
    base
        Base of the logarithmic discount.
    rank, relevance
        Column names in the judged frame.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2], "relevance": [1, 2]})
    >>> round(judged.select(fe.ranking.ndcg()).item(), 4)
    0.8597
    """
    return measure(NDCG, cutoff=k, gain=gain, base=base).expr(rank=rank, relevance=relevance, guard=GUARD)
