"""The partitioned path (runs larger than memory) gives the single plan's result, bit for bit.

Small random runs are split into many query ranges (``partitions=``) and every
result is compared with the one-plan result using ``DataFrame.equals``: per-query
values, summaries (ordered sums, geometric means, counts, micro averages,
intervals), several systems (``by=``), ``complete=`` with a system that has no
rows in some ranges, tied scores, integer and categorical ids, both engines.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import partitioned

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "gm_map", "nDCG@10", "P@5", "R@20", "RR", "Rprec", "NumRet", "NumRel", "NumRelRet",
            "NumQ", "Bpref", "infAP", "RBP_resid", "unj@10"]
ENGINES = ["in-memory", "streaming"]


def case(seed: int, queries: int = 60, depth: int = 25) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three systems with tied scores; system 'c' only retrieves for the first few queries; qrels
    with graded, negative and zero judgements and queries the run lacks."""
    rng = np.random.default_rng(seed)
    frames = []
    for system, count in (("a", queries), ("b", queries), ("c", 7)):
        q = np.repeat(np.arange(count), depth)
        frames.append(pl.DataFrame({
            "system": system,
            "query_id": [f"q{i:03d}" for i in q],
            "doc_id": [f"d{i}" for i in rng.integers(0, 4 * depth, q.size)],
            "score": rng.integers(0, 12, q.size) / 3.0,
        }))
    run = pl.concat(frames).unique(["system", "query_id", "doc_id"], keep="first", maintain_order=True)
    qj = np.repeat(np.arange(queries + 5), depth // 2)
    qrels = pl.DataFrame({
        "query_id": [f"q{i:03d}" for i in qj],
        "doc_id": [f"d{i}" for i in rng.integers(0, 4 * depth, qj.size)],
        "relevance": rng.choice([-1, 0, 1, 2, 3], qj.size),
    }).unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    return run.sample(fraction=1.0, shuffle=True, seed=seed), qrels


def both(method: str, run: pl.DataFrame, qrels: pl.DataFrame, engine: str, **options: object) -> tuple[
    pl.DataFrame, pl.DataFrame
]:
    """(one plan, 9 query ranges) of ``run.ireval.<method>`` from lazy frames."""
    call = getattr(run.lazy().ireval, method)
    single = call(qrels.lazy(), **options, partitions=1).collect(engine=engine)
    split = call(qrels.lazy(), **options, partitions=9).collect(engine=engine)
    return single, split


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [0, 1])
def test_evaluate_and_summarize_equal_the_single_plan(engine: str, seed: int) -> None:
    run, qrels = case(seed)
    calls = [
        ("evaluate", {"measures": MEASURES, "by": "system"}),
        ("evaluate", {"measures": MEASURES, "by": "system", "shape": "wide", "depth": 10}),
        ("evaluate", {"measures": ["AP", "nDCG", "NumRel"], "by": "system", "complete": True}),
        ("summarize", {"measures": MEASURES, "by": "system"}),
        ("summarize", {"measures": MEASURES}),  # one system, no by=
        ("summarize", {"measures": MEASURES, "by": "system", "complete": True, "shape": "wide"}),
        ("summarize", {"measures": ["P@5", "R@20", "NumRet"], "by": "system", "aggregate": "micro"}),
        ("summarize", {"measures": ["AP", "nDCG"], "by": "system", "aggregate": "gmean",
                       "judged_only": True}),
    ]
    for method, options in calls:
        run_used = run if "by" in options else run.filter(pl.col("system") == "a").drop("system")
        single, split = both(method, run_used, qrels, engine, **options)
        assert single.height > 0
        assert split.equals(single), (method, options)


def test_complete_fills_a_system_missing_from_a_range() -> None:
    run, qrels = case(3)
    single, split = both("evaluate", run, qrels, "streaming", measures=["AP", "NumRel", "NumRet"],
                         by="system", complete=True)
    late = split.filter(pl.col("system") == "c", pl.col("query_id") == "q050")
    assert late.height == 3 and late.filter(pl.col("metric") == "NumRet")["value"].item() == 0.0
    assert split.equals(single)


def test_intervals_ties_and_id_kinds() -> None:
    pytest.importorskip("scipy")
    run, qrels = case(4)
    single, split = both("summarize", run, qrels, "in-memory", measures=["AP", "P@5"], by="system", ci=0.9)
    assert split.equals(single)
    single, split = both("evaluate", run, qrels, "streaming", measures=["AP", "P@5", "RR"], by="system",
                         ties="expected")
    assert split.equals(single)
    as_int = pl.col("query_id").str.slice(1).cast(pl.Int32)
    single, split = both("summarize", run.with_columns(as_int), qrels.with_columns(as_int), "streaming",
                         measures=MEASURES, by="system")
    assert split.equals(single)
    as_cat = pl.col("query_id").cast(pl.Categorical)
    single, split = both("evaluate", run.with_columns(as_cat), qrels, "in-memory", measures=MEASURES,
                         by="system")
    assert split.equals(single)


def test_more_partitions_than_queries_and_empty_inputs() -> None:
    run, qrels = case(5, queries=3)
    single = run.ireval.summarize(qrels, MEASURES, by="system")
    assert run.ireval.summarize(qrels, MEASURES, by="system", partitions=50).equals(single)
    empty = run.clear().ireval.evaluate(qrels.clear(), ["AP"], partitions=4)
    assert empty.equals(run.clear().ireval.evaluate(qrels.clear(), ["AP"]))


def test_split_result_is_lazy_and_reads_nothing_before_collect() -> None:
    from fuzz_support import CountingSource

    run, qrels = case(6)
    source = CountingSource(run)
    result = source.lazy.ireval.evaluate(qrels.lazy(), ["AP"], by="system", partitions=5)
    assert isinstance(result, pl.LazyFrame) and source.reads == 0
    assert result.collect().equals(run.ireval.evaluate(qrels, ["AP"], by="system"))
    assert source.reads > 0


def test_automatic_choice_from_the_size() -> None:
    run, qrels = case(7)
    options = partitioned.Partitioning(memory_limit=1000)
    assert partitioned.count_partitions(run.lazy(), qrels.lazy(), options) > 1
    assert partitioned.count_partitions(run.lazy(), qrels.lazy(), partitioned.Partitioning()) == 1
    opaque = run.lazy().map_batches(lambda frame: frame, schema=run.schema)  # size unknown: one plan
    assert partitioned.count_partitions(opaque, qrels.lazy(), options) == 1
    small = run.ireval.summarize(qrels, MEASURES, by="system", memory_limit="1KB")
    assert small.equals(run.ireval.summarize(qrels, MEASURES, by="system"))


def test_parquet_scan_is_split_from_its_metadata(tmp_path: Path) -> None:
    run, qrels = case(8)
    run.sort("query_id").write_parquet(tmp_path / "run.parquet", row_group_size=200)
    qrels.write_parquet(tmp_path / "qrels.parquet")
    scan, scan_qrels = pl.scan_parquet(tmp_path / "run.parquet"), pl.scan_parquet(tmp_path / "qrels.parquet")
    size = partitioned.estimated_bytes(scan)
    assert size is not None and size >= run.height * 40
    split = scan.ireval.summarize(scan_qrels, MEASURES, by="system", memory_limit=size // 4).collect()
    assert split.equals(run.ireval.summarize(qrels, MEASURES, by="system"))


def test_bad_options_are_clean_errors() -> None:
    run, qrels = case(9)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="partitions must be a positive whole number"):
            run.ireval.evaluate(qrels, ["AP"], partitions=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="memory_limit takes"):
        run.ireval.evaluate(qrels, ["AP"], memory_limit="lots")
    with pytest.raises(TypeError, match="progress must be True or False"):
        run.ireval.evaluate(qrels, ["AP"], progress="yes")  # type: ignore[arg-type]


def test_data_errors_and_the_overlap_check_still_fire() -> None:
    run, qrels = case(10)
    repeated = pl.concat([run, run.slice(run.height // 2, 1)])
    with pytest.raises(ValueError, match="occur more than once in the run") as single:
        repeated.ireval.evaluate(qrels, ["AP"], by="system")
    with pytest.raises(ValueError) as split:
        repeated.ireval.evaluate(qrels, ["AP"], by="system", partitions=6)
    assert str(split.value) == str(single.value)
    nulls = run.with_columns(pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise("query_id")
                             .alias("query_id"))
    with pytest.raises(ValueError, match="null values in run column 'query_id'"):
        nulls.ireval.evaluate(qrels, ["AP"], by="system", partitions=6)
    # the row named is the input's row, whichever range it falls in
    late = run.height - 3
    for frame, column, kind in ((run, "score", "run"), (qrels, "relevance", "qrels")):
        row = late if kind == "run" else qrels.height - 3
        bad = frame.with_columns(pl.when(pl.int_range(pl.len()) == row).then(None).otherwise(column)
                                 .alias(column))
        pair = (bad, qrels) if kind == "run" else (run, bad)
        with pytest.raises(ValueError) as single:
            pair[0].ireval.evaluate(pair[1], ["AP"], by="system")
        with pytest.raises(ValueError) as split:
            pair[0].ireval.evaluate(pair[1], ["AP"], by="system", partitions=6)
        assert f"(first at row {row}, counting from 0)" in str(single.value)
        assert str(split.value) == str(single.value)  # the whole input's first row and count
    stray = qrels.with_columns(pl.col("query_id") + "x")
    mostly = pl.concat([stray, qrels.filter(pl.col("query_id") < "q010")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run.ireval.evaluate(mostly, ["AP"], by="system", partitions=6)
    overlap = [w for w in caught if "have judgements" in str(w.message)]
    assert len(overlap) == 1 and "only 10 of the run's 60 queries" in str(overlap[0].message)
    with pytest.raises(ValueError, match="only 10 of the run's 60 queries"):
        run.ireval.evaluate(mostly, ["AP"], by="system", partitions=6, strict=True)


def test_progress_goes_to_stderr_only() -> None:
    code = textwrap.dedent("""
        import polars as pl, frame_eval
        run = pl.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "a", "c"],
                            "score": [1.0, 2.0, 1.0, 0.5]})
        qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "a", "c"],
                              "relevance": [1, 1, 0]})
        run.ireval.summarize(qrels, ["AP"], partitions=3, progress=True)
        run.ireval.evaluate(qrels, ["AP"], progress=True)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert any("partition 3/3 done" in line for line in lines), done.stderr
    assert any("partition 1/1 done" in line for line in lines), done.stderr
    assert all(line.startswith("frame_eval: ") and line.endswith("s elapsed)") for line in lines), lines


def test_pandas_frames_split_too() -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    run, qrels = case(11)
    run_pd, qrels_pd = run.to_pandas(), qrels.to_pandas()
    single = run_pd.ireval.summarize(qrels_pd, MEASURES, by="system")
    split = run_pd.ireval.summarize(qrels_pd, MEASURES, by="system", partitions=5)
    assert split.equals(single) and len(single) == 3 * len(MEASURES)


def test_range_boundaries_count_rows_past_32_bits() -> None:
    # a billion-row run: rows per query summed past 2^32 must not wrap (it once gave 5 ranges for 47)
    rows = pl.Series([2_000_000_000] * 3, dtype=pl.UInt32)
    counts = pl.DataFrame({"query_id": ["a", "b", "c"], "rows": rows})
    assert partitioned.cut(counts, "query_id", 3).rows() == [(0, "a", 2 * 10**9), (1, "b", 2 * 10**9),
                                                              (2, "c", 2 * 10**9)]
    many = pl.DataFrame({"query_id": [f"q{i:07d}" for i in range(10_000)], "rows": [100_000] * 10_000})
    assert partitioned.cut(many, "query_id", 47).height == 47
