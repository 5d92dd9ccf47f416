"""The command line's vectorised ``%6.4f``: the C library's bytes for every value."""

from __future__ import annotations

import math
import random

import polars as pl

from frame_eval.cli_output import format_values, number


def test_fixed_point_matches_c_formatting() -> None:
    rng = random.Random(7)
    values = [rng.random() for _ in range(20_000)] + [-rng.random() * 1e3 for _ in range(5_000)]
    values += [rng.randint(0, 200_000) / 20_000 for _ in range(5_000)]  # exact halves of the 4th decimal
    values += [0.0, -0.0, -0.00001, -0.00005, 0.00005, 0.12345, 1 / 3, 2 / 3, 5.00005, 0.99995, 1e-300,
               123456.78905, 1e15 + 0.5, -1e20, math.inf, -math.inf, math.nan, 9.99995, 0.000049999999]
    got = format_values(pl.Series(values), integer=False).to_list()
    assert got == ["%6.4f" % v for v in values]  # noqa: UP031  (printf's own spelling)


def test_counts_truncate_toward_zero() -> None:
    values = [0.0, 1.0, 584916.0, 2.9999, -1.5, None, math.nan]
    assert format_values(pl.Series(values), integer=True).to_list() == [number(v, True) for v in values]
    assert number(None, True) == "0" and number(-1.5, True) == "-1" and number(0.5, False) == "0.5000"
