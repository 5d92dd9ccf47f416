"""What ``frame-eval`` prints: trec_eval's lines, z-scores (``-Z``) and the tidy table.

trec_eval prints ``printf("%-22s\\t%s\\t%6.4f\\n", measure, query, value)``, counts
with ``%ld`` of the value truncated toward zero, per query (``-q``: queries in
byte order, each with its measures in trec_eval's order) and then the summary
(``all``). Millions of lines (``-q`` on a large run) are formatted by polars:
the value's four decimals come from ``value * 10000`` rounded to the nearest
integer, which is ``%6.4f``'s correctly rounded result except where the scaled
value lies within 1e-6 of a half; those values, and non-finite ones, are
formatted by Python, whose ``%`` rounds the exact binary value as C does. So
every line is the C library's, byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

import polars as pl

from frame_eval.cli_measures import Line

MISSING_ZSCORE = -1000000.0  # trec_eval's value for a query or measure the z-scores file lacks
_LIMIT = 1e14  # beyond this, 4 decimals of value * 10000 no longer fit an exact integer: Python formats


@dataclass
class RunResult:
    """One run's values: ``per_query`` is ``[query_id, <one Float64 column per printed label>]``
    in the byte order of the query ids; ``summary`` maps each label to its ``all`` value."""

    run_id: str
    per_query: pl.DataFrame
    summary: dict[str, float]
    relstrings: dict[str, str]

    @property
    def queries(self) -> list[str]:
        return self.per_query["query_id"].to_list()


def number(value: float | None, integer: bool) -> str:
    """One value as trec_eval prints it (a missing value prints as 0, trec_eval's initial value)."""
    value = 0.0 if value is None else value
    if integer and math.isfinite(value):
        return str(math.trunc(value))
    return f"{value:6.4f}"


def _fixed4(x: pl.Expr) -> pl.Expr:
    """``%6.4f`` of a Float64 column, or null where Python must decide (see the module notes)."""
    scaled = x * 10000.0
    low = scaled.floor()
    frac = scaled - low
    units = pl.when(frac > 0.5).then(low + 1).otherwise(low).cast(pl.Int64, strict=False)
    decided = x.is_finite() & ((frac - 0.5).abs() >= 1e-6) & (x.abs() < _LIMIT)
    negative = (x < 0) | ((x == 0) & ((1.0 / x) < 0))  # C prints -0.0000 for -0.0 and tiny negatives
    magnitude = units.abs()
    text = pl.concat_str(
        pl.when(negative).then(pl.lit("-")).otherwise(pl.lit("")),
        # the four decimals, zero-padded: 1dddd without its 1; at least 6 characters (d.dddd), as %6.4f
        (magnitude // 10000).cast(pl.String), pl.lit("."),
        (magnitude % 10000 + 10000).cast(pl.String).str.slice(1),
    )
    return pl.when(decided).then(text)


def _text(values: pl.Expr, integer: bool) -> pl.Expr:
    """Each value as trec_eval prints it, or null where Python must decide (see the module notes)."""
    values = values.cast(pl.Float64).fill_null(0.0)
    if integer:
        whole = values.cast(pl.Int64, strict=False).cast(pl.String)  # truncated toward zero, as C's (long)
        return pl.when(values.is_finite()).then(whole)
    return _fixed4(values)


def _decide(text: pl.Series, values: pl.Series, integer: bool) -> pl.Series:
    """``text`` with its nulls (values polars leaves undecided) formatted by Python."""
    undecided = text.is_null().arg_true()
    if not len(undecided):
        return text
    fixed = [number(values[i], integer) for i in undecided.to_list()]
    return text.scatter(undecided, pl.Series(fixed, dtype=pl.String))


def format_values(values: pl.Series, integer: bool) -> pl.Series:
    """Each value of ``values`` as trec_eval prints it."""
    values = values.cast(pl.Float64).fill_null(0.0)
    return _decide(pl.select(_text(pl.lit(values), integer)).to_series(), values, integer)


def format_columns(frame: pl.DataFrame, columns: Sequence[tuple[str, bool]]) -> pl.DataFrame:
    """``frame``'s ``(column, integer)`` columns formatted as :func:`format_values` does, in one
    select (polars formats the columns in parallel)."""
    names = list(dict(columns))
    text = frame.select(_text(pl.col(name), integer).alias(name) for name, integer in dict(columns).items())
    return pl.DataFrame([_decide(text[name], frame[name].cast(pl.Float64).fill_null(0.0), dict(columns)[name])
                         for name in names])


Chunk = str | pl.DataFrame  # text, or a frame of one column of lines (millions of -q lines)


def write_chunks(chunks: Sequence[Chunk], handle: BinaryIO) -> None:
    """Write text and line frames to a binary stream, in order."""
    for chunk in chunks:
        if isinstance(chunk, str):
            handle.write(chunk.encode())
        elif chunk.height:
            handle.flush()
            chunk.write_csv(handle, include_header=False, quote_style="never")


def trec_chunks(result: RunResult, lines: Sequence[Line], per_query: bool, summary: bool,
                zscores: bool = False) -> list[Chunk]:
    """trec_eval's output for one run: per query (``-q``), then the summary; ``-Z``: each
    measure label prefixed with ``Z`` and every value printed with ``%6.4f``."""
    z = "Z" if zscores else ""
    out: list[Chunk] = []
    if per_query and result.per_query.height:
        frame = result.per_query
        shown = [line for line in lines if line.per_query and line.kind != "runid"
                 and (line.kind == "relstring" or line.measure is not None)]
        formatted = format_columns(frame, [(line.label, line.integer and not z)
                                           for line in shown if line.kind != "relstring"])
        query = pl.col("query_id")
        pieces: list[pl.Expr] = []  # one text per query: its lines in measure order, built in one pass
        for line in shown:
            if line.kind == "relstring":
                strings = frame["query_id"].replace_strict(result.relstrings, default="",
                                                           return_dtype=pl.String)
                prefix, value, suffix = f"{line.label:<22}\t", pl.lit(strings), "'"
                middle = "\t'"
            else:
                prefix, value, suffix = f"{z}{line.label:<22}\t", pl.lit(formatted[line.label]), ""
                middle = "\t"
            pieces += [pl.lit(("\n" if pieces else "") + prefix), query, pl.lit(middle), value]
            if suffix:
                pieces.append(pl.lit(suffix))
        if pieces:  # queries in the frame's order
            out.append(frame.select(pl.concat_str(pieces).alias("line")))
    if summary:
        for line in lines:
            if line.kind == "runid":
                out.append(f"{'runid':<22}\tall\t{result.run_id}\n")
            elif line.measure is not None:
                value = result.summary[line.label]
                out.append(f"{z}{line.label:<22}\tall\t{number(value, line.integer and not z)}\n")
    return out


def to_zscores(result: RunResult, lines: Sequence[Line],
               zscores: dict[tuple[str, str], tuple[float, float]]) -> RunResult:
    """trec_eval's ``-Z``: each query's value as (value - mean) / sd from the file (0 when sd is
    0 and the value is the mean, -1000000 when the file has no such query and measure or sd is
    0 otherwise); summaries over the z-scores, added in query order: counts summed, ``gm_*``
    (whose per-query value is log(max(value, 0.00001))) as exp of the mean, the others the
    mean; ``num_q`` stays the number of queries."""
    queries = result.queries
    columns: dict[str, list[float]] = {}
    summary: dict[str, float] = {}
    for line in lines:
        if line.measure is None:
            continue
        how = line.measure.spec.aggregate
        converted = []
        for query, raw in zip(queries, result.per_query[line.label].to_list(), strict=True):
            value = 0.0 if raw is None else raw
            if how == "gmean":
                value = math.log(max(value, 0.00001))
            found = zscores.get((query, line.label))
            if found is None:
                converted.append(MISSING_ZSCORE)
            elif found[1]:
                converted.append((value - found[0]) / found[1])
            else:
                converted.append(0.0 if value == found[0] else MISSING_ZSCORE)
        columns[line.label] = converted
        total = 0.0
        for z in converted:  # trec_eval's order: query after query
            total += z
        if line.measure.spec.name == "NumQ":
            summary[line.label] = float(len(queries))
        elif how == "sum":
            summary[line.label] = total
        elif how == "gmean":
            summary[line.label] = math.exp(total / len(queries))
        else:
            summary[line.label] = total / len(queries)
    frame = pl.DataFrame({"query_id": queries, **columns},
                         schema={"query_id": pl.String, **dict.fromkeys(columns, pl.Float64)})
    return RunResult(result.run_id, frame, summary, result.relstrings)


def tidy_frame(results: Sequence[RunResult], lines: Sequence[Line], per_query: bool,
               summary: bool) -> pl.DataFrame:
    """``[run_id, query_id, metric, value]``: per-query rows (``-q``) then the summary rows."""
    valued = [line for line in lines if line.measure is not None]
    schema = {"run_id": pl.String, "query_id": pl.String, "metric": pl.String, "value": pl.Float64}
    parts = [pl.DataFrame(schema=schema)]
    for result in results:
        if per_query:
            labels = [line.label for line in valued if line.per_query]
            long = result.per_query.with_row_index("__q").unpivot(
                labels, index=["__q", "query_id"], variable_name="metric", value_name="value")
            order = pl.col("metric").replace_strict(labels, list(range(len(labels))), return_dtype=pl.UInt32)
            value = pl.col("value").cast(pl.Float64)
            parts.append(long.sort("__q", order).select(
                pl.lit(result.run_id).alias("run_id"), "query_id", "metric", value))
        if summary:
            rows = [(result.run_id, "all", line.label, result.summary[line.label]) for line in valued]
            parts.append(pl.DataFrame(rows, schema=schema, orient="row"))
    return pl.concat(parts)
