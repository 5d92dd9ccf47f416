"""Pairing per-query values of two systems, and the group-wise statistics of the differences.

Everything here is polars on internal column names: ``_s`` (system),
``_b`` (baseline), ``_m`` (measure), ``_q`` (pairing key, e.g. query),
``_v`` / ``_vb`` (the system's / the baseline's value), ``_d = _v - _vb``.
A *group* is one (system, baseline, measure). Sums run in query order
(``cum_sum().last()`` over rows sorted by the key), so they are the same
bits for any thread count and input row order.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

Missing = Literal["error", "zero", "drop"]
GROUP = ["_s", "_b", "_m"]


def pair(values: pl.DataFrame, pairs: pl.DataFrame, missing: Missing,
         names: tuple[str, str, str]) -> pl.DataFrame:
    """One row per (system, baseline, measure, key) with both values, sorted; counts ``_n_missing``.

    ``values`` has ``_s, _m, _q, _v``; ``pairs`` has ``_s, _b``. A key that
    only one side of a pair has is an error naming it (``missing="error"``),
    scored 0 on the side that lacks it (``"zero"``), or left out (``"drop"``).
    ``names`` are the caller's (system, measure, key) column names for messages.
    The error shows the first gap in (system, baseline, measure, key) order.
    """
    mine = values.join(pairs, on="_s")
    theirs = values.rename({"_s": "_b", "_v": "_vb"}).join(pairs, on="_b")
    both = mine.join(theirs, on=[*GROUP, "_q"], how="full", coalesce=True)
    gap = pl.col("_v").is_null() | pl.col("_vb").is_null()
    if missing == "error":
        gaps = both.filter(gap).sort([*GROUP, "_q"])
        if gaps.height:
            row = gaps.row(0, named=True)
            lacking, having = (row["_s"], row["_b"]) if row["_v"] is None else (row["_b"], row["_s"])
            system, measure, key = names
            raise ValueError(
                f"{system} {lacking!r} has no {row['_m']} value ({measure} column) for {key} "
                f"{row['_q']!r}, which "
                f"{system} {having!r} has ({gaps.height} such gaps in all); pass missing='zero' "
                f"to score them 0 (trec_eval -c) or missing='drop' to compare only the shared {key}s"
            )
    both = both.with_columns(gap.cast(pl.Int64).sum().over(GROUP).alias("_n_missing"))
    filled = both.with_columns(pl.col("_v", "_vb").fill_null(0.0))
    both = filled if missing == "zero" else both.filter(~gap)
    return both.sort([*GROUP, "_q"])


def _ordered_sum(expr: pl.Expr) -> pl.Expr:
    return expr.cum_sum().last()


def statistics(paired: pl.DataFrame) -> pl.DataFrame:
    """Per group: n, means, mean and sd of the differences, wins/ties/losses, Wilcoxon's W+ and ties.

    ``r_plus`` is the sum of the ranks of ``|d|`` (average ranks, zeros left
    out) over positive ``d``; ``n_nonzero`` counts non-zero differences and
    ``tie_term`` sums t^3 - t over groups of t equal non-zero ``|d|``.
    Every sum runs in key order. ``d`` holds the differences as a list, in key order.
    """
    d = pl.col("_d")
    nonzero_abs = pl.when(d != 0).then(d.abs())
    ranked = paired.with_columns((pl.col("_v") - pl.col("_vb")).alias("_d")).with_columns(
        nonzero_abs.rank("average").over(GROUP).alias("_rank"),
        pl.when(d != 0).then(pl.len().over([*GROUP, nonzero_abs]).cast(pl.Int64)).alias("_tied"),
        (_ordered_sum(d).over(GROUP) / pl.len().over(GROUP)).alias("_mean_d"),
    )
    out = ranked.group_by(GROUP, maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("n"),
        (_ordered_sum(pl.col("_v")) / pl.len()).alias("mean"),
        (_ordered_sum(pl.col("_vb")) / pl.len()).alias("baseline_mean"),
        pl.col("_mean_d").first().alias("diff"),
        _ordered_sum((d - pl.col("_mean_d")) ** 2).alias("_ss"),
        (d > 0).sum().cast(pl.Int64).alias("wins"),
        (d == 0).sum().cast(pl.Int64).alias("ties"),
        (d < 0).sum().cast(pl.Int64).alias("losses"),
        _ordered_sum(pl.when(d > 0).then(pl.col("_rank")).otherwise(0.0)).alias("r_plus"),
        (d != 0).sum().cast(pl.Int64).alias("n_nonzero"),
        pl.col("_tied").pow(2).sub(1).sum().alias("tie_term"),
        pl.col("_n_missing").first().alias("n_missing"),
        d.alias("d"),
    )
    sd = (pl.col("_ss") / (pl.col("n") - 1)).sqrt()
    return out.with_columns(pl.when(pl.col("n") > 1).then(sd).alias("sd")).drop("_ss")
