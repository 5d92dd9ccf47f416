"""Weighted curve points from one sort of packed 128-bit keys: the per-group sort's values.

With exact weights (:func:`frame_eval.classification.exact_weights.exact_sums`),
:func:`frame_eval.classification.packed_weighted.packed_weighted_points` must give
the points of :func:`frame_eval.classification.exact_weights.weighted_curve_points`
(each group sorted on its own), group for group, bit for bit: on tied, negative
and zero scores, weights from ``2^-30`` to ``3 2^30``, zero weights, groups whose
weights are all 0, several keys with nulls, no keys and no rows; with the group
numbers from the keys' order, from a hash, from a hash after a coarser unit,
and from the join when hashes clash.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval import _own_thread
from frame_eval.classification import exact_weights, frame_points, packed_weighted
from frame_eval.classification.exact_weights import exact_sums, unit_exponent, weighted_curve_points
from frame_eval.classification.packed_weighted import GROUP, packed_weighted_points


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


WEIGHTS = {
    "quarters": lambda rng, n: np.floor(rng.random(n) * 12) / 4.0,
    "integers": lambda rng, n: np.floor(rng.random(n) * 5),
    "fine": lambda rng, n: np.where(rng.random(n) < 0.5, 2.0**-30, 3.0),  # 33 bits of units
    "large": lambda rng, n: np.floor(rng.random(n) * 4) * 2.0**30,  # one unit of 2^30
}


def frame(seed: int, weights: str, n: int = 2000) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3), 1 + seed % 3)
    w = WEIGHTS[weights](rng, n) * (rng.random(n) < 0.8)
    g = rng.integers(0, 5, n)
    w = np.where(g == 4, 0.0, w)  # a group whose weights are all 0
    return pl.DataFrame({
        "g": g,
        "h": pl.Series(rng.choice(np.array(["a", "b", ""]), n).tolist()).replace("", None),
        "y": rng.random(n) < 0.3,
        "s": np.where(s == 0.0, -0.0, s),
        "w": w,
    })


def _by_keys(points: pl.DataFrame, keys: list[str], groups: pl.DataFrame | None = None) -> pl.DataFrame:
    """The points with the group numbers replaced by the keys (those of ``groups``, when given), threshold
    -0.0 read as 0.0."""
    if keys and groups is not None:
        points = points.join(groups.select(GROUP, *keys), on=GROUP, how="left", maintain_order="left")
    return points.select(*keys, pl.col("s") + 0.0, "tp", "fp", "_P", "_N")


def clashing(monkeypatch: pytest.MonkeyPatch, clash: str) -> list[int]:
    """Make the groups' hashes clash (``"first"``: until a coarser unit leaves them more bits; ``"always"``)
    or not (``"none"``); returns the bits of each try."""
    tries: list[int] = []
    real = packed_weighted._apart

    def apart(groups: pl.DataFrame, bits: int) -> bool:
        tries.append(bits)
        return real(groups, bits) and (clash == "none" or (clash == "first" and len(tries) > 1))

    monkeypatch.setattr(packed_weighted, "_apart", apart)
    return tries


@pytest.mark.parametrize("numbers", ["keys' order", "hash", "hash, coarser unit", "join"])
@pytest.mark.parametrize("keys", [["g"], ["g", "h"], []])
@pytest.mark.parametrize("weights", list(WEIGHTS))
@pytest.mark.parametrize("seed", range(3))
def test_packed_points_are_the_per_group_sorts(
    seed: int, weights: str, keys: list[str], numbers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    df = frame(seed, weights)
    clashing(monkeypatch, {"hash": "none", "hash, coarser unit": "first"}.get(numbers, "always"))
    for rows in (df, df.head(0), df.filter(pl.col("g") == 4), df.filter(pl.col("g") == 1)):
        assert exact_sums(rows["w"])
        want = weighted_curve_points(rows.lazy(), keys, "y", "s", "w", exact=True).collect()
        groups, points = packed_weighted_points(
            rows, keys, "y", "s", "w", unit_exponent(rows["w"]), in_key_order=numbers == "keys' order"
        )
        assert groups.height == (rows.select(keys).unique().height if keys else 1)
        got = _by_keys(points, keys, groups)
        if numbers.startswith("hash"):  # the groups in no set order
            got = got.sort(keys, maintain_order=True, nulls_last=False) if keys else got
        assert got.equals(_by_keys(want, keys))


def test_the_points_come_in_the_keys_order() -> None:
    df = frame(1, "quarters")
    groups, points = packed_weighted_points(df, ["h", "g"], "y", "s", "w", unit_exponent(df["w"]))
    assert groups.equals(groups.sort(["h", "g"])) and groups[GROUP].to_list() == list(range(groups.height))
    assert points[GROUP].is_sorted()


CALLS = {
    "scores": lambda f: f.ireval.scores("y", "s", by=["g", "h"], weight="w",
                                        metrics=["ROC_AUC", "AP", "PR_AUC", "EER"]),
    "scores_ungrouped": lambda f: f.ireval.scores("y", "s", weight="w", metrics=["ROC_AUC", "AP"]),
    "roc": lambda f: f.ireval.roc("y", "s", by=["g", "h"], weight="w"),
}


@pytest.fixture
def packed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every frame method's exact weights through the packed sort, however few the rows (else the
    groups are sorted one by one below ``frame_points.PACKED_ROWS`` rows); the rows of each packed call."""
    calls: list[int] = []
    real = frame_points.packed_weighted_points

    def spy(rows: pl.DataFrame, *args: object, **options: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
        calls.append(rows.height)
        return real(rows, *args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(frame_points, "PACKED_ROWS", 0)
    monkeypatch.setattr(frame_points, "packed_weighted_points", spy)
    return calls


def test_few_rows_are_sorted_group_by_group_and_many_packed(monkeypatch: pytest.MonkeyPatch) -> None:
    df = frame(0, "quarters").with_columns(pl.col("h").fill_null("c"))
    calls: list[int] = []
    real = frame_points.packed_weighted_points
    monkeypatch.setattr(frame_points, "packed_weighted_points", lambda rows, *a, **o: calls.append(1) or real(
        rows, *a, **o
    ))
    few = CALLS["scores"](df.lazy()).collect()
    assert df.height < frame_points.PACKED_ROWS and not calls
    monkeypatch.setattr(frame_points, "PACKED_ROWS", df.height)
    assert CALLS["scores"](df.lazy()).collect().equals(few) and calls == [1]


@pytest.mark.parametrize("clash", ["none", "first", "always"])
@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("weights", list(WEIGHTS))
def test_every_way_of_numbering_the_groups_gives_the_ordered_paths_frame(
    weights: str, call: str, clash: str, monkeypatch: pytest.MonkeyPatch, packed: list[int]
) -> None:
    df = frame(7, weights).with_columns(pl.col("h").fill_null("c"))  # (the frame methods refuse null keys)
    ordered = pl.DataFrame()
    with monkeypatch.context() as patch:
        patch.setattr(exact_weights, "bounded_exponent", lambda weights, seen=None: None)
        ordered = CALLS[call](df.lazy()).collect()
    tries = clashing(monkeypatch, clash)
    got = CALLS[call](df.lazy()).collect()
    assert ordered.height and got.equals(ordered) and packed == [df.height]
    if call == "scores":  # the areas number the groups by a hash; a coarser unit leaves it more bits
        assert len(tries) == (1 if clash == "none" else 2)
        assert clash == "none" or tries[1] > tries[0]


@pytest.mark.parametrize("call", list(CALLS))
def test_same_bits_for_shuffled_rows_and_either_engine(call: str, packed: list[int]) -> None:
    df = frame(4, "quarters", n=5000).with_columns(pl.col("h").fill_null("c"))
    want = CALLS[call](df.lazy()).collect()
    for seed in range(3):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed).lazy()
        assert CALLS[call](shuffled).collect().equals(want)
        assert CALLS[call](shuffled).collect(engine="streaming").equals(want)
    assert len(packed) == 7


_THREADS_SCRIPT = """
import sys
import numpy as np, polars as pl
import frame_eval
from frame_eval.classification import frame_points
frame_points.PACKED_ROWS = 0
rng = np.random.default_rng(11)
n = 20000
df = pl.DataFrame({"g": rng.integers(0, 50, n).astype(str), "y": rng.random(n) < 0.3,
                   "s": np.round(rng.random(n), 3), "w": np.floor(rng.random(n) * 8) / 4})
df = df.sample(fraction=1.0, shuffle=True, seed=int(sys.argv[1]))
df.ireval.scores("y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP", "PR_AUC", "EER"]).sort(
    "g", "metric").write_ipc(sys.argv[2])
"""


def test_same_bits_on_1_2_and_8_threads(tmp_path: Path) -> None:
    frames = []
    for seed, threads in enumerate(("1", "2", "8")):
        out = tmp_path / f"{threads}.arrow"
        env = {**os.environ, "POLARS_MAX_THREADS": threads}
        subprocess.run([sys.executable, "-c", _THREADS_SCRIPT, str(seed), str(out)], env=env, check=True,
                       cwd=Path(__file__).resolve().parents[1])
        frames.append(pl.read_ipc(out))
    assert frames[0].height == 200 and frames[0].equals(frames[1]) and frames[0].equals(frames[2])


@pytest.mark.parametrize("weights", list(WEIGHTS))
def test_many_groups_and_scikit_learn_to_the_bit(weights: str, packed: list[int]) -> None:
    rng = np.random.default_rng(3)
    n = 20000
    df = pl.DataFrame({
        "g": rng.integers(0, 2000, n), "y": rng.random(n) < 0.4, "s": np.round(rng.random(n), 2),
        "w": WEIGHTS[weights](rng, n),
    })
    assert exact_sums(df["w"])
    got = df.ireval.scores("y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP"], shape="wide")
    assert got.height == df["g"].n_unique() and packed == [n]
    for (g,), part in list(df.partition_by("g", as_dict=True).items())[:40]:
        y, s, w = part["y"].to_numpy(), part["s"].to_numpy(), part["w"].to_numpy()
        row = got.filter(pl.col("g") == g)
        if w[y].sum() > 0 and w[~y].sum() > 0:
            assert row["ROC_AUC"].item() == skm.roc_auc_score(y, s, sample_weight=w)
        if w[y].sum() > 0:
            assert row["average_precision"].item() == skm.average_precision_score(y, s, sample_weight=w)


def test_a_group_with_every_weight_zero_has_null_values(packed: list[int]) -> None:
    df = frame(2, "quarters")
    got = df.ireval.scores("y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP"], shape="wide")
    assert got.filter(pl.col("g") == 4).row(0)[1:] == (None, None)
    assert got.filter(pl.col("g") != 4).null_count().sum_horizontal().item() == 0
    none = df.filter(pl.col("g") == 4).ireval.scores("y", "s", weight="w", metrics=["ROC_AUC"], shape="wide")
    assert none.row(0) == (None,)


@pytest.mark.parametrize("row", [0, 777, 1999])
def test_a_weight_of_no_whole_units_leaves_the_keys_to_the_ordered_path(row: int) -> None:
    # the bound holds, so the keys are made; the row's units are not whole, so none are sorted
    df = frame(5, "quarters")
    df = df.with_columns(pl.when(pl.int_range(pl.len()) == row).then(0.1).otherwise(pl.col("w")).alias("w"))
    k = exact_weights.bounded_exponent(df["w"])
    assert k is not None and not exact_sums(df["w"])
    for in_key_order in (True, False):
        assert packed_weighted_points(df, ["g"], "y", "s", "w", k, in_key_order=in_key_order) is None
    good = df.with_columns(pl.col("w").round(0))
    assert packed_weighted_points(good, ["g"], "y", "s", "w", unit_exponent(good["w"])) is not None


@pytest.mark.parametrize("call", list(CALLS))
def test_the_calls_then_give_the_ordered_paths_frame(
    call: str, monkeypatch: pytest.MonkeyPatch, packed: list[int]
) -> None:
    df = frame(6, "quarters").with_columns(pl.col("h").fill_null("c"))
    df = df.with_columns(pl.when(pl.int_range(pl.len()) == 1500).then(0.1).otherwise(pl.col("w")).alias("w"))
    got = CALLS[call](df.lazy()).collect()
    assert packed == [df.height]  # tried
    with monkeypatch.context() as patch:
        patch.setattr(exact_weights, "bounded_exponent", lambda weights, seen=None: None)
        ordered = CALLS[call](df.lazy()).collect()
    assert got.height and got.equals(ordered) and packed == [df.height]


def test_the_rows_split_into_two_parts_of_whole_groups() -> None:
    rng = np.random.default_rng(4)
    n = 50_000
    df = pl.DataFrame({"g": rng.integers(0, 300, n), "w": np.floor(rng.random(n) * 4) / 4})
    guess = packed_weighted._Layout(pl.DataFrame(), 40, 23, 0)  # 40 bits of hash number the groups
    parts = packed_weighted._parts(df, ["g"], "w", guess)
    assert len(parts) == 2 and parts[0][0] is None and parts[1][1] is None and parts[0][1] == parts[1][0]
    placed = df.filter(pl.col("w") != 0).select(packed_weighted._placed(["g"], guess)).to_series()
    low, high = placed < parts[0][1], placed >= parts[0][1]  # type: ignore[operator]
    assert abs(low.sum() - high.sum()) < 0.1 * placed.len()  # about as many rows (a sample's middle)
    sides = df.filter(pl.col("w") != 0).with_columns(low.alias("low"))
    sides = sides.group_by("g").agg(pl.col("low").n_unique())
    assert sides["low"].max() == 1  # whole groups
    assert packed_weighted._parts(df.with_columns(g=pl.lit(7)), ["g"], "w", guess) == [None]  # one group


@pytest.mark.parametrize("call", list(CALLS))
def test_two_parts_measured_side_by_side_give_one_parts_frame(
    call: str, monkeypatch: pytest.MonkeyPatch, packed: list[int]
) -> None:
    df = frame(8, "quarters", n=5000).with_columns(pl.col("h").fill_null("c"))
    want = CALLS[call](df.lazy()).collect()  # (too few rows to split)
    split: list[int] = []
    real = packed_weighted._parts
    monkeypatch.setattr(packed_weighted, "_parts", lambda *a: split.append(len(real(*a))) or real(*a))
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)
    for engine in ("in-memory", "streaming"):
        assert CALLS[call](df.lazy()).collect(engine=engine).equals(want)  # type: ignore[call-overload]
    # split where the thread may wait for others (the streaming engine's call), for grouped rows (the
    # curve's groups numbered by their hash too, then put in order)
    assert split == ([] if call == "scores_ungrouped" else [2])


@pytest.mark.parametrize("clash", ["none", "first", "always"])
def test_weighted_curves_come_in_the_keys_order_however_the_groups_are_numbered(
    clash: str, monkeypatch: pytest.MonkeyPatch, packed: list[int]
) -> None:
    """The curve's groups are numbered by their hash (or, when the hashes clash, in the keys' order),
    then put in the keys' order: the frame of the ordered sums, whichever numbering was taken."""
    df = frame(3, "quarters").with_columns(pl.col("h").fill_null("c"))
    with monkeypatch.context() as patch:
        patch.setattr(exact_weights, "bounded_exponent", lambda weights, seen=None: None)
        want = CALLS["roc"](df.lazy()).collect()
    tries = clashing(monkeypatch, clash)
    got = CALLS["roc"](df.sample(fraction=1.0, shuffle=True, seed=3).lazy()).collect()
    assert tries and packed and got.equals(want)
