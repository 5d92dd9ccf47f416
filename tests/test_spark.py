"""What only fe.spark does; the cases it shares with fe.dask are in ``test_engines.py``.

The Spark session is ``conftest.spark``: one local[2] session for the whole test run, skipped
(with the reason) when PySpark or Java is missing, except under CI (``FRAME_EVAL_CI=1``).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from engine_cases import ranking_case

import frame_eval as fe

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


def test_a_thin_overlap_warns_in_polars_and_gives_values_on_spark(spark: Any) -> None:
    run, qrels = ranking_case(11)
    renamed = run.with_columns(pl.when(pl.col("query_id") != "q1").then(pl.col("query_id") + "x")
                               .otherwise(pl.col("query_id")).alias("query_id"))
    with pytest.warns(UserWarning, match="only 1 of the run's"):  # without strict: a warning in polars,
        renamed.ireval.evaluate(qrels, ["AP"], by="system")      # nothing on Spark (see the README)
    srun, sqrels = spark.createDataFrame(renamed.to_arrow()), spark.createDataFrame(qrels.to_arrow())
    planned = fe.spark.evaluate(srun, sqrels, ["AP"], by="system")
    assert planned.count() > 0
