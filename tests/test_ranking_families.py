"""Measures trec_eval does not have, against their own references, and the measure names of issue 11."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from test_pytrec_eval_parity import random_case, trec_dict

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


def test_summary_aggregates() -> None:
    run = pl.DataFrame({"query_id": ["a", "a", "a", "b"], "doc_id": ["x", "y", "z", "w"],
                        "score": [3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "a", "b", "b"], "doc_id": ["y", "v", "w", "u"],
                          "relevance": [1, 1, 1, 1]})
    # per query: a retrieves 3 with 1 relevant of 2; b retrieves 1 with 1 relevant of 2
    micro = run.ireval.summarize(qrels, ["SetP", "SetR", "P@2", "NumRet"], shape="wide", aggregate="micro")
    assert micro.row(0) == (2 / 4, 2 / 4, 2 / 4, 4.0, 2)
    mean = run.ireval.summarize(qrels, ["SetP"], shape="wide", aggregate="mean")
    assert mean["SetP"].item() == (1 / 3 + 1.0) / 2
    gmean = run.ireval.summarize(qrels, ["SetP"], shape="wide", aggregate="gmean")
    assert gmean["SetP"].item() == math.exp((math.log(1 / 3) + math.log(1.0)) / 2)
    with pytest.raises(ValueError, match="no micro average"):
        run.ireval.summarize(qrels, ["AP"], aggregate="micro")
    with pytest.raises(ValueError, match="aggregate must be one of"):
        run.ireval.summarize(qrels, ["AP"], aggregate="median")


def test_judged_only_reranks_the_judged_documents() -> None:
    run = pl.DataFrame({"query_id": ["a"] * 4 + ["b"], "doc_id": ["x", "y", "z", "t", "s"],
                        "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "a", "a", "b"], "doc_id": ["y", "t", "z", "q"],
                          "relevance": [1, 0, -1, 1]})
    judged = run.ireval.judge(qrels, judged_only=True)
    assert judged.filter(pl.col("rank").is_not_null()).select("doc_id", "rank").rows() == [("y", 1), ("t", 2)]
    values = run.ireval.evaluate(qrels, ["P@1", "NumRet"], shape="wide", judged_only=True)
    # b keeps being evaluated with nothing retrieved
    assert values.rows() == [("a", 1.0, 2.0), ("b", 0.0, 0.0)]
    # trec_eval cuts the ranking at depth first, then drops the unjudged
    cut = run.ireval.evaluate(qrels, ["NumRet"], shape="wide", judged_only=True, depth=2)
    assert cut["NumRet"].to_list() == [1.0, 0.0]


def test_run_wide_rel_and_collection_size_keep_labels() -> None:
    run = pl.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "a"], "doc_id": ["x", "y"], "relevance": [1, 2]})
    out = run.ireval.evaluate(qrels, ["P@2", "P(rel=1)@1", "utility(d=1)"], shape="wide", rel=2,
                              collection_size=10)
    # P@2 takes rel=2 (one relevant); P(rel=1)@1 keeps its own; utility: 1 - 1 + 0 + (10 + 1 - 2 - 1)
    assert out.row(0) == ("a", 0.5, 1.0, 8.0)


def test_ir_measures_objects_of_the_new_families() -> None:
    found = fe.registry.resolve([ir_measures.Bpref, ir_measures.SetRelP, ir_measures.SetF(beta=0.5),
                                 ir_measures.RBP, ir_measures.RBP(p=0.5), ir_measures.Judged @ 10,
                                 ir_measures.infAP, ir_measures.SetAP])
    assert [m.name for m in found] == ["Bpref", "set_relative_P", "SetF(beta=0.5)", "RBP(p=0.8)",
                                       "RBP(p=0.5)", "Judged@10", "infAP", "SetAP"]


def test_textbook_gain_example() -> None:
    """Grades [2, 3, 3, 1, 2] in rank order: CG = 11, DCG = 6.597 (log2(i + 1) discount), and
    nDCG = 0.9238 against the ideal [3, 3, 2, 2, 1] (the same five documents, judged)."""
    judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    cg, dcg, ndcg = judged.select(fe.ranking.cg(5), fe.ranking.dcg(5), fe.ranking.ndcg(5)).row(0)
    assert cg == 11.0
    expected = 2 / math.log2(2) + 3 / math.log2(3) + 3 / math.log2(4) + 1 / math.log2(5) + 2 / math.log2(6)
    assert dcg == expected and round(dcg, 3) == 6.597
    ideal = 3 / math.log2(2) + 3 / math.log2(3) + 2 / math.log2(4) + 2 / math.log2(5) + 1 / math.log2(6)
    assert ndcg == expected / ideal and round(ndcg, 4) == 0.9238
    exp = judged.select(fe.ranking.cg(5, gain="exp"), fe.ranking.dcg(2, gain="exp")).row(0)
    assert exp == (3 + 7 + 7 + 1 + 3, 3 / math.log2(2) + 7 / math.log2(3))


def test_textbook_precision_example() -> None:
    """Relevant at ranks 1, 3, 6, 10, 15 of 10 relevant: P@5 = P@10 = 0.4, AP = 0.29."""
    ranks = list(range(1, 21)) + [None] * 5
    relevance = [1 if r in (1, 3, 6, 10, 15) else 0 for r in range(1, 21)] + [1] * 5
    judged = pl.DataFrame({"rank": ranks, "relevance": relevance})
    p5, p10, ap = judged.select(fe.ranking.precision(5), fe.ranking.precision(10), fe.ranking.ap()).row(0)
    assert (p5, p10) == (0.4, 0.4)
    assert round(ap, 2) == 0.29


@pytest.mark.parametrize("seed", range(4))
def test_textbook_set_measures(seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=False)
    names = ["E(beta=2)", "SetF(beta=4)", "E", "SetF", "fallout", "generality", "SetP", "SetR", "NumRet",
             "NumRelRet", "NumRel"]
    out = run.ireval.evaluate(qrels, names, shape="wide", collection_size=400)
    for row in out.iter_rows(named=True):
        # E is 1 - F with beta squared (trec_eval's set_F takes beta as it is)
        assert row["E(beta=2)"] == (1.0 - row["SetF(beta=4)"] if row["NumRelRet"] else 1.0)
        assert row["E"] == (1.0 - row["SetF"] if row["NumRelRet"] else 1.0)
        assert row["fallout"] == (row["NumRet"] - row["NumRelRet"]) / (400 - row["NumRel"])
        assert row["generality"] == row["NumRel"] / 400


@pytest.mark.parametrize("seed", range(6))
def test_iprec_rounding_trec9_matches_pytrec_eval(seed: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = random_case(seed, integer_ids=False, near_ties=False)
    qrel_dict, run_dict = trec_dict(qrels, "relevance"), trec_dict(run, "score")
    expected = pytrec_eval.RelevanceEvaluator(qrel_dict, {"iprec_at_recall"}).evaluate(run_dict)
    levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    names = [f"IPrec(rounding=trec9)@{x}" for x in levels]
    got = run.ireval.evaluate(qrels, names, shape="wide")
    for row in got.iter_rows(named=True):
        for x, name in zip(levels, names, strict=True):
            want = expected[row["query_id"]][f"iprec_at_recall_{x:.2f}"]
            assert row[fe.parse_measures(name)[0].name] == want, (name, row["query_id"])


def test_iprec_ceil_is_the_textbook_recall_at_least() -> None:
    # 3 relevant, found at ranks 1 and 4: recall 1/3 at rank 1, 2/3 at rank 4
    judged = pl.DataFrame({"rank": [1, 2, 3, 4, None], "relevance": [1, 0, 0, 1, 1]})
    values = judged.select(
        fe.ranking.iprec(0.4, rounding="ceil"), fe.ranking.iprec(0.4), fe.ranking.iprec(0.7, rounding="ceil")
    ).row(0)
    # ceil(1.2) = 2 relevant needed: 2/4; trec 10 rounds 1.2 to 1: 1/1; ceil(2.1) = 3: never found
    assert values == (0.5, 1.0, 0.0)


def test_recommender_measures() -> None:
    # relevant at ranks 2 and 4 of a ranking of 5; 4 relevant in all
    judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5, None, None], "relevance": [0, 1, 0, 1, 0, 1, 1]})
    row = judged.select(
        fe.ranking.ap(3), fe.ranking.ap(3, denominator="min_kR").alias("min"), fe.ranking.arhr(),
        fe.ranking.hits(3), fe.ranking.success(1).alias("hit_rate"),
    ).row(0)
    assert row == (0.5 / 4, 0.5 / 3, 1 / 2 + 1 / 4, 1, 0.0)
    assert fe.parse_measures("HitRate@5")[0].name == "Success@5"


@pytest.mark.parametrize("seed", range(6))
def test_ndcg_ideal_retrieved_matches_scikit_learn(seed: int) -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    grades = rng.choice([0, 0, 1, 2, 3], size=n)
    scores = rng.permutation(n).astype(float)  # distinct: scikit-learn averages over ties
    run = pl.DataFrame({"query_id": ["q"] * n, "doc_id": [f"d{i}" for i in range(n)], "score": scores})
    qrels = pl.DataFrame({"query_id": ["q"] * n, "doc_id": [f"d{i}" for i in range(n)], "relevance": grades})
    for k in (None, 3, 10):
        name = "nDCG(ideal=retrieved)" + (f"@{k}" if k else "")
        got = run.ireval.evaluate(qrels, [name])["value"].item()
        want = sklearn_metrics.ndcg_score([grades], [scores], k=k) if grades.any() else 0.0
        assert got == pytest.approx(want, abs=1e-12), name


@pytest.mark.parametrize("seed", range(4))
def test_err_matches_ir_measures(seed: int) -> None:
    """ir_measures computes ERR with gdeval (perl), printed to 5 decimals."""
    pytest.importorskip("pandas")
    import shutil

    if shutil.which("perl") is None:
        pytest.skip("ir_measures' ERR runs gdeval, a perl script")
    run, qrels = random_case(seed, integer_ids=True, near_ties=False)  # gdeval reads numeric topics
    ids = [pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)]
    run = run.with_columns(*ids, score=pl.int_range(pl.len()).cast(pl.Float64) * 7 % 1009)  # no ties
    qrels = qrels.with_columns(*ids, pl.col("relevance").clip(lower_bound=0))
    names = ["ERR@5", "ERR@20"]
    ours = run.ireval.evaluate(qrels, names, shape="wide")
    measures = [ir_measures.ERR @ 5, ir_measures.ERR @ 20]
    calc = ir_measures.iter_calc(measures, qrels.to_pandas(), run.to_pandas())
    expected = {(m.query_id, str(m.measure)): m.value for m in calc}
    checked = 0
    for row in ours.iter_rows(named=True):
        for name in names:
            key = (row["query_id"], name)
            if key in expected:
                assert row[name] == pytest.approx(expected[key], abs=6e-6), key
                checked += 1
    assert checked > 0


def test_jarvelin_kekalainen_discount() -> None:
    """rel_i / max(1, log_b i): with b = 2 ranks 1 and 2 go undiscounted; the base matters."""
    judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    names = ["DCG(discount=jk)@5", "DCG(discount=jk,base=3)@5", "nDCG(discount=jk)@5"]
    got = judged.select(m.expr() for n in names for m in fe.parse_measures(n)).row(0)
    b2 = 2 + 3 + 3 / math.log2(3) + 1 / 2.0 + 2 / math.log2(5)
    b3 = 2 + 3 + 3 / 1.0 + 1 / (math.log2(4) / math.log2(3)) + 2 / (math.log2(5) / math.log2(3))
    ideal = 3 + 3 + 2 / math.log2(3) + 2 / 2.0 + 1 / math.log2(5)
    assert got[0] == pytest.approx(b2, abs=1e-12)
    assert got[1] == pytest.approx(b3, abs=1e-12)
    assert got[2] == pytest.approx(b2 / ideal, abs=1e-12)
