"""The ranking API: namespaces, shapes, laziness, pandas parity, expressions, parsing."""

from __future__ import annotations

import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal, assert_series_equal

import frame_eval as fe

RUNS = pl.DataFrame(
    {
        "system": ["bm25"] * 5 + ["dense"] * 4,
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q1", "q1", "q2", "q3"],
        "doc_id": ["a", "b", "c", "a", "d", "c", "a", "d", "x"],
        "score": [3.0, 2.0, 1.0, 5.0, 5.0, 0.9, 0.8, 0.7, 1.0],
        "rank": [9, 9, 9, 9, 9, 9, 9, 9, 9],  # ignored, as trec_eval does
    }
)
QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q4"],
        "doc_id": ["a", "c", "z", "a", "d", "a"],
        "relevance": [2, 1, 1, 0, 3, 1],
    }
)


def test_evaluate_long_and_wide_agree() -> None:
    long = RUNS.ireval.evaluate(QRELS, ["AP", "nDCG@10", "P@5", "RR"], by="system")
    assert long.columns == ["system", "query_id", "metric", "value"]
    assert long.schema["value"] == pl.Float64
    wide = RUNS.ireval.evaluate(QRELS, ["AP", "nDCG@10", "P@5", "RR"], by="system", shape="wide")
    assert wide.columns == ["system", "query_id", "AP", "nDCG@10", "P@5", "RR"]
    back = wide.unpivot(index=["system", "query_id"], variable_name="metric", value_name="value")
    assert_frame_equal(long.sort("system", "query_id", "metric"), back.sort("system", "query_id", "metric"))
    # q3 (run only) and q4 (qrels only) are not evaluated by default
    assert set(wide["query_id"]) == {"q1", "q2"}


def test_values_by_hand() -> None:
    wide = RUNS.ireval.evaluate(QRELS, ["AP", "RR", "P@2", "R@2", "NumRel", "NumRelRet"],
                                by="system", shape="wide")
    row = wide.filter(system="bm25", query_id="q1").row(0, named=True)
    # ranking a(2) b(-) c(1); relevant a, c, z
    assert row["AP"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert row["RR"] == 1.0 and row["P@2"] == 0.5 and row["R@2"] == pytest.approx(1 / 3)
    assert (row["NumRel"], row["NumRelRet"]) == (3.0, 2.0)
    # q2 of bm25: a and d tie at 5.0; doc_id descending puts d first
    row = wide.filter(system="bm25", query_id="q2").row(0, named=True)
    assert row["RR"] == 1.0 and row["AP"] == 1.0


def test_ndcg_gain_and_base() -> None:
    judged = pl.DataFrame({"rank": [1, 2, 3, None], "relevance": [1, 3, 0, 2]})
    dcg = 1 / math.log2(2) + 3 / math.log2(3)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert judged.select(fe.ranking.ndcg()).item() == pytest.approx(dcg / idcg, abs=1e-12)
    exp_dcg = 1 / math.log2(2) + 7 / math.log2(3)
    exp_idcg = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    got = judged.select(fe.ranking.ndcg(gain="exp")).item()
    assert got == pytest.approx(exp_dcg / exp_idcg, abs=1e-12)
    assert judged.select(fe.ranking.ndcg(2, base=10)).item() == pytest.approx(
        (1 + 3 / math.log10(3) * math.log10(2)) / (3 + 2 / math.log10(3) * math.log10(2)), abs=1e-12
    )
    assert fe.ranking.ndcg(10, gain="exp").meta.output_name() == "nDCG(gain=exp)@10"


def test_summarize_means_and_sums() -> None:
    per_query = RUNS.ireval.evaluate(QRELS, ["AP", "NumRel", "NumQ"], by="system", shape="wide")
    summary = RUNS.ireval.summarize(QRELS, ["AP", "NumRel", "NumQ"], by="system")
    assert summary.columns == ["system", "metric", "value", "num_q"]
    for system in ("bm25", "dense"):
        mine = per_query.filter(system=system)
        got = dict(summary.filter(system=system).select("metric", "value").iter_rows())
        assert got["AP"] == pytest.approx(mine["AP"].mean())
        assert got["NumRel"] == mine["NumRel"].sum()
        assert got["NumQ"] == mine.height == summary.filter(system=system)["num_q"][0]


def test_complete_scores_missing_queries_zero_per_system() -> None:
    wide = RUNS.ireval.evaluate(QRELS, ["AP", "NumRel", "NumRet"], by="system", complete=True, shape="wide")
    assert set(wide.filter(system="dense")["query_id"]) == {"q1", "q2", "q4"}
    q4 = wide.filter(system="dense", query_id="q4").row(0, named=True)
    assert (q4["AP"], q4["NumRel"], q4["NumRet"]) == (0.0, 1.0, 0.0)


def test_depth_cuts_rankings() -> None:
    wide = RUNS.ireval.evaluate(QRELS, ["NumRet", "AP"], by="system", depth=1, shape="wide")
    assert wide["NumRet"].to_list() == [1.0, 1.0, 1.0, 1.0]


def test_lazy_in_lazy_out_nothing_collected() -> None:
    calls = []

    def spy(df: pl.DataFrame) -> pl.DataFrame:
        calls.append(df.height)
        return df

    lazy = RUNS.lazy().map_batches(spy, schema=RUNS.schema)
    for result in (
        lazy.ireval.evaluate(QRELS, ["AP"], by="system"),
        lazy.ireval.summarize(QRELS.lazy(), ["AP"], by="system"),
        lazy.ireval.judge(QRELS, by="system"),
    ):
        assert isinstance(result, pl.LazyFrame)
    assert calls == []
    eager = RUNS.ireval.evaluate(QRELS, ["AP", "nDCG@10"], by="system")
    assert_frame_equal(lazy.ireval.evaluate(QRELS, ["AP", "nDCG@10"], by="system").collect(), eager)
    assert calls


def test_pandas_same_rows_and_values_inputs_unchanged() -> None:
    pd = pytest.importorskip("pandas")
    runs_pd, qrels_pd = RUNS.to_pandas(), QRELS.to_pandas()
    runs_copy, qrels_copy = runs_pd.copy(), qrels_pd.copy()
    for method, kwargs in (("evaluate", {}), ("evaluate", {"shape": "wide"}), ("summarize", {})):
        got = getattr(runs_pd.ireval, method)(qrels_pd, ["AP", "nDCG@10", "P@5"], by="system", **kwargs)
        assert isinstance(got, pd.DataFrame)
        want = getattr(RUNS.ireval, method)(QRELS, ["AP", "nDCG@10", "P@5"], by="system", **kwargs)
        assert_frame_equal(pl.from_pandas(got), want, check_dtypes=False)
    judged = runs_pd.ireval.judge(qrels_pd, by="system")
    assert len(judged) == RUNS.ireval.judge(QRELS, by="system").height
    pd.testing.assert_frame_equal(runs_pd, runs_copy)
    pd.testing.assert_frame_equal(qrels_pd, qrels_copy)


def test_polars_inputs_unchanged() -> None:
    runs, qrels = RUNS.clone(), QRELS.clone()
    RUNS.ireval.evaluate(QRELS, ["AP"], by="system", duplicates="max")
    assert_frame_equal(RUNS, runs)
    assert_frame_equal(QRELS, qrels)


def test_expressions_compose_in_group_by_select_and_over() -> None:
    judged = RUNS.ireval.judge(QRELS, by="system")
    assert judged.columns[:6] == ["system", "query_id", "doc_id", "rank", "relevance", "score"]
    agg = judged.group_by("system", "query_id").agg(
        fe.ranking.ap(), fe.ranking.ndcg(k=10), fe.ranking.precision(k=5), fe.ranking.rr(),
        (fe.ranking.ap() * 2).alias("twice_ap"),
    ).sort("system", "query_id")
    want = RUNS.ireval.evaluate(QRELS, ["AP", "nDCG@10", "P@5", "RR"], by="system", shape="wide")
    assert_frame_equal(agg.drop("twice_ap"), want)
    assert_series_equal(agg["twice_ap"], (want["AP"] * 2).alias("twice_ap"))
    over = judged.with_columns(fe.ranking.ap().over("system", "query_id").alias("ap_q"))
    first = over.group_by("system", "query_id").agg(pl.col("ap_q").first()).sort("system", "query_id")
    assert first["ap_q"].to_list() == want["AP"].to_list()
    one = judged.filter(system="bm25", query_id="q1").select(fe.ranking.ap()).item()
    assert one == want.filter(system="bm25", query_id="q1")["AP"].item()


def test_judge_rows() -> None:
    judged = RUNS.filter(system="bm25").ireval.judge(QRELS)
    rows = judged.select("query_id", "doc_id", "rank", "relevance").rows()
    assert rows == [
        ("q1", "a", 1, 2), ("q1", "b", 2, None), ("q1", "c", 3, 1), ("q1", "z", None, 1),
        ("q2", "d", 1, 3), ("q2", "a", 2, 0),
    ]
    assert judged.columns == ["query_id", "doc_id", "rank", "relevance", "score", "system"]


def test_integer_ids_and_custom_column_names() -> None:
    run = pl.DataFrame({"qid": [1, 1, 1], "docno": [9, 10, 11], "sim": [1.0, 1.0, 0.5]})
    qrels = pl.DataFrame({"qid": [1], "docno": [9], "grade": [1]}, schema_overrides={"qid": pl.Int32})
    got = run.ireval.evaluate(qrels, ["RR"], query_id="qid", doc_id="docno", score="sim", relevance="grade")
    # tie between 9 and 10 is broken on the text: "9" > "10", so 9 ranks first
    assert got.rows() == [(1, "RR", 1.0)]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("AP", ["AP"]), ("map", ["AP"]), ("MAP", ["AP"]), ("ap(rel=2)@10", ["AP(rel=2)@10"]),
        ("map_cut.5,10", ["AP@5", "AP@10"]), ("ndcg_cut_10", ["nDCG@10"]), ("P.5", ["P@5"]),
        ("P_5", ["P@5"]), ("recall.100", ["R@100"]), ("recip_rank", ["RR"]), ("RR@10", ["RR@10"]),
        ("success.1", ["Success@1"]), ("nDCG(gain='exp')@20", ["nDCG(gain=exp)@20"]),
        ("num_rel_ret", ["NumRelRet"]), ("AP(rel=1)", ["AP"]), ("Rprec", ["Rprec"]),
        ("R-prec", ["Rprec"]), ("R-PREC", ["Rprec"]), ("r-prec(rel=2)", ["Rprec(rel=2)"]),
        ("nDCG@10", ["nDCG@10"]), ("P.10", ["P@10"]),
    ],
)
def test_parser(text: str, names: list[str]) -> None:
    assert [m.name for m in fe.parse_measures(text)] == names


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nDGC@10", "closest known names: nDCG"),
        ("P", "needs a cutoff"),
        ("Rprec@5", "takes no cutoff"),
        ("AP(rel=two)", "rel='two' is not a valid int"),
        ("AP(level=2)", "unknown parameter 'level'"),
        ("nDCG(gain=square)", "not one of ['linear', 'exp']"),
        ("ndcg_cut", "needs a cutoff"),
        ("P@0", "positive integer"),
        ("__import__('os')", "cannot read"),
    ],
)
def test_parser_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        fe.parse_measures(text)


@pytest.mark.parametrize("pandas_first", [False, True])
def test_pandas_accessor_either_import_order_and_no_pandas_import(pandas_first: bool) -> None:
    pytest.importorskip("pandas")
    import subprocess
    import sys

    first = "import pandas as pd\nimport frame_eval" if pandas_first else "import frame_eval"
    code = "\n".join([
        first,
        "import sys",
        f"assert ('pandas' in sys.modules) == {pandas_first}",  # frame_eval alone never imports pandas
        "import pandas as pd",
        "df = pd.DataFrame({'query_id': ['q'], 'doc_id': ['d'], 'score': [1.0]})",
        "qrels = pd.DataFrame({'query_id': ['q'], 'doc_id': ['d'], 'relevance': [1]})",
        "print(df.ireval.evaluate(qrels, ['AP'])['value'].tolist())",
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[1.0]"


def test_ndcg_with_a_base_below_one_is_zero_not_a_ratio_of_negatives() -> None:
    # log_base(rank + 1) is negative for a base below 1, so the ideal DCG is too: nDCG is 0 then,
    # as for an ideal DCG of 0 (the ideal DCG is evaluated once only for bases above 1)
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "d"], "relevance": [2, 1]})
    names = ["nDCG(base=0.5)", "nDCG(base=0.5)@2", "nDCG(base=0.5,ideal=retrieved)@2",
             "nDCG(base=0.5,gain=exp)"]
    for frame, judgements in ((run, qrels), (run.lazy(), qrels.lazy())):
        got = frame.ireval.evaluate(judgements, names, shape="wide")
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got.row(0)[1:] == (0.0, 0.0, 0.0, 0.0)
    # a base above 1 divides as usual
    got = run.ireval.evaluate(qrels, ["nDCG(base=4)@2"], shape="wide").item(0, 1)
    discount = math.log2(3) / math.log2(4)
    assert got == pytest.approx((2 / discount) / (2 / 0.5 + 1 / discount), abs=1e-12)  # log_4(2) = 0.5
