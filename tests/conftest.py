"""Shared fixtures: the trec_eval reference suite in ../shared, when it is there; one local Spark session."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "trec_eval"


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    if not (SHARED / "out.test").is_file():
        pytest.skip(f"trec_eval reference suite not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """trec_eval 10.0 built from ../shared, printing values at full precision (or a clean skip)."""
    from oracles.trec_eval import build

    found = build(tmp_path_factory.mktemp("trec_eval"))
    if isinstance(found, str):
        pytest.skip(found)
    return found


def _spark_missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return 'PySpark is not installed (pip install "frame-eval[spark]")'
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs Java, and there is no java on PATH (apt-get install default-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local[2] Spark session for the whole test run. Skipped (with the reason) when PySpark or
    Java is missing, except under CI (``FRAME_EVAL_CI=1``, set by ``.ci/run``), where that fails."""
    reason = _spark_missing()
    if reason:
        if os.environ.get("FRAME_EVAL_CI"):
            pytest.fail(f"CI must run the Spark tests: {reason}")
        pytest.skip(reason)
    # the Python workers import this checkout's frame_eval, whatever is installed
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]").appName("frame_eval tests")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g").config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
