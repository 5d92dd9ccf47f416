"""Small eager calls reuse their plan (``frame_eval._reuse``): nothing a call returns, raises or
warns may depend on which calls came before it.

Each test makes a call of one shape on good data first (which plans and keeps it), then
calls of the same shape on other data, and requires exactly what a lazy call collects
(a plan built afresh): values (``equals``), errors with their first offending row, the
overlap warning pointing at the caller's line, and options whose values compare equal
across types (``depth=True`` is not ``depth=1``).
"""

from __future__ import annotations

import threading
import warnings

import polars as pl
import pytest

import frame_eval as fe
from frame_eval import _reuse

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@100"]


def _data(queries: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run of 8 documents per query (distinct scores) and 5 judgements per query."""
    run = pl.DataFrame({
        "query_id": [f"q{q}" for q in range(queries) for _ in range(8)],
        "doc_id": [f"d{(d * 7 + seed) % 11}" for _ in range(queries) for d in range(8)],
        "score": [float((d * 5 + q + seed) % 13) + d / 100 for q in range(queries) for d in range(8)],
    })
    qrels = pl.DataFrame({
        "query_id": [f"q{q}" for q in range(queries) for _ in range(5)],
        "doc_id": [f"d{(j * 3 + q + seed) % 11}" for q in range(queries) for j in range(5)],
        "relevance": [(j + q + seed) % 3 for q in range(queries) for j in range(5)],
    })
    return run, qrels


def _fresh(run: pl.DataFrame, qrels: pl.DataFrame, **options: object) -> pl.DataFrame:
    return run.lazy().ireval.evaluate(qrels.lazy(), MEASURES, **options).collect()


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    _reuse.clear()


def test_reused_plan_gives_each_call_its_own_values() -> None:
    for seed in range(4):  # one shape: the first call plans, the others reuse
        run, qrels = _data(6, seed)
        got = run.ireval.evaluate(qrels, MEASURES, shape="wide")
        assert got.equals(_fresh(run, qrels, shape="wide"))
    assert len(_reuse._entries) == 1
    run, qrels = _data(3, 9)  # another shape (long) is another entry
    assert run.ireval.evaluate(qrels, MEASURES).equals(_fresh(run, qrels))
    assert len(_reuse._entries) == 2


def test_reused_plan_still_names_the_first_bad_row() -> None:
    run, qrels = _data(4, 1)
    run.ireval.evaluate(qrels, MEASURES)
    scores = run["score"].to_list()
    scores[5] = scores[9] = float("nan")
    nan_at_5 = r"2 NaN values in run column 'score' \(first at row 5, counting from 0"
    with pytest.raises(ValueError, match=nan_at_5):
        run.with_columns(pl.Series("score", scores)).ireval.evaluate(qrels, MEASURES)
    repeated = pl.concat([qrels, qrels.slice(7, 1)])
    with pytest.raises(ValueError, match=r"first repeated row is row 7 \(counting from 0\)"):
        run.ireval.evaluate(repeated, MEASURES)
    assert run.ireval.evaluate(qrels, MEASURES).equals(_fresh(run, qrels))  # and good data again


def test_reused_plan_warns_at_the_callers_line() -> None:
    run, qrels = _data(4, 2)
    run.ireval.evaluate(qrels, MEASURES)
    thin = qrels.filter(pl.col("query_id") == "q0")
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run.ireval.evaluate(thin, MEASURES)
        assert [str(w.message)[:40] for w in caught] == ["only 1 of the run's 4 queries have judge"]
        assert caught[0].filename == __file__
    with pytest.raises(ValueError, match="only 1 of the run's 4 queries"):
        run.ireval.evaluate(thin, MEASURES, strict=True)


def test_options_of_equal_value_but_another_type_are_other_shapes() -> None:
    run, qrels = _data(3, 3)
    run.ireval.evaluate(qrels, MEASURES, depth=1)
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        run.ireval.evaluate(qrels, MEASURES, depth=True)
    assert _reuse.key_of(("x", 1)) != _reuse.key_of(("x", True))
    assert _reuse.key_of(("x", [object()])) is None  # not keyed: planned as usual


def test_empty_and_other_schemas_are_planned_for_themselves() -> None:
    run, qrels = _data(3, 4)
    run.ireval.evaluate(qrels, MEASURES)
    empty = run.clear()
    assert empty.ireval.evaluate(qrels, MEASURES).equals(_fresh(empty, qrels))
    as_int = qrels.with_columns(pl.col("relevance").cast(pl.Int8))
    assert run.ireval.evaluate(as_int, MEASURES).equals(_fresh(run, as_int))


def test_calls_from_several_threads_agree() -> None:
    cases = [_data(5, seed) for seed in range(6)]
    expected = [_fresh(run, qrels) for run, qrels in cases]
    failures: list[int] = []

    def work(i: int) -> None:
        for _ in range(20):
            run, qrels = cases[i]
            if not run.ireval.evaluate(qrels, MEASURES).equals(expected[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_registering_a_measure_forgets_the_plans() -> None:
    run, qrels = _data(3, 5)
    run.ireval.evaluate(qrels, ["P@5"])
    before = fe.registry.generation()
    fe.registry._forget()  # what registering a measure does (without adding one to the registry)
    assert fe.registry.generation() != before
    run.ireval.evaluate(qrels, ["P@5"])
    assert len(_reuse._entries) == 2  # planned again under the new registry


def test_summaries_reuse_their_plan_too() -> None:
    pytest.importorskip("scipy", reason="the t interval's quantile comes from SciPy (the [stats] extra)")
    for seed in range(3):
        run, qrels = _data(5, seed)
        got = run.ireval.summarize(qrels, MEASURES, ci=0.9)
        assert got.equals(run.lazy().ireval.summarize(qrels.lazy(), MEASURES, ci=0.9).collect())
    assert len(_reuse._entries) == 1


def test_optimized_plans_are_reused_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the no-optimizer threshold the placeholder sources get projections and predicates
    pushed into them; the values stay those of a lazy call."""
    monkeypatch.setattr(fe._checks, "EVALUATION_UNOPTIMIZED_ROWS", 10)
    for seed in range(2):
        run, qrels = _data(6, seed)
        for options in ({"shape": "wide"}, {"depth": 3, "complete": True}, {"judged_only": True}):
            got = run.ireval.evaluate(qrels, MEASURES, **options)
            assert got.equals(_fresh(run, qrels, **options)), options
    assert len(_reuse._entries) == 3
