"""nCG@k, AP(interpolation=none|all|11pt) and system efficiency SE: worked examples by hand,
and object detection's (PASCAL VOC) interpolated AP as written in its devkits, on random cases."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from test_pytrec_eval_parity import random_case

import frame_eval as fe


def _one_query(relevance: list[int | None], missed: list[int] = ()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run ranking documents d0, d1, ... in that order, and qrels with the given judgements
    (None: unjudged) plus judged documents the run missed."""
    n = len(relevance)
    run = pl.DataFrame({"query_id": ["q"] * n, "doc_id": [f"d{i}" for i in range(n)],
                        "score": [float(n - i) for i in range(n)]})
    judged = [(f"d{i}", g) for i, g in enumerate(relevance) if g is not None]
    judged += [(f"m{i}", g) for i, g in enumerate(missed)]
    qrels = pl.DataFrame({"query_id": ["q"] * len(judged), "doc_id": [d for d, _ in judged],
                          "relevance": [g for _, g in judged]})
    return run, qrels


def _values(run: pl.DataFrame, qrels: pl.DataFrame, names: list[str]) -> list[float]:
    return list(run.ireval.evaluate(qrels, names, shape="wide", labels="as_given").select(names).row(0))


def test_ncg_by_hand() -> None:
    run, qrels = _one_query([2, 3, 3, 1, 2])
    # CG@5 = 11; the query's highest grade is 3: 11 / (5 * 3); on a 0-4 scale 11 / 20;
    # k = 10 > 5 retrieved still divides by 10 (as P@k); exp gains: (3 + 7 + 7 + 1 + 3) / (5 * 7)
    assert _values(run, qrels, ["nCG@5", "nCG(max_grade=4)@5", "nCG@10", "nCG(gain=exp)@5", "nCG@2"]) == [
        11 / 15, 11 / 20, 11 / 30, 21 / 35, 5 / 6]
    # the highest grade is the query's highest judgement, retrieved or not; negative and
    # unjudged documents give nothing
    run, qrels = _one_query([1, -1, None, 1], missed=[3])
    assert _values(run, qrels, ["nCG@4", "CG@4"]) == [2 / 12, 2.0]
    run, qrels = _one_query([0, -1, None])  # no gain possible
    assert _values(run, qrels, ["nCG@3", "nCG(max_grade=2)@3"]) == [0.0, 0.0]
    judged = pl.DataFrame({"rank": [1, 2, 3, 4, 5], "relevance": [2, 3, 3, 1, 2]})
    assert judged.select(fe.ranking.ncg(5)).item() == 11 / 15
    with pytest.raises(ValueError, match="nCG needs a cutoff"):
        fe.parse_measures("nCG")
    with pytest.raises(ValueError, match="max_grade=-1"):
        fe.parse_measures("nCG(max_grade=-1)@5")


def test_interpolated_ap_by_hand() -> None:
    # the example: relevant at ranks 1, 3, 6, 10, 15 of 10 relevant
    relevance = [1 if r in (1, 3, 6, 10, 15) else 0 for r in range(1, 16)]
    run, qrels = _one_query(relevance, missed=[1] * 5)
    none, every, eleven, p5, p10 = _values(
        run, qrels, ["AP", "AP(interpolation=all)", "AP(interpolation=11pt)", "P@5", "P@10"])
    assert (p5, p10) == (0.4, 0.4)
    assert round(none, 4) == 0.29  # (1 + 2/3 + 3/6 + 4/10 + 5/15) / 10
    assert every == none  # precision falls at every relevant document: nothing to interpolate
    # levels j/10 need j relevant found: 1, 1, 2/3, 1/2, 2/5, 1/3, then five 0s
    assert eleven == pytest.approx((1 + 1 + 2 / 3 + 1 / 2 + 2 / 5 + 1 / 3) / 11, abs=1e-15)
    # relevant at ranks 1, 4, 5 of 3: precisions 1, 1/2, 3/5; envelope 1, 3/5, 3/5
    run, qrels = _one_query([1, 0, 0, 1, 1])
    none, every, eleven, at4 = _values(
        run, qrels, ["AP", "AP(interpolation=all)", "AP(interpolation=11pt)", "AP(interpolation=all)@4"])
    assert none == pytest.approx(2.1 / 3, abs=1e-15)
    assert every == pytest.approx(2.2 / 3, abs=1e-15)
    # 0 -> 1; 0.1 to 0.3 need 1 -> 1; 0.4 to 0.6 need 2 -> 3/5; 0.7 to 1 need 3 -> 3/5
    assert eleven == pytest.approx((4 * 1 + 7 * 0.6) / 11, abs=1e-15)
    assert at4 == pytest.approx(1.5 / 3, abs=1e-15)  # within 4: precisions 1, 1/2
    run, qrels = _one_query([0, 0], missed=[0])  # no relevant document
    assert _values(run, qrels, ["AP(interpolation=all)", "AP(interpolation=11pt)"]) == [0.0, 0.0]


def _voc_2010(hits: list[bool], n_relevant: int) -> float:
    """All-point interpolated AP as the VOC 2010 devkit computes it (recall envelope areas)."""
    tp = np.cumsum(hits)
    recall = tp / n_relevant
    precision = tp / np.arange(1, len(hits) + 1)
    mrec = np.concatenate([[0.0], recall, [1.0]])
    mpre = np.concatenate([[0.0], precision, [0.0]])
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    steps = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[steps + 1] - mrec[steps]) * mpre[steps + 1]))


def _voc_2007(hits: list[bool], n_relevant: int) -> float:
    """11-point AP as the VOC 2007 devkit computes it, recall levels compared exactly."""
    found = np.cumsum(hits)
    precision = found / np.arange(1, len(hits) + 1)
    total = 0.0
    for j in range(11):
        level = Fraction(j, 10)
        reached = [p for f, p in zip(found, precision, strict=True) if Fraction(int(f), n_relevant) >= level]
        total += max(reached) if reached else 0.0
    return total / 11


def _system_efficiency(hits: list[bool], n_relevant: int) -> float:
    """1 - d / sqrt(2) over the (recall, precision) points of every rank."""
    if not hits or n_relevant == 0:
        return 0.0
    found = np.cumsum(hits)
    recall, precision = found / n_relevant, found / np.arange(1, len(hits) + 1)
    return float(1 - np.min(np.hypot(1 - recall, 1 - precision)) / math.sqrt(2))


@pytest.mark.parametrize("seed", range(10))
def test_interpolated_ap_and_se_match_their_definitions_on_random_cases(seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=False, near_ties=False)
    names = ["AP(interpolation=all)", "AP(interpolation=11pt)", "SE", "SE@5", "AP(interpolation=all)@5",
             "11pt_avg(rounding=ceil)", "AP"]
    rel = 2 if seed % 2 else 1
    ours = run.ireval.evaluate(qrels, names, shape="wide", labels="as_given", rel=rel)
    judged = run.ireval.judge(qrels)
    for (query,), rows in judged.group_by(["query_id"], maintain_order=True):
        if query not in ours["query_id"].to_list():
            continue
        row = ours.filter(pl.col("query_id") == query).row(0, named=True)
        retrieved = rows.filter(pl.col("rank").is_not_null()).sort("rank")
        hits = [g is not None and g >= rel for g in retrieved["relevance"].to_list()]
        n_relevant = int((rows["relevance"].fill_null(0) >= rel).sum())
        if n_relevant:
            assert row["AP(interpolation=all)"] == pytest.approx(_voc_2010(hits, n_relevant), abs=1e-12)
            assert row["AP(interpolation=all)@5"] == pytest.approx(_voc_2010(hits[:5], n_relevant), abs=1e-12)
            assert row["AP(interpolation=11pt)"] == pytest.approx(_voc_2007(hits, n_relevant), abs=1e-12)
        else:
            assert row["AP(interpolation=all)"] == row["AP(interpolation=11pt)"] == 0.0
        assert row["SE"] == pytest.approx(_system_efficiency(hits, n_relevant), abs=1e-12)
        assert row["SE@5"] == pytest.approx(_system_efficiency(hits[:5], n_relevant), abs=1e-12)
        # the same levels and order: VOC 2007's AP is trec_eval's 11pt_avg with exact recall levels
        assert row["AP(interpolation=11pt)"] == row["11pt_avg(rounding=ceil)"]
        assert row["AP(interpolation=all)"] >= row["AP"]
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
    assert shuffled.ireval.evaluate(qrels, names, shape="wide", labels="as_given", rel=rel).equals(ours)


def test_system_efficiency_by_hand() -> None:
    # relevant at ranks 1 and 3 of 2: points (1/2, 1), (1/2, 1/2), (1, 2/3): d = 1/3
    run, qrels = _one_query([1, 0, 1, 0])
    assert _values(run, qrels, ["SE"]) == [1 - (1 - 2 / 3) / math.sqrt(2)]
    assert _values(run, qrels, ["SE@2"]) == [1 - 0.5 / math.sqrt(2)]  # (1/2, 1)
    run, qrels = _one_query([1, 1, 0])  # a perfect ranking reaches (1, 1)
    assert _values(run, qrels, ["SE", "system_efficiency"]) == [1.0, 1.0]
    run, qrels = _one_query([0, 0], missed=[1])  # nothing relevant found: every point is (0, 0)
    assert _values(run, qrels, ["SE"]) == [0.0]
    run, qrels = _one_query([0], missed=[0])  # no relevant document at all
    assert _values(run, qrels, ["SE"]) == [0.0]
    judged = pl.DataFrame({"rank": [1, 2, 3, 4], "relevance": [1, 0, 1, 0]})
    assert judged.select(fe.ranking.system_efficiency()).item() == 1 - (1 - 2 / 3) / math.sqrt(2)
