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
from frame_eval.registry import Measure, resolve_each

Shape = Literal["long", "wide"]
Labels = Literal["canonical", "as_given"]
Names = Literal["canonical", "safe"]
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
) -> pl.LazyFrame:
    """``[*by, query_id, <one Float64 column per label>]``, sorted by the keys."""
    measures = _unique(pairs)
    _check_names(cols.query_keys, [label for _, label in pairs])
    options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict}
    if any(m.spec.reads_unjudged for m in measures):
        judged, problems = judged_frame(run, qrels, cols, **options)
    else:
        # most measures read only judged documents, and only some of those: skip the rest
        reads = [m.lowest_read for m in measures]
        lowest = min((r for r in reads if r is not None), default=None) if None not in reads else None
        judged, problems = evaluation_frame(run, qrels, cols, **options, lowest_read=lowest)
    exprs = [
        m.expr(rank=cols.rank, relevance=cols.relevance).cast(pl.Float64).alias(f"{_MEASURE}{i}")
        for i, m in enumerate(measures)
    ]
    index = {m.name: f"{_MEASURE}{i}" for i, m in enumerate(measures)}
    per_query = judged.group_by(cols.query_keys).agg(exprs).sort(cols.query_keys)
    labelled_columns = [pl.col(index[m.name]).alias(label) for m, label in pairs]
    per_query = per_query.select(*cols.query_keys, *labelled_columns)
    return _checks.attach(per_query, problems)


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
) -> pl.LazyFrame:
    """Per-query values: long ``[*by, query_id, metric, value]`` or wide (one column per measure)."""
    _choice("shape", shape, ("long", "wide"))
    pairs = labelled(measures, labels=labels, names=names)
    wide = per_query_wide(
        run, qrels, pairs, cols, complete=complete, depth=depth, duplicates=duplicates, strict=strict
    )
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
) -> pl.LazyFrame:
    """``[*by, metric, value, num_q]`` (or wide: ``[*by, <one column per measure>, num_q]``).

    The mean over evaluated queries (counts summed), added query after query in the
    text order of the query ids, as trec_eval accumulates, then divided once by the
    number of queries: the same bits whatever the row order, thread count or engine.
    """
    _choice("shape", shape, ("long", "wide"))
    pairs = labelled(measures, labels=labels, names=names)
    _check_names(cols.by, ["metric", "value", "num_q"] if shape == "long" else ["num_q"])
    wide = per_query_wide(
        run, qrels, pairs, cols, complete=complete, depth=depth, duplicates=duplicates, strict=strict
    )
    order = pl.col(cols.query_id).cast(pl.String)
    aggs = []
    for m, label in pairs:
        aggs.append(_aggregate(pl.col(label), order, m.spec.aggregate).alias(label))
    num_q = pl.len().cast(pl.Int64).alias("num_q")
    if cols.by:
        totals = wide.group_by(list(cols.by)).agg(*aggs, num_q).sort(list(cols.by))
    else:
        totals = wide.select(*aggs, num_q)
    if shape == "wide":
        return totals
    long = to_long(totals, cols.by, [label for _, label in pairs], carry=["num_q"])
    return long.select(*cols.by, "metric", "value", "num_q")
