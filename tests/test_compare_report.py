"""The results table of compare(): exact Markdown and LaTeX text on a small example."""

from __future__ import annotations

import polars as pl
import pytest

pytest.importorskip("scipy", reason="compare() needs the [stats] extra")

import frame_eval as fe

# Three systems on six queries, two measures. "neural" beats bm25 on every query of AP,
# "mixed" is close to bm25; on ERR lower is better (a made-up cost measure).
VALUES = {
    ("bm25", "AP"): [0.10, 0.20, 0.30, 0.20, 0.10, 0.30],
    ("neural", "AP"): [0.40, 0.50, 0.60, 0.60, 0.40, 0.70],
    ("mixed", "AP"): [0.12, 0.18, 0.31, 0.22, 0.09, 0.30],
    ("bm25", "ERR_cost"): [3.0, 2.0, 4.0, 3.0, 5.0, 4.0],
    ("neural", "ERR_cost"): [2.0, 2.0, 3.0, 2.0, 4.0, 3.0],
    ("mixed", "ERR_cost"): [3.0, 2.0, 4.0, 3.0, 5.0, 4.5],
}


@pytest.fixture
def per_query() -> pl.DataFrame:
    rows = [(s, q, m, v) for (s, m), vs in VALUES.items() for q, v in enumerate(vs)]
    return pl.DataFrame(rows, schema=["system", "query_id", "metric", "value"], orient="row")


def test_markdown_exact(per_query: pl.DataFrame) -> None:
    result = per_query.ireval.compare("bm25", tests=["t", "sign"], correction="holm")
    text = result.ireval.report(lower_is_better=["ERR_cost"])
    assert text == (
        "| system | AP | ERR_cost |\n"
        "| --- | ---: | ---: |\n"
        "| bm25 | 0.2000 | 3.5000 |\n"
        "| mixed | 0.2033 | 3.5833 |\n"
        "| neural | **0.5333**† | **2.6667**† |\n"  # sign: 2 x 0.03125 after Holm
        "\n"
        "Means over 6 pairs. Bold: best in its column. Marks: significantly different from bm25 "
        "(p < 0.05, Holm correction, per measure and test): † paired t-test, ‡ sign test."
    )


def test_latex_exact_and_escaped(per_query: pl.DataFrame) -> None:
    result = fe.compare.compare(per_query, "bm25", tests=["t"], correction="bonferroni")
    text = fe.compare.report(result, "latex", digits=2, alpha=0.01)
    assert text == (
        "\\begin{tabular}{lrr}\n"
        "\\toprule\n"
        "system & AP & ERR\\_cost \\\\\n"
        "\\midrule\n"
        "bm25 & 0.20 & 3.50 \\\\\n"
        "mixed & 0.20 & \\textbf{3.58} \\\\\n"
        "neural & \\textbf{0.53}$^{\\dagger}$ & 2.67$^{\\dagger}$ \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
        "\n"
        "Means over 6 pairs. Bold: best in its column. Marks: significantly different from bm25 "
        "(p < 0.01, Bonferroni correction, per measure and test): $\\dagger$ paired t-test."
    )


def test_all_pairs_needs_a_baseline_and_flips_rows(per_query: pl.DataFrame) -> None:
    result = fe.compare.compare(per_query.filter(pl.col("metric") == "AP"), None, tests=["t"])
    with pytest.raises(ValueError, match="pass baseline= to choose one"):
        fe.compare.report(result)
    # 'neural' is the baseline of no row of the all-pairs result: its rows are seen from the others.
    text = fe.compare.report(result, baseline="neural")
    assert text.splitlines()[2:5] == [
        "| neural | **0.5333** |",
        "| bm25 | 0.2000† |",
        "| mixed | 0.2033† |",
    ]


def test_pandas_result_and_bad_input(per_query: pl.DataFrame) -> None:
    result = fe.compare.compare(per_query, "bm25")
    pd = pytest.importorskip("pandas")
    assert isinstance(result.to_pandas(), pd.DataFrame)
    assert result.to_pandas().ireval.report() == result.ireval.report()
    with pytest.raises(ValueError, match="format must be 'markdown' or 'latex'"):
        result.ireval.report("html")
    with pytest.raises(ValueError, match="has no column 'p_adjusted'"):
        fe.compare.report(result.drop("p_adjusted"))
    with pytest.raises(ValueError, match="baseline 'x' is not in the comparison result"):
        fe.compare.report(result, baseline="x")


def test_measures_choose_and_order_columns(per_query: pl.DataFrame) -> None:
    result = fe.compare.compare(per_query, "bm25")
    assert result.ireval.report(measures=["ERR_cost"]).splitlines()[0] == "| system | ERR_cost |"
    with pytest.raises(ValueError, match=r"measures \['nDCG'\] are not in the comparison result"):
        result.ireval.report(measures=["nDCG"])
