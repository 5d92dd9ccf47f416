"""Input validation: schema checks up front, data checks inside the lazy query.

Schema problems (a missing column, a wrong dtype) are found from the schema
alone and raised at once. Data problems (nulls, NaN, duplicate keys) need
the data, so they are computed by a small side query and attached to the
result: the error is raised when the result is collected, and nothing is
collected early. Each message names the frame, the column, an example value
and the fix.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from frame_eval import _own_thread

_CHECK = "__frame_eval_problems"


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
        if left.is_unsigned_integer() and right.is_unsigned_integer():
            return pl.UInt64
        if pl.UInt64 in (left, right):  # UInt64 and a signed type: both fit in 128 bits
            return pl.Int128
        return pl.Int64
    if not left.is_integer() and not right.is_integer():
        return pl.String
    raise TypeError(
        f"column {column!r} is {left} in the {names[0]} but {right} in the {names[1]}; "
        f"ids must be both strings or both integers: cast one side, "
        f"e.g. pl.col({column!r}).cast(pl.String)"
    )


_ROW = "__frame_eval_row"
_FIRED = "__frame_eval_fired"


@dataclass(frozen=True)
class Problem:
    """A data check whose message is worked out only when it fires.

    ``frame`` is a lazy one-row frame with a ``count`` column, computed with the
    result; when the count is positive, ``explain(count)`` runs (it may collect a
    small query of its own) and returns the message, or ``""`` if all is well after
    all (a cheap check that over-reports). ``warn`` makes it a ``UserWarning``
    instead of an error.
    """

    frame: pl.LazyFrame
    explain: Callable[[int], str]
    warn: bool = False
    # the count as one aggregation over ``source`` (``frame`` is ``source.select(count=...)``):
    # checks of one source are then counted in one pass (see ``_tallies``)
    source: pl.LazyFrame | None = None
    count: pl.Expr | None = None
    # the count of an eager call, for :class:`Counted`, counted by Python beside the plan (see
    # ``_own_thread.in_background``); ``frame`` stays the count as one plan
    outside: Callable[[], int] | None = None


def first_rows(source: pl.LazyFrame, bad: pl.Expr, value: str | None = None) -> tuple[int, int, object]:
    """How many rows of ``source`` are ``bad``, the 0-based position of the first and its value
    in column ``value``. Positions count the rows of ``source`` as given, from 0, whatever
    the engine (a row index, not the engine's arrival order)."""
    found = (
        source.with_row_index(_ROW)
        .filter(bad)
        .select(
            pl.len().alias("n"),
            pl.col(_ROW).min().alias("row"),
            (pl.col(value).sort_by(_ROW).first() if value else pl.lit(None)).alias("value"),
        )
        .collect()
    )
    n, row, example = found.row(0)
    return n, row, example


def value_problem(
    frame: pl.LazyFrame, bad: pl.Expr, describe: str, fix: str, *, value: str | None = None,
    counted: pl.LazyFrame | None = None, fires: pl.Expr | None = None,
) -> Problem:
    """Rows of ``frame`` where ``bad`` holds: ``"<n> <describe> (first at row <i>, counting
    from 0[: <value>]); <fix>"``. The count is computed lazily with the result (from
    ``counted``, a frame with the same rows and columns that the plan reads anyway, when
    given); the first row only when the check fires. ``fires``, an aggregation that is true
    whenever a row is ``bad`` (it may also be true when none is), replaces the count of the
    ``bad`` rows when it is cheaper; the message's count is then found when it fires."""
    source = frame if counted is None else counted
    count = bad.sum().cast(pl.UInt64) if fires is None else fires.cast(pl.UInt64)
    tally = source.select(count=count)

    def explain(count: int) -> str:
        n, row, example = first_rows(frame, bad, value)
        if n == 0:
            return ""
        shown = f": {example!r}" if value is not None else ""
        return f"{n} {describe} (first at row {row}, counting from 0{shown}); {fix}"

    return Problem(tally, explain, source=source, count=count)


def null_problems(
    frame: pl.LazyFrame, columns: Iterable[str], label: str, counted: pl.LazyFrame | None = None,
    nan_fires: Mapping[str, pl.Expr] | None = None,
) -> list[Problem]:
    """One check per column for nulls, and per float column for NaN. ``nan_fires`` maps a column to
    an aggregation (over ``counted``) that is true whenever the column holds a NaN (a NaN row sum of
    several columns, say): its NaN check fires from it (see :func:`value_problem`)."""
    schema = frame.collect_schema()
    nan_fires = nan_fires or {}
    problems = []
    for c in columns:
        problems.append(
            value_problem(frame, pl.col(c).is_null(), f"null values in {label} column {c!r}",
                          "drop or fill them", counted=counted)
        )
        if schema[c].is_float():
            problems.append(
                value_problem(frame, pl.col(c).is_nan(), f"NaN values in {label} column {c!r}",
                              "drop or fill them", counted=counted, fires=nan_fires.get(c))
            )
    return problems


def key_hash(keys: Sequence[str]) -> pl.Expr:
    """A 64-bit hash of the key columns: each column hashed alone (seeded by its position) and the
    hashes xored, a quarter of a struct's hash at 10M rows. Callers only count with it or join on
    it, with an exact pass where hashes meet, so a collision costs time, never a wrong answer."""
    return functools.reduce(operator.xor, [pl.col(k).hash(seed=i) for i, k in enumerate(keys)])


_COUNT = {"count": pl.UInt64}


def sorted_repeats(hashes: pl.DataFrame, *, multithreaded: bool = True) -> pl.DataFrame:
    """One row, one UInt64 column named as ``hashes``' only column: its rows less its distinct
    hashes, counted as equal neighbours once sorted (a frame function: a plain sort of a series
    takes half the time of a hash set of its values, or of the same sort inside a lazy plan).
    ``multithreaded=False`` sorts on the calling thread alone (for a thread of ours working beside
    a plan: a parallel sort of 1.25M hashes took twice the CPU of one on a single core)."""
    ordered = hashes.to_series().sort(multithreaded=multithreaded)
    count = (ordered == ordered.shift()).sum()
    return pl.DataFrame({ordered.name: [count]}, schema={ordered.name: pl.UInt64})


def duplicate_problem(
    frame: pl.LazyFrame, keys: Sequence[str], label: str, fix: str,
    suspect: pl.LazyFrame | None = None, *, in_memory: bool = False,
) -> Problem:
    """Key combinations that occur more than once.

    The fast pass counts the rows whose 64-bit key hash equals the one before
    in sorted order (rows less distinct hashes; sorting integers takes less
    memory than a hash set of them; for a small eager input, rows less distinct
    hashes): 0 means no repeats for certain. Only when
    it is not (a repeat, or a hash collision) does the exact hash aggregation
    run, to confirm and name an example. A caller that counts the same thing
    more cheaply on the way (one ``count`` row) passes it as ``suspect``;
    ``in_memory`` (a frame an eager call holds, of a size that fits): the hashes
    are sorted as one series in a frame function, which costs half the CPU; when
    the state says the frame is in memory (``Deferred.other_in_memory``), on a
    thread of ours beside the plan (a phase of its own, on one core, in the plan).
    """
    source, count, outside = None, None, None
    state = current()
    if suspect is None and in_memory and state is not None and not state.small:
        # an eager call's frame: its hashes sorted as one series (half the CPU of the sort in the plan)
        hashes = frame.select(key_hash(keys).alias("count"))
        suspect = hashes.map_batches(sorted_repeats, schema=_COUNT)
        if state.other_in_memory:  # read again for nothing: sorted on one core of ours beside the plan
            def sort_here() -> int:
                return sorted_repeats(hashes.collect(engine="in-memory"), multithreaded=False).item()

            outside = _own_thread.in_background(sort_here, state.rows or 0)
    if suspect is None:
        if state is not None and state.small:  # a few rows: a hash set costs less than a sort
            count = (pl.len() - pl.struct(keys).hash().n_unique()).cast(pl.UInt64)
        else:
            hashes = key_hash(keys)
            # rows less runs of equal sorted hashes: one sort (comparing the sorted column with its
            # shift sorted it twice, at 3M qrels rows 0.16 s of CPU against 0.08)
            count = (pl.len() - hashes.sort().rle().len()).cast(pl.UInt64)
        source, suspect = frame, frame.select(count=count)

    def explain(count: int) -> str:
        indexed = frame.with_row_index(_ROW).filter(pl.len().over(keys) > 1)
        found = indexed.select(
            pl.struct(keys).n_unique().alias("combinations"),
            pl.col(_ROW).min().alias("row"),
        ).collect()
        combinations, row = found.row(0)
        if not combinations:
            return ""  # a hash collision, not a repeat
        first = indexed.filter(pl.col(_ROW) == row).collect().row(0, named=True)
        times = indexed.filter(pl.all_horizontal(pl.col(k) == first[k] for k in keys)).select(pl.len())
        example = ", ".join(f"{k}={first[k]!r}" for k in keys)
        return (
            f"{combinations} ({', '.join(keys)}) combinations occur more than once in the {label}; "
            f"the first repeated row is row {row} (counting from 0): {example}, "
            f"{times.collect().item()} times; {fix}"
        )

    return Problem(suspect, explain, source=source, count=count, outside=outside)


_pending = threading.local()  # the call that collects at once, if any (see ``deferred``)

# an eager input below this many run rows is evaluated with the plan and engine that cost
# least per call (exact ranks directly, the in-memory engine); above, with those that scale
SMALL_ROWS = 200_000
# an eager input below this many run rows is collected without the optimizer: for an evaluation
# of 2,000 rows its passes cost more than they save (about a quarter of the call; projection
# pushdown and the search for common subplans most); from some thousands of rows on they pay
# (a judged frame of 6,000 rows is faster with them). The small path marks what its plans
# share with explicit caches.
UNOPTIMIZED_ROWS = 5_000
# the same for an evaluation (evaluate, summarize), whose plan gains less from the optimizer than a
# judged frame: without it, 6,000 rows take 10 % less time, 20,000 rows 5 %, 100,000 rows the same
EVALUATION_UNOPTIMIZED_ROWS = 50_000
# an eager input above this many run rows is ranked a slice of this many rows at a time (a window
# function's working memory grows with its rows; see ``judged_ranks._score_ranks``)
CHUNK_ROWS = 1_250_000


@dataclass
class Deferred:
    """Checks set aside by :func:`attach`, and the row count of the eager input, if known."""

    checks: list[Problem]
    rows: int | None = None
    unoptimized_rows: int = UNOPTIMIZED_ROWS
    # whether the call's other input (the qrels) is an in-memory frame too, set by the front end:
    # a check of its own may then read it on a thread of ours (see ``duplicate_problem``)
    other_in_memory: bool = False

    @property
    def small(self) -> bool:
        return self.rows is not None and self.rows < SMALL_ROWS

    @property
    def few(self) -> bool:
        """Whether the plan is collected without the optimizer (below ``unoptimized_rows``)."""
        return self.small and self.rows is not None and self.rows < self.unoptimized_rows

    @property
    def optimizations(self) -> pl.QueryOptFlags:
        return pl.QueryOptFlags.none() if self.few else pl.QueryOptFlags()

    @property
    def chunks(self) -> int:
        """How many row slices an eager run is ranked in (1: at once)."""
        if self.rows is None or self.small:
            return 1
        return max(1, -(-self.rows // CHUNK_ROWS))


@contextlib.contextmanager
def deferred(rows: int | None = None, unoptimized_rows: int = UNOPTIMIZED_ROWS) -> Iterator[Deferred]:
    """Within the block, :func:`attach` returns the result as it is and sets its checks aside,
    for a caller that collects the result at once (an eager frame in, of ``rows`` rows):
    :func:`collect` then computes result and checks in one ``collect_all``, without the
    gate branch a lazy result carries. Messages come from the same :class:`Problem`
    values either way."""
    previous = getattr(_pending, "state", None)
    state = Deferred([], rows, unoptimized_rows)
    _pending.state = state
    try:
        yield state
    finally:
        _pending.state = previous


@contextlib.contextmanager
def immediate() -> Iterator[None]:
    """Within the block, :func:`attach` gates results again even inside a :func:`deferred` block:
    for a plan that collects its own pieces (the partitioned path) and reports their checks."""
    previous = getattr(_pending, "state", None)
    _pending.state = None
    try:
        yield
    finally:
        _pending.state = previous


def current() -> Deferred | None:
    """The innermost :func:`deferred` block's state (``None`` outside one: a lazy call)."""
    return getattr(_pending, "state", None)


def _as_problems(problems: Sequence[pl.LazyFrame | Problem]) -> list[Problem]:
    return [p if isinstance(p, Problem) else Problem(p, _as_given) for p in problems]


_NO_MESSAGE = pl.lit(None, pl.String).alias("message")  # expressions are immutable: built once


@functools.lru_cache(maxsize=64)
def _check_number(i: int) -> pl.Expr:
    return pl.lit(i, pl.UInt32).alias(_CHECK)


def _tallies(checks: Sequence[Problem]) -> pl.LazyFrame:
    """``[count, message, check]``: one row per check that fired (count above 0).

    Checks that count over one source (the same frame) are counted in one ``select``, each
    its own column, then turned into rows: fewer steps than a branch per check."""
    by_source: dict[int, list[int]] = {}
    for i, c in enumerate(checks):
        if c.source is not None and c.count is not None:
            by_source.setdefault(id(c.source), []).append(i)
    parts, done = [], set()
    for i, c in enumerate(checks):
        if i in done:
            continue
        shared = by_source.get(id(c.source), []) if c.source is not None else []
        if len(shared) > 1:
            counts = c.source.select(checks[j].count.alias(str(j)) for j in shared)  # type: ignore[union-attr]
            parts.append(counts.unpivot(variable_name=_CHECK, value_name="count").select(
                "count", _NO_MESSAGE, pl.col(_CHECK).cast(pl.UInt32),
            ))
            done.update(shared)
            continue
        parts.append(c.frame.select(
            pl.col("count").cast(pl.UInt64),
            pl.col("message") if c.explain is _as_given else _NO_MESSAGE,
            _check_number(i),
        ))
    return pl.concat(parts).filter(pl.col("count") > 0)


def _report(checks: Sequence[Problem], fired: list[dict[str, object]], stacklevel: int) -> None:
    """Raise the first error among the checks that fired (in the order given), else warn."""
    fired.sort(key=lambda r: (checks[r[_CHECK]].warn, r[_CHECK]))  # type: ignore[index]
    for report in fired:
        check = checks[report[_CHECK]]  # type: ignore[index]
        text = report["message"] if check.explain is _as_given else check.explain(report["count"])  # type: ignore[arg-type]
        if text and check.warn:
            warnings.warn(str(text), UserWarning, stacklevel=stacklevel)
        elif text:
            raise ValueError(text)


def attach(result: pl.LazyFrame, problems: Sequence[pl.LazyFrame | Problem]) -> pl.LazyFrame:
    """Make ``result`` raise (or warn) on collect when a check fires, even when it is empty.

    ``problems`` are :class:`Problem` values, or frames of ``(count, message)`` rows
    whose message is used as it is. The checks are evaluated beside the result (a
    union with a branch that yields no rows), so they run whatever the result holds;
    errors come before warnings, in the order given, each a single ``ValueError``.
    Inside :func:`deferred`, the checks are handed to the caller instead.
    """
    if not problems:
        return result
    checks = _as_problems(problems)
    state = current()
    if state is not None:
        state.checks.extend(checks)
        return result
    fired = _tallies(checks).select(pl.struct(pl.all()).implode().alias(_FIRED))

    def verdict(frame: pl.DataFrame) -> pl.DataFrame:
        found = frame.get_column(_FIRED).explode().drop_nulls().to_list()
        _report(checks, found, stacklevel=2)
        return empty

    schema = result.collect_schema()
    empty = pl.DataFrame(schema=schema)
    # a frame-level function: polars re-raises its error as it is (an expression's error gets
    # the expression appended to its message)
    gate = fired.map_batches(verdict, schema=schema, streamable=False)
    return pl.concat([result, gate], how="vertical")


def collect(result: pl.LazyFrame, stacklevel: int = 4) -> pl.DataFrame:
    """``result`` collected with the checks the current :func:`deferred` block set aside,
    raising or warning as an attached result would. Both are computed in one ``collect_all``
    (shared parts once); if that fails, the checks alone are computed, so bad data gets our
    message rather than the engine's error. Small inputs run on the in-memory engine, which
    starts faster, the smallest without the optimizer (``UNOPTIMIZED_ROWS``); the values are
    the same bits either way."""
    state = current()
    small = state is not None and state.small
    engine = "in-memory" if small else "auto"
    flags = state.optimizations if state is not None else pl.QueryOptFlags()
    checks = state.checks if state is not None else []
    if not checks:
        return result.collect(engine=engine, optimizations=flags)
    return collect_counted(result, Counted.of(checks), engine, flags, stacklevel + 1)


@dataclass(frozen=True)
class Counted:
    """Checks set aside by :func:`deferred`, ready to be computed beside a result: their counts
    as one row, a column per check (named by its position; checks of one source counted in one
    ``select``), and the ``(count, message)`` frames of the checks that carry their own messages,
    by position. Fewer steps than :func:`_tallies`' rows; read in Python."""

    checks: tuple[Problem, ...]
    row: pl.LazyFrame
    given: dict[int, pl.LazyFrame]
    outside: dict[int, Callable[[], int]]  # counts from outside the plan, by position

    @classmethod
    def of(cls, checks: Sequence[Problem]) -> Counted:
        by_source: dict[int, tuple[pl.LazyFrame, list[pl.Expr]]] = {}
        parts: list[pl.LazyFrame] = []
        given: dict[int, pl.LazyFrame] = {}
        outside: dict[int, Callable[[], int]] = {}
        for i, c in enumerate(checks):
            if c.outside is not None:
                outside[i] = c.outside
            elif c.explain is _as_given:
                given[i] = c.frame.select(pl.col("count").cast(pl.UInt64), pl.col("message"))
            elif c.source is not None and c.count is not None:
                by_source.setdefault(id(c.source), (c.source, []))[1].append(c.count.alias(str(i)))
            else:
                parts.append(c.frame.select(pl.col("count").cast(pl.UInt64).alias(str(i))))
        parts += [source.select(counts) for source, counts in by_source.values()]
        row = pl.concat(parts, how="horizontal") if parts else pl.LazyFrame()
        return cls(tuple(checks), row, given, outside)


def collect_counted(
    result: pl.LazyFrame, counted: Counted, engine: str, flags: pl.QueryOptFlags, stacklevel: int
) -> pl.DataFrame:
    """``result`` and the ``counted`` checks in one ``collect_all``, raising or warning as an
    attached result would; if that fails, the checks alone are computed, so bad data gets our
    message rather than the engine's error."""
    checks = counted.checks
    try:
        frame, row, *given = pl.collect_all(
            [result, counted.row, *counted.given.values()], engine=engine, optimizations=flags  # type: ignore[arg-type]
        )
    except pl.exceptions.PolarsError:
        tallies = _tallies(checks).collect(engine=engine, optimizations=flags)  # type: ignore[arg-type]
        _report(checks, tallies.to_dicts(), stacklevel)
        raise
    counts = {int(i): n for i, n in row.row(0, named=True).items()} if row.height else {}
    for i, count in counted.outside.items():  # (begun beside the plan: done, or nearly)
        counts[i] = count()  # (a check counted outside has no column in the plan's row)
    fired = [{"count": n, "message": None, _CHECK: i} for i, n in counts.items() if n]
    for i, found in zip(counted.given, given, strict=True):
        fired += [{**r, _CHECK: i} for r in found.filter(pl.col("count") > 0).to_dicts()]
    _report(checks, fired, stacklevel)
    return frame



def _as_given(count: int) -> str:
    """Marks a check whose frame carries its own message."""
    return ""
