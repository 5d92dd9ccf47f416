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

The textbook's set measures (not in trec_eval):

- ``E(beta)`` (van Rijsbergen's effectiveness) ``= 1 - (1 + beta**2) P R / (beta**2 P + R)``:
  ``beta = 1`` weighs P and R alike, ``beta = 0`` gives ``1 - P``; 1 when ``rel_ret`` is 0;
- ``fallout = (ret - rel_ret) / (N - R)``, the share of the collection's non-relevant
  documents that were retrieved, and ``generality = R / N``; both need
  ``collection_size`` ``N`` and are 0 while it is 0 (the default).

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
from frame_eval.registry import Doc, Param, measure, register_shorthand


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


def _build_e(columns: Mapping[str, str], k: int | None, *, beta: float, rel: int) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    found = rel_ret.cast(pl.Float64)
    precision = found / ret.cast(pl.Float64)
    recall = found / num_rel.cast(pl.Float64)
    weight = pl.lit(beta * beta, pl.Float64)
    f = (weight + 1.0) * precision * recall / (weight * precision + recall)
    return pl.when(rel_ret > 0).then(1.0 - f).otherwise(pl.lit(1.0, pl.Float64))


def _build_fallout(
    columns: Mapping[str, str], k: int | None, *, rel: int, collection_size: int
) -> pl.Expr:
    ret, num_rel, rel_ret = _counts(columns, rel)
    nonrel = pl.lit(collection_size, pl.Int64) - num_rel
    return pl.when(nonrel > 0).then((ret - rel_ret).cast(pl.Float64) / nonrel.cast(pl.Float64)).otherwise(
        pl.lit(0.0, pl.Float64)
    )


def _build_generality(
    columns: Mapping[str, str], k: int | None, *, rel: int, collection_size: int
) -> pl.Expr:
    _, num_rel, _ = _counts(columns, rel)
    return _safe_ratio(num_rel, pl.lit(collection_size, pl.Int64))


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
    doc=Doc(
        "fe.ranking.set_precision, fe.ranking.set_recall, fe.ranking.set_ap, "
        "fe.ranking.set_relative_precision",
        "the ranking read as a set: rel_ret / ret, rel_ret / R, their product, rel_ret / min(ret, R)",
        names=("SetP", "SetR", "SetAP", "set_relative_P"),
        trec="`set_P`, `set_recall`, `set_map`, `set_relative_P`",
        covers=("SetR", "SetAP", "set_relative_P"),
    ),
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
    doc=Doc(
        "fe.ranking.set_f",
        "(b + 1) P R / (b P + R) of set P and R (b linear, as trec_eval)",
        names=("SetF(beta=b)",),
        trec="`set_F.b`",
    ),
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
    doc=Doc(
        "fe.ranking.utility",
        "a rel_ret + b nonrel_ret + c rel_missed + d nonrel_missed (d needs `collection_size=`)",
        names=("utility(a=,b=,c=,d=)",),
        trec="`utility.a,b,c,d`",
    ),
)
E_MEASURE = _spec(
    "E", "van Rijsbergen's E: 1 - (1 + beta^2) P R / (beta^2 P + R) of set precision and recall", _build_e,
    params=(Param("beta", float, 1.0, doc="relative weight of recall", check=_check_beta), _REL),
    aliases=("E_measure",), lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.e_measure",
        "van Rijsbergen's 1 - (1 + b^2) P R / (b^2 P + R) of set P and R; 1 when nothing relevant is "
        "found",
        names=("E(beta=b)",),
    ),
)
FALLOUT = _spec(
    "fallout", "non-relevant documents retrieved over the collection's non-relevant documents",
    _build_fallout, params=(_REL, COLLECTION_SIZE), lowest_read=_reads_relevant,
    doc=Doc(
        "fe.ranking.fallout, fe.ranking.generality",
        "non-relevant retrieved / (N - R), and R / N, with `collection_size=` N",
        names=("fallout", "generality"),
        covers=("generality",),
    ),
)
GENERALITY = _spec(
    "generality", "relevant documents over the collection's documents", _build_generality,
    params=(_REL, COLLECTION_SIZE), lowest_read=_reads_relevant,
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


def e_measure(beta: float = 1.0, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE) -> pl.Expr:
    """van Rijsbergen's ``E = 1 - F_beta`` of set precision and recall; 1 when nothing relevant is found.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> round(judged.select(fe.ranking.e_measure()).item(), 4)  # 1 - F1 of P = 1/2, R = 2/3
    0.4286
    """
    return measure(E_MEASURE, beta=beta, rel=rel).expr(rank=rank, relevance=relevance, guard=GUARD)


def fallout(
    collection_size: int, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Fallout: non-relevant documents retrieved over the collection's non-relevant documents.

    ``(ret - rel_ret) / (collection_size - R)``; 0 when that is not positive.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> judged.select(fe.ranking.fallout(103)).item()  # 2 of 100
    0.02
    """
    m = measure(FALLOUT, rel=rel, collection_size=collection_size)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)


def generality(
    collection_size: int, *, rel: int = 1, rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Generality: the query's relevant documents over the collection's, ``R / collection_size``.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, None, 1, 1]})
    >>> judged.select(fe.ranking.generality(100)).item()
    0.03
    """
    m = measure(GENERALITY, rel=rel, collection_size=collection_size)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)
