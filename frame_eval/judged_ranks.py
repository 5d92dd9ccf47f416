"""The ranking of runs: trec_eval's order of documents within each query, as lazy plans.

:func:`rank_expr` is the exact rank (score descending, then doc_id descending as text);
:func:`_score_ranks` ranks by the score alone and takes the exact rank only where it can
differ (ties, shared windows; a large in-memory run stored by query, by runs of equal keys a
slice of rows at a time); :func:`_sorted_ranks` ranks a small input in one sort.
:mod:`frame_eval.judged` joins the ranks with the qrels.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from frame_eval.judged_columns import RunColumns


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

    ``slices`` (``(offset, length)`` pairs covering an in-memory run stored by query, whose slices
    cost nothing): ranked instead by runs of equal keys within each slice (:func:`_ranks_by_runs`),
    with no window and no hash.

    Returns ``(scored, ranked, groups, repeats, exact)``: the run's key, document and score
    columns as read once (the data checks count on them; a sliced run's own, in memory), the run
    as ``[*keys, doc_id, rank]`` ranked by score, ``[*keys, num_ret]`` for every query of the run,
    ``[count]``: rows less distinct doc_id hashes per window (0 unless a document repeats or two
    hashes collide, so a positive count may over-report, never miss, a repeat), and
    ``[*keys, doc_id, exact]`` with the (score, doc_id) rank of every document of the re-ranked
    queries (usually none), which takes precedence over ``rank``.

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
    if len(slices) > 1:
        return _ranks_by_runs(run, cols, doc_dtype, slices)
    score_rank = pl.col(cols.score).rank("min", descending=True).over(_GROUP)
    ranked = run.select(*keys, cols.doc_id, cols.score, _group_hash(keys).alias(_GROUP)).with_columns(
        score_rank.cast(pl.UInt32).alias(cols.rank)
    ).cache()  # read three times below: rank once
    groups = ranked.group_by(keys).agg(
        pl.len().cast(pl.UInt32).alias(_NUM_RET),
        pl.col(_GROUP).first(),
        pl.col(cols.rank).cast(pl.UInt64).sum().alias(_RANK_SUM) != n * (n + 1) // 2,
        repeated,
    ).cache()  # read by the evaluation, the exact re-rank and the duplicate check
    suspect = groups.filter(pl.col(_RANK_SUM) | pl.col(_GROUP).is_duplicated()).select(_GROUP)
    again = ranked.join(suspect, on=_GROUP, how="semi").select(*keys, cols.doc_id, cols.score)
    repeats = groups.select(total)
    exact = again.select(*keys, cols.doc_id, rank_expr(cols, doc_dtype).alias(_EXACT))
    by_rank = ranked.select(*keys, cols.doc_id, cols.rank)
    return ranked, by_rank, groups.select(*keys, _NUM_RET), repeats, exact


_BLOCK = "__frame_eval_block"


def _ranks_by_runs(
    run: pl.LazyFrame, cols: RunColumns, doc_dtype: pl.DataType, slices: Sequence[tuple[int, int]]
) -> tuple[pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame, pl.LazyFrame | None]:
    """:func:`_score_ranks` of an in-memory run given as slices, ranked by runs of equal keys.

    Within each slice, a run of rows with equal query keys (a query's rows, when the run is stored
    by query) is one group of a group-by on the run's number, which comes sorted: its rows' score
    ranks in one group-by, its size, its distinct scores and documents in another. A query alone
    in one run with as many distinct scores as rows (no ties) has exact ranks; a query with ties,
    or found in more than one run (cut by a slice boundary, or stored in pieces), is ranked again
    by the pair. The runs compare the keys themselves, so no hash can merge two queries. Repeated
    documents are counted per run (rows less distinct doc_ids) and over all rows of the re-ranked
    queries, where two runs may part two copies of a document. The ranks come out in row order,
    beside the run's own key and document columns (in memory: nothing copied).

    The runs' counts are collected at once (the run is an eager call's, in memory, and the call
    collects next): a table of a row per query that every later step reads as it is (in the plan,
    each reader pruned its own columns from a shared group-by, which then ran once per reader),
    and when no query needs its exact ranks, as usual, ``exact`` is ``None`` and the plan has no
    re-rank at all."""
    keys = cols.query_keys
    n = pl.len().cast(pl.UInt64)
    key = pl.col(keys[0]) if len(keys) == 1 else pl.struct(keys)
    block = key.rle_id().set_sorted().alias(_BLOCK)
    by_score = pl.col(cols.score).rank("min", descending=True).cast(pl.UInt32).alias(cols.rank)
    # -0.0 ties with 0.0, as trec_eval compares (and as the ranks do)
    score = pl.col(cols.score)
    tied = pl.when(score == 0.0).then(0.0).otherwise(score).n_unique() != pl.len()
    repeated = (n - pl.col(cols.doc_id).n_unique()).alias(_REPEATS)

    def rows_by_run(start: int, length: int, *columns: str) -> pl.lazyframe.group_by.LazyGroupBy:
        # runs of equal keys in row order (each its rows in row order): a sorted group-by, no hashing
        rows = run.slice(start, length).select(*columns, block)
        return rows.group_by(_BLOCK, maintain_order=True)

    ranks = pl.concat(
        [rows_by_run(start, length, cols.score).agg(by_score).select(pl.col(cols.rank).explode())
         for start, length in slices],
        parallel=False,
    )
    ranked = pl.concat([run.select(*keys, cols.doc_id), ranks], how="horizontal")
    per_run = pl.concat(
        [rows_by_run(start, length, *keys, cols.doc_id, cols.score).agg(
            *(pl.col(k).first() for k in keys), n.alias(_NUM_RET), tied.alias(_RANK_SUM), repeated)
         for start, length in slices],
        parallel=False,
    ).collect(engine="streaming")
    groups = per_run.group_by(keys).agg(
        pl.col(_NUM_RET).sum().cast(pl.UInt32),
        (pl.col(_RANK_SUM).any() | (pl.len() > 1)).alias(_RANK_SUM),
        pl.col(_REPEATS).sum(),
    )
    counted = pl.lit(groups.get_column(_REPEATS).sum(), pl.UInt64)
    queries = groups.filter(_RANK_SUM).select(keys)
    exact = None
    repeats = pl.LazyFrame().select(counted.alias("count"))
    if queries.height:
        again = run.select(*keys, cols.doc_id, cols.score).join(queries.lazy(), on=keys, how="semi").cache()
        exact = again.select(*keys, cols.doc_id, rank_expr(cols, doc_dtype).alias(_EXACT))
        # their rows again as a whole: two runs of one query may part two copies of a document
        repeats = again.group_by(keys).agg(repeated).select(
            (pl.col(_REPEATS).sum().cast(pl.UInt64) + counted).alias("count")
        )
    scored = run.select(*keys, cols.doc_id, cols.score)
    return scored, ranked, groups.lazy().select(*keys, _NUM_RET), repeats, exact


_SAMPLE_ROWS = 100_000
_SAMPLES = 4


def _stored_by_query(run: pl.LazyFrame, keys: Sequence[str], rows: int | None = None) -> bool:
    """Whether an eager run of ``rows`` rows comes a query at a time (as TREC runs do), judged from
    ``_SAMPLES`` windows spread over it (the first ``_SAMPLE_ROWS`` rows when it has no more): runs
    of equal keys at least two rows long on average, and a query in at most two of them, so that
    slices of rows and :func:`_ranks_by_runs` part few queries. Only the speed depends on it (a
    query in several runs is ranked again by the pair)."""
    key = pl.struct(keys) if len(keys) > 1 else pl.col(keys[0])
    if rows is None or rows <= _SAMPLE_ROWS:
        sample = run.head(_SAMPLE_ROWS)
    else:
        width = _SAMPLE_ROWS // _SAMPLES
        step = (rows - width) // (_SAMPLES - 1)
        sample = pl.concat([run.slice(i * step, width) for i in range(_SAMPLES)])
    size, changes, distinct = sample.select(
        pl.len().alias("rows"), (key != key.shift()).sum().alias("changes"), key.n_unique().alias("distinct")
    ).collect(engine="in-memory").row(0)
    return changes + 1 <= 2 * distinct and size >= 2 * (changes + 1)
