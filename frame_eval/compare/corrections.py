"""Corrections of p-values for multiple comparisons, as polars expressions over a family.

A *family* is the set of rows whose p-values are corrected together
(:func:`frame_eval.compare.compare` uses one family per measure and test:
every system compared on that measure with that test). With ``m`` the
number of non-null p-values in the family and ``p_(1) <= ... <= p_(m)``
their ascending order:

- ``"none"``: the p-value itself;
- ``"bonferroni"``: ``min(1, m p)``;
- ``"holm"`` (step-down): ``p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``;
- ``"bh"`` (Benjamini-Hochberg, false discovery rate; also ``"fdr_bh"``):
  ``p~_(i) = min(1, min_{j >= i} m p_(j) / j)``.

These are statsmodels' ``multipletests`` methods ``bonferroni``, ``holm``
and ``fdr_bh``. Null p-values (an undefined test) stay null and do not count in ``m``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import polars as pl

Correction = Literal["none", "bonferroni", "holm", "bh"]

_ALIASES = {
    "none": "none", "bonferroni": "bonferroni", "holm": "holm", "holm-bonferroni": "holm",
    "bh": "bh", "fdr_bh": "bh", "benjamini-hochberg": "bh", "fdr": "bh",
}


def canonical(correction: str | None) -> str:
    """The canonical name of a correction (``None`` is ``"none"``), or a ``ValueError``."""
    name = _ALIASES.get("none" if correction is None else str(correction).lower())
    if name is None:
        raise ValueError(
            f"unknown correction {correction!r}; use one of 'none', 'bonferroni', 'holm', 'bh'"
        )
    return name


def adjust(frame: pl.DataFrame, p: str, family: Sequence[str], correction: str | None,
           out: str = "p_adjusted", order: Sequence[str] = ()) -> pl.DataFrame:
    """``frame`` with a column ``out``: the p-values in ``p`` corrected within each ``family``.

    Rows keep their order. ``order`` breaks ties between equal p-values
    (the result does not depend on it; it only fixes the internal sort).

    >>> import polars as pl
    >>> df = pl.DataFrame({"m": ["AP"] * 3, "p": [0.01, 0.04, 0.03]})
    >>> adjust(df, "p", ["m"], "holm")["p_adjusted"].to_list()
    [0.03, 0.06, 0.06]
    >>> adjust(df, "p", ["m"], "bh")["p_adjusted"].to_list()
    [0.03, 0.04, 0.04]
    """
    name = canonical(correction)
    family = list(family)
    pc = pl.col(p)
    if name == "none":
        return frame.with_columns(pc.alias(out))
    m = pc.count().over(family) if family else pc.count()
    if name == "bonferroni":
        return frame.with_columns(pl.when(pc.is_not_null()).then(pl.min_horizontal(pc * m, 1.0)).alias(out))
    row = "__fe_row"
    work = frame.with_row_index(row).sort([*family, p, *order, row], nulls_last=True)
    rank = pl.int_range(1, pl.len() + 1)
    if family:
        rank = rank.over(family)
    if name == "holm":
        raw = pl.when(pc.is_not_null()).then((m - rank + 1) * pc)
        step = raw.cum_max()
    else:  # bh
        raw = pl.when(pc.is_not_null()).then(pc * m / rank)
        step = raw.cum_min(reverse=True)
    if family:
        step = step.over(family)
    work = work.with_columns(pl.min_horizontal(step, pl.lit(1.0)).alias(out))
    work = work.with_columns(pl.when(pc.is_not_null()).then(pl.col(out)).alias(out))
    return work.sort(row).drop(row)
