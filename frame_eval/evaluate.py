"""Per-query evaluation and summaries of rankings: the one core every front end calls.

Everything here takes and returns :class:`polars.LazyFrame`; the namespaces
collect when their input was eager and convert for pandas.

Labels. Results are labelled with each measure's canonical name (``MAP`` and
``map`` are both reported as ``AP``, and asking for several names of one
measure gives it once); ``labels="as_given"`` keeps each name as written
(one column or ``metric`` value per name given, in that order).
``names="safe"`` spells labels with letters, digits and underscores only
(``nDCG@10`` -> ``nDCG_at_10``), for SQL engines and formats that need it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from frame_eval import _checks
from frame_eval import ranking as _ranking  # noqa: F401  (registers the ranking measures)
from frame_eval._tidy import to_long
from frame_eval.evaluate_measures import (  # noqa: F401  (re-exported: the names' old home)
    DEFAULT_MEASURES,
    Aggregate,
    Labels,
    MeasureArg,
    Names,
    Shape,
    Ties,
    _check_names,
    _check_option,
    _choice,
    _unique,
    labelled,
    safe_name,
    with_defaults,
)
from frame_eval.evaluate_summary import (  # noqa: F401  (re-exported: the names' old home)
    _DEN,
    _NUM,
    MIN_GEO_MEAN,
    _aggregate,
    _bootstrap_intervals,
    _summary,
    _t_intervals,
    micro_parts,
    summary_of,
)
from frame_eval.judged import (
    QUERY_NUMBER,
    Duplicates,
    RunColumns,
    evaluation_frame,
    judged_frame,
)
from frame_eval.partitioned import Partitioning, split
from frame_eval.ranking import batched
from frame_eval.ranking._common import ORDERED
from frame_eval.registry import Measure

# the rank column evaluate() builds internally: a name no input column can have
RANK = "__frame_eval_rank"
_MEASURE = "__frame_eval_measure"
_ORDER = "__frame_eval_order"  # a numbered compact frame's (query number, rank) order


def per_query_wide(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    pairs: Sequence[tuple[Measure, str]],
    cols: RunColumns,
    *,
    complete: bool,
    depth: int | None,
    duplicates: Duplicates,
    strict: bool = False,
    judged_only: bool = False,
    rel: int | None = None,
    collection_size: int | None = None,
    micro: bool = False,
    ties: Ties = "docid",
    scale: Partitioning | None = None,
) -> pl.LazyFrame:
    """``[*by, query_id, <one Float64 column per label>]``, sorted by the keys (``micro``: two
    columns per label, its numerator and denominator). ``scale``: a query range at a time
    (:mod:`frame_eval.partitioned`) when the input is large or the caller asks."""
    _check_option("rel", rel)
    _check_option("collection_size", collection_size)
    if scale is not None:
        def piece(r: pl.LazyFrame, q: pl.LazyFrame, c: RunColumns) -> pl.LazyFrame:
            return per_query_wide(r, q, pairs, c, complete=complete, depth=depth, duplicates=duplicates,
                                  judged_only=judged_only, rel=rel, collection_size=collection_size,
                                  micro=micro, ties=ties)
        pieces = split(run, qrels, cols, scale, piece, strict=strict, complete=complete,
                       sort_keys=cols.query_keys)
        if pieces is not None:
            return pieces
    pairs = [(with_defaults(m, rel, collection_size), label) for m, label in pairs]
    measures = _unique(pairs)
    _check_names(cols.query_keys, [label for _, label in pairs])
    options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict,
               "judged_only": judged_only}
    if ties != "docid":
        long = tie_aware_long(run, qrels, pairs, cols, ties, **options)
        return long.group_by(cols.query_keys).agg(
            pl.col("value").filter(pl.col("metric") == label).first().alias(label) for _, label in pairs
        ).sort(cols.query_keys)
    group_keys, names = list(cols.query_keys), None
    if any(m.spec.reads_unjudged for m in measures):
        judged, problems = judged_frame(run, qrels, cols, **options)
    else:
        # most measures read only judged documents, and only some of those: skip the rest
        reads = [m.lowest_read for m in measures]
        lowest = min((r for r in reads if r is not None), default=None) if None not in reads else None
        # in rank order once, so that no measure sorts its terms group by group (the group-by keeps
        # each query's rows in frame order): a small call sorts by the rank alone, one integer key;
        # a larger eager one by one integer of each query's number and the rank, and groups by the
        # number; a lazy one by the keys and rank
        # (a lazy call keeps the keys: the numbers peaked higher on the streaming engine, about 40 MB)
        state = _checks.current()
        judged, names, problems = evaluation_frame(
            run, qrels, cols, **options, lowest_read=lowest, numbered=state is not None and not state.small
        )
        if state is None:
            judged = judged.sort([*cols.query_keys, cols.rank], nulls_last=True)
        elif names is None:
            judged = judged.sort(cols.rank, nulls_last=True)
        else:
            # sorted by a column of its own (sorting by the expression peaked about 50 MB higher at 10M)
            judged = judged.with_columns(_number_and_rank(cols.rank).alias(_ORDER)).sort(_ORDER).select(
                pl.col(QUERY_NUMBER).set_sorted(), cols.rank, cols.relevance
            )
            group_keys = [QUERY_NUMBER]
    # judged_frame() comes sorted by the keys and rank, unranked rows last
    roles = {"rank": cols.rank, "relevance": cols.relevance, ORDERED: "1"}
    if micro:  # a numerator and a denominator column per measure (``micro_parts``)
        exprs = [
            part.alias(f"{_MEASURE}{i}{suffix}")
            for i, m in enumerate(measures)
            for part, suffix in zip(micro_parts(m, roles), (_NUM, _DEN), strict=True)
        ]
        suffixes = (_NUM, _DEN)
        picks = [pl.col(e.meta.output_name()) for e in exprs]
    else:  # measures of one family at several cutoffs share one pass (ranking.batched)
        # a small eager call takes each parts measure as one expression: the parts' extra aggregations
        # (nDCG@10: eleven per query) cost it more planning than they save (the same bits either way)
        state = _checks.current()
        parts = state is None or not state.small
        built, columns = _aggregations(tuple(measures), tuple(roles.items()), parts)
        exprs, picks = list(built), list(columns)
        suffixes = ("",)
    index = {m.name: f"{_MEASURE}{i}" for i, m in enumerate(measures)}
    per_query = judged.group_by(group_keys).agg(exprs).select(*group_keys, *picks)
    if names is not None:
        per_query = names.join(per_query, on=QUERY_NUMBER).drop(QUERY_NUMBER)
    per_query = per_query.sort(cols.query_keys)
    labelled_columns = [
        pl.col(index[m.name] + suffix).alias(label + suffix) for m, label in pairs for suffix in suffixes
    ]
    per_query = per_query.select(*cols.query_keys, *labelled_columns)
    return _checks.attach(per_query, problems)


def _number_and_rank(rank: str) -> pl.Expr:
    """One UInt64 per row of a numbered frame, in the order of (query number, rank), missed documents
    (null rank) last: ``number * 2^33 + rank``, a null rank read as ``2^32`` (above every UInt32 rank;
    the numbers, one per query, stay below 2^31)."""
    number = pl.col(QUERY_NUMBER).cast(pl.UInt64) * pl.lit(1 << 33, pl.UInt64)
    return number + pl.col(rank).cast(pl.UInt64).fill_null(pl.lit(1 << 32, pl.UInt64))


@functools.lru_cache(maxsize=256)
def _aggregations(
    measures: tuple[Measure, ...], roles: tuple[tuple[str, str], ...], parts: bool
) -> tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...]]:
    """:func:`batched.aggregations`, built once per measures, columns and form (expressions are
    immutable; building them costs a small call more than some of its steps)."""
    aggs, columns = batched.aggregations(measures, dict(roles), _MEASURE, parts=parts)
    return tuple(aggs), tuple(columns)


def tie_aware_long(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    pairs: Sequence[tuple[Measure, str]],
    cols: RunColumns,
    ties: Ties,
    scale: Partitioning | None = None,
    **options: Any,
) -> pl.LazyFrame:
    """``[*by, query_id, metric, value, straddling]``: values over the orderings of tied scores
    (see :mod:`frame_eval.compare.ties`), labelled as asked; ``scale`` as :func:`per_query_wide`."""
    _choice("ties", ties, ("docid", "expected", "optimistic", "pessimistic"))
    if scale is not None:
        def piece(r: pl.LazyFrame, q: pl.LazyFrame, c: RunColumns) -> pl.LazyFrame:
            return tie_aware_long(r, q, pairs, c, ties, **{**options, "strict": False})
        pieces = split(run, qrels, cols, scale, piece, strict=options.get("strict", False),
                       complete=options.get("complete", False), sort_keys=cols.query_keys)
        if pieces is not None:
            return pieces
    from frame_eval.compare.ties import tie_aware  # the ties module reads the judged frame

    measures = _unique(pairs)
    other = [m.name for m in measures if set(dict(m.params)) - {"rel"}]
    if other:
        raise ValueError(f"ties={ties!r} computes the trec_eval forms only; {other[0]} has other parameters")
    rels = {dict(m.params).get("rel", 1) for m in measures}
    if len(rels) > 1:
        raise ValueError(f"ties={ties!r} takes one relevance level for all measures, got {sorted(rels)}")
    names = [m.spec.name + ("" if m.cutoff is None else f"@{m.cutoff}") for m in measures]
    judged_cols = RunColumns(cols.query_id, cols.doc_id, cols.score, cols.relevance, RANK, cols.by)
    judged = _checks.attach(*judged_frame(run, qrels, judged_cols, **options))
    values = tie_aware(judged, names, ties=ties, by=list(cols.by) or None, query_id=cols.query_id,
                       score=cols.score, rank=RANK, relevance=cols.relevance, rel=rels.pop())
    name_of = {m.name: name for m, name in zip(measures, names, strict=True)}
    labelled_rows = [
        values.filter(pl.col("metric") == name_of[m.name]).with_columns(pl.lit(label).alias("metric"))
        for m, label in pairs
    ]
    return pl.concat(labelled_rows).sort(cols.query_keys, maintain_order=True)


def _micro_summary(
    run: pl.LazyFrame, qrels: pl.LazyFrame, pairs: Sequence[tuple[Measure, str]], cols: RunColumns,
    shape: Shape, **options: Any,
) -> pl.LazyFrame:
    """Numerators and denominators summed over queries (integers: exact in any order), divided once;
    counts are summed. 0 when the summed denominator is 0."""
    for m, _ in pairs:  # fail before anything is planned
        micro_parts(with_defaults(m, options.get("rel"), options.get("collection_size")), {})
    wide = per_query_wide(run, qrels, pairs, cols, micro=True, **options)
    return summary_of(wide, pairs, cols, shape, "micro")


def evaluate(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: MeasureArg,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    shape: Shape = "long",
    labels: Labels = "canonical",
    names: Names = "canonical",
    judged_only: bool = False,
    rel: int | None = None,
    collection_size: int | None = None,
    ties: Ties = "docid",
    scale: Partitioning | None = None,
) -> pl.LazyFrame:
    """Per-query values: long ``[*by, query_id, metric, value]`` or wide (one column per measure).

    ``judged_only`` (trec_eval ``-J``), ``rel`` (``-l``: the relevance level of every
    measure that takes one and was not given its own) and ``collection_size`` (``-N``)
    are trec_eval's global options; labels stay those of the measures as given. With
    ``ties`` other than ``"docid"``, the long form has a ``straddling`` column too. ``scale``
    (partitions, memory limit, progress) may split the work by query ranges
    (:mod:`frame_eval.partitioned`); the values do not change.
    """
    _choice("shape", shape, ("long", "wide"))
    _choice("ties", ties, ("docid", "expected", "optimistic", "pessimistic"))
    pairs = labelled(measures, labels=labels, names=names)
    options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict,
               "judged_only": judged_only, "rel": rel, "collection_size": collection_size}
    if ties != "docid" and shape == "long":
        _check_names(cols.query_keys, ["metric", "value", "straddling"])
        _check_option("rel", rel)
        _check_option("collection_size", collection_size)
        with_options = [(with_defaults(m, rel, collection_size), label) for m, label in pairs]
        return tie_aware_long(run, qrels, with_options, cols, ties, scale, complete=complete, depth=depth,
                              duplicates=duplicates, strict=strict, judged_only=judged_only)
    wide = per_query_wide(run, qrels, pairs, cols, **options, ties=ties, scale=scale)
    if shape == "wide":
        return wide
    _check_names(cols.query_keys, ["metric", "value"])
    return to_long(wide, cols.query_keys, [label for _, label in pairs])


def summarize(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    measures: MeasureArg,
    cols: RunColumns,
    *,
    complete: bool = False,
    depth: int | None = None,
    duplicates: Duplicates = "error",
    strict: bool = False,
    shape: Shape = "long",
    labels: Labels = "canonical",
    names: Names = "canonical",
    judged_only: bool = False,
    rel: int | None = None,
    collection_size: int | None = None,
    aggregate: Aggregate | None = None,
    ties: Ties = "docid",
    ci: float | None = None,
    ci_method: Literal["t", "bootstrap"] = "t",
    n_resamples: int = 10_000,
    seed: int = 0,
    scale: Partitioning | None = None,
) -> pl.LazyFrame:
    """``[*by, metric, value, num_q]`` (or wide: ``[*by, <one column per measure>, num_q]``).

    Each measure's own summary (``aggregate=None``): the mean over evaluated queries,
    counts summed, ``gm_map`` and ``gm_bpref`` geometric means; added query after
    query in the text order of the query ids, as trec_eval accumulates, then divided
    once by the number of queries: the same bits whatever the row order, thread count
    or engine. ``aggregate="mean"``, ``"gmean"`` (trec_eval's, floor 0.00001) or
    ``"micro"`` (numerators and denominators summed over queries, then divided; for
    measures that are ratios of counts, and counts) applies to every measure. ``ties``
    as in :func:`evaluate`; ``ci`` adds an interval of each mean (``ci_low``, ``ci_high``):
    Student's t (``ci_method="t"``) or the percentile interval of ``n_resamples`` seeded
    bootstrap means (``"bootstrap"``, as :func:`frame_eval.compare.intervals`). ``scale`` as
    in :func:`evaluate`: the per-query values are the same, so is their summary.
    """
    _choice("ci_method", ci_method, ("t", "bootstrap"))
    _choice("shape", shape, ("long", "wide"))
    _choice("ties", ties, ("docid", "expected", "optimistic", "pessimistic"))
    if aggregate is not None:
        _choice("aggregate", aggregate, ("mean", "gmean", "micro"))
    if ci is not None and (shape != "long" or isinstance(ci, bool) or not 0 < ci < 1):
        raise ValueError(f"ci is a confidence level between 0 and 1 (with shape='long'), got {ci!r}")
    if ci is not None and aggregate in ("gmean", "micro"):
        raise ValueError(f"ci gives the t interval of a mean; it does not apply to aggregate={aggregate!r}")
    if ties != "docid" and aggregate == "micro":
        raise ValueError("ties= gives expected or bounding values per query; aggregate='micro' needs counts")
    pairs = labelled(measures, labels=labels, names=names)
    _check_names(cols.by, ["metric", "value", "num_q"] if shape == "long" else ["num_q"])
    if aggregate == "micro":
        return _micro_summary(run, qrels, pairs, cols, shape, complete=complete, depth=depth,
                              duplicates=duplicates, strict=strict, judged_only=judged_only, rel=rel,
                              collection_size=collection_size, scale=scale)
    wide = per_query_wide(
        run, qrels, pairs, cols, complete=complete, depth=depth, duplicates=duplicates, strict=strict,
        judged_only=judged_only, rel=rel, collection_size=collection_size, ties=ties, scale=scale,
    ).cache()  # read by the summary and, with ci, by the intervals
    return summary_of(wide, pairs, cols, shape, aggregate, ci=ci, ci_method=ci_method,
                      n_resamples=n_resamples, seed=seed)
