"""Charts render headless to valid PNG and SVG files, and draw the numbers frame_eval computes."""

from __future__ import annotations

import re
import runpy
import struct
from pathlib import Path
from statistics import NormalDist

import polars as pl
import pytest

pytest.importorskip("matplotlib", reason="charts need the [plot] extra (matplotlib)")

import frame_eval as fe
from frame_eval import plots

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 100 and height > 100
    assert data.rstrip(b"\x00").endswith(b"IEND\xaeB`\x82")


@pytest.fixture(scope="module")
def ranking() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    runs = fe.read_trec_run(DATA / "runs.txt").rename({"run_id": "system"})
    qrels = fe.read_trec_qrels(DATA / "qrels.txt")
    return runs, qrels, runs.ireval.evaluate(qrels, ["AP", "nDCG@10"], by="system")


@pytest.fixture(scope="module")
def preds() -> pl.DataFrame:
    return pl.read_csv(DATA / "predictions.csv")


def test_every_chart_renders_to_png_and_svg(tmp_path: Path, ranking, preds) -> None:
    runs, qrels, per_query = ranking
    judged = runs.ireval.judge(qrels, by="system")
    curve = preds.ireval.roc("label", "prob", by="model")
    charts = {
        "pr_average": plots.precision_recall(judged),
        "pr_query": plots.precision_recall(judged, query=judged["query_id"][0]),
        "roc": plots.roc(curve),
        "det": plots.det(curve),
        "calibration": plots.calibration(preds, "label", "prob"),
        "differences": plots.differences(per_query, "bm25", "AP"),
        "distribution": plots.distribution(per_query, "nDCG@10"),
    }
    for name, figure in charts.items():
        assert type(figure).__name__ == "Figure"
        written = plots.save(figure, tmp_path / name)
        assert [p.suffix for p in written] == [".png", ".svg"]
        assert_png(written[0])
        svg = written[1].read_text()
        assert "<svg" in svg and "</svg>" in svg
        assert "<dc:date>" not in svg  # reproducible bytes
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        plots.save(charts["roc"], tmp_path / "roc.pdf")


def test_lines_and_bars_carry_the_computed_values(ranking, preds) -> None:
    per_query = ranking[2]
    bars = plots.differences(per_query, "bm25", "AP").axes[0].patches
    wide = per_query.filter(pl.col("metric") == "AP").pivot("system", index="query_id", values="value")
    expected = sorted((wide["dense"] - wide["bm25"]).to_list(), reverse=True)
    assert [b.get_height() for b in bars] == expected

    curve = preds.ireval.roc("label", "prob", by="model")
    lines = plots.det(curve).axes[0].get_lines()
    boosted = curve.filter(pl.col("model") == "boosted").with_columns(fnr=1 - pl.col("tpr"))
    inside = pl.col("fpr").is_between(0, 1, closed="none") & pl.col("fnr").is_between(0, 1, closed="none")
    boosted = boosted.filter(inside)
    probit = NormalDist().inv_cdf
    assert [line.get_label() for line in lines] == ["boosted", "logreg"]
    assert list(lines[0].get_xdata()) == [probit(x) for x in boosted["fpr"]]
    assert list(lines[0].get_ydata()) == [probit(y) for y in boosted["fnr"]]


def test_eleven_point_average_is_the_mean_of_iprec(ranking) -> None:
    runs, qrels, _ = ranking
    judged = runs.ireval.judge(qrels, by="system")
    got = plots.eleven_point(judged, by="system")
    names = [f"IPrec@{level}" for level in plots.LEVELS]
    summary = runs.ireval.summarize(qrels, names, by="system")
    expected = summary.select("system", pl.col("metric").str.slice(6).cast(pl.Float64).alias("recall"),
                              pl.col("value").alias("expected"))
    joined = got.join(expected, on=["system", "recall"])
    assert joined.height == 22
    assert (joined["precision"] - joined["expected"]).abs().max() < 1e-12


def test_pr_points_by_hand() -> None:
    judged = pl.DataFrame({"query_id": ["q"] * 4 + ["r"], "rank": [1, 2, 3, None, 1],
                           "relevance": [1, 0, 2, 1, 0]})
    assert plots.pr_points(judged).rows() == [
        ("q", 1, 1.0, 1 / 3), ("q", 2, 0.5, 1 / 3), ("q", 3, 2 / 3, 2 / 3), ("r", 1, 0.0, None),
    ]
    assert plots.pr_points(judged, rel=2).rows()[2] == ("q", 3, 1 / 3, 1.0)


def test_calibration_bins_match_scikit_learn() -> None:
    np = pytest.importorskip("numpy")
    calibration = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(3)
    prob = np.concatenate([rng.random(500), np.linspace(0, 1, 11)])  # bin edges included
    label = (rng.random(prob.size) < prob).astype(int)
    frame = pl.DataFrame({"y": label, "p": prob})
    for n_bins in (5, 10, 7):
        bins = plots.calibration_bins(frame, "y", "p", n_bins=n_bins)
        true, pred = calibration.calibration_curve(label, prob, n_bins=n_bins, strategy="uniform")
        assert np.abs(bins["fraction_positive"].to_numpy() - true).max() < 1e-12
        assert np.abs(bins["mean_score"].to_numpy() - pred).max() < 1e-12
    with pytest.raises(ValueError, match=r"'p' has 1.5 at row 0 \(0-based\)"):
        plots.calibration_bins(pl.DataFrame({"y": [1], "p": [1.5]}), "y", "p")


def test_bad_input_and_missing_extra(ranking) -> None:
    _, _, per_query = ranking
    with pytest.raises(ValueError, match="no rows of measure 'P@7'"):
        plots.distribution(per_query, "P@7")
    with pytest.raises(ValueError, match="baseline 'x' has no AP values"):
        plots.differences(per_query, "x", "AP")
    with pytest.raises(ValueError, match="has no column 'tpr'"):
        plots.roc(per_query, by="system")
    from frame_eval.compare._optional import need

    with pytest.raises(ImportError, match=r'pip install "frame-eval\[plot\]"'):
        need("frame_eval_no_such_module", "plot", "charts")


def test_example_runs_and_readme_shows_its_table_and_pictures(tmp_path: Path, capsys) -> None:
    pytest.importorskip("scipy", reason="the example compares systems ([stats] extra)")
    module = runpy.run_path(str(ROOT / "examples" / "compare_systems.py"))
    module["main"](tmp_path)
    out = capsys.readouterr().out
    for name in ("precision_recall.png", "ap_difference.png"):
        assert_png(tmp_path / name)
        assert_png(ROOT / "examples" / "output" / name)  # the committed copies the README shows
    readme = (ROOT / "README.md").read_text()
    for name in ("precision_recall.png", "ap_difference.png"):
        assert f"(examples/output/{name})" in readme
    table = re.search(r"^\| system \| AP \| nDCG@10 .*?Holm correction.*?$", out, re.S | re.M)
    assert table is not None
    assert table.group(0) in readme
