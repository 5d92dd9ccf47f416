"""Runs larger than memory: evaluating a range of query ids at a time.

Every ranking measure is computed per query, so a run can be evaluated in
pieces: the query ids are cut into ``P`` contiguous ranges holding about the
same number of run rows, the run and the qrels are filtered to one range at a
time, each piece goes through the ordinary lazy plan (streaming engine), and
the per-query results are put together and sorted by the query keys. A
summary is then the ordinary summary of those per-query values (added in the
text order of the query ids, divided once), so the partitioned result equals
the single plan's bit for bit. Ranges rather than hashes: a run sorted or
clustered by query (as TREC runs are) lets the Parquet reader skip the row
groups outside each range, so the file is not read ``P`` times.

The result stays lazy: :func:`split` returns a LazyFrame (``pl.defer``) whose
work happens when it is collected. Collecting it then runs one pass over the
run's query ids (the row count of each query, to place the range boundaries),
then the ``P`` pieces one after the other; with ``progress=True`` each step is
reported on standard error.

When to split (``partitions=None``): when the input is a bare Parquet or IPC
scan, or an in-memory frame, its size is estimated from its row count (the
Parquet metadata, read when ``evaluate`` is called) and schema, and ``P`` is
the estimated peak of one plan over ``memory_limit`` (default: an eighth of
the machine's memory, at most half of what is free). Other lazy inputs are
evaluated in one plan unless ``partitions=`` says otherwise.

Data checks. Nulls, NaN and repeated rows are checked in each piece. When a
piece fails, the checks alone (no measure) are run on every piece, and the
error is the one the single plan gives: the first check that fires, its bad
rows counted over all pieces, and the first bad row of the whole input
(0-based), whichever piece holds it. The check that the run's queries have
judgements (``strict=``) is made once over all queries.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from frame_eval import _checks
from frame_eval.judged import RunColumns, _overlap_problem

Build = Callable[[pl.LazyFrame, pl.LazyFrame, RunColumns], pl.LazyFrame]

# peak resident memory of one plan over the estimated Arrow size of run and qrels (measured at
# 10M and 100M run rows with benchmarks/generate.py's data; see README "Large runs")
PEAK_FACTOR = 2.0
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SMALL = 2**28  # the smallest default memory_limit: inputs this small never split by default
_STRING_BYTES = 24  # a string id: a 16-byte view, and often a few bytes of text beside it
_LEAF = re.compile(r"^(DF \[|Parquet SCAN|IPC SCAN)")
_OVERLAP = re.compile(r"^only \d+ of the run's \d+ queries have judgements")


@dataclass(frozen=True)
class Partitioning:
    """How ``evaluate`` and ``summarize`` split the work (``partitions``, ``memory_limit``,
    ``progress`` as the public methods take them)."""

    partitions: int | None = None
    memory_limit: int | str | None = None
    progress: bool = False
    # estimated Arrow bytes of the run and the qrels when the caller knows them (eager frames)
    sizes: tuple[int | None, int | None] = (None, None)

    @classmethod
    def of(cls, run: object, qrels: object, partitions: int | None, memory_limit: int | str | None,
           progress: bool) -> Partitioning:
        """The options of a call on these frames, with the sizes of those held in memory."""
        sizes = tuple(f.estimated_size() if isinstance(f, pl.DataFrame) else None for f in (run, qrels))
        return cls(partitions, memory_limit, progress, sizes)  # type: ignore[arg-type]

    def one_plan(self) -> bool:
        """Whether these options and in-memory sizes leave the work in one plan, unreported."""
        if self.progress or self.partitions not in (None, 1) or None in self.sizes:
            return False
        return count_partitions(pl.LazyFrame(), pl.LazyFrame(), self) == 1

    def __post_init__(self) -> None:
        p = self.partitions
        if p is not None and (isinstance(p, bool) or not isinstance(p, int) or p < 1):
            raise ValueError(f"partitions must be a positive whole number or None (chosen from the "
                             f"input's size), got {p!r}")
        if not isinstance(self.progress, bool):
            raise TypeError(f"progress must be True or False, got {self.progress!r}")
        if self.memory_limit is not None:
            memory_bytes(self.memory_limit)  # fail at the call, not at collect


def memory_bytes(limit: int | str | None) -> int:
    """``memory_limit`` in bytes: an int, or text such as ``"4GiB"``, ``"512 MB"``; ``None``: an
    eighth of the machine's memory, at most half of what is available now.

    >>> memory_bytes("4GiB"), memory_bytes("1.5 GB"), memory_bytes(1000)
    (4294967296, 1500000000, 1000)
    """
    if limit is None:
        total, available = _machine_memory()
        return max(min(total // 8, available // 2), _SMALL)
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        return limit
    if isinstance(limit, str):
        found = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", limit)
        if found and found.group(2).lower() in _UNITS and float(found.group(1)) > 0:
            return int(float(found.group(1)) * _UNITS[found.group(2).lower()])
    raise ValueError(f"memory_limit takes a number of bytes or text such as '4GiB' or '512MB', got {limit!r}")


def _machine_memory() -> tuple[int, int]:
    """(total, available) bytes of memory; /proc/meminfo where there is one."""
    try:
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        return int(info["MemTotal"].split()[0]) * 1024, int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        page = os.sysconf("SC_PAGE_SIZE")
        return page * os.sysconf("SC_PHYS_PAGES"), page * os.sysconf("SC_AVPHYS_PAGES")


def estimated_bytes(frame: pl.LazyFrame) -> int | None:
    """The Arrow size of ``frame`` estimated from its row count and schema, when that is cheap to
    know: a bare Parquet or IPC scan (the row count comes from the file metadata) or an in-memory
    frame. None for any other plan (reading it could cost as much as evaluating it)."""
    plan = frame.explain()
    lines = plan.splitlines()
    if not lines or not _LEAF.match(lines[0]) or any(line.startswith(" ") for line in lines):
        return None
    rows_text = re.search(r"ESTIMATED ROWS: (\d+)", plan)
    if rows_text:
        rows = int(rows_text.group(1))
    elif plan.startswith("DF ["):
        rows = frame.select(pl.len()).collect().item()  # an in-memory frame: its height, no work
    else:
        return None
    dtypes = frame.collect_schema().dtypes()
    width = sum(_STRING_BYTES if dtype in (pl.String, pl.Binary) else 8 for dtype in dtypes)
    return rows * width


def count_partitions(run: pl.LazyFrame, qrels: pl.LazyFrame, scale: Partitioning) -> int:
    """How many pieces: ``partitions`` when given, else from the estimated size (1 when unknown)."""
    if scale.partitions is not None:
        return scale.partitions
    run_bytes = scale.sizes[0] if scale.sizes[0] is not None else estimated_bytes(run)
    if run_bytes is None:
        return 1
    qrels_bytes = scale.sizes[1] if scale.sizes[1] is not None else estimated_bytes(qrels)
    needed = PEAK_FACTOR * (run_bytes + (qrels_bytes or 0))
    if needed <= _SMALL and scale.memory_limit is None:  # no need to look at the machine
        return 1
    return max(1, math.ceil(needed / memory_bytes(scale.memory_limit)))


def _key(frame: pl.LazyFrame, query_id: str) -> pl.Expr:
    """The query id as the ranges compare it: its own order, categories as their text."""
    dtype = frame.collect_schema()[query_id]
    column = pl.col(query_id)
    return column.cast(pl.String) if isinstance(dtype, pl.Categorical | pl.Enum) else column


class _Progress:
    def __init__(self, on: bool) -> None:
        self.on, self.start = on, time.perf_counter()

    def say(self, text: str) -> None:
        if self.on:
            elapsed = time.perf_counter() - self.start
            sys.stderr.write(f"frame_eval: {text} ({elapsed:.1f} s elapsed)\n")
            sys.stderr.flush()


def _ranges(run: pl.LazyFrame, query_id: str, partitions: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``(counts, ranges)``: the run's rows per query id, and per piece its first id and row count
    (the first piece also takes null ids, so their check fires there)."""
    key = _key(run, query_id)
    rows = pl.len().cast(pl.Int64).alias("rows")
    counts = run.group_by(key.alias(query_id)).agg(rows).collect(engine="streaming")
    return counts, cut(counts.drop_nulls(query_id), query_id, partitions)


def cut(counts: pl.DataFrame, query_id: str, partitions: int) -> pl.DataFrame:
    """``[piece, first, rows]``: the query ids of ``counts`` (``[query_id, rows]``) in their order,
    cut into at most ``partitions`` ranges of about equal rows (exact integer arithmetic).

    >>> counts = pl.DataFrame({"q": ["c", "a", "b", "d"], "rows": [10, 10, 30, 10]})
    >>> cut(counts, "q", 2).rows()
    [(0, 'a', 40), (1, 'c', 20)]
    """
    ids = counts.sort(query_id).with_columns(pl.col("rows").cast(pl.Int64))
    total = max(ids.get_column("rows").sum(), 1)
    before = pl.col("rows").cum_sum() - pl.col("rows")
    piece = (before * partitions // total).alias("piece")
    first = pl.col(query_id).first().alias("first")
    return ids.group_by(piece, maintain_order=True).agg(first, pl.col("rows").sum())


def _in_range(key: pl.Expr, first: object, following: object, is_first: bool) -> pl.Expr:
    below = pl.lit(True) if following is None else key < pl.lit(following)
    if is_first:
        return key.is_null() | below
    return (key >= pl.lit(first)) & below


def split(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    scale: Partitioning,
    build: Build,
    *,
    strict: bool,
    complete: bool,
    sort_keys: list[str],
) -> pl.LazyFrame | None:
    """The per-query frame ``build`` makes, computed a query range at a time when collected; None
    when one plan will do (the caller then builds it as usual).

    ``build(run, qrels, cols)`` is the caller's plan for any piece (with ``strict=False``: the
    overlap check is made here, once); its rows are concatenated and sorted by ``sort_keys``
    keeping their order within a key.
    """
    partitions = count_partitions(run, qrels, scale)
    if partitions == 1 and not scale.progress:
        return None
    with _checks.immediate():  # the pieces report their own checks, even for an eager caller
        schema = build(run, qrels, cols).collect_schema()  # schema errors at the call, as the single plan
    query_id = cols.query_id

    def pieces() -> pl.DataFrame:
        with _checks.immediate():
            return evaluated()

    def evaluated() -> pl.DataFrame:
        progress = _Progress(scale.progress)
        counts, ranges = _ranges(run, query_id, partitions)
        firsts = ranges.get_column("first").to_list() or [None]
        sizes = ranges.get_column("rows").to_list() or [0]
        rows = counts.get_column("rows").sum()
        progress.say(f"{rows:,} run rows, {counts.height:,} queries, {len(firsts)} partition(s)")
        systems = run.select(cols.by).unique().collect(engine="streaming") if complete and cols.by else None
        run_key, qrels_key = _key(run, query_id), _key(qrels, query_id)
        results = []
        def piece(i: int) -> tuple[pl.Expr, pl.Expr, str]:
            first = firsts[i]
            following = firsts[i + 1] if i + 1 < len(firsts) else None
            where = f"partition {i + 1} of {len(firsts)}, query ids from {first!r}" + (
                f" up to {following!r}" if following is not None else " on")
            in_run, in_qrels = (_in_range(key, first, following, i == 0) for key in (run_key, qrels_key))
            return in_run, in_qrels, where

        for i in range(len(firsts)):
            in_run, in_qrels, where = piece(i)
            run_i, qrels_i = run.filter(in_run), qrels.filter(in_qrels)
            try:
                part = _evaluate_range(build(run_i, qrels_i, cols), (run, in_run), (qrels, in_qrels), where)
            except _RangeError as error:  # name the first bad row of the whole input, as one plan would
                raise _whole_input_error(run, qrels, cols, build, [piece(j) for j in range(len(firsts))],
                                         error.error) from None
            if systems is not None:
                part = _complete_systems(part, run_i, qrels_i, cols, systems, build)
            results.append(part)
            progress.say(f"partition {i + 1}/{len(firsts)} done: {sizes[i]:,} run rows")
        result = pl.concat(results) if results else pl.DataFrame(schema=schema)
        result = result.sort(sort_keys, maintain_order=True)
        target = schema[query_id]
        run_ids = counts.lazy().drop_nulls(query_id).select(pl.col(query_id).cast(target))
        judged_ids = qrels.select(qrels_key.cast(target).alias(query_id)).unique()
        overlap = _overlap_problem(run_ids, judged_ids, query_id, strict)
        checked = _checks.attach(result.lazy(), [overlap]).collect()
        progress.say(f"done: {checked.height:,} result rows")
        return checked

    return pl.defer(pieces, schema=schema)


def _evaluate_range(
    plan: pl.LazyFrame, run: tuple[pl.LazyFrame, pl.Expr], qrels: tuple[pl.LazyFrame, pl.Expr], where: str
) -> pl.DataFrame:
    """One range's result; its data errors name the input's row, and the overlap warning (about
    all queries, made once at the end) is left out."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            part = plan.collect(engine="streaming")
    except ValueError as error:
        raise _RangeError(_located(error, run, qrels, where)) from None
    for warning in caught:
        if not _OVERLAP.match(str(warning.message)):
            warnings.warn(warning.message, warning.category, stacklevel=2)
    return part


def _complete_systems(
    part: pl.DataFrame, run_i: pl.LazyFrame, qrels_i: pl.LazyFrame, cols: RunColumns,
    systems: pl.DataFrame, build: Build,
) -> pl.DataFrame:
    """With ``complete`` and ``by``: a system without rows in this range still scores its queries
    (as retrieving nothing), as it does when every system is evaluated in one plan."""
    present = run_i.select(cols.by).unique().collect(engine="streaming")
    missing = systems.join(present, on=list(cols.by), how="anti", nulls_equal=True)
    if missing.height == 0:
        return part
    alone = RunColumns(cols.query_id, cols.doc_id, cols.score, cols.relevance, cols.rank)
    nothing = run_i.drop(cols.by).clear()
    empty = build(nothing, qrels_i, alone).collect(engine="streaming")
    filled = missing.join(empty, how="cross").select(part.columns)
    return pl.concat([part, filled.cast(part.schema)])


_ROW_TEXT = re.compile(r"(first at row |first repeated row is row )(\d+)")
_INPUT_ROW = "__frame_eval_input_row"


def _located(
    error: ValueError, run: tuple[pl.LazyFrame, pl.Expr], qrels: tuple[pl.LazyFrame, pl.Expr], where: str
) -> ValueError:
    """A data error found in one range, its row counted in the whole input (the range's rows are
    the input's rows in that range, in their order); the count stays the range's, and says so."""
    text = str(error)
    found = _ROW_TEXT.search(text)
    if found is None:
        return error
    frame, in_range = qrels if "qrels" in text[: found.start()] else run
    rows = frame.with_row_index(_INPUT_ROW).filter(in_range).select(_INPUT_ROW)
    row = rows.slice(int(found.group(2)), 1).collect(engine="streaming").item()
    text = f"{text[: found.start(2)]}{row}{text[found.end(2):]}"
    return ValueError(f"{text} [counted in {where}; evaluate with partitions=1 to count in the whole input]")


class _RangeError(Exception):
    """A piece's data error, on its way to :func:`_whole_input_error`."""

    def __init__(self, error: ValueError) -> None:
        super().__init__(str(error))
        self.error = error


_COUNT = re.compile(r"^\d+")
_NOTE = re.compile(r" \[counted in [^\]]*\]$")


def _whole_input_error(
    run: pl.LazyFrame, qrels: pl.LazyFrame, cols: RunColumns, build: Build,
    pieces: list[tuple[pl.Expr, pl.Expr, str]], fallback: ValueError,
) -> ValueError:
    """The error one plan over the whole input gives, from the checks of every piece (no measures):
    the first check (in the plan's order) that fires in any piece, its leading count added over the
    pieces, and the message of the piece whose first bad row comes first in the input.

    Each query lies in one piece, so a repeated (query, document) pair is counted in one piece
    only. ``fallback`` (the failing piece's own error) is returned if the checks find nothing
    (an error that was not a data check)."""
    found: dict[int, list[tuple[int, int, str]]] = {}  # check -> [(row in the input, count, text)]
    for in_run, in_qrels, where in pieces:
        with _checks.deferred() as state:
            build(run.filter(in_run), qrels.filter(in_qrels), cols)
        checks = state.checks
        if not checks:
            continue
        for report in _checks._tallies(checks).collect(engine="streaming").to_dicts():
            index = report[_checks._CHECK]
            check = checks[index]
            if check.warn:
                continue
            text = report["message"] if check.explain is _checks._as_given else check.explain(report["count"])
            if not text:
                continue
            located = str(_located(ValueError(text), (run, in_run), (qrels, in_qrels), where))
            row = _ROW_TEXT.search(located)
            count = _COUNT.match(located)
            found.setdefault(index, []).append((
                int(row.group(2)) if row else -1, int(count.group(0)) if count else 0, located,
            ))
    if not found:
        return fallback
    reports = found[min(found)]
    _, _, text = min(reports)
    total = sum(count for _, count, _ in reports)
    text = _NOTE.sub("", text)
    if _COUNT.match(text):
        text = _COUNT.sub(str(total), text, count=1)
    return ValueError(text)
