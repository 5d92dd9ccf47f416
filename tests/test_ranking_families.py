"""Measures trec_eval does not have, against their own references, and the measure names of issue 11."""

from __future__ import annotations

import math

import polars as pl
import pytest
from test_pytrec_eval_parity import random_case

import frame_eval as fe

ir_measures = pytest.importorskip("ir_measures")


@pytest.mark.parametrize("seed", range(8))
def test_judged_matches_ir_measures(seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=False, near_ties=False)
    # distinct scores: ir_measures breaks ties by doc_id ascending, trec_eval descending
    run = run.with_columns(score=pl.int_range(pl.len()).cast(pl.Float64) * 7 % 1009)
    ours = run.ireval.evaluate(qrels, ["Judged@1", "Judged@5", "Judged@10", "Judged"], shape="wide")
    judged = [ir_measures.Judged @ 1, ir_measures.Judged @ 5, ir_measures.Judged @ 10, ir_measures.Judged]
    pytest.importorskip("pandas")
    calc = ir_measures.iter_calc(judged, qrels.to_pandas(), run.to_pandas())
    expected = {(m.query_id, str(m.measure)): m.value for m in calc}
    for row in ours.iter_rows(named=True):
        for label, measure in zip(["Judged@1", "Judged@5", "Judged@10", "Judged"], judged, strict=True):
            key = (row["query_id"], str(measure))
            if key in expected:  # ir_measures leaves out queries the run lacks
                assert row[label] == pytest.approx(expected[key], abs=1e-12), key


def test_trec_eval_names_parse() -> None:
    names = {
        "bpref": ["Bpref"], "set_F.0.5": ["SetF(beta=0.5)"], "Rprec_mult_0.20": ["Rprec_mult(mult=0.2)"],
        "utility.2,-1,0,0": ["utility(a=2)"], "11pt_avg..25,.5,.75": ["11pt_avg(levels=0.25;0.5;0.75)"],
        "11pt_avg_.25,.5,.75": ["11pt_avg(levels=0.25;0.5;0.75)"],
        "ndcg.1=3,2=9,4=4.5": ["nDCG(gains=1:3;2:9;4:4.5)"], "rbp.p=0.8": ["RBP(p=0.8)"],
        "rbp_p=0.8": ["RBP(p=0.8)"], "rbp.0.8": ["RBP(p=0.8)"], "unj.5,10": ["unj@5", "unj@10"],
        "unj_5": ["unj@5"], "relative_P_10": ["relative_P@10"], "set_map": ["SetAP"], "set_recall": ["SetR"],
        "num_nonrel_judged_ret": ["NumNonRelJudgedRet"], "infAP": ["infAP"],
    }
    for name, expected in names.items():
        assert [m.name for m in fe.parse_measures(name)] == expected, name
    assert len(fe.parse_measures("Rprec_mult")) == 10  # trec_eval's default multiples
    for name in ("nDCG(gains=1:3;2:9;4:4.5)", "11pt_avg(levels=0.25;0.5;0.75)", "Rprec_mult(mult=0.2)"):
        assert [m.name for m in fe.parse_measures(name)] == [name]  # canonical names read back


def test_geometric_mean_summary_has_trec_evals_floor() -> None:
    run = pl.DataFrame({"query_id": ["a", "a", "b"], "doc_id": ["x", "y", "z"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "b"], "doc_id": ["y", "w"], "relevance": [1, 1]})
    summary = run.ireval.summarize(qrels, ["gm_map", "AP"], shape="wide")
    # AP: a = 1/2, b = 0 (floored at 0.00001)
    assert summary["gm_map"].item() == math.exp((math.log(0.5) + math.log(0.00001)) / 2)
    assert summary["AP"].item() == 0.25


def test_division_by_an_aggregate_is_correctly_rounded() -> None:
    """bpref divides by min(N, R): 9 / 14 must be 0.6428571428571429, not 9 * (1 / 14)."""
    judged = pl.DataFrame({"rank": list(range(1, 11)) + [None] * 20,
                           "relevance": [1] + [0] * 9 + [1] * 13 + [0] * 7})
    expected = (1 + 0) / 14  # the second relevant document is never retrieved
    assert judged.select(fe.ranking.bpref()).item() == expected
    # 14 relevant, 17 judged non-relevant; the relevant document at rank 10 has 9 above it
    ranked = pl.DataFrame({"rank": list(range(1, 11)) + [None] * 30,
                           "relevance": [0] * 9 + [1] + [1] * 13 + [0] * 17})
    assert ranked.select(fe.ranking.bpref()).item() == (1.0 - 9 / 14) / 14
