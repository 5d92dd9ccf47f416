"""Precision and recall at a rank: ``P``, ``recall``, ``Rprec``, ``Rprec_mult``, ``relative_P``,
``success`` (trec_eval's).

``P@k`` divides the relevant documents in ranks ``1..k`` by ``k`` even when
fewer than ``k`` documents were retrieved. ``recall`` and ``Rprec`` divide
by ``R``, the query's relevant documents, and are 0 when ``R`` is 0.
``Rprec`` is the precision at rank ``R``; ``Rprec_mult`` the precision at
rank ``c = floor(m * R + 0.9)`` (trec_eval 10.0 still truncates here), 0 when
``c`` is 0, dividing by ``c`` when fewer than ``c`` documents were retrieved.
``relative_P@k`` divides the relevant documents in ranks ``1..k`` by
``min(k, R)``, the most that could be there; 0 when ``R`` is 0.
``SE`` (system efficiency) is ``1 - d / sqrt(2)``, ``d`` the smallest Euclidean
distance from the query's (recall, precision) points, one per rank (within the cutoff),
to the perfect point (1, 1); the closest point is always at a relevant document (a
non-relevant one lowers precision at the same recall), and with no relevant document
found every point is (0, 0), so SE is 0, as it is when nothing was retrieved or ``R`` is 0.
Unjudged documents count as not relevant; ties in score are broken by doc_id (see :mod:`frame_eval.judged`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

from frame_eval._float import divide
from frame_eval.ranking import batched
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _ratio_or_zero,
    _reads_relevant,
    _relevant,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import Doc, Param, measure, register_shorthand


def _build_precision(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert k is not None
    return divide((_relevant(relevance, rel) & _within(rank, k)).sum(), k)


def _build_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return _ratio_or_zero((is_rel & _within(rank, k)).sum(), is_rel.sum())  # found <= relevant


def _build_rprec(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    num_rel = is_rel.sum()
    return _safe_ratio((is_rel & (rank <= num_rel).fill_null(False)).sum(), num_rel)


def _build_success(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & _within(rank, k)).any().cast(pl.Float64)


def _build_rprec_mult(columns: Mapping[str, str], k: int | None, *, mult: float, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    depth = (pl.lit(mult) * is_rel.sum().cast(pl.Float64) + 0.9).floor()
    found = (is_rel & (rank <= depth).fill_null(False)).sum()
    return _safe_ratio(found, depth)


def _build_relative_p(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert k is not None
    is_rel = _relevant(relevance, rel)
    most = pl.min_horizontal(is_rel.sum(), pl.lit(k, dtype=pl.Int64))
    return _safe_ratio((is_rel & _within(rank, k)).sum(), most)


def _build_efficiency(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & _within(rank, k))
    found = hit_ranks.rank("ordinal").cast(pl.Float64)
    missing_recall = 1.0 - divide(found, is_rel.sum())
    missing_precision = 1.0 - found / hit_ranks.cast(pl.Float64)
    distance = (missing_recall * missing_recall + missing_precision * missing_precision).sqrt().min()
    return 1.0 - divide(distance.fill_null(math.sqrt(2.0)), math.sqrt(2.0))


def _cutoffs_precision(columns: Mapping[str, str], cutoffs: list[int], *, rel: int) -> pl.Expr:
    hits, _ = batched.relevant_ranks(columns, rel)
    divisors = pl.lit(pl.Series([float(k) for k in cutoffs], dtype=pl.Float64))
    return batched.found_within(hits, cutoffs).cast(pl.Float64) / divisors


def _cutoffs_recall(columns: Mapping[str, str], cutoffs: list[int | None], *, rel: int) -> pl.Expr:
    hits, num_rel = batched.relevant_ranks(columns, rel)
    return batched.ratio_to(batched.found_within(hits, cutoffs), num_rel)


def _multiples_rprec_mult(columns: Mapping[str, str], multiples: list[float], *, rel: int) -> pl.Expr:
    hits, num_rel = batched.relevant_ranks(columns, rel)
    mults = pl.lit(pl.Series([float(m) for m in multiples], dtype=pl.Float64))
    depth = (mults * num_rel.cast(pl.Float64) + 0.9).floor()  # each as _build_rprec_mult computes it
    # ranks are below 2**32: a larger depth counts every hit, whatever its size
    found = hits.cast(pl.Int64).search_sorted(depth.clip(upper_bound=2.0**40).cast(pl.Int64), side="right")
    return batched.ratio(found, depth)


def _cutoffs_relative_p(columns: Mapping[str, str], cutoffs: list[int], *, rel: int) -> pl.Expr:
    hits, num_rel = batched.relevant_ranks(columns, rel)
    most = pl.min_horizontal(pl.lit(batched.cutoff_series(cutoffs)), num_rel.cast(pl.Int64))
    return batched.ratio(batched.found_within(hits, cutoffs), most)


def _cutoffs_success(columns: Mapping[str, str], cutoffs: list[int], *, rel: int) -> pl.Expr:
    hits, _ = batched.relevant_ranks(columns, rel)
    return (batched.found_within(hits, cutoffs) > 0).cast(pl.Float64)


def _format_multiple(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _micro_precision(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & _within(rank, k)).sum(), pl.lit(k, pl.Int64)


def _micro_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return (is_rel & _within(rank, k)).sum(), is_rel.sum()


def _micro_rprec(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return (is_rel & (rank <= is_rel.sum()).fill_null(False)).sum(), is_rel.sum()


def _micro_relative_p(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return (is_rel & _within(rank, k)).sum(), pl.min_horizontal(is_rel.sum(), pl.lit(k, dtype=pl.Int64))


def _micro_success(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    return _build_success(columns, k, rel=rel), pl.lit(1, pl.Int64)


def _check_mult(value: float) -> str | None:
    if not (value >= 0 and value < 2**52):
        return "must be a number from 0 up (a multiple of R, the number of relevant documents)"
    return None


P = _spec(
    "P", "precision at k: relevant documents in the top k, divided by k", _build_precision,
    params=(_REL,), cutoff="required", micro=_micro_precision,
    lowest_read=_reads_relevant, build_cutoffs=_cutoffs_precision,
    doc=Doc(
        "fe.ranking.precision",
        "relevant in the top k, divided by k",
        names=("P@k",),
        trec="`P.k`",
    ),
)


R = _spec(
    "R", "recall at k: relevant documents in the top k over all relevant documents",
    _build_recall, params=(_REL,), cutoff="optional", trec_name="recall", micro=_micro_recall,
    lowest_read=_reads_relevant, build_cutoffs=_cutoffs_recall,
    doc=Doc(
        "fe.ranking.recall",
        "relevant in the top k, divided by all relevant",
        names=("R@k", "R"),
        trec="`recall.k`",
    ),
)


RELATIVE_P = _spec(
    "relative_P", "relevant documents in the top k over min(k, R)", _build_relative_p,
    params=(_REL,), cutoff="required", aliases=("RelP",), micro=_micro_relative_p,
    lowest_read=_reads_relevant, build_cutoffs=_cutoffs_relative_p,
    doc=Doc(
        "fe.ranking.relative_precision",
        "relevant in the top k over min(k, R)",
        names=("relative_P@k",),
        trec="`relative_P.k`",
    ),
)
RPREC_MULT = _spec(
    "Rprec_mult", "precision at rank floor(mult * R + 0.9), R the number of relevant documents",
    _build_rprec_mult,
    params=(Param("mult", float, 1.0, doc="the multiple of R", check=_check_mult), _REL),
    lowest_read=_reads_relevant, build_cutoffs=_multiples_rprec_mult, batch_param="mult",
    # always show the multiple: a bare Rprec_mult stands for trec_eval's ten
    format_name=lambda params, _: f"Rprec_mult(mult={_format_multiple(params.get('mult', 1.0))}"
    + (f",rel={params['rel']})" if "rel" in params else ")"),
    doc=Doc(
        "fe.ranking.rprec_mult",
        "precision at rank floor(m R + 0.9)",
        names=("Rprec_mult(mult=m)",),
        trec="`Rprec_mult.m` (printed `Rprec_mult_0.20`); bare: the ten default multiples",
    ),
)
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)  # trec_eval's default list
register_shorthand(
    "ranking", r"Rprec_mult(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?",
    lambda m: [("Rprec_mult", {"mult": float(x)})
               for x in (m.group(1).split(",") if m.group(1) else RPREC_MULTIPLES)],
)


RPREC = _spec(
    "Rprec", "precision at rank R, R being the number of relevant documents", _build_rprec,
    params=(_REL,), aliases=("R-prec", "R_prec"), micro=_micro_rprec,
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.r_precision",
        "precision at rank R = number of relevant",
        trec="`Rprec`",
    ),
)


SUCCESS = _spec(
    "Success", "1 if a relevant document is in the top k, else 0", _build_success,
    params=(_REL,), cutoff="required", trec_name="success", aliases=("HitRate",), micro=_micro_success,
    lowest_read=_reads_relevant, build_cutoffs=_cutoffs_success,
    doc=Doc(
        "fe.ranking.success",
        "1 if a relevant document is in the top k",
        names=("Success@k",),
        trec="`success.k`",
    ),
)


SE = _spec(
    "SE", "system efficiency: 1 - d / sqrt(2), d the distance of the closest (recall, precision) point "
    "to (1, 1)",
    _build_efficiency, params=(_REL,), cutoff="optional", aliases=("system_efficiency",),
    lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.system_efficiency",
        "system efficiency 1 - d / sqrt(2), d the smallest distance of the (recall, precision) points of "
        "ranks 1..k to (1, 1); 0 when no relevant document is found",
        names=("SE", "SE@k"),
    ),
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


def rprec_mult(mult: float, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Precision at a multiple of ``R`` (trec_eval ``Rprec_mult.m``, printed ``Rprec_mult_0.20``).

    ``c = floor(mult * R + 0.9)``; the value is the relevant documents in ranks
    ``1..c`` over ``c`` (``c`` also when fewer were retrieved), 0 when ``c`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> judged.select(fe.ranking.rprec_mult(0.5)).item()  # c = floor(1.5 + 0.9) = 2
    0.5
    """
    return measure(RPREC_MULT, mult=mult, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def relative_precision(k: int, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Relative precision at ``k`` (trec_eval ``relative_P.k``).

    Relevant documents in ranks ``1..k`` over ``min(k, R)``; 0 when ``R`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 0, 1]})
    >>> judged.select(fe.ranking.relative_precision(5)).item()  # 1 / min(5, 2)
    0.5
    """
    return measure(RELATIVE_P, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def system_efficiency(
    k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """System efficiency ``SE = 1 - d / sqrt(2)``: ``d`` the smallest distance of a (recall,
    precision) point of the ranking (ranks ``1..k``) to (1, 1); 0 when no relevant document is found.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [1, 0, 1, 0]})
    >>> round(judged.select(fe.ranking.system_efficiency()).item(), 4)  # d = 1/3, at (1, 2/3)
    0.7643
    """
    return measure(SE, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)
