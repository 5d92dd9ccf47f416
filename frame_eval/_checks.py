"""Input validation: schema checks up front, data checks inside the lazy query.

Schema problems (a missing column, a wrong dtype) are found from the schema
alone and raised at once. Data problems (nulls, NaN, duplicate keys) need
the data, so they are computed by a small side query and attached to the
result: the error is raised when the result is collected, and nothing is
collected early. Each message names the frame, the column, an example value
and the fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

_CHECK = "__frame_eval_problems"


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


def duplicate_problem(frame: pl.LazyFrame, keys: Sequence[str], label: str, fix: str) -> pl.LazyFrame:
    """A problem row counting key combinations that occur more than once."""
    dups = frame.group_by(keys).agg(pl.len().alias("_n")).filter(pl.col("_n") > 1)
    example = pl.concat_str(
        [pl.format(f"{k}={{}}", pl.col(k).cast(pl.String)) for k in keys], separator=", "
    )
    return dups.select(
        count=pl.len().cast(pl.UInt64),
        message=pl.format(
            f"{{}} duplicated ({', '.join(keys)}) rows in the {label}, e.g. {{}} occurs {{}} times; {fix}",
            pl.len(),
            example.first(),
            pl.col("_n").first(),
        ),
    )


def adjacent_duplicate_problem(
    frame: pl.LazyFrame, keys: Sequence[str], label: str, fix: str
) -> pl.LazyFrame:
    """Like :func:`duplicate_problem`, for a frame sorted by ``keys``: repeats are neighbours.

    One linear pass instead of a hash aggregation; the count is of repeated rows.
    """
    repeat = pl.all_horizontal(pl.col(k) == pl.col(k).shift(1) for k in keys).fill_null(False)
    example = pl.concat_str(
        [pl.format(f"{k}={{}}", pl.col(k).cast(pl.String)) for k in keys], separator=", "
    )
    return frame.select(
        count=repeat.sum().cast(pl.UInt64),
        message=pl.format(
            f"{{}} repeated ({', '.join(keys)}) rows in the {label}, e.g. {{}}; {fix}",
            repeat.sum(),
            example.filter(repeat).first(),
        ),
    )


def attach(result: pl.LazyFrame, problems: Sequence[pl.LazyFrame]) -> pl.LazyFrame:
    """Make ``result`` raise a ``ValueError`` on collect if any problem row has a count > 0."""
    if not problems:
        return result
    report = pl.concat(list(problems), how="vertical_relaxed").filter(pl.col("count") > 0)
    report = report.select(pl.col("message").str.join("; ").alias(_CHECK))
    columns = result.collect_schema().names()
    return (
        result.join(report, how="cross", maintain_order="left")
        .filter(pl.col(_CHECK).map_batches(_raise_if_problem, return_dtype=pl.Boolean))
        .select(columns)
    )


def _raise_if_problem(messages: pl.Series) -> pl.Series:
    found = [m for m in messages.head(1).to_list() if m]
    if found:
        raise ValueError(found[0])
    return pl.Series(values=[True] * len(messages), dtype=pl.Boolean)
