"""Confidence intervals of each system's mean over queries (or folds, segments)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from frame_eval.compare import distributions as dist
from frame_eval.compare import resampling

Method = Literal["t", "bootstrap"]


def intervals(
    frame: Any,
    *,
    by: str | Sequence[str] | None = "system",
    on: str = "query_id",
    measure: str | None = "metric",
    value: str = "value",
    level: float = 0.95,
    method: Method = "t",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> pl.DataFrame | pl.LazyFrame:
    """The mean of each (system, measure) over its keys with a confidence interval at ``level``.

    Returns ``[*by, metric, n, mean, sd, ci_low, ci_high]``, sorted by the
    groups. With n values x (summed in ``on`` order, so the bits do not
    depend on row order or threads), mean m and standard deviation s
    (n - 1 in the denominator):

    - ``method="t"``: m ± t_{(1+level)/2, n-1} s / sqrt(n) (SciPy's
      ``stats.t.interval``); null when n < 2;
    - ``method="bootstrap"``: the percentile interval of ``n_resamples``
      bootstrap means, resampled as in :mod:`frame_eval.compare.resampling`
      (SciPy's ``bootstrap(..., method="percentile", batch=1024)`` with
      ``rng=numpy.random.default_rng(seed)``).

    This is the interval ``summarize`` users ask for as ``ci=0.95``: pass
    the output of ``evaluate``. It collects the frame and returns a
    LazyFrame for a LazyFrame. Needs ``pip install "frame-eval[stats]"``.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval.compare import intervals
    >>> per_query = pl.DataFrame({"system": ["a"] * 4, "query_id": [1, 2, 3, 4],
    ...                           "metric": ["AP"] * 4, "value": [0.2, 0.4, 0.6, 0.8]})
    >>> row = intervals(per_query).row(0, named=True)
    >>> row["mean"], round(row["ci_low"], 4), round(row["ci_high"], 4)
    (0.5, 0.0891, 0.9109)
    """
    from frame_eval.compare.frame import check_values
    from frame_eval.polars_ns import to_lazy

    lazy_in = isinstance(frame, pl.LazyFrame)
    data = to_lazy(frame, "per-query frame").collect()
    keys = [] if by is None else ([by] if isinstance(by, str) else list(by))
    groups = keys + ([measure] if measure is not None else [])
    absent = [c for c in [*groups, on, value] if c not in data.columns]
    if absent:
        raise ValueError(
            f"per-query frame has no column {', '.join(map(repr, absent))}; its columns are "
            f"{data.columns!r}; pass by=, on=, measure= or value= to name yours"
        )
    if method not in ("t", "bootstrap"):
        raise ValueError(f"method must be 't' or 'bootstrap', got {method!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    check_values(data, value, "per-query frame")
    x = pl.col(value).cast(pl.Float64)
    if measure is None:
        data = data.with_columns(pl.lit(value).alias("metric"))
        groups = [*keys, "metric"]
    data = data.sort([*groups, on])
    mean = x.cum_sum().last() / pl.len()
    centred = data.with_columns(mean.over(groups).alias("_mean"))
    out = centred.group_by(groups, maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("n"),
        pl.col("_mean").first().alias("mean"),
        ((x - pl.col("_mean")) ** 2).cum_sum().last().alias("_ss"),
        x.alias("_x"),
    )
    sd = (pl.col("_ss") / (pl.col("n") - 1)).sqrt()
    out = out.with_columns(pl.when(pl.col("n") > 1).then(sd).alias("sd"))
    n, m, s = out["n"].to_list(), out["mean"].to_list(), out["sd"].to_list()
    if method == "t":
        q = dist.t_quantile((1 + level) / 2, [max(k - 1, 1) for k in n]) if n else []
        half = [None if sd is None else qq * sd / k**0.5 for sd, qq, k in zip(s, q, n, strict=True)]
        low = [None if h is None else mm - h for mm, h in zip(m, half, strict=True)]
        high = [None if h is None else mm + h for mm, h in zip(m, half, strict=True)]
    else:
        bounds = [resampling.bootstrap(xs, n_resamples, seed, level)[1:] for xs in out["_x"].to_list()]
        # (null when n < 2, like the t interval)
        low, high = [b[0] for b in bounds], [b[1] for b in bounds]
    out = out.with_columns(
        pl.Series("ci_low", low, dtype=pl.Float64), pl.Series("ci_high", high, dtype=pl.Float64)
    )
    if measure is not None and measure != "metric":
        out = out.rename({measure: "metric"})
    out = out.select(*keys, "metric", "n", "mean", "sd", "ci_low", "ci_high")
    return out.lazy() if lazy_in else out
