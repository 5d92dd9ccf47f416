"""What every ranking measure shares: the judged frame's columns, relevance, cutoffs, registration.

Conventions (trec_eval's ``form_res_rels``): a document is relevant when its
judgement is ``>= rel`` (``rel`` defaults to 1, trec_eval's ``-l``);
unjudged (null), judged non-relevant and negatively judged documents are
not relevant. A cutoff ``k`` keeps ranks ``1..k``; a cutoff beyond the
largest rank keeps every rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import polars as pl
import polars.selectors as cs

from frame_eval._float import ordered_sum
from frame_eval.registry import MeasureSpec, Param, register

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
# a ``columns`` key: each group's rows come in rank order, unranked rows last (evaluate sorts
# the frame once), so a builder may add terms as the rows come instead of sorting per group
ORDERED = "ordered"


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


def _in_rank_order(columns: Mapping[str, str]) -> bool:
    return bool(columns.get(ORDERED))


def _in_ranks(values: pl.Expr, ranks: pl.Expr, columns: Mapping[str, str]) -> pl.Expr:
    """``values`` (of rows with distinct ranks) in rank order: as they come on rows already in rank
    order, else sorted by ``ranks``."""
    return values if _in_rank_order(columns) else values.sort_by(ranks)


def _rank_ordered_sum(terms: pl.Expr, keep: pl.Expr, rank: pl.Expr, columns: Mapping[str, str]) -> pl.Expr:
    """The ``terms`` where ``keep`` holds, added one by one in rank order (0.0 when none).

    On rows already in rank order the other rows add ``0.0`` instead of being filtered out:
    the same bits (the kept terms are not ``-0.0``), without a sort per group.
    """
    if _in_rank_order(columns):
        return ordered_sum(pl.when(keep).then(terms).otherwise(pl.lit(0.0, pl.Float64)))
    return ordered_sum(terms.filter(keep), rank.filter(keep))


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


def _ratio_or_zero(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator as Float64 for a ``numerator`` that is 0 whenever the ``denominator``
    is (both at least 0): 0 where both are 0, otherwise :func:`_safe_ratio`'s value and bits.

    Each side is evaluated once (polars shares no subexpression inside an aggregation, and
    :func:`_safe_ratio` evaluates its denominator twice: a sort per query for nDCG's ideal DCG):
    the denominator is raised to the smallest positive double, which changes no positive one.
    """
    return numerator.cast(pl.Float64) / pl.max_horizontal(denominator, pl.lit(_TINY, pl.Float64))


_TINY = math.ulp(0.0)  # the smallest positive double (5e-324)


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
