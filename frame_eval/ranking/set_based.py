"""Set measures: the retrieved list read as a set (trec_eval's ``set_P``, ``set_recall``,
``set_relative_P``, ``set_map``, ``set_F`` and ``utility``).

With ``ret`` documents retrieved (after ``depth``), ``R`` relevant documents
(retrieved or not) and ``rel_ret`` of them retrieved:

- ``SetP = rel_ret / ret`` (0 when nothing is retrieved);
- ``SetR = rel_ret / R`` (0 when ``R`` is 0);
- ``set_relative_P = rel_ret / min(ret, R)`` (0 when either is 0);
- ``SetAP`` (``set_map``) ``= SetP * SetR``, computed as ``rel_ret**2 / (ret * R)``;
- ``SetF(beta)`` ``= (beta + 1) P R / (beta P + R)``, 0 when ``rel_ret`` is 0. As in
  trec_eval, ``beta`` weighs recall linearly (``set_F.0.5`` is this formula
  with 0.5, not van Rijsbergen's ``beta**2``);
- ``utility(a, b, c, d) = a rel_ret + b (ret - rel_ret) + c (R - rel_ret) + d (N + rel_ret - ret - R)``,
  ``N`` being ``collection_size`` (trec_eval ``-N``, 0 unless given); averaged over
  queries in summaries, as trec_eval does.

Unjudged and negatively judged documents are not relevant. ``rel`` (trec_eval
``-l``) sets the relevance threshold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import polars as pl

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
)
from frame_eval.registry import Param, measure, register_shorthand


def _counts(columns: Mapping[str, str], rel: int) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(retrieved, relevant, relevant retrieved) as Int64 counts."""
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    ret = rank.max().fill_null(0).cast(pl.Int64)  # ranks run 1..n
    return ret, is_rel.sum().cast(pl.Int64), (is_rel & rank.is_not_null()).sum().cast(pl.Int64)


def _build_set_p(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    ret, _, rel_ret = _counts(columns, rel)
    return _safe_ratio(rel_ret, ret)


def _build_set_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    _, num_rel, rel_ret = _counts(columns, rel)
    return _safe_ratio(rel_ret, num_rel)


def _build_set_relative_p(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    return _safe_ratio(rel_ret, pl.min_horizontal(ret, num_rel))


def _build_set_map(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    found = rel_ret.cast(pl.Float64)
    return _safe_ratio(found * found, ret.cast(pl.Float64) * num_rel.cast(pl.Float64))


def _build_set_f(columns: Mapping[str, str], k: int | None, *, beta: float, rel: int) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    found = rel_ret.cast(pl.Float64)
    precision = found / ret.cast(pl.Float64)
    recall = found / num_rel.cast(pl.Float64)
    value = (pl.lit(beta) + 1.0) * precision * recall / (pl.lit(beta) * precision + recall)
    return pl.when(rel_ret > 0).then(value).otherwise(pl.lit(0.0, pl.Float64))


def _build_utility(
    columns: Mapping[str, str], k: int | None, *, a: float, b: float, c: float, d: float, rel: int,
    collection_size: int,
) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    # four products added left to right, as trec_eval writes the sum
    return (
        pl.lit(a) * rel_ret.cast(pl.Float64)
        + pl.lit(b) * (ret - rel_ret).cast(pl.Float64)
        + pl.lit(c) * (num_rel - rel_ret).cast(pl.Float64)
        + pl.lit(d) * (pl.lit(collection_size, pl.Int64) + rel_ret - ret - num_rel).cast(pl.Float64)
    )


def _micro_set_p(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    ret, _, rel_ret = _counts(columns, rel)
    return rel_ret, ret


def _micro_set_recall(columns: Mapping[str, str], k: int | None, *, rel: int) -> tuple[pl.Expr, pl.Expr]:
    _, num_rel, rel_ret = _counts(columns, rel)
    return rel_ret, num_rel


def _micro_set_relative_p(
    columns: Mapping[str, str], k: int | None, *, rel: int
) -> tuple[pl.Expr, pl.Expr]:
    ret, num_rel, rel_ret = _counts(columns, rel)
    return rel_ret, pl.min_horizontal(ret, num_rel)


def _check_finite(value: float) -> str | None:
    return None if math.isfinite(value) else "must be a finite number"


def _check_beta(value: float) -> str | None:
    return None if math.isfinite(value) and value >= 0 else "must be a finite number from 0 up"


def _check_collection_size(value: int) -> str | None:
    return None if value >= 0 else "must be 0 or more (the number of documents in the collection)"


COLLECTION_SIZE = Param(
    "collection_size", int, 0, doc="documents in the collection (trec_eval -N)", check=_check_collection_size
)

SET_P = _spec(
    "SetP", "retrieved documents that are relevant, the ranking read as a set", _build_set_p,
    params=(_REL,), trec_name="set_P", micro=_micro_set_p, lowest_read=_reads_relevant,
)
SET_R = _spec(
    "SetR", "relevant documents that are retrieved, the ranking read as a set", _build_set_recall,
    params=(_REL,), trec_name="set_recall", micro=_micro_set_recall, lowest_read=_reads_relevant,
)
SET_RELATIVE_P = _spec(
    "set_relative_P", "relevant retrieved over min(retrieved, relevant)", _build_set_relative_p,
    params=(_REL,), aliases=("SetRelP",), micro=_micro_set_relative_p, lowest_read=_reads_relevant,
)
SET_AP = _spec(
    "SetAP", "set precision times set recall", _build_set_map,
    params=(_REL,), trec_name="set_map", lowest_read=_reads_relevant,
)
SET_F = _spec(
    "SetF", "(beta + 1) P R / (beta P + R) of set precision P and set recall R", _build_set_f,
    params=(Param("beta", float, 1.0, doc="weight of recall", check=_check_beta), _REL),
    trec_name="set_F", lowest_read=_reads_relevant,
)
register_shorthand("ranking", r"set_F[._](\d*\.?\d+)", lambda m: ("SetF", {"beta": float(m.group(1))}))
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)"
UTILITY = _spec(
    "utility", "a rel_ret + b nonrel_ret + c rel_missed + d nonrel_missed", _build_utility,
    params=(
        Param("a", float, 1.0, doc="worth of a relevant document retrieved", check=_check_finite),
        Param("b", float, -1.0, doc="worth of a non-relevant document retrieved", check=_check_finite),
        Param("c", float, 0.0, doc="worth of a relevant document missed", check=_check_finite),
        Param("d", float, 0.0, doc="worth of a non-relevant document not retrieved", check=_check_finite),
        _REL,
        COLLECTION_SIZE,
    ),
    lowest_read=_reads_relevant,
)
register_shorthand(
    "ranking", rf"utility[._]({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER})",
    lambda m: ("utility", dict(zip("abcd", map(float, m.groups()), strict=True))),
)


def set_precision(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Set precision (trec_eval ``set_P``, ir_measures ``SetP``): ``rel_ret / ret``.

    0 when nothing is retrieved.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> judged.select(fe.ranking.set_precision()).item()
    0.5
    """
    return measure(SET_P, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def set_recall(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Set recall (trec_eval ``set_recall``, ir_measures ``SetR``): ``rel_ret / R``; 0 when ``R`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> round(judged.select(fe.ranking.set_recall()).item(), 4)
    0.6667
    """
    return measure(SET_R, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def set_relative_precision(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """trec_eval's ``set_relative_P``: ``rel_ret / min(ret, R)``; 0 when either is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> round(judged.select(fe.ranking.set_relative_precision()).item(), 4)  # 2 / min(4, 3)
    0.6667
    """
    return measure(SET_RELATIVE_P, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def set_ap(*, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Set average precision (trec_eval ``set_map``, ir_measures ``SetAP``): ``rel_ret**2 / (ret R)``.

    0 when nothing is retrieved or ``R`` is 0.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> round(judged.select(fe.ranking.set_ap()).item(), 4)  # 4 / (4 * 3)
    0.3333
    """
    return measure(SET_AP, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def set_f(beta: float = 1.0, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """Set F (trec_eval ``set_F.beta``, ir_measures ``SetF``): ``(beta + 1) P R / (beta P + R)``.

    ``P`` and ``R`` are set precision and set recall; 0 when no relevant
    document is retrieved. ``beta`` enters linearly, as in trec_eval.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> round(judged.select(fe.ranking.set_f()).item(), 4)  # 2 (1/2)(2/3) / (1/2 + 2/3)
    0.5714
    """
    return measure(SET_F, beta=beta, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def utility(
    a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0, *, rel: int = 1,
    collection_size: int = 0, rank: str = RANK, relevance: str = RELEVANCE,
) -> pl.Expr:
    """trec_eval's ``utility.a,b,c,d``: a weighted count of the retrieval's contingency table.

    ``a rel_ret + b (ret - rel_ret) + c (R - rel_ret) + d (N + rel_ret - ret - R)``
    with ``N = collection_size`` (trec_eval ``-N``).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> judged.select(fe.ranking.utility()).item()  # 2 relevant, 2 not
    0.0
    """
    spec = measure(UTILITY, a=a, b=b, c=c, d=d, rel=rel, collection_size=collection_size)
    return spec.expr(rank=rank, relevance=relevance, guard=GUARD)
