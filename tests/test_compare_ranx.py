"""ranx's compare() as an oracle: the same means, t-test p-values, decisions and wins/ties/losses."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy", reason="compare() needs the [stats] extra")
ranx = pytest.importorskip("ranx", reason="ranx (in the [test] extra) is the oracle here")

import frame_eval as fe  # noqa: E402


def random_runs(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three systems, 30 queries of 20 documents; distinct scores (ranx and trec_eval break ties apart)."""
    rng = np.random.default_rng(seed)
    runs, judged = [], []
    for q in range(30):
        relevant = {f"d{d}": int(rng.integers(1, 3)) for d in range(20) if rng.random() < 0.3}
        judged += [(f"q{q}", doc, grade) for doc, grade in relevant.items()]
        for system, boost in (("a", 0.0), ("b", 0.05), ("c", 0.15)):
            scores = rng.random(20) + boost * np.array([f"d{d}" in relevant for d in range(20)])
            runs += [(system, f"q{q}", f"d{d}", float(s)) for d, s in enumerate(scores)]
    return (pl.DataFrame(runs, schema=["system", "query_id", "doc_id", "score"], orient="row"),
            pl.DataFrame(judged, schema=["query_id", "doc_id", "relevance"], orient="row"))


def nested(frame: pl.DataFrame) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for query, doc, value in frame.iter_rows():
        out.setdefault(query, {})[doc] = value
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_means_p_values_and_decisions_as_ranx(seed: int) -> None:
    run, qrels = random_runs(seed)
    ranx_runs = [ranx.Run(nested(run.filter(pl.col("system") == s).drop("system")), name=s) for s in "abc"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = ranx.compare(ranx.Qrels(nested(qrels)), runs=ranx_runs, metrics=["map", "ndcg@10"],
                              max_p=0.05, stat_test="student")
    names = {"AP": "map", "nDCG@10": "ndcg@10"}
    per_query = run.ireval.evaluate(qrels, list(names), by="system")
    result = fe.compare.compare(per_query, None, tests="t")
    decisions = []
    for row in result.iter_rows(named=True):
        theirs = report.comparisons[frozenset((row["system"], row["baseline"]))][names[row["metric"]]]
        assert abs(row["mean"] - report.results[row["system"]][names[row["metric"]]]) < 1e-9
        assert abs(row["baseline_mean"] - report.results[row["baseline"]][names[row["metric"]]]) < 1e-9
        assert abs(row["p_value"] - theirs["p_value"]) < 1e-9
        assert (row["p_value"] < 0.05) == bool(theirs["significant"])
        wtl = report.win_tie_loss[(row["system"], row["baseline"])][names[row["metric"]]]
        assert (row["wins"], row["ties"], row["losses"]) == (wtl["W"], wtl["T"], wtl["L"])
        decisions.append(row["p_value"] < 0.05)
    assert len(decisions) == 6
