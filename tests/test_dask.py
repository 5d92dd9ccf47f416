"""What only fe.dask does; the cases it shares with fe.spark are in ``test_engines.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from engine_cases import DASK_MISSING

pytest.importorskip("dask.dataframe", reason=DASK_MISSING)


HANG = """
import polars as pl, dask.dataframe as dd
import frame_eval as fe
from engine_cases import all_trec, ranking_case

run, qrels = ranking_case(12, queries=400)
nulls = run.with_columns(score=pl.when(pl.col("doc_id") == "d3").then(None).otherwise(pl.col("score")))
bad = fe.dask.evaluate(dd.from_pandas(nulls.to_pandas(), npartitions=8),
                       dd.from_pandas(qrels.to_pandas(), npartitions=4), all_trec(), by="system", buckets=40)
for attempt in range(4):
    try:
        bad.compute(scheduler="threads")
    except ValueError:
        pass
    else:
        raise SystemExit("the compute should have failed")
    for _ in range(3):  # the next polars calls, while the failed compute's other tasks may still run
        run.ireval.evaluate(qrels, all_trec(), by="system")
        run.to_pandas(use_pyarrow_extension_array=True)
print("finished")
"""


def test_a_failed_threaded_compute_leaves_polars_usable() -> None:
    """Dask's threaded scheduler raises a compute's first error at once, leaving the tasks it has
    handed to threads running. Those used to convert their results with polars' to_pandas, which
    holds the GIL while it waits for polars' thread pool: with the caller's next frame_eval plan
    (which calls Python) on that pool, both waited forever. In a subprocess, so a hang fails."""
    tests = Path(__file__).parent
    env_path = os.pathsep.join([str(tests.parent), str(tests)])
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(HANG)], capture_output=True, text=True,
                              timeout=240, env={**os.environ, "PYTHONPATH": env_path})
    except subprocess.TimeoutExpired:
        pytest.fail("polars calls after a failed threaded Dask compute hung (deadlock)")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("finished")
