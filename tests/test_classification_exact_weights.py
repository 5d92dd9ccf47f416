"""Exactly summable weights: the weighted measures' cheap path gives the ordered path's bits.

Weights that are whole multiples of one power of two, with a total below 2^53 of those
units, add up to the same bits in any order, so the frame methods add them as they come
(counts) or sort each group by score alone (curves, areas, thresholds) instead of by
(score, label, weight). These tests check the check itself, that both paths give equal
frames (the ordered one forced by patching the check), that scikit-learn agrees with
``==`` on such weights, and that either path gives the same bits for shuffled rows and
on both engines.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator

import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401  (registers .ireval)
from frame_eval.classification import exact_weights
from frame_eval.classification.counts import WeightsSeen
from frame_eval.classification.exact_weights import exact_sums


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


EXACT = [
    [], [0.0, 0.0], [1.0, 2.0, 3.0], [0.25, 0.5, 0.0, 1.75], [3.5, 2.0**-40, 1.0], [2.0**-1000, 2.0**-999],
    [1e6] * 1000, [2.0**50, 2.0**50 - 1.0], [-0.0, 0.5, -0.0], [-0.0],
]
NOT_EXACT = [
    [0.1, 0.2],  # no power of two divides 0.1 with the total in range
    [1.0, 2.0**-60],  # 1 + 2^-60 rounds
    [2.0**52, 2.0**52],  # their total is 2^53
    [2.0**62, 1.0],
    [2.0**-1074, 2.0**-1073],  # finer than the check scales to (2^-1023): refused, not wrong
    [1.0, float("nan")], [1.0, float("inf")], [1.0, -0.25], [1.0, None], [1.0, -float("nan")],
    [-0.0, -float("inf")], [-0.0, 0.1],
]


@pytest.fixture(params=["in-memory", "streaming"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both engines the checks of the weights run on (streaming from STREAMED_ROWS weights: here all)."""
    if request.param == "streaming":
        monkeypatch.setattr(exact_weights, "STREAMED_ROWS", 0)
    return str(request.param)


@pytest.mark.parametrize("weights", EXACT)
def test_exact_sums_takes_multiples_of_a_power_of_two_with_a_small_total(
    weights: list[float], engine: str
) -> None:
    assert exact_sums(pl.Series(weights, dtype=pl.Float64))


@pytest.mark.parametrize("weights", NOT_EXACT)
def test_exact_sums_refuses_weights_whose_sums_can_round(weights: list[float | None], engine: str) -> None:
    assert not exact_sums(pl.Series(weights, dtype=pl.Float64))


@pytest.mark.parametrize(("weights", "exact"), [
    ([0.25] * 5 + [2.0**48], False),  # whole units at the first weights' scale, not at all weights' (k = 1)
    ([0.5] * 5 + [2.0**48], True),  # at both
    ([0.1] * 5 + [2.0**48], False),  # at neither
    ([0.0] * 5 + [2.0**48, 0.5], True),  # first weights all 0: no first scale
])
def test_a_scale_from_the_first_weights_only_decides_when_it_is_all_weights(
    weights: list[float], exact: bool, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exact_weights, "SAMPLED_ROWS", 2)
    assert exact_sums(pl.Series(weights)) == exact == reference_exact(weights)


def reference_exponent(weights: list[float]) -> int | None:
    """bounded_exponent's rule in plain Python: every weight finite and >= 0 (-0.0 too), then the largest
    k <= 1023 with n max(w) 2^k < 2^53 (0 for no weights or all 0), None when it is negative."""
    if not all(math.isfinite(w) and w >= 0 for w in weights):
        return None
    top = max(weights, default=0.0)
    if top == 0:
        return 0
    k = min(53 - math.frexp(top)[1] - len(weights).bit_length(), 1023)
    return k if k >= 0 else None


def reference_exact(weights: list[float]) -> bool:
    k = reference_exponent(weights)
    return k is not None and all((w * 2.0**k).is_integer() for w in weights)


def random_weights(rng: np.random.Generator, n: int) -> list[float]:
    """Weights of mixed kinds: whole, quarters, fractions, huge, subnormal, -0.0, now and then a bad one."""
    kinds = [
        lambda: float(rng.integers(0, 9)), lambda: rng.integers(0, 9) / 4.0, lambda: float(rng.random()),
        lambda: float(rng.choice([2.0**60, 1e300, 2.0**40])), lambda: float(rng.choice([5e-324, 2.0**-1060])),
        lambda: -0.0, lambda: float(rng.choice([-1.0, math.nan, -math.nan, math.inf, -math.inf, -5e-324])),
    ]
    chosen = rng.choice(len(kinds), size=rng.integers(1, 4), replace=False)
    odds = rng.random(len(chosen)) + (np.arange(len(chosen)) == 0) * 20  # the first kind most rows
    picks = rng.choice(chosen, size=n, p=odds / odds.sum())
    return [kinds[i]() for i in picks]


@pytest.mark.parametrize("sampled", [1, 3, 1000])  # the first weights whose largest sets the first scale
@pytest.mark.parametrize("seed", range(40))
def test_the_checks_decide_as_their_rule_says(
    seed: int, sampled: int, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exact_weights, "SAMPLED_ROWS", sampled)
    rng = np.random.default_rng(seed)
    weights = random_weights(rng, int(rng.choice([1, 3, 50, 3000])))
    if seed % 3 == 0:  # the largest weight last: the first scale is too fine, and tested again
        weights = sorted(weights, key=lambda w: (not math.isnan(w), w))
    series = pl.Series(weights, dtype=pl.Float64)
    assert exact_weights.bounded_exponent(series) == reference_exponent(weights)
    assert exact_sums(series) == reference_exact(weights)
    noted = WeightsSeen()
    assert exact_sums(series, noted) == reference_exact(weights)
    assert noted.bad() == (not all(math.isfinite(w) and w >= 0 and math.copysign(1, w) > 0 for w in weights))


@pytest.mark.parametrize(("weights", "bounded"), [
    ([], True), ([0.0, 0.0], True), ([0.1, 0.2], True), ([1.0, float("nan")], False),
    ([2.0**52, 2.0**52], False), ([2.0**62, 1.0], False), ([1.0, float("inf")], False), ([1.0, -0.25], False),
    ([1.0, None], False), ([float("nan")], False), ([-0.0, 1.0], True), ([-0.0, -float("nan")], False),
])
def test_the_bound_is_every_condition_but_whole_units(
    weights: list[float | None], bounded: bool, engine: str
) -> None:
    series = pl.Series(weights, dtype=pl.Float64)
    k = exact_weights.bounded_exponent(series)
    assert (k is not None) == bounded
    if bounded and exact_sums(series):
        assert k == exact_weights.unit_exponent(series)


def test_a_refused_total_does_round_so_the_bound_matters() -> None:
    assert (2.0**53 + 1.0) - 2.0**53 == 0.0  # past 2^53 units an addition rounds
    assert (1.0 + 2.0**-60) - 1.0 == 0.0


def exact_frame(seed: int, n: int = 600) -> pl.DataFrame:
    """g (group), y / yhat (Boolean), s (tied scores), w (multiples of 1/4 or whole numbers, some 0)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < rng.uniform(0.1, 0.6)
    yhat = np.where(rng.random(n) < 0.7, y, ~y)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 1 + seed % 3)
    w = np.floor(rng.random(n) * 12) / (4.0 if seed % 2 else 1.0) * (rng.random(n) < 0.85)
    return pl.DataFrame({"g": rng.integers(0, 3, n), "y": y, "yhat": yhat, "s": s, "w": w})


CALLS: dict[str, Callable[[pl.LazyFrame], pl.LazyFrame]] = {
    "rates": lambda f: f.ireval.rates("y", "yhat", by="g", weight="w"),
    "confusion": lambda f: f.ireval.confusion("y", "yhat", by="g", weight="w"),
    "confusion_matrix": lambda f: f.ireval.confusion_matrix("y", "yhat", by="g", weight="w"),
    "confusion_matrix_ungrouped": lambda f: f.ireval.confusion_matrix("y", "yhat", weight="w"),
    "scores": lambda f: f.ireval.scores(
        "y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP", "PR_AUC", "EER"]
    ),
    "scores_ungrouped": lambda f: f.ireval.scores("y", "s", weight="w"),
    "roc": lambda f: f.ireval.roc("y", "s", by="g", weight="w"),
    "roc_ungrouped": lambda f: f.ireval.roc("y", "s", weight="w"),
    "best_threshold": lambda f: f.ireval.best_threshold(
        "y", "s", by="g", weight="w", criterion="recall", min_specificity=0.9
    ),
    "best_youden": lambda f: f.ireval.best_threshold("y", "s", by="g", weight="w"),
}


def ordered_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the bound first: exact_sums reads it, and from frame_points.PACKED_ROWS rows the packed sort does)
    monkeypatch.setattr(exact_weights, "bounded_exponent", lambda weights, seen=None: None)


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("seed", range(4))
def test_both_paths_give_the_same_frame(call: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    df = exact_frame(seed)
    assert exact_sums(df["w"])
    fast = CALLS[call](df.lazy()).collect()
    ordered_only(monkeypatch)
    ordered = CALLS[call](df.lazy()).collect()
    assert fast.height and fast.equals(ordered)


def test_the_patch_reaches_the_check_so_the_test_above_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    bounds: list[int | None] = []
    real, real_bound = exact_weights.exact_sums, exact_weights.bounded_exponent

    def spy(weights: pl.Series, noted: WeightsSeen | None = None) -> bool:
        seen.append(real(weights, noted))
        return seen[-1]

    def bound_spy(weights: pl.Series, noted: WeightsSeen | None = None) -> int | None:
        bounds.append(real_bound(weights, noted))
        return bounds[-1]

    monkeypatch.setattr(exact_weights, "exact_sums", spy)
    monkeypatch.setattr(exact_weights, "bounded_exponent", bound_spy)
    for call in CALLS.values():
        for engine in ("in-memory", "streaming"):
            seen.clear()
            bounds.clear()
            call(exact_frame(1).lazy()).collect(engine=engine)  # type: ignore[arg-type]
            # checked once per call: the points are made once, however often read
            assert seen == [True] and len(bounds) == 1 and bounds[0] is not None
    seen.clear()
    CALLS["scores"](exact_frame(1).with_columns(pl.col("w") * 0.1).lazy()).collect()
    assert seen == [False]


def groups(df: pl.DataFrame) -> Iterator[tuple[int, pl.DataFrame]]:
    for (g,), part in sorted(df.partition_by("g", as_dict=True).items()):
        yield g, part


@pytest.mark.parametrize("forced", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_scikit_learn_agrees_to_the_bit(seed: int, forced: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    df = exact_frame(seed)
    if forced:
        ordered_only(monkeypatch)
    rates = df.ireval.rates("y", "yhat", by="g", weight="w", metrics=["precision", "recall"], shape="wide")
    scores = df.ireval.scores("y", "s", by="g", weight="w", metrics=["ROC_AUC", "AP", "PR_AUC"], shape="wide")
    roc = df.ireval.roc("y", "s", by="g", weight="w")
    # Boolean labels' matrix (grouped by binary cell); group 3 predicts one class for one class
    one_class = pl.DataFrame({"g": [3] * 5, "y": [True] * 5, "yhat": [True] * 5, "s": [0.5] * 5,
                              "w": [0.25, 1.0, 0.0, 2.0, 0.5]})
    both = pl.concat([df, one_class.cast(df.schema)])
    matrix = both.ireval.confusion_matrix("y", "yhat", by="g", weight="w")
    for g, part in groups(both):
        y, yhat, w = part["y"].to_numpy(), part["yhat"].to_numpy(), part["w"].to_numpy()
        present = sorted(set(y) | set(yhat))
        ours = matrix.filter(pl.col("g") == g)
        assert ours["actual"].to_list() == [a for a in present for _ in present]
        assert ours["predicted"].to_list() == present * len(present)
        want = skm.confusion_matrix(y, yhat, labels=present, sample_weight=w)
        assert ours["count"].to_list() == want.ravel().tolist()
    for g, part in groups(df):
        y, w, s = part["y"].to_numpy(), part["w"].to_numpy(), part["s"].to_numpy()
        precision, recall, _, _ = skm.precision_recall_fscore_support(
            y, part["yhat"].to_numpy(), average="binary", sample_weight=w, zero_division=np.nan
        )
        assert rates.filter(pl.col("g") == g).row(0)[1:] == (precision, recall)
        curve_precision, curve_recall, _ = skm.precision_recall_curve(y, s, sample_weight=w)
        want = (
            skm.roc_auc_score(y, s, sample_weight=w), skm.average_precision_score(y, s, sample_weight=w),
            skm.auc(curve_recall, curve_precision),
        )
        assert scores.filter(pl.col("g") == g).row(0)[1:] == want
        fpr, tpr, thresholds = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
        ours = roc.filter(pl.col("g") == g)
        assert ours["threshold"].to_list() == thresholds[1:].tolist()
        assert ours["tpr"].to_list() == tpr[1:].tolist() and ours["fpr"].to_list() == fpr[1:].tolist()


@pytest.mark.parametrize("scale", [1.0, 0.1])  # exact weights, and weights that are not (the ordered path)
@pytest.mark.parametrize("call", list(CALLS))
def test_same_bits_for_shuffled_rows_and_either_engine(call: str, scale: float) -> None:
    df = exact_frame(5, n=2000).with_columns(pl.col("w") * scale)
    assert exact_sums(df["w"]) == (scale == 1.0)
    want = CALLS[call](df.lazy()).collect()
    for seed in range(3):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed).lazy()
        assert CALLS[call](shuffled).collect().equals(want)
        assert CALLS[call](shuffled).collect(engine="streaming").equals(want)
