"""Tie-aware measures against brute force over every ordering of tied documents."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import polars as pl
import pytest

import frame_eval as fe
from frame_eval.compare import tie_aware

MEASURES = ["P@1", "P@3", "R@2", "AP", "AP@3", "RR", "RR@2", "nDCG", "nDCG@3"]


def score_ranking(order: list[int | None], missed: list[int | None], name: str, k: int | None) -> float:
    """One measure of one ranking (judgements in rank order), exactly (Fractions) except nDCG."""
    relevant = [g is not None and g >= 1 for g in order]
    total = sum(relevant) + sum(g is not None and g >= 1 for g in missed)
    depth = len(order) if k is None else min(k, len(order))
    if name == "P":
        return Fraction(sum(relevant[:depth]), k)
    if name == "R":
        return Fraction(sum(relevant[:depth]), total) if total else Fraction(0)
    if name == "AP":
        found, acc = 0, Fraction(0)
        for i in range(depth):
            if relevant[i]:
                found += 1
                acc += Fraction(found, i + 1)
        return acc / total if total else Fraction(0)
    if name == "RR":
        return next((Fraction(1, i + 1) for i in range(depth) if relevant[i]), Fraction(0))
    gains = [max(g or 0, 0) for g in order]
    dcg = sum(gains[i] / math.log2(i + 2) for i in range(depth))
    ideal = sorted([max(g or 0, 0) for g in order + missed], reverse=True)[: k or None]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def random_query(rng: random.Random, qid: str) -> list[tuple]:
    n = rng.randint(1, 7)
    scores = [rng.choice([1.0, 2.0, 3.0, 4.0]) for _ in range(n)]
    grades = [rng.choice([None, None, 0, 1, 2, -1]) for _ in range(n)]
    order = sorted(range(n), key=lambda i: -scores[i])
    rows = [(qid, f"d{i}", rank + 1, grades[i], scores[i]) for rank, i in enumerate(order)]
    rows += [(qid, f"m{i}", None, rng.choice([0, 1, 2]), None) for i in range(rng.randint(0, 2))]
    return rows


def brute_force(rows: list[tuple]) -> dict[str, tuple[float, float, float, int | None]]:
    """(mean, max, min, straddling) of each measure over every ordering inside each tie group."""
    ranked = [r for r in rows if r[2] is not None]
    missed = [r[3] for r in rows if r[2] is None]
    groups = [list(g) for _, g in itertools.groupby(ranked, key=lambda r: r[4])]
    out = {}
    for measure in MEASURES:
        name, _, cut = measure.partition("@")
        k = int(cut) if cut else None
        values = [
            score_ranking([r[3] for g in choice for r in g], missed, name, k)
            for choice in itertools.product(*(itertools.permutations(g) for g in groups))
        ]
        mean = sum(values, Fraction(0) if name != "nDCG" else 0.0) / len(values)
        starts = list(itertools.accumulate([0] + [len(g) for g in groups]))[:-1]
        crossing = [s < (k or 0) < s + len(g) for s, g in zip(starts, groups, strict=True)]
        straddling = None if k is None else sum(crossing)
        out[measure] = (float(mean), float(max(values)), float(min(values)), straddling)
    return out


def frame_of(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "rank": pl.Int64,
                                      "relevance": pl.Int64, "score": pl.Float64}, orient="row")


@pytest.mark.parametrize("seed", range(40))
def test_expected_optimistic_pessimistic_equal_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    rows = [r for q in range(3) for r in random_query(rng, f"q{q}")]
    judged = frame_of(rows)
    kinds = ("expected", "optimistic", "pessimistic")
    results = {ties: tie_aware(judged, MEASURES, ties=ties) for ties in kinds}
    for q in range(3):
        truth = brute_force([r for r in rows if r[0] == f"q{q}"])
        for position, ties in enumerate(("expected", "optimistic", "pessimistic")):
            got = results[ties].filter(pl.col("query_id") == f"q{q}")
            assert got["metric"].to_list() == MEASURES
            for measure, value, straddling in got.select("metric", "value", "straddling").iter_rows():
                assert abs(value - truth[measure][position]) < 1e-12, (seed, q, ties, measure)
                assert straddling == truth[measure][3]


def test_without_ties_every_value_is_evaluates() -> None:
    rng = random.Random(5)
    runs, qrels = [], []
    for q in range(20):
        for d in range(15):
            runs.append((f"s{q % 2}", f"q{q}", f"d{d}", rng.random()))
            if rng.random() < 0.4:
                qrels.append((f"q{q}", f"d{d}", rng.choice([0, 1, 2])))
    run = pl.DataFrame(runs, schema=["system", "query_id", "doc_id", "score"], orient="row")
    qrel = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    names = ["P@5", "R@10", "AP", "AP@5", "RR", "RR@3", "nDCG", "nDCG@10"]
    expected = run.ireval.evaluate(qrel, names, by="system")
    judged = run.ireval.judge(qrel, by="system")
    for ties in ("expected", "optimistic", "pessimistic"):
        got = tie_aware(judged, names, ties=ties, by="system")
        joined = expected.join(got, on=["system", "query_id", "metric"])
        assert joined.height == expected.height
        assert (joined["value"] - joined["value_right"]).abs().max() < 1e-12
        assert got["straddling"].drop_nulls().sum() == 0


def test_ties_in_a_real_run_lazy_and_row_order() -> None:
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"],
                        "score": [1.0, 1.0, 1.0, 0.5]})
    qrels = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "z"], "relevance": [1, 1]})
    judged = run.ireval.judge(qrels)
    got = tie_aware(judged, ["P@1", "AP", "RR"])
    # a is relevant among three tied documents; z was never retrieved (R = 2)
    assert got.select("metric", "straddling").rows() == [("P@1", 1), ("AP", None), ("RR", None)]
    mean_rr = (1 + 1 / 2 + 1 / 3) / 3
    assert got["value"].to_list() == pytest.approx([1 / 3, mean_rr / 2, mean_rr], abs=1e-15)
    lazy = tie_aware(judged.lazy(), ["P@1", "AP", "RR"])
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().equals(got)
    shuffled = judged.sample(fraction=1.0, shuffle=True, seed=3)
    assert tie_aware(shuffled, ["P@1", "AP", "RR"]).equals(got)
    assert judged.ireval.tie_aware(["P@1", "AP", "RR"]).equals(got)
    pytest.importorskip("pandas")
    assert pl.from_pandas(judged.to_pandas().ireval.tie_aware(["P@1", "AP", "RR"])).equals(got)
    # trec_eval's doc_id order (descending) puts c first: the docid value is one of the orderings
    docid = fe.ranking.ap()
    assert judged.select(docid).item() == 1 / 3 / 2


def test_bad_input() -> None:
    judged = frame_of([("q", "a", 1, 1, 1.0)])
    with pytest.raises(ValueError, match="not supported"):
        tie_aware(judged, ["MAP@x"])
    with pytest.raises(ValueError, match="P needs a cutoff"):
        tie_aware(judged, ["P"])
    with pytest.raises(ValueError, match="ties must be"):
        tie_aware(judged, ["AP"], ties="docid")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="has no column 'score'"):
        tie_aware(judged.drop("score"), ["AP"])


def test_same_bits_for_any_row_order_and_either_engine() -> None:
    rng = random.Random(1)
    runs, qrels = [], []
    for q in range(60):
        for d in range(30):
            runs.append((f"s{q % 3}", f"q{q}", f"d{d}", float(rng.randint(0, 8))))  # many ties
            if rng.random() < 0.4:
                qrels.append((f"q{q}", f"d{d}", rng.choice([0, 1, 2])))
    run = pl.DataFrame(runs, schema=["system", "query_id", "doc_id", "score"], orient="row")
    qrel = pl.DataFrame(qrels, schema=["query_id", "doc_id", "relevance"], orient="row")
    judged = run.ireval.judge(qrel, by="system")
    names = ["P@5", "R@10", "AP", "AP@5", "RR", "RR@3", "nDCG", "nDCG@10"]
    for ties in ("expected", "optimistic", "pessimistic"):
        reference = tie_aware(judged, names, by="system", ties=ties)
        for seed in range(2):
            shuffled = judged.sample(fraction=1.0, shuffle=True, seed=seed)
            assert tie_aware(shuffled, names, by="system", ties=ties).equals(reference)
            lazy = tie_aware(shuffled.lazy(), names, by="system", ties=ties)
            assert lazy.collect(engine="streaming").equals(reference)
