"""Average precision (trec_eval's ``map``, ``map_cut`` and ``gm_map``).

The precision at the rank of each relevant document retrieved (within the
cutoff), added in rank order, divided once by ``R``, the query's relevant
documents, retrieved or not (``denominator="min_kR"``: by ``min(k, R)``, as
recommender libraries often do for ``AP@k``). 0 when ``R`` is 0. Unjudged documents are not
relevant. ``gm_map`` is the same per-query value summarised by trec_eval's
geometric mean, ``exp(mean(log(max(AP, 0.00001))))``; trec_eval prints no
per-query ``gm_map`` line.
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
    _in_rank_order,
    _reads_relevant,
    _relevant,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import Param, measure


def _build_ap(columns: Mapping[str, str], k: int | None, *, rel: int, denominator: str = "R") -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit = is_rel & _within(rank, k)
    # the i-th relevant document found, at rank r, adds precision i / r; added in rank order
    if _in_rank_order(columns):  # rows in rank order: count the hits as they come
        found = hit.cum_sum().cast(pl.Float64)
        terms = pl.when(hit).then(found / rank.cast(pl.Float64)).otherwise(pl.lit(0.0, pl.Float64))
        precision_sum = ordered_sum(terms)
    else:
        hit_ranks = rank.filter(hit).sort()
        found = pl.int_range(1, hit_ranks.len() + 1, dtype=pl.UInt32)
        precision_sum = ordered_sum(found.cast(pl.Float64) / hit_ranks.cast(pl.Float64))
    if denominator == "min_kR" and k is not None:
        return _safe_ratio(precision_sum, pl.min_horizontal(is_rel.sum(), pl.lit(k, pl.Int64)))
    return _safe_ratio(precision_sum, is_rel.sum())


_DENOMINATOR = Param(
    "denominator", str, "R", ("R", "min_kR"),
    "divide AP@k by R (trec_eval) or by min(k, R), the most relevant documents k ranks can hold",
)


AP = _spec(
    "AP", "average precision: mean over relevant documents of the precision at their rank",
    _build_ap, params=(_REL, _DENOMINATOR), cutoff="optional", aliases=("MAP",), trec_name="map",
    trec_cut_name="map_cut",
    lowest_read=_reads_relevant,
)

GM_MAP = _spec(
    "gm_map", "average precision, summarised by the geometric mean (floor 0.00001)", _build_ap,
    params=(_REL,), aggregate="gmean", aliases=("GMAP",), lowest_read=_reads_relevant,
)


def ap(
    k: int | None = None, *, rel: int = 1, denominator: str = "R", rank: str = RANK,
    relevance: str = RELEVANCE,
) -> pl.Expr:
    """Average precision (trec_eval ``map``; with ``k``, ``map_cut.k``).

    ``AP@k = sum over relevant documents d at rank r(d) <= k of
    P@r(d) / R``, with ``R`` the number of relevant documents of the query
    (retrieved or not). 0 when ``R`` is 0.

    Parameters
    ----------
    k
        Only ranks ``1..k`` count; the divisor stays ``R``.
    rel
        Minimum judgement for a document to be relevant.
    denominator
        ``"R"`` (trec_eval) or ``"min_kR"``: divide ``AP@k`` by ``min(k, R)``.
    rank, relevance
        Column names in the judged frame.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> round(judged.select(fe.ranking.ap()).item(), 4)  # (1/1 + 2/3) / 3
    0.5556
    """
    m = measure(AP, cutoff=k, rel=rel, denominator=denominator)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)
