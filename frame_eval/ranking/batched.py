"""One pass for many cutoffs: ``P.5,10,...``, ``map_cut``, ``ndcg_cut``, ``iprec_at_recall``...

Polars evaluates each expression of a ``group_by(...).agg(...)`` on its own (no common
subexpressions are shared inside an aggregation), so ten ``nDCG@k`` measures would
sort the gains, look the discounts up and add them ten times. A family that registers
``build_cutoffs`` computes all its cutoffs from one pass instead: one expression whose
value per query is the list of the measure at each cutoff, in the order given, that
:func:`aggregations` splits back into one column per measure.

Exactness. Every value has the bits of the one-cutoff expression: an ordered sum up
to rank ``k`` is a prefix of the one cumulative sum over all ranks (the same additions
in the same order), maxima and counts are exact, and divisions are done value by value
(IEEE division of two columns, never a multiplication by a reciprocal).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from frame_eval._float import divide
from frame_eval.ranking._common import _columns, _in_ranks, _relevant
from frame_eval.registry import MAX_CUTOFF, Measure


def cutoff_series(cutoffs: Sequence[float | None]) -> pl.Series:
    """Integer cutoffs as an Int64 series (``None``: every rank)."""
    return pl.Series([MAX_CUTOFF if k is None else int(k) for k in cutoffs], dtype=pl.Int64)


def prefix_at(prefix: pl.Expr, counts: pl.Expr) -> pl.Expr:
    """``prefix`` (a cumulative sum) after ``counts`` terms, 0.0 after none."""
    return pl.lit(0.0, pl.Float64).append(prefix).gather(counts)


def found_within(sorted_ranks: pl.Expr, cutoffs: Sequence[float | None]) -> pl.Expr:
    """How many of ``sorted_ranks`` are ``<= k``, for each cutoff ``k``."""
    return sorted_ranks.cast(pl.Int64).search_sorted(pl.lit(cutoff_series(cutoffs)), side="right")


def relevant_ranks(columns: Mapping[str, str], rel: int) -> tuple[pl.Expr, pl.Expr]:
    """(ranks of the retrieved relevant documents, ascending; the query's relevant count)."""
    rank, relevance = _columns(columns)
    is_rel = _relevant(relevance, rel)
    hits = rank.filter(is_rel & rank.is_not_null())
    return _in_ranks(hits, hits, columns), is_rel.sum()


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator`` value by value (one per cutoff), 0 where the denominator is 0."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(pl.lit(0.0, pl.Float64))
    )


def _batch_key(m: Measure) -> tuple[Any, ...] | None:
    if m.spec.build_cutoffs is None:
        return None
    varying = m.spec.batch_param
    if varying is None:
        return m.spec.name, m.params
    return m.spec.name, tuple(p for p in m.params if p[0] != varying), m.cutoff


def _batched_value(m: Measure) -> Any:
    """What varies within a batch: the cutoff, or the value of the family's ``batch_param``."""
    return m.cutoff if m.spec.batch_param is None else m.kwargs[m.spec.batch_param]


def aggregations(
    measures: Sequence[Measure], roles: Mapping[str, str], name: str, *, parts: bool = True
) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The aggregations computing ``measures`` and the expressions that give each its column.

    Returns ``(aggs, columns)``: ``group_by(...).agg(aggs)`` followed by
    ``select(columns)`` gives the Float64 column ``f"{name}{i}"`` for the ``i``-th
    measure. Measures of one family with the same parameters and at least two
    cutoffs (or values of its ``batch_param``) share one pass when the family has
    ``build_cutoffs`` and it takes those parameters; every other measure is its own
    aggregation, computed once for measures with the same builder, cutoff and parameters.
    With ``parts`` (the default), a measure whose family has ``build_parts`` is computed from
    those plain aggregations, combined after the group-by (the same bits as its one expression).
    """
    groups: dict[Any, list[int]] = {}
    for i, m in enumerate(measures):
        key = _batch_key(m)
        if key is not None:
            groups.setdefault(key, []).append(i)
    aggs: list[pl.Expr] = []
    columns: list[pl.Expr] = []
    done: set[int] = set()
    for n, members in enumerate(groups.values()):
        if len(members) < 2:
            continue
        first = measures[members[0]]
        assert first.spec.build_cutoffs is not None
        kwargs = {k: v for k, v in first.kwargs.items() if k != first.spec.batch_param}
        batch = first.spec.build_cutoffs(roles, [_batched_value(measures[i]) for i in members], **kwargs)
        if batch is None:  # the family does not batch these parameters
            continue
        label = f"{name}batch{n}"
        aggs.append(batch.cast(pl.Float64).alias(label))
        # + 0.0 gives the values their Float64 type at run time also when no query was evaluated
        # (the list is then typed from no values); it changes no value the built-in families
        # produce (none is -0.0)
        columns += [(pl.col(label).list.get(j) + 0.0).alias(f"{name}{i}") for j, i in enumerate(members)]
        done.update(members)
    # measures read off others computed here (11pt_avg off IPrec at its levels) are not computed again
    position = {m.name: i for i, m in enumerate(measures)}
    derived: dict[int, tuple[list[int], Any]] = {}
    for i, m in enumerate(measures):
        if m.spec.from_others is not None:
            sources, combine = m.spec.from_others(m.kwargs)
            if sources and all(p.name in position for p in sources):
                derived[i] = ([position[p.name] for p in sources], combine)
    # measures built alike (gm_bpref is bpref per query, gm_map AP) are computed once
    built: dict[Any, pl.Expr] = {}
    for i, m in enumerate(measures):
        if i in done or i in derived:
            continue
        same = (m.spec.build, m.cutoff, tuple(sorted(m.kwargs.items())))
        if same in built:
            columns.append(built[same].alias(f"{name}{i}"))
            continue
        build_parts = m.spec.build_parts if parts else None
        split = None if build_parts is None else build_parts(roles, m.cutoff, **m.kwargs)
        if split is not None:  # several plain aggregations, combined per query after the group-by
            pieces, combine = split
            aggs += [piece.alias(f"{name}{i}part{j}") for j, piece in enumerate(pieces)]
            value = combine([pl.col(f"{name}{i}part{j}") for j in range(len(pieces))]).cast(pl.Float64)
        else:
            aggs.append(m.expr(**roles).cast(pl.Float64).alias(f"{name}{i}"))
            value = pl.col(f"{name}{i}")
        built[same] = value
        columns.append(value.alias(f"{name}{i}"))
    column_of = {c.meta.output_name(): c for c in columns}
    for i, (sources_at, combine) in derived.items():
        columns.append(combine([column_of[f"{name}{j}"] for j in sources_at]).alias(f"{name}{i}"))
    return aggs, columns


def ratio_to(numerator: pl.Expr, count: pl.Expr) -> pl.Expr:
    """Each value of ``numerator`` over one ``count`` of the query (IEEE division), 0 when it is 0."""
    return pl.when(count > 0).then(divide(numerator, count)).otherwise(pl.lit(0.0, pl.Float64))
