"""Wide results to tidy long ``[*keys, metric, value]``: the one reshaping every front end shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl


def to_long(
    wide: pl.LazyFrame,
    keys: Sequence[str],
    columns: Sequence[str] | Mapping[str, str],
    *,
    carry: Sequence[str] = (),
) -> pl.LazyFrame:
    """Stack ``columns`` of ``wide`` into ``metric`` / ``value``, one block of rows per key.

    ``columns`` may map internal column names to the metric labels to report.
    ``carry`` columns are kept beside the keys (e.g. ``num_q``). The result is
    ``[*keys, *carry, metric, value]``, keys in the order of ``wide``.
    """
    keys = list(keys)
    long = wide.unpivot(on=list(columns), index=[*keys, *carry], variable_name="metric", value_name="value")
    if isinstance(columns, Mapping):
        long = long.with_columns(pl.col("metric").replace_strict(dict(columns), return_dtype=pl.String))
    # unpivot stacks column after column; a stable sort on the keys restores per-key blocks
    return long.sort(keys, maintain_order=True) if keys else long
