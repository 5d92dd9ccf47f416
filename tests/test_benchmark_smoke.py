"""A small run of the benchmark harness: data generation, every installed tool, agreement, table.

No timing is asserted (these machines are shared); the point is that the harness
runs end to end and that every tool agrees with frame_eval on the same data.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"


def _harness(tmp_path: Path, *tools: str, size: str = "tiny") -> tuple[subprocess.CompletedProcess[str], str]:
    out = tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [
            sys.executable, str(BENCH / "run.py"), "--sizes", size, "--repeat", "1", "--warmup", "0",
            "--data", str(tmp_path / "data"), "--results", str(tmp_path / "results"), "--out", str(out),
            "--tools", *tools,
        ],
        capture_output=True, text=True, timeout=600,
    )
    return proc, out.read_text() if out.exists() else ""


def test_generated_data_is_deterministic_and_well_formed(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import generate
    finally:
        sys.path.remove(str(BENCH))
    generate.write_ranking(tmp_path / "a", 50, depth=20)
    generate.write_ranking(tmp_path / "b", 50, depth=20)
    run_a = pl.read_parquet(tmp_path / "a" / "run.parquet")
    run_b = pl.read_parquet(tmp_path / "b" / "run.parquet")
    assert run_a.equals(run_b)
    qrels = pl.read_parquet(tmp_path / "a" / "qrels.parquet")
    assert run_a.height == 50 * 20 and qrels.height == 50 * 30  # 30 judged from a pool of 30
    assert run_a.select(pl.struct("query_id", "doc_id").is_unique().all()).item()
    assert qrels.select(pl.struct("query_id", "doc_id").is_unique().all()).item()
    relevant = qrels.group_by("query_id").agg((pl.col("relevance") > 0).sum().alias("rel"))
    assert relevant["rel"].min() >= 1
    assert run_a.schema["query_id"] == pl.String and run_a.schema["doc_id"] == pl.String


def test_many_systems_share_the_qrels_and_the_documents(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import generate
    finally:
        sys.path.remove(str(BENCH))
    generate.write_ranking(tmp_path / "one", 40, depth=10)
    generate.write_ranking(tmp_path / "three", 40, depth=10, systems=3)
    one = pl.read_parquet(tmp_path / "one" / "run.parquet")
    three = pl.read_parquet(tmp_path / "three" / "run.parquet")
    assert three.columns == ["system", *one.columns] and three.height == 3 * one.height
    assert three.filter(pl.col("system") == "sys_000").drop("system").equals(one)
    assert three.filter(pl.col("system") == "sys_001").select("query_id", "doc_id").equals(
        one.select("query_id", "doc_id")
    )
    assert not three.filter(pl.col("system") == "sys_001")["score"].equals(one["score"])
    qrels = [pl.read_parquet(tmp_path / name / "qrels.parquet") for name in ("one", "three")]
    assert qrels[0].equals(qrels[1])


def test_harness_runs_and_tools_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyarrow")
    monkeypatch.setenv("FRAME_EVAL_PARTITIONS", "3")  # frame_eval_partitioned: 3 query ranges
    tools = ["frame_eval", "frame_eval_lazy", "frame_eval_streaming", "frame_eval_partitioned",
             "polars_floor", "pytrec_eval", "frame_eval_classification", "sklearn_per_group"]
    proc, table = _harness(tmp_path, *tools)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {line.split("|")[2].strip(): line for line in table.splitlines() if line.startswith("| tiny")}
    assert set(rows) == set(tools)
    for tool, line in rows.items():
        cells = [c.strip() for c in line.split("|")]
        assert cells[-2] == "reference" or cells[-2].startswith("yes"), (tool, line)
    assert "frame_eval" in table and "Measured" in table


def test_harness_reports_a_disagreement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import run as harness
    finally:
        sys.path.remove(str(BENCH))
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    frame = pl.DataFrame({"query_id": ["q1", "q2"], "AP": [0.5, 0.25]})
    frame.write_parquet(a)
    frame.with_columns(pl.col("AP") + pl.Series([0.0, 1e-6])).write_parquet(b)
    assert harness._agreement("ranking", a, a).startswith("yes")
    assert harness._agreement("ranking", a, b).startswith("DIFFERS")
    frame.head(1).write_parquet(b)
    assert "rows" in harness._agreement("ranking", a, b)


def test_compare_times_two_revisions_in_turn(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    sys.path.insert(0, str(BENCH))
    try:
        import compare
        import generate
    finally:
        sys.path.remove(str(BENCH))
    generate.write_ranking(tmp_path / "data", 20, depth=10)
    timings = compare.compare(["HEAD", "HEAD~1"], "frame_eval", tmp_path / "data", rounds=2)
    assert list(timings) == ["HEAD", "HEAD~1"]
    for runs in timings.values():
        assert len(runs) == 2 and all(seconds > 0 and cpu > 0 and peak > 0 for seconds, cpu, peak in runs)
