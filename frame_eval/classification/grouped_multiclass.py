"""Multi-class ROC AUC and average precision of many groups at once, for the frame methods.

The expressions of :mod:`frame_eval.classification.multiclass` hand each
group's rows here too. Every binary area (a class against the rest, a side of
a one-vs-one pair) is read off curve points, one per distinct score, with
:mod:`frame_eval.classification.grouped_scores`' terms and NumPy-order sums.
The points come two ways, with the same counts (so the same bits):

- unweighted one-vs-rest and one-vs-one: each class's score column sorted
  once, every group together (:func:`_sorted_areas`: one 128-bit key per row,
  group hash, score and class index). The runs of equal keys count each
  group's rows at each score by class: class ``c``'s points against the rest
  are running sums over them, and the side ``c`` against ``d`` of a pair
  (sorted label order, as ``itertools.combinations``; the rows labelled ``c``
  or ``d``, positive ``c``, scored by ``c``'s column) reads only the runs of
  those two classes. A sort per class serves every pair; the pair's value is
  the mean of its two sides, ``(x + y) / 2``;
- weighted rows, the micro average and groups whose keys share a hash: laid
  out long, one row per (row, binary problem), each problem's areas from
  ``measures`` (:mod:`frame_eval.classification.grouped_scores` or its
  weighted counterpart): a row per (row, class) with ``label == class`` and
  the class's score keyed by ``(*by, class)``; micro the same rows keyed by
  ``by`` alone (scikit-learn ravels the label-indicator matrix row by row; the
  curve's points do not depend on that order); one-vs-one each pair's rows
  once per side.

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
from frame_eval._own_thread import on_own_thread
from frame_eval.classification.counts import ratio, tally
from frame_eval.classification.grouped_scores import _G as _POINT_GROUP
from frame_eval.classification.grouped_scores import defined_areas, point_areas, score_measures
from frame_eval.classification.packed_points import _order, keys_hash, told_apart, within_group

# (frame, keys, names) -> [*keys, *names]: the binary areas of every group of keys
Measures = Callable[[pl.LazyFrame, list[str], list[str]], pl.LazyFrame]

_C, _G = "__fe_mc_class", "__fe_mc_group"
_SUPPORT, _ROWS, _VALUE, _WW = "__fe_mc_support", "__fe_mc_rows", "__fe_mc_value", "__fe_mc_weighted"
RESERVED: Final = (_C, _G, _SUPPORT, _ROWS, _VALUE, _WW, "__fe_mc_hash", "__fe_mc_index", "__fe_mc_one")


def multiclass_areas(
    work: pl.LazyFrame,
    by: Sequence[str],
    actual: str,
    pairs: Sequence[tuple[Any, str]],
    weight: str | None,
    requests: Mapping[str, tuple[str, str, str]],
    measures: Measures,
    columns: tuple[str, str],
    *,
    one_group: bool = False,
) -> pl.LazyFrame:
    """``[*by, *requests]``: one row per group of ``by`` (at least one key) present in ``work``.

    ``requests`` maps an output column to ``(score measure, multi_class, average)``
    (``"ROC_AUC"`` or ``"average_precision"``; AP is always one-vs-rest).
    ``columns`` names the positive-label and score columns that ``measures``
    reads; a weight column ``weight`` (already checked) is passed through.
    ``one_group``: ``work`` holds one group (the expressions' call per group), so no two groups can
    share a hash and the plan leaves out the long layout that would measure them.
    """
    by = list(by)
    modes: dict[str, list[str]] = {}
    for name, multi_class, average in requests.values():
        mode = _mode(name, multi_class, average)
        if name not in modes.setdefault(mode, []):
            modes[mode].append(name)
    sorted_runs = weight is None and ("ovr" in modes or "ovo" in modes)
    if sorted_runs:
        hashed = pl.lit(0, pl.UInt64) if one_group else _group_hash(by, len(pairs))
        work = work.with_columns(hashed.alias(_H))
    supports = work.group_by(by).agg(
        pl.len().cast(pl.Int64).alias(_ROWS),
        *(tally(pl.col(actual) == c, weight).alias(f"{_SUPPORT}{i}") for i, (c, _) in enumerate(pairs)),
        *([pl.col(_H).first()] if sorted_runs else []),
    ).cache()
    groups = supports.select(by)
    laid_out: pl.LazyFrame | None = work
    ovr: pl.LazyFrame | None = None
    ovo: pl.LazyFrame | None = None
    if sorted_runs:
        # every class's scores sorted once per group (:func:`_sorted_areas`); groups whose keys share a
        # hash are laid out long below instead
        own, laid_out = (supports.select(*by, _H), None) if one_group else _told_apart(work, supports, by)
        ovr, ovo = _sorted_areas(work, own, actual, pairs, modes)

    parts: dict[str, pl.LazyFrame] = {}
    extra = [] if weight is None else [pl.col(weight)]
    positive, score = columns
    if "ovr" in modes or "micro" in modes:
        per_class = [
            (work if laid_out is None else laid_out).select(
                *by, pl.lit(i, pl.Int32).alias(_C), (pl.col(actual) == c).alias(positive),
                pl.col(col).cast(pl.Float64).alias(score), *extra,
            )
            for i, (c, col) in enumerate(pairs)
        ]
        if "ovr" in modes:
            weights = pl.concat([
                supports.select(*by, pl.lit(i, pl.Int32).alias(_C), pl.col(f"{_SUPPORT}{i}").alias(_SUPPORT))
                for i in range(len(pairs))
            ])
            # each class's areas in a call of its own (as one-vs-one's sides, below)
            laid = [] if laid_out is None else [measures(rows, [*by, _C], modes["ovr"]) for rows in per_class]
            areas = pl.concat([*([] if ovr is None else [ovr]), *laid])
            parts["ovr"] = areas.join(weights, on=[*by, _C], how="left", nulls_equal=True)
        if "micro" in modes:
            # (micro reads every group's rows laid out long, also when the other modes sort by runs)
            rows = per_class if laid_out is work or laid_out is None else [
                work.select(
                    *by, (pl.col(actual) == c).alias(positive), pl.col(col).cast(pl.Float64).alias(score),
                    *extra,
                )
                for c, col in pairs
            ]
            parts["micro"] = measures(pl.concat([r.select(pl.exclude(_C)) for r in rows]), by, modes["micro"])
    if "ovo" in modes:
        sides: tuple[list[pl.LazyFrame], list[pl.LazyFrame]] = ([], [])
        prevalence = []
        for p, ((i, (a, col_a)), (j, (b, col_b))) in enumerate(itertools.combinations(enumerate(pairs), 2)):
            rows = (work if laid_out is None else laid_out).filter(pl.col(actual).is_in([a, b]))
            for side, (c, col) in enumerate(((a, col_a), (b, col_b))):
                sides[side].append(rows.select(
                    *by, pl.lit(p, pl.Int32).alias(_C),
                    (pl.col(actual) == c).alias(positive), pl.col(col).cast(pl.Float64).alias(score),
                ))
            share = ratio(pl.col(f"{_SUPPORT}{i}") + pl.col(f"{_SUPPORT}{j}"), pl.col(_ROWS))
            prevalence.append(supports.select(*by, pl.lit(p, pl.Int32).alias(_C), share.alias(_SUPPORT)))
        names = modes["ovo"]
        pair_keys = [*by, _C]
        if ovo is not None and laid_out is None:
            both = ovo
        else:
            # each side's areas on their own (one sort of half the rows each: less than one sort of all)
            halves = [
                measures(pl.concat(sides[side]), [*by, _C], names).rename({n: f"{n}{side}" for n in names})
                for side in (0, 1)
            ]
            both = halves[0].join(halves[1], on=pair_keys, how="full", coalesce=True, nulls_equal=True)
            if ovo is not None:
                both = pl.concat([ovo, both])
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


# -- every class's scores sorted once per group ----------------------------------------------------------

_H, _I, _O, _Q, _LEN = "__fe_mc_hash", "__fe_mc_index", "__fe_mc_order", "__fe_mc_problem", "__fe_mc_len"
_ONE, _BASE, _POS = "__fe_mc_one", "__fe_mc_base", "__fe_mc_positive"


def _group_hash(by: Sequence[str], classes: int) -> pl.Expr:
    """A hash of the keys ``by`` (UInt64) narrow enough to leave room, in a 128-bit key, for a score's 64
    bits and a class index up to ``classes`` (the sort key of :func:`_sorted_areas`)."""
    return keys_hash(by) // (1 << classes.bit_length())


def class_areas(
    frame: pl.LazyFrame, by: Sequence[str], actual: str, pairs: Sequence[tuple[Any, str]],
    names: Sequence[str],
) -> pl.LazyFrame:
    """``[*by, _C, *names]``: each class's areas against the rest (``_C`` its position in ``pairs``, Int32;
    ``names`` from :data:`~frame_eval.classification.grouped_scores.SCORE_MEASURES`), unweighted, a row per
    group and class; a label that is no class is negative for every class. From one sort of each class's
    scores (:func:`_sorted_areas`); groups whose keys share a hash from the long layout."""
    by = list(by)
    keys = by or [_ONE]  # (one key at least: without by=, a constant one)
    work = frame if by else frame.with_columns(pl.lit(0, pl.Int8).alias(_ONE))
    work = work.with_columns(_group_hash(keys, len(pairs)).alias(_H))
    table = work.group_by(keys).agg(pl.col(_H).first()).cache()
    own, laid_out = _told_apart(work, table, keys)
    ovr, _ = _sorted_areas(work, own, actual, pairs, {"ovr": list(names)})
    assert ovr is not None
    again = [
        score_measures(
            laid_out.with_columns(pl.lit(i, pl.Int32).alias(_C)), [*keys, _C], pl.col(actual) == c,
            pl.col(col), names,
        )
        for i, (c, col) in enumerate(pairs)
    ]
    return pl.concat([part.select(*by, _C, *names) for part in (ovr, *again)])


def _told_apart(
    work: pl.LazyFrame, table: pl.LazyFrame, by: list[str]
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """(``[*by, _H]`` of the groups of ``table`` whose hash is theirs alone; ``work``'s rows of the other
    groups, in ``work``'s order). A collision costs time (those groups are laid out long), never a wrong
    number."""
    own, _, laid_out = told_apart(work, table, by, _H)
    return own.select(*by, _H), laid_out


def _sorted_areas(
    work: pl.LazyFrame, own: pl.LazyFrame, actual: str, pairs: Sequence[tuple[Any, str]],
    modes: Mapping[str, list[str]],
) -> tuple[pl.LazyFrame | None, pl.LazyFrame | None]:
    """(one-vs-rest ``[*by, _C, *names]``, one-vs-one ``[*by, _C, *names0, *names1]``, each ``None`` unless
    asked for) of the groups of ``own`` (``[*by, _H]``, hashes of one group each), from ``work`` with
    ``_H`` (:func:`_group_hash`).

    Each class's score column is sorted once, all groups together, as one 128-bit key per row: ``hash *
    2^(64 + b) + order(score) * 2^b + index``, the row's class index (``k`` for a label that is no class)
    in the low ``b`` bits. Sorted descending, the runs of equal keys are each group's rows by score
    descending, counted by class: one-vs-rest reads class ``c``'s points off its runs, and the side
    (``c`` against ``d``) of a one-vs-one pair off the runs of classes ``c`` and ``d`` among them (the
    rows of that pair: no layout of each pair's rows). The points are those that the long layout gives
    (one per distinct score, the same counts), so are the areas' bits.
    """
    k = len(pairs)
    labels = [c for c, _ in pairs]
    index = pl.lit(k, pl.UInt64)
    for i, c in reversed(list(enumerate(labels))):
        index = pl.when(pl.col(actual) == c).then(pl.lit(i, pl.UInt64)).otherwise(index)
    scores = [pl.col(col).cast(pl.Float64).alias(f"_s{i}") for i, (_, col) in enumerate(pairs)]
    rows = work.select(_H, index.alias(_I), *scores)
    one_vs_rest, one_vs_one = modes.get("ovr", []), modes.get("ovo", [])
    combinations = list(itertools.combinations(range(k), 2))

    def run(frame: pl.DataFrame) -> pl.DataFrame:
        big, bits = pl.UInt128, k.bit_length()
        # the group and the class index of every key, made once (half the cost of each class's keys)
        base = pl.col(_H).cast(big) * pl.lit(1 << (64 + bits), big) + pl.col(_I).cast(big)
        frame = frame.select(base.alias(_BASE), *(f"_s{i}" for i in range(k)))

        # each problem's runs (numbered _Q, positive class _POS), one after the other; the points of all
        # of them in one pass (a fixed number of polars calls per class, whatever the pairs)
        problems = []
        for i in range(k):  # (one class after the other: each sort already runs on every core)
            runs = _class_runs(frame, i, k).with_columns(pl.lit(i, pl.UInt64).alias(_POS))
            if one_vs_rest:
                problems.append(runs.with_columns(pl.lit(i, pl.Int32).alias(_Q)))
            for p, pair in enumerate(combinations):
                if one_vs_one and i in pair:
                    other = pair[1] if i == pair[0] else pair[0]
                    problem = k + 2 * p + (i != pair[0])
                    problems.append(runs.filter(pl.col(_I).is_in([i, other])).with_columns(
                        pl.lit(problem, pl.Int32).alias(_Q)
                    ))
        points = _run_points(pl.concat(problems))
        return pl.concat([
            _problem_areas(points.filter(pl.col(_Q) < k), one_vs_rest),
            _problem_areas(points.filter(pl.col(_Q) >= k), one_vs_one),
        ], how="diagonal_relaxed").select(list(schema))

    names = list(dict.fromkeys([*one_vs_rest, *one_vs_one]))
    schema = {_H: pl.UInt64, _Q: pl.Int32, **dict.fromkeys(names, pl.Float64)}
    areas = rows.map_batches(on_own_thread(run), schema=schema).join(own, on=_H).cache()
    by = [c for c in own.collect_schema() if c != _H]
    ovr = None
    if one_vs_rest:
        ovr = areas.filter(pl.col(_Q) < k).select(*by, pl.col(_Q).alias(_C), *one_vs_rest)
    if not one_vs_one:
        return ovr, None
    sides = [
        areas.filter((pl.col(_Q) >= k) & ((pl.col(_Q) - k) % 2 == side)).select(
            *by, ((pl.col(_Q) - k) // 2).alias(_C), *(pl.col(n).alias(f"{n}{side}") for n in one_vs_one)
        )
        for side in (0, 1)
    ]
    pair_keys = [*by, _C]
    return ovr, sides[0].join(sides[1], on=pair_keys, how="full", coalesce=True, nulls_equal=True)


def _class_runs(rows: pl.DataFrame, i: int, classes: int) -> pl.DataFrame:
    """``[_H, _O, _I, _LEN]``: the runs of equal (group, score of class ``i``, class index) in ``rows``
    (``[_BASE, _s0, ...]``, ``_BASE`` the key's group and class index), groups and scores descending
    (``_O`` the score's order, a UInt64)."""
    big, bits = pl.UInt128, classes.bit_length()
    key = pl.col(_BASE) + _order(pl.col(f"_s{i}")).cast(big) * pl.lit(1 << bits, big)
    keys = rows.select(key.alias("_key")).get_column("_key")
    runs = keys.sort(descending=True).rle().struct.unnest()
    value = pl.col("value")
    return runs.select(
        (value // pl.lit(1 << (64 + bits), big)).cast(pl.UInt64).alias(_H),
        ((value // pl.lit(1 << bits, big)) % pl.lit(1 << 64, big)).cast(pl.UInt64).alias(_O),
        (value % pl.lit(1 << bits, big)).cast(pl.UInt64).alias(_I),
        pl.col("len").cast(pl.Int64).alias(_LEN),
    )


def _run_points(runs: pl.DataFrame) -> pl.DataFrame:
    """``[_H, _Q, tp, fp, _P, _N]``: a point per distinct score of each group of each binary problem
    (threshold descending), class ``_POS``'s rows positive and the others' negative, from runs of
    :func:`_class_runs` numbered by problem ``_Q`` (each problem's runs together)."""
    h, q, o, n = pl.col(_H), pl.col(_Q), pl.col(_O), pl.col(_LEN)
    ends = runs.select(
        h, q,
        ((h != h.shift(-1)) | (q != q.shift(-1)) | (o != o.shift(-1))).fill_null(True).alias("_end"),
        n.cum_sum().alias("_k"),
        pl.when(pl.col(_I) == pl.col(_POS)).then(n).otherwise(0).cum_sum().alias("tp"),
    ).filter("_end")
    first = ((h != h.shift(1)) | (q != q.shift(1))).fill_null(True)
    last = ((h != h.shift(-1)) | (q != q.shift(-1))).fill_null(True)
    count, tp = pl.col("_k"), pl.col("tp")
    return ends.with_columns(within_group(count, first), within_group(tp, first)).select(
        h, q, tp, (count - tp).alias("fp"),
        pl.when(last).then(tp).backward_fill().alias("_P"),
        pl.when(last).then(count - tp).backward_fill().alias("_N"),
    )


def _problem_areas(points: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """``[_H, _Q, *names]`` from the points of binary problems (:func:`_run_points`), the areas of
    :mod:`~frame_eval.classification.grouped_scores` (null where undefined)."""
    schema = {_H: pl.UInt64, _Q: pl.Int32, **dict.fromkeys(names, pl.Float64)}
    if not names:
        return pl.DataFrame(schema=schema)
    numbered = points.with_columns(pl.struct(_H, _Q).rle_id().alias(_POINT_GROUP))
    totals = numbered.lazy().group_by(_POINT_GROUP).agg(pl.col(_H, _Q, "_P", "_N").first())
    for part in point_areas(numbered.lazy(), names):
        totals = totals.join(part, on=_POINT_GROUP, how="left")
    return totals.select(_H, _Q, *defined_areas(names)).collect(engine="in-memory")


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
