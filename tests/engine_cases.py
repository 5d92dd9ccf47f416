"""Random runs, qrels and predictions shared by the Spark and Dask tests, how results are compared, and
how a shared test drives either engine (:class:`Engine`)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from frame_eval import Measure, parse_measures, registry


def ranking_case(seed: int, queries: int = 24, depth: int = 15) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Three systems; tied scores; judgements -1 to 3 and unjudged documents; queries only in the
    run, only in the qrels, and missing from one system's run."""
    rng = random.Random(seed)
    run_rows, qrels_rows = [], []
    for q in range(queries):
        query = f"q{q}"
        in_run, in_qrels = q % 7 != 3, q % 5 != 2
        if in_qrels:
            for d in rng.sample(range(40), rng.randint(1, 12)):
                qrels_rows.append((query, f"d{d}", rng.choice([-1, 0, 0, 1, 1, 2, 3])))
        if not in_run:
            continue
        for system in ("s1", "s2", "s3"):
            if system == "s3" and q % 4 == 1:
                continue
            for d in rng.sample(range(40), rng.randint(1, depth)):
                run_rows.append((system, query, f"d{d}", round(rng.random(), 1)))
    run = pl.DataFrame(run_rows, schema=["system", "query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    return run, qrels


def prediction_case(seed: int, rows: int = 600) -> pl.DataFrame:
    """Three models, 0/1 labels with a predicted label and a tied score, and a three-class label."""
    rng = random.Random(seed)
    data = []
    for _ in range(rows):
        label = rng.random() < 0.3
        prob = round(min(1.0, max(0.0, rng.gauss(0.6 if label else 0.4, 0.2))), 2)
        data.append((rng.choice(["m1", "m2", "m3"]), int(label), prob, int(prob >= 0.5),
                     rng.choice("abc"), rng.choice("abc")))
    return pl.DataFrame(data, schema=["model", "label", "prob", "pred", "kind", "kind_pred"], orient="row")


def all_trec() -> list[str]:
    return [m.name for m in parse_measures("all_trec")]


def every_ranking() -> list[Measure]:
    """Every registered ranking measure with its default parameters: without a cutoff where it may
    have none, and at cutoff 5 (0.5 for interpolated precision) where it takes one. The ``prefs_*``
    measures read preference judgements (``evaluate_preferences``), not an ``.ireval`` method."""
    measures = []
    for spec in registry.specs("ranking"):
        if spec.name.startswith("prefs_"):
            continue
        if spec.cutoff != "required":
            measures.append(registry.measure(spec, None))
        if spec.cutoff != "none":
            measures.append(registry.measure(spec, 5 if spec.cutoff_type is int else 0.5))
    return measures


def assert_same(ours: pl.DataFrame, reference: pl.DataFrame) -> None:
    """Equal frames, value for value (floats compared exactly), rows in any order, after the
    engine's dtype changes (unsigned to signed integers, categories to text)."""
    assert ours.columns == reference.columns
    reference = reference.cast({n: ours.schema[n] for n in reference.columns})
    assert len(ours) == len(reference)
    keys = reference.columns
    assert_frame_equal(ours.sort(keys, nulls_last=True), reference.sort(keys, nulls_last=True),
                       check_exact=True)


def assert_same_error(engine_text: str, polars_text: str) -> None:
    """The polars message appears in the engine's error, counts aside: an engine's task sees one
    shuffle group, so it counts rows and offending rows within that group (its message says so;
    the values shown name the row)."""
    def counts(text: str) -> str:
        return re.sub(r"\brow \d+", "row N", re.sub(r"^\d+ |(?<=: )\d+ ", "N ", text))
    assert counts(polars_text) in counts(engine_text), (polars_text, engine_text)


DASK_MISSING = 'Dask is not installed (pip install "frame-eval[dask]")'


@dataclass(frozen=True)
class Engine:
    """How the shared engine tests (``test_engines.py``) drive one engine: frames in and out,
    running a plan, what its errors look like."""

    name: str
    module: Any  # fe.spark or fe.dask
    frame_type: str  # what the TypeError for a frame of another library names
    to_engine: Callable[..., Any]  # (polars frame, partitions=3, arrow=False) -> engine frame
    to_polars: Callable[[Any], pl.DataFrame]
    run: Callable[[Any], Any]  # collect / compute a plan
    columns: Callable[[Any], list[str]]  # a plan's columns, read without running it
    where_system: Callable[[Any, str], Any]  # the rows of one system
    chain: Callable[[Any, Callable[[Any], Any]], Any]  # transform / pipe
    poisoned: Callable[[Any], Any]  # the frame, raising "the run was read" once its rows are read
    speak: Callable[[str], str]  # a polars message in the engine's terms
    wraps_errors: bool  # an error in a task reaches the caller wrapped (Spark) or as raised (Dask)
    ranking_seed: int
    prediction_seed: int

    def job_error(self, planned: Any) -> str:
        """The text of the ``ValueError`` that running ``planned`` raises."""
        with pytest.raises(Exception) as caught:
            self.run(planned)
        if self.wraps_errors:
            assert "ValueError" in str(caught.value), str(caught.value)
        else:
            assert caught.type is ValueError, repr(caught.value)
        return str(caught.value)


def spark_engine(session: Any) -> Engine:
    import frame_eval as fe
    from frame_eval.engines.spark import spark_message

    def poisoned(frame: Any) -> Any:
        from pyspark.sql import functions as F

        def explode(score):  # type: ignore[no-untyped-def]  (type hints make PySpark guess an eval type)
            raise RuntimeError("the run was read")

        return frame.withColumn("score", F.udf(explode, "double")("score"))

    return Engine(
        name="spark", module=fe.spark, frame_type=r"pyspark\.sql\.DataFrame",
        to_engine=lambda frame, partitions=3, arrow=False: session.createDataFrame(frame.to_arrow()),
        to_polars=lambda frame: pl.from_arrow(frame.toArrow()),  # type: ignore[arg-type,return-value]
        run=lambda planned: planned.collect(),
        columns=lambda planned: [f.name for f in planned.schema.fields],
        where_system=lambda frame, system: frame.filter(f"system = '{system}'"),
        chain=lambda frame, step: frame.transform(step), poisoned=poisoned, speak=spark_message,
        wraps_errors=True, ranking_seed=11, prediction_seed=3,
    )


def dask_engine() -> Engine:
    dd = pytest.importorskip("dask.dataframe", reason=DASK_MISSING)
    import frame_eval as fe
    from frame_eval.pandas_ns import pandas_message

    def to_engine(frame: pl.DataFrame, partitions: int = 3, arrow: bool = False) -> Any:
        return dd.from_pandas(frame.to_pandas(use_pyarrow_extension_array=arrow), npartitions=partitions)

    def poisoned(frame: Any) -> Any:
        def exploding(part: Any) -> Any:
            if len(part):
                raise RuntimeError("the run was read")
            return part

        return frame.map_partitions(exploding, meta=frame._meta)

    return Engine(
        name="dask", module=fe.dask, frame_type=r"dask\.dataframe\.DataFrame", to_engine=to_engine,
        to_polars=lambda frame: pl.from_pandas(frame.compute()), run=lambda planned: planned.compute(),
        columns=lambda planned: list(planned.columns),
        where_system=lambda frame, system: frame[frame["system"] == system],
        chain=lambda frame, step: frame.pipe(step), poisoned=poisoned, speak=pandas_message,
        wraps_errors=False, ranking_seed=12, prediction_seed=4,
    )
