"""The two ways evaluate() ranks, against pytrec_eval and against each other.

``judged_ranks._score_ranks`` ranks by the score alone, in windows
keyed by a 64-bit hash of the query keys, and takes the exact (score, doc_id)
rank only for queries that fail one of two exact checks: a tie (the rank sum is
short of n (n + 1) / 2) or a hash shared with another query. These tests drive
each branch: distinct scores (no query recomputed), ties in some queries only,
and hashes forced to collide (every query, or pairs of them, in one window).
An eager input of a few rows is ranked by the pair at once (``_checks.SMALL_ROWS``), and the
smallest are collected without the optimizer (``_checks.UNOPTIMIZED_ROWS``, for evaluations
``EVALUATION_UNOPTIMIZED_ROWS``); a large one is
ranked a slice of rows at a time (``_checks.CHUNK_ROWS``), its repeated documents counted on a
thread of ours beside the plan; every test here runs each way.
evaluate() also sorts its frame by rank once, so measures add their terms as the rows
come; the public expressions, on a frame in any order, give the same bits.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from test_pytrec_eval_parity import TREC_MEASURES, assert_same, pytrec_values, random_case

import frame_eval as fe
from frame_eval import _checks, _own_thread, judged, judged_ranks

PAIRS = [pair for family in TREC_MEASURES.values() for pair in family]
NAMES = [name for _, name in PAIRS]


@pytest.fixture(
    autouse=True,
    params=["small eager path", "small path, optimized", "score-rank path", "sliced score-rank path"],
)
def ranking_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.param == "small path, optimized":
        monkeypatch.setattr(_checks, "UNOPTIMIZED_ROWS", 0)
        monkeypatch.setattr(_checks, "EVALUATION_UNOPTIMIZED_ROWS", 0)
    if request.param in ("score-rank path", "sliced score-rank path"):
        monkeypatch.setattr(_checks, "SMALL_ROWS", 0)
    if request.param == "sliced score-rank path":  # slices of 37 rows: queries cut by their boundaries
        monkeypatch.setattr(_checks, "CHUNK_ROWS", 37)
        # and the counts an eager call takes beside its plan (the slices' repeated documents, the
        # qrels' repeated judgements) on a thread of their own, as from 100,000 rows
        monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)


def distinct_scores(run: pl.DataFrame, seed: int) -> pl.DataFrame:
    """The same run with scores distinct (no ties anywhere)."""
    rng = np.random.default_rng(seed + 1000)
    scores = rng.choice(2**20, size=run.height, replace=False) / 2**10
    return run.with_columns(score=pl.Series(scores, dtype=pl.Float64))


def assert_matches_pytrec(run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    expected = pytrec_values(run, qrels, 1)
    got = run.ireval.evaluate(qrels, NAMES, shape="wide")
    assert {str(q) for q in got["query_id"]} == {q for q, _ in expected}
    for row in got.iter_rows(named=True):
        q = str(row["query_id"])
        for trec_key, name in PAIRS:
            assert row[name] == expected[(q, trec_key)], (name, q)


def exact_rows(run: pl.DataFrame) -> pl.DataFrame:
    """The rows _score_ranks recomputes exactly, for a run of string or integer ids."""
    cols = judged.RunColumns()
    *_, exact = judged_ranks._score_ranks(run.lazy(), cols, run.schema["doc_id"])
    return exact.collect()


@pytest.mark.parametrize("seed", range(16))
def test_distinct_scores_use_score_ranks_alone(seed: int) -> None:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2), near_ties=False)
    run = distinct_scores(run, seed)
    assert exact_rows(run).height == 0
    assert_matches_pytrec(run, qrels)


def test_only_queries_with_ties_are_ranked_again() -> None:
    run = pl.DataFrame({
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3"],
        "doc_id": ["a", "b", "c", "a", "b", "a", "b"],
        # q1: b and c tie; q2: a and b tie; q3: distinct
        "score": [3.0, 2.0, 2.0, 0.7, 0.7, 1.0, 0.5],
    })
    exact = exact_rows(run).sort("query_id", "doc_id")
    assert exact["query_id"].to_list() == ["q1", "q1", "q1", "q2", "q2"]
    # ties go to the doc_id that sorts last: c before b in q1, b before a in q2
    assert exact.columns[-1] == "__frame_eval_exact_rank"
    assert exact[exact.columns[-1]].to_list() == [1, 3, 2, 2, 1]
    qrels = pl.DataFrame({
        "query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["b", "c", "a", "b"], "relevance": [1, 1, 1, 1],
    })
    assert_matches_pytrec(run, qrels)


@pytest.mark.parametrize("seed", range(8))
def test_scores_apart_in_their_last_bits_are_ranked_exactly(seed: int) -> None:
    """Scores apart in their last bits rank as doubles compare, on every path (a ranking by packed
    integers that keeps a score's upper bits only must rank such queries again by the pair): every
    value is that of the same run with each score replaced by its dense rank among all scores (the
    same order and ties, far apart); -0.0 ties with 0.0."""
    run, qrels = random_case(seed, integer_ids=bool(seed % 2), near_ties=False)
    rng = np.random.default_rng(seed)
    steps = rng.integers(0, 4, size=run.height)  # 0 to 3 units in the last place above the score
    scores = [s + k * float(np.spacing(s)) if s else (-0.0 if k % 2 else 0.0)
              for s, k in zip(run["score"].to_list(), steps, strict=True)]
    stored = run.with_columns(score=pl.Series(scores, dtype=pl.Float64)).sort("query_id", maintain_order=True)
    spread = stored.with_columns(pl.col("score").rank("dense").cast(pl.Float64))
    got = stored.ireval.evaluate(qrels, NAMES, shape="wide")
    assert got.equals(spread.ireval.evaluate(qrels, NAMES, shape="wide"))


def test_a_query_in_several_runs_of_rows_is_counted_whole() -> None:
    """A run stored by query but for a few rows: a query's rows in two runs within a slice (the
    sliced path counts each run of equal keys on its own and adds them up) and across a slice
    boundary; every value, NumRet included, is that of the same rows in query order."""
    rng = np.random.default_rng(3)
    queries = ["a"] * 20 + ["b"] * 20 + ["a"] * 6 + ["c"] * 30 + ["b"] * 4
    run = pl.DataFrame({"query_id": queries, "doc_id": [f"d{i}" for i in range(len(queries))],
                        "score": rng.integers(0, 50, len(queries)) / 7.0})
    qrels = run.sample(fraction=0.5, seed=2).select("query_id", "doc_id", relevance=pl.lit(1))
    names = [*NAMES, "NumRet"]
    expected = run.sort("query_id", maintain_order=True).ireval.evaluate(qrels, names, shape="wide")
    assert run.ireval.evaluate(qrels, names, shape="wide").equals(expected)


def test_a_run_stored_by_query_at_its_head_only_is_not_ranked_by_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whether a run comes a query at a time is judged from windows spread over it, not from its
    first rows alone: stored by query only at its head, nearly every query would be in many runs
    (each ranked again by the pair), so it takes the windows; either way the same values."""
    monkeypatch.setattr(judged_ranks, "_SAMPLE_ROWS", 400)
    rng = np.random.default_rng(5)
    stored = pl.DataFrame({"query_id": [f"q{i // 10:03d}" for i in range(4000)],
                           "doc_id": [f"d{i % 10}" for i in range(4000)],
                           "score": rng.permutation(4000) / 7.0})
    partly = pl.concat([stored.head(400), stored.slice(400).sample(fraction=1.0, shuffle=True, seed=1)])
    assert judged_ranks._stored_by_query(stored.lazy(), ["query_id"], stored.height)
    assert judged_ranks._stored_by_query(partly.lazy(), ["query_id"], partly.height) is False
    assert judged_ranks._stored_by_query(partly.head(400).lazy(), ["query_id"], 400)
    qrels = stored.sample(fraction=0.3, seed=2).select("query_id", "doc_id", relevance=pl.lit(1))
    expected = stored.ireval.evaluate(qrels, NAMES, shape="wide")
    assert partly.ireval.evaluate(qrels, NAMES, shape="wide").equals(expected)


COLLIDING = {
    "every query in one window": lambda keys: pl.lit(7, dtype=pl.UInt64),
    "pairs of queries share a window": lambda keys: pl.struct(keys).hash() % 2,
}


@pytest.mark.parametrize("collide", list(COLLIDING), ids=list(COLLIDING))
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
def test_colliding_hashes_fall_back_to_exact_ranks(
    monkeypatch: pytest.MonkeyPatch, collide: str, seed: int, ties: bool
) -> None:
    run, qrels = random_case(seed, integer_ids=bool(seed % 2), near_ties=False)
    if not ties:
        run = distinct_scores(run, seed)
    monkeypatch.setattr(judged_ranks, "_group_hash", COLLIDING[collide])
    assert_matches_pytrec(run, qrels)
    # lazy and with options, the compact path equals the exact full judged frame
    options = {"depth": 4 if seed % 2 else None, "complete": seed % 3 == 0}
    fast = run.lazy().ireval.evaluate(qrels.lazy(), NAMES, shape="wide", **options).collect()
    full = (
        run.ireval.judge(qrels, **options)
        .group_by("query_id")
        .agg(m.expr().cast(pl.Float64) for m in fe.registry.resolve(NAMES))
        .sort("query_id")
    )
    assert_same(fast, full.select(fast.columns))


@pytest.mark.parametrize("seed", range(6))
def test_systems_with_colliding_hashes(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """With by=, windows are keyed by (system, query); a shared hash across systems is caught too."""
    run_a, qrels = random_case(seed, integer_ids=False, near_ties=False)
    run_b = distinct_scores(run_a, seed)
    runs = pl.concat([run_a.with_columns(system=pl.lit("a")), run_b.with_columns(system=pl.lit("b"))])
    separately = pl.concat([
        r.ireval.evaluate(qrels, NAMES, shape="wide").select(pl.lit(s).alias("system"), pl.all())
        for s, r in (("a", run_a), ("b", run_b))
    ])
    monkeypatch.setattr(judged_ranks, "_group_hash", COLLIDING["pairs of queries share a window"])
    together = runs.ireval.evaluate(qrels, NAMES, by="system", shape="wide")
    assert_same(together, separately)


def test_a_tie_hidden_by_a_shared_window_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the shared-hash check is needed besides the rank sum. In one window, query A's
    three documents tied at 1.0 rank 3, 3, 3 behind its own d and B's y (both 2.0); with d
    at rank 1 A's ranks sum to 10 = 4 * 5 / 2, and B's single rank 1 passes as well: the
    sums alone would let A's tie through (found by a search over small cases)."""
    run = pl.DataFrame({
        "query_id": ["A", "A", "A", "A", "B"],
        "doc_id": ["a", "b", "c", "d", "y"],
        "score": [1.0, 1.0, 1.0, 2.0, 2.0],
    })
    qrels = pl.DataFrame({"query_id": ["A", "B"], "doc_id": ["a", "y"], "relevance": [1, 1]})
    monkeypatch.setattr(judged_ranks, "_group_hash", COLLIDING["every query in one window"])
    exact = exact_rows(run).sort("query_id", "doc_id")
    assert exact["query_id"].to_list() == ["A", "A", "A", "A", "B"]
    # d first; the tie at 1.0 goes by doc_id descending as text: c, b, then the relevant a
    got = run.ireval.evaluate(qrels, ["AP", "RR", "P@3"], shape="wide").row(0, named=True)
    assert got == {"query_id": "A", "AP": 0.25, "RR": 0.25, "P@3": 0.0}
    assert_matches_pytrec(run, qrels)


PAIRS_COLLIDING = {
    "every pair shares one hash": lambda columns: pl.lit(7, dtype=pl.UInt64),
    "pairs share hashes in threes": lambda columns: pl.struct(columns).hash() % 3,
}


@pytest.mark.parametrize("collide", list(PAIRS_COLLIDING), ids=list(PAIRS_COLLIDING))
@pytest.mark.parametrize("seed", range(6))
def test_colliding_pair_hashes_give_the_exact_judgements(
    monkeypatch: pytest.MonkeyPatch, collide: str, seed: int
) -> None:
    """The judgements join matches on a 64-bit hash of the (query, doc_id) pair and compares the
    pairs themselves; with the hash forced to collide, judgements matched by other documents
    (of their own query or another one, some of them qrels queries the run lacks) get their own
    ranks or none, once each: the values are those of the exact join."""
    run, qrels = random_case(seed, integer_ids=bool(seed % 2), near_ties=False)
    stored = run.sort("query_id", maintain_order=True)
    options = [{}, {"complete": True}, {"depth": 4}]
    expected = [stored.ireval.evaluate(qrels, NAMES, shape="wide", **o) for o in options]
    monkeypatch.setattr(judged, "_pair_hash", PAIRS_COLLIDING[collide])
    assert_matches_pytrec(stored, qrels)
    for o, before in zip(options, expected, strict=True):
        assert stored.ireval.evaluate(qrels, NAMES, shape="wide", **o).equals(before), o
        lazy = stored.lazy().ireval.evaluate(qrels.lazy(), NAMES, shape="wide", **o).collect()
        assert lazy.equals(before), o
    systems = pl.concat([stored.with_columns(system=pl.lit(s)) for s in ("a", "b")])
    together = systems.ireval.evaluate(qrels, NAMES, by="system", shape="wide")
    assert together.filter(pl.col("system") == "b").drop("system").equals(expected[0])


ORDER_SENSITIVE = ["AP", "AP@5", "nDCG", "nDCG@3", "nDCG(gain=exp)@10", "DCG@5", "CG@4", "RR", "P@5", "R@10"]


@pytest.mark.parametrize("seed", range(8))
def test_expressions_on_shuffled_frames_equal_evaluate(seed: int) -> None:
    """The public expressions sort their terms per group; evaluate() adds them in the order
    of its rank-sorted frame: the same bits."""
    run, qrels = random_case(seed, integer_ids=bool(seed % 2), near_ties=True)
    measures = fe.registry.resolve(ORDER_SENSITIVE)
    shuffled = run.ireval.judge(qrels).sample(fraction=1.0, shuffle=True, seed=seed)
    by_expressions = (
        shuffled.group_by("query_id").agg(m.expr().cast(pl.Float64) for m in measures).sort("query_id")
    )
    wide = run.ireval.evaluate(qrels, ORDER_SENSITIVE, shape="wide")
    assert by_expressions.equals(wide.select(by_expressions.columns))


@pytest.mark.parametrize(("row", "at"), [(5, 6), (31, 50), (5, 45), (5, 170)],
                         ids=["neighbours", "in its query across a slice boundary", "in another query",
                              "slices apart"])
def test_a_repeated_document_is_found_on_every_path(row: int, at: int) -> None:
    """A (query, document) pair twice: the copy of ``row`` placed before row ``at``, in one
    slice of 37 rows or parted by slice boundaries, with distinct scores (no tie flags the
    query for the exact ranks)."""
    run = pl.DataFrame({
        "query_id": [f"q{i // 30}" for i in range(180)],
        "doc_id": [f"d{i % 30}" for i in range(180)],
        "score": [float(180 - i) for i in range(180)],
    })
    copy = run.slice(row, 1).with_columns(score=pl.lit(0.5))
    run = pl.concat([run.slice(0, at), copy, run.slice(at)])
    qrels = pl.DataFrame({"query_id": ["q0", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    repeated = r"1 \(query_id, doc_id\) combinations occur more than once in the run"
    with pytest.raises(ValueError, match=repeated):
        run.ireval.evaluate(qrels, ["AP", "P@5"])


@pytest.mark.parametrize("seed", range(3))
def test_eager_paths_equal_the_lazy_plan(seed: int) -> None:
    """Bit for bit: the eager call (ranked at once, by score, or by slices) and the lazy plan,
    with systems, ties and many families; stored by query and shuffled."""
    from test_determinism import MEASURES, case

    run, qrels = case(seed, queries=40, depth=30)
    stored = run.sort("system", "query_id", maintain_order=True)
    for frame in (stored, run.sample(fraction=1.0, shuffle=True, seed=seed)):
        lazy = frame.lazy().ireval.evaluate(qrels.lazy(), MEASURES, by="system", shape="wide").collect()
        assert frame.ireval.evaluate(qrels, MEASURES, by="system", shape="wide").equals(lazy)
    # one system (no by=): the judgements are joined before the query groups are known; qrels
    # queries the run lacks stay out, or score 0 with complete=True
    alone = stored.filter(pl.col("system") == "a").drop("system").filter(pl.col("query_id") != "q3")
    for options in ({}, {"complete": True}, {"depth": 7}):
        lazy = alone.lazy().ireval.evaluate(qrels.lazy(), MEASURES, shape="wide", **options).collect()
        assert alone.ireval.evaluate(qrels, MEASURES, shape="wide", **options).equals(lazy), options


@pytest.mark.parametrize("dtype", [pl.Int8, pl.UInt8, pl.Int32, pl.UInt32, pl.UInt64])
def test_narrow_judgements_give_the_same_frames(dtype: pl.DataType) -> None:
    """The plan keeps the qrels' own integer relevance until the judged frames come out (no cast
    of the cached qrels); those frames and the values are those of Int64 judgements."""
    run, qrels = random_case(3, integer_ids=False, near_ties=False)
    qrels = qrels.filter(pl.col("relevance") >= 0)
    narrow = qrels.with_columns(pl.col("relevance").cast(dtype))
    assert run.ireval.judge(narrow).schema["relevance"] == pl.Int64
    assert run.ireval.judge(narrow).equals(run.ireval.judge(qrels))
    for options in ({}, {"complete": True}, {"judged_only": True}, {"duplicates": "max"}):
        expected = run.ireval.evaluate(qrels, NAMES, shape="wide", **options)
        assert run.ireval.evaluate(narrow, NAMES, shape="wide", **options).equals(expected), options
        lazy = run.lazy().ireval.evaluate(narrow.lazy(), NAMES, shape="wide", **options).collect()
        assert lazy.equals(expected), options


@pytest.mark.parametrize("judged_queries", [0, 1, 2, 3])
def test_the_overlap_check_counts_alike_on_every_path(judged_queries: int) -> None:
    """The run's queries with judgements are counted from the query groups (no join of the ids
    again): fewer than half of them warns, naming both counts, on every path and lazily alike."""
    run = pl.DataFrame({
        "query_id": [f"q{i // 30}" for i in range(180)],
        "doc_id": [f"d{i % 30}" for i in range(180)],
        "score": [float(180 - i) for i in range(180)],
    })
    qrels = pl.DataFrame({
        "query_id": [f"q{i}" for i in range(judged_queries)] + ["other", "other"],
        "doc_id": ["d1"] * judged_queries + ["d1", "d2"],
        "relevance": [1] * (judged_queries + 2),
    })
    message = rf"only {judged_queries} of the run's 6 queries have judgements in the qrels " \
        rf"\({judged_queries + 1} "
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = run.ireval.evaluate(qrels, ["AP", "P@5"], shape="wide")
        lazy = run.lazy().ireval.evaluate(qrels.lazy(), ["AP", "P@5"], shape="wide").collect()
    texts = [str(w.message) for w in caught]
    expected = 2 if judged_queries < 3 else 0  # half of them judged is enough
    assert len(texts) == expected and all(re.match(message, t) for t in texts), texts
    assert got.equals(lazy) and got.height == judged_queries


@pytest.mark.parametrize("repeat", [True, False])
def test_repeated_judgements_are_found_on_every_path(repeat: bool) -> None:
    """A (query, doc) pair judged twice raises on every path; ids that swap places between
    the two key columns ("a", "b") and ("b", "a") are two pairs, not a repeat."""
    run = pl.DataFrame({"query_id": ["a"] * 3 + ["b"] * 3, "doc_id": ["b", "c", "d", "a", "c", "d"],
                        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["a", "b", "a"], "doc_id": ["b", "a", "b" if repeat else "c"],
                          "relevance": [1, 1, 2]})
    if repeat:
        with pytest.raises(ValueError, match=r"combinations occur more than once in the qrels"):
            run.ireval.evaluate(qrels, ["AP"])
    else:
        assert run.ireval.evaluate(qrels, ["AP"], shape="wide")["AP"].to_list() == [1.0, 1.0]
