"""``ties=`` on judge / evaluate / summarize and ``ci=`` on summarize: the core's options that
reach the tie-aware values (frame_eval.compare.ties) and the t intervals."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import polars as pl
import pytest

import frame_eval as fe

RUN = pl.DataFrame({
    "system": ["a"] * 8 + ["b"] * 8,
    "query_id": (["q1"] * 4 + ["q2"] * 4) * 2,
    "doc_id": list("abcdabcd") * 2,
    "score": [2.0, 1.0, 1.0, 1.0, 3.0, 3.0, 2.0, 1.0, 4.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0],
})
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q2"], "doc_id": ["b", "d", "a", "c", "x"],
                      "relevance": [1, 2, 1, 2, 1]})
MEASURES = ["AP", "P@2", "RR", "nDCG@3", "R@2"]


def every_ordering(run: pl.DataFrame) -> list[pl.DataFrame]:
    """The run with its tied documents in every order (scores nudged apart within each group)."""
    groups = [list(g["doc_id"]) for _, g in run.group_by("score", maintain_order=True)]
    out = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        nudge = {d: -i * 1e-6 for order in orders for i, d in enumerate(order)}
        out.append(run.with_columns(pl.col("score") + pl.col("doc_id").replace_strict(nudge)))
    return out


@pytest.mark.parametrize(("system", "query"), [("a", "q1"), ("a", "q2"), ("b", "q2")])
def test_evaluate_ties_are_the_mean_max_and_min_over_orderings(system: str, query: str) -> None:
    run = RUN.filter((pl.col("system") == system) & (pl.col("query_id") == query)).drop("system")
    qrels = QRELS.filter(pl.col("query_id") == query)
    values = [run_.ireval.evaluate(qrels, MEASURES, shape="wide").row(0)[1:] for run_ in every_ordering(run)]
    for i, name in enumerate(MEASURES):
        column = [v[i] for v in values]
        expected = run.ireval.evaluate(qrels, [name], ties="expected")["value"].item()
        assert math.isclose(expected, float(sum(Fraction(c) for c in column) / len(column)), abs_tol=1e-12)
        assert run.ireval.evaluate(qrels, [name], ties="optimistic")["value"].item() == max(column)
        assert run.ireval.evaluate(qrels, [name], ties="pessimistic")["value"].item() == min(column)


def test_ties_through_every_front_end() -> None:
    long = RUN.ireval.evaluate(QRELS, MEASURES, by="system", ties="expected")
    assert long.columns == ["system", "query_id", "metric", "value", "straddling"]
    wide = RUN.lazy().ireval.evaluate(QRELS.lazy(), MEASURES, by="system", ties="expected", shape="wide")
    assert wide.collect().select(MEASURES).rows() == [
        tuple(long.filter((pl.col("system") == s) & (pl.col("query_id") == q))["value"])
        for s, q in [("a", "q1"), ("a", "q2"), ("b", "q1"), ("b", "q2")]
    ]
    summary = RUN.ireval.summarize(QRELS, MEASURES, by="system", ties="pessimistic", shape="wide")
    bound = RUN.ireval.judge(QRELS, by="system", ties="pessimistic")
    by_hand = bound.group_by("system", "query_id").agg(
        fe.ranking.ap(), fe.ranking.precision(2), fe.ranking.rr(), fe.ranking.ndcg(3), fe.ranking.recall(2)
    ).group_by("system").agg(pl.exclude("query_id").mean()).sort("system")
    for name in MEASURES:
        assert summary[name].to_list() == pytest.approx(by_hand[name].to_list(), abs=1e-15)
    with pytest.raises(ValueError, match="use evaluate\\(ties='expected'\\)"):
        RUN.ireval.judge(QRELS, by="system", ties="expected")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="other parameters"):
        RUN.ireval.evaluate(QRELS, ["nDCG(gain=exp)"], by="system", ties="expected")


def test_optimistic_judge_keeps_depth_after_reordering() -> None:
    run = RUN.filter(pl.col("system") == "a").drop("system")
    top = run.ireval.judge(QRELS, ties="optimistic", depth=2).filter(pl.col("query_id") == "q1")
    assert top.select("doc_id", "rank").rows() == [("a", 1), ("d", 2), ("b", None)]


def test_summarize_ci_is_scipys_t_interval() -> None:
    stats = pytest.importorskip("scipy.stats")
    checked = 0
    summary = RUN.lazy().ireval.summarize(QRELS.lazy(), ["AP", "P@2", "NumRet"], by="system", ci=0.9)
    assert isinstance(summary, pl.LazyFrame)  # nothing collected yet
    got = summary.collect()
    per_query = RUN.ireval.evaluate(QRELS, ["AP", "P@2"], by="system")
    for row in got.filter(pl.col("metric") != "NumRet").iter_rows(named=True):
        values = per_query.filter((pl.col("system") == row["system"]) & (pl.col("metric") == row["metric"]))
        x = values["value"].to_numpy()
        if stats.sem(x) == 0:  # no spread: SciPy gives nan, the interval is the mean itself
            assert row["ci_low"] == row["ci_high"] == row["value"]
            continue
        low, high = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
        assert row["ci_low"] == pytest.approx(low, abs=1e-12)
        assert row["ci_high"] == pytest.approx(high, abs=1e-12)
        checked += 1
    assert checked >= 2
    assert got.filter(pl.col("metric") == "NumRet")["ci_low"].is_null().all()
    with pytest.raises(ValueError, match="confidence level"):
        RUN.ireval.summarize(QRELS, ["AP"], by="system", ci=95)


def test_summarize_bootstrap_ci_is_the_intervals_bootstrap() -> None:
    pytest.importorskip("numpy")
    from frame_eval.compare import intervals

    options = {"level": 0.9, "n_resamples": 500, "seed": 7}
    summary = RUN.lazy().ireval.summarize(
        QRELS.lazy(), ["AP", "nDCG@3", "NumRet"], by="system", ci=options["level"], ci_method="bootstrap",
        n_resamples=options["n_resamples"], seed=options["seed"],
    )
    assert isinstance(summary, pl.LazyFrame)
    got = summary.collect()
    want = intervals(RUN.ireval.evaluate(QRELS, ["AP", "nDCG@3"], by="system"), by="system",
                     method="bootstrap", **options)
    joined = got.join(want, on=["system", "metric"], suffix="_want")
    assert joined.height == 4
    assert joined["ci_low"].to_list() == joined["ci_low_want"].to_list()
    assert joined["ci_high"].to_list() == joined["ci_high_want"].to_list()
    assert got.filter(pl.col("metric") == "NumRet")["ci_high"].is_null().all()
    with pytest.raises(ValueError, match="ci_method must be one of"):
        RUN.ireval.summarize(QRELS, ["AP"], by="system", ci=0.9, ci_method="bca")  # type: ignore[arg-type]
