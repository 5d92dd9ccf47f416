"""Families evaluated at several cutoffs in one pass (frame_eval.ranking.batched) give exactly the
bits of each measure evaluated on its own, for every parameter the one-pass builders take."""

from __future__ import annotations

import polars as pl
import pytest
from test_pytrec_eval_parity import random_case

import frame_eval as fe
from frame_eval.ranking import batched
from frame_eval.ranking._common import ORDERED

FAMILIES = [
    ["P@1", "P@3", "P@10", "P@1000"],
    ["P(rel=2)@2", "P(rel=2)@5"],
    ["R", "R@1", "R@5", "R@50"],
    ["relative_P@1", "relative_P@5", "relative_P@20"],
    ["Success@1", "Success@5"],
    ["AP", "AP@1", "AP@3", "AP@10", "AP@100"],
    ["AP(rel=2)@3", "AP(rel=2)"],
    ["AP(denominator=min_kR)@2", "AP(denominator=min_kR)@10", "AP(denominator=min_kR)"],
    ["nDCG", "nDCG@1", "nDCG@3", "nDCG@10", "nDCG@1000"],
    ["nDCG(gain=exp)@2", "nDCG(gain=exp)@5", "nDCG(gain=exp)"],
    ["nDCG(discount=jk)@2", "nDCG(discount=jk)@8"],
    ["nDCG(base=10)@3", "nDCG(base=10)@7"],
    ["iprec_at_recall"],
    ["IPrec(rounding=trec9)@0.2", "IPrec(rounding=trec9)@0.5", "IPrec(rounding=trec9)@1"],
    ["IPrec(rounding=ceil)@0", "IPrec(rounding=ceil)@0.3", "IPrec(rounding=ceil)@0.7"],
    ["IPrec(rel=2)@0.1", "IPrec(rel=2)@0.9"],
    ["Rprec_mult"],  # batched over its multiples (batch_param)
    ["AP", "AP@5", "gm_map", "AP(rel=2)@3", "AP(rel=2)", "gm_map(rel=2)"],  # gm_map read off AP
    ["iprec_at_recall", "11pt_avg"],  # 11pt_avg read off IPrec (from_others)
    ["IPrec(rel=2)@0.25", "IPrec(rel=2)@0.75", "11pt_avg(levels=0.25;0.75,rel=2)",
     "11pt_avg(levels=0.25;0.5)"],
    ["Rprec_mult(mult=0)", "Rprec_mult(mult=0.5,rel=2)", "Rprec_mult(mult=3,rel=2)", "Rprec_mult(mult=1e15)"],
]


@pytest.mark.parametrize("seed", range(8))
def test_one_pass_equals_one_measure_at_a_time(seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    options = {"complete": seed % 3 == 0, "depth": 7 if seed % 4 == 1 else None}
    for names in FAMILIES:
        together = run.ireval.evaluate(qrels, names, shape="wide", **options)
        assert together.width == 1 + sum(len(fe.parse_measures(name)) for name in names)
        for label in together.columns[1:]:
            alone = run.ireval.evaluate(qrels, [label], shape="wide", **options)
            assert alone.equals(together.select("query_id", label)), label


def test_families_that_share_a_pass_and_those_that_do_not() -> None:
    measures = [m for name in ["P@5", "P@10", "P(rel=2)@5", "AP(interpolation=all)@5",
                               "AP(interpolation=all)@10", "nDCG(gains=1:3)@5", "nDCG(gains=1:3)@10", "RR"]
                for m in fe.parse_measures(name)]
    aggs, columns = batched.aggregations(measures, {"rank": "rank", "relevance": "relevance"}, "m")
    # P@5 and P@10 in one pass; P(rel=2)@5 alone (other parameters); interpolated AP and
    # gain tables are not batched; RR has no cutoffs
    assert len(aggs) == len(measures) - 1
    assert [c.meta.output_name() for c in columns] == [f"m{i}" for i in range(len(measures))]
    judged = pl.DataFrame({"query_id": ["q"] * 4, "rank": [1, 2, 3, None], "relevance": [1, 0, 2, 1]})
    values = judged.group_by("query_id").agg(aggs).select(columns).row(0)
    alone = judged.group_by("query_id").agg(m.expr(rank="rank", relevance="relevance") for m in measures)
    assert values == alone.drop("query_id").row(0)


def test_every_ranking_measure_evaluates_when_no_query_is_shared() -> None:
    """No evaluated query: every measure gives no rows and a summary of nulls (RBP, RBP_resid,
    11pt_avg and interpolated AP once failed here on a sum typed from no values)."""
    run = pl.DataFrame({"query_id": ["a"], "doc_id": ["x"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["b"], "doc_id": ["x"], "relevance": [1]})
    measures = ["all_trec", "AP(interpolation=11pt)", "AP(interpolation=all)@5", "nCG@5", "SE", "yaap"]
    for spec in fe.registry.specs("ranking"):
        if spec.name.startswith("prefs_"):  # these read preference judgements (evaluate_preferences)
            continue
        cutoff = None if spec.cutoff != "required" else (5 if spec.cutoff_type is int else 0.5)
        measures.append(fe.registry.measure(spec, cutoff))
    with pytest.warns(UserWarning):
        per_query = run.ireval.evaluate(qrels, measures, shape="wide")
    assert per_query.height == 0
    with pytest.warns(UserWarning):
        summary = run.ireval.summarize(qrels, measures, shape="wide")
    assert summary["num_q"].to_list() == [0]


@pytest.mark.parametrize("seed", range(6))
def test_parts_give_the_expressions_bits(seed: int) -> None:
    """Measures that evaluate() computes from several plain aggregations (``build_parts``: nDCG@k
    from one sum per rank) give the bits of their one expression, on the judged frame."""
    run, qrels = random_case(seed, integer_ids=True)
    if seed % 2:  # judgements of 1024 and more: exponential gains must not overflow
        qrels = qrels.with_columns(pl.col("relevance") * 600)
    judged = run.ireval.judge(qrels)
    roles = {"rank": "rank", "relevance": "relevance"}
    names = ["nDCG@1", "nDCG@3", "nDCG@10", "nDCG@20", "nDCG(gain=exp)@5", "nDCG(gain=exp)@20"]
    # as evaluate() hands its rows over: in rank order within each query (ORDERED), the parts read
    # the scoring judgements and ranks as they come; otherwise one sum per rank
    ordered = judged.sort("query_id", "rank", nulls_last=True)
    for frame, frame_roles in ((judged, roles), (ordered, {**roles, ORDERED: "1"})):
        for name in names:
            (m,) = fe.parse_measures(name)
            built = m.spec.build_parts and m.spec.build_parts(frame_roles, m.cutoff, **m.kwargs)
            assert built is not None and len(built[0]) == (4 if ORDERED in frame_roles else m.cutoff + 2)
            aggs, columns = batched.aggregations([m], frame_roles, "m")
            parts = frame.group_by("query_id").agg(aggs).select("query_id", *columns).sort("query_id")
            alone = judged.group_by("query_id").agg(m.expr(**roles).alias("m0")).sort("query_id")
            assert parts.equals(alone), (name, frame_roles)
    (deep,) = fe.parse_measures("nDCG@21")  # beyond the parts' cutoffs: the one expression
    assert deep.spec.build_parts is not None and deep.spec.build_parts(roles, 21, **deep.kwargs) is None


@pytest.mark.parametrize("names", [["nDCG@10"], ["AP", "nDCG@10"], ["gm_map", "AP", "RR", "nDCG@10"]])
def test_parts_form_whatever_comes_before(names: list[str]) -> None:
    """``parts=True`` computes nDCG@10 from its parts (one sum per rank, the top list, the highest
    judgement: 12 aggregations) also after measures without parts; ``parts=False`` as one expression."""
    measures = [m for name in names for m in fe.parse_measures(name)]
    roles = {"rank": "rank", "relevance": "relevance"}
    whole, _ = batched.aggregations(measures, roles, "m", parts=False)
    split, _ = batched.aggregations(measures, roles, "m", parts=True)
    assert len(split) == len(whole) + 11


def test_small_and_other_calls_each_get_their_own_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small eager call plans nDCG as one expression, any other call from its parts; the cached
    aggregations keep the two apart (a small call first must not hand its form to a lazy call)."""
    from frame_eval import _reuse
    from frame_eval import evaluate as core

    forms: list[bool] = []
    real = batched.aggregations

    def recording(*args: object, parts: bool = True) -> tuple[list[pl.Expr], list[pl.Expr]]:
        forms.append(parts)
        return real(*args, parts=parts)  # type: ignore[arg-type]

    monkeypatch.setattr(batched, "aggregations", recording)
    core._aggregations.cache_clear()
    _reuse.clear()
    run, qrels = random_case(3, integer_ids=True)
    small = run.ireval.evaluate(qrels, ["nDCG@10"])
    lazy = run.lazy().ireval.evaluate(qrels.lazy(), ["nDCG@10"]).collect()
    assert forms == [False, True]
    assert small.equals(lazy)
    core._aggregations.cache_clear()
