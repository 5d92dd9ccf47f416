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
from frame_eval.judged_columns import (  # noqa: F401  (re-exported: the names' old home)
    INTERNAL,
    Duplicates,
    RunColumns,
    _overlap_problem,
    _prepare,
    _problems,
    as_by,
    mostly_unjudged,
    overlap_message,
)
from frame_eval.judged_ranks import (
    _EXACT,
    _NUM_RET,
    _score_ranks,
    _stored_by_query,
    rank_expr,
)


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


QUERY_NUMBER = f"{INTERNAL}_query_number"  # evaluation_frame(numbered=True)'s number of each query
_RANK_LIMIT = 2**32 - 1  # ranks are UInt32: a cutoff or depth beyond it limits nothing


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
    numbered: bool = False,
) -> _Plan:
    """The shared pieces; ``whole_run`` keeps every run column (for the judged frame); ``numbered``
    gives each group a number (``QUERY_NUMBER``, on the groups and the plan's qrels)."""
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
            and not judged_only and not whole_run and _stored_by_query(run, keys, state.rows):
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
    # they are rather than joined again (a step less; at 10M rows a unique and a join of the run's
    # query ids less)
    judged_groups = groups if not complete and not cols.by else None
    problems.append(_overlap_problem(queries_run, judged_queries, cols.query_id, strict, judged_groups))
    if numbered:  # read by the judgements, the deepest ranks and the keys of each number
        groups = groups.with_row_index(QUERY_NUMBER).cache()
    group_qrels = groups.select(*keys, *([QUERY_NUMBER] if numbered else [])).join(qrels, on=cols.query_id)
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
    relevance = pl.col(cols.relevance).cast(pl.Int64)  # as given until here (see _prepare)
    judged = judged.select(*doc_keys, cols.rank, relevance, cols.score, *rest).sort(
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


_PAIR = f"{INTERNAL}_pair"
_THEIRS = f"{INTERNAL}_judged"  # the suffix of the judgements' own key columns in the join
_FALSE_MATCH = f"{INTERNAL}_false_match"


def _pair_hash(columns: Sequence[str]) -> pl.Expr:
    """64-bit hash of a run or qrels row's (query keys, doc_id) pair: the key of the judgements
    join (tests replace it with a colliding one to exercise the exact fallback):
    :func:`~frame_eval._checks.key_hash`."""
    return _checks.key_hash(columns)


def _join_judgements(
    ranked: pl.LazyFrame, judgements: pl.LazyFrame, cols: RunColumns, evaluated: pl.LazyFrame | None,
    carried: Sequence[str] = (),
) -> pl.LazyFrame:
    """``[*keys, doc_id, rank, relevance, *carried]``: every judgement once (of the ``evaluated``
    queries only, when given), with the rank of its document in ``ranked`` (null when not
    retrieved). ``carried``: columns of ``evaluated`` (when given) or else of ``judgements``, one
    value per query, kept on its rows.

    The join's hash table holds the judgements (the ranked rows, many more, stream past it),
    keyed by a 64-bit hash of the (keys, doc_id) pair rather than by the pair itself: at 10M run
    rows and 1.5M judgements, a table on two string columns took about 200 MB, one on the hash
    80. Every match is then compared on the pair itself, so two pairs sharing a hash cost
    time, never a wrong number: a judgement matched by a document it is not gets no rank from
    it, and the queries where that happened (almost never any) have their rows, possibly one
    per match, brought back to one per judgement, ranked by its true match if it has one.
    """
    keys = cols.query_keys
    doc_keys = [*keys, cols.doc_id]
    pair = _pair_hash(doc_keys).alias(_PAIR)
    joined = ranked.with_columns(pair).join(
        judgements.with_columns(pair), on=_PAIR, how="right", build_side="force_right", suffix=_THEIRS
    )
    same = pl.all_horizontal(pl.col(k) == pl.col(k + _THEIRS) for k in doc_keys)
    own = [] if evaluated is not None else list(carried)  # the judgements' own (the others join below)
    judged = joined.select(
        *(pl.col(k + _THEIRS).alias(k) for k in doc_keys),
        pl.when(same).then(pl.col(cols.rank)).alias(cols.rank),
        cols.relevance,
        *own,
        (pl.col(cols.rank).is_not_null() & ~same).alias(_FALSE_MATCH),
    ).cache()  # read three times: for false matches, the clean queries and the others
    collided = judged.filter(_FALSE_MATCH).select(keys).unique()
    if evaluated is None:
        clean = judged.join(collided, on=keys, how="anti")
    else:  # an inner join keeps the evaluated queries' rows and brings what they carry
        keep = "inner" if carried else "semi"
        collided = collided.join(evaluated, on=keys, how=keep)
        # the table on the queries (the engine would build it on the judgements, 30 MB more at 10M)
        clean = judged.join(evaluated.join(collided, on=keys, how="anti"), on=keys, how=keep,
                            build_side="force_right")
    bring = "inner" if carried and evaluated is not None else "semi"  # the evaluated queries' columns
    mended = judged.join(collided, on=keys, how=bring).group_by(doc_keys).agg(
        pl.col(cols.rank).max(), pl.col(cols.relevance).first(), *(pl.col(c).first() for c in carried)
    )
    columns = [*doc_keys, cols.rank, cols.relevance, *carried]
    return pl.concat([clean.select(columns), mended.select(columns)], how="vertical")


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
    numbered: bool = False,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None, list[pl.LazyFrame | _checks.Problem]]:
    """A compact stand-in for the judged frame, ``[*keys, rank, relevance]``, for measures
    that read only judged documents and the depth of the ranking.

    It holds the judged documents of each evaluated query (rank null when missed) and one
    unjudged row per query at rank ``num_ret`` (null when nothing was retrieved), in place
    of the run's unjudged documents. Every measure whose spec does not set
    ``reads_unjudged`` gives the same value on it as on :func:`judge_lazy`'s frame, from
    a fraction of the rows. With ``lowest_read``, judgements below it are left out too
    (the measures' ``Measure.lowest_read``: what they can read); the evaluated queries
    stay those of all the qrels.

    ``numbered``: each evaluated query gets a number, and the frame is ``[QUERY_NUMBER, rank,
    relevance]``; sorting the rows by one integer (number and rank) costs a third of a sort by
    the keys and rank, and the group-by of a sorted number no more than one of sorted keys.

    Returns the frame, the keys of each number (``[QUERY_NUMBER, *keys]``, one row per query;
    None unless ``numbered``) and the data checks, to attach to whatever small result is
    computed from the frame.
    """
    plan = _plan(run, qrels, cols, complete, depth, duplicates, strict=strict, judged_only=judged_only,
                 numbered=numbered)
    keys = cols.query_keys
    doc_keys = [*keys, cols.doc_id]
    number = [QUERY_NUMBER] if numbered else []
    group_qrels = plan.qrels if plan.judgements is None else plan.judgements
    if lowest_read is not None:
        group_qrels = group_qrels.filter(pl.col(cols.relevance) >= lowest_read)
    # the judgements of queries the run has (the plan's qrels are those already)
    evaluated = plan.groups.select(*keys, *number) if plan.judgements is not None and not complete else None
    state = _checks.current()
    if state is not None and state.small:  # a few rows: the join on the pair itself, a step less
        judged = plan.ranked.join(group_qrels, on=doc_keys, how="right", build_side="force_right")
        if evaluated is not None:
            judged = judged.join(evaluated, on=keys, how="inner" if numbered else "semi")
    else:
        # the plan's qrels carry the numbers; the judgements as they are (plan.judgements) do not
        carried = number if evaluated is not None or plan.judgements is None else []
        judged = _join_judgements(plan.ranked, group_qrels, cols, evaluated, carried)
    if numbered and evaluated is None and plan.judgements is not None:  # complete=True: every judged query
        judged = judged.join(plan.groups.select(*keys, QUERY_NUMBER), on=keys, how="inner")
    # the few queries with tied scores (or a shared key hash) take their exact ranks
    rank = pl.col(cols.rank) if plan.exact is None else pl.coalesce(_EXACT, cols.rank)
    if plan.depth is not None:
        rank = pl.when(rank <= plan.depth).then(rank)
    if plan.exact is not None:
        judged = judged.join(plan.exact, on=doc_keys, how="left")
    # numbered, the keys are left out (the number stands for them)
    query = number or keys
    judged = judged.select(*query, rank.alias(cols.rank), pl.col(cols.relevance).cast(pl.Int64))
    deepest = plan.groups.select(
        *query,
        pl.when(pl.col(_NUM_RET) > 0).then(pl.col(_NUM_RET)).alias(cols.rank),
        pl.lit(None, dtype=pl.Int64).alias(cols.relevance),
    )
    names = plan.groups.select(QUERY_NUMBER, *keys) if numbered else None
    return pl.concat([judged, deepest], how="vertical_relaxed"), names, plan.problems
