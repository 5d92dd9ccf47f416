"""Property tests: every per-query value equals pytrec_eval (trec_eval 9.x), bit for bit.

Random runs and qrels with tied scores, graded and negative judgements,
queries without relevant documents, queries on one side only, cutoffs
longer than the ranking, and string or integer ids whose text order
differs from their numeric order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import frame_eval as fe

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = (1, 3, 5, 10, 50)
# pytrec_eval measure -> frame_eval names, with the key pytrec_eval reports them under
TREC_MEASURES = {
    "map": [("map", "AP")],
    "map_cut": [(f"map_cut_{k}", f"AP@{k}") for k in CUTS],
    "ndcg": [("ndcg", "nDCG")],
    "ndcg_cut": [(f"ndcg_cut_{k}", f"nDCG@{k}") for k in CUTS],
    "P": [(f"P_{k}", f"P@{k}") for k in CUTS],
    "recall": [(f"recall_{k}", f"R@{k}") for k in CUTS],
    "recip_rank": [("recip_rank", "RR")],
    "Rprec": [("Rprec", "Rprec")],
    "success": [(f"success_{k}", f"Success@{k}") for k in (1, 5, 10)],
    "num_ret": [("num_ret", "NumRet")],
    "num_rel": [("num_rel", "NumRel")],
    "num_rel_ret": [("num_rel_ret", "NumRelRet")],
    # families added with issue 11 (9.x rounds 11pt_avg's levels as trec9)
    "bpref": [("bpref", "Bpref")],
    "infAP": [("infAP", "infAP")],
    "set": [("set_P", "SetP"), ("set_recall", "SetR"), ("set_F", "SetF"), ("set_map", "SetAP"),
            ("set_relative_P", "set_relative_P")],
    "num_nonrel_judged_ret": [("num_nonrel_judged_ret", "NumNonRelJudgedRet")],
    "G": [("G", "G")],
    "binG": [("binG", "binG")],
    "ndcg_rel": [("ndcg_rel", "nDCG_rel")],
    "Rndcg": [("Rndcg", "RnDCG")],
    "utility": [("utility", "utility")],
    "11pt_avg": [("11pt_avg", "11pt_avg(rounding=trec9)")],
    "relative_P": [(f"relative_P_{k}", f"relative_P@{k}") for k in (5, 10)],
    "Rprec_mult": [("Rprec_mult_0.20", "Rprec_mult(mult=0.2)"), ("Rprec_mult_2.00", "Rprec_mult(mult=2)")],
}
PYTREC_NAMES = {
    "map", "ndcg", "recip_rank", "Rprec", "num_ret", "num_rel", "num_rel_ret",
    "map_cut." + ",".join(map(str, CUTS)), "ndcg_cut." + ",".join(map(str, CUTS)),
    "P." + ",".join(map(str, CUTS)), "recall." + ",".join(map(str, CUTS)), "success.1,5,10",
    "bpref", "infAP", "set", "num_nonrel_judged_ret", "G", "binG", "ndcg_rel", "Rndcg", "utility", "11pt_avg",
    "relative_P.5,10", "Rprec_mult.0.2,2.0",
}


def random_case(
    seed: int, integer_ids: bool, near_ties: bool | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Random run and qrels; ``near_ties`` (default: every third seed) adds scores that differ
    as doubles but tie as single-precision floats, where trec_eval 9.x (pytrec_eval) and
    10.0 rank differently."""
    rng = np.random.default_rng(seed)
    if near_ties is None:
        near_ties = seed % 3 == 1
    n_queries = int(rng.integers(1, 12))
    queries = [int(q) for q in rng.choice(40, size=n_queries, replace=False)]
    run_rows, qrels_rows = [], []
    for q in queries:
        pool = rng.choice(120, size=int(rng.integers(1, 60)), replace=False)
        side = rng.random()
        if side > 0.15:  # in the run (some queries only in qrels)
            depth = int(rng.integers(1, len(pool) + 1))
            retrieved = rng.choice(pool, size=depth, replace=False)
            # few distinct scores: many ties, broken by doc id text
            scores = rng.integers(0, 6, size=depth) / 2.0
            if near_ties:  # distinct as doubles (trec_eval 10.0), tied as floats (9.x)
                scores = scores + rng.choice([0.0, 1e-9, 2e-8], size=depth)
            run_rows += [(q, int(d), float(s)) for d, s in zip(retrieved, scores, strict=True)]
        if side < 0.85:  # in the qrels (some queries only in the run)
            judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            levels = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
            if rng.random() < 0.2:  # a query with nothing relevant
                levels = np.minimum(levels, 0)
            qrels_rows += [(q, int(d), int(r)) for d, r in zip(judged, levels, strict=True)]
    run = pl.DataFrame(
        run_rows, schema={"query_id": pl.Int64, "doc_id": pl.Int64, "score": pl.Float64}, orient="row"
    )
    qrels = pl.DataFrame(
        qrels_rows, schema={"query_id": pl.Int64, "doc_id": pl.Int64, "relevance": pl.Int64}, orient="row"
    )
    if not integer_ids:
        run = run.with_columns(pl.format("q{}", "query_id").alias("query_id"),
                               pl.format("d{}", "doc_id").alias("doc_id"))
        qrels = qrels.with_columns(pl.format("q{}", "query_id").alias("query_id"),
                                   pl.format("d{}", "doc_id").alias("doc_id"))
    return run, qrels


def trec_dict(frame: pl.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` with ids as text, as pytrec_eval takes runs and qrels."""
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in frame.select("query_id", "doc_id", value).iter_rows():
        out.setdefault(str(q), {})[str(d)] = v
    return out


def at_level(names: list[str], rel: int) -> list[fe.Measure]:
    """The measures named, each that takes ``rel`` at relevance level ``rel`` (trec_eval -l),
    its other parameters kept."""
    measures = []
    for name in names:
        m = fe.parse_measures(name)[0]
        if rel != 1 and any(p.name == "rel" for p in m.spec.params):
            m = fe.measure(m.spec, cutoff=m.cutoff, **{**dict(m.params), "rel": rel})
        measures.append(m)
    return measures


def pytrec_values(run: pl.DataFrame, qrels: pl.DataFrame, rel: int) -> dict[tuple[str, str], float]:
    qrel_dict, run_dict = trec_dict(qrels, "relevance"), trec_dict(run, "score")
    evaluator = pytrec_eval.RelevanceEvaluator(qrel_dict, PYTREC_NAMES, relevance_level=rel)
    results = evaluator.evaluate(run_dict)
    return {(q, key): v for q, values in results.items() for key, v in values.items()}


def assert_same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Same columns, keys and values, bit for bit."""
    assert got.columns == want.columns
    floats = [c for c in got.columns if got.schema[c] == pl.Float64]
    keys = [c for c in got.columns if c not in floats]
    assert got.select(keys).equals(want.select(keys))
    for name in floats:
        assert got[name].to_list() == want[name].to_list(), name


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("integer_ids", [False, True])
@pytest.mark.filterwarnings("ignore:only 0 of the run")  # a case with no judgements at all
def test_matches_pytrec_eval(seed: int, integer_ids: bool) -> None:
    # near-ties are where 9.x and 10.0 differ: the trec_eval 10.0 binary judges those
    run, qrels = random_case(seed, integer_ids, near_ties=False)
    rel = 1 if seed % 3 else 2
    pairs = [pair for family in TREC_MEASURES.values() for pair in family]
    measures = at_level([name for _, name in pairs], rel)
    expected = pytrec_values(run, qrels, rel)
    got = run.ireval.evaluate(qrels, measures, shape="wide")
    got_queries = {str(q) for q in got["query_id"]}
    assert got_queries == {q for q, _ in expected}
    for row in got.iter_rows(named=True):
        q = str(row["query_id"])
        for (trec_key, _), m in zip(pairs, measures, strict=True):
            assert row[m.name] == expected[(q, trec_key)], (
                f"{m.name} query {q}"
            )


def test_scores_compare_as_doubles_as_in_trec_eval_10() -> None:
    """trec_eval 9.x (pytrec_eval) stores scores as floats, 10.0 as doubles: here the
    relevant document's score is higher as a double and equal as a float."""
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.89124103, 0.89124099]})
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    assert run.ireval.evaluate(qrels, ["RR"])["value"].to_list() == [1.0]  # trec_eval 10.0
    assert pytrec_values(run, qrels, 1)[("q1", "recip_rank")] == 0.5  # 9.x: a tie, broken by doc_id


ALL_FAMILIES = ["AP", "AP@5", "nDCG", "nDCG@3", "nDCG(gain=exp,base=10)@5", "P@5", "R@5", "R", "RR",
                "RR@3", "Rprec", "Success@3", "IPrec@0", "IPrec@0.3", "IPrec@1", "NumRet", "NumRel",
                "NumRelRet", "NumQ", "AP(rel=2)", "P(rel=3)@10", "Bpref", "Bpref(rel=2)", "gm_map",
                "gm_bpref", "infAP", "infAP(rel=2)", "NumNonRelJudgedRet", "SetP", "SetR", "set_relative_P",
                "SetAP", "SetF(beta=0.5)", "utility(a=2,c=0.5,collection_size=100)", "relative_P@5",
                "Rprec_mult(mult=0.4)", "Rprec_mult(mult=2)", "11pt_avg", "11pt_avg(levels=0.25;0.5)", "binG",
                "G", "unj@5", "unj@50", "Judged@5", "Judged", "RBP", "RBP(p=0.5)",
                "nDCG(gains=0:1;1:3;3:2)@5", "nDCG(gains=1:-2;2:9)",
                "nDCG_rel", "RnDCG", "RnDCG(rel=2)", "CG@5", "CG(gain=exp)", "DCG@10", "DCG(gains=0:1;2:5)",
                "E", "E(beta=2)", "fallout(collection_size=300)", "generality(collection_size=300)",
                "AP(denominator=min_kR)@5", "ARHR@10", "ARHR", "Hits@5", "RBP_resid", "RBP_resid(p=0.5)",
                "ERR@10", "ERR(max_grade=3)", "nCG@5", "nCG(gain=exp,max_grade=4)@3", "SE", "SE@5", "yaap",
                "yaap(rel=2)", "AP(interpolation=all)@5", "AP(interpolation=11pt)"]


@pytest.mark.parametrize("seed", range(12))
def test_compact_evaluation_frame_equals_full_judged_frame(seed: int) -> None:
    """evaluate() aggregates a compact frame (judged rows + the deepest rank); the public
    expressions over judge()'s full frame must give the same numbers, measure by measure."""
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    options = {"complete": seed % 3 == 0, "depth": 7 if seed % 4 == 0 else None}
    fast = run.ireval.evaluate(qrels, ALL_FAMILIES, shape="wide", **options)
    judged = run.ireval.judge(qrels, **options)
    full = judged.group_by("query_id").agg(
        m.expr().cast(pl.Float64) for m in fe.registry.resolve(ALL_FAMILIES)
    ).sort("query_id")
    assert_same(fast, full)


def test_every_compact_measure_is_checked_against_the_full_frame() -> None:
    """A measure that declares it reads no unjudged document must be in ALL_FAMILIES."""
    checked = {m.spec.name for m in fe.registry.resolve(ALL_FAMILIES)}
    compact = {s.name for s in fe.registry.specs("ranking") if not s.reads_unjudged}
    assert compact <= checked, sorted(compact - checked)


READ_SETS = {
    "only rel>=3": ["P(rel=3)@10", "AP(rel=3)", "NumRel(rel=3)"],
    "rel>=0": ["AP(rel=0)", "nDCG@5", "RR(rel=0)", "NumRelRet(rel=0)"],
    "no judgement": ["NumRet", "NumQ"],
    "gains only": ["nDCG", "nDCG(gain=exp)@3"],
}


@pytest.mark.parametrize("measures", list(READ_SETS.values()), ids=list(READ_SETS))
@pytest.mark.parametrize("seed", range(6))
def test_judgements_no_measure_reads_are_left_out_safely(seed: int, measures: list[str]) -> None:
    """evaluate() drops judgements below what every requested measure reads
    (Measure.lowest_read); the values must equal those over judge()'s full frame."""
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    options = {"complete": seed % 2 == 0, "depth": 5 if seed % 3 == 0 else None}
    fast = run.ireval.evaluate(qrels, measures, shape="wide", **options)
    full = run.ireval.judge(qrels, **options).group_by("query_id").agg(
        m.expr().cast(pl.Float64) for m in fe.registry.resolve(measures)
    ).sort("query_id")
    assert_same(fast, full)
