"""Macro and weighted means of per-class rates for every group at once, for the frame methods.

:func:`~frame_eval.classification.averages.averaged` computes a mean inside a
``group_by(...).agg``, where its NumPy-order sum (``pairwise_sum``) is one
Python call per group: about a millisecond each, so 100 groups and a few
means cost most of a call whose counts took 0.1 s. Here the per-class values
of all groups are laid out one row per (group, class), in class order, and
every column is summed by :func:`~frame_eval._float.pairwise_sums`, one call
for all groups. The terms, their order and the divisions are ``averaged``'s,
so the means have its bits (scikit-learn's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import polars as pl

from frame_eval._float import ordered_sum, pairwise_sums
from frame_eval.classification.averages import value
from frame_eval.classification.counts import Counts, fill_undefined, is_nan, ratio
from frame_eval.registry import Measure

_G: Final = "__fe_avg_group"


def class_means(
    counts: pl.LazyFrame,
    by: Sequence[str],
    class_column: str,
    measures: Mapping[str, Measure],
    average: str,
    zero_division: float | None,
) -> pl.LazyFrame:
    """``[*by, *measures]``: each group's ``average`` (``"macro"`` or ``"weighted"``) of each measure.

    ``counts`` holds one-vs-rest counts ``[*by, class_column, tp, fp, fn, tn, p, ...]``, a row per
    (group, class). Macro is ``np.nanmean`` of the per-class values (undefined ones count 0 in the sum,
    not in the number); weighted is ``np.average`` of the defined values weighted by support, the plain
    mean of them when their support adds to 0; ``zero_division`` as in ``averaged``.
    """
    if average not in ("macro", "weighted"):
        raise ValueError(f"class_means takes average='macro' or 'weighted', got {average!r}")
    by = list(by)
    fill = None if is_nan(zero_division) else zero_division
    c = Counts.columns()
    support = pl.col("p").cast(pl.Float64)
    columns: dict[str, pl.Expr] = {}
    for i, m in enumerate(measures.values()):
        v = fill_undefined(value(m, c), fill).cast(pl.Float64)
        columns |= {
            f"_all{i}": v.fill_null(0.0),  # macro: an undefined class adds 0 to the sum
            f"_kept{i}": v,  # weighted: nulls are left out of the sums
            f"_w{i}": v * support,
            f"_p{i}": pl.when(v.is_not_null()).then(support),
        }
    group_id = pl.struct(by).rle_id() if by else pl.lit(0, pl.UInt32)
    rows = counts.sort([*by, class_column]).select(
        *by, class_column, group_id.alias(_G), *(e.alias(k) for k, e in columns.items())
    ).cache()
    summed = [f"_all{i}" for i in range(len(measures))] if average == "macro" else [
        name for i in range(len(measures)) for name in (f"_kept{i}", f"_w{i}")
    ]
    sums = pairwise_sums(rows, _G, dict.fromkeys(summed, False))
    per_group = rows.group_by(_G).agg(
        *(pl.col(b).first() for b in by),
        *(pl.col(f"_kept{i}").is_not_null().sum().alias(f"_n{i}") for i in range(len(measures))),
        *(ordered_sum(pl.col(f"_p{i}").fill_null(0.0), pl.col(class_column)).alias(f"_p{i}")
          for i in range(len(measures))),
    ).join(sums, on=_G, how="left")
    means = []
    for i, name in enumerate(measures):
        if average == "macro":
            mean = ratio(pl.col(f"_all{i}"), pl.col(f"_n{i}"))
        else:
            weight_sum = pl.col(f"_p{i}")
            plain = ratio(pl.col(f"_kept{i}"), pl.col(f"_n{i}"))
            mean = pl.when(weight_sum > 0).then(ratio(pl.col(f"_w{i}"), weight_sum)).otherwise(plain)
        means.append((fill_undefined(mean, zero_division) if is_nan(zero_division) else mean).alias(name))
    if by:
        return per_group.select(*by, *means).sort(by)
    # one row, also for an empty frame (every mean null)
    one = pl.LazyFrame({_G: [0]}, schema={_G: pl.UInt32})
    return one.join(per_group, on=_G, how="left").select(*means)
