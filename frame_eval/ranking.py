"""Ranking measures as polars aggregation expressions, with trec_eval's semantics.

Every function here returns an ordinary :class:`polars.Expr` that reduces
one query's rows of a *judged* frame to one number, so it works in
``group_by(...).agg(...)``, in ``select`` (the whole frame is one query) and
in ``over``. A judged frame is what :func:`frame_eval.judge` (or
``run.ireval.judge(qrels)``) returns: one row per retrieved document with
its 1-based ``rank``, plus one row per judged document the run missed, with
a null ``rank``; ``relevance`` is the judgement, null when unjudged.

Shared conventions (trec_eval's):

- A document is relevant when ``relevance >= rel`` (``rel`` defaults to 1;
  trec_eval's ``-l``). Unjudged (null), judged non-relevant and negatively
  judged documents are non-relevant.
- Gains for nDCG are the judgement values; negative and null judgements
  give no gain. nDCG ignores ``rel``, as trec_eval does.
- A cutoff ``k`` keeps ranks ``1..k``. Where a measure divides by the number
  of relevant documents and there are none, the value is 0.
- The expressions do not depend on row order.

>>> import polars as pl
>>> import frame_eval as fe
>>> judged = pl.DataFrame({
...     "query_id": ["q1", "q1", "q1", "q1"],
...     "rank": [1, 2, 3, None],
...     "relevance": [0, 1, None, 2],
... })
>>> judged.group_by("query_id").agg(fe.ranking.ap(), fe.ranking.precision(k=2))
shape: (1, 3)
┌──────────┬──────┬─────┐
│ query_id ┆ AP   ┆ P@2 │
│ ---      ┆ ---  ┆ --- │
│ str      ┆ f64  ┆ f64 │
╞══════════╪══════╪═════╡
│ q1       ┆ 0.25 ┆ 0.5 │
└──────────┴──────┴─────┘
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import polars as pl
import polars.selectors as cs

from frame_eval._float import divide, log2, ordered_sum
from frame_eval.registry import MeasureSpec, Param, measure, register, register_shorthand

__all__ = [
    "ap",
    "iprec",
    "ndcg",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "r_precision",
    "recall",
    "rr",
    "success",
]

RANK = "rank"
RELEVANCE = "relevance"
INTERNAL_PREFIX = "__frame_eval"

def _check_rel(value: int) -> str | None:
    if value < 0:
        return (
            "is negative; frame_eval counts a judgement >= rel as relevant and never counts unjudged "
            "documents, while trec_eval -l below 0 would count unjudged documents relevant: use rel >= 0"
        )
    return None


def _check_base(value: float) -> str | None:
    if not (math.isfinite(value) and value > 0 and value != 1):
        return "must be a finite number above 0 other than 1 (the base of a logarithm)"
    return None


_REL = Param("rel", int, 1, doc="a judgement >= rel is relevant (trec_eval -l)", check=_check_rel)
_GAIN = Param("gain", str, "linear", ("linear", "exp"), "gain of a judgement g: g or 2**g - 1")
_BASE = Param("base", float, 2.0, doc="logarithm base of the rank discount", check=_check_base)
_RANKS = 2**32 - 1  # ranks are UInt32: a larger cutoff keeps every rank


GUARD = "guard"  # a ``columns`` key: check that the judged frame's columns exist (public functions)


def _judged_column(name: str, role: str) -> pl.Expr:
    """``pl.col(name)``, or a clear error when the frame has no such column (a raw run, say)."""

    def check(values: pl.Series, **_: object) -> pl.Series:
        if name not in values.struct.fields:
            raise ValueError(
                f"the frame has no {role} column {name!r}: ranking expressions read the judged frame; "
                f"call run.ireval.judge(qrels) first (or pass {role}= with your column name)"
            )
        return values.struct.field(name).cast(pl.Int64)

    probe = pl.int_range(pl.len()).alias(f"{INTERNAL_PREFIX}_probe")  # the struct is never empty
    present = cs.by_name(name, require_all=False)
    return pl.struct(present, probe).map_batches(check, return_dtype=pl.Int64, is_elementwise=True)


def _columns(columns: Mapping[str, str]) -> tuple[pl.Expr, pl.Expr]:
    rank, relevance = columns.get("rank", RANK), columns.get("relevance", RELEVANCE)
    if columns.get(GUARD):
        return _judged_column(rank, "rank"), _judged_column(relevance, "relevance")
    return pl.col(rank), pl.col(relevance)


def _relevant(relevance: pl.Expr, rel: int) -> pl.Expr:
    return (relevance >= rel).fill_null(False)


def _within(rank: pl.Expr, k: int | None) -> pl.Expr:
    return rank.is_not_null() if k is None or k >= _RANKS else (rank <= k).fill_null(False)


def _safe_ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator as Float64, 0 where the denominator is 0."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator)
        .otherwise(pl.lit(0.0, pl.Float64))
    )


# -- builders: (columns, cutoff, **params) -> unaliased expression ------------------------------


def _build_ap(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & _within(rank, k)).sort()
    # the i-th relevant document found, at rank r, adds precision i / r; added in rank order
    found = pl.int_range(1, hit_ranks.len() + 1, dtype=pl.UInt32)
    precision_sum = ordered_sum(found.cast(pl.Float64) / hit_ranks.cast(pl.Float64))
    return _safe_ratio(precision_sum, is_rel.sum())


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


def _build_precision(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert k is not None
    return divide((_relevant(relevance, rel) & _within(rank, k)).sum(), k)


def _build_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    return _safe_ratio((is_rel & _within(rank, k)).sum(), is_rel.sum())


def _build_rr(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    first = pl.when(_relevant(relevance, rel) & _within(rank, k)).then(rank).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)


def _build_rprec(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    num_rel = is_rel.sum()
    return _safe_ratio((is_rel & (rank <= num_rel).fill_null(False)).sum(), num_rel)


def _build_success(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    return (_relevant(relevance, rel) & _within(rank, k)).any().cast(pl.Float64)


def _build_iprec(columns: Mapping[str, str], recall_level: float | None, *, rel: int) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert recall_level is not None
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & rank.is_not_null())
    found = hit_ranks.rank("ordinal")
    # trec_eval 10.0 rounds the recall level to a count of relevant documents (half away from 0)
    needed = (is_rel.sum().cast(pl.Float64) * recall_level).round(0, mode="half_away_from_zero")
    return (found.cast(pl.Float64) / hit_ranks).filter(found >= needed).max().fill_null(0.0)


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


def _spec(name: str, summary: str, build: Any, **kwargs: Any) -> MeasureSpec:
    # every measure here reads judged documents and the depth of the ranking only
    kwargs.setdefault("reads_unjudged", False)
    return register(MeasureSpec(name=name, kind="ranking", summary=summary, build=build, **kwargs))


def _reads_relevant(params: Mapping[str, Any]) -> float:
    """Measures that read only relevant rows (judgement >= rel)."""
    return params["rel"]


def _reads_gains(params: Mapping[str, Any]) -> float:
    """nDCG reads only rows with a gain: judgements of 1 or more (both gain functions give 0 below)."""
    return 1


def _reads_no_judgement(params: Mapping[str, Any]) -> float:
    """Counts of retrieved documents and of queries read no judged row."""
    return math.inf


AP = _spec(
    "AP", "average precision: mean over relevant documents of the precision at their rank",
    _build_ap, params=(_REL,), cutoff="optional", aliases=("MAP",), trec_name="map",
    trec_cut_name="map_cut",
    lowest_read=_reads_relevant,
)
NDCG = _spec(
    "nDCG", "normalised discounted cumulative gain", _build_ndcg, params=(_GAIN, _BASE),
    cutoff="optional", trec_name="ndcg", trec_cut_name="ndcg_cut",
    lowest_read=_reads_gains,
)
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
RR = _spec(
    "RR", "reciprocal rank of the first relevant document", _build_rr, params=(_REL,),
    cutoff="optional", aliases=("MRR",), trec_name="recip_rank",
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
IPREC = _spec(
    "IPrec", "interpolated precision at a recall level: best precision at that recall or beyond",
    _build_iprec, params=(_REL,), cutoff="required", cutoff_type=float, trec_name="iprec_at_recall",
    lowest_read=_reads_relevant,
)
register_shorthand(
    "ranking", r"iprec_at_recall[._](\d*\.?\d+)", lambda m: ("IPrec", {"cutoff": float(m.group(1))})
)
NUM_RET = _spec(
    "NumRet", "number of documents retrieved", _build_num_ret, aggregate="sum",
    trec_name="num_ret",
    lowest_read=_reads_no_judgement,
)
NUM_REL = _spec(
    "NumRel", "number of relevant documents", _build_num_rel, params=(_REL,),
    aggregate="sum", trec_name="num_rel",
    lowest_read=_reads_relevant,
)
NUM_REL_RET = _spec(
    "NumRelRet", "number of relevant documents retrieved", _build_num_rel_ret, params=(_REL,),
    aggregate="sum", trec_name="num_rel_ret",
    lowest_read=_reads_relevant,
)
NUM_Q = _spec(
    "NumQ", "number of queries evaluated (1 per query; summed in summaries)", _build_num_q,
    aggregate="sum", trec_name="num_q",
    lowest_read=_reads_no_judgement,
)


# -- public expression functions ----------------------------------------------------------------


def ap(k: int | None = None, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
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
    rank, relevance
        Column names in the judged frame.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 0, 1, 1]})
    >>> round(judged.select(fe.ranking.ap()).item(), 4)  # (1/1 + 2/3) / 3
    0.5556
    """
    return measure(AP, cutoff=k, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


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


def iprec(
    recall_level: float, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall``, ir_measures ``IPrec@r``).

    With ``R`` relevant documents and ``c = round(recall_level * R)`` (halves
    away from zero, as trec_eval 10.0 does; 9.x truncated ``x + 0.9``): the
    highest precision ``m / rank_m`` over the ``m``-th relevant documents
    found with ``m >= c``. 0 when fewer than ``c`` relevant documents are
    found; at level 0, the best precision at any relevant document (0 if none).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]})
    >>> judged.select(fe.ranking.iprec(0.5), fe.ranking.iprec(1.0)).row(0)
    (0.5, 0.5)
    """
    return measure(IPREC, cutoff=recall_level, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


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
