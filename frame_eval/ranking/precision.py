"""Precision and recall at a rank: ``P``, ``recall``, ``Rprec``, ``success`` (trec_eval's).

``P@k`` divides the relevant documents in ranks ``1..k`` by ``k`` even when
fewer than ``k`` documents were retrieved. ``recall`` and ``Rprec`` divide
by ``R``, the query's relevant documents, and are 0 when ``R`` is 0.
``Rprec`` is the precision at rank ``R``. Unjudged documents count as not
relevant; ties in score are broken by doc_id (see :mod:`frame_eval.judged`).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from frame_eval._float import divide
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _reads_relevant,
    _relevant,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import measure


def _build_precision(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert k is not None
    return divide((_relevant(relevance, rel) & _within(rank, k)).sum(), k)

def _build_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return _safe_ratio((is_rel & _within(rank, k)).sum(), is_rel.sum())

def _build_rprec(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    num_rel = is_rel.sum()
    return _safe_ratio((is_rel & (rank <= num_rel).fill_null(False)).sum(), num_rel)

def _build_success(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & _within(rank, k)).any().cast(pl.Float64)

P = _spec(
    "P", "precision at k: relevant documents in the top k, divided by k", _build_precision,
    params=(_REL,), cutoff="required",
    lowest_read=_reads_relevant,
)

R = _spec(
    "R", "recall at k: relevant documents in the top k over all relevant documents",
    _build_recall, params=(_REL,), cutoff="optional", trec_name="recall",
    lowest_read=_reads_relevant,
)

RPREC = _spec(
    "Rprec", "precision at rank R, R being the number of relevant documents", _build_rprec,
    params=(_REL,), aliases=("R-prec", "R_prec"),
    lowest_read=_reads_relevant,
)

SUCCESS = _spec(
    "Success", "1 if a relevant document is in the top k, else 0", _build_success,
    params=(_REL,), cutoff="required", trec_name="success",
    lowest_read=_reads_relevant,
)

def precision(k: int, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Precision at ``k`` (trec_eval ``P.k``): relevant documents in ranks ``1..k``, over ``k``.

    The divisor is always ``k``, also when fewer than ``k`` documents were
    retrieved.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2], "relevance": [1, 0]}).select(fe.ranking.precision(5)).item()
    0.2
    """
    return measure(P, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)

def recall(
    k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Recall at ``k`` (trec_eval ``recall.k``): relevant documents in ranks ``1..k`` over ``R``.

    Without ``k``, every retrieved document counts. 0 when ``R`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, None], "relevance": [1, 0, 1]})
    >>> judged.select(fe.ranking.recall(10)).item()
    0.5
    """
    return measure(R, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)

def r_precision(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """R-precision (trec_eval ``Rprec``): precision at rank ``R``, the number of relevant documents.

    0 when ``R`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, None], "relevance": [0, 1, 1]})
    >>> judged.select(fe.ranking.r_precision()).item()
    0.5
    """
    return measure(RPREC, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)

def success(k: int, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Success at ``k`` (trec_eval ``success.k``): 1.0 if a relevant document is in ranks ``1..k``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> pl.DataFrame({"rank": [1, 2], "relevance": [0, 1]}).select(fe.ranking.success(1)).item()
    0.0
    """
    return measure(SUCCESS, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
