"""``compare``: paired significance tests between systems over a tidy frame of per-query values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from frame_eval.compare import corrections, significance
from frame_eval.compare.paired import Missing, pair, statistics

OUTPUT = ["baseline", "metric", "test", "n", "mean", "baseline_mean", "diff", "ci_low", "ci_high",
          "p_value", "p_adjusted", "correction",
          "effect_size", "wins", "ties", "losses", "missing", "n_missing"]


def single_by(by: str | Sequence[str]) -> str:
    """The one system column of ``by`` (a name or a one-element list), or a ``TypeError``."""
    if isinstance(by, str):
        return by
    names = list(by)
    if len(names) != 1:
        raise TypeError(
            f"by must name one column that tells systems apart, got {names!r}; "
            "combine several into one first, e.g. pl.concat_str(...).alias('system')"
        )
    return names[0]


def check_values(frame: pl.DataFrame, value: str, what: str) -> None:
    """A ``TypeError`` for a non-numeric ``value`` column; a ``ValueError`` for null, NaN, inf values."""
    dtype = frame.schema[value]
    if not dtype.is_numeric():
        raise TypeError(f"{what} column {value!r} must be numeric, got {dtype}; cast it to Float64")
    bad = frame.select(
        pl.col(value).cast(pl.Float64).is_null() | ~pl.col(value).cast(pl.Float64).is_finite()
    ).to_series().arg_true()
    if bad.len():
        row = bad[0]
        raise ValueError(
            f"{what} column {value!r} has {frame[value][row]!r} at row {row} (0-based); "
            "every value must be a finite number: drop or fill those rows first"
        )


def _check_keys(frame: pl.DataFrame, keys: list[str], what: str) -> None:
    for key in keys:
        nulls = frame[key].is_null().arg_true()
        if nulls.len():
            raise ValueError(f"{what} column {key!r} is null at row {nulls[0]} (0-based); fill or drop it")
    repeated = frame.select(pl.struct(keys).is_duplicated()).to_series().arg_true()
    if repeated.len():
        row = repeated[0]
        example = ", ".join(f"{k}={frame[k][row]!r}" for k in keys)
        raise ValueError(
            f"{what} has more than one value for {example} (first at row {row}, 0-based); "
            "each system needs one value per measure and key: aggregate or deduplicate first"
        )


def _pairs(systems: list[Any], baseline: Any, by: str) -> pl.DataFrame:
    if baseline is None:
        rows = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]]
    else:
        if baseline not in systems:
            raise ValueError(
                f"baseline {baseline!r} is not a value of column {by!r}; its values are {systems!r}"
            )
        rows = [(s, baseline) for s in systems if s != baseline]
    return pl.DataFrame({"_s": [a for a, _ in rows], "_b": [b for _, b in rows]},
                        schema={"_s": None, "_b": None}, strict=False)


def compare(
    frame: Any,
    baseline: Any = None,
    *,
    by: str | Sequence[str] = "system",
    on: str = "query_id",
    measure: str | None = "metric",
    value: str = "value",
    tests: str | Sequence[str] = ("t",),
    correction: str | None = "none",
    missing: Missing = "error",
    level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> pl.DataFrame | pl.LazyFrame:
    """Paired significance tests of each system against a baseline (or of all pairs), per measure.

    ``frame`` is long, one value per (system, measure, key): the output of
    ``evaluate`` (``[system, query_id, metric, value]``) or any frame of
    paired values (folds, segments...). Values of two systems are paired by
    ``on``. Returns one row per (system, measure, test), sorted by system,
    baseline, measure and test order given::

        [<by>, baseline, metric, test, n, mean, baseline_mean, diff, ci_low, ci_high,
         p_value, p_adjusted, correction, effect_size, wins, ties, losses, missing, n_missing]

    ``diff = mean - baseline_mean`` (the mean of the paired differences);
    ``ci_low, ci_high`` its interval at ``level`` (Student's t, or the
    bootstrap percentile interval on ``bootstrap`` rows); ``effect_size`` is
    the paired Cohen's d, ``diff / sd(differences)`` (null when the sd is 0);
    ``wins/ties/losses`` count keys where the system is above / equal to /
    below the baseline. The tests are described in
    :mod:`frame_eval.compare.significance`.

    ``p_adjusted`` corrects ``p_value`` for the number of comparisons: the
    family is every row of one measure and one test (all the systems
    compared on that measure by that test), so adding a measure does not
    change another measure's corrected p-values. See
    :mod:`frame_eval.compare.corrections`.

    This collects the frame (exact null distributions need the data); a
    LazyFrame is collected here and the result is returned as a LazyFrame.
    Needs SciPy and NumPy: ``pip install "frame-eval[stats]"``.

    Parameters
    ----------
    baseline
        The ``by`` value every other system is compared with; ``None``
        compares every pair ``(a, b)`` with ``a`` before ``b`` in sorted order.
    by
        The column naming systems (one column).
    on
        The pairing key (query, fold, segment).
    measure
        The column naming measures, or ``None`` if the frame holds one measure
        (then ``metric`` in the result is the ``value`` column's name).
    value
        The numeric value column.
    tests
        Some of ``"t"``, ``"wilcoxon"``, ``"sign"``, ``"randomization"``, ``"bootstrap"``.
    correction
        ``"none"``, ``"bonferroni"``, ``"holm"`` or ``"bh"`` (Benjamini-Hochberg).
    missing
        A key one system of a pair has and the other lacks: ``"error"`` (the
        default, naming the system, measure and key), ``"zero"`` (scored 0,
        as trec_eval ``-c``) or ``"drop"`` (compared on shared keys only).
        The result states the policy (``missing``) and how many keys it
        filled or dropped (``n_missing``).
    level
        Confidence level of the intervals.
    n_resamples, seed
        Resamples of the randomization and bootstrap tests and the seed of
        their generator (the randomization test is exact when 2^n <= n_resamples).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval.compare import compare
    >>> per_query = pl.DataFrame({
    ...     "system": ["bm25"] * 4 + ["neural"] * 4, "query_id": ["q1", "q2", "q3", "q4"] * 2,
    ...     "metric": ["AP"] * 8, "value": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.5]})
    >>> result = compare(per_query, "bm25", tests=["t", "sign"])
    >>> result.select("system", "test", pl.col("diff").round(4), "wins", "ties", "losses").rows()
    [('neural', 't', 0.1, 3, 1, 0), ('neural', 'sign', 0.1, 3, 1, 0)]
    >>> round(result["p_value"][0], 4)
    0.0917
    """
    from frame_eval.polars_ns import to_lazy

    lazy_in = isinstance(frame, pl.LazyFrame)
    data = to_lazy(frame, "per-query frame").collect()
    system = single_by(by)
    names = [system, on, value] + ([measure] if measure is not None else [])
    missing_cols = [c for c in names if c not in data.columns]
    if missing_cols:
        raise ValueError(
            f"per-query frame has no column {', '.join(map(repr, missing_cols))}; its columns are "
            f"{data.columns!r}; pass by=, on=, measure= or value= to name yours"
        )
    if missing not in ("error", "zero", "drop"):
        raise ValueError(f"missing must be 'error', 'zero' or 'drop', got {missing!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    test_names = [significance.canonical(t) for t in ([tests] if isinstance(tests, str) else tests)]
    corrections.canonical(correction)
    check_values(data, value, "per-query frame")
    metric_expr = pl.col(measure) if measure is not None else pl.lit(value)
    _check_keys(data, [system, on] + ([measure] if measure is not None else []), "per-query frame")

    values = data.select(
        pl.col(system).alias("_s"), metric_expr.alias("_m"), pl.col(on).alias("_q"),
        pl.col(value).cast(pl.Float64).alias("_v"),
    )
    systems = values["_s"].unique().sort().to_list()
    pairs = _pairs(systems, baseline, system).cast({"_s": values.schema["_s"], "_b": values.schema["_s"]})
    paired = pair(values, pairs, missing, (system, measure or "value", on))
    stats = statistics(paired).sort(["_s", "_b", "_m"], maintain_order=True)
    effect = pl.when(pl.col("sd") > 0).then(pl.col("diff") / pl.col("sd"))
    stats = stats.with_columns(effect.alias("effect_size"))
    parts = [
        significance.run(stats, t, level=level, n_resamples=n_resamples, seed=seed)
        .with_columns(pl.lit(i).alias("_t")) for i, t in enumerate(test_names)
    ]
    result = pl.concat(parts).sort(["_s", "_b", "_m", "_t"], maintain_order=True)
    result = corrections.adjust(result, "p_value", ["_m", "_t"], correction, order=["_s", "_b"])
    result = result.with_columns(
        pl.lit(corrections.canonical(correction)).alias("correction"), pl.lit(missing).alias("missing")
    ).rename(
        {"_s": system, "_b": "baseline", "_m": "metric"}
    ).select(system, *OUTPUT)
    return result.lazy() if lazy_in else result
