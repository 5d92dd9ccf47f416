"""trec_eval's judgement-group measures (``-R qrels_jg``): ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``.

A qrels_jg file holds several sets of judgements for a query, one per
judgement group (a user, an assessor): its lines are ``query_id group
doc_id relevance``, the group in the column where plain qrels have the
iteration. Each measure scores the ranking against each group's judgements
alone (AP, P@k or Rprec_mult, with that group's relevant documents R) and
averages over the query's groups: the groups' values are added in the byte
order of their names, then divided by their number, as trec_eval does. A
group whose judgements hold nothing relevant contributes 0.

With one judgement group these are ``AP``, ``P@k`` and ``Rprec_mult`` exactly,
and that is what their expressions compute on an ordinary judged frame (one
query's rows). :func:`evaluate_judgement_groups` judges a run against every
group and averages; the command line uses it for ``-R qrels_jg``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from frame_eval._float import ordered_sum
from frame_eval.judged import RunColumns
from frame_eval.ranking._common import _REL, _reads_relevant, _spec
from frame_eval.ranking.average_precision import _build_ap
from frame_eval.ranking.precision import RPREC_MULTIPLES, _build_precision, _build_rprec_mult, _check_mult
from frame_eval.registry import Doc, Measure, Param, register_shorthand

GROUP = "judgement_group"
_JOIN = "\x00"  # joins a query id and a group name into one key; sorts below any character


def _build_map_avgjg(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    return _build_ap(columns, None, rel=rel)


def _build_p_avgjg(columns: Mapping[str, str], k: int | None, *, rel: int) -> pl.Expr:
    return _build_precision(columns, k, rel=rel)


def _build_rprec_mult_avgjg(columns: Mapping[str, str], k: int | None, *, mult: float, rel: int) -> pl.Expr:
    return _build_rprec_mult(columns, k, mult=mult, rel=rel)


MAP_AVGJG = _spec(
    "map_avgjg", "AP against each judgement group's judgements, averaged over the groups",
    _build_map_avgjg, params=(_REL,), lowest_read=_reads_relevant, reads_unjudged=True,
    doc=Doc(
        "(`frame_eval.ranking.judgement_groups`)",
        "with judgement groups (`-R qrels_jg`: `query group doc relevance`): AP, P@k, Rprec_mult against "
        "each group's judgements, averaged over the groups in name order; with one group, AP, P@k, "
        "Rprec_mult",
        names=("map_avgjg", "P_avgjg@k", "Rprec_mult_avgjg(mult=m)"),
        trec="`map_avgjg`, `P_avgjg.k`, `Rprec_mult_avgjg.m`",
        covers=("P_avgjg", "Rprec_mult_avgjg"),
    ),
)
P_AVGJG = _spec(
    "P_avgjg", "P@k against each judgement group's judgements, averaged over the groups",
    _build_p_avgjg, params=(_REL,), cutoff="required", trec_cut_name="P_avgjg", lowest_read=_reads_relevant,
    reads_unjudged=True,
)
RPREC_MULT_AVGJG = _spec(
    "Rprec_mult_avgjg", "Rprec_mult against each judgement group's judgements, averaged over the groups",
    _build_rprec_mult_avgjg,
    params=(Param("mult", float, 1.0, doc="the multiple of R", check=_check_mult), _REL),
    lowest_read=_reads_relevant, reads_unjudged=True,  # judged on the full frame: no compact-frame check
    format_name=lambda params, _: f"Rprec_mult_avgjg(mult={params.get('mult', 1.0):g}"
    + (f",rel={params['rel']})" if "rel" in params else ")"),
)
register_shorthand(
    "ranking", r"Rprec_mult_avgjg(?:[._](\d*\.?\d+(?:,\d*\.?\d+)*))?",
    lambda m: [("Rprec_mult_avgjg", {"mult": float(x)})
               for x in (m.group(1).split(",") if m.group(1) else RPREC_MULTIPLES)],
)
AVERAGED = {MAP_AVGJG.name, P_AVGJG.name, RPREC_MULT_AVGJG.name}


def evaluate_judgement_groups(
    run: pl.LazyFrame, qrels: pl.LazyFrame, measures: Sequence[Measure], **options: Any
) -> pl.LazyFrame:
    """``[query_id, <one column per measure>]``: each measure averaged over the judgement groups.

    ``qrels`` has a ``judgement_group`` column; ``run`` the standard run columns
    (``query_id``, ``doc_id``, ``score``). Every query's ranking is judged against
    each group of that query (``options`` as :func:`frame_eval.evaluate.evaluate`:
    ``complete``, ``depth``, ``rel``, ...), and the groups' values are added in the
    byte order of the group names, then divided by the number of groups.

    >>> import polars as pl
    >>> from frame_eval.registry import parse_measures
    >>> run = pl.LazyFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.LazyFrame({"query_id": ["q"] * 4, "judgement_group": ["u1", "u1", "u2", "u2"],
    ...                       "doc_id": ["a", "b", "a", "b"], "relevance": [1, 0, 0, 1]})
    >>> evaluate_judgement_groups(run, qrels, parse_measures("map_avgjg")).collect().rows()
    [('q', 0.75)]
    """
    from frame_eval.evaluate import evaluate  # the core imports the ranking measures

    # each (query, group) is a query of its own: the group's judgements, the query's ranking
    key = pl.concat_str(pl.col("query_id").cast(pl.String), pl.lit(_JOIN), pl.col(GROUP).cast(pl.String))
    split = pl.col("query_id").str.split_exact(_JOIN, 1)
    groups = qrels.select("query_id", GROUP).unique()
    run_by_group = run.join(groups, on="query_id").with_columns(key.alias("query_id")).drop(GROUP)
    qrels_by_group = qrels.with_columns(key.alias("query_id")).drop(GROUP)
    names = [m.name for m in measures]
    per_group = evaluate(run_by_group, qrels_by_group, list(measures), RunColumns(), shape="wide", **options)
    per_group = per_group.with_columns(split.struct.field("field_0").alias("query_id"),
                                       split.struct.field("field_1").alias(GROUP))
    return per_group.group_by("query_id").agg(
        (ordered_sum(pl.col(n), pl.col(GROUP)) / pl.len()).alias(n) for n in names
    ).sort("query_id")
