"""The standard normal quantile (probit, normal deviate) as a polars expression, without SciPy.

Polars has no inverse normal CDF. :func:`normal_deviate` evaluates Wichura's
algorithm AS 241 (PPND16, Applied Statistics 37, 1988), the rational
approximations that ``scipy.special.ndtri`` and Python's
``statistics.NormalDist.inv_cdf`` are checked against, with about 16
significant digits: three rational functions, one for the centre
(``|p - 1/2| <= 0.425``) and two for the tails in ``r = sqrt(-log(min(p, 1 - p)))``,
each a ratio of two degree-7 polynomials evaluated by Horner's rule.
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


def normal_deviate(p: pl.Expr) -> pl.Expr:
    """The standard normal quantile of the probabilities ``p``: ``Phi^-1(p)`` (``scipy.special.ndtri``).

    ``0`` gives ``-inf``, ``1`` gives ``inf``; outside [0, 1], NaN; null stays null.

    >>> import polars as pl
    >>> pl.DataFrame({"p": [0.025, 0.5, 0.975, 0.0]}).select(normal_deviate(pl.col("p")))["p"].to_list()
    [-1.9599639845400538, 0.0, 1.9599639845400536, -inf]
    """
    name = p.meta.output_name(raise_if_undetermined=False)
    p = p.cast(pl.Float64)
    q = p - 0.5
    centre_r = 0.180625 - q * q
    centre = q * _horner(centre_r, _CENTRE_NUM) / _horner(centre_r, _CENTRE_DEN)
    r = pl.min_horizontal(p, 1.0 - p).log().neg().sqrt()
    near = _horner(r - 1.6, _NEAR_NUM) / _horner(r - 1.6, _NEAR_DEN)
    far = _horner(r - 5.0, _FAR_NUM) / _horner(r - 5.0, _FAR_DEN)
    tail = pl.when(r <= 5.0).then(near).otherwise(far)
    tail = pl.when(q < 0).then(-tail).otherwise(tail)
    value = (
        pl.when((p < 0) | (p > 1)).then(float("nan"))
        .when(p == 0).then(float("-inf"))
        .when(p == 1).then(float("inf"))
        .when(q.abs() <= 0.425).then(centre)
        .otherwise(tail)
    )
    return value if name is None else value.alias(name)
