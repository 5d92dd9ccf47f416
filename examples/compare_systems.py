"""Compare the bundled retrieval systems: significance tests, the paper's table and two charts.

    pip install -e ".[stats,plot]" && python examples/compare_systems.py [output directory]

Evaluates both systems of examples/data/runs.txt per query, tests dense
against bm25 (paired t, Wilcoxon, randomization; Holm-corrected per
measure and test), prints the results table and each system's mean with a
95% interval, and writes the charts the README shows (default directory:
examples/output/).
"""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

import frame_eval as fe
from frame_eval import plots

HERE = Path(__file__).resolve().parent
MEASURES = ["AP", "nDCG@10", "P@5", "RR"]


def main(out: Path) -> None:
    runs = fe.read_trec_run(HERE / "data" / "runs.txt").rename({"run_id": "system"})
    qrels = fe.read_trec_qrels(HERE / "data" / "qrels.txt")
    per_query = runs.ireval.evaluate(qrels, MEASURES, by="system")

    result = per_query.ireval.compare("bm25", tests=["t", "wilcoxon", "randomization"], correction="holm")
    with pl.Config(tbl_rows=20, tbl_cols=10, tbl_width_chars=120):
        print(result.select("system", "metric", "test", "diff", "ci_low", "ci_high", "p_adjusted",
                            "effect_size", "wins", "losses"))
    print()
    print(result.ireval.report("markdown", measures=MEASURES))
    print()
    print(per_query.ireval.intervals(level=0.95).select("system", "metric", "mean", "ci_low", "ci_high"))

    judged = runs.ireval.judge(qrels, by="system")
    written = plots.save(plots.precision_recall(judged, by="system"), out / "precision_recall.png")
    written += plots.save(plots.differences(per_query, "bm25", "AP"), out / "ap_difference.png")
    print("\nwrote", ", ".join(str(p) for p in written))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "output")
