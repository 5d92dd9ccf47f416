"""Multi-class scores from one score (probability) column per class: ROC AUC, AP, top-k accuracy.

The input is a label column and a mapping ``{class label: score column}``;
the classes are the mapping's keys, taken in sorted order (scikit-learn's
column order for ``y_score``). A row whose label is no key is an error in
the frame methods (scikit-learn raises too); the expressions count it as
negative for every class and as a miss in top-k accuracy.

- **ROC AUC, one-vs-rest** (``multi_class="ovr"``): each class's binary ROC
  AUC (label == class, its column), then ``average="macro"`` (plain mean) or
  ``"weighted"`` (weighted by the class's support: rows, or their weights);
  ``"micro"``: one binary problem over every (row, class) pair. scikit-learn's
  ``roc_auc_score(multi_class="ovr")``.
- **ROC AUC, one-vs-one** (``multi_class="ovo"``, Hand and Till 2001): for
  each pair of classes ``a < b``, on the rows labelled ``a`` or ``b``, the
  mean of AUC(a against b, column a) and AUC(b against a, column b); then
  the plain mean over pairs (``"macro"``) or weighted by the pair's share of
  rows (``"weighted"``). scikit-learn's ``roc_auc_score(multi_class="ovo")``;
  no sample weights (scikit-learn takes none there either).
- **Average precision**: each class's binary AP, averaged as ROC AUC (one-vs-rest),
  scikit-learn's ``average_precision_score`` with a multi-class ``y_true``.
- **Top-k accuracy**: the share of rows whose actual class is among the k
  classes with the highest scores. Ties as scikit-learn's
  ``top_k_accuracy_score``: among equal scores the later class (in sorted
  order) ranks first, so a row's rank is the number of classes that score
  higher plus those after it that score the same.

Undefined per-class (or per-pair) values, a class without positive rows or
without negative rows, are null and left out of the averages, as elsewhere
in this package; scikit-learn gives NaN for such a one-vs-rest ROC AUC (and
0 for an AP). Every average adds its terms one by one in class order and
divides once: the same bits for any row order, thread count and engine.

The ROC AUC and AP expressions compute what the frame method computes, with
its code: each group's rows (a null label, or a null or NaN score or weight
in any of them, leave the row out) are packed into one value and handed to
:func:`frame_eval.classification.grouped_multiclass.multiclass_areas`, which
reads every class's (pair's) area from one sort of each class's scores.
One Python call per group, a plan the size of one class; building one curve
expression per class (or pair) instead made polars plan and run a tree that
grows with the classes (seconds for 8 classes, minutes one-vs-one).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping
from typing import Any, Final, Literal

import polars as pl

from frame_eval.classification.counts import (
    ACTUAL,
    CHECKED_WEIGHT,
    known_labels,
    parseable,
    ratio,
    weight_total,
    weighted,
)
from frame_eval.registry import Doc, MeasureSpec, Param, measure, register

__all__ = ["multiclass_average_precision", "multiclass_roc_auc", "top_k_accuracy"]

MultiClass = Literal["ovr", "ovo"]
ClassAverage = Literal["macro", "weighted", "micro"]
MULTI_CLASS: Final = ("ovr", "ovo")
CLASS_AVERAGES: Final = ("macro", "weighted", "micro")


def check_scores(scores: Any) -> list[tuple[Any, str]]:
    """The ``(class label, score column)`` pairs of a mapping, in sorted label order."""
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError(
            f"scores must be a mapping {{class label: score column}} with one column per class, "
            f"got {scores!r}"
        )
    if len(scores) < 2:
        raise ValueError(f"multi-class scores need at least two classes, got {dict(scores)!r}")
    try:
        return sorted(scores.items())
    except TypeError:
        raise TypeError(f"the class labels of scores must be of one kind, got {list(scores)!r}") from None


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


def check_ovo(multi_class: str, average: str, weight: str | None) -> None:
    """One-vs-one ROC AUC takes neither sample weights nor the micro average."""
    if multi_class != "ovo":
        return
    if weight is not None:
        raise ValueError(
            "one-vs-one ROC AUC takes no sample weights (nor does scikit-learn's); "
            "use multi_class='ovr' or leave out weight="
        )
    if average == "micro":
        raise ValueError("one-vs-one ROC AUC averages with 'macro' or 'weighted', not 'micro'")


def _inputs(columns: Any) -> tuple[str, list[tuple[Any, str]], str | None]:
    return columns.get("actual", ACTUAL), check_scores(columns["scores"]), columns.get("weight")


_LABEL, _ALL = "__fe_label", "__fe_all"


def _one_group_area(
    packed: pl.Series, *, pairs: list[tuple[Any, str]], weighted_rows: bool, request: tuple[str, str, str]
) -> pl.Series:
    """The area ``request`` of one group's packed rows, by the frame method's code (grouped_multiclass)."""
    from frame_eval.classification.frame_points import binary_areas  # (the front end imports this module)
    from frame_eval.classification.grouped_multiclass import multiclass_areas

    rows = packed.explode().struct.unnest()
    fields = [f"__fe_s{i}" for i in range(len(pairs))]
    keep = pl.col(_LABEL).is_not_null()
    for f in fields:
        keep = keep & pl.col(f).is_not_null() & pl.col(f).is_not_nan()
    if weighted_rows:
        keep = keep & pl.col(CHECKED_WEIGHT).is_not_null()
    work = rows.lazy().filter(keep).with_columns(pl.lit(0, pl.Int8).alias(_ALL))
    areas = multiclass_areas(
        work, [_ALL], _LABEL, [(c, f) for (c, _), f in zip(pairs, fields, strict=True)],
        CHECKED_WEIGHT if weighted_rows else None, {"value": request}, *binary_areas(weighted_rows),
        one_group=True,
    ).collect(engine="in-memory", optimizations=pl.QueryOptFlags.none())  # one small group: planning
    # costs more than it saves (one-vs-one CPU time 40% lower in benchmarks/multiclass.py --groups 50)
    value = areas["value"][0] if areas.height else None
    return pl.Series([value], dtype=pl.Float64)


def _area_expr(columns: Any, name: str, multi_class: str, average: str) -> pl.Expr:
    """``name`` (ROC_AUC or average_precision) per group: its rows packed, then the frame method's core."""
    actual, pairs, weight = _inputs(columns)
    fields = [pl.col(actual).alias(_LABEL)]
    fields += [pl.col(col).cast(pl.Float64).alias(f"__fe_s{i}") for i, (_, col) in enumerate(pairs)]
    if weight is not None:
        fields.append(pl.col(weight).cast(pl.Float64).alias(CHECKED_WEIGHT))
    run = functools.partial(
        _one_group_area, pairs=pairs, weighted_rows=weight is not None, request=(name, multi_class, average)
    )
    value = pl.struct(fields).implode().map_batches(run, return_dtype=pl.Float64, returns_scalar=True)
    return known_labels(weighted(value, weight), actual, [label for label, _ in pairs], "scores=")


def _build_roc_auc_multiclass(
    columns: Any, cutoff: float | None, *, multi_class: str, average: str
) -> pl.Expr:
    check_ovo(multi_class, average, columns.get("weight"))
    return _area_expr(columns, "ROC_AUC", multi_class, average)


def _build_average_precision_multiclass(columns: Any, cutoff: float | None, *, average: str) -> pl.Expr:
    return _area_expr(columns, "average_precision", "ovr", average)


def top_k_hits(actual: str, pairs: list[tuple[Any, str]], k: int, *, checked: bool = False) -> pl.Expr:
    """Per row: is the actual class among the ``k`` best scores (scikit-learn's tie order)?

    Class ``i`` is ahead of the row's class ``c`` when it scores higher or, later in sorted order, the
    same; with two classes, earlier in sorted order (for complementary probabilities, p0 = 1 - p1, that
    is scikit-learn's binary rule: the second class only above 0.5). Written out per class (``>`` or
    ``>=``), so polars compares columns directly (half the time of picking each row's own score
    first). Fewer than ``k`` classes ahead is tested on the comparisons' bitmaps (:func:`fewer_than`),
    not by adding them up as integers. A label that is no class is refused before (a frame method's
    checks; :func:`known_labels` in the expression), and a null label's row is left out after.
    ``checked``: the frame has no null score either (a frame method's checks refuse them), so none is
    looked for.
    """
    scores = [pl.col(col).cast(pl.Float64) for _, col in pairs]
    later_first = len(pairs) != 2
    hits = []
    for c, (label, _) in enumerate(pairs):
        ahead = [(scores[i] >= scores[c]) if (i > c) == later_first else (scores[i] > scores[c])
                 for i in range(len(pairs)) if i != c]
        ahead = ahead if checked else [a.fill_null(False) for a in ahead]
        hits.append((pl.col(actual) == label) & fewer_than(ahead, k))
    return pl.any_horizontal(hits)


_NODES: Final = 2000  # above this many operations, fewer_than adds the conditions up instead


def fewer_than(conditions: list[pl.Expr], k: int) -> pl.Expr:
    """Per row: do fewer than ``k`` of the Boolean ``conditions`` (no nulls) hold?

    "At least j of them hold" for j up to ``k``, halving the conditions: at least j of both halves
    together when at least j of one half hold, or i of the first and j - i of the second. A few ``&``
    and ``|`` of bitmaps (a row a bit; 15 for at least 2 of 4): cheaper than casting each condition to
    integers and adding them (top-k at 10M rows x 5 classes). The integer sum when that would take more
    than :data:`_NODES` operations (many classes, k near half of them)."""
    if k > len(conditions):
        return pl.lit(True)
    if _at_least_size(len(conditions), k)[k - 1] > _NODES:  # type: ignore[operator]
        return pl.sum_horizontal(conditions) < k
    return ~_at_least(conditions, k)[k - 1]  # type: ignore[operator]


def _at_least(conditions: list[pl.Expr], k: int) -> list[pl.Expr | None]:
    """``[at least 1 holds, ..., at least k hold]`` of the conditions (``None``: never, too few)."""
    if len(conditions) == 1:
        return [conditions[0], *[None] * (k - 1)]
    half = len(conditions) // 2
    first, second = _at_least(conditions[:half], k), _at_least(conditions[half:], k)
    out: list[pl.Expr | None] = []
    for j in range(1, k + 1):
        ways = [e for e in (first[j - 1], second[j - 1]) if e is not None]
        ways += [x & y for x, y in zip(first[: j - 1], second[j - 2:: -1] if j > 1 else [], strict=True)
                 if x is not None and y is not None]
        out.append(functools.reduce(operator.or_, ways) if ways else None)
    return out


@functools.cache
def _at_least_size(m: int, k: int) -> tuple[int | None, ...]:
    """The operations and leaves of :func:`_at_least`'s expressions over ``m`` conditions, as built."""
    if m == 1:
        return (1, *[None] * (k - 1))
    first, second = _at_least_size(m // 2, k), _at_least_size(m - m // 2, k)
    out: list[int | None] = []
    for j in range(1, k + 1):
        ways = [n for n in (first[j - 1], second[j - 1]) if n is not None]
        ways += [x + y + 1 for x, y in zip(first[: j - 1], second[j - 2:: -1] if j > 1 else [], strict=True)
                 if x is not None and y is not None]
        out.append(sum(ways) + len(ways) - 1 if ways else None)
    return tuple(out)


def top_k_share(hit: pl.Expr, actual: str | None, weight: str | None) -> pl.Expr:
    """Aggregation: the share of a group's rows with a label in ``actual`` (every row when ``None``: a
    frame method that refuses null labels) where ``hit`` holds, or of their weights."""
    w = None if weight is None else pl.col(weight).cast(pl.Float64)
    if actual is not None:
        hit = hit.filter(pl.col(actual).is_not_null())
        w = None if w is None else w.filter(pl.col(actual).is_not_null())
    if w is None:
        return ratio(hit.sum().cast(pl.Int64), hit.len().cast(pl.Int64))
    return weighted(ratio(weight_total(w.filter(hit)), weight_total(w)), weight)


def _build_top_k_accuracy(columns: Any, cutoff: float | None, *, k: int) -> pl.Expr:
    actual, pairs, weight = _inputs(columns)
    share = top_k_share(top_k_hits(actual, pairs, k), actual, weight)
    return known_labels(share, actual, [label for label, _ in pairs], "scores=")


def _spec(
    name: str, summary: str, build: Any, *aliases: str, params: tuple[Param, ...], doc: Doc
) -> MeasureSpec:
    spec = MeasureSpec(
        name=name, kind="classification", summary=summary, build=build, aliases=aliases, params=params,
        doc=doc,
        format_name=lambda values, cutoff: f"{name}(k={values.get('k', 2)})",
    )
    return parseable(register(spec))


def _positive_k(k: int) -> str | None:
    return None if k >= 1 else "must be 1 or more"


TOP_K_ACCURACY = _spec(
    "top_k_accuracy", "top-k accuracy: the share of rows whose class is among the k highest scores",
    _build_top_k_accuracy, "top_k", "top-k accuracy", "top_k_accuracy_score",
    params=(Param("k", int, 2, doc="how many of the best-scored classes count", check=_positive_k),),
    doc=Doc(
        "C.top_k_accuracy",
        "share of rows whose class is among the k best-scored classes, ties as scikit-learn's "
        "`top_k_accuracy_score` (the later class in sorted order first; with two classes the first: for "
        "complementary probabilities its binary rule, the second class only above 0.5); reads one score "
        "column per class "
        "(`scores(..., score={class: column}, average=...)`)",
        "no rows",
        names=("top_k_accuracy(k=2)",),
    ),
)
MULTICLASS_SPECS: Final = (TOP_K_ACCURACY,)


# -- public expression functions ----------------------------------------------------------------------

def multiclass_roc_auc(
    actual: str = ACTUAL,
    scores: Mapping[Any, str] | None = None,
    *,
    multi_class: MultiClass = "ovr",
    average: ClassAverage = "macro",
    weight: str | None = None,
) -> pl.Expr:
    """Multi-class ROC AUC, scikit-learn's ``roc_auc_score(multi_class=..., average=...)``.

    One-vs-rest: ``macro = mean_c AUC(c vs rest)``, ``weighted = sum_c P_c
    AUC_c / sum_c P_c`` (``P_c`` the rows, or weights, of class c), ``micro``
    the AUC of every (row, class) pair pooled. One-vs-one: ``AUC(a, b) =
    (AUC(a vs b) + AUC(b vs a)) / 2`` on the rows of a and b, then ``macro``
    the mean over pairs, ``weighted`` weighted by the pair's rows. A class
    (pair) whose AUC is undefined is left out; null if none is defined.

    Parameters
    ----------
    actual
        Label column.
    scores
        ``{class label: score column}``, one column per class (probabilities;
        the frame method ``scores()`` checks they lie in [0, 1] and add to 1).
    multi_class
        ``"ovr"`` (one-vs-rest) or ``"ovo"`` (one-vs-one, no weights).
    average
        ``"macro"``, ``"weighted"``; ``"micro"`` for one-vs-rest only.
    weight
        Sample weights >= 0 (one-vs-rest only), as in :func:`roc_auc`.

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": ["a", "b", "c", "a"], "pa": [0.6, 0.3, 0.2, 0.5],
    ...                    "pb": [0.3, 0.4, 0.3, 0.1], "pc": [0.1, 0.3, 0.5, 0.4]})
    >>> cols = {"a": "pa", "b": "pb", "c": "pc"}
    >>> df.select(C.multiclass_roc_auc("y", cols), C.multiclass_roc_auc("y", cols, multi_class="ovo")
    ...           .alias("ovo")).row(0)
    (1.0, 1.0)
    """
    check_choice("multi_class", multi_class, MULTI_CLASS)
    check_choice("average", average, CLASS_AVERAGES)
    columns = {"actual": actual, "scores": scores, "weight": weight}
    return _build_roc_auc_multiclass(columns, None, multi_class=multi_class, average=average).alias("ROC_AUC")


def multiclass_average_precision(
    actual: str = ACTUAL,
    scores: Mapping[Any, str] | None = None,
    *,
    average: ClassAverage = "macro",
    weight: str | None = None,
) -> pl.Expr:
    """Average precision of each class against the rest, averaged (scikit-learn's multi-class
    ``average_precision_score``).

    ``AP_c`` is :func:`average_precision` of (label == c, the column of c);
    ``macro`` their mean, ``weighted`` weighted by support, ``micro`` the AP
    of every (row, class) pair pooled. A class without rows is left out
    (scikit-learn counts its AP as 0). Parameters as in :func:`multiclass_roc_auc`.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": ["a", "b", "b"], "pa": [0.6, 0.7, 0.2], "pb": [0.4, 0.3, 0.8]})
    >>> df.select(C.multiclass_average_precision("y", {"a": "pa", "b": "pb"})).item()  # (1/2 + 5/6) / 2
    0.6666666666666666
    """
    check_choice("average", average, CLASS_AVERAGES)
    columns = {"actual": actual, "scores": scores, "weight": weight}
    return _build_average_precision_multiclass(columns, None, average=average).alias("average_precision")


def top_k_accuracy(
    actual: str = ACTUAL, scores: Mapping[Any, str] | None = None, *, k: int = 2, weight: str | None = None
) -> pl.Expr:
    """Top-k accuracy, scikit-learn's ``top_k_accuracy_score``: rows whose class is among the k best scores.

    A row counts when fewer than ``k`` classes rank above its actual class:
    those with a higher score, and those later in sorted label order with the
    same score (scikit-learn's tie order; with two classes the first class
    wins a tie, which for complementary probabilities, p0 = 1 - p1, is
    scikit-learn's binary rule: the second class only above 0.5; scikit-learn
    reads only the second column there). ``k`` at least the number of
    classes gives 1. With ``weight``, the weighted share. Null without rows.

    >>> import polars as pl
    >>> from frame_eval import classification as C
    >>> df = pl.DataFrame({"y": ["a", "b", "c"], "pa": [0.5, 0.2, 0.2],
    ...                    "pb": [0.3, 0.3, 0.5], "pc": [0.2, 0.5, 0.3]})
    >>> df.select(C.top_k_accuracy("y", {"a": "pa", "b": "pb", "c": "pc"}, k=1)).item()
    0.3333333333333333
    """
    m = measure(TOP_K_ACCURACY, kind="classification", k=k)
    columns = {"actual": actual, "scores": scores, "weight": weight}
    return TOP_K_ACCURACY.build(columns, None, **m.kwargs).alias(m.name)
