"""Choosing a score threshold: the distinct score that is best by a criterion, under constraints.

A row is predicted positive when ``score >= threshold``; the candidates are
the distinct scores of the group, the points of its curve
(:func:`frame_eval.classification.curves.points`). Every criterion and
constraint is a ratio of integer counts (times exact rational constants: a
number given is read as the decimal it is written as: 0.9 is 9/10) and is
compared exactly in 128-bit integers, so equal values tie, and among equally good
thresholds the highest wins. With sample weights the counts are floats and
the comparisons are made on floats.

Criteria (maximised): ``youden`` ``TPR - FPR``; ``accuracy``; ``f1``;
``closest_to_01`` (minus the distance to the ROC corner); ``recall``;
``precision``; ``specificity``; ``weighted``
``w_sens TPR + w_spec TNR`` (``weights=``); ``cost`` (minimised)
``c_fp FPR (1 - pi) + c_fn FNR pi`` with ``pi`` the ``prevalence=`` (default:
the group's own ``P / total``, which makes it ``(c_fp FP + c_fn FN) / total``).
Constraints (a candidate must meet every one given): ``min_specificity``,
``min_recall``, ``min_precision`` (a candidate predicting nothing positive
has no precision and fails it) and ``max_fpr``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final, Literal

import polars as pl

from frame_eval.classification.counts import ACTUAL, AUTO
from frame_eval.classification.counts import ratio as true_ratio
from frame_eval.classification.curves import SCORE, Points, _expr, _points_of, _spec, measure_of
from frame_eval.registry import Doc, Param

__all__ = ["best_threshold"]

Criterion = Literal[
    "accuracy", "youden", "f1", "closest_to_01", "recall", "precision", "specificity", "weighted", "cost"
]
CRITERIA: Final = (
    "accuracy", "youden", "f1", "closest_to_01", "recall", "precision", "specificity", "weighted", "cost"
)
_BIG = pl.Int128
_LIMIT = 1 << 64  # exact keys need integer coefficients below 2^64 (counts below 2^31: products < 2^127)


def _criterion(pts: Points, criterion: str) -> tuple[pl.Expr, pl.Expr]:
    """(an exact Int128 key that orders the points as the criterion does, where the criterion is defined).

    Each criterion is a ratio of integer counts; comparing the floats would decide ties by rounding
    (Youden's J is 2/3 at two thresholds, as two floats that differ), so each is compared exactly.
    """
    big = _BIG
    tp, fp = pts.tp.cast(big), pts.fp.cast(big)
    positives, negatives = pts.positives.cast(big), pts.negatives.cast(big)
    both = (pts.positives > 0) & (pts.negatives > 0)
    if criterion == "accuracy":  # (tp + tn) / total, the total fixed: tp - fp
        return tp - fp, (pts.positives + pts.negatives) > 0
    if criterion == "youden":  # tp / P - fp / N, times P N
        return tp * negatives - fp * positives, both
    if criterion == "f1":  # 2 tp / (tp + fp + P); distinct ratios of counts < 2^41 differ by >= 2^-82
        return (tp * pl.lit(1 << 85, big)) // (tp + fp + positives), (pts.positives > 0) | (pts.negatives > 0)
    if criterion == "recall":  # P fixed
        return tp, pts.positives > 0
    if criterion == "specificity":  # N fixed: fewest false positives
        return pl.lit(0, big) - fp, pts.negatives > 0
    if criterion == "precision":  # tp / (tp + fp), every point predicts something positive
        return (tp * pl.lit(1 << 85, big)) // (tp + fp), (pts.tp + pts.fp) > 0
    # closest_to_01: the smallest (fp / N)^2 + (fn / P)^2, times (P N)^2
    fn = positives - tp
    return pl.lit(0, big) - (fp * fp * positives * positives + fn * fn * negatives * negatives), both


def _weighted_criterion(pts: Points, criterion: str) -> tuple[pl.Expr, pl.Expr]:
    """As :func:`_criterion` for weighted counts (floats): the criterion's value, compared as a float."""
    tp, fp, positives, negatives = pts.tp, pts.fp, pts.positives, pts.negatives
    both = (positives > 0) & (negatives > 0)
    if criterion == "accuracy":
        return tp - fp, (positives + negatives) > 0
    if criterion == "youden":  # true divisions (counts.ratio): polars divides by a total via its reciprocal
        return true_ratio(tp, positives) - true_ratio(fp, negatives), both
    if criterion == "f1":
        return 2.0 * tp / (tp + fp + positives), (positives > 0) | (negatives > 0)
    if criterion == "recall":
        return tp, positives > 0
    if criterion == "specificity":
        return -fp, negatives > 0
    if criterion == "precision":
        return tp / (tp + fp), (tp + fp) > 0
    fn = positives - tp
    return -(true_ratio(fp, negatives) ** 2 + true_ratio(fn, positives) ** 2), both


def decimal(value: float) -> Fraction:
    """The number as written: the shortest decimal that reads back as the float (``0.9`` is 9/10, not the
    binary fraction slightly above it), so a bound of 0.9 admits a specificity of exactly 9/10."""
    return Fraction(repr(float(value)))


def _scaled(*values: Fraction) -> tuple[int, ...] | None:
    """Integers proportional to ``values`` (their common denominator times each), or None past 2^64."""
    denominator = math.lcm(*(v.denominator for v in values))
    scaled = tuple(int(v * denominator) for v in values)
    return scaled if all(abs(x) < _LIMIT for x in scaled) else None


def _combination(
    pts: Points, exact: bool, a: Fraction, b: Fraction, terms: str, *, negate: bool = False
) -> tuple[pl.Expr, pl.Expr]:
    """``a X + b Y`` (``negate``: its negative) as a key, (X, Y) being (TPR, TNR) for ``terms="rates"``
    and (FPR, FNR) for ``"errors"``; exact (times P N, in Int128) when the coefficients allow it."""
    both = (pts.positives > 0) & (pts.negatives > 0)
    tn, fn = pts.negatives - pts.fp, pts.positives - pts.tp
    first, second = (pts.tp, tn) if terms == "rates" else (pts.fp, fn)
    scaled = _scaled(a, b) if exact else None
    if scaled is None:
        # (true divisions: polars divides by a group's total through its reciprocal, whose rounding
        # may differ between the points' keys and their maximum, so that a tie was lost, or not,
        # with the thread count)
        x = true_ratio(first, pts.positives if terms == "rates" else pts.negatives)
        y = true_ratio(second, pts.negatives if terms == "rates" else pts.positives)
        value = float(a) * x + float(b) * y
        return (-value if negate else value), both
    ia, ib = (pl.lit(v, _BIG) for v in scaled)
    positives, negatives = pts.positives.cast(_BIG), pts.negatives.cast(_BIG)
    if terms == "rates":  # a tp / P + b tn / N, times P N
        value = ia * first.cast(_BIG) * negatives + ib * second.cast(_BIG) * positives
    else:  # a fp / N + b fn / P, times P N
        value = ia * first.cast(_BIG) * positives + ib * second.cast(_BIG) * negatives
    return (pl.lit(0, _BIG) - value if negate else value), both


def at_least(count: pl.Expr, total: pl.Expr, bound: float, exact: bool) -> pl.Expr:
    """``count / total >= bound`` (false where ``total`` is 0), exactly for integer counts; for weighted
    counts the rate as reported (a true division, ``counts.ratio``) against the bound, which ``bound * total``
    is not where it underflows (a subnormal total) or rounds up."""
    ratio = exact_bound(bound) if exact else None
    if ratio is not None:
        numerator, denominator = ratio
        held = count.cast(_BIG) * pl.lit(denominator, _BIG) >= pl.lit(numerator, _BIG) * total.cast(_BIG)
    else:
        held = true_ratio(count, total) >= bound
    return (total > 0) & held


def _constraints(
    pts: Points, exact: bool, min_specificity: float | None, min_recall: float | None,
    min_precision: float | None, max_fpr: float | None,
) -> pl.Expr:
    ok = pl.lit(True)
    tn = pts.negatives - pts.fp
    if min_specificity is not None:
        ok = ok & at_least(tn, pts.negatives, min_specificity, exact)
    if min_recall is not None:
        ok = ok & at_least(pts.tp, pts.positives, min_recall, exact)
    if min_precision is not None:
        ok = ok & at_least(pts.tp, pts.tp + pts.fp, min_precision, exact)
    if max_fpr is not None:
        ratio = exact_bound(max_fpr) if exact else None
        if ratio is not None:
            numerator, denominator = ratio
            bound = pl.lit(numerator, _BIG) * pts.negatives.cast(_BIG)
            held = pts.fp.cast(_BIG) * pl.lit(denominator, _BIG) <= bound
        else:
            held = true_ratio(pts.fp, pts.negatives) <= max_fpr  # the reported FPR (see at_least)
        ok = ok & (pts.negatives > 0) & held
    return ok


def exact_bound(bound: float) -> tuple[int, int] | None:
    """The bound as the integers of its decimal's ratio when :func:`_constraints` compares it exactly."""
    numerator, denominator = decimal(bound).as_integer_ratio()
    return (numerator, denominator) if abs(numerator) < _LIMIT and denominator < _LIMIT else None


def most_false_positives(options: dict[str, Any]) -> Callable[[pl.Expr], pl.Expr] | None:
    """The most false positives a point may have under ``min_specificity=`` and ``max_fpr=`` (the
    smaller bound when both are given), as a function of a group's count of negatives (an exact Int128
    expression; the constraints also fail wherever there are no negatives); None when neither is
    given, when both allow every false positive (``min_specificity=0``, ``max_fpr=1``), or when
    :func:`_constraints` compares one in floats.

    ``TN / N >= s`` is ``FP <= floor(N (1 - s))`` and ``FP / N <= f`` is ``FP <= floor(N f)``, with
    ``s`` and ``f`` read as the decimals they are written as, as :func:`_constraints` reads them.
    """
    shares = []  # (a, b): at most floor(N a / b) false positives
    for name in ("min_specificity", "max_fpr"):
        if options.get(name) is None:
            continue
        ratio = exact_bound(options[name])
        if ratio is None:
            return None
        numerator, denominator = ratio
        shares.append((denominator - numerator if name == "min_specificity" else numerator, denominator))
    if all(a >= b for a, b in shares):  # no bound, or none that leaves out a point (N > 0 aside)
        return None

    def most(negatives: pl.Expr) -> pl.Expr:
        n = negatives.cast(_BIG)
        return pl.min_horizontal(*[(n * pl.lit(a, _BIG)) // pl.lit(b, _BIG) for a, b in shares])

    return most


def best_index(pts: Points, exact: bool, criterion: str, options: dict[str, Any]) -> pl.Expr:
    """The position (among the points, threshold descending) of the best allowed point; null if none."""
    key, allowed = _key_and_allowed(pts, exact, criterion, options)
    # the highest threshold among the best: the first such point (thresholds descend); read with
    # get(..., null_on_oob=True): gather(...).first() is typed Null by polars 2.1 on an empty group_by
    best = allowed & (key == key.filter(allowed).max())
    return best.arg_true().first()


def best_key(pts: Points, exact: bool, criterion: str, options: dict[str, Any]) -> tuple[pl.Expr, pl.Expr]:
    """(the key the best point has the highest of, whether a point may be chosen) for each of the points
    ``pts``: expressions row by row, so they also work on the points of many groups at once, each row
    holding its group's totals. The best point of a group is the first allowed one (thresholds descend)
    whose key is the highest of its group's allowed points, as :func:`best_index` picks it."""
    return _key_and_allowed(pts, exact, _resolve_criterion(criterion, options), options)


def _key_and_allowed(
    pts: Points, exact: bool, criterion: str, options: dict[str, Any]
) -> tuple[pl.Expr, pl.Expr]:
    weights, costs, prevalence = options.get("weights"), options.get("costs"), options.get("prevalence")
    if criterion == "weighted":
        w_sens, w_spec = (decimal(x) for x in weights)
        key, defined = _combination(pts, exact, w_sens, w_spec, "rates")
    elif criterion == "cost":
        c_fp, c_fn = (decimal(x) for x in costs)
        if prevalence is None:  # the group's own prevalence: c_fp FP + c_fn FN (over the total)
            scaled = _scaled(c_fp, c_fn) if exact else None
            if scaled is None:
                key = -(float(c_fp) * pts.fp + float(c_fn) * (pts.positives - pts.tp))
            else:
                ia, ib = (pl.lit(v, _BIG) for v in scaled)
                key = pl.lit(0, _BIG) - (ia * pts.fp.cast(_BIG) + ib * (pts.positives - pts.tp).cast(_BIG))
            defined = (pts.positives + pts.negatives) > 0
        else:
            pi = decimal(prevalence)
            key, defined = _combination(pts, exact, c_fp * (1 - pi), c_fn * pi, "errors", negate=True)
    else:
        key, defined = (_criterion if exact else _weighted_criterion)(pts, criterion)
    allowed = defined & _constraints(
        pts, exact, options.get("min_specificity"), options.get("min_recall"),
        options.get("min_precision"), options.get("max_fpr"),
    )
    return key, allowed


def _build_best_threshold(columns: Any, cutoff: float | None, *, criterion: str, **options: Any) -> pl.Expr:
    criterion = _resolve_criterion(criterion, options)
    exact = columns.get("weight") is None

    def best(pts: Points) -> pl.Expr:
        return pts.threshold.get(best_index(pts, exact, criterion, options), null_on_oob=True)

    return best(_points_of(columns)) if exact else measure_of(columns, best)


def best_of(pts: Points, exact: bool, criterion: str, options: dict[str, Any]) -> pl.Expr:
    """A struct ``{threshold, tp, fp, _P, _N}`` at the best of the points ``pts`` (fields null if none);
    ``exact`` for integer counts."""
    criterion = _resolve_criterion(criterion, options)
    index = best_index(pts, exact, criterion, options)
    return pl.struct(
        pts.threshold.get(index, null_on_oob=True).alias("threshold"),
        pts.tp.get(index, null_on_oob=True).alias("tp"),
        pts.fp.get(index, null_on_oob=True).alias("fp"),
        pts.positives.alias("_P"),
        pts.negatives.alias("_N"),
    )


def _resolve_criterion(criterion: str, options: dict[str, Any]) -> str:
    """``weights=`` means the weighted criterion and ``costs=`` the cost one (``criterion`` left at its
    default); each needs its numbers."""
    if options.get("weights") is not None and options.get("costs") is not None:
        raise ValueError(
            "best_threshold: pass weights= (a weighted sum of rates) or costs= (a cost), not both"
        )
    if options.get("weights") is not None:
        if criterion not in ("youden", "weighted"):
            raise ValueError(f"best_threshold: weights= is the 'weighted' criterion, not {criterion!r}")
        return "weighted"
    if options.get("costs") is not None:
        if criterion not in ("youden", "cost"):
            raise ValueError(f"best_threshold: costs= is the 'cost' criterion, not {criterion!r}")
        return "cost"
    if criterion == "weighted":
        raise ValueError("best_threshold(criterion='weighted') needs weights=(w_sens, w_spec)")
    if criterion == "cost":
        raise ValueError("best_threshold(criterion='cost') needs costs=(c_fp, c_fn)")
    if options.get("prevalence") is not None:
        raise ValueError("best_threshold: prevalence= goes with costs=(c_fp, c_fn)")
    return criterion


def _pair(raw: Any) -> tuple[float, float]:
    """Two finite numbers >= 0, not both 0: a tuple, a list or text ``"a;b"`` (as in measure names)."""
    values = raw.replace(",", ";").split(";") if isinstance(raw, str) else raw
    pair = tuple(float(x) for x in values)
    if len(pair) != 2 or not all(math.isfinite(x) and x >= 0 for x in pair) or not any(pair):
        raise ValueError(raw)
    return pair  # type: ignore[return-value]


_pair.__name__ = "pair of numbers >= 0"


def _share(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must lie in [0, 1]"


_CRITERION = Param("criterion", str, "youden", CRITERIA, "what the best threshold maximises")
_OPTIONS = (
    Param("min_specificity", float, None, doc="keep thresholds with TN / N >= this", check=_share),
    Param("min_recall", float, None, doc="keep thresholds with TP / P >= this", check=_share),
    Param("min_precision", float, None, doc="keep thresholds with TP / PP >= this", check=_share),
    Param("max_fpr", float, None, doc="keep thresholds with FP / N <= this", check=_share),
    Param("weights", _pair, None, doc="(w_sens, w_spec): maximise w_sens TPR + w_spec TNR"),  # type: ignore[arg-type]
    Param("costs", _pair, None, doc="(c_fp, c_fn): minimise the expected cost"),  # type: ignore[arg-type]
    Param("prevalence", float, None, doc="the prevalence the costs assume (default: the group's)",
          check=_share),
)
def _shown(value: Any) -> str:
    if isinstance(value, tuple):  # a pair, written as the parser reads it back: 1;5
        return ";".join(_shown(x) for x in value)
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _name(params: Any, cutoff: float | None) -> str:
    shown = [f"{p.name}={_shown(params[p.name])}" for p in (_CRITERION, *_OPTIONS) if p.name in params]
    return "best_threshold" + (f"({','.join(shown)})" if shown else "")


BEST_THRESHOLD = _spec(
    "best_threshold", "the score threshold that is best by a criterion", _build_best_threshold,
    params=(_CRITERION, *_OPTIONS), format_name=_name,
    doc=Doc(
        "C.best_threshold",
        "the distinct score that is best by the criterion among those meeting min_specificity=, "
        "min_recall=, min_precision=, max_fpr=; weighted: weights=w_sens;w_spec, cost: costs=c_fp;c_fn "
        "and prevalence=; the highest on ties",
        "no score meets the constraints with the criterion defined",
        names=("best_threshold(criterion=c)",),
        accepted="c: " + ", ".join(  # the criteria, the default first
            f"`{c}`" + (" (default)" if c == _CRITERION.default else "")
            for c in sorted(CRITERIA, key=lambda c: c != _CRITERION.default)
        ),
    ),
)


def best_threshold(
    actual: str = ACTUAL,
    score: str = SCORE,
    *,
    criterion: Criterion = "youden",
    min_specificity: float | None = None,
    min_recall: float | None = None,
    min_precision: float | None = None,
    max_fpr: float | None = None,
    weights: tuple[float, float] | None = None,
    costs: tuple[float, float] | None = None,
    prevalence: float | None = None,
    positive: Any = AUTO,
    weight: str | None = None,
) -> pl.Expr:
    """The score threshold (predict positive when ``score >= threshold``) that is best by ``criterion``.

    Candidates are the distinct scores of the group (the curve's points)
    that meet every constraint given. ``criterion``: ``"youden"`` maximises
    ``TPR - FPR`` (Youden's J); ``"accuracy"`` ``(TP + TN) / total``; ``"f1"``
    F1; ``"closest_to_01"`` minimises the distance to the ROC corner
    ``(FPR 0, TPR 1)``; ``"recall"``, ``"precision"``, ``"specificity"``
    maximise that rate (use them with a constraint on another:
    ``criterion="recall", min_specificity=0.9``). ``weights=(w_sens,
    w_spec)`` maximises ``w_sens TPR + w_spec TNR``; ``costs=(c_fp, c_fn)``
    minimises ``c_fp FPR (1 - pi) + c_fn FNR pi``, ``pi`` = ``prevalence``
    (default the group's ``P / total``: then ``(c_fp FP + c_fn FN) / total``).
    Every comparison is exact (integer counts times the given numbers read
    as the decimals they are written as, ``0.9`` = 9/10, in 128-bit
    integers; groups under 2^31 rows); among
    equally good thresholds the highest wins. Null when no candidate meets
    the constraints or the criterion is undefined at all of them.

    Parameters
    ----------
    criterion
        As above (``"weighted"`` and ``"cost"`` are implied by ``weights=`` / ``costs=``).
    min_specificity, min_recall, min_precision, max_fpr
        Constraints in [0, 1]: ``TN / N >= s``, ``TP / P >= r``,
        ``TP / PP >= p`` (a threshold predicting nothing positive fails it),
        ``FP / N <= f``.
    weights, costs, prevalence
        Pairs of numbers >= 0 (not both 0), and a prevalence in [0, 1].
    actual, score, positive, weight
        As in :func:`roc_auc`. With weights the counts are sums of weights
        and every comparison is made on floats (rounded), not exactly.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8, 0.9]})
    >>> df.select(C.best_threshold("y", "prob"), C.best_threshold("y", "prob", criterion="f1")).row(0)
    (0.8, 0.35)
    >>> df.select(C.best_threshold("y", "prob", criterion="recall", min_specificity=0.5),
    ...           C.best_threshold("y", "prob", costs=(1, 5))).row(0)
    (0.35, 0.35)
    """
    options = {
        "min_specificity": min_specificity, "min_recall": min_recall, "min_precision": min_precision,
        "max_fpr": max_fpr, "weights": weights, "costs": costs, "prevalence": prevalence,
    }
    given = {k: v for k, v in options.items() if v is not None}
    return _expr(BEST_THRESHOLD, actual, score, positive, weight, criterion=criterion, **given)
