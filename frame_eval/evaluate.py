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

import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import polars as pl

from frame_eval import _checks
from frame_eval import ranking as _ranking  # noqa: F401  (registers the ranking measures)
from frame_eval._float import ordered_sum
from frame_eval._tidy import to_long
from frame_eval.judged import Duplicates, RunColumns, evaluation_frame, judged_frame
from frame_eval.partitioned import Partitioning, split
from frame_eval.ranking import batched
from frame_eval.ranking._common import ORDERED
from frame_eval.registry import Measure, measure, resolve_each

Shape = Literal["long", "wide"]
Ties = Literal["docid", "expected", "optimistic", "pessimistic"]
Labels = Literal["canonical", "as_given"]
Names = Literal["canonical", "safe"]
Aggregate = Literal["mean", "gmean", "micro"]
MeasureArg = str | Measure | Iterable[str | Measure | Any]

DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec")
# the rank column evaluate() builds internally: a name no input column can have
RANK = "__frame_eval_rank"
_MEASURE = "__frame_eval_measure"


def _check_names(keys: Sequence[str], reserved: Sequence[str]) -> None:
    clash = [k for k in keys if k in reserved]
    if clash:
        raise ValueError(
            f"key column {clash[0]!r} clashes with an output column of the same name; rename it"
        )


def _choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")


def safe_name(label: str) -> str:
    """``label`` in letters, digits and underscores: ``nDCG@10`` -> ``nDCG_at_10``.

    >>> safe_name("AP(rel=2)@100"), safe_name("IPrec@0.1"), safe_name("F0.5")
    ('AP_rel_2_at_100', 'IPrec_at_0_1', 'F0_5')
    """
    text = label.replace("@", "_at_")
    text = re.sub(r"[^0-9A-Za-z_]+", "_", text)
    return re.sub(r"_+", "_", text).strip("_")


def labelled(
    measures: MeasureArg, kind: Literal["ranking", "classification"] = "ranking", *,
    labels: Labels = "canonical", names: Names = "canonical",
) -> list[tuple[Measure, str]]:
    """The measures to compute, each with the label it is reported under, in the order given.

    Canonical labels collapse repeats (``["MAP", "AP"]`` gives ``AP`` once); ``as_given``
    keeps one label per name written (a name that stands for several measures, such as
    ``P.5,10``, gives each its canonical label). Two different measures may not end up
    with one label.
    """
    _choice("labels", labels, ("canonical", "as_given"))
    _choice("names", names, ("canonical", "safe"))
    pairs: list[tuple[Measure, str]] = []
    owner: dict[str, Measure] = {}
    for item, found in resolve_each(measures, kind):
        for m in found:
            as_given = labels == "as_given" and isinstance(item, str) and len(found) == 1
            label = item.strip() if as_given else m.name
            if names == "safe":
                label = safe_name(label)
            if label in owner:
                if owner[label] != m:
                    raise ValueError(f"two measures, {owner[label].name} and {m.name}, would both be "
                                     f"labelled {label!r}; ask for one of them, or pass names='canonical'")
                continue
            owner[label] = m
            pairs.append((m, label))
    return pairs


def _unique(pairs: Sequence[tuple[Measure, str]]) -> list[Measure]:
    seen: dict[str, Measure] = {}
    for m, _ in pairs:
        seen.setdefault(m.name, m)
    return list(seen.values())


def with_defaults(m: Measure, rel: int | None, collection_size: int | None) -> Measure:
    """``m`` with the run-wide ``rel`` (trec_eval ``-l``) and ``collection_size`` (``-N``) filled
    in where the measure takes them and was not given its own."""
    names = {p.name for p in m.spec.params}
    extra: dict[str, Any] = {}
    if rel is not None and "rel" in names and "rel" not in m.given:
        extra["rel"] = rel
    if collection_size is not None and "collection_size" in names and "collection_size" not in m.given:
        extra["collection_size"] = collection_size
    if not extra:
        return m
    return measure(m.spec, cutoff=m.cutoff, **{**dict(m.params), **extra})


def _check_option(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{name} must be a whole number from 0 up or None, got {value!r}")


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
    if any(m.spec.reads_unjudged for m in measures):
        judged, problems = judged_frame(run, qrels, cols, **options)
    else:
        # most measures read only judged documents, and only some of those: skip the rest
        reads = [m.lowest_read for m in measures]
        lowest = min((r for r in reads if r is not None), default=None) if None not in reads else None
        judged, problems = evaluation_frame(run, qrels, cols, **options, lowest_read=lowest)
        # in rank order once, so that no measure sorts its terms group by group
        judged = judged.sort([*cols.query_keys, cols.rank], nulls_last=True)
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
        exprs, picks = batched.aggregations(measures, roles, _MEASURE)
        suffixes = ("",)
    index = {m.name: f"{_MEASURE}{i}" for i, m in enumerate(measures)}
    per_query = judged.group_by(cols.query_keys).agg(exprs).select(*cols.query_keys, *picks)
    per_query = per_query.sort(cols.query_keys)
    labelled_columns = [
        pl.col(index[m.name] + suffix).alias(label + suffix) for m, label in pairs for suffix in suffixes
    ]
    per_query = per_query.select(*cols.query_keys, *labelled_columns)
    return _checks.attach(per_query, problems)


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


def summary_of(
    wide: pl.LazyFrame, pairs: Sequence[tuple[Measure, str]], cols: RunColumns, shape: Shape,
    aggregate: Aggregate | None,
) -> pl.LazyFrame:
    """The summary of :func:`per_query_wide`'s frame (built with ``micro=True`` for ``"micro"``).

    The step after the per-query values, on its own so that an engine that computes those values
    elsewhere (Spark, Dask: :mod:`frame_eval.engines`) summarizes them with the same arithmetic.
    """
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
    long = summary_of(wide, pairs, cols, shape, aggregate)
    if ci is None or shape == "wide":
        return long
    if ci_method == "t":
        bounds = _t_intervals(wide, pairs, cols, ci)
    else:
        bounds = _bootstrap_intervals(wide, pairs, cols, ci, n_resamples, seed)
    return long.join(bounds, on=[*cols.by, "metric"], how="left", maintain_order="left")


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
