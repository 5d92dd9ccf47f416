"""Average precision (trec_eval's ``map``, ``map_cut``, ``gm_map`` and ``yaap``).

The precision at the rank of each relevant document retrieved (within the
cutoff), added in rank order, divided once by ``R``, the query's relevant
documents, retrieved or not (``denominator="min_kR"``: by ``min(k, R)``, as
recommender libraries often do for ``AP@k``). 0 when ``R`` is 0. Unjudged documents are not
relevant.

``interpolation`` (not trec_eval's; from object detection): with ``p_i = i / rank_i``
the precision at the ``i``-th relevant document found and ``D`` the divisor above,

- ``"none"`` (default): ``sum_i p_i / D``, trec_eval's ``map``;
- ``"all"`` (PASCAL VOC 2010 on, the all-point interpolated area under the curve):
  ``sum_i max_{j >= i} p_j / D``, each precision replaced by the best at its recall
  or beyond;
- ``"11pt"`` (PASCAL VOC 2007): the mean over ``t = 0, 0.1, ..., 1`` of the best
  ``p_i`` with recall ``i / D >= t`` (0 where there is none), the recall levels read
  exactly (``i >= ceil(t D)`` in integers: ``t = 0.7`` is 7/10, not the float
  ``0.7000000000000001`` VOC's code compares with), added from ``t = 1`` down, as
  trec_eval adds ``11pt_avg``, and divided once by 11: ``11pt_avg(rounding=ceil)``,
  within the cutoff.

``gm_map`` is the same per-query value summarised by trec_eval's
geometric mean, ``exp(mean(log(max(AP, 0.00001))))``; trec_eval prints no
per-query ``gm_map`` line.

``yaap`` (Robertson's "yet another average precision", ECIR 2012; trec_eval's
``yaap``): with ``S`` the same sum of precisions (every retrieved relevant document),
``log((1 + S) / (1 + R - S))``, the natural logarithm; 0 when ``R`` is 0, and
``log(1 / (1 + R))`` when nothing relevant is found. Averaged over queries as is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from frame_eval._float import divide, ordered_sum
from frame_eval.ranking import batched
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_rank_order,
    _ratio_or_zero,
    _reads_relevant,
    _relevant,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import Doc, Measure, Param, measure


def _build_ap(
    columns: Mapping[str, str], k: int | None, *, rel: int, denominator: str = "R",
    interpolation: str = "none",
) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit = is_rel & _within(rank, k)
    divisor = is_rel.sum()
    if denominator == "min_kR" and k is not None:
        divisor = pl.min_horizontal(divisor, pl.lit(k, pl.Int64))
    # the i-th relevant document found, at rank r, adds precision i / r; added in rank order
    if interpolation == "none" and _in_rank_order(columns):  # rows in rank order: count hits as they come
        found_so_far = hit.cum_sum().cast(pl.Float64)
        terms = pl.when(hit).then(found_so_far / rank.cast(pl.Float64)).otherwise(pl.lit(0.0, pl.Float64))
        return _ratio_or_zero(ordered_sum(terms), divisor)  # no relevant document: nothing found
    hit_ranks = rank.filter(hit).sort()
    found = pl.int_range(1, hit_ranks.len() + 1, dtype=pl.UInt32)
    precisions = found.cast(pl.Float64) / hit_ranks.cast(pl.Float64)
    if interpolation == "11pt":
        return _eleven_points(precisions, found, divisor)
    if interpolation == "all":  # the precision envelope: the best at this recall or beyond
        precisions = precisions.cum_max(reverse=True)
    return _safe_ratio(ordered_sum(precisions), divisor)


def _cutoffs_ap(
    columns: Mapping[str, str], cutoffs: list[int | None], *, rel: int, denominator: str = "R",
    interpolation: str = "none",
) -> pl.Expr | None:
    if interpolation != "none":
        return None
    hits, num_rel = batched.relevant_ranks(columns, rel)
    found = pl.int_range(1, hits.len() + 1, dtype=pl.UInt32)
    prefix = (found.cast(pl.Float64) / hits.cast(pl.Float64)).cum_sum()
    sums = batched.prefix_at(prefix, batched.found_within(hits, cutoffs))
    if denominator == "min_kR":
        most = pl.min_horizontal(pl.lit(batched.cutoff_series(cutoffs)), num_rel.cast(pl.Int64))
        return batched.ratio(sums, most)
    return batched.ratio_to(sums, num_rel)


def _eleven_points(precisions: pl.Expr, found: pl.Expr, divisor: pl.Expr) -> pl.Expr:
    """VOC 2007's 11-point AP: levels j / 10 need ceil(j D / 10) relevant found (in integers), each
    reading the best precision from there on (one envelope), added from the highest level down."""
    envelope = precisions.cum_max(reverse=True).append(pl.lit(0.0, pl.Float64))
    levels = pl.lit(pl.Series(list(reversed(range(11))), dtype=pl.Int64))
    needed = (divisor.cast(pl.Int64) * levels + 9) // 10
    position = pl.min_horizontal((needed - 1).clip(lower_bound=0), found.len().cast(pl.Int64))
    total = ordered_sum(pl.lit(0.0, pl.Float64).append(envelope.gather(position)))  # 0 + x is x
    return pl.when(divisor > 0).then(divide(total, 11)).otherwise(pl.lit(0.0, pl.Float64))


def _build_yaap(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & rank.is_not_null()).sort()
    found = pl.int_range(1, hit_ranks.len() + 1, dtype=pl.UInt32)
    total = ordered_sum(found.cast(pl.Float64) / hit_ranks.cast(pl.Float64))
    # as trec_eval writes it: (1 + S) / ((1 + R) - S)
    return ((1.0 + total) / (1.0 + is_rel.sum().cast(pl.Float64) - total)).log()


_INTERPOLATION = Param(
    "interpolation", str, "none", ("none", "all", "11pt"),
    "precision at each relevant document as is (trec_eval), or interpolated: the best at that recall "
    "or beyond (all: VOC 2010 on), or at the 11 recall levels (11pt: VOC 2007)",
)

_DENOMINATOR = Param(
    "denominator", str, "R", ("R", "min_kR"),
    "divide AP@k by R (trec_eval) or by min(k, R), the most relevant documents k ranks can hold",
)


AP = _spec(
    "AP", "average precision: mean over relevant documents of the precision at their rank",
    _build_ap, params=(_REL, _DENOMINATOR, _INTERPOLATION), cutoff="optional", aliases=("MAP",),
    trec_name="map", trec_cut_name="map_cut", build_cutoffs=_cutoffs_ap,
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.ap",
        "sum of P@rank over relevant documents found (within k), divided by all relevant "
        "(`denominator=min_kR`: by min(k, R)); `interpolation=all`: each precision replaced by the best "
        "at its recall or beyond (VOC 2010 on), `11pt`: the mean of the best precision at recall >= 0, "
        "0.1, ..., 1, levels read exactly (VOC 2007)",
        names=("AP", "AP@k"),
        trec="`map`, `map_cut.k`",
    ),
)

def _gm_map_from_ap(params: Mapping[str, Any]) -> tuple[list[Measure], Callable[[list[pl.Expr]], pl.Expr]]:
    """``gm_map``'s per-query value is AP's (only the summary differs)."""
    return [measure(AP, rel=params["rel"])], lambda values: values[0]


GM_MAP = _spec(
    "gm_map", "average precision, summarised by the geometric mean (floor 0.00001)", _build_ap,
    params=(_REL,), aggregate="gmean", aliases=("GMAP",), lowest_read=_reads_relevant,
    from_others=_gm_map_from_ap,
    doc=Doc(
        "`fe.ranking.ap()` per query",
        "AP per query; summary: geometric mean with trec_eval's floor 0.00001",
        trec="`gm_map`",
    ),
)


YAAP = _spec(
    "yaap", "yet another average precision (Robertson): log((1 + S) / (1 + R - S)), S AP's sum of precisions",
    _build_yaap, params=(_REL,), lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.yaap",
        "Robertson's yet another average precision: log((1 + S) / (1 + R - S)), S the sum of precisions "
        "at the relevant documents retrieved (AP times R)",
        trec="`yaap` (not in `all_trec`)",
    ),
)


def ap(
    k: int | None = None, *, rel: int = 1, denominator: str = "R", interpolation: str = "none",
    rank: str = RANK, relevance: str = RELEVANCE,
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
    interpolation
        ``"none"`` (trec_eval), ``"all"`` (all-point interpolated, VOC 2010 on) or
        ``"11pt"`` (11-point interpolated, VOC 2007); see the module docstring.
    rank, relevance
        Column names in the judged frame.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> round(judged.select(fe.ranking.ap()).item(), 4)  # (1/1 + 2/3) / 3
    0.5556
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [1, 0, 0, 1, 1]})
    >>> [round(judged.select(fe.ranking.ap(interpolation=i)).item(), 4) for i in ("none", "all", "11pt")]
    [0.7, 0.7333, 0.7455]
    """
    m = measure(AP, cutoff=k, rel=rel, denominator=denominator, interpolation=interpolation)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)


def yaap(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Yet another average precision (trec_eval ``yaap``): ``log((1 + S) / (1 + R - S))``.

    ``S`` is the sum of the precisions at the relevant documents retrieved (AP times
    ``R``), ``R`` the query's relevant documents; 0 when ``R`` is 0.

    Examples
    --------
    >>> import math, polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> s = 1 / 1 + 2 / 3  # precisions at ranks 1 and 3; R = 3
    >>> judged.select(fe.ranking.yaap()).item() == math.log((1 + s) / (1 + 3 - s))
    True
    """
    return measure(YAAP, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
