"""Tie-aware ranking measures: expected, optimistic and pessimistic values over tied scores.

trec_eval orders documents with equal scores by doc_id, so a measure can
change when documents are renamed. Here each set of documents of a query
with the same score (compared as doubles, as the ranking core
does) is a *tie group*, and the value of a measure is taken over every
ordering of the documents inside each group:

- ``"expected"``: the mean over all those orderings, each equally likely
  (McSherry and Najork, ECIR 2008), in closed form;
- ``"optimistic"`` / ``"pessimistic"``: the largest / smallest value, from
  the ordering that puts the highest / lowest judgements first in each
  group (for these measures that ordering is best / worst for every group at
  once), scored by the same :mod:`frame_eval.ranking` expressions as ``evaluate``.

Closed forms, for a group g at positions s+1 .. s+n holding r relevant
documents (``relevance >= rel``) of total gain G, with A relevant documents
ranked above the group and R relevant documents judged for the query; each
position p = s + j of the group holds a relevant document with probability r / n:

- P@k = sum_{p <= k} (r / n) / k;  R@k = sum_{p <= k} (r / n) / R;
- DCG@k = sum_{p <= k} (G / n) / log2(p + 1);  nDCG@k = DCG@k / IDCG@k;
- AP@k = (1 / R) sum_{p <= k} (r / n) (A + 1 + (j - 1)(r - 1) / (n - 1)) / p
  (a relevant document at the j-th place of its group has, on average,
  (j - 1)(r - 1) / (n - 1) of the group's other relevant documents above it);
- RR@k: in the first group with a relevant document, the first relevant one
  is at place j with probability S(j - 1) - S(j), S(j) = prod_{i <= j} (n - r - i + 1) / (n - i + 1);
  RR@k = sum_{p <= k} (S(j - 1) - S(j)) / p.

Measures: ``P@k``, ``R@k``, ``AP``, ``AP@k``, ``RR``, ``RR@k``, ``nDCG``,
``nDCG@k`` (linear gains, log2 discount: trec_eval's). Without ties every
value equals ``evaluate``'s. Documents the run missed (rank null) count in R
and in the ideal DCG only. R = 0 or IDCG = 0 gives 0, as in the core.

The per-row sums run in rank order (``cum_sum().last()``), so results are
the same bits for any row order and thread count. Everything is lazy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from frame_eval import ranking as _ranking

Ties = Literal["expected", "optimistic", "pessimistic"]

_PATTERN = re.compile(r"^(P|R|AP|RR|nDCG)(?:@(\d+))?$", re.IGNORECASE)
_CANONICAL = {"p": "P", "r": "R", "ap": "AP", "rr": "RR", "ndcg": "nDCG"}


@dataclass(frozen=True)
class _Measure:
    family: str
    k: int | None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"


def _parse(names: str | Sequence[str]) -> list[_Measure]:
    out = []
    for name in [names] if isinstance(names, str) else names:
        match = _PATTERN.match(str(name).strip())
        if match is None:
            raise ValueError(
                f"tie-aware measure {name!r} is not supported; "
                "use P@k, R@k, AP, AP@k, RR, RR@k, nDCG or nDCG@k"
            )
        family, k = _CANONICAL[match.group(1).lower()], match.group(2)
        if family in ("P", "R") and k is None:
            raise ValueError(f"{family} needs a cutoff, e.g. {family}@10")
        if k is not None and int(k) < 1:
            raise ValueError(f"the cutoff of {name!r} must be at least 1")
        out.append(_Measure(family, None if k is None else int(k)))
    return out


def _sum_in_order(expr: pl.Expr) -> pl.Expr:
    return expr.cum_sum().last()


def _within(p: pl.Expr, k: int | None) -> pl.Expr:
    return pl.lit(True) if k is None else p <= k


def _expected(m: _Measure) -> pl.Expr:
    p, n, r, j = pl.col("_p").cast(pl.Float64), pl.col("_n"), pl.col("_r"), pl.col("_j")
    share = r / n
    if m.family in ("P", "R"):
        found = _sum_in_order(pl.when(_within(pl.col("_p"), m.k)).then(share).otherwise(0.0))
        if m.family == "P":
            return found / m.k
        return pl.when(pl.col("_R").first() > 0).then(found / pl.col("_R").first()).otherwise(0.0)
    if m.family == "AP":
        others = pl.when(n > 1).then((j - 1) * (r - 1) / (n - 1)).otherwise(0.0)
        term = share * (pl.col("_A") + 1 + others) / p
        total = _sum_in_order(pl.when(_within(pl.col("_p"), m.k)).then(term).otherwise(0.0))
        return pl.when(pl.col("_R").first() > 0).then(total / pl.col("_R").first()).otherwise(0.0)
    if m.family == "RR":
        first = (pl.col("_r") > 0) & (pl.col("_A") == 0)
        term = (pl.col("_S_before") - pl.col("_S")) / p
        return _sum_in_order(pl.when(first & _within(pl.col("_p"), m.k)).then(term).otherwise(0.0))
    # nDCG: expected DCG over the ideal DCG (which ties do not change)
    dcg = _sum_in_order(
        pl.when(_within(pl.col("_p"), m.k)).then(pl.col("_G") / n / (p + 1).log(2.0)).otherwise(0.0)
    )
    ideal = pl.col(f"_ideal_{m.k}").first()
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(0.0)


def _ideal_dcg(relevance: str, k: int | None) -> pl.Expr:
    gains = pl.col(relevance).fill_null(0).clip(lower_bound=0).sort(descending=True)
    if k is not None:
        gains = gains.head(k)
    positions = pl.int_range(2, gains.len() + 2).cast(pl.Float64)
    return (gains.cast(pl.Float64) / positions.log(2.0)).sum()


def _bound(m: _Measure, rel: int, rank: str, relevance: str) -> pl.Expr:
    if m.family == "P":
        return _ranking.precision(m.k, rel=rel, rank=rank, relevance=relevance)  # type: ignore[arg-type]
    if m.family == "R":
        return _ranking.recall(m.k, rel=rel, rank=rank, relevance=relevance)
    if m.family == "AP":
        return _ranking.ap(m.k, rel=rel, rank=rank, relevance=relevance)
    if m.family == "RR":
        return _ranking.rr(m.k, rel=rel, rank=rank, relevance=relevance)
    return _ranking.ndcg(m.k, rank=rank, relevance=relevance)


def tie_aware(
    judged: Any,
    measures: str | Sequence[str] = ("AP", "nDCG@10", "P@10", "RR"),
    *,
    ties: Ties = "expected",
    by: str | Sequence[str] | None = None,
    query_id: str = "query_id",
    score: str = "score",
    rank: str = "rank",
    relevance: str = "relevance",
    rel: int = 1,
) -> Any:
    """Tie-aware values of ranking measures, per query, tidy long.

    ``judged`` is the output of ``run.ireval.judge(qrels, by=...)`` (its rank,
    relevance and score columns). Returns ``[*by, query_id, metric, value,
    straddling]``, sorted by the keys, measures in the order given;
    ``straddling`` counts the tie groups that cross the measure's cutoff
    (a group at positions s+1 .. s+n with s < k < s + n), null for measures
    without one. See the module docstring for the formulas. A LazyFrame
    gives a LazyFrame; pandas gives polars (convert with ``to_pandas()``).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval.compare import tie_aware
    >>> judged = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"],
    ...                        "rank": [1, 2, 3], "relevance": [0, 1, None], "score": [0.5, 0.5, 0.1]})
    >>> tie_aware(judged, ["P@1", "RR"]).rows()
    [('q', 'P@1', 0.5, 1), ('q', 'RR', 0.75, None)]
    >>> tie_aware(judged, ["P@1", "RR"], ties="pessimistic")["value"].to_list()
    [0.0, 0.5]
    """
    from frame_eval.polars_ns import to_lazy  # polars_ns imports the compare package

    if ties not in ("expected", "optimistic", "pessimistic"):
        raise ValueError(f"ties must be 'expected', 'optimistic' or 'pessimistic', got {ties!r}")
    parsed = _parse(measures)
    lazy_in = isinstance(judged, pl.LazyFrame)
    frame = to_lazy(judged, "judged frame")
    keys = ([] if by is None else [by] if isinstance(by, str) else list(by)) + [query_id]
    schema = frame.collect_schema()
    absent = [c for c in [*keys, score, rank, relevance] if c not in schema]
    if absent:
        raise ValueError(
            f"judged frame has no column {', '.join(map(repr, absent))}; its columns are {schema.names()!r}; "
            "pass the output of run.ireval.judge(qrels) (and by=, score=, ... for other names)"
        )
    # a judged frame that went through pandas holds NaN for the missed documents' rank
    floats = [c for c in (rank, relevance) if schema[c].is_float()]
    if floats:
        frame = frame.with_columns(pl.col(c).fill_nan(None).cast(pl.Int64) for c in floats)
    tie = pl.col(score).cast(pl.Float64)
    group = [*keys, "_tie"]
    relevant = (pl.col(relevance).fill_null(0) >= rel).cast(pl.Int64)
    base = frame.with_columns(
        tie.alias("_tie"), relevant.alias("_rel"),
        relevant.sum().over(keys).alias("_R"),
    )
    ideal_columns = [_ideal_dcg(relevance, m.k).alias(f"_ideal_{m.k}") for m in parsed if m.family == "nDCG"]
    ideals = base.group_by(keys).agg(*ideal_columns) if ideal_columns else None
    ranked = base.filter(pl.col(rank).is_not_null()).sort([*keys, rank])
    gain = pl.col(relevance).fill_null(0).clip(lower_bound=0).cast(pl.Float64)
    ranked = ranked.with_columns(
        pl.col(rank).cast(pl.Int64).alias("_p"),
        (pl.col(rank).min().over(group).cast(pl.Int64) - 1).alias("_s"),
        pl.len().over(group).cast(pl.Float64).alias("_n"),
        pl.col("_rel").sum().over(group).cast(pl.Float64).alias("_r"),
        gain.sum().over(group).alias("_G"),
        pl.col("_rel").cum_sum().over(keys).alias("_cum"),
    ).with_columns(
        (pl.col("_p") - pl.col("_s")).cast(pl.Float64).alias("_j"),
        # relevant documents ranked above the group: those up to its end, less its own
        (pl.col("_cum").max().over(group) - pl.col("_r")).cast(pl.Float64).alias("_A"),
    )
    j, n, r = pl.col("_j"), pl.col("_n"), pl.col("_r")
    factor = pl.max_horizontal(n - r - j + 1, 0.0) / (n - j + 1)
    ranked = ranked.with_columns(factor.cum_prod().over(group).alias("_S")).with_columns(
        pl.col("_S").shift(1, fill_value=1.0).over(group).alias("_S_before")
    )

    if ties == "expected":
        values = ranked
        if ideals is not None:
            values = ranked.join(ideals, on=keys, how="left", maintain_order="left")
        per_query = values.group_by(keys).agg(_expected(m).alias(m.name) for m in parsed)
        everyone = base.select(keys).unique()
        per_query = everyone.join(per_query, on=keys, how="left").with_columns(
            pl.col(m.name).fill_null(0.0) for m in parsed
        )
    else:
        # retrieved rows re-ranked: score descending, then the best (or worst)
        # judgement first inside each tie group, then the original rank; missed rows keep no rank
        judgement = pl.col(relevance).fill_null(0)
        reranked = ranked.with_columns(judgement.alias("_j_order")).sort(
            [*keys, "_tie", "_j_order", rank],
            descending=[*([False] * len(keys)), True, ties == "optimistic", False],
        ).with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys).alias("_bound_rank"))
        missed = base.filter(pl.col(rank).is_null()).with_columns(pl.lit(None, pl.Int64).alias("_bound_rank"))
        both = pl.concat([reranked.select(*keys, relevance, "_bound_rank"),
                          missed.select(*keys, relevance, "_bound_rank")])
        per_query = both.group_by(keys).agg(
            _bound(m, rel, "_bound_rank", relevance).alias(m.name) for m in parsed
        )

    straddle = ranked.group_by(group).agg(pl.col("_s").first(), pl.col("_n").first())
    counts = straddle.group_by(keys).agg(
        ((pl.col("_s") < m.k) & (pl.col("_s") + pl.col("_n") > m.k)).sum().cast(pl.Int64).alias(m.name)
        for m in parsed if m.k is not None
    ) if any(m.k is not None for m in parsed) else None
    long = per_query.unpivot([m.name for m in parsed], index=keys, variable_name="metric", value_name="value")
    if counts is not None:
        counted = counts.unpivot([m.name for m in parsed if m.k is not None], index=keys,
                                 variable_name="metric", value_name="straddling")
        long = long.join(counted, on=[*keys, "metric"], how="left")
        long = long.with_columns(
            pl.when(pl.col("metric").is_in([m.name for m in parsed if m.k is not None]))
            .then(pl.col("straddling").fill_null(0))
        )
    else:
        long = long.with_columns(pl.lit(None, pl.Int64).alias("straddling"))
    order_of = {m.name: i for i, m in enumerate(parsed)}
    long = long.with_columns(pl.col("metric").replace_strict(order_of, return_dtype=pl.Int64).alias("_order"))
    result = long.sort([*keys, "_order"]).select(*keys, "metric", "value", "straddling")
    return result if lazy_in else result.collect()

