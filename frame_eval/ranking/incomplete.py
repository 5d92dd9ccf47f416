"""Measures for incomplete judgements: ``bpref``, ``gm_bpref``, ``infAP``, ``unj`` and ``Judged``.

trec_eval tells three kinds of retrieved document apart: judged (judgement
0 or more), *unjudged in the pool* (a negative judgement; infAP's sampled
pools mark documents so) and *not in the pool* (no judgement at all).

- ``Bpref`` (trec_eval ``bpref``): for each relevant document retrieved, in rank
  order, with ``n`` judged non-relevant documents (``0 <= judgement < rel``)
  above it: ``1 - min(n, R) / min(N, R)``, or 1 when ``n`` is 0; the sum is
  divided by ``R``. ``N`` counts the query's judged non-relevant documents,
  retrieved or not. Unjudged and negatively judged documents are skipped.
  0 when ``R`` is 0. ``gm_bpref`` is the same value summarised by trec_eval's
  geometric mean.
- ``infAP`` (Yilmaz and Aslam's inferred AP, trec_eval's formula): for the
  relevant document at 0-based position ``j`` with ``r`` relevant, ``n`` judged
  non-relevant and ``u`` negatively judged documents at or above it (``r``
  counts itself): 1 when ``j`` is 0, else
  ``1/(j+1) + (j/(j+1)) ((r - 1 + n + u)/j) ((r - 1 + e)/(r - 1 + n + 2e))``,
  ``e = 0.00001``; the sum over the retrieved relevant documents divided by ``R``.
- ``unj@k`` (trec_eval ``unj.k``): retrieved documents in ranks ``1..k`` without a
  judgement of 0 or more, divided by ``k`` (also when fewer were retrieved).
- ``Judged@k`` (ir_measures): retrieved documents in ranks ``1..k`` with any
  judgement (negative ones included), divided by ``min(k, retrieved)``;
  0 when nothing is retrieved. Without ``k``, the whole ranking.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval._float import divide, ordered_sum
from frame_eval.ranking._common import (
    _RANKS,
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_rank_order,
    _relevant,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import Doc, measure

INFAP_EPSILON = 0.00001


def _retrieved_in_rank_order(columns: Mapping[str, str]) -> tuple[pl.Expr, pl.Expr]:
    """(ranks, judgements) of the retrieved rows, by rank. (In the compact evaluation frame an
    unjudged row may share the deepest rank with a judged one; it adds to no count.)"""
    rank, relevance = _columns(columns)
    retrieved = rank.is_not_null()
    ranks = rank.filter(retrieved)
    return ranks.sort(), relevance.filter(retrieved).sort_by(ranks)


def _retrieved_terms(columns: Mapping[str, str]) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(ranks, judgements, which rows are the retrieved relevant ones' terms), in rank order.

    On rows already in rank order (unretrieved rows last) every row is kept, so that no
    group is filtered or sorted: counts down the rows are the same at each retrieved row,
    and a sum of the terms where the third expression holds, 0.0 elsewhere, has the bits
    of the sum over the retrieved rows alone (no term is -0.0).
    """
    if _in_rank_order(columns):
        rank, relevance = _columns(columns)
        return rank, relevance, rank.is_not_null()
    ranks, judgements = _retrieved_in_rank_order(columns)
    return ranks, judgements, pl.lit(True)


def _build_bpref(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    _, relevance = _columns(columns)
    _, judgements, retrieved = _retrieved_terms(columns)
    num_rel = _relevant(relevance, rel).sum()
    num_nonrel = ((relevance >= 0) & (relevance < rel)).fill_null(False).sum()
    is_nonrel = ((judgements >= 0) & (judgements < rel)).fill_null(False)
    nonrel_above = is_nonrel.cast(pl.Int64).cum_sum()  # inclusive: the relevant row itself adds 0
    worst = pl.min_horizontal(num_nonrel, num_rel).cast(pl.Float64)
    seen = pl.min_horizontal(nonrel_above, num_rel).cast(pl.Float64)
    terms = pl.when(nonrel_above > 0).then(1.0 - divide(seen, worst)).otherwise(pl.lit(1.0, pl.Float64))
    counted = _relevant(judgements, rel) & retrieved
    total = ordered_sum(pl.when(counted).then(terms).otherwise(pl.lit(0.0, pl.Float64)))
    return _safe_ratio(total, num_rel)


def _build_infap(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    _, relevance = _columns(columns)
    ranks, judgements, retrieved = _retrieved_terms(columns)
    is_rel = _relevant(judgements, rel)
    rel_so_far = is_rel.cast(pl.Int64).cum_sum()
    nonrel_so_far = ((judgements >= 0) & (judgements < rel)).fill_null(False).cast(pl.Int64).cum_sum()
    pooled_so_far = (judgements < 0).fill_null(False).cast(pl.Int64).cum_sum()
    j = (ranks - 1).cast(pl.Float64)
    before = (rel_so_far - 1).cast(pl.Float64)
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
        (rel_so_far - 1 + nonrel_so_far + pooled_so_far).cast(pl.Float64) / j
    ) * ((before + INFAP_EPSILON) / ((rel_so_far - 1 + nonrel_so_far).cast(pl.Float64) + 2 * INFAP_EPSILON))
    terms = pl.when(ranks == 1).then(pl.lit(1.0, pl.Float64)).otherwise(term)
    total = ordered_sum(pl.when(is_rel & retrieved).then(terms).otherwise(pl.lit(0.0, pl.Float64)))
    return _safe_ratio(total, _relevant(relevance, rel).sum())


def _micro_unj(columns: Mapping[str, str], k: int | None) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    assert k is not None
    deepest = rank.max().fill_null(0).cast(pl.Int64)
    seen = pl.min_horizontal(deepest, pl.lit(min(k, _RANKS), dtype=pl.Int64))
    judged = ((relevance >= 0).fill_null(False) & _within(rank, k)).sum().cast(pl.Int64)
    return seen - judged, pl.lit(k, pl.Int64)


def _build_unj(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    unjudged, _ = _micro_unj(columns, k)
    assert k is not None
    return divide(unjudged, k)


def _micro_judged(columns: Mapping[str, str], k: int | None) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    deepest = rank.max().fill_null(0).cast(pl.Int64)
    seen = deepest if k is None else pl.min_horizontal(deepest, pl.lit(min(k, _RANKS), dtype=pl.Int64))
    return (relevance.is_not_null() & _within(rank, k)).sum(), seen


def _build_judged(columns: Mapping[str, str], k: int | None) -> pl.Expr:
    return _safe_ratio(*_micro_judged(columns, k))


def _reads_judged(params: Mapping[str, object]) -> float:
    """Reads judged non-relevant and relevant rows (judgement 0 or more)."""
    return 0


BPREF = _spec(
    "Bpref", "binary preference: how few judged non-relevant documents rank above the relevant ones",
    _build_bpref, params=(_REL,), trec_name="bpref", lowest_read=_reads_judged,
    doc=Doc(
        "fe.ranking.bpref",
        "how few judged non-relevant documents rank above each relevant one",
        trec="`bpref`",
    ),
)
GM_BPREF = _spec(
    "gm_bpref", "bpref, summarised by the geometric mean (floor 0.00001)", _build_bpref,
    params=(_REL,), aggregate="gmean", lowest_read=_reads_judged,
    doc=Doc(
        "`fe.ranking.bpref()` per query",
        "bpref; summary: geometric mean with the floor",
        trec="`gm_bpref`",
    ),
)
INFAP = _spec(
    "infAP", "inferred average precision (Yilmaz and Aslam), trec_eval's formula", _build_infap,
    params=(_REL,), lowest_read=None,
    doc=Doc(
        "fe.ranking.infap",
        "inferred AP (negative judgements: pooled but unjudged)",
        trec="`infAP`",
    ),
)
UNJ = _spec(
    "unj", "retrieved documents without a judgement of 0 or more in the top k, over k", _build_unj,
    cutoff="required", lowest_read=_reads_judged, micro=_micro_unj,
    doc=Doc(
        "fe.ranking.unj",
        "retrieved documents without a judgement >= 0 in the top k, over k",
        names=("unj@k",),
        trec="`unj.k` (printed `unj_5`)",
    ),
)
JUDGED = _spec(
    "Judged", "judged documents in the top k, over min(k, retrieved) (ir_measures)", _build_judged,
    cutoff="optional", lowest_read=None, micro=_micro_judged,
    doc=Doc(
        "fe.ranking.judged_rate",
        "ir_measures': judged documents in the top k over min(k, retrieved)",
        names=("Judged@k",),
    ),
)


def bpref(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Binary preference (trec_eval ``bpref``, ir_measures ``Bpref``); see the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 0]})
    >>> judged.select(fe.ranking.bpref()).item()  # (1 + (1 - 1/2)) / 2
    0.75
    """
    return measure(BPREF, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def infap(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Inferred average precision (trec_eval ``infAP``); see the module docstring.

    With every retrieved document judged it equals AP up to the ``e`` terms.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 0]})
    >>> round(judged.select(fe.ranking.infap()).item(), 4)
    0.8333
    """
    return measure(INFAP, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def unj(k: int, *, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Unjudged rate at ``k`` (trec_eval ``unj.k``): documents in ranks ``1..k`` without a
    judgement of 0 or more, divided by ``k``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3], "relevance": [1, None, -1]})
    >>> judged.select(fe.ranking.unj(4)).item()  # 2 unjudged / 4
    0.5
    """
    return measure(UNJ, cutoff=k).expr(rank=rank, relevance=relevance, guard=GUARD)


def judged_rate(k: int | None = None, *, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """ir_measures' ``Judged@k``: judged documents (any judgement) in ranks ``1..k`` over
    ``min(k, retrieved)``; 0 when nothing is retrieved.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3], "relevance": [1, None, -1]})
    >>> round(judged.select(fe.ranking.judged_rate(10)).item(), 4)  # 2 of 3
    0.6667
    """
    return measure(JUDGED, cutoff=k).expr(rank=rank, relevance=relevance, guard=GUARD)
