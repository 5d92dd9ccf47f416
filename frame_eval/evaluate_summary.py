"""Summaries of per-query values: means, sums, geometric and micro averages, confidence intervals.

:func:`summary_of` reads the frame of :func:`frame_eval.evaluate.per_query_wide` (built by
polars or by another engine) and aggregates it per ``by`` group, adding the values query after
query in the text order of their ids, as trec_eval does, so the bits never depend on row order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

from frame_eval._float import ordered_sum
from frame_eval._tidy import to_long
from frame_eval.evaluate_measures import Aggregate, Shape
from frame_eval.judged import RunColumns
from frame_eval.registry import Measure

_NUM, _DEN = "__frame_eval_numerator", "__frame_eval_denominator"


def micro_parts(m: Measure, roles: dict[str, str]) -> tuple[pl.Expr, pl.Expr]:
    """(numerator, denominator) of ``m`` for one query, as Float64 (counts: the count over 1)."""
    if m.spec.micro is not None:
        numerator, denominator = m.spec.micro(roles, m.cutoff, **m.kwargs)
        return numerator.cast(pl.Float64), denominator.cast(pl.Float64)
    if m.spec.aggregate == "sum":
        return m.expr(**roles).cast(pl.Float64), pl.lit(None, pl.Float64)
    raise ValueError(
        f"{m.name} is not a ratio of counts, so it has no micro average; summarize it with "
        f"aggregate='mean' (or None), or ask for micro averages of measures such as P@k, R@k, SetP"
    )


MIN_GEO_MEAN = 0.00001  # trec_eval's floor for geometric means


def _aggregate(values: pl.Expr, order: pl.Expr, how: str) -> pl.Expr:
    """Per-query values to one summary, added in ``order`` then divided once (trec_eval's way).

    ``mean``; ``sum``; ``gmean``: ``exp(mean(log(max(value, 0.00001))))``, trec_eval's
    geometric mean (``gm_map``, ``gm_bpref``). No queries: null for the means.
    """
    if how == "sum":
        return ordered_sum(values, order)
    if how == "gmean":
        logs = pl.max_horizontal(values, pl.lit(MIN_GEO_MEAN)).log()
        return pl.when(pl.len() > 0).then((ordered_sum(logs, order) / pl.len()).exp())
    return pl.when(pl.len() > 0).then(ordered_sum(values, order) / pl.len())


def summary_of(
    wide: pl.LazyFrame, pairs: Sequence[tuple[Measure, str]], cols: RunColumns, shape: Shape,
    aggregate: Aggregate | None, *, ci: float | None = None, ci_method: Literal["t", "bootstrap"] = "t",
    n_resamples: int = 10_000, seed: int = 0,
) -> pl.LazyFrame:
    """The summary of :func:`per_query_wide`'s frame (built with ``micro=True`` for ``"micro"``),
    with the intervals of :func:`summarize` when ``ci`` is given (long shape; options checked there).

    The step after the per-query values, on its own so that an engine that computes those values
    elsewhere (Spark, Dask: :mod:`frame_eval.engines`) summarizes them with the same arithmetic.
    """
    if ci is not None and shape == "long":
        long = summary_of(wide, pairs, cols, shape, aggregate)
        if ci_method == "t":
            bounds = _t_intervals(wide, pairs, cols, ci)
        else:
            bounds = _bootstrap_intervals(wide, pairs, cols, ci, n_resamples, seed)
        return long.join(bounds, on=[*cols.by, "metric"], how="left", maintain_order="left")
    if aggregate == "micro":
        aggs = []
        for _, label in pairs:
            numerator, denominator = pl.col(label + _NUM).sum(), pl.col(label + _DEN).sum()
            ratio = pl.when(denominator > 0).then(numerator / denominator).otherwise(pl.lit(0.0, pl.Float64))
            is_count = pl.col(label + _DEN).null_count() == pl.len()
            aggs.append(pl.when(is_count).then(numerator).otherwise(ratio).alias(label))
    else:
        order = pl.col(cols.query_id).cast(pl.String)
        aggs = [
            _aggregate(pl.col(label), order, aggregate or m.spec.aggregate).alias(label) for m, label in pairs
        ]
    return _summary(wide, aggs, [label for _, label in pairs], cols, shape)


def _summary(
    wide: pl.LazyFrame, aggs: Sequence[pl.Expr], labels: Sequence[str], cols: RunColumns, shape: Shape
) -> pl.LazyFrame:
    """The per-query frame aggregated per ``by`` group, with ``num_q``; wide, or tidy long."""
    num_q = pl.len().cast(pl.Int64).alias("num_q")
    if cols.by:
        totals = wide.group_by(list(cols.by)).agg(*aggs, num_q).sort(list(cols.by))
    else:
        totals = wide.select(*aggs, num_q)
    if shape == "wide":
        return totals
    long = to_long(totals, cols.by, labels, carry=["num_q"])
    return long.select(*cols.by, "metric", "value", "num_q")


def _t_intervals(
    wide: pl.LazyFrame, pairs: Sequence[tuple[Measure, str]], cols: RunColumns, level: float
) -> pl.LazyFrame:
    """``[*by, metric, ci_low, ci_high]``: mean +- t(level, n - 1) sd / sqrt(n) over the queries,
    sums of squares added in the summary's order; null for counts and for fewer than 2 queries.
    The t quantile comes from SciPy (the ``[stats]`` extra) when the result is collected."""
    from frame_eval.compare import distributions  # imports SciPy only when called

    def quantile(n: pl.Series, **_: object) -> pl.Series:
        sizes = n.to_list()
        usable = [k - 1 for k in sizes if k is not None and k > 1]
        found = iter(distributions.t_quantile((1 + level) / 2, usable) if usable else [])
        return pl.Series([next(found) if k is not None and k > 1 else None for k in sizes], dtype=pl.Float64)

    order = pl.col(cols.query_id).cast(pl.String)
    parts = []
    for m, label in pairs:
        x = pl.col(label)
        mean = ordered_sum(x, order) / pl.len()
        squares = ordered_sum((x - mean) ** 2, order)
        summary = [pl.len().alias("n"), mean.alias("mean"), squares.alias("squares")]
        frame = wide.group_by(list(cols.by)).agg(summary) if cols.by else wide.select(summary)
        labelled_frame = frame.with_columns(metric=pl.lit(label), kind=pl.lit(m.spec.aggregate))
        parts.append(labelled_frame)
    stats = pl.concat(parts)
    sd = (pl.col("squares") / (pl.col("n") - 1)).sqrt()
    t = pl.col("n").map_batches(quantile, return_dtype=pl.Float64)
    half = t * sd / pl.col("n").cast(pl.Float64).sqrt()
    usable = (pl.col("n") > 1) & (pl.col("kind") == "mean")
    return stats.select(
        *cols.by, "metric",
        pl.when(usable).then(pl.col("mean") - half).alias("ci_low"),
        pl.when(usable).then(pl.col("mean") + half).alias("ci_high"),
    )


def _bootstrap_intervals(
    wide: pl.LazyFrame, pairs: Sequence[tuple[Measure, str]], cols: RunColumns, level: float,
    n_resamples: int, seed: int,
) -> pl.LazyFrame:
    """``[*by, metric, ci_low, ci_high]``: the percentile interval of seeded bootstrap means of
    each group's per-query values (in the text order of the query ids), worked out when the
    result is collected (NumPy, the ``[stats]`` extra); null for counts and one query."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    from frame_eval.compare import resampling  # imports NumPy only when called

    def bounds(values: pl.Series, **_: object) -> pl.Series:
        _, low, high = resampling.bootstrap(values.to_list(), n_resamples, seed, level)
        return pl.Series([{"ci_low": low, "ci_high": high}])

    struct = pl.Struct({"ci_low": pl.Float64, "ci_high": pl.Float64})
    order = pl.col(cols.query_id).cast(pl.String)
    parts = []
    for m, label in pairs:
        interval = pl.col(label).sort_by(order).map_batches(bounds, return_dtype=struct, returns_scalar=True)
        agg = [interval.alias("interval")]
        frame = wide.group_by(list(cols.by)).agg(agg) if cols.by else wide.select(agg)
        usable = pl.lit(m.spec.aggregate == "mean")
        parts.append(frame.select(
            *cols.by, pl.lit(label).alias("metric"),
            pl.when(usable).then(pl.col("interval").struct.field("ci_low")).alias("ci_low"),
            pl.when(usable).then(pl.col("interval").struct.field("ci_high")).alias("ci_high"),
        ))
    return pl.concat(parts)
