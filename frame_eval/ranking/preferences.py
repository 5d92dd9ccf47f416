"""trec_eval's preference measures (``-R prefs`` and ``-R qrels_prefs``): every ``prefs_*``.

Preference judgements (:func:`frame_eval.scan_trec_prefs`) are lines ``query
group subgroup doc level``. Within a judgement subgroup a document with a
higher level is preferred to one with a lower level. A judgement group (a
user) with one subgroup prefers across its levels; one with several
subgroups takes the union of its subgroups' preferences and everything they
imply (a > b and b > c give a > c); contradictions are an error. ``-R
qrels_prefs`` reads ordinary qrels as preferences: the qrels' second field is
the group, one subgroup, the judgement the level.

The documents of a query: the retrieved documents that are judged anywhere
in the query's preferences, in rank order (trec_eval's ranking rules, after
``depth``), then the judged documents not retrieved, in byte order of their
ids. A preference a > b of a group is

- retrieved (both retrieved): fulfilled when a ranks above b;
- implied (one retrieved): fulfilled when a is the retrieved one;
- not occurring (neither retrieved): never fulfilled.

Per query, summed over the groups: ``prefs_num_prefs_poss`` counts every
preference, ``prefs_num_prefs_ful`` the fulfilled ones, ``prefs_num_prefs_ful_ret``
the fulfilled retrieved ones. ``prefs_simp`` is fulfilled / possible;
``_ret`` counts retrieved preferences only, ``_imp`` retrieved and implied.
``prefs_avgjg`` (``_ret``, ``_imp``) is each group's ratio averaged over the
groups (0 unless the sum is above 0). ``prefs_pair`` (``_ret``, ``_imp``)
averages over document pairs the share of groups whose preference between
them the ranking fulfils (pairs with neither document retrieved count 0, and
only in ``prefs_pair``). ``prefs_avgjg_Rnonrel`` (``_ret``) is ``prefs_avgjg``
with each group's non-relevant documents (level 0) brought to R, its
relevant ones (level above 0): R - N fulfilled preferences added per relevant
retrieved document when N < R, only the first R non-relevant documents kept
when N > R, recounted exactly as trec_eval 10.0 does (including its
comparisons of the kept non-relevant documents with themselves). A ratio
with nothing possible is 0. Summaries: means over queries, counts summed.

Preferences are materialised pair by pair (a query with n judged documents
at k levels has up to n^2 / 2 of them), as trec_eval's arrays are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from frame_eval._float import ordered_sum
from frame_eval.ranking._common import _spec
from frame_eval.registry import Doc, Measure

COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
RATIOS = ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
          "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
          "prefs_pair_imp", "prefs_avgjg_imp")
_SUMMARIES = {
    "prefs_num_prefs_poss": "preferences possible: every preference of every judgement group",
    "prefs_num_prefs_ful": "preferences fulfilled, retrieved or implied",
    "prefs_num_prefs_ful_ret": "preferences fulfilled with both documents retrieved",
    "prefs_simp": "preferences fulfilled over preferences possible",
    "prefs_pair": "per document pair, the share of groups' preferences fulfilled, averaged over pairs",
    "prefs_avgjg": "fulfilled over possible per judgement group, averaged over the groups",
    "prefs_avgjg_Rnonrel": "prefs_avgjg with each group's non-relevant documents brought to R",
    "prefs_simp_ret": "retrieved preferences fulfilled over retrieved preferences",
    "prefs_pair_ret": "prefs_pair over pairs of retrieved documents",
    "prefs_avgjg_ret": "prefs_avgjg over retrieved preferences",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over retrieved documents",
    "prefs_simp_imp": "retrieved and implied preferences fulfilled over possible",
    "prefs_pair_imp": "prefs_pair over pairs with a retrieved document",
    "prefs_avgjg_imp": "prefs_avgjg over retrieved and implied preferences",
}


def _needs_preferences(columns: Mapping[str, str], k: int | None, **_: Any) -> pl.Expr:
    raise ValueError("the prefs_* measures need preference judgements: use "
                     "frame_eval.ranking.preferences.evaluate_preferences, or frame-eval -R prefs")


# the README's row for all of them (on the first)
_DOC = Doc(
    "(`frame_eval.ranking.preferences.evaluate_preferences`)",
    "preference judgements (`-R prefs`: `query group subgroup doc level`; `-R qrels_prefs`: qrels read as "
    "preferences): preferences a ranking fulfils, over those possible, per group or per document pair; see "
    "the module for each",
    names=(*RATIOS, *COUNTS), trec="the same", covers=(*COUNTS[1:], *RATIOS),
)
SPECS = {
    name: _spec(name, _SUMMARIES[name], _needs_preferences, aggregate="sum" if name in COUNTS else "mean",
                trec_name=name, reads_unjudged=True, doc=_DOC if name == COUNTS[0] else None)
    for name in (*COUNTS, *RATIOS)
}

Q, G, S, D, L = "query_id", "judgement_group", "judgement_subgroup", "doc_id", "preference"


def _positions(run: pl.DataFrame, prefs: pl.DataFrame, depth: int | None) -> pl.DataFrame:
    """``[query_id, doc_id, pos, ret]`` of every judged document; ``njr`` retrieved per query."""
    # ties in score by doc_id ascending: trec_eval's preference code orders them so (its other
    # measures descending)
    ranked = run.sort([Q, "score", D], descending=[False, True, False]).with_columns(
        pl.int_range(1, pl.len() + 1).over(Q).alias("rank"))
    if depth is not None:
        ranked = ranked.filter(pl.col("rank") <= depth)
    judged = prefs.select(Q, D).unique()
    retrieved = ranked.join(judged, on=[Q, D], how="semi").sort(Q, "rank").with_columns(
        (pl.int_range(pl.len()).over(Q)).alias("pos"))
    njr = retrieved.group_by(Q).agg(pl.len().alias("njr"))
    missed = judged.join(retrieved, on=[Q, D], how="anti").sort(Q, D).join(njr, on=Q, how="left")
    missed = missed.with_columns((pl.col("njr").fill_null(0) + pl.int_range(pl.len()).over(Q)).alias("pos"))
    docs = pl.concat([retrieved.select(Q, D, "pos", pl.lit(True).alias("ret")),
                      missed.select(Q, D, "pos", pl.lit(False).alias("ret"))])
    return docs.with_columns(pl.col("pos").cast(pl.Int64))


def _pairs(prefs: pl.DataFrame) -> pl.DataFrame:
    """``[query_id, judgement_group, a, b]``: a preferred to b, implied preferences included."""
    left = prefs.select(Q, G, S, pl.col(D).alias("a"), pl.col(L).alias("la"))
    right = prefs.select(Q, G, S, pl.col(D).alias("b"), pl.col(L).alias("lb"))
    direct = left.join(right, on=[Q, G, S]).filter(pl.col("la") > pl.col("lb"))
    subgroups = prefs.group_by(Q, G).agg(pl.col(S).n_unique().alias("n_sub"))
    direct = direct.join(subgroups, on=[Q, G])
    single = direct.filter(pl.col("n_sub") == 1).select(Q, G, "a", "b")  # one subgroup: levels, as given
    pairs = direct.filter(pl.col("n_sub") > 1).select(Q, G, "a", "b").unique()
    while pairs.height:  # the transitive closure of the groups with several subgroups
        step = pairs.join(pairs.rename({"a": "b", "b": "c"}), on=[Q, G, "b"]).select(
            Q, G, "a", pl.col("c").alias("b"))
        grown = pl.concat([pairs, step]).unique()
        if grown.height == pairs.height:
            break
        pairs = grown
    conflict = pairs.join(pairs, left_on=[Q, G, "a", "b"], right_on=[Q, G, "b", "a"])
    if conflict.height:
        row = conflict.sort(Q, G, "a", "b").row(0, named=True)
        raise ValueError(f"preferences of query {row[Q]!r}, judgement group {row[G]!r} contradict each "
                         f"other: {row['a']!r} and {row['b']!r} are each preferred to the other")
    return pl.concat([single, pairs])


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den > 0).then(num.cast(pl.Float64) / den.cast(pl.Float64)).otherwise(0.0)


def _c_ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """C's double division: 0 / 0 is NaN (trec_eval then reports 0 through ``sum > 0``)."""
    return num.cast(pl.Float64) / den.cast(pl.Float64)


def _group_counts(pairs: pl.DataFrame, docs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(each preference with its documents' positions, the counts of each query's groups)."""
    a = docs.select(Q, pl.col(D).alias("a"), pl.col("pos").alias("pa"), pl.col("ret").alias("ra"))
    b = docs.select(Q, pl.col(D).alias("b"), pl.col("pos").alias("pb"), pl.col("ret").alias("rb"))
    placed = pairs.join(a, on=[Q, "a"]).join(b, on=[Q, "b"])
    both, one = pl.col("ra") & pl.col("rb"), pl.col("ra") ^ pl.col("rb")
    return placed, placed.group_by(Q, G).agg(
        (both & (pl.col("pa") < pl.col("pb"))).sum().alias("ful_ret"),
        both.sum().alias("poss_ret"),
        (pl.col("ra") & ~pl.col("rb")).sum().alias("ful_imp"),
        one.sum().alias("poss_imp"),
        (~pl.col("ra") & ~pl.col("rb")).sum().alias("notoccur"),
    )


def _statuses(prefs: pl.DataFrame, docs: pl.DataFrame) -> pl.DataFrame:
    """Per group and document: its level as trec_eval keeps it, position, retrieved."""
    ordered = prefs.join(docs, on=[Q, D]).sort([Q, G, S, L, "pos"],
                                               descending=[False, False, False, True, False])
    return ordered.group_by(Q, G, D, maintain_order=True).agg(pl.col(L).last(), pl.col("pos").first(),
                                                                pl.col("ret").first())


def _rnonrel(prefs: pl.DataFrame, docs: pl.DataFrame, counts: pl.DataFrame, placed: pl.DataFrame,
             retrieved_only: bool) -> pl.DataFrame:
    """``[query_id, judgement_group, term]``: each group's prefs_avgjg_Rnonrel(_ret) ratio."""
    status = _statuses(prefs, docs)
    subgroups = prefs.group_by(Q, G).agg(pl.col(S).n_unique().alias("n_sub"))
    status = status.join(subgroups, on=[Q, G])
    # one subgroup: every level not above 0 is non-relevant; several: level 0 exactly
    nonrel = pl.when(pl.col("n_sub") == 1).then(pl.col(L) <= 0).otherwise(pl.col(L) == 0)
    keep = (lambda e: e & pl.col("ret")) if retrieved_only else (lambda e: e)
    sizes = status.group_by(Q, G).agg(
        keep(pl.col(L) > 0).sum().alias("R"), keep(nonrel).sum().alias("N"),
        (pl.col(L) > 0).sum().alias("num_rel"), ((pl.col(L) > 0) & pl.col("ret")).sum().alias("num_rel_ret"))
    frame = counts.join(sizes, on=[Q, G], how="left").with_columns(
        pl.col("R", "N", "num_rel", "num_rel_ret").fill_null(0))
    extra = pl.col("R") - pl.col("N")
    if retrieved_only:
        ful = pl.col("ful_ret") + pl.col("num_rel_ret") * extra
        poss = pl.col("poss_ret") + pl.col("num_rel") * extra
    else:
        ful = pl.col("ful_ret") + pl.col("ful_imp") + pl.col("num_rel_ret") * extra
        poss = pl.col("poss_ret") + pl.col("poss_imp") + pl.col("notoccur") + pl.col("num_rel") * extra
    simple = frame.filter(pl.col("R") >= pl.col("N")).select(Q, G, _c_ratio(ful, poss).alias("term"))
    over = frame.filter(pl.col("R") < pl.col("N")).select(Q, G, "R", "num_rel")
    if over.height == 0:
        return simple
    recounted = _recount(prefs, status, placed, over, retrieved_only, docs)
    return pl.concat([simple, recounted])


def _recount(prefs: pl.DataFrame, status: pl.DataFrame, placed: pl.DataFrame, over: pl.DataFrame,
             retrieved_only: bool, docs: pl.DataFrame) -> pl.DataFrame:
    """Groups with more non-relevant documents than R: trec_eval's recalculation."""
    subgroups = prefs.group_by(Q, G).agg(pl.col(S).n_unique().alias("n_sub"))
    over = over.join(subgroups, on=[Q, G])
    out = []
    # one subgroup: levels as equivalence classes, the lowest class cut to its first R documents
    ec_groups = over.filter(pl.col("n_sub") == 1)
    if ec_groups.height:
        rows = prefs.join(ec_groups, on=[Q, G]).join(docs, on=[Q, D]).with_columns(
            pl.col(L).rank("dense", descending=True).over(Q, G).alias("ec"),
            pl.col(L).n_unique().over(Q, G).alias("k"),
        )
        # the first R documents of the lowest class, in position order (retrieved ones first)
        last = rows.filter(pl.col("ec") == pl.col("k")).sort(Q, G, "pos").with_columns(
            pl.int_range(pl.len()).over(Q, G).alias("i")).filter(pl.col("i") < pl.col("R"))
        if retrieved_only:
            rows, last = rows.filter(pl.col("ret")), last.filter(pl.col("ret"))
        x = rows.select(Q, G, pl.col("ec").alias("e1"), pl.col("pos").alias("p1"), pl.col("ret").alias("r1"),
                        "k")
        y = rows.select(Q, G, pl.col("ec").alias("e2"), pl.col("pos").alias("p2"))
        before_last = (pl.col("e1") < pl.col("e2")) & (pl.col("e2") <= pl.col("k") - 1)
        part1 = x.join(y, on=[Q, G]).filter(before_last)
        part2 = x.join(last.select(Q, G, pl.col("pos").alias("p2")), on=[Q, G])
        both = pl.concat([part1.select(Q, G, "p1", "p2", "r1"), part2.select(Q, G, "p1", "p2", "r1")])
        fulfilled = (pl.col("p1") < pl.col("p2")) & pl.col("r1")
        out.append(_terms(ec_groups, both, fulfilled))
    pa_groups = over.filter(pl.col("n_sub") > 1)
    if pa_groups.height:
        # the (R + 1)-th non-relevant document in position order, and every later one, is left out
        nonrel = status.join(pa_groups, on=[Q, G]).filter(pl.col(L) == 0)
        if retrieved_only:
            nonrel = nonrel.filter(pl.col("ret"))
        nonrel = nonrel.sort(Q, G, "pos").with_columns(pl.int_range(pl.len()).over(Q, G).alias("i"))
        # trec_eval keeps as many as the group's relevant documents, retrieved or not, in both forms
        dropped = nonrel.filter(pl.col("i") >= pl.col("num_rel")).select(Q, G, D)
        kept = placed.join(pa_groups.select(Q, G), on=[Q, G])
        kept = kept.join(dropped.rename({D: "a"}), on=[Q, G, "a"], how="anti").join(
            dropped.rename({D: "b"}), on=[Q, G, "b"], how="anti")
        if retrieved_only:
            kept = kept.filter(pl.col("ra") & pl.col("rb"))
            fulfilled = pl.col("pa") < pl.col("pb")
        else:
            fulfilled = pl.col("ra") & (~pl.col("rb") | (pl.col("pa") < pl.col("pb")))
        out.append(_terms(pa_groups, kept, fulfilled))
    return pl.concat(out)


def _terms(groups: pl.DataFrame, pairs: pl.DataFrame, fulfilled: pl.Expr) -> pl.DataFrame:
    """``[query_id, judgement_group, term]``: fulfilled over counted pairs (0 / 0 is NaN, as in C)."""
    counted = pairs.group_by(Q, G).agg(fulfilled.sum().alias("ful"), pl.len().alias("poss"))
    joined = groups.select(Q, G).join(counted, on=[Q, G], how="left")
    term = _c_ratio(pl.col("ful").fill_null(0), pl.col("poss").fill_null(0))
    return joined.select(Q, G, term.alias("term"))


def _pair_values(placed: pl.DataFrame) -> pl.DataFrame:
    """prefs_pair, _ret and _imp per query from the groups' preferences between document pairs."""
    counted = placed.group_by(Q, "a", "b", "pa", "pb", "ra", "rb").agg(pl.len().alias("c"))
    first = pl.col("pa") < pl.col("pb")
    def pick(x: str | int, y: str | int) -> pl.Expr:
        return pl.when(first).then(x).otherwise(y)

    oriented = counted.select(  # each unordered pair once: i the better placed document
        Q, pick("pa", "pb").alias("i"), pick("pb", "pa").alias("j"), pick("ra", "rb").alias("ri"),
        pick("rb", "ra").alias("rj"), pick("c", 0).alias("c_ij"), pick(0, "c").alias("c_ji"),
    ).group_by(Q, "i", "j").agg(pl.col("ri").first(), pl.col("rj").first(), pl.col("c_ij").sum(),
                                pl.col("c_ji").sum())
    share = pl.col("c_ij").cast(pl.Float64) / (pl.col("c_ij") + pl.col("c_ji")).cast(pl.Float64)
    block = pl.when(pl.col("rj")).then(1).when(pl.col("ri")).then(2).otherwise(3)
    order = block * (2**40) + pl.col("i") * (2**20) + pl.col("j")
    b1, b2 = block == 1, block <= 2
    return oriented.group_by(Q).agg(
        _ratio(ordered_sum(pl.when(b2).then(share).otherwise(0.0), order), pl.len()).alias("prefs_pair"),
        _ratio(ordered_sum(pl.when(b1).then(share).otherwise(0.0), order), b1.sum()).alias("prefs_pair_ret"),
        _ratio(ordered_sum(pl.when(b2).then(share).otherwise(0.0), order), b2.sum()).alias("prefs_pair_imp"),
    )


def evaluate_preferences(
    run: pl.DataFrame, prefs: pl.DataFrame, measures: Sequence[Measure], *, complete: bool = False,
    depth: int | None = None,
) -> pl.DataFrame:
    """``[query_id, <one column per prefs_* measure>]`` of a run against preference judgements.

    ``run`` has ``query_id``, ``doc_id``, ``score``; ``prefs`` the columns of
    :func:`frame_eval.scan_trec_prefs`. Queries are those in both (``complete``: every
    query of ``prefs``), in byte order; ``depth`` keeps each ranking's first documents.

    >>> import polars as pl
    >>> from frame_eval.registry import parse_measures
    >>> run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> prefs = pl.DataFrame({"query_id": ["q"] * 3, "judgement_group": ["u"] * 3,
    ...                       "judgement_subgroup": ["s"] * 3, "doc_id": ["a", "b", "c"],
    ...                       "preference": [1.0, 2.0, 0.0]})
    >>> evaluate_preferences(run, prefs, parse_measures("prefs_simp")).rows()  # b > a, b > c, a > c
    [('q', 0.6666666666666666)]
    """
    names = [m.name for m in measures]
    run = run.select(pl.col(Q).cast(pl.String), pl.col(D).cast(pl.String), pl.col("score").cast(pl.Float64))
    prefs = prefs.select(pl.col(Q, G, S, D).cast(pl.String), pl.col(L).cast(pl.Float64))
    queries = prefs.select(Q).unique()
    if not complete:
        queries = queries.join(run.select(Q).unique(), on=Q, how="semi")
    queries = queries.sort(Q)
    prefs = prefs.join(queries, on=Q, how="semi")
    run = run.join(queries, on=Q, how="semi")
    docs = _positions(run, prefs, depth)
    placed, counts = _group_counts(_pairs(prefs), docs)
    groups = prefs.select(Q, G).unique()
    counts = groups.join(counts, on=[Q, G], how="left").with_columns(
        pl.col("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur").fill_null(0))
    ful, ful_ret = pl.col("ful_ret") + pl.col("ful_imp"), pl.col("ful_ret")
    poss = pl.col("poss_ret") + pl.col("poss_imp") + pl.col("notoccur")
    poss_imp = pl.col("poss_ret") + pl.col("poss_imp")
    terms = counts.with_columns(
        _ratio(ful, poss).alias("t_all"), _ratio(ful_ret, pl.col("poss_ret")).alias("t_ret"),
        _ratio(ful, poss_imp).alias("t_imp"),
    )
    for name, only_ret in (("t_rn", False), ("t_rn_ret", True)):
        terms = terms.join(_rnonrel(prefs, docs, counts, placed, only_ret).rename({"term": name}),
                           on=[Q, G], how="left").with_columns(pl.col(name).fill_null(0.0))

    def averaged(term: str) -> pl.Expr:  # over groups in name order; 0 unless the sum is above 0
        total = ordered_sum(pl.col(term), pl.col(G))
        # C's NaN > 0 is false (polars orders NaN above every number): a 0 / 0 term gives 0
        return pl.when(total.is_not_nan() & (total > 0)).then(total / pl.len()).otherwise(0.0)

    per_query = terms.group_by(Q).agg(
        poss.sum().alias("prefs_num_prefs_poss"), ful.sum().alias("prefs_num_prefs_ful"),
        ful_ret.sum().alias("prefs_num_prefs_ful_ret"),
        _ratio(ful.sum(), poss.sum()).alias("prefs_simp"),
        _ratio(ful_ret.sum(), pl.col("poss_ret").sum()).alias("prefs_simp_ret"),
        _ratio(ful.sum(), poss_imp.sum()).alias("prefs_simp_imp"),
        averaged("t_all").alias("prefs_avgjg"), averaged("t_ret").alias("prefs_avgjg_ret"),
        averaged("t_imp").alias("prefs_avgjg_imp"), averaged("t_rn").alias("prefs_avgjg_Rnonrel"),
        averaged("t_rn_ret").alias("prefs_avgjg_Rnonrel_ret"),
    )
    pair = _pair_values(placed)
    result = queries.join(per_query, on=Q, how="left").join(pair, on=Q, how="left")
    return result.select(Q, *(pl.col(m.spec.name).cast(pl.Float64).fill_null(0.0).alias(n)
                              for m, n in zip(measures, names, strict=True))).sort(Q)
