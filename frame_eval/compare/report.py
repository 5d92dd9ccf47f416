"""The results table of a paper from :func:`frame_eval.compare.compare`'s output (Markdown or LaTeX)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

Format = Literal["markdown", "latex"]

_TEST_NAMES = {
    "t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
    "randomization": "randomization test", "bootstrap": "paired bootstrap test",
}
_CORRECTIONS = {"none": "no correction", "bonferroni": "Bonferroni correction", "holm": "Holm correction",
                "bh": "Benjamini-Hochberg correction"}
_MARKS = {"markdown": ["†", "‡", "§", "¶", "‖"], "latex": [r"\dagger", r"\ddagger", r"\S", r"\P", r"\|"]}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def _markdown(text: str) -> str:
    return text.replace("|", r"\|")


def _against(result: pl.DataFrame, system: str, baseline: Any) -> pl.DataFrame:
    """Rows of ``result`` against ``baseline``, seen from the other system (all-pairs rows flipped)."""
    direct = result.filter(pl.col("baseline") == baseline).select(
        pl.col(system).alias("_other"), "metric", "test", "mean", "baseline_mean", "n", "p_adjusted",
    )
    flipped = result.filter(pl.col(system) == baseline).select(
        pl.col("baseline").alias("_other"), "metric", "test", pl.col("baseline_mean").alias("mean"),
        pl.col("mean").alias("baseline_mean"), "n", "p_adjusted",
    )
    return pl.concat([direct, flipped])


def report(
    result: Any,
    format: Format = "markdown",
    *,
    by: str = "system",
    baseline: Any = None,
    alpha: float = 0.05,
    digits: int = 4,
    lower_is_better: Sequence[str] = (),
    measures: Sequence[str] | None = None,
) -> str:
    r"""The familiar table: systems as rows, measures as columns, best in bold, marks against the baseline.

    Each cell is the system's mean of the measure, rounded to ``digits``; the
    best value of each column (highest, or lowest for measures in
    ``lower_is_better``) is bold, ties at the shown precision included. A
    system's cell carries one mark per test whose corrected p-value
    (``p_adjusted``) against the baseline is below ``alpha``. The baseline's
    row comes first, the others in the order of ``result``; measures keep
    their order. A legend follows the table: what the marks mean, the
    correction, ``alpha`` and the number of pairs.

    Parameters
    ----------
    result
        The output of :func:`~frame_eval.compare.compare` (polars or pandas).
    format
        ``"markdown"`` (a GitHub table) or ``"latex"`` (a ``tabular`` with booktabs rules).
    by
        The system column of ``result``.
    baseline
        The system the marks refer to; needed when ``result`` compares all pairs.
    measures
        The measures to show, in this order (default: all, in the order of ``result``).

    Examples
    --------
    >>> import polars as pl
    >>> from frame_eval.compare import compare, report
    >>> per_query = pl.DataFrame({
    ...     "system": ["bm25"] * 6 + ["neural"] * 6, "query_id": list(range(6)) * 2,
    ...     "metric": ["AP"] * 12,
    ...     "value": [0.1, 0.2, 0.3, 0.2, 0.1, 0.3] + [0.4, 0.5, 0.6, 0.6, 0.4, 0.7]})
    >>> table, legend = report(compare(per_query, "bm25", tests=["t", "sign"])).split("\n\n")
    >>> print(table)
    | system | AP |
    | --- | ---: |
    | bm25 | 0.2000 |
    | neural | **0.5333**†‡ |
    >>> legend.split(": ")[-1]
    '† paired t-test, ‡ sign test.'
    """
    from frame_eval.polars_ns import to_lazy  # polars_ns imports this package

    if format not in ("markdown", "latex"):
        raise ValueError(f"format must be 'markdown' or 'latex', got {format!r}")
    frame = to_lazy(result, "comparison result").collect()
    needed = [by, "baseline", "metric", "test", "mean", "baseline_mean", "n", "p_adjusted"]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(
            f"comparison result has no column {', '.join(map(repr, absent))}; pass the output of "
            "compare() (and by= if its system column is not 'system')"
        )
    baselines = frame["baseline"].unique(maintain_order=True).to_list()
    if baseline is None:
        if len(baselines) != 1:
            raise ValueError(
                f"the result compares several baselines {baselines!r}; pass baseline= to choose one"
            )
        baseline = baselines[0]
    rows = _against(frame, by, baseline)
    if rows.height == 0:
        raise ValueError(f"baseline {baseline!r} is not in the comparison result; its systems are "
                         f"{frame[by].unique(maintain_order=True).to_list()!r}")
    tests = frame["test"].unique(maintain_order=True).to_list()
    metrics = rows["metric"].unique(maintain_order=True).to_list()
    if measures is not None:
        unknown = [m for m in measures if m not in metrics]
        if unknown:
            raise ValueError(f"measures {unknown!r} are not in the comparison result; it has {metrics!r}")
        metrics = list(measures)
    others = rows["_other"].unique(maintain_order=True).to_list()
    marks = dict(zip(tests, _MARKS[format], strict=False))
    escape = _latex if format == "latex" else _markdown

    base_means = dict(
        rows.group_by("metric", maintain_order=True).agg(pl.col("baseline_mean").first()).rows()
    )
    means = {(r[0], r[1]): r[2] for r in rows.group_by("_other", "metric", maintain_order=True)
             .agg(pl.col("mean").first()).rows()}
    significant = {(r["_other"], r["metric"], r["test"]) for r in rows.filter(pl.col("p_adjusted") < alpha)
                   .select("_other", "metric", "test").to_dicts()}
    shown = {(s, m): f"{v:.{digits}f}" for (s, m), v in means.items()}
    shown |= {(baseline, m): f"{v:.{digits}f}" for m, v in base_means.items()}
    best = {}
    for m in metrics:
        column = [float(v) for (s, mm), v in shown.items() if mm == m]
        best[m] = min(column) if m in lower_is_better else max(column)

    def cell(system: Any, metric: str) -> str:
        text = shown.get((system, metric))
        if text is None:
            return ""
        if float(text) == best[metric]:
            text = rf"\textbf{{{text}}}" if format == "latex" else f"**{text}**"
        sig = "".join(marks[t] for t in tests if t in marks and (system, metric, t) in significant)
        if sig:
            text += f"$^{{{sig}}}$" if format == "latex" else sig
        return text

    systems = [baseline, *others]
    correction = frame["correction"][0] if "correction" in frame.columns else None
    sizes = sorted(set(rows["n"].to_list()))
    size = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    how = _CORRECTIONS.get(correction, f"{correction} correction") if correction else "p_adjusted"
    mark_text = ", ".join(
        f"{marks[t] if format == 'markdown' else '$' + marks[t] + '$'} {_TEST_NAMES.get(t, t)}"
        for t in tests if t in marks
    )
    legend = (
        f"Means over {size} pairs. Bold: best in its column. Marks: significantly different from "
        f"{escape(str(baseline))} (p < {alpha:g}, {how}, per measure and test): {mark_text}."
    )
    if format == "markdown":
        lines = [
            "| " + " | ".join([escape(by), *map(escape, metrics)]) + " |",
            "| --- |" + " ---: |" * len(metrics),
            *("| " + " | ".join([escape(str(s)), *(cell(s, m) for m in metrics)]) + " |" for s in systems),
            "",
            legend,
        ]
    else:
        lines = [
            r"\begin{tabular}{l" + "r" * len(metrics) + "}",
            r"\toprule",
            " & ".join([escape(by), *map(escape, metrics)]) + r" \\",
            r"\midrule",
            *(" & ".join([escape(str(s)), *(cell(s, m) for m in metrics)]) + r" \\" for s in systems),
            r"\bottomrule",
            r"\end{tabular}",
            "",
            legend,
        ]
    return "\n".join(lines)
