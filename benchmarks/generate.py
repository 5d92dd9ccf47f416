"""Deterministic benchmark data, written to Parquet in chunks (so 100M rows fit easily).

Ranking data (``run.parquet``, ``qrels.parquet``): ``queries`` queries, each with
``depth`` retrieved documents with distinct scores (no ties, not even in single
precision, so every tool ranks identically) and 30 judged documents drawn from a pool of ``1.5 * depth``
candidates, so about two thirds of the judged documents are retrieved. Relevance
is graded 0..3 and every query has at least one relevant document. Ids are
strings (``q0000042``, ``d000123456``), as in TREC collections.

Classification data (``predictions.parquet``): ``rows`` predictions spread over
``groups`` models with a boolean label (prevalence varying by model), a score in
[0, 1] rounded to 4 decimals (so ties occur) and the hard prediction ``score >= 0.5``.

Multi-class data (``multiclass.parquet``, ``--multiclass-predictions``): ``rows`` predictions
over ``groups`` models and ``classes`` classes: the actual label (``Int64`` 0..classes-1, class
shares varying by model), one probability column per class (``p0``, ``p1``, ...: whole counts
1..1000 from a softmax of noisy class signals, divided by their row's sum, so every row adds
to 1 within rounding and scores tie) and the predicted label, the most probable class (the first
on ties).

The same arguments always give byte-identical data: every chunk draws from its
own ``numpy`` generator seeded by the chunk number.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

JUDGED_PER_QUERY = 30
RELEVANCE_LEVELS = np.array([0, 1, 2, 3], dtype=np.int32)
RELEVANCE_WEIGHTS = np.array([0.5, 0.25, 0.15, 0.10])
CHUNK_QUERIES = 10_000
CORPUS = 100_000_000  # document numbers live in [0, CORPUS)
DOC_STEP = 7_919  # prime: (query * 1_000_003 + pos * DOC_STEP) % CORPUS is distinct per query


def _ids(name: str, prefix: str, width: int, numbers: np.ndarray) -> pl.Series:
    """``prefix`` followed by the zero-padded number, e.g. ``q0000042``."""
    digits = pl.Series(name, numbers).cast(pl.String).str.zfill(width)
    return pl.select(pl.concat_str(pl.lit(prefix), digits).alias(name)).to_series()


def _doc_ids(query: np.ndarray, pos: np.ndarray) -> pl.Series:
    num = (query.astype(np.int64) * 1_000_003 + pos.astype(np.int64) * DOC_STEP) % CORPUS
    return _ids("doc_id", "d", 9, num)


def _query_ids(query: np.ndarray) -> pl.Series:
    return _ids("query_id", "q", 7, query)


def ranking_chunk(first: int, count: int, depth: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run and qrels rows for queries ``first .. first + count - 1``."""
    rng = np.random.default_rng([seed, first])
    queries = np.arange(first, first + count)
    pool = depth + depth // 2

    q_run = np.repeat(queries, depth)
    pos_run = np.tile(np.arange(depth), count)
    # distinct scores per query, even in single precision (trec_eval compares C floats, ranx
    # doubles): a random permutation of 1..depth, scaled into (0, 1]
    order = np.argsort(rng.random((count, depth)), axis=1).ravel()
    scores = pl.Series("score", (order + 1) / depth)
    run = pl.DataFrame([_query_ids(q_run), _doc_ids(q_run, pos_run), scores])

    judged = min(JUDGED_PER_QUERY, pool)
    pos_qrels = np.argsort(rng.random((count, pool)), axis=1)[:, :judged].ravel()
    q_qrels = np.repeat(queries, judged)
    rel = rng.choice(RELEVANCE_LEVELS, size=(count, judged), p=RELEVANCE_WEIGHTS)
    rel[:, 0] = np.maximum(rel[:, 0], 1)  # every query has a relevant document
    qrels = pl.DataFrame(
        [_query_ids(q_qrels), _doc_ids(q_qrels, pos_qrels), pl.Series("relevance", rel.ravel())]
    )
    return run, qrels


def write_ranking(
    directory: Path, queries: int, depth: int = 100, seed: int = 20261122, systems: int = 0
) -> None:
    """Write ``run.parquet`` and ``qrels.parquet`` for ``queries`` x ``depth`` rows.

    With ``systems``, the run holds that many runs one after the other (a TREC track's
    submissions), told apart by a ``system`` column (``sys_000``, ...): each ranks the same
    documents of every query in its own random order; the qrels are those of one run.
    """
    directory.mkdir(parents=True, exist_ok=True)
    writers: dict[str, pq.ParquetWriter] = {}
    try:
        for system in range(max(systems, 1)):
            for first in range(0, queries, CHUNK_QUERIES):
                count = min(CHUNK_QUERIES, queries - first)
                run, qrels = ranking_chunk(first, count, depth, seed + system)
                frames = {"run": run}
                if systems:
                    frames["run"] = run.select(pl.lit(f"sys_{system:03d}").alias("system"), pl.all())
                if system == 0:
                    frames["qrels"] = qrels
                for name, frame in frames.items():
                    table = frame.to_arrow()
                    if name not in writers:
                        writers[name] = pq.ParquetWriter(directory / f"{name}.parquet", table.schema)
                    writers[name].write_table(table)
    finally:
        for writer in writers.values():
            writer.close()


def write_copies(source: Path, directory: Path, copies: int) -> None:
    """``copies`` times the run and qrels of ``source`` (made with up to 1M queries, ids
    ``q0......``), copy ``k``'s query ids starting ``q<k>``: ``copies`` times the queries and rows,
    as directories ``run/`` and ``qrels/`` of one Parquet file per copy. Faster than generating
    a billion rows afresh (polars streams each file through)."""
    if not 1 <= copies <= 10:
        raise ValueError(f"copies must be from 1 to 10 (one leading digit each), got {copies}")
    ids = pl.col("query_id")
    for name in ("run", "qrels"):
        (directory / name).mkdir(parents=True, exist_ok=True)
        frame = pl.scan_parquet(source / f"{name}.parquet")
        if frame.select((ids.str.slice(0, 2) != "q0").any()).collect().item():
            raise ValueError(f"{source / name}.parquet has ids past q0999999; use fewer queries")
        for k in range(copies):
            renamed = frame.with_columns((pl.lit(f"q{k}") + ids.str.slice(2)).alias("query_id"))
            renamed.sink_parquet(directory / name / f"part{k}.parquet", row_group_size=1_000_000)


def _write_in_chunks(path: Path, rows: int, chunk_frame: Callable[[int, int], pl.DataFrame]) -> None:
    """Write ``rows`` rows to ``path``, a million at a time: ``chunk_frame(start, n)`` makes each chunk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    chunk = 1_000_000
    writer: pq.ParquetWriter | None = None
    try:
        for start in range(0, rows, chunk):
            table = chunk_frame(start, min(chunk, rows - start)).to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def write_classification(path: Path, rows: int, groups: int = 100, seed: int = 20261122) -> None:
    """Write ``rows`` binary predictions over ``groups`` models to ``path``."""

    def chunk_frame(start: int, n: int) -> pl.DataFrame:
        rng = np.random.default_rng([seed, start])
        group = rng.integers(0, groups, n)
        prevalence = 0.05 + 0.4 * group / max(groups - 1, 1)
        label = rng.random(n) < prevalence
        signal = rng.normal(0.0, 1.0, n) + np.where(label, 1.2, -0.4) * (0.5 + group / groups)
        prob = np.round(1.0 / (1.0 + np.exp(-signal)), 4)
        return pl.DataFrame(
            {"model": _ids("model", "model_", 3, group), "label": label, "prob": prob, "pred": prob >= 0.5}
        )

    _write_in_chunks(path, rows, chunk_frame)


def write_multiclass(
    path: Path, rows: int, classes: int = 5, groups: int = 100, seed: int = 20261124
) -> None:
    """Write ``rows`` multi-class predictions over ``groups`` models and ``classes`` classes to ``path``."""
    # each model's class shares and skill, fixed by the seed
    shares = np.random.default_rng([seed, 0]).dirichlet(np.full(classes, 2.0), groups)
    skill = 0.5 + 2.0 * np.arange(groups) / max(groups - 1, 1)

    def chunk_frame(start: int, n: int) -> pl.DataFrame:
        rng = np.random.default_rng([seed, 1, start])
        group = rng.integers(0, groups, n)
        cumulative = shares.cumsum(axis=1)[group]
        label = np.minimum((rng.random(n)[:, None] > cumulative).sum(axis=1), classes - 1)
        logits = rng.normal(0.0, 1.0, (n, classes))
        logits[np.arange(n), label] += skill[group]
        soft = np.exp(logits - logits.max(axis=1, keepdims=True))
        counts = np.maximum(np.round(1000.0 * soft / soft.sum(axis=1, keepdims=True)), 1.0)
        probs = counts / counts.sum(axis=1, keepdims=True)
        return pl.DataFrame(
            {
                "model": _ids("model", "model_", 3, group),
                "actual": label.astype(np.int64),
                "predicted": probs.argmax(axis=1).astype(np.int64),
                **{f"p{k}": probs[:, k] for k in range(classes)},
            }
        )

    _write_in_chunks(path, rows, chunk_frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--predictions", type=int, default=0, help="classification rows (0: none)")
    parser.add_argument("--multiclass-predictions", type=int, default=0,
                        help="multi-class rows written to multiclass.parquet alone (0: none)")
    parser.add_argument("--classes", type=int, default=5, help="classes of --multiclass-predictions")
    parser.add_argument("--systems", type=int, default=0, help="runs in one file, with a system column")
    parser.add_argument("--copies-of", type=Path, default=None,
                        help="instead of generating: --copies copies of this directory's data")
    parser.add_argument("--copies", type=int, default=10)
    args = parser.parse_args()
    if args.copies_of is not None:
        write_copies(args.copies_of, args.directory, args.copies)
        return
    if args.multiclass_predictions:  # this file only: the ranking and binary data are left as they are
        write_multiclass(args.directory / "multiclass.parquet", args.multiclass_predictions, args.classes)
        return
    write_ranking(args.directory, args.queries, args.depth, systems=args.systems)
    if args.predictions:
        write_classification(args.directory / "predictions.parquet", args.predictions)


if __name__ == "__main__":
    main()
