"""Input validation: schema checks up front, data checks inside the lazy query.

Schema problems (a missing column, a wrong dtype) are found from the schema
alone and raised at once. Data problems (nulls, NaN, duplicate keys) need
the data, so they are computed by a small side query and attached to the
result: the error is raised when the result is collected, and nothing is
collected early. Each message names the frame, the column, an example value
and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import polars as pl

_CHECK = "__frame_eval_problems"
_TOKEN = "\x00suspicion:"
_SEPARATOR = "\x1e"


def schema_of(frame: pl.LazyFrame) -> pl.Schema:
    return frame.collect_schema()


def require_columns(schema: pl.Schema, columns: Iterable[str], frame: str, hint: str = "") -> None:
    """Raise a ``ValueError`` naming every missing column and the columns that exist."""
    missing = [c for c in columns if c not in schema]
    if missing:
        have = ", ".join(repr(c) for c in schema.names())
        fix = hint or "pass the right column name by keyword"
        raise ValueError(
            f"{frame} has no column {', '.join(repr(c) for c in missing)}; "
            f"its columns are [{have}]; {fix}"
        )


def require_numeric(schema: pl.Schema, column: str, frame: str) -> None:
    dtype = schema[column]
    if not dtype.is_numeric():
        raise TypeError(
            f"{frame} column {column!r} must be numeric, got {dtype}; "
            f"cast it, e.g. pl.col({column!r}).cast(pl.Float64)"
        )


def require_integer(schema: pl.Schema, column: str, frame: str) -> None:
    dtype = schema[column]
    if not dtype.is_integer():
        raise TypeError(
            f"{frame} column {column!r} must hold integer judgements, got {dtype}; "
            f"cast it, e.g. pl.col({column!r}).cast(pl.Int64)"
        )


def is_id_dtype(dtype: pl.DataType) -> bool:
    return dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(
        dtype, pl.Categorical | pl.Enum
    )


def common_id_dtype(column: str, left: pl.DataType, right: pl.DataType, names: Sequence[str]) -> pl.DataType:
    """The dtype both sides of an id column are cast to, or a ``TypeError`` saying which differs."""
    for side, dtype in zip(names, (left, right), strict=True):
        if not is_id_dtype(dtype):
            raise TypeError(
                f"{side} column {column!r} must hold string or integer ids, got {dtype}; "
                f"cast it, e.g. pl.col({column!r}).cast(pl.String)"
            )
    if left.is_integer() and right.is_integer():
        return pl.Int64
    if not left.is_integer() and not right.is_integer():
        return pl.String
    raise TypeError(
        f"column {column!r} is {left} in the {names[0]} but {right} in the {names[1]}; "
        f"ids must be both strings or both integers: cast one side, "
        f"e.g. pl.col({column!r}).cast(pl.String)"
    )


def null_problems(frame: pl.LazyFrame, columns: Iterable[str], label: str) -> list[pl.LazyFrame]:
    """One problem row per column with nulls (and per float column with NaN)."""
    schema = frame.collect_schema()
    checks: list[tuple[str, pl.Expr, str]] = []
    for c in columns:
        checks.append((f"null values in {label} column {c!r}", pl.col(c).is_null(), "drop or fill them"))
        if schema[c].is_float():
            checks.append((f"NaN values in {label} column {c!r}", pl.col(c).is_nan(), "drop or fill them"))
    if not checks:
        return []
    counts = frame.select(
        *[e.sum().alias(f"n{i}") for i, (_, e, _) in enumerate(checks)],
        *[e.arg_max().alias(f"r{i}") for i, (_, e, _) in enumerate(checks)],
    )
    return [
        counts.select(
            count=pl.col(f"n{i}").cast(pl.UInt64),
            message=pl.format(f"{{}} {text} (first at row {{}}); {fix}", f"n{i}", f"r{i}"),
        )
        for i, (text, _, fix) in enumerate(checks)
    ]


@dataclass(frozen=True)
class Suspicion:
    """A cheap check that may over-report; ``explain()`` runs the exact check (only when
    ``frame`` reports a count > 0) and returns the message, or ``""`` if all is well."""

    frame: pl.LazyFrame
    explain: Callable[[], str]


def duplicate_problem(
    frame: pl.LazyFrame, keys: Sequence[str], label: str, fix: str, suspect: pl.LazyFrame | None = None
) -> Suspicion:
    """Key combinations that occur more than once.

    The fast pass compares the row count with the number of distinct 64-bit
    hashes of the keys: equal means no repeats for certain. Only when they
    differ (a repeat, or a hash collision) does the exact hash aggregation
    run, to confirm and name an example. A caller that counts the same thing
    more cheaply on the way (rows minus distinct hashes, one ``count`` row)
    passes it as ``suspect``.
    """
    if suspect is None:
        suspect = frame.select(
            count=(pl.len() - pl.struct(keys).hash().n_unique()).cast(pl.UInt64),
        )

    def explain() -> str:
        dups = frame.group_by(keys).agg(pl.len().alias("_n")).filter(pl.col("_n") > 1).collect()
        if dups.height == 0:
            return ""
        first = dups.row(0, named=True)
        example = ", ".join(f"{k}={first[k]}" for k in keys)
        return (
            f"{dups.height} duplicated ({', '.join(keys)}) rows in the {label}, "
            f"e.g. {example} occurs {first['_n']} times; {fix}"
        )

    return Suspicion(suspect, explain)


def attach(result: pl.LazyFrame, problems: Sequence[pl.LazyFrame | Suspicion]) -> pl.LazyFrame:
    """Make ``result`` raise a ``ValueError`` on collect if any problem row has a count > 0.

    ``problems`` are frames of ``(count, message)`` rows, or :class:`Suspicion` values
    whose message is worked out only if their count is positive.
    """
    if not problems:
        return result
    frames, explainers = [], {}
    for i, problem in enumerate(problems):
        if isinstance(problem, Suspicion):
            explainers[f"{_TOKEN}{i}"] = problem.explain
            problem = problem.frame.with_columns(message=pl.lit(f"{_TOKEN}{i}"))
        frames.append(problem.select(pl.col("count").cast(pl.UInt64), pl.col("message")))
    report = pl.concat(frames).filter(pl.col("count") > 0)
    report = report.select(pl.col("message").str.join(_SEPARATOR).alias(_CHECK))

    def raise_if_problem(messages: pl.Series) -> pl.Series:
        for joined in messages.head(1).to_list():
            for message in (joined or "").split(_SEPARATOR):
                text = explainers[message]() if message in explainers else message
                if text:
                    raise ValueError(text)
        return pl.Series(values=[True] * len(messages), dtype=pl.Boolean)

    columns = result.collect_schema().names()
    return (
        result.join(report, how="cross", maintain_order="left")
        .filter(pl.col(_CHECK).map_batches(raise_if_problem, return_dtype=pl.Boolean))
        .select(columns)
    )
