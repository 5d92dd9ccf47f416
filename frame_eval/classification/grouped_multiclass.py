"""Multi-class ROC AUC and average precision of many groups at once, for the frame methods.

The expressions of :mod:`frame_eval.classification.multiclass` build one
curve per class (or per pair of classes) inside one aggregation, which grows
with the number of classes. Here the predictions are laid out long instead,
one row per (row, binary problem), and every binary area of every group
comes from :mod:`frame_eval.classification.grouped_scores` (or its weighted
counterpart): one sort, one set of points, one batch of NumPy-order sums.

- one-vs-rest: a row per (row, class) with ``label == class`` and the
  class's score, keyed by ``(*by, class)``;
- micro: the same rows keyed by ``by`` alone (scikit-learn ravels the
  label-indicator matrix row by row; the curve's points, one per distinct
  score, do not depend on that order);
- one-vs-one: for each pair ``a < b`` (sorted label order, as
  ``itertools.combinations``), the rows labelled ``a`` or ``b``, once with
  ``label == a`` and the score of ``a`` and once with ``label == b`` and the
  score of ``b``, each side keyed by ``(*by, pair)`` and measured on its own
  (measured: half the CPU of one call on both sides' rows);
  the pair's value is the mean of its two sides, ``(x + y) / 2``.

Averages then follow ``np.average``: ``macro`` adds the defined per-class
(per-pair) values in class (pair) order with NumPy's pairwise sum and
divides once by their number; ``weighted`` divides the pairwise sum of
``value * weight`` by the pairwise sum of the weights, the weight being the
class's support (rows, or the sum of their sample weights, added in
:func:`frame_eval.classification.counts.tally`'s order) or, one-vs-one, the
pair's prevalence (its rows over the group's rows, one IEEE division, as
scikit-learn's ``_average_multiclass_ovo_score``). Undefined values (a class
without positive or without negative rows) are left out, with their weight.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import polars as pl

from frame_eval._float import pairwise_sums
from frame_eval.classification.counts import ratio, tally

# (frame, keys, names) -> [*keys, *names]: the binary areas of every group of keys
Measures = Callable[[pl.LazyFrame, list[str], list[str]], pl.LazyFrame]

_C, _G = "__fe_mc_class", "__fe_mc_group"
_SUPPORT, _ROWS, _VALUE, _WW = "__fe_mc_support", "__fe_mc_rows", "__fe_mc_value", "__fe_mc_weighted"
RESERVED: Final = (_C, _G, _SUPPORT, _ROWS, _VALUE, _WW)


def multiclass_areas(
    work: pl.LazyFrame,
    by: Sequence[str],
    actual: str,
    pairs: Sequence[tuple[Any, str]],
    weight: str | None,
    requests: Mapping[str, tuple[str, str, str]],
    measures: Measures,
    columns: tuple[str, str],
) -> pl.LazyFrame:
    """``[*by, *requests]``: one row per group of ``by`` (at least one key) present in ``work``.

    ``requests`` maps an output column to ``(score measure, multi_class, average)``
    (``"ROC_AUC"`` or ``"average_precision"``; AP is always one-vs-rest).
    ``columns`` names the positive-label and score columns that ``measures``
    reads; a weight column ``weight`` (already checked) is passed through.
    """
    by = list(by)
    positive, score = columns
    extra = [] if weight is None else [pl.col(weight)]
    supports = work.group_by(by).agg(
        pl.len().cast(pl.Int64).alias(_ROWS),
        *(tally(pl.col(actual) == c, weight).alias(f"{_SUPPORT}{i}") for i, (c, _) in enumerate(pairs)),
    ).cache()
    groups = supports.select(by)
    modes: dict[str, list[str]] = {}
    for name, multi_class, average in requests.values():
        mode = _mode(name, multi_class, average)
        if name not in modes.setdefault(mode, []):
            modes[mode].append(name)

    parts: dict[str, pl.LazyFrame] = {}
    if "ovr" in modes or "micro" in modes:
        per_class = [
            work.select(
                *by, pl.lit(i, pl.Int32).alias(_C), (pl.col(actual) == c).alias(positive),
                pl.col(col).cast(pl.Float64).alias(score), *extra,
            )
            for i, (c, col) in enumerate(pairs)
        ]
        long = pl.concat(per_class)
        if "ovr" in modes:
            weights = pl.concat([
                supports.select(*by, pl.lit(i, pl.Int32).alias(_C), pl.col(f"{_SUPPORT}{i}").alias(_SUPPORT))
                for i in range(len(pairs))
            ])
            # each class's areas in a call of its own (as one-vs-one's sides, below)
            areas = pl.concat([measures(rows, [*by, _C], modes["ovr"]) for rows in per_class])
            parts["ovr"] = areas.join(weights, on=[*by, _C], how="left", nulls_equal=True)
        if "micro" in modes:
            parts["micro"] = measures(long.drop(_C), by, modes["micro"])
    if "ovo" in modes:
        sides: tuple[list[pl.LazyFrame], list[pl.LazyFrame]] = ([], [])
        prevalence = []
        for p, ((i, (a, col_a)), (j, (b, col_b))) in enumerate(itertools.combinations(enumerate(pairs), 2)):
            rows = work.filter(pl.col(actual).is_in([a, b]))
            for side, (c, col) in enumerate(((a, col_a), (b, col_b))):
                sides[side].append(rows.select(
                    *by, pl.lit(p, pl.Int32).alias(_C),
                    (pl.col(actual) == c).alias(positive), pl.col(col).cast(pl.Float64).alias(score),
                ))
            share = ratio(pl.col(f"{_SUPPORT}{i}") + pl.col(f"{_SUPPORT}{j}"), pl.col(_ROWS))
            prevalence.append(supports.select(*by, pl.lit(p, pl.Int32).alias(_C), share.alias(_SUPPORT)))
        names = modes["ovo"]
        # each side's areas on their own (one sort of half the rows each: less than one sort of all)
        halves = [
            measures(pl.concat(sides[side]), [*by, _C], names).rename({n: f"{n}{side}" for n in names})
            for side in (0, 1)
        ]
        pair_keys = [*by, _C]
        both = halves[0].join(halves[1], on=pair_keys, how="full", coalesce=True, nulls_equal=True)
        mean = [((pl.col(f"{n}0") + pl.col(f"{n}1")) / 2.0).alias(n) for n in names]
        means = both.select(*pair_keys, *mean)
        parts["ovo"] = means.join(pl.concat(prevalence), on=pair_keys, how="left", nulls_equal=True)

    result = groups
    for key, (name, multi_class, average) in requests.items():
        mode = _mode(name, multi_class, average)
        if mode == "micro":
            value = parts["micro"].select(*by, pl.col(name).alias(key))
        else:
            value = _averaged(parts[mode], by, name, average).rename({_VALUE: key})
        result = result.join(value, on=by, how="left", nulls_equal=True)
    return result


def _mode(name: str, multi_class: str, average: str) -> str:
    if average == "micro":
        return "micro"
    return "ovo" if multi_class == "ovo" and name == "ROC_AUC" else "ovr"


def _averaged(per_class: pl.LazyFrame, by: list[str], name: str, average: str) -> pl.LazyFrame:
    """``[*by, value]``: the macro or weighted mean of ``name`` over each group's classes (or pairs), in
    class order, with NumPy's sums; null when no value is defined (or, weighted, the weights add to 0)."""
    v = pl.col(name).cast(pl.Float64)
    rows = per_class.sort([*by, _C]).with_columns(
        pl.struct(by).rle_id().alias(_G),
        v.alias(_VALUE),
        (v * pl.col(_SUPPORT).cast(pl.Float64)).alias(_WW),
        pl.when(v.is_not_null()).then(pl.col(_SUPPORT).cast(pl.Float64)).alias(_SUPPORT),
    ).cache()
    keys = rows.group_by(_G).agg(*(pl.col(b).first() for b in by), v.is_not_null().sum().alias("_count"))
    if average == "macro":
        sums = pairwise_sums(rows, _G, {_VALUE: False})
        mean = ratio(pl.col(_VALUE), pl.col("_count"))
    else:
        sums = pairwise_sums(rows, _G, {_WW: False, _SUPPORT: False})
        total = pl.col(_SUPPORT)
        mean = pl.when(total > 0).then(pl.col(_WW) / total)
    return keys.join(sums, on=_G, how="left").select(*by, mean.alias(_VALUE))
