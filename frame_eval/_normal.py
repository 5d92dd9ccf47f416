"""The standard normal quantile (probit, normal deviate) as a polars expression, without SciPy.

Polars has no inverse normal CDF. :func:`normal_deviate` evaluates Wichura's
algorithm AS 241 (PPND16, Applied Statistics 37, 1988), the rational
approximations that ``scipy.special.ndtri`` and Python's
``statistics.NormalDist.inv_cdf`` are checked against, with about 16
significant digits: three rational functions, one for the centre
(``|p - 1/2| <= 0.425``) and two for the tails in ``r = sqrt(-log(min(p, 1 - p)))``,
each a ratio of two degree-7 polynomials evaluated by Horner's rule. Each value
takes only its own branch's function (the rows of each branch are picked out and
their values put back in place), a third of the arithmetic of evaluating all
three everywhere and choosing after, with the same operations, so the same bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

__all__ = ["normal_deviate"]

# coefficients of AS 241 (PPND16), lowest degree last, as published
_CENTRE_NUM: Final = (
    2509.0809287301226727, 33430.575583588128105, 67265.770927008700853, 45921.953931549871457,
    13731.693765509461125, 1971.5909503065514427, 133.14166789178437745, 3.387132872796366608,
)
_CENTRE_DEN: Final = (
    5226.495278852854561, 28729.085735721942674, 39307.89580009271061, 21213.794301586595867,
    5394.1960214247511077, 687.1870074920579083, 42.313330701600911252, 1.0,
)
_NEAR_NUM: Final = (
    7.7454501427834140764e-4, 0.0227238449892691845833, 0.24178072517745061177, 1.27045825245236838258,
    3.64784832476320460504, 5.7694972214606914055, 4.6303378461565452959, 1.42343711074968357734,
)
_NEAR_DEN: Final = (
    1.05075007164441684324e-9, 5.475938084995344946e-4, 0.0151986665636164571966, 0.14810397642748007459,
    0.68976733498510000455, 1.6763848301838038494, 2.05319162663775882187, 1.0,
)
_FAR_NUM: Final = (
    2.01033439929228813265e-7, 2.71155556874348757815e-5, 0.0012426609473880784386,
    0.026532189526576123093, 0.29656057182850489123, 1.7848265399172913358, 5.4637849111641143699,
    6.6579046435011037772,
)
_FAR_DEN: Final = (
    2.04426310338993978564e-15, 1.4215117583164458887e-7, 1.8463183175100546818e-5,
    7.868691311456132591e-4, 0.0148753612908506148525, 0.13692988092273580531, 0.59983220655588793769, 1.0,
)


def _horner(x: pl.Expr, coefficients: Sequence[float]) -> pl.Expr:
    value: pl.Expr = pl.lit(coefficients[0], pl.Float64)
    for c in coefficients[1:]:
        value = value * x + c
    return value


def _rational(x: pl.Expr, numerator: Sequence[float], denominator: Sequence[float]) -> pl.Expr:
    return _horner(x, numerator) / _horner(x, denominator)


def _deviates(probabilities: pl.Series) -> pl.Series:
    """:func:`normal_deviate` of a Float64 Series: the values without a rational function (NaN, +-inf,
    null) first, then each branch's rows computed alone and scattered into place."""
    p = pl.col("p")
    q = p - 0.5
    centre = q.abs() <= 0.425
    tail = ~centre & (p > 0) & (p < 1)
    frame = probabilities.to_frame("p")
    values = frame.select(
        pl.when((p < 0) | (p > 1)).then(float("nan"))
        .when(p == 0).then(float("-inf"))
        .when(p == 1).then(float("inf"))
        .otherwise(p)  # (null stays null; the others are replaced below)
    ).to_series()
    rows = frame.with_row_index("i")
    r = 0.180625 - q * q
    centred = q * _horner(r, _CENTRE_NUM) / _horner(r, _CENTRE_DEN)
    middle = rows.filter(centre).select("i", centred.alias("v"))
    r = pl.col("r")
    tails = rows.filter(tail).select(
        "i", pl.min_horizontal(p, 1.0 - p).log().neg().sqrt().alias("r"), (q < 0).alias("below")
    ).select(
        "i",
        pl.when(r <= 5.0).then(_rational(r - 1.6, _NEAR_NUM, _NEAR_DEN))
        .otherwise(_rational(r - 5.0, _FAR_NUM, _FAR_DEN)).alias("v"),
        "below",
    ).select("i", pl.when("below").then(-pl.col("v")).otherwise(pl.col("v")).alias("v"))
    computed = pl.concat([middle, tails])
    return values.scatter(computed.get_column("i"), computed.get_column("v"))


def normal_deviate(p: pl.Expr) -> pl.Expr:
    """The standard normal quantile of the probabilities ``p``: ``Phi^-1(p)`` (``scipy.special.ndtri``).

    ``0`` gives ``-inf``, ``1`` gives ``inf``; outside [0, 1], NaN; null stays null.

    >>> import polars as pl
    >>> pl.DataFrame({"p": [0.025, 0.5, 0.975, 0.0]}).select(normal_deviate(pl.col("p")))["p"].to_list()
    [-1.9599639845400538, 0.0, 1.9599639845400536, -inf]
    """
    name = p.meta.output_name(raise_if_undetermined=False)
    value = p.cast(pl.Float64).map_batches(_deviates, return_dtype=pl.Float64)
    return value if name is None else value.alias(name)
