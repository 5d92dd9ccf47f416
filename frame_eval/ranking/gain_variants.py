"""trec_eval's variants of the gain measures: ``ndcg_rel``, ``Rndcg``, ``G`` and ``binG``.

Gains are the judgements (unjudged and negatively judged documents give none),
discounts ``log2`` with the C library's bits, sums in rank order, as in
:mod:`frame_eval.ranking.gain`.

- ``G`` (trec_eval's): each retrieved document with gain ``g`` adds
  ``g / log2(2 + cost - got)``, ``got`` being the gain of the ranking so far and
  ``cost`` the ideal ranking's gain so far with each position costing at least 1;
  the sum is divided by the ideal ranking's total gain. Linear gains.
- ``nDCG_rel`` (trec_eval ``ndcg_rel``): nDCG taken at each retrieved document with
  gain (the ranking's DCG so far over the ideal DCG at that depth, the ideal
  stopping at its last gaining document), plus the final nDCG once for each
  gaining document not retrieved, divided by the number of gaining documents.
- ``RnDCG`` (trec_eval ``Rndcg``): the mean of nDCG@b over the depths ``b`` where
  the ideal ranking's gain drops (the ends of its gain groups, the last being
  the number of gaining documents), and over the whole ranking too when more
  than one document beyond them is retrieved. 0 when ``R`` (by ``rel``) is 0.
- ``binG`` (trec_eval's): the ``m``-th relevant document retrieved, at rank ``r``,
  adds ``1 / log2(r + 2 - m)``; the sum is divided by ``R``, the relevant documents.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval._float import log2, ordered_sum
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_ranks,
    _reads_gains,
    _reads_relevant,
    _relevant,
    _safe_ratio,
    _spec,
)
from frame_eval.ranking.gain import _discount
from frame_eval.registry import Doc, measure


def _build_g(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    rank, relevance = _columns(columns)
    g = relevance.fill_null(0).clip(lower_bound=0)
    gaining = rank.is_not_null() & (g > 0)
    ranks = rank.filter(gaining)
    gains = _in_ranks(g.filter(gaining), ranks, columns)
    ranks = _in_ranks(ranks, ranks, columns)
    got = gains.cum_sum()  # the ranking's gain down to each gaining document (integers: exact)
    ideal = relevance.filter(relevance > 0).sort(descending=True)
    # each ideal position costs its gain, at least 1; beyond the ideal ranking, 1
    extra = (ideal - 1).cum_sum()
    reach = pl.min_horizontal(ranks.cast(pl.Int64), ideal.len().cast(pl.Int64)) - 1
    cost = ranks.cast(pl.Int64) + extra.gather(reach)
    terms = gains.cast(pl.Float64) / log2(2 + cost - got)
    return _safe_ratio(ordered_sum(terms), ideal.sum())


def _gaining_dcg(columns: Mapping[str, str]) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """(ranks, DCG so far at each) of the retrieved documents with gain, in rank order, and the
    ideal gains with the ideal DCG so far at each position (linear gains, trec_eval's sums)."""
    rank, relevance = _columns(columns)
    g = relevance.fill_null(0).clip(lower_bound=0)
    gaining = rank.is_not_null() & (g > 0)
    terms = g.cast(pl.Float64) / _discount(rank.fill_null(0), 2.0)
    ranks = rank.filter(gaining)
    dcg = _in_ranks(terms.filter(gaining), ranks, columns).cum_sum()
    ideal = relevance.filter(relevance > 0).sort(descending=True)
    positions = pl.int_range(1, ideal.len() + 1, dtype=pl.UInt32)
    idcg = (ideal.cast(pl.Float64) / _discount(positions, 2.0)).cum_sum()
    return _in_ranks(ranks, ranks, columns).cast(pl.Int64), dcg, ideal, idcg


def _build_ndcg_rel(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    rank, relevance = _columns(columns)
    ranks, dcg, _, idcg = _gaining_dcg(columns)
    # counts read without sorting (polars shares no subexpression inside an aggregation)
    num_gaining = (relevance > 0).sum().cast(pl.Int64)
    num_found = (rank.is_not_null() & (relevance > 0)).sum().cast(pl.Int64)
    depth = pl.min_horizontal(ranks, num_gaining) - 1
    at_each = ordered_sum(dcg / idcg.gather(depth))
    missed = (num_gaining - num_found).cast(pl.Float64)
    total = at_each + missed * dcg.last().fill_null(0.0) / idcg.last()
    # total is 0 or more, and 0 / n is 0: the value is 0 exactly when total is
    return pl.when(num_gaining > 0).then(total / num_gaining.cast(pl.Float64)).otherwise(
        pl.lit(0.0, pl.Float64)
    )


def _build_rndcg(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    ranks, dcg, ideal, idcg = _gaining_dcg(columns)
    num_gaining = (relevance > 0).sum().cast(pl.Int64)
    retrieved = rank.max().fill_null(0).cast(pl.Int64)
    # nDCG at every ideal depth, kept where the ideal gain drops (the last of each gain group)
    positions = pl.int_range(1, num_gaining + 1, dtype=pl.Int64)
    dcg_at = pl.lit(0.0, pl.Float64).append(dcg).gather(ranks.search_sorted(positions, side="right"))
    drops = ideal != ideal.shift(-1).fill_null(0)
    total = ordered_sum((dcg_at / idcg).filter(drops))
    count = (relevance.filter(relevance > 0).n_unique()).cast(pl.Int64)  # the gain groups
    whole = retrieved > num_gaining + 1  # trec_eval adds the whole ranking only then
    total = total + pl.when(whole).then(dcg.last().fill_null(0.0) / idcg.last()).otherwise(0.0)
    count = count + whole.cast(pl.Int64)
    has_rel = _relevant(relevance, rel).sum() > 0
    return pl.when(has_rel & (count > 0)).then(total / count.cast(pl.Float64)).otherwise(
        pl.lit(0.0, pl.Float64)
    )


def _build_bin_g(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hits = rank.filter(is_rel & rank.is_not_null())
    hits = _in_ranks(hits, hits, columns).cast(pl.Int64)
    found = pl.int_range(1, hits.len() + 1, dtype=pl.Int64)
    terms = 1.0 / log2(hits + 2 - found)
    return _safe_ratio(ordered_sum(terms), is_rel.sum())


G = _spec(
    "G", "trec_eval's G: gain over log2 of the cost of reaching it, normalised by the ideal gain",
    _build_g, lowest_read=_reads_gains,
    doc=Doc(
        "fe.ranking.g",
        "trec_eval's G: gain over log2 of the cost of reaching it, over the ideal gain",
        trec="`G`",
    ),
)


NDCG_REL = _spec(
    "nDCG_rel", "trec_eval's ndcg_rel: nDCG averaged over the gaining documents' depths",
    _build_ndcg_rel, trec_name="ndcg_rel", lowest_read=_reads_gains,
    doc=Doc(
        "fe.ranking.ndcg_rel",
        "nDCG averaged over the depths of the gaining documents (trec_eval's experimental measure)",
        trec="`ndcg_rel`",
    ),
)


RNDCG = _spec(
    "RnDCG", "trec_eval's Rndcg: nDCG averaged over the depths where the ideal gain drops",
    _build_rndcg, params=(_REL,), trec_name="Rndcg", lowest_read=None,
    doc=Doc(
        "fe.ranking.rndcg",
        "nDCG averaged over the depths where the ideal gain drops (trec_eval's experimental measure)",
        trec="`Rndcg`",
    ),
)


BIN_G = _spec(
    "binG", "trec_eval's binG: 1 / log2(r + 2 - m) for the m-th relevant document at rank r, over R",
    _build_bin_g, params=(_REL,), lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.bin_g",
        "1 / log2(r + 2 - m) for the m-th relevant document at rank r, over R",
        trec="`binG`",
    ),
)


def g(*, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """trec_eval's ``G``; see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2], "relevance": [0, 1]})
    >>> judged.select(fe.ranking.g()).item()  # 1 / log2(2 + 2 - 1) over 1
    0.6309297535714575
    """
    return measure(G).expr(rank=rank, relevance=relevance, guard=GUARD)


def bin_g(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """trec_eval's ``binG``; see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2], "relevance": [0, 1]})
    >>> judged.select(fe.ranking.bin_g()).item()  # 1 / log2(2 + 2 - 1)
    0.6309297535714575
    """
    return measure(BIN_G, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def ndcg_rel(*, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """trec_eval's ``ndcg_rel``; see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]})
    >>> round(judged.select(fe.ranking.ndcg_rel()).item(), 4)  # at rank 2, and once for the missed one
    0.3869
    """
    return measure(NDCG_REL).expr(rank=rank, relevance=relevance, guard=GUARD)


def rndcg(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """trec_eval's ``Rndcg``; see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]})
    >>> round(judged.select(fe.ranking.rndcg()).item(), 4)  # nDCG@2
    0.3869
    """
    return measure(RNDCG, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
