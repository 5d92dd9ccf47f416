"""Charts of evaluation results with matplotlib (``pip install "frame-eval[plot]"``).

Each chart function takes a frame that frame_eval already produces and
returns a :class:`matplotlib.figure.Figure`, for you to restyle; :func:`save`
writes it as PNG or SVG. Figures are built without ``pyplot`` (no global
state, no window), so they render headless with the Agg canvas.

| chart | input |
| --- | --- |
| :func:`precision_recall` | ``run.ireval.judge(qrels, by=...)`` (rank, relevance) |
| :func:`roc`, :func:`det` | ``preds.ireval.roc(actual, score, by=...)`` |
| :func:`calibration` | predictions with a 0/1 (or Boolean) label and a probability |
| :func:`differences` | ``evaluate(...)`` output (long) and a baseline |
| :func:`distribution` | ``evaluate(...)`` output (long) |

The numbers behind the pictures come from polars (:func:`pr_points`,
:func:`eleven_point`, :func:`calibration_bins`); matplotlib only draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import NormalDist
from typing import Any

import polars as pl

from frame_eval import ranking as _ranking
from frame_eval.compare._optional import need

LEVELS = tuple(i / 10 for i in range(11))


def _figure(width: float = 5.0, height: float = 4.0) -> Any:
    figure_module = need("matplotlib.figure", "plot", "charts")
    return figure_module.Figure(figsize=(width, height), layout="constrained")


def _eager(frame: Any, name: str) -> pl.DataFrame:
    from frame_eval.polars_ns import to_lazy  # polars_ns imports the compare package

    return to_lazy(frame, name).collect()


def _keys(by: str | Sequence[str] | None) -> list[str]:
    return [] if by is None else ([by] if isinstance(by, str) else list(by))


def _label(row: dict[str, Any], keys: list[str]) -> str:
    return " / ".join(str(row[k]) for k in keys) if keys else "all"


def _require(frame: pl.DataFrame, columns: Sequence[str], name: str) -> None:
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise ValueError(
            f"{name} has no column {', '.join(map(repr, absent))}; its columns are {frame.columns!r}"
        )


def save(figure: Any, path: str | Path, *, dpi: int = 100) -> list[Path]:
    """Write ``figure`` to ``path``: PNG or SVG by its suffix; without a suffix, both.

    Returns the paths written. SVG files carry no creation date, so the
    same figure gives the same bytes.

    >>> import tempfile, pathlib, polars as pl
    >>> per_query = pl.DataFrame({"system": ["a", "b"], "metric": ["AP"] * 2, "value": [0.2, 0.4]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = save(distribution(per_query, "AP"), pathlib.Path(folder) / "ap")
    ...     [(p.suffix, p.stat().st_size > 0) for p in paths]
    [('.png', True), ('.svg', True)]
    """
    path = Path(path)
    targets = [path] if path.suffix else [path.with_suffix(".png"), path.with_suffix(".svg")]
    for target in targets:
        if target.suffix.lower() not in (".png", ".svg"):
            raise ValueError(f"save writes .png or .svg files, got {target.name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        # no creation date in SVG files, so the same figure gives the same bytes
        metadata = {"Date": None} if target.suffix.lower() == ".svg" else None
        figure.savefig(target, dpi=dpi, metadata=metadata)
    return targets


# -- rankings ----------------------------------------------------------------------------

def pr_points(judged: Any, *, by: str | Sequence[str] | None = None, query_id: str = "query_id",
              rank: str = "rank", relevance: str = "relevance", rel: int = 1) -> pl.DataFrame:
    """Precision and recall at every rank of each ranking of a judged frame.

    Returns ``[*by, query_id, rank, precision, recall]`` sorted by the keys and
    rank: precision = relevant in the top ``rank`` / ``rank``; recall = the
    same count / all relevant judged documents of the query (found or
    missed; a query without any has recall null). Relevant: ``relevance >= rel``.

    >>> import polars as pl
    >>> judged = pl.DataFrame({"query_id": ["q"] * 3, "rank": [1, 2, None], "relevance": [0, 1, 1]})
    >>> pr_points(judged).rows()
    [('q', 1, 0.0, 0.0), ('q', 2, 0.5, 0.5)]
    """
    frame = _eager(judged, "judged frame")
    keys = [*_keys(by), query_id]
    _require(frame, [*keys, rank, relevance], "judged frame")
    hit = (pl.col(relevance).fill_null(0) >= rel).cast(pl.Int64)
    total = hit.sum().over(keys)
    found = frame.with_columns(total.alias("_r")).filter(pl.col(rank).is_not_null()).sort([*keys, rank])
    cum = hit.cum_sum().over(keys)
    return found.select(
        *keys, rank,
        (cum / pl.col(rank)).alias("precision"),
        pl.when(pl.col("_r") > 0).then(cum / pl.col("_r")).alias("recall"),
    )


def eleven_point(judged: Any, *, by: str | Sequence[str] | None = None, query_id: str = "query_id",
                 rank: str = "rank", relevance: str = "relevance", rel: int = 1) -> pl.DataFrame:
    """Interpolated precision at recall 0, 0.1, ..., 1 averaged over queries (trec_eval ``iprec_at_recall``).

    Returns ``[*by, recall, precision]``: for each level, the mean over the
    queries of ``fe.ranking.iprec(level)`` (the same expression ``IPrec@r``
    uses), summed in query order.
    """
    frame = _eager(judged, "judged frame")
    keys = _keys(by)
    _require(frame, [*keys, query_id, rank, relevance], "judged frame")
    per_query = frame.group_by([*keys, query_id]).agg(
        _ranking.iprec(level, rel=rel, rank=rank, relevance=relevance).alias(f"{level}") for level in LEVELS
    ).sort([*keys, query_id])
    long = per_query.unpivot([f"{level}" for level in LEVELS], index=[*keys, query_id],
                             variable_name="recall", value_name="precision")
    long = long.with_columns(pl.col("recall").cast(pl.Float64)).sort([*keys, "recall", query_id])
    return long.group_by([*keys, "recall"], maintain_order=True).agg(
        (pl.col("precision").cum_sum().last() / pl.len()).alias("precision")
    )


def precision_recall(judged: Any, *, by: str | Sequence[str] | None = "system", query: Any = None,
                     query_id: str = "query_id", rel: int = 1, **columns: str) -> Any:
    """Precision-recall curves: one query's curve per system, or the 11-point average.

    With ``query`` given, each system's precision against recall at every
    rank of that query (:func:`pr_points`); otherwise the interpolated
    11-point average over queries (:func:`eleven_point`). ``columns`` may
    name ``rank`` and ``relevance``.

    >>> import polars as pl
    >>> judged = pl.DataFrame({"system": ["a"] * 3, "query_id": ["q"] * 3, "rank": [1, 2, 3],
    ...                        "relevance": [0, 1, 1]})
    >>> line = precision_recall(judged).axes[0].get_lines()[0]
    >>> line.get_label(), [round(float(y), 4) for y in line.get_ydata()][:3]
    ('a', [0.6667, 0.6667, 0.6667])
    """
    keys = _keys(by)
    figure = _figure()
    axes = figure.add_subplot()
    if query is None:
        points = eleven_point(judged, by=by, query_id=query_id, rel=rel, **columns)
        title = "Interpolated precision (11-point average)"
        style = {"marker": "o"}
    else:
        points = pr_points(judged, by=by, query_id=query_id, rel=rel, **columns)
        points = points.filter(pl.col(query_id) == query)
        if points.height == 0:
            raise ValueError(f"query {query!r} has no ranked documents in the judged frame")
        title = f"Precision-recall, query {query}"
        style = {"drawstyle": "steps-post"}
    for group in points.partition_by(keys, maintain_order=True) if keys else [points]:
        axes.plot(group["recall"], group["precision"], label=_label(group.row(0, named=True), keys), **style)
    axes.set(xlabel="recall", ylabel="precision", xlim=(0, 1.02), ylim=(0, 1.02), title=title)
    axes.legend(loc="lower left")
    return figure


# -- classifiers --------------------------------------------------------------------------

def _curve_groups(curve: Any, by: str | Sequence[str] | None, name: str) -> tuple[list[Any], list[str]]:
    frame = _eager(curve, name)
    keys = _keys(by)
    _require(frame, [*keys, "tpr", "fpr"], name)
    groups = frame.partition_by(keys, maintain_order=True) if keys else [frame]
    return groups, keys


def roc(curve: Any, *, by: str | Sequence[str] | None = "model") -> Any:
    """ROC curves (false positive rate against true positive rate) from ``.ireval.roc(...)`` output.

    Each group's curve starts at the origin (the threshold above every
    score) and follows the rows in threshold order; the diagonal is chance.

    >>> import polars as pl, frame_eval as fe
    >>> preds = pl.DataFrame({"model": ["m"] * 4, "label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
    >>> line = roc(preds.ireval.roc("label", "prob", by="model")).axes[0].get_lines()[0]
    >>> [float(x) for x in line.get_xdata()], [float(y) for y in line.get_ydata()]
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    groups, keys = _curve_groups(curve, by, "ROC frame")
    figure = _figure()
    axes = figure.add_subplot()
    for group in groups:
        fpr, tpr = [0.0, *group["fpr"].to_list()], [0.0, *group["tpr"].to_list()]
        axes.plot(fpr, tpr, label=_label(group.row(0, named=True), keys))
    axes.plot([0, 1], [0, 1], linestyle=":", color="grey", label="chance")
    axes.set(xlabel="false positive rate", ylabel="true positive rate", xlim=(0, 1), ylim=(0, 1.01),
             title="ROC")
    axes.legend(loc="lower right")
    return figure


_DET_TICKS = (0.001, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99, 0.999)


def det(curve: Any, *, by: str | Sequence[str] | None = "model") -> Any:
    """DET curves: false negative rate (1 - TPR) against false positive rate, both on probit axes.

    A rate p is drawn at the standard normal quantile of p (``statistics.NormalDist``),
    so a classifier with normal scores gives a straight line; points with a
    rate of exactly 0 or 1 have no such quantile and are left out.

    >>> import polars as pl, frame_eval as fe
    >>> preds = pl.DataFrame({"model": ["m"] * 6, "label": [0, 0, 0, 1, 1, 1],
    ...                       "prob": [0.1, 0.4, 0.7, 0.35, 0.8, 0.9]})
    >>> line = det(preds.ireval.roc("label", "prob", by="model")).axes[0].get_lines()[0]
    >>> [round(float(x), 4) for x in line.get_xdata()], [round(float(y), 4) for y in line.get_ydata()]
    ([-0.4307, 0.4307], [-0.4307, -0.4307])
    """
    groups, keys = _curve_groups(curve, by, "ROC frame")
    probit = NormalDist().inv_cdf
    figure = _figure()
    axes = figure.add_subplot()
    for group in groups:
        rates = group.select(pl.col("fpr"), (1 - pl.col("tpr")).alias("fnr")).filter(
            (pl.col("fpr") > 0) & (pl.col("fpr") < 1) & (pl.col("fnr") > 0) & (pl.col("fnr") < 1)
        )
        axes.plot([probit(x) for x in rates["fpr"]], [probit(y) for y in rates["fnr"]],
                  label=_label(group.row(0, named=True), keys))
    ticks = [probit(p) for p in _DET_TICKS]
    names = [f"{100 * p:g}%" for p in _DET_TICKS]
    axes.set_xticks(ticks, names, rotation=45)
    axes.set_yticks(ticks, names)
    axes.set(xlim=(probit(0.0005), probit(0.9995)), ylim=(probit(0.0005), probit(0.9995)),
             xlabel="false positive rate", ylabel="false negative rate", title="DET")
    axes.legend(loc="upper right")
    return figure


def calibration_bins(predictions: Any, actual: str = "actual", score: str = "score", *,
                     by: str | Sequence[str] | None = None, n_bins: int = 10) -> pl.DataFrame:
    """Reliability of probabilities: ``[*by, bin, n, mean_score, fraction_positive]`` per non-empty bin.

    Scores in [0, 1] fall in ``n_bins`` equal bins with edges ``e_i = i * (1 / n_bins)``;
    a score's bin is the number of inner edges ``e_1 .. e_{n_bins - 1}`` below
    it, so bin i holds ``e_i < score <= e_{i+1}`` (bin 0 also holds 0), as
    scikit-learn's ``calibration_curve(strategy="uniform")`` bins.
    Labels are Boolean or 0/1. Means are summed in score order.

    >>> import polars as pl
    >>> preds = pl.DataFrame({"y": [0, 1, 1, 1], "p": [0.1, 0.15, 0.8, 0.9]})
    >>> calibration_bins(preds, "y", "p", n_bins=2).rows()
    [(0, 2, 0.125, 0.5), (1, 2, 0.8500000000000001, 1.0)]
    """
    frame = _eager(predictions, "predictions")
    keys = _keys(by)
    _require(frame, [*keys, actual, score], "predictions")
    s = pl.col(score).cast(pl.Float64)
    outside = frame.select((s < 0) | (s > 1) | s.is_null() | s.is_nan()).to_series().arg_true()
    if outside.len():
        row = outside[0]
        raise ValueError(
            f"predictions column {score!r} has {frame[score][row]!r} at row {row} (0-based); "
            "calibration needs probabilities in [0, 1]"
        )
    label = pl.col(actual).cast(pl.Int64)
    binned = frame.select(
        *keys, pl.sum_horizontal(*(s > i * (1.0 / n_bins) for i in range(1, n_bins)), pl.lit(0))
        .cast(pl.Int64).alias("bin"),
        s.alias("_s"), label.alias("_y"),
    ).sort([*keys, "bin", "_s", "_y"])
    return binned.group_by([*keys, "bin"], maintain_order=True).agg(
        pl.len().cast(pl.Int64).alias("n"),
        (pl.col("_s").cum_sum().last() / pl.len()).alias("mean_score"),
        (pl.col("_y").sum() / pl.len()).alias("fraction_positive"),
    )


def calibration(predictions: Any, actual: str = "actual", score: str = "score", *,
                by: str | Sequence[str] | None = "model", n_bins: int = 10) -> Any:
    """Reliability diagram: fraction of positives against mean predicted probability per bin.

    The points are :func:`calibration_bins`; the dotted diagonal is perfect calibration.

    >>> import polars as pl
    >>> preds = pl.DataFrame({"model": ["m"] * 4, "y": [0, 1, 1, 1], "p": [0.1, 0.15, 0.8, 0.9]})
    >>> [float(y) for y in calibration(preds, "y", "p", n_bins=2).axes[0].get_lines()[0].get_ydata()]
    [0.5, 1.0]
    """
    bins = calibration_bins(predictions, actual, score, by=by, n_bins=n_bins)
    keys = _keys(by)
    figure = _figure()
    axes = figure.add_subplot()
    for group in bins.partition_by(keys, maintain_order=True) if keys else [bins]:
        axes.plot(group["mean_score"], group["fraction_positive"], marker="o",
                  label=_label(group.row(0, named=True), keys))
    axes.plot([0, 1], [0, 1], linestyle=":", color="grey", label="perfectly calibrated")
    axes.set(xlabel="mean predicted probability", ylabel="fraction of positives", xlim=(0, 1), ylim=(0, 1),
             title="Calibration")
    axes.legend(loc="upper left")
    return figure


# -- comparing systems ---------------------------------------------------------------------

def differences(per_query: Any, baseline: Any, measure: str, *, by: str = "system", on: str = "query_id",
                metric: str = "metric", value: str = "value") -> Any:
    """Per-query difference of each system to ``baseline`` on one measure, as sorted bars.

    One panel per other system: a bar per key (query) common to both,
    height = system - baseline, sorted from the largest gain to the largest
    loss (ties by key); the title counts wins, ties and losses.

    >>> import polars as pl
    >>> per_query = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": [1, 2, 3] * 2,
    ...                           "metric": ["AP"] * 6, "value": [0.5, 0.5, 0.5, 0.7, 0.4, 0.5]})
    >>> axes = differences(per_query, "a", "AP").axes[0]
    >>> [round(float(bar.get_height()), 4) for bar in axes.patches], axes.get_title()
    ([0.2, 0.0, -0.1], 'b - a: 1 better, 1 equal, 1 worse')
    """
    frame = _eager(per_query, "per-query frame")
    _require(frame, [by, on, metric, value], "per-query frame")
    rows = frame.filter(pl.col(metric) == measure)
    if rows.height == 0:
        raise ValueError(f"per-query frame has no rows of measure {measure!r} in column {metric!r}")
    base = rows.filter(pl.col(by) == baseline).select(on, pl.col(value).alias("_base"))
    if base.height == 0:
        raise ValueError(f"baseline {baseline!r} has no {measure} values in column {by!r}")
    others = rows.filter(pl.col(by) != baseline).join(base, on=on).with_columns(
        (pl.col(value) - pl.col("_base")).alias("_d")
    ).sort([by, "_d", on], descending=[False, True, False])
    panels = others.partition_by(by, maintain_order=True)
    figure = _figure(6.0, 2.2 + 1.8 * len(panels))
    for i, panel in enumerate(panels, start=1):
        axes = figure.add_subplot(len(panels), 1, i)
        d = panel["_d"].to_list()
        colours = ["tab:green" if x > 0 else "tab:red" if x < 0 else "grey" for x in d]
        axes.bar(range(len(d)), d, color=colours, width=0.85)
        axes.axhline(0, color="black", linewidth=0.8)
        wins, losses = sum(x > 0 for x in d), sum(x < 0 for x in d)
        axes.set(ylabel=f"{measure} difference", xticks=[], xlabel=f"{on}, sorted by difference",
                 title=f"{panel[by][0]} - {baseline}: {wins} better, {len(d) - wins - losses} equal, "
                       f"{losses} worse")
    return figure


def distribution(per_query: Any, measure: str, *, by: str = "system", metric: str = "metric",
                 value: str = "value") -> Any:
    """Box plot of one measure's per-query values for each system (systems in sorted order).

    Whiskers at 1.5 times the interquartile range (matplotlib's default), the mean as a marker.

    >>> import polars as pl
    >>> per_query = pl.DataFrame({"system": ["b", "a"], "metric": ["AP"] * 2, "value": [0.2, 0.4]})
    >>> [t.get_text() for t in distribution(per_query, "AP").axes[0].get_xticklabels()]
    ['a', 'b']
    """
    frame = _eager(per_query, "per-query frame")
    _require(frame, [by, metric, value], "per-query frame")
    rows = frame.filter(pl.col(metric) == measure).sort(by)
    if rows.height == 0:
        raise ValueError(f"per-query frame has no rows of measure {measure!r} in column {metric!r}")
    groups = rows.partition_by(by, maintain_order=True)
    figure = _figure()
    axes = figure.add_subplot()
    axes.boxplot([g[value].to_list() for g in groups], tick_labels=[str(g[by][0]) for g in groups],
                 showmeans=True)
    axes.set(ylabel=measure, title=f"{measure} per query")
    return figure
