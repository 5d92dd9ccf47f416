"""Joining a run with its judgements: trec_eval's ranking rules in one lazy query.

:func:`judge` is the one place where a run becomes rankings. Every front
end (polars and pandas namespaces, ``evaluate``, the CLI) goes through it,
and every ranking measure reads its output.

Rules (trec_eval's ``form_res_rels``):

- Within each query (and each ``by`` group), documents are ordered by score,
  highest first, scores compared as doubles as trec_eval 10.0 reads them
  (pytrec_eval, on trec_eval 9.x, compares them in single precision, so
  0.89124103 and 0.89124099 tie there and not here); equal scores are ordered by
  doc_id *descending* as strings
  (integer ids by their decimal text, as trec_eval sees them). A rank column
  in the run is ignored and replaced.
- ``depth=n`` (trec_eval ``-M``) keeps ranks ``1..n`` after that ordering.
- Queries evaluated: those in both run and qrels. ``complete=True``
  (trec_eval ``-c``) adds every qrels query the run lacks, with no
  retrieved documents, so it scores 0 on every measure. Queries only in
  the run are never evaluated (they have no judgements).
- Judged documents the run did not retrieve are kept as rows with a null
  rank, so measures can count relevant documents that were missed.
- ``judged_only=True`` (trec_eval ``-J``) drops every retrieved document
  without a judgement of 0 or more (negative judgements included) after
  ``depth``, and ranks the rest 1, 2, ... in their order; a query keeps being
  evaluated when none is left (nothing retrieved).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from frame_eval import _checks

Duplicates = Literal["error", "max"]
INTERNAL = "__frame_eval"  # the prefix of every column frame_eval adds inside a query


@dataclass(frozen=True)
class RunColumns:
    """Column names of a run and its qrels, and the ``by`` keys of the run."""

    query_id: str = "query_id"
    doc_id: str = "doc_id"
    score: str = "score"
    relevance: str = "relevance"
    rank: str = "rank"
    by: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = {"query_id": self.query_id, "doc_id": self.doc_id, "score": self.score,
                 "relevance": self.relevance, "rank": self.rank}
        for role, name in names.items():
            if not isinstance(name, str):
                raise TypeError(f"{role}= takes a column name (a string), got {name!r}")
        for key in self.by:
            if not isinstance(key, str):
                raise TypeError(f"by= takes column names (strings), got {key!r}")
            if key.startswith(INTERNAL):
                raise ValueError(f"by= column {key!r} uses the prefix {INTERNAL!r} that frame_eval keeps "
                                 f"for its own columns; rename it")
            for role, name in names.items():
                if key == name:
                    raise ValueError(f"by= names {key!r}, which is already the {role} column; "
                                     f"by= is for the columns that tell runs apart, such as a system name")
        repeated = sorted({k for k in self.by if self.by.count(k) > 1})
        if repeated:
            raise ValueError(f"by= names {repeated[0]!r} more than once")

    @property
    def query_keys(self) -> list[str]:
        return [*self.by, self.query_id]


def as_by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    return tuple(by)


def _prepare(
    run: pl.LazyFrame, qrels: pl.LazyFrame, cols: RunColumns
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.DataType, list[_checks.Problem]]:
    """Check schemas and cast ids to one dtype per column.

    Returns (run, qrels, doc dtype, checks of values the casts cannot carry)."""
    problems: list[_checks.Problem] = []
    run_schema, qrels_schema = run.collect_schema(), qrels.collect_schema()
    _checks.require_columns(
        run_schema, [*cols.by, cols.query_id, cols.doc_id, cols.score], "run",
        "pass query_id=, doc_id=, score= or by= with your column names",
    )
    _checks.require_columns(
        qrels_schema, [cols.query_id, cols.doc_id, cols.relevance], "qrels",
        "pass query_id=, doc_id= or relevance= with your column names",
    )
    if cols.relevance in run_schema:
        raise ValueError(
            f"run already has a column {cols.relevance!r}, which judge() would fill from the qrels; "
            f"rename or drop it in the run first"
        )
    if cols.rank in (*cols.by, cols.query_id, cols.doc_id, cols.score):
        raise ValueError(f"the rank column name {cols.rank!r} is also an input column; pass rank=")
    _checks.require_numeric(run_schema, cols.score, "run")
    _checks.require_integer(qrels_schema, cols.relevance, "qrels")
    casts_run, casts_qrels = [], []
    doc_dtype: pl.DataType = pl.String
    for name in (cols.query_id, cols.doc_id):
        target = _checks.common_id_dtype(name, run_schema[name], qrels_schema[name], ("run", "qrels"))
        if name == cols.doc_id:
            doc_dtype = target
        if run_schema[name] != target:
            casts_run.append(pl.col(name).cast(target))
        if qrels_schema[name] != target:
            casts_qrels.append(pl.col(name).cast(target))
    if run_schema[cols.score] != pl.Float64:
        casts_run.append(pl.col(cols.score).cast(pl.Float64))
    if qrels_schema[cols.relevance] == pl.UInt64:  # judgements beyond Int64 are errors, not nulls
        too_large = pl.col(cols.relevance) > _INT64_MAX
        problems.append(_checks.value_problem(
            qrels, too_large, f"judgements above {_INT64_MAX} in qrels column {cols.relevance!r}",
            "judgements are small integers: check the column", value=cols.relevance,
        ))
        casts_qrels.append(pl.when(~too_large).then(pl.col(cols.relevance)).cast(pl.Int64))
    elif qrels_schema[cols.relevance] != pl.Int64:
        casts_qrels.append(pl.col(cols.relevance).cast(pl.Int64))
    if cols.rank in run_schema:
        run = run.drop(cols.rank)
    if casts_run:
        run = run.with_columns(casts_run)
    qrels = qrels.select(cols.query_id, cols.doc_id, cols.relevance)
    if casts_qrels:
        qrels = qrels.with_columns(casts_qrels)
    return run, qrels, doc_dtype, problems


# columns that usually tell runs apart: a repeated (query, document) with one of these
# most likely means a forgotten by=, not a repeated document
_RUN_LABELS = ("system", "run_id", "run", "runid", "run_name", "model", "method", "tag", "config")


def _problems(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    duplicates: Duplicates,
    run_repeats: pl.LazyFrame | None = None,
    run_counted: pl.LazyFrame | None = None,
) -> list[pl.LazyFrame | _checks.Problem]:
    problems: list[pl.LazyFrame | _checks.Problem] = []
    problems += _checks.null_problems(
        run, [*cols.query_keys, cols.doc_id, cols.score], "run", counted=run_counted
    )
    problems += _checks.null_problems(qrels, [cols.query_id, cols.doc_id, cols.relevance], "qrels")
    if duplicates == "error":
        labels = [c for c in run.collect_schema().names() if c.lower() in _RUN_LABELS and c not in cols.by]
        fix = "keep one row per document, or pass duplicates='max' to keep its highest score"
        if labels:
            fix = (
                f"if column {labels[0]!r} tells runs apart, pass by={labels[0]!r} to evaluate each "
                f"separately; otherwise {fix}"
            )
        problems.append(
            _checks.duplicate_problem(run, [*cols.query_keys, cols.doc_id], "run", fix, run_repeats)
        )
        problems.append(
            _checks.duplicate_problem(
                qrels, [cols.query_id, cols.doc_id], "qrels",
                "keep one judgement per document, or pass duplicates='max' to keep the highest",
            )
        )
    return problems


def rank_expr(cols: RunColumns, doc_dtype: pl.DataType) -> pl.Expr:
    """1-based rank within each query: score descending, then doc_id descending as text.

    One stable ordinal rank of the (score, doc_id) pair per query: exact for every
    input, and what :func:`judge_lazy` uses for the whole frame. The evaluation path
    ranks by score alone and applies this only to queries with tied scores or a
    shared key hash (see :func:`_score_ranks`).
    """
    tie = pl.col(cols.doc_id)
    if doc_dtype != pl.String:
        tie = tie.cast(pl.String)
    # trec_eval 10.0 compares the scores as doubles (-0.0 ties with 0.0, as in C)
    order = pl.struct(pl.col(cols.score), tie)
    return order.rank("ordinal", descending=True).over(cols.query_keys).cast(pl.UInt32).alias(cols.rank)


def _sorted_ranks(run: pl.LazyFrame, cols: RunColumns, doc_dtype: pl.DataType) -> pl.LazyFrame:
    """``[*keys, doc_id, score, rank]`` sorted by the keys and rank, with :func:`rank_expr`'s ranks
    (for distinct (keys, doc_id) pairs): one sort by the keys, score descending and doc_id
    descending as text, each row's rank its position after the first row of its query. For
    a few rows this costs less than a window per query."""
    keys = cols.query_keys
    tie = pl.col(cols.doc_id)
    if doc_dtype != pl.String:
        tie = tie.cast(pl.String)
    # rows with equal sort keys repeat a (keys, doc_id) pair: an error, or left out by
    # duplicates="max" before ranking, so the sort needs no stable order
    order = run.select(*keys, cols.doc_id, cols.score).sort(
        [*keys, cols.score, tie], descending=[*(False for _ in keys), True, True]
    )
    row = pl.int_range(pl.len(), dtype=pl.UInt32)
    changed = [pl.col(k).ne_missing(pl.col(k).shift()) for k in keys]
    starts = changed[0] if len(changed) == 1 else pl.any_horizontal(changed)
    return order.with_columns((row - pl.when(starts).then(row).forward_fill() + 1).alias(cols.rank))


_GROUP = "__frame_eval_group"
_NUM_RET = "__frame_eval_num_ret"
_RANK_SUM = "__frame_eval_rank_sum"
_EXACT = "__frame_eval_exact_rank"
_REPEATS = "__frame_eval_repeats"
_JUDGED = "__frame_eval_judged"


def _group_hash(keys: Sequence[str]) -> pl.Expr:
    """64-bit hash of the query keys: the window the score ranks are taken in (tests replace
    it with a colliding one to exercise the exact path)."""
    return pl.struct(keys).hash() if len(keys) > 1 else pl.col(keys[0]).hash()


def _score_ranks(
    run: pl.LazyFrame, cols: RunColumns, doc_dtype: pl.DataType, *, small: bool = False,
    slices: Sequence[tuple[int, int]] = (),
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame | None]:
    """Ranks by score alone, the query groups, and exact ranks for the queries that need them.

    Ranking every row by the (score, doc_id) pair is the costliest step of an
    evaluation; ranking by the score alone (``"min"`` ranks), in
    windows keyed by a 64-bit hash of the query keys, costs about half. Those ranks
    are trec_eval's for every query that has no tied scores and a window of its own,
    and both conditions are checked exactly from sums the group-by computes anyway:

    - a query of ``n`` documents without ties, alone in its window, has the min ranks
      ``1..n``, summing to ``n (n + 1) / 2``; a tie makes the sum smaller;
    - a window shared by two queries (equal hashes) shows as one hash on two groups.
      Sharing only raises ranks, so it can lift a tied query's sum to exactly
      ``n (n + 1) / 2``; hence the second check.

    Every query of a window that fails either check is ranked again by the pair.

    ``slices`` (``(offset, length)`` pairs covering an in-memory run, whose slices cost nothing):
    the windows are taken within each slice, one slice after the other. A window function's
    working memory grows with its rows (at 10M rows about 300 MB for a 40 MB rank column), a
    slice's is a fraction of it, and the values do not change: a query cut by a slice boundary
    has windows short of its rows, so its rank sum is short of ``n (n + 1) / 2`` and it is
    ranked again by the pair. A run stored by query (as TREC runs are) has few such queries.
    Repeated documents are counted per window too (a distinct count's hash sets also grow with
    the rows), and over all rows of the re-ranked queries, where a slice boundary may part two
    copies of a document.

    Returns ``(scored, ranked, groups, repeats, exact)``: the run's key, document and score
    columns as read once (the data checks count on them; a sliced run's own, in memory, so that
    the cached ranks carry no score), the run as ``[*keys, doc_id, rank]``
    ranked by score, ``[*keys, num_ret]`` for every query of the run, ``[count]``: rows less
    distinct doc_id hashes per window (0 unless a document repeats or two hashes collide, so a
    positive count may over-report, never miss, a repeat), and ``[*keys, doc_id, exact]`` with
    the (score, doc_id) rank of every document of the re-ranked queries (usually none), which
    takes precedence over ``rank``.

    ``small`` (an eager input of a few rows, where the cost is per step, not per row): every
    row is ranked by the pair at once, in one sort (:func:`_sorted_ranks`), and ``exact`` is
    ``None``.
    """
    keys = cols.query_keys
    n = pl.len().cast(pl.UInt64)
    repeated = (n - pl.col(cols.doc_id).hash().n_unique()).alias(_REPEATS)
    total = pl.col(_REPEATS).sum().cast(pl.UInt64).alias("count")
    if small:
        ranked = _sorted_ranks(run, cols, doc_dtype).cache()
        groups = ranked.group_by(keys).agg(pl.len().cast(pl.UInt32).alias(_NUM_RET), repeated).cache()
        repeats = groups.select(total)
        by_rank = ranked.select(*keys, cols.doc_id, cols.rank)
        return ranked, by_rank, groups.select(*keys, _NUM_RET), repeats, None
    score_rank = pl.col(cols.score).rank("min", descending=True).over(_GROUP)

    sliced = len(slices) > 1

    def rank_by_score(rows: pl.LazyFrame) -> pl.LazyFrame:
        ranks = rows.select(*keys, cols.doc_id, cols.score, _group_hash(keys).alias(_GROUP)).with_columns(
            score_rank.cast(pl.UInt32).alias(cols.rank)
        )
        # an in-memory run (sliced) is counted where it is: the cached ranks need no score or hash
        return ranks.select(*keys, cols.doc_id, cols.rank) if sliced else ranks

    if sliced:
        pieces = [rank_by_score(run.slice(start, length)) for start, length in slices]
        ranked = pl.concat(pieces, parallel=False)
    else:
        ranked = rank_by_score(run)
    ranked = ranked.cache()  # read three times below: rank once
    groups = ranked.group_by(keys).agg(
        pl.len().cast(pl.UInt32).alias(_NUM_RET),
        *([] if sliced else [pl.col(_GROUP).first()]),
        pl.col(cols.rank).cast(pl.UInt64).sum().alias(_RANK_SUM) != n * (n + 1) // 2,
        *([] if sliced else [repeated]),
    )
    if sliced:  # the hash of 100,000 query keys costs less than carrying it on 10M ranked rows
        groups = groups.with_columns(_group_hash(keys).alias(_GROUP))
    groups = groups.cache()  # read by the evaluation, the exact re-rank and the duplicate check
    suspect = groups.filter(pl.col(_RANK_SUM) | pl.col(_GROUP).is_duplicated()).select(_GROUP)
    if sliced:
        # from the run itself (in memory: read again for free), so that no step waits for the
        # groups with all ranked rows held for it; read by the exact ranks and the repeats
        queries = groups.join(suspect, on=_GROUP, how="semi").select(keys)
        again = run.select(*keys, cols.doc_id, cols.score).join(queries, on=keys, how="semi").cache()
        per_window = [
            run.slice(start, length).group_by(_group_hash(keys).alias(_GROUP)).agg(repeated).select(_REPEATS)
            for start, length in slices
        ]
        per_query = again.group_by(keys).agg(repeated)
        repeats = pl.concat([*per_window, per_query.select(_REPEATS)], parallel=False)
        repeats = repeats.select(total)
    else:
        again = ranked.join(suspect, on=_GROUP, how="semi").select(*keys, cols.doc_id, cols.score)
        repeats = groups.select(total)
    exact = again.select(*keys, cols.doc_id, rank_expr(cols, doc_dtype).alias(_EXACT))
    by_rank = ranked.select(*keys, cols.doc_id, cols.rank)
    scored = run.select(*keys, cols.doc_id, cols.score) if sliced else ranked
    return scored, by_rank, groups.select(*keys, _NUM_RET), repeats, exact


@dataclass(frozen=True)
class _Plan:
    """The pieces every judged frame is built from."""

    run: pl.LazyFrame  # the checked, cast run
    ranked: pl.LazyFrame  # [*keys, doc_id, rank]: ranks by score alone (see _score_ranks)
    exact: pl.LazyFrame | None  # [*keys, doc_id, exact]: (score, doc_id) ranks where they differ
    depth: int | None
    groups: pl.LazyFrame  # [*keys, num_ret]: every (by, query) evaluated
    qrels: pl.LazyFrame  # [*keys, doc_id, relevance]: the judgements of every group
    problems: list[pl.LazyFrame | _checks.Problem]
    doc_dtype: pl.DataType
    # the checked qrels, when the ranked run can be joined with them before the groups are known
    # (no by=): a join that waits for the groups makes the engine hold every ranked row meanwhile
    judgements: pl.LazyFrame | None = None


_INT64_MAX = 2**63 - 1
_RANK_LIMIT = 2**32 - 1  # ranks are UInt32: a cutoff or depth beyond it limits nothing


def mostly_unjudged(judged: pl.Expr, queries: pl.Expr) -> pl.Expr:
    """True when fewer than half of ``queries`` run queries have judgements (``judged`` of them):
    the overlap check of :func:`_overlap_problem`, also applied by :mod:`frame_eval.engines`."""
    return judged * 2 < queries


def overlap_message(judged: int, queries: int, qrels_queries: int, example_run: object,
                    example_qrels: object) -> str:
    """The overlap check's message: ``judged`` of the run's ``queries`` query ids appear among the
    ``qrels_queries`` ids of the qrels; the examples are the first run id without judgements and
    the first qrels id in sorted order (``None``: there is none)."""
    run_example = "none" if example_run is None else repr(example_run)
    qrels_example = "none (the qrels are empty)" if example_qrels is None else repr(example_qrels)
    return (
        f"only {judged} of the run's {queries} queries have judgements in the qrels "
        f"({qrels_queries} queries); queries without judgements are not evaluated. "
        f"Run query ids look like {run_example}, qrels ids like {qrels_example}: check that both "
        f"name queries the same way (strict=True makes this an error)"
    )


def _overlap_problem(
    run_queries: pl.LazyFrame, judged_queries: pl.LazyFrame, query_id: str, strict: bool,
    judged_groups: pl.LazyFrame | None = None,
) -> _checks.Problem:
    """Fires when fewer than half of the run's queries have judgements (none at all included):
    a warning, or with ``strict`` an error, naming both counts and an example of each side.
    ``judged_groups``: the run's queries that have judgements, when the caller has them
    already, and ``run_queries`` holds each query once: both are counted, nothing joined."""
    run_ids = run_queries.select(query_id).unique()
    if judged_groups is None:
        # judged_queries holds each id once, so the left join keeps one row per run query
        judged = judged_queries.with_columns(pl.lit(True).alias(_JUDGED))
        tally = run_ids.join(judged, on=query_id, how="left").select(
            count=mostly_unjudged(pl.col(_JUDGED).count(), pl.len()).cast(pl.UInt64)
        )
    else:
        sizes = [run_queries.select(pl.len().alias("all")), judged_groups.select(pl.len().alias("judged"))]
        tally = pl.concat(sizes, how="horizontal").select(
            count=mostly_unjudged(pl.col("judged"), pl.col("all")).cast(pl.UInt64)
        )

    def explain(count: int) -> str:
        run_side = run_ids.sort(query_id).collect().get_column(query_id)
        qrels_side = judged_queries.sort(query_id).collect().get_column(query_id)
        common = run_side.is_in(qrels_side.implode()).sum()
        only_run = run_side.filter(~run_side.is_in(qrels_side.implode()))
        return overlap_message(common, run_side.len(), qrels_side.len(),
                               only_run[0] if only_run.len() else None,
                               qrels_side[0] if qrels_side.len() else None)

    return _checks.Problem(tally, explain, warn=not strict)


_SAMPLE_ROWS = 100_000


def _stored_by_query(run: pl.LazyFrame, keys: Sequence[str]) -> bool:
    """Whether the first rows of an eager run come a query at a time (as TREC runs do), so that
    slices of rows part few queries; only the speed of ranking by slices depends on it."""
    key = pl.struct(keys) if len(keys) > 1 else pl.col(keys[0])
    changes, distinct = run.head(_SAMPLE_ROWS).select(
        (key != key.shift()).sum().alias("changes"), key.n_unique().alias("distinct")
    ).collect(engine="in-memory").row(0)
    return changes + 1 <= 2 * distinct


def _plan(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    complete: bool,
    depth: int | None,
    duplicates: Duplicates,
    *,
    strict: bool = False,
    whole_run: bool = False,
    judged_only: bool = False,
) -> _Plan:
    """The shared pieces; ``whole_run`` keeps every run column (for the judged frame)."""
    if not isinstance(judged_only, bool):
        raise TypeError(f"judged_only must be True or False (trec_eval -J), got {judged_only!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise ValueError(f"depth must be a positive integer (trec_eval -M), got {depth!r}")
    if duplicates not in ("error", "max"):
        raise ValueError(f"duplicates must be 'error' or 'max', got {duplicates!r}")
    if depth is not None and depth >= _RANK_LIMIT:
        depth = None
    run, qrels, doc_dtype, cast_problems = _prepare(run, qrels, cols)
    # every input is read once per collect: what is read twice comes from a cache
    qrels = qrels.cache()
    if whole_run or duplicates == "max":
        run = run.cache()
    checked_run, checked_qrels = run, qrels
    keys = cols.query_keys
    if duplicates == "max":
        run = run.sort(cols.score, descending=True, nulls_last=True).unique(
            [*keys, cols.doc_id], keep="first"
        )
        qrels = qrels.sort(cols.relevance, descending=True).unique(
            [cols.query_id, cols.doc_id], keep="first"
        )
    state = _checks.current()  # an eager call of a few rows ranks the simplest way
    small = state is not None and state.small
    judged_queries = qrels.select(cols.query_id).unique()
    if small:  # read three times (its plan collects without common-subplan search)
        judged_queries = judged_queries.cache()
    if judged_only:
        run_queries = run.select(keys).unique()
        if depth is not None:  # trec_eval cuts the ranking first, then drops the unjudged
            run = run.filter(rank_expr(cols, doc_dtype) <= depth)
            depth = None
        judged_docs = qrels.filter(pl.col(cols.relevance) >= 0).select(cols.query_id, cols.doc_id)
        run = run.join(judged_docs, on=[cols.query_id, cols.doc_id], how="semi")
        if whole_run or duplicates == "max":
            run = run.cache()
    slices: list[tuple[int, int]] = []
    if state is not None and state.rows is not None and state.chunks > 1 and duplicates == "error" \
            and not judged_only and not whole_run and _stored_by_query(run, keys):
        step = -(-state.rows // state.chunks)  # the eager run as given: its slices cost nothing
        slices = [(start, step) for start in range(0, state.rows, step)]
    scored, ranked, counts, repeats, exact = _score_ranks(run, cols, doc_dtype, small=small, slices=slices)
    # nulls are counted on the columns the ranking reads anyway (after duplicates='max'
    # they may be gone: then the run itself is counted)
    counted = scored if duplicates == "error" else None
    if judged_only:  # the checks read the whole run; queries left with nothing retrieved stay
        repeats, counted = None, None
        counts = run_queries.join(counts, on=keys, how="left").with_columns(pl.col(_NUM_RET).fill_null(0))
    problems = cast_problems + _problems(checked_run, checked_qrels, cols, duplicates, repeats, counted)
    queries_run = counts  # one row per query of the run (before depth clips num_ret)
    if depth is not None:
        counts = counts.with_columns(pl.col(_NUM_RET).clip(upper_bound=depth))
    if complete:
        every = (
            counts.select(cols.by).unique().join(judged_queries, how="cross") if cols.by else judged_queries
        )
        groups = every.join(counts, on=keys, how="left").with_columns(pl.col(_NUM_RET).fill_null(0))
    else:  # a small call's semi-join reads the qrels' ids as they are (a step less than unique ones)
        groups = counts.join(qrels.select(cols.query_id) if small else judged_queries, on=cols.query_id,
                             how="semi")
    if small:
        groups = groups.cache()
    # without by= and complete, the groups are the run's judged queries, one row each: counted as
    # they are rather than joined again (a step less for a small call)
    judged_groups = groups if small and not complete and not cols.by else None
    problems.append(_overlap_problem(queries_run, judged_queries, cols.query_id, strict, judged_groups))
    group_qrels = groups.select(keys).join(qrels, on=cols.query_id)
    # without by=, the judgements join the ranked rows as they are (then kept for the evaluated
    # queries): for a sliced run, no step waits for the groups; for a small one, a join less
    judgements = qrels if (slices or small) and not cols.by else None
    return _Plan(run, ranked, exact, depth, groups, group_qrels, problems, doc_dtype, judgements)


Checked = tuple[pl.LazyFrame, list[pl.LazyFrame | _checks.Problem]]


def judged_frame(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    judged_only: bool = False,
) -> Checked:
    """The judged frame and its data checks (see :func:`judge_lazy`)."""
    plan = _plan(run, qrels, cols, complete, depth, duplicates, strict=strict, whole_run=True,
                 judged_only=judged_only)
    keys = cols.query_keys
    doc_keys = [*keys, cols.doc_id]
    ranked = plan.run.join(plan.groups.select(keys), on=keys, how="semi").with_columns(
        rank_expr(cols, plan.doc_dtype)
    )
    if plan.depth is not None:
        ranked = ranked.filter(pl.col(cols.rank) <= plan.depth)
    judged = ranked.join(plan.qrels, on=doc_keys, how="full", coalesce=True)
    rest = [c for c in plan.run.collect_schema().names() if c not in (*doc_keys, cols.score)]
    judged = judged.select(*doc_keys, cols.rank, cols.relevance, cols.score, *rest).sort(
        [*keys, cols.rank, cols.doc_id], nulls_last=True
    )
    return judged, plan.problems


def judge_lazy(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    judged_only: bool = False,
    ties: Literal["docid", "optimistic", "pessimistic"] = "docid",
) -> pl.LazyFrame:
    """The judged frame, lazily; see the module docstring for the rules.

    Columns: ``[*by, query_id, doc_id, rank, relevance, score, <other run columns>]``,
    sorted by the query keys and rank, missed documents last. Bad data raises on collect.
    ``ties="optimistic"`` (``"pessimistic"``) orders documents with equal scores by
    judgement, highest (lowest) first, then by doc_id as trec_eval does: the best (worst)
    ranking the scores allow. ``depth`` then keeps the first ``depth`` of that order.
    """
    if ties not in ("docid", "optimistic", "pessimistic"):
        hint = " (an expected value has no single ranking: use evaluate(ties='expected'))"
        raise ValueError(f"ties must be 'docid', 'optimistic' or 'pessimistic', got {ties!r}"
                         + (hint if ties == "expected" else ""))
    if ties != "docid" and judged_only:
        raise ValueError("ties= and judged_only=True are not offered together yet; pass one of them")
    frame, problems = judged_frame(
        run, qrels, cols, complete=complete, depth=None if ties != "docid" else depth,
        duplicates=duplicates, strict=strict, judged_only=judged_only,
    )
    if ties != "docid":
        frame = _rerank_ties(frame, cols, best_first=ties == "optimistic", depth=depth)
    return _checks.attach(frame, problems)


def _rerank_ties(
    frame: pl.LazyFrame, cols: RunColumns, *, best_first: bool, depth: int | None
) -> pl.LazyFrame:
    """Rank the retrieved rows again: score, then judgement (best or worst first), then the
    trec_eval rank; with ``depth``, rows past it leave the ranking (judged ones stay as missed)."""
    keys = cols.query_keys
    judgement = pl.col(cols.relevance).fill_null(0).clip(lower_bound=0)
    order = pl.struct(cols.score, judgement if best_first else -judgement, -pl.col(cols.rank).cast(pl.Int64))
    new_rank = order.rank("ordinal", descending=True).over(keys).cast(pl.UInt32).alias(cols.rank)
    retrieved = frame.filter(pl.col(cols.rank).is_not_null()).with_columns(new_rank)
    frame = pl.concat([retrieved, frame.filter(pl.col(cols.rank).is_null())])
    if depth is not None and depth < _RANK_LIMIT:
        beyond = pl.col(cols.rank) > depth
        frame = frame.filter(~beyond.fill_null(False) | pl.col(cols.relevance).is_not_null())
        run_columns = [c for c in frame.collect_schema().names()
                       if c not in (*keys, cols.doc_id, cols.rank, cols.relevance)]
        frame = frame.with_columns(
            pl.when(~beyond.fill_null(False)).then(pl.col(c)).alias(c) for c in [cols.rank, *run_columns]
        )
    return frame.sort([*keys, cols.rank, cols.doc_id], nulls_last=True)


def evaluation_frame(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    lowest_read: float | None = None,
    strict: bool = False,
    judged_only: bool = False,
) -> Checked:
    """A compact stand-in for the judged frame, ``[*keys, rank, relevance]``, for measures
    that read only judged documents and the depth of the ranking.

    It holds the judged documents of each evaluated query (rank null when missed) and one
    unjudged row per query at rank ``num_ret`` (null when nothing was retrieved), in place
    of the run's unjudged documents. Every measure whose spec does not set
    ``reads_unjudged`` gives the same value on it as on :func:`judge_lazy`'s frame, from
    a fraction of the rows. With ``lowest_read``, judgements below it are left out too
    (the measures' ``Measure.lowest_read``: what they can read); the evaluated queries
    stay those of all the qrels. Returns the frame and its data checks, to attach to
    whatever small result is computed from it.
    """
    plan = _plan(run, qrels, cols, complete, depth, duplicates, strict=strict, judged_only=judged_only)
    keys = cols.query_keys
    doc_keys = [*keys, cols.doc_id]
    group_qrels = plan.qrels if plan.judgements is None else plan.judgements
    if lowest_read is not None:
        group_qrels = group_qrels.filter(pl.col(cols.relevance) >= lowest_read)
    # the hash table on the judgements: the run's ranked rows (many more) stream past it
    judged = plan.ranked.join(group_qrels, on=doc_keys, how="right", build_side="force_right")
    if plan.judgements is not None and not complete:  # the judgements of queries the run has
        judged = judged.join(plan.groups.select(keys), on=keys, how="semi")
    # the few queries with tied scores (or a shared key hash) take their exact ranks
    rank = pl.col(cols.rank) if plan.exact is None else pl.coalesce(_EXACT, cols.rank)
    if plan.depth is not None:
        rank = pl.when(rank <= plan.depth).then(rank)
    if plan.exact is not None:
        judged = judged.join(plan.exact, on=doc_keys, how="left")
    judged = judged.select(*keys, rank.alias(cols.rank), cols.relevance)
    deepest = plan.groups.select(
        *keys,
        pl.when(pl.col(_NUM_RET) > 0).then(pl.col(_NUM_RET)).alias(cols.rank),
        pl.lit(None, dtype=pl.Int64).alias(cols.relevance),
    )
    return pl.concat([judged, deepest], how="vertical_relaxed"), plan.problems
