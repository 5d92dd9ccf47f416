"""The command line's inputs: TREC text files and tables, read and checked, errors in file terms.

Runs, qrels, preferences and ``-Z`` files by extension (TREC text, plain or ``.gz``; Parquet,
CSV, Arrow IPC), and a repeated document told by the lines of the file it came from.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import polars as pl

from frame_eval import io
from frame_eval.cli_args import CliError

_TABLE_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "ipc",
                     ".ipc": "ipc", ".feather": "ipc"}


def _table(path: str, kind: str) -> pl.LazyFrame | None:
    """A Parquet / CSV / Arrow IPC table by extension, or None for TREC text."""
    fmt = _TABLE_EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None:
        return None
    if fmt == "parquet":
        return pl.scan_parquet(path)
    if fmt == "csv":
        return pl.scan_csv(path)
    return pl.scan_ipc(path)


def _standard(frame: pl.LazyFrame, path: str, kind: str) -> pl.LazyFrame:
    needed = {"run": ["query_id", "doc_id", "score"], "qrels": ["query_id", "doc_id", "relevance"]}[kind]
    schema = frame.collect_schema()
    missing = [c for c in needed if c not in schema]
    if missing:
        raise CliError(f"{kind} file {path!r} has no column {missing[0]!r}; its columns are "
                       f"{schema.names()}; expected {', '.join(needed)}", 2)
    cols = [pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)]
    if kind == "run":
        cols.append(pl.col("score").cast(pl.Float64))
        run_id = pl.col("run_id").cast(pl.String) if "run_id" in schema else pl.lit(Path(path).stem)
        cols.append(run_id.alias("run_id"))
    else:
        cols.append(pl.col("relevance").cast(pl.Int64))
    return frame.select(cols)


def _collect(frame: pl.LazyFrame, path: str, kind: str) -> pl.DataFrame:
    try:
        df = frame.collect()
    except (OSError, pl.exceptions.ComputeError, pl.exceptions.NoDataError) as error:
        raise CliError(f"cannot read {kind} file {path!r}: {str(error).splitlines()[0]}", 2) from None
    except (ValueError, pl.exceptions.InvalidOperationError) as error:
        raise CliError(str(error).splitlines()[0], 2) from None
    if df.height == 0:
        what = "results" if kind == "run" else "judgements"
        raise CliError(f"{kind} file {path!r} holds no {what}: it is empty or has only comment lines", 2)
    return df


def read_input(path: str, kind: str) -> pl.DataFrame:
    """The file's rows with the standard columns (text files keep their line numbers); a run
    named ``-`` is read from standard input, as trec_eval does."""
    if path == "-" and kind == "run":
        with tempfile.TemporaryDirectory() as folder:
            copy = os.path.join(folder, "stdin")
            with open(copy, "wb") as out:
                shutil.copyfileobj(sys.stdin.buffer, out)
            try:
                return read_input(copy, kind)
            except CliError as error:
                raise CliError(str(error).replace(repr(copy), "'-' (standard input)"), error.status) from None
    if not os.path.isfile(path):
        raise CliError(f"cannot read {kind} file {path!r}: no such file", 2)
    table = _table(path, kind)
    if table is not None:
        return _collect(_standard(table, path, kind), path, kind)
    fmt = {"run": io._RUN, "qrels": io._QRELS, "prefs": io._PREFS, "zscores": io._ZSCORES,
           "qrels_jg": io._QRELS_JG}[kind]
    fast = io.read_single_spaced(path, fmt)
    if fast is not None:
        return fast
    return _collect(io._scan(path, fmt, lines=True), path, kind)


def read_judgements(path: str, rel_format: str) -> pl.DataFrame:
    """The judgements in trec_eval's ``-R`` format; ``qrels_prefs``: qrels read as preferences
    (the second field the judgement group, one subgroup, the judgement the level)."""
    if rel_format == "qrels_prefs":
        frame = read_input(path, "qrels_jg")
        return frame.select("query_id", "judgement_group", pl.lit("0").alias("judgement_subgroup"), "doc_id",
                            pl.col("relevance").cast(pl.Float64).alias("preference"))
    return read_input(path, rel_format)


def _explain_repeats(error: ValueError, run: pl.DataFrame, run_path: str, qrels: pl.DataFrame,
                     qrels_path: str) -> CliError:
    """A duplicate found by the core, told in the file's terms: the lines of the first repeat."""
    text = str(error)
    for frame, path, kind in ((run, run_path, "run"), (qrels, qrels_path, "qrels")):
        if f"more than once in the {kind}" not in text or _table(path, kind) is not None or path == "-":
            continue
        if io._LINE not in frame.columns:  # read by the fast reader: read again, with line numbers
            fmt = io._RUN if kind == "run" else io._QRELS
            frame = io._scan(path, fmt, lines=True).collect().filter(
                pl.col("run_id") == run["run_id"][0] if kind == "run" else pl.lit(True))
        lines = frame.select("query_id", "doc_id", io._LINE)
        first = (lines.filter(pl.len().over("query_id", "doc_id") > 1)
                 .group_by("query_id", "doc_id").agg(pl.col(io._LINE).sort())
                 .sort(pl.col(io._LINE).list.get(1)).row(0, named=True))
        where = first[io._LINE]
        return CliError(f"{kind} file {path!r}, line {where[1]}: document {first['doc_id']!r} of query "
                        f"{first['query_id']!r} appears again (first at line {where[0]}); expected one "
                        f"line per query and document", 2)
    return CliError(text.splitlines()[0], 2)


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(query, printed measure name): (mean, standard deviation)}`` from a ``-Z`` file."""
    frame = read_input(path, "zscores")
    return {(q, m): (mean, sd) for q, m, mean, sd in frame.iter_rows()}
