"""Ranking precision-recall curves (``ranking_curve``, ``pr_curve(qrels)``) against trec_eval 10.0.

Per rank, precision and recall at rank k are the binary's ``P_k`` and ``recall_k``; the
interpolated curve is its ``iprec_at_recall`` per query and its ``all`` line averaged,
bit for bit, on random runs under -c, -M, -l and -J.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from oracles.trec_eval import TrecEval, write_qrels, write_run
from test_pytrec_eval_parity import random_case
from test_trec_eval_binary_parity import binary_safe, options_for

LEVELS = ["0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00"]


def _case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, object], list[str], int]:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2))
    flags, options, rel = options_for(seed)
    options.pop("collection_size", None)
    if "-N" in flags:  # no measure here reads the collection size
        del flags[flags.index("-N"):flags.index("-N") + 2]
    return run, binary_safe(run, qrels, bool(options.get("complete"))), options, flags, rel


@pytest.mark.parametrize("seed", range(12))
def test_per_rank_points_are_trec_evals_precision_and_recall(
    trec_eval_binary: TrecEval, tmp_path: Path, seed: int
) -> None:
    run, qrels, options, flags, rel = _case(seed)
    if qrels.height == 0 or run.height == 0:
        pytest.skip("no query left that trec_eval 10.0 accepts")
    write_run(run, tmp_path / "run.txt")
    write_qrels(qrels, tmp_path / "qrels.txt")
    cuts = ",".join(str(k) for k in range(1, 61))
    expected = trec_eval_binary.values(tmp_path / "qrels.txt", tmp_path / "run.txt", "-q", *flags,
                                       "-m", f"P.{cuts}", "-m", f"recall.{cuts}")
    curve = run.ireval.ranking_curve(qrels, rel=rel, **options)
    assert curve.columns == ["query_id", "rank", "doc_id", "relevant", "precision", "recall"]
    assert curve.height > 0
    judged = run.ireval.judge(qrels, **options).filter(pl.col("rank").is_not_null())
    assert curve.select("query_id", "rank", "doc_id").equals(
        judged.select("query_id", pl.col("rank").cast(pl.Int64), "doc_id"))
    for q, k, relevant, precision, recall in curve.select(
            "query_id", "rank", "relevant", "precision", "recall").iter_rows():
        assert precision == expected[(f"P_{k}", str(q))], (q, k)
        assert recall == expected[(f"recall_{k}", str(q))], (q, k)
        before = expected[(f"P_{k - 1}", str(q))] * (k - 1) if k > 1 else 0.0
        assert relevant == (round(precision * k - before) == 1), (q, k)


@pytest.mark.parametrize("seed", range(12))
def test_interpolated_curve_is_trec_evals_iprec_at_recall(
    trec_eval_binary: TrecEval, tmp_path: Path, seed: int
) -> None:
    run, qrels, options, flags, rel = _case(seed)
    if qrels.height == 0 or run.height == 0:
        pytest.skip("no query left that trec_eval 10.0 accepts")
    write_run(run, tmp_path / "run.txt")
    write_qrels(qrels, tmp_path / "qrels.txt")
    expected = trec_eval_binary.values(tmp_path / "qrels.txt", tmp_path / "run.txt", "-q", *flags,
                                       "-m", "iprec_at_recall")
    per_query = run.ireval.pr_curve(qrels, rel=rel, interpolated=True, **options)
    assert per_query.columns == ["query_id", "recall", "precision"]
    queries = {q for _, q in expected if q != "all"}
    assert {str(q) for q in per_query["query_id"]} == queries
    assert per_query.height == 11 * len(queries)
    undefined = False
    for q, level, precision in per_query.iter_rows():
        value = expected[(f"iprec_at_recall_{level:.2f}", str(q))]
        if math.isnan(value):  # -J left the query nothing: trec_eval 10.0 divides 0 by 0 (see the README)
            assert options.get("judged_only") and precision == 0.0
            undefined = True
            continue
        assert precision == value, (q, level)
    averaged = run.ireval.pr_curve(qrels, rel=rel, interpolated=True, average=True, **options)
    assert averaged["recall"].to_list() == [float(x) for x in LEVELS]
    assert averaged["num_q"].to_list() == [len(queries)] * 11
    if not undefined:
        assert averaged["precision"].to_list() == [expected[(f"iprec_at_recall_{x}", "all")] for x in LEVELS]
    summary = run.ireval.summarize(qrels, [f"IPrec(rel={rel})@{x}" for x in LEVELS], **options)
    assert averaged["precision"].to_list() == summary["value"].to_list()


def test_hand_computed_curve_with_systems_and_levels() -> None:
    # system a: relevant at ranks 1, 3 of R = 3 (one relevant never retrieved); system b: none found
    run = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 2, "query_id": ["q"] * 6,
                        "doc_id": ["d1", "d2", "d3", "d4", "d2", "d4"],
                        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["d1", "d3", "d5", "d2"],
                          "relevance": [1, 2, 1, 0]})
    points = run.ireval.pr_curve(qrels, by="system")
    assert points.rows() == [
        ("a", "q", 1, "d1", True, 1.0, 1 / 3), ("a", "q", 2, "d2", False, 0.5, 1 / 3),
        ("a", "q", 3, "d3", True, 2 / 3, 2 / 3), ("a", "q", 4, "d4", False, 0.5, 2 / 3),
        ("b", "q", 1, "d2", False, 0.0, 0.0), ("b", "q", 2, "d4", False, 0.0, 0.0),
    ]
    # levels 0.5 (2 relevant needed: best precision from the 2nd on, 2/3) and 1.0 (3 needed: never, 0)
    curve = run.ireval.pr_curve(qrels, by="system", interpolated=True, levels=[1.0, 0.5, 0.5])
    assert curve.rows() == [("a", "q", 0.5, 2 / 3), ("a", "q", 1.0, 0.0), ("b", "q", 0.5, 0.0),
                            ("b", "q", 1.0, 0.0)]
    # rel=2: only d3 is relevant (R = 1)
    strict = run.ireval.ranking_curve(qrels, by="system", rel=2).filter(pl.col("system") == "a")
    assert strict["recall"].to_list() == [0.0, 0.0, 1.0, 1.0]
    # rounding="ceil": level 0.5 of R = 3 needs ceil(1.5) = 2 relevant; trec10 rounds 1.5 to 2 too,
    # while trec9 truncates 1.5 + 0.9 to 2: all 2/3; level 0.4 needs 2 (ceil) or 1 (trec10)
    ceil = run.ireval.ranking_curve(qrels, by="system", interpolated=True, levels=[0.4], rounding="ceil")
    trec = run.ireval.ranking_curve(qrels, by="system", interpolated=True, levels=[0.4])
    assert ceil["precision"].to_list() == [2 / 3, 0.0]
    assert trec["precision"].to_list() == [1.0, 0.0]


def test_complete_keeps_queries_that_retrieved_nothing_in_the_interpolated_curve() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 1]})
    assert run.ireval.ranking_curve(qrels, complete=True)["query_id"].unique().to_list() == ["q1"]
    averaged = run.ireval.ranking_curve(qrels, complete=True, interpolated=True, average=True)
    assert averaged["precision"].to_list() == [0.25] * 11  # (0.5 + 0) / 2 at every level
    assert averaged["num_q"].to_list() == [2] * 11


def test_lazy_pandas_and_row_order_give_the_same_frames() -> None:
    run, qrels = random_case(5, integer_ids=False, near_ties=False)
    for kwargs in ({}, {"interpolated": True}, {"interpolated": True, "average": True}):
        eager = run.ireval.pr_curve(qrels, **kwargs)
        lazy = run.lazy().ireval.pr_curve(qrels.lazy(), **kwargs)
        assert isinstance(lazy, pl.LazyFrame)
        assert lazy.collect().equals(eager)
        assert lazy.collect(engine="streaming").equals(eager)
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=3)
        shuffled_qrels = qrels.sample(fraction=1.0, shuffle=True, seed=4)
        assert shuffled.ireval.pr_curve(shuffled_qrels, **kwargs).equals(eager)
        pd = pytest.importorskip("pandas")
        from_pandas = pd.DataFrame(run.to_pandas()).ireval.pr_curve(qrels.to_pandas(), **kwargs)
        assert pl.from_pandas(from_pandas).equals(eager)


def test_classification_pr_curve_is_unchanged_and_options_do_not_mix() -> None:
    preds = pl.DataFrame({"label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
    assert preds.ireval.pr_curve("label", "prob").equals(preds.ireval.roc("label", "prob"))
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(TypeError, match="ranking options apply when the first argument is a qrels frame"):
        preds.ireval.pr_curve("label", "prob", interpolated=True)
    with pytest.raises(TypeError, match="take no positive="):
        run.ireval.pr_curve(qrels, positive=1)
    with pytest.raises(ValueError, match="pass interpolated=True too"):
        run.ireval.pr_curve(qrels, average=True)
    with pytest.raises(ValueError, match="levels= are the recall levels"):
        run.ireval.pr_curve(qrels, levels=[0.5])
    with pytest.raises(ValueError, match=r"recall levels from 0 to 1, got 1\.5"):
        run.ireval.pr_curve(qrels, interpolated=True, levels=[0.5, 1.5])
    with pytest.raises(TypeError, match="non-empty sequence"):
        run.ireval.pr_curve(qrels, interpolated=True, levels=[])
    with pytest.raises(ValueError, match="rounding"):
        run.ireval.pr_curve(qrels, rounding="floor")
    with pytest.raises(ValueError, match="rel"):
        run.ireval.pr_curve(qrels, rel=-1)
    with pytest.raises(ValueError, match="clashes with an output column"):
        run.with_columns(precision=pl.lit("x")).ireval.pr_curve(qrels, by="precision")
    bad = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="doc_id"):
        bad.ireval.pr_curve(qrels)
