"""Random runs, qrels and predictions shared by the Spark and Dask tests, and how results are compared."""

from __future__ import annotations

import random
import re

import polars as pl
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
