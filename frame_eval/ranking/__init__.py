"""Ranking measures as polars aggregation expressions, with trec_eval's semantics.

One module per family: :mod:`.counts`, :mod:`.precision`, :mod:`.set_based`,
:mod:`.average_precision`, :mod:`.gain`, :mod:`.gain_variants`, :mod:`.reciprocal`, :mod:`.interpolated`,
:mod:`.incomplete` (bpref, infAP, unjudged rates), :mod:`.rank_biased`; each opens with
the semantics it implements. This package re-exports every public expression function.

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

from frame_eval.ranking import groups as _groups  # noqa: F401  (all_trec, official, set)
from frame_eval.ranking import judgement_groups as _judgement_groups  # noqa: F401  (-R qrels_jg)
from frame_eval.ranking import preferences as _preferences  # noqa: F401  (-R prefs)
from frame_eval.ranking._common import GUARD, INTERNAL_PREFIX, RANK, RELEVANCE
from frame_eval.ranking.average_precision import AP, GM_MAP, YAAP, ap, yaap
from frame_eval.ranking.counts import (
    NUM_NONREL_JUDGED_RET,
    NUM_Q,
    NUM_REL,
    NUM_REL_RET,
    NUM_RET,
    num_nonrel_judged_ret,
    num_q,
    num_rel,
    num_rel_ret,
    num_ret,
)
from frame_eval.ranking.gain import CG, DCG, NCG, NDCG, cg, dcg, ncg, ndcg
from frame_eval.ranking.gain_variants import BIN_G, NDCG_REL, RNDCG, G, bin_g, g, ndcg_rel, rndcg
from frame_eval.ranking.incomplete import BPREF, GM_BPREF, INFAP, JUDGED, UNJ, bpref, infap, judged_rate, unj
from frame_eval.ranking.interpolated import ELEVEN_POINT, IPREC, eleven_point_average, iprec
from frame_eval.ranking.precision import (
    RELATIVE_P,
    RPREC,
    RPREC_MULT,
    SE,
    SUCCESS,
    P,
    R,
    precision,
    r_precision,
    recall,
    relative_precision,
    rprec_mult,
    success,
    system_efficiency,
)
from frame_eval.ranking.rank_biased import RBP, RBP_RESID, rbp, rbp_resid
from frame_eval.ranking.reciprocal import ARHR, ERR, HITS, RR, arhr, err, hits, rr
from frame_eval.ranking.set_based import (
    E_MEASURE,
    FALLOUT,
    GENERALITY,
    SET_AP,
    SET_F,
    SET_P,
    SET_R,
    SET_RELATIVE_P,
    UTILITY,
    e_measure,
    fallout,
    generality,
    set_ap,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
    utility,
)

__all__ = [
    "ap",
    "arhr",
    "bin_g",
    "bpref",
    "cg",
    "dcg",
    "e_measure",
    "eleven_point_average",
    "err",
    "fallout",
    "g",
    "generality",
    "hits",
    "infap",
    "iprec",
    "judged_rate",
    "ncg",
    "ndcg",
    "ndcg_rel",
    "num_nonrel_judged_ret",
    "num_q",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "r_precision",
    "rbp",
    "rbp_resid",
    "recall",
    "relative_precision",
    "rndcg",
    "rprec_mult",
    "rr",
    "set_ap",
    "set_f",
    "set_precision",
    "set_recall",
    "set_relative_precision",
    "success",
    "system_efficiency",
    "unj",
    "utility",
    "yaap",
]
# specs and shared names, importable as before the split (frame_eval.ranking.AP, .GUARD, ...)
_SPECS = (
    AP, NDCG, P, R, RR, RPREC, SUCCESS, IPREC, NUM_RET, NUM_REL, NUM_REL_RET, NUM_Q, GM_MAP, BIN_G, G,
    BPREF, GM_BPREF, INFAP, JUDGED, UNJ, ELEVEN_POINT, RBP, RBP_RESID, SET_AP, SET_F, SET_P, SET_R,
    SET_RELATIVE_P, UTILITY, RELATIVE_P, RPREC_MULT, NUM_NONREL_JUDGED_RET, NDCG_REL, RNDCG, CG, DCG,
    E_MEASURE, FALLOUT, GENERALITY, ARHR, HITS, ERR, NCG, SE, YAAP,
)
_SHARED = (GUARD, INTERNAL_PREFIX, RANK, RELEVANCE)
