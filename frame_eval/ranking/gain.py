"""Graded gain measures: nDCG (trec_eval's ``ndcg``, ``ndcg_cut``), CG and DCG.

The gain of a document is its judgement (``gain=linear``, trec_eval's) or
``2**g - 1``, or what a gain table says for its judgement (``gains=1:3;2:9``,
trec_eval's ``ndcg.1=3,2=9``; judgements the table leaves out keep their
value); unjudged and negatively judged documents give none. The
discount of rank ``r`` is ``log2(r + 1)`` (the C library's bits). The
ideal ranking orders every judged document of the query by gain, whether
retrieved or not; a cutoff applies to both rankings. 0 when no judged
document has gain. ``ideal="retrieved"`` takes the ideal ranking from the
retrieved documents alone, re-sorted (scikit-learn's ``ndcg_score``);
``discount="jk"`` divides by Järvelin and Kekäläinen's ``max(1, log_base(rank))``
instead, where ``base`` (2 by default) sets how many top ranks go undiscounted. ``rel`` plays
no part, as in trec_eval. (trec_eval sorts
the ideal gains with a comparison that truncates differences below 1, so two
table gains less than 1 apart may be taken in either order there; here the
ideal ranking is always sorted by gain.)

- ``CG@k`` (cumulated gain, Järvelin and Kekäläinen): the gains in ranks ``1..k``
  added up; ``DCG@k``: each over ``log2(rank + 1)``, trec_eval's discount, not
  normalised. Both take ``gain=linear|exp`` and a gain table as nDCG does.
- ``nCG@k``: ``CG@k / (k * gain(h))``, the cumulated gain over the most ``k`` ranks can
  hold when every document has the highest grade ``h``. ``max_grade=h`` sets ``h``, the top
  of the grading scale (3 for a 0-3 scale, the same for every query, so values compare
  across queries); by default (``max_grade=0``) ``h`` is the query's own highest
  judgement, the only scale a query's judgements show. As ``P@k``, the divisor is ``k``
  also when fewer documents were retrieved. 0 when ``h`` is 0 or less (no gain possible).
  (Järvelin and Kekäläinen also normalise CG by the ideal ranking's CG; that is
  ``nDCG`` with a discount of 1, not this measure.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import polars as pl

from frame_eval._float import divide, log2, ordered_sum
from frame_eval.ranking import batched
from frame_eval.ranking._common import (
    _BASE,
    _GAIN,
    _RANKS,
    GUARD,
    RANK,
    RELEVANCE,
    _columns,
    _in_rank_order,
    _in_ranks,
    _rank_ordered_sum,
    _ratio_or_zero,
    _reads_gains,
    _safe_ratio,
    _spec,
    _within,
)
from frame_eval.registry import Doc, Param, measure, register_shorthand


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
    two = pl.lit(2.0, pl.Float64)  # typed: polars 2.1 panics on an untyped literal here in an empty group
    return pl.when(g > 0).then(two.pow(g - top) - two.pow(-top)).otherwise(0.0)


def _positive_gains(judgements: pl.Expr, gain: str, highest: pl.Expr) -> pl.Expr:
    """:func:`_gains` of judgements known to be above 0 (an ideal ranking's), the same bits with
    fewer steps: inside a query's aggregation each step after a sort costs per query. Their
    positions 1, 2, ... are ``judgements.cum_count()`` (none is null)."""
    g = judgements.cast(pl.Float64)
    if gain == "linear":
        return g
    top = highest.cast(pl.Float64)
    two = pl.lit(2.0, pl.Float64)
    return two.pow(g - top) - two.pow(-top)


def _discount(positions: pl.Expr, base: float, kind: str = "trec") -> pl.Expr:
    """log_base(position + 1), with the C library's log2 bits (trec_eval's discount) for base 2;
    ``kind="jk"``: Järvelin and Kekäläinen's ``max(1, log_base(position))``."""
    if kind == "jk":
        exponent = log2(positions.clip(lower_bound=1))
        scaled = exponent if base == 2.0 else divide(exponent, math.log2(base))
        return pl.max_horizontal(scaled, pl.lit(1.0, pl.Float64))
    discount = log2(positions + 1)
    return discount if base == 2.0 else divide(discount, math.log2(base))


_DISCOUNT = Param(
    "discount", str, "trec", ("trec", "jk"),
    "rank discount: log_base(rank + 1) (trec_eval) or max(1, log_base(rank)) (Järvelin and Kekäläinen)",
)


def parse_gain_table(text: str) -> dict[int, float]:
    """``"1:3;2:9;4:4.5"`` (or trec_eval's ``"1=3,2=9,4=4.5"``) -> ``{1: 3.0, 2: 9.0, 4: 4.5}``.

    >>> parse_gain_table("1=3,2=9,4=4.5")
    {1: 3.0, 2: 9.0, 4: 4.5}
    """
    table: dict[int, float] = {}
    for pair in text.replace(",", ";").split(";"):
        if not pair.strip():
            continue
        level, _, value = pair.replace(":", "=").partition("=")
        table[int(level)] = float(value)
    return table


def _check_gains(value: str) -> str | None:
    try:
        table = parse_gain_table(value)
    except ValueError:
        return "is not a gain table; write judgement:gain pairs such as 1:3;2:9 (trec_eval: 1=3,2=9)"
    if any(level < 0 for level in table) or not all(math.isfinite(g) for g in table.values()):
        return "must map judgements of 0 or more to finite gains"
    return None


def _format_gains(table: Mapping[int, float]) -> str:
    return ";".join(f"{level}:{int(g) if g.is_integer() else g}" for level, g in sorted(table.items()))


_GAINS = Param("gains", str, "", doc="gain table judgement:gain;... (trec_eval ndcg.1=3,2=9)",
               check=_check_gains)


def _table_gains(relevance: pl.Expr, table: Mapping[int, float]) -> pl.Expr:
    """Gains from a table: the table's value, else the judgement; 0 for null and negative judgements."""
    levels = list(table)
    mapped = relevance.replace_strict(
        levels, [table[level] for level in levels], default=relevance.cast(pl.Float64),
        return_dtype=pl.Float64,
    )
    return pl.when(relevance >= 0).then(mapped).otherwise(pl.lit(0.0, pl.Float64))


def _ndcg_ratio(dcg: pl.Expr, idcg: pl.Expr, base: float) -> pl.Expr:
    """DCG over ideal DCG, 0 when the ideal is not positive. With discounts above 0 (base above 1)
    a positive gain retrieved within k is in the ideal too, so the DCG is 0 whenever the ideal
    is: the ideal DCG is evaluated once (:func:`_ratio_or_zero`)."""
    return _ratio_or_zero(dcg, idcg) if base > 1 else _safe_ratio(dcg, idcg)


def _build_ndcg(
    columns: Mapping[str, str], k: int | None, *, gain: str, base: float, gains: str = "",
    ideal: str = "judged", discount: str = "trec",
) -> pl.Expr:
    rank, relevance = _columns(columns)
    if gains:
        if ideal != "judged" or discount != "trec":
            raise ValueError("nDCG: a gain table (gains=) works with ideal='judged' and discount='trec' only")
        return _build_ndcg_table(rank, relevance, k, gain, base, gains)
    highest = relevance.max().fill_null(0)
    # DCG: gains of the retrieved documents over their discounts, added in rank order
    # (discounts are looked up before filtering: polars runs a lookup after a filter slowly).
    # Judgements above 0 are the ones with a gain (a gain that underflows to 0 adds 0.0), and
    # only their terms are read: gains of positive judgements, in fewer steps than _gains
    scoring = _within(rank, k) & (relevance > 0)
    terms = _positive_gains(relevance, gain, highest) / _discount(rank.fill_null(0), base, discount)
    dcg = _rank_ordered_sum(terms, scoring, rank, columns)
    if ideal == "retrieved":
        # the retrieved list re-sorted by judgement (scikit-learn's ndcg_score)
        highest = relevance.filter(rank.is_not_null()).max().fill_null(0)
        dcg = ordered_sum(
            (_gains(relevance, gain, highest) / _discount(rank.fill_null(0), base, discount)).filter(scoring),
            rank.filter(scoring),
        )
        best = relevance.filter(rank.is_not_null() & (relevance > 0)).sort(descending=True)
        if k is not None and k < _RANKS:
            best = best.head(k)
        positions = pl.int_range(1, best.len() + 1, dtype=pl.UInt32)
        idcg = ordered_sum(_gains(best, gain, highest) / _discount(positions, base, discount))
        return _ndcg_ratio(dcg, idcg, base)
    # ideal ranking: every judgement of the query, best first (zero gains add nothing)
    ideal = relevance.filter(relevance > 0).sort(descending=True)
    if k is not None and k < _RANKS:
        ideal = ideal.head(k)
    idcg = ordered_sum(_positive_gains(ideal, gain, highest) / _discount(ideal.cum_count(), base, discount))
    return _ndcg_ratio(dcg, idcg, base)


def _cutoffs_ndcg(
    columns: Mapping[str, str], cutoffs: list[int | None], *, gain: str, base: float, gains: str = "",
    ideal: str = "judged", discount: str = "trec",
) -> pl.Expr | None:
    if gains or ideal != "judged":
        return None
    rank, relevance = _columns(columns)
    highest = relevance.max().fill_null(0)
    scoring = rank.is_not_null() & (relevance > 0)  # as in _build_ndcg
    terms = _positive_gains(relevance, gain, highest) / _discount(rank.fill_null(0), base, discount)
    ranks = rank.filter(scoring)
    prefix = _in_ranks(terms.filter(scoring), ranks, columns).cum_sum()
    dcg = batched.prefix_at(prefix, batched.found_within(_in_ranks(ranks, ranks, columns), cutoffs))
    best = relevance.filter(relevance > 0).sort(descending=True)
    ideal_terms = _positive_gains(best, gain, highest) / _discount(best.cum_count(), base, discount)
    ideal_prefix = ideal_terms.cum_sum()
    depth = pl.min_horizontal(pl.lit(batched.cutoff_series(cutoffs)), best.len().cast(pl.Int64))
    return batched.ratio(dcg, batched.prefix_at(ideal_prefix, depth))


_PARTS_MAX_CUTOFF = 20  # one sum per rank: beyond this many, the per-query sorts cost less


def _parts_ndcg(
    columns: Mapping[str, str], k: int | None, *, gain: str, base: float, gains: str = "",
    ideal: str = "judged", discount: str = "trec",
) -> tuple[list[pl.Expr], Callable[[list[pl.Expr]], pl.Expr]] | None:
    """nDCG@k (trec_eval's form, k up to 20) as plain per-query aggregations, combined after them.

    The retrieved judgements above 0 within rank ``k`` come as two short lists, their judgements
    and their ranks (on rows in rank order, one filter each; otherwise one sum per rank ``1..k``
    holds that rank's judgement, or 0, as a query has one document per rank); the ideal ranking
    is the query's k best positive judgements, one list. Each term is then ``gain / log2(rank +
    1)`` with the discount's bits, the terms added in rank order from the first (a missing term
    adds ``0.0``, which changes no sum), as :func:`_build_ndcg` adds them: the same bits, without
    a running sum or a discount lookup per query.
    """
    if gains or ideal != "judged" or discount != "trec" or base != 2.0 or k is None or k > _PARTS_MAX_CUTOFF:
        return None
    rank, relevance = _columns(columns)
    positive = relevance.fill_null(0) > 0
    best = relevance.filter(positive).sort(descending=True).head(k)
    highest = relevance.max().fill_null(0)
    ordered = _in_rank_order(columns)
    if ordered:  # the scoring rows as they come, in rank order
        scoring = positive & (rank <= k).fill_null(False)
        at_rank = [relevance.filter(scoring), rank.filter(scoring)]
    else:
        at_rank = [pl.when(positive & (rank == r)).then(relevance).otherwise(0).sum()
                   for r in range(1, k + 1)]

    def retrieved(parts: list[pl.Expr]) -> list[tuple[pl.Expr, pl.Expr | float]]:
        """(judgement, discount) of each term in rank order; 0 judgements add ``0.0``."""
        if not ordered:
            return [(judgement, math.log2(r + 1)) for r, judgement in enumerate(parts, start=1)]
        judgements, ranks = parts
        return [
            (judgements.list.get(j, null_on_oob=True).fill_null(0),
             log2(ranks.list.get(j, null_on_oob=True).fill_null(1) + 1))
            for j in range(k)
        ]

    def combine(parts: list[pl.Expr]) -> pl.Expr:
        *found, top_k, top = parts
        dcg = idcg = pl.lit(0.0, pl.Float64)
        for judgement, scale in retrieved(found):
            dcg = dcg + divide(_gains(judgement, gain, top), scale)
        for r in range(1, k + 1):
            ideal_judgement = top_k.list.get(r - 1, null_on_oob=True).fill_null(0)
            # the C library's log2, as the discount table holds it
            idcg = idcg + divide(_gains(ideal_judgement, gain, top), math.log2(r + 1))
        return _ndcg_ratio(dcg, idcg, base)

    return [*at_rank, best, highest], combine


def _build_ndcg_table(
    rank: pl.Expr, relevance: pl.Expr, k: int | None, gain: str, base: float, gains: str
) -> pl.Expr:
    """nDCG with a gain table: table gains may be 0 or negative for the run, and order the ideal."""
    if gain != "linear":
        raise ValueError("nDCG: a gain table (gains=) replaces gain=; leave gain at 'linear'")
    g = _table_gains(relevance, parse_gain_table(gains))
    scoring = _within(rank, k) & (g != 0)
    terms = g / _discount(rank.fill_null(0), base)
    dcg = ordered_sum(terms.filter(scoring), rank.filter(scoring))
    ideal = g.filter(relevance.is_not_null() & (g > 0)).sort(descending=True)
    if k is not None and k < _RANKS:
        ideal = ideal.head(k)
    positions = pl.int_range(1, ideal.len() + 1, dtype=pl.UInt32)
    idcg = ordered_sum(ideal / _discount(positions, base))
    return _safe_ratio(dcg, idcg)


def _retrieved_gains(
    columns: Mapping[str, str], k: int | None, gain: str, gains: str
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(gain of every row, rows retrieved within k with a gain, rank) for CG and DCG."""
    rank, relevance = _columns(columns)
    if gains:
        if gain != "linear":
            raise ValueError("a gain table (gains=) replaces gain=; leave gain at 'linear'")
        g = _table_gains(relevance, parse_gain_table(gains))
    else:
        g = _gains(relevance, gain, relevance.max().fill_null(0))
    return g, _within(rank, k) & (g != 0), rank


def _build_cg(columns: Mapping[str, str], k: int | None, *, gain: str, gains: str) -> pl.Expr:
    total = _scaled_cg(columns, k, gain, gains)
    if gain == "exp" and not gains:  # _gains scaled exponential gains by 2**-top: undo it exactly
        top = _columns(columns)[1].max().fill_null(0).cast(pl.Float64)
        total = total * pl.lit(2.0, pl.Float64).pow(top)
    return total


def _scaled_cg(columns: Mapping[str, str], k: int | None, gain: str, gains: str) -> pl.Expr:
    """CG@k; with ``gain="exp"`` (no table) scaled by 2**-h, h the query's highest judgement."""
    g, scoring, rank = _retrieved_gains(columns, k, gain, gains)
    return ordered_sum(g.filter(scoring), rank.filter(scoring))


def _build_dcg(
    columns: Mapping[str, str], k: int | None, *, gain: str, gains: str, base: float = 2.0,
    discount: str = "trec",
) -> pl.Expr:
    g, scoring, rank = _retrieved_gains(columns, k, gain, gains)
    terms = g / _discount(rank.fill_null(0), base, discount)
    total = _rank_ordered_sum(terms, scoring, rank, columns)
    if gain == "exp" and not gains:
        top = _columns(columns)[1].max().fill_null(0).cast(pl.Float64)
        total = total * pl.lit(2.0, pl.Float64).pow(top)
    return total


def _build_ncg(columns: Mapping[str, str], k: int | None, *, gain: str, max_grade: int) -> pl.Expr:
    assert k is not None
    highest = _columns(columns)[1].max().fill_null(0) if max_grade == 0 else pl.lit(max_grade, pl.Int64)
    top = highest.cast(pl.Float64)
    if gain == "linear":
        most, cg = top * float(min(k, _RANKS)), _build_cg(columns, k, gain=gain, gains="")
    else:
        # CG over k (2**top - 1), both sides scaled by 2**-top (exact: the same bits, and no overflow
        # to inf / inf for judgements of 1024 or more); CG's gains come scaled by 2**-h, h the query's
        # highest judgement
        two = pl.lit(2.0, pl.Float64)
        query_top = _columns(columns)[1].max().fill_null(0).cast(pl.Float64)
        most = (1.0 - two.pow(-top)) * float(min(k, _RANKS))
        cg = _scaled_cg(columns, k, gain, "") * two.pow(query_top - top)
    return pl.when(highest > 0).then(divide(cg, most)).otherwise(pl.lit(0.0, pl.Float64))


def _check_max_grade(value: int) -> str | None:
    if value < 0:
        return "must be 0 (the query's highest judgement) or the top grade of the scale, above 0"
    return None


def _reads_table_gains(params: Mapping[str, object]) -> float:
    """With a gain table, a judgement of 0 may have gain; without one, only judgements from 1 do."""
    return 0 if params.get("gains") else _reads_gains(params)


_IDEAL = Param(
    "ideal", str, "judged", ("judged", "retrieved"),
    "the ideal ranking: every judged document (trec_eval) or the retrieved ones re-sorted (scikit-learn)",
)

NDCG = _spec(
    "nDCG", "normalised discounted cumulative gain", _build_ndcg,
    params=(_GAIN, _BASE, _GAINS, _IDEAL, _DISCOUNT),
    cutoff="optional", trec_name="ndcg", trec_cut_name="ndcg_cut",
    lowest_read=_reads_table_gains, build_cutoffs=_cutoffs_ndcg, build_parts=_parts_ndcg,
    doc=Doc(
        "fe.ranking.ndcg",
        "DCG / ideal DCG; `gain=linear` (judgement) or `exp` (2^g - 1), `gains=1:3;2:9` a gain table "
        "(judgements left out keep their value), `base` of the log discount, `ideal=judged` (trec_eval) "
        "or `retrieved` (the retrieved list re-sorted, scikit-learn's `ndcg_score`), `discount=trec` "
        "(log_base(r + 1)) or `jk` (Järvelin-Kekäläinen's max(1, log_base r))",
        names=("nDCG", "nDCG@k"),
        trec="`ndcg`, `ndcg_cut.k`, `ndcg.1=3,2=9` (a gain table)",
    ),
)
register_shorthand(
    "ranking", r"ndcg[._](\d+=[-+]?[\d.]+(?:,\d+=[-+]?[\d.]+)*)",
    lambda m: ("nDCG", {"gains": _format_gains(parse_gain_table(m.group(1)))}),
)
CG = _spec(
    "CG", "cumulated gain: the gains of the documents in the top k, added up", _build_cg,
    params=(_GAIN, _GAINS), cutoff="optional", lowest_read=_reads_table_gains,
    doc=Doc(
        "fe.ranking.cg, fe.ranking.dcg",
        "cumulated gain of the top k, raw or discounted; `gain=`, `gains=` (and for DCG `base=`, "
        "`discount=`) as nDCG",
        names=("CG@k", "DCG@k"),
        covers=("DCG",),
    ),
)
NCG = _spec(
    "nCG", "normalised cumulated gain: CG@k over k times the gain of the highest grade", _build_ncg,
    params=(_GAIN, Param("max_grade", int, 0, doc="the highest grade (0: the query's highest judgement)",
                         check=_check_max_grade)),
    cutoff="required", lowest_read=_reads_gains,
    doc=Doc(
        "fe.ranking.ncg",
        "CG@k / (k gain(h)), h the highest grade: `max_grade=` the top of the scale (the same for every "
        "query), by default the query's highest judgement; 0 when h <= 0",
        names=("nCG@k",),
    ),
)
DCG = _spec(
    "DCG", "discounted cumulated gain: gain / log2(rank + 1) over the top k, not normalised", _build_dcg,
    params=(_GAIN, _GAINS, _BASE, _DISCOUNT), cutoff="optional", lowest_read=_reads_table_gains,
)


def ndcg(
    k: int | None = None,
    *,
    gain: str = "linear",
    base: float = 2.0,
    gains: Mapping[int, float] | None = None,
    ideal: str = "judged",
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
    gains
        A gain table ``{judgement: gain}`` (trec_eval ``ndcg.1=3,2=9``); judgements it
        leaves out keep their value as gain.
    ideal
        ``"judged"`` (trec_eval: every judged document) or ``"retrieved"`` (the
        retrieved documents re-sorted, as scikit-learn's ``ndcg_score``).
    rank, relevance
        Column names in the judged frame.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2], "relevance": [1, 2]})
    >>> round(judged.select(fe.ranking.ndcg()).item(), 4)
    0.8597
    """
    table = _format_gains(gains) if gains else ""
    m = measure(NDCG, cutoff=k, gain=gain, base=base, gains=table, ideal=ideal)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)


def cg(
    k: int | None = None, *, gain: str = "linear", rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Cumulated gain at ``k``: the gains of ranks ``1..k`` added up (unjudged and negative: 0).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    >>> judged.select(fe.ranking.cg(5)).item()
    11.0
    """
    return measure(CG, cutoff=k, gain=gain).expr(rank=rank, relevance=relevance, guard=GUARD)


def ncg(
    k: int, *, max_grade: int = 0, gain: str = "linear", rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Normalised cumulated gain at ``k``: ``CG@k / (k * gain(h))``, ``h`` the highest grade.

    ``h`` is ``max_grade`` (the top of the grading scale), or by default (0) the query's
    highest judgement; 0 when ``h`` is 0 or less. See the module docstring.

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    >>> judged.select(fe.ranking.ncg(5), fe.ranking.ncg(5, max_grade=4)).row(0)  # 11 / 15, 11 / 20
    (0.7333333333333333, 0.55)
    """
    m = measure(NCG, cutoff=k, gain=gain, max_grade=max_grade)
    return m.expr(rank=rank, relevance=relevance, guard=GUARD)


def dcg(
    k: int | None = None, *, gain: str = "linear", rank: str = RANK, relevance: str = RELEVANCE
) -> pl.Expr:
    """Discounted cumulated gain at ``k``: ``sum over ranks r <= k of gain / log2(r + 1)``.

    Not normalised (see :func:`ndcg`).

    Examples
    --------
    >>> import polars as pl, frame_eval as fe
    >>> judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    >>> round(judged.select(fe.ranking.dcg(5)).item(), 3)
    6.597
    """
    return measure(DCG, cutoff=k, gain=gain).expr(rank=rank, relevance=relevance, guard=GUARD)
