"""Interpolated precision (trec_eval's ``iprec_at_recall`` and ``11pt_avg``).

The interpolated precision at recall level ``x`` is the best precision at
any rank where at least ``round(x * R)`` relevant documents have been
found (trec_eval 10.0 rounds halves away from zero; 9.x truncated
``x * R + 0.9``). 0 where that many are never found; 0 for every level
when ``R`` is 0.

``11pt_avg`` averages the interpolated precision over recall levels (by default
0, 0.1, ..., 1; ``11pt_avg(levels=0.2;0.5;0.8)`` gives trec_eval 8's 3-point
average): each level ``x`` needs ``round(x * R)`` relevant documents found, 0
where they never are; a level that needs none takes the best precision at any
relevant document. Levels are added from the highest down, as trec_eval adds
them, and the sum is divided by their number. ``rounding`` as for ``IPrec``
(``trec9``: trec_eval 9.x and pytrec_eval).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from frame_eval._float import divide, ordered_sum
from frame_eval.ranking._common import (
    _REL,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_ranks,
    _reads_relevant,
    _relevant,
    _spec,
)
from frame_eval.registry import Doc, Measure, Param, measure, register_shorthand


def _best_precision_from(found: pl.Expr, hit_ranks: pl.Expr, needed: pl.Expr) -> pl.Expr:
    """The best precision at the relevant documents found from the ``needed``-th on (0 if none)."""
    return (found.cast(pl.Float64) / hit_ranks).filter(found >= needed).max().fill_null(0.0)


DEFAULT_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def parse_levels(text: str) -> tuple[float, ...]:
    """``"0.2;0.5;0.8"`` (or ``","``-separated) -> ``(0.2, 0.5, 0.8)``, sorted; empty: the 11 levels.

    >>> parse_levels(".75,.25,.5")
    (0.25, 0.5, 0.75)
    """
    parts = [x for x in text.replace(",", ";").split(";") if x.strip()]
    return tuple(sorted(float(x) for x in parts)) if parts else DEFAULT_LEVELS


def _check_levels(value: str) -> str | None:
    try:
        levels = parse_levels(value)
    except ValueError:
        return "is not a list of recall levels; write them like 0.2;0.5;0.8"
    if not all(0 <= x <= 1 for x in levels):
        return "must hold recall levels from 0 to 1"
    return None


def _build_11pt_avg(
    columns: Mapping[str, str], k: int | None, *, levels: str, rel: int, rounding: str = "trec10"
) -> pl.Expr:
    chosen = parse_levels(levels)
    # trec_eval adds the highest level first; one precision envelope serves every level
    values = _cutoffs_iprec(columns, list(reversed(chosen)), rel=rel, rounding=rounding)
    # from 0.0 (as trec_eval's sum starts; 0 + x is x), which also types the sum of no query
    return divide(ordered_sum(pl.lit(0.0, pl.Float64).append(values)), len(chosen))


def _11pt_from_iprec(params: Mapping[str, Any]) -> tuple[list[Measure], Callable[[list[pl.Expr]], pl.Expr]]:
    """``11pt_avg`` from ``IPrec`` at its levels (highest first): added from 0.0 one by one and
    divided once, the arithmetic of :func:`_build_11pt_avg`."""
    chosen = parse_levels(params["levels"])
    parts = [measure(IPREC, cutoff=level, rel=params["rel"], rounding=params["rounding"])
             for level in reversed(chosen)]

    def combine(values: list[pl.Expr]) -> pl.Expr:
        total = pl.lit(0.0, pl.Float64)
        for value in values:
            total = total + value
        return divide(total, len(chosen))

    return parts, combine


def _needed(num_rel: pl.Expr, recall_level: float | pl.Expr, rounding: str) -> pl.Expr:
    """The count of relevant documents a recall level asks for, rounded as ``rounding`` says."""
    exact = num_rel.cast(pl.Float64) * recall_level
    if rounding == "trec9":  # trec_eval 9.x (pytrec_eval): truncate x R + 0.9
        return (exact + 0.9).floor()
    if rounding == "ceil":  # the textbook: the best precision at recall >= x
        return exact.ceil()
    # trec_eval 10.0 rounds the recall level to a count of relevant documents (half away from 0)
    return exact.round(0, mode="half_away_from_zero")


def _build_iprec(
    columns: Mapping[str, str], recall_level: float | None, *, rel: int, rounding: str = "trec10"
) -> pl.Expr:
    rank, relevance = _columns(columns)
    assert recall_level is not None
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & rank.is_not_null())
    found = hit_ranks.rank("ordinal")
    return _best_precision_from(found, hit_ranks, _needed(is_rel.sum(), recall_level, rounding))


def _cutoffs_iprec(
    columns: Mapping[str, str], levels: list[float], *, rel: int, rounding: str = "trec10"
) -> pl.Expr:
    """Every level from one envelope: the best precision from the i-th relevant document on."""
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hit_ranks = rank.filter(is_rel & rank.is_not_null())
    hit_ranks = _in_ranks(hit_ranks, hit_ranks, columns)
    found = pl.int_range(1, hit_ranks.len() + 1, dtype=pl.UInt32)
    envelope = (found.cast(pl.Float64) / hit_ranks).cum_max(reverse=True).append(pl.lit(0.0, pl.Float64))
    needed = _needed(is_rel.sum(), pl.lit(pl.Series(levels, dtype=pl.Float64)), rounding).cast(pl.Int64)
    # needed 0 reads the best of all; beyond the relevant documents found, the final 0
    position = pl.min_horizontal((needed - 1).clip(lower_bound=0), hit_ranks.len().cast(pl.Int64))
    return envelope.gather(position)


_ROUNDING = Param(
    "rounding", str, "trec10", ("trec10", "trec9", "ceil"),
    "recall level to a count of relevant documents: round (trec_eval 10.0), truncate x R + 0.9 "
    "(9.x, pytrec_eval) or round up (the textbook's recall >= x)",
)


IPREC = _spec(
    "IPrec", "interpolated precision at a recall level: best precision at that recall or beyond",
    _build_iprec, params=(_REL, _ROUNDING), cutoff="required", cutoff_type=float,
    trec_name="iprec_at_recall",
    lowest_read=_reads_relevant, build_cutoffs=_cutoffs_iprec,
    doc=Doc(
        "fe.ranking.iprec",
        "interpolated precision at recall level r; `rounding=trec10` (default: round r R), `trec9` "
        "(pytrec_eval: floor(r R + 0.9)) or `ceil` (the textbook's recall >= r)",
        names=("IPrec@r",),
        trec="`iprec_at_recall.r`",
    ),
)


register_shorthand(  # iprec_at_recall_0.10, trec_eval's -m iprec_at_recall..10,.20 and, bare, its 11 levels
    "ranking", r"iprec_at_recall(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?",
    lambda m: [("IPrec", {"cutoff": float(x)})
               for x in (m.group(1).split(",") if m.group(1) else DEFAULT_LEVELS)],
)


def iprec(
    recall_level: float, *, rel: int = 1, rounding: str = "trec10", rank: str = RANK,
    relevance: str = RELEVANCE,
) -> pl.Expr:
    """Interpolated precision at a recall level (trec_eval ``iprec_at_recall``, ir_measures ``IPrec@r``).

    With ``R`` relevant documents and ``c = round(recall_level * R)`` (halves
    away from zero, as trec_eval 10.0 does; 9.x truncated ``x + 0.9``): the
    highest precision ``m / rank_m`` over the ``m``-th relevant documents
    found with ``m >= c``. 0 when fewer than ``c`` relevant documents are
    found; at level 0, the best precision at any relevant document (0 if none).
    ``rounding="trec9"`` counts ``c`` as trec_eval 9.x and pytrec_eval do,
    ``floor(recall_level * R + 0.9)``; ``"ceil"`` as the textbook's "recall at
    least ``recall_level``", ``ceil(recall_level * R)``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]})
    >>> judged.select(fe.ranking.iprec(0.5), fe.ranking.iprec(1.0)).row(0)
    (0.5, 0.5)
    """
    m = measure(IPREC, cutoff=recall_level, rel=rel, rounding=rounding)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)


ELEVEN_POINT = _spec(
    "11pt_avg", "interpolated precision averaged over recall levels (the 11 points by default)",
    _build_11pt_avg,
    params=(Param("levels", str, "", doc="recall levels, e.g. 0.2;0.5;0.8 (default the 11)",
                  check=_check_levels), _REL, _ROUNDING),
    aliases=("11-pt_avg", "11pt"), lowest_read=_reads_relevant, from_others=_11pt_from_iprec,
    doc=Doc(
        "fe.ranking.eleven_point_average",
        "interpolated precision averaged over recall levels (default the 11); `rounding=` as IPrec",
        names=("11pt_avg(levels=0.2;0.5;0.8)",),
        trec="`11pt_avg`, `11pt_avg..2,.5,.8`",
    ),
)
register_shorthand(  # trec_eval's 11pt_avg..25,.5,.75 (printed 11pt_avg_.25,.5,.75) and our own name
    "ranking", r"11-?pt_avg(?:[._]((?:\d*\.?\d+)(?:,\d*\.?\d+)*)|\(([^()]*)\))?",
    lambda m: ("11pt_avg", _eleven_point_params(m.group(1), m.group(2))),
)


def _eleven_point_params(trec_levels: str | None, params: str | None) -> dict[str, str]:
    """Parameters of an ``11pt_avg`` name: trec_eval's level list, or ``(key=value,...)``."""
    if trec_levels is not None:
        return {"levels": _levels_text(trec_levels)}
    chosen: dict[str, str] = {}
    for pair in (params or "").split(","):
        if pair.strip():
            key, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(f"cannot read parameter {pair.strip()!r} of 11pt_avg; use key=value")
            chosen[key.strip()] = value.strip()
    if "levels" in chosen:
        chosen["levels"] = _levels_text(chosen["levels"])
    return chosen


def _levels_text(text: str) -> str:
    levels = parse_levels(text)
    return "" if levels == DEFAULT_LEVELS else ";".join(str(x) for x in levels)


def eleven_point_average(
    levels: tuple[float, ...] = DEFAULT_LEVELS, *, rel: int = 1, rounding: str = "trec10", rank: str = RANK,
    relevance: str = RELEVANCE,
) -> pl.Expr:
    """Interpolated precision averaged over recall ``levels`` (trec_eval ``11pt_avg``).

    See the module docstring; the default is the 11 levels 0, 0.1, ..., 1, and
    ``rounding`` is as for :func:`iprec`.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [0, 1, 0, 1]})
    >>> judged.select(fe.ranking.eleven_point_average((0.5, 1.0))).item()
    0.5
    """
    text = "" if tuple(levels) == DEFAULT_LEVELS else ";".join(str(float(x)) for x in sorted(levels))
    m = measure(ELEVEN_POINT, levels=text, rel=rel, rounding=rounding)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)
