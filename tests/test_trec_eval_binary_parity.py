"""Every per-query value and every summary equals the trec_eval 10.0 binary's, bit for bit.

The binary is built from ../shared/trec_eval and prints full precision (see
tests/oracles); every measure family of trec_eval's all_trec and more, with
parameters (set_F.0.5, Rprec_mult.0.35, 11pt_avg..25,.5,.75, rbp.p=0.5, gain
tables for ndcg, ...); random runs and qrels with ties, single-precision near-ties,
graded and negative judgements, under -c, -M, -l, -J and -N. Skipped when there is
no ../shared or no C compiler.

trec_eval 10.0 itself exits on two kinds of good input (see the README):
a qrels query absent from the run without -c, and a query whose judgements
are all negative. The cases drop those for the binary's sake.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from oracles.trec_eval import TrecEval, write_qrels, write_run
from test_pytrec_eval_parity import random_case

import frame_eval as fe

CUTS = "1,3,5,10,50"
TREC_ARGS = ["-m", "map", "-m", f"map_cut.{CUTS}", "-m", "ndcg", "-m", f"ndcg_cut.{CUTS}", "-m", f"P.{CUTS}",
             "-m", f"recall.{CUTS}", "-m", "recip_rank", "-m", "Rprec", "-m", "success.1,5,10",
             "-m", "iprec_at_recall", "-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret", "-m", "num_q",
             # families added with issue 11
             "-m", "bpref", "-m", "gm_map", "-m", "gm_bpref", "-m", "infAP", "-m", "num_nonrel_judged_ret",
             "-m", "set_P", "-m", "set_recall", "-m", "set_relative_P", "-m", "set_map", "-m", "set_F",
             "-m", "set_F.0.5", "-m", "utility", "-m", "relative_P.1,5,10,50", "-m", "Rprec_mult",
             "-m", "Rprec_mult.0.35,5.0", "-m", "11pt_avg", "-m", "11pt_avg..25,.5,.75", "-m", "binG",
             "-m", "G", "-m", f"unj.{CUTS}", "-m", "rbp", "-m", "rbp.p=0.5", "-m", "rbp_resid",
             "-m", "ndcg.1=3,2=9", "-m", "ndcg.0=1,1=3,3=2", "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_rel",
             "-m", "Rndcg"]
# Without -c only: for a qrels query missing from the run, trec_eval 10.0 scores a one-document
# stand-in ranking and zeroes utility and rbp_resid afterwards by their default printed names, so
# with parameters they keep the stand-in's value (utility: b; rbp_resid: 1); frame_eval scores
# a query that retrieved nothing (see the README)
TREC_ARGS_UNLESS_COMPLETE = ["-m", "utility.2,-1,0.5,0", "-m", "utility.1,-1,0.5,0.25",
                             "-m", "rbp_resid.p=0.7"]
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}  # trec_eval prints no per-query line for these


def options_for(seed: int) -> tuple[list[str], dict[str, object], int]:
    """trec_eval flags, the same as frame_eval keywords, and the relevance level."""
    flags: list[str] = []
    options: dict[str, object] = {}
    rel = 1
    if seed % 3 == 0:
        flags.append("-c")
        options["complete"] = True
    if seed % 4 == 1:
        flags += ["-M", "7"]
        options["depth"] = 7
    if seed % 5 == 2:
        flags += ["-l", "2"]
        rel = 2
    if seed % 7 == 3:
        flags.append("-J")
        options["judged_only"] = True
    if seed % 2 == 0:
        flags += ["-N", "500"]
        options["collection_size"] = 500
    return flags, options, rel


def binary_safe(run: pl.DataFrame, qrels: pl.DataFrame, complete: bool) -> pl.DataFrame:
    """The qrels trec_eval 10.0 accepts: no query judged only negatively; without -c,
    only queries the run has."""
    positive = qrels.group_by("query_id").agg((pl.col("relevance") >= 0).any().alias("ok"))
    qrels = qrels.join(positive.filter("ok").select("query_id"), on="query_id", how="semi")
    if not complete:
        qrels = qrels.join(run.select("query_id").unique(), on="query_id", how="semi")
    return qrels


@pytest.mark.parametrize("seed", range(30))
def test_matches_trec_eval_bit_for_bit(trec_eval_binary: TrecEval, tmp_path: Path, seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    flags, options, rel = options_for(seed)
    qrels = binary_safe(run, qrels, bool(options.get("complete")))
    if qrels.height == 0 or run.height == 0:
        pytest.skip("no query left that trec_eval 10.0 accepts")
    write_run(run, tmp_path / "run.txt")
    write_qrels(qrels, tmp_path / "qrels.txt")
    args = TREC_ARGS if options.get("complete") else TREC_ARGS + TREC_ARGS_UNLESS_COMPLETE
    expected = trec_eval_binary.values(tmp_path / "qrels.txt", tmp_path / "run.txt", "-q", *flags, *args)
    names = sorted({name for name, _ in expected})
    measures = [m for name in names for m in fe.parse_measures(name)]
    assert len(measures) == len(names)
    # -l, -J and -N as keywords; labels stay those of the names given
    per_query = run.ireval.evaluate(qrels, measures, shape="wide", rel=rel, **options)
    summary = run.ireval.summarize(qrels, measures, shape="wide", rel=rel, **options)
    queries = {str(q) for q in per_query["query_id"]}
    assert queries == {q for _, q in expected if q != "all"}
    per_query_names = {name for name, q in expected if q != "all"}
    assert per_query_names == set(names) - SUMMARY_ONLY
    undefined: set[str] = set()
    for row in per_query.iter_rows(named=True):
        for name, m in zip(names, measures, strict=True):
            if name in per_query_names:
                query = str(row["query_id"])
                value = expected[(name, query)]
                if math.isnan(value):
                    # under -J, a query left with nothing retrieved: trec_eval 10.0 divides
                    # 0 by 0 where frame_eval gives 0 (as for a query that retrieved nothing)
                    assert options.get("judged_only") and row[m.name] == 0, f"{name} query {query}"
                    undefined.add(name)
                    continue
                assert row[m.name] == value, f"{name} query {query}"
    for name, m in zip(names, measures, strict=True):
        if name == "num_rel" and options.get("complete") and rel != 1:
            # trec_eval 10.0 recounts num_rel's summary under -c from the qrels with
            # judgement > 0, ignoring -l; frame_eval sums the per-query values it printed
            continue
        if name in undefined:
            continue
        assert summary[m.name].item() == expected[(name, "all")], f"{name} all"
