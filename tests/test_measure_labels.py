"""How results are labelled: canonical names, names as given, SQL-safe names, ir_measures objects."""

from __future__ import annotations

import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval.evaluate import safe_name

RUN = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": list("abcab"),
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "b"], "relevance": [1, 2, 1]})


def test_canonical_labels_collapse_names_of_one_measure() -> None:
    got = RUN.ireval.evaluate(QRELS, ["MAP", "map", "AP", "P.1,2"])
    assert got["metric"].unique(maintain_order=True).to_list() == ["AP", "P@1", "P@2"]


def test_labels_as_given_keep_each_name() -> None:
    got = RUN.ireval.evaluate(QRELS, ["MAP", "map", "AP", "P.1,2", "ndcg_cut.2"], labels="as_given",
                              shape="wide")
    assert got.columns == ["query_id", "MAP", "map", "AP", "P@1", "P@2", "ndcg_cut.2"]
    assert got["MAP"].equals(got["AP"], check_names=False) and got["map"].equals(got["AP"], check_names=False)
    canonical = RUN.ireval.evaluate(QRELS, ["nDCG@2"], shape="wide")["nDCG@2"]
    assert got["ndcg_cut.2"].equals(canonical, check_names=False)
    summary = RUN.ireval.summarize(QRELS, ["MAP", "map"], labels="as_given")
    assert summary["metric"].to_list() == ["MAP", "map"]


def test_safe_names_for_sql_engines() -> None:
    got = RUN.ireval.evaluate(QRELS, ["AP(rel=2)@100", "nDCG@10", "IPrec@0.1"], names="safe", shape="wide")
    assert got.columns == ["query_id", "AP_rel_2_at_100", "nDCG_at_10", "IPrec_at_0_1"]
    assert safe_name("nDCG(gain=exp)@5") == "nDCG_gain_exp_at_5"
    with pytest.raises(ValueError, match="labels must be one of"):
        RUN.ireval.evaluate(QRELS, ["AP"], labels="given")  # type: ignore[arg-type]


def test_summarize_wide() -> None:
    wide = RUN.ireval.summarize(QRELS, ["AP", "NumRet"], shape="wide")
    long = RUN.ireval.summarize(QRELS, ["AP", "NumRet"])
    assert wide.columns == ["AP", "NumRet", "num_q"]
    assert wide.row(0) == (long["value"][0], long["value"][1], 2)
    by = RUN.with_columns(system=pl.lit("s")).ireval.summarize(QRELS, ["AP"], by="system", shape="wide")
    assert by.columns == ["system", "AP", "num_q"]


def test_ir_measures_objects_are_accepted() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, RR, P, nDCG

    got = RUN.ireval.evaluate(QRELS, [nDCG @ 2, AP(rel=2), P @ 1, RR, nDCG(dcg="exp-log2") @ 2], shape="wide")
    want = RUN.ireval.evaluate(QRELS, ["nDCG@2", "AP(rel=2)", "P@1", "RR", "nDCG(gain=exp)@2"], shape="wide")
    assert got.equals(want)
    with pytest.raises(ValueError, match="has no parameter 'judged_only'"):
        RUN.ireval.evaluate(QRELS, [nDCG(judged_only=True)])
    with pytest.raises(TypeError, match="a measure must be a name"):
        RUN.ireval.evaluate(QRELS, [3.5])  # type: ignore[list-item]
    assert ir_measures is not None
