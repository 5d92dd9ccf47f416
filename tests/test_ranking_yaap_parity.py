"""yaap (trec_eval's "yet another average precision", not in all_trec) equals the trec_eval 10.0
binary bit for bit, per query and summarised, on the random cases of the binary parity test,
under -c, -M, -l and -J.

ndcg_p is not here: its source file (src/m_ndcg_p.c) is not in trec_eval 10.0's measure table
(src/measures.c), so the binary rejects ``-m ndcg_p`` ("illegal measure") and nothing pins it.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from oracles.trec_eval import TrecEval, write_qrels, write_run
from test_pytrec_eval_parity import random_case
from test_trec_eval_binary_parity import binary_safe, options_for


@pytest.mark.parametrize("seed", range(30))
def test_yaap_matches_trec_eval_bit_for_bit(trec_eval_binary: TrecEval, tmp_path: Path, seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    flags, options, rel = options_for(seed)
    qrels = binary_safe(run, qrels, bool(options.get("complete")))
    if qrels.height == 0 or run.height == 0:
        pytest.skip("no query left that trec_eval 10.0 accepts")
    write_run(run, tmp_path / "run.txt")
    write_qrels(qrels, tmp_path / "qrels.txt")
    files = (tmp_path / "qrels.txt", tmp_path / "run.txt")
    expected = trec_eval_binary.values(*files, "-q", *flags, "-m", "yaap")
    per_query = run.ireval.evaluate(qrels, ["yaap"], shape="wide", rel=rel, **options)
    assert {str(q) for q in per_query["query_id"]} == {q for _, q in expected if q != "all"}
    for query, value in per_query.iter_rows():
        assert not math.isnan(value)
        assert value == expected[("yaap", str(query))], query
    summary = run.ireval.summarize(qrels, ["yaap"], rel=rel, **options)
    assert summary["value"].item() == expected[("yaap", "all")]


def test_yaap_by_hand() -> None:
    run = pl.DataFrame({"query_id": ["a"] * 3 + ["b"] * 2 + ["c"], "doc_id": ["x", "y", "z", "x", "y", "x"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "a", "a", "b", "b", "c"],
                          "doc_id": ["x", "z", "w", "y", "w", "x"], "relevance": [1, 2, 1, 0, 1, 0]})
    values = dict(run.ireval.evaluate(qrels, ["yaap"]).select("query_id", "value").iter_rows())
    s = 1 / 1 + 2 / 3  # a: relevant at ranks 1 and 3 of R = 3
    assert values == {"a": math.log((1 + s) / (1 + 3 - s)), "b": math.log(1 / (1 + 1)), "c": 0.0}
