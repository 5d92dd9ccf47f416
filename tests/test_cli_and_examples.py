"""The command line and the runnable examples."""

from __future__ import annotations

import io
import runpy
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import frame_eval as fe
from frame_eval.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"


def test_cli_prints_trec_eval_lines(trec_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(trec_dir / "qrels.test"), str(trec_dir / "results.test"), "-m", "map",
                 "-m", "num_rel_ret", "-m", "P.5,10"]) == 0
    got = capsys.readouterr().out.splitlines()
    expected = (trec_dir / "out.test").read_text().splitlines()
    # trec_eval's order (num_rel_ret before map), not the order of the options
    assert got == [line for line in expected if line.split()[0] in {"map", "num_rel_ret", "P_5", "P_10"}]


def test_cli_several_runs_in_one_file_and_level(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(DATA / "qrels.txt"), str(DATA / "runs.txt"), "-q", "-c", "-M", "10", "-l", "2",
            "-m", "AP", "-m", "num_ret", "--format", "csv"]
    assert main(args) == 0
    result = pl.read_csv(io.StringIO(capsys.readouterr().out), schema_overrides={"query_id": pl.String})
    assert result.columns == ["run_id", "query_id", "metric", "value"]
    assert result["run_id"].unique(maintain_order=True).to_list() == ["bm25", "dense"]
    assert set(result["metric"]) == {"AP", "num_ret"}  # -l changes the values, not the labels
    assert result.filter(metric="num_ret", query_id="all")["value"].to_list() == [400.0, 400.0]
    # -l 2 is the one run-wide level: the same values as evaluate(rel=2)
    runs = fe.read_trec_run(DATA / "runs.txt").filter(run_id="bm25")
    qrels = fe.read_trec_qrels(DATA / "qrels.txt")
    expected = runs.ireval.summarize(qrels, ["AP"], complete=True, depth=10, rel=2)["value"][0]
    assert result.filter(run_id="bm25", metric="AP", query_id="all")["value"][0] == expected


def test_cli_reports_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(DATA / "qrels.txt"), str(DATA / "runs.txt"), "-m", "nDGC"]) == 1
    assert "closest known names: nDCG" in capsys.readouterr().err


def test_python_dash_m_entry_point() -> None:
    out = subprocess.run([sys.executable, "-m", "frame_eval", str(DATA / "qrels.txt"),
                          str(DATA / "runs.txt"), "-m", "num_q", "-m", "runid"], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["runid", "all", "bm25", "num_q", "all", "40",
                                  "runid", "all", "dense", "num_q", "all", "40"]


def test_quickstart_runs(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(ROOT / "examples" / "quickstart.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "nDCG@10" in out
    for text in ("Confusion counts per model", "macro-averaged", "ROC_AUC", "average_precision", "boosted"):
        assert text in out, text
    # every count column of the confusion table is shown, and the sample's counts are in it
    header = next(line for line in out.splitlines() if "┆ tp " in line)
    assert [cell.strip() for cell in header.strip("│").split("┆")] == [
        "model", "tp", "fp", "fn", "tn", "p", "n", "pp", "pn", "total"
    ]
    assert any(line.startswith("│ boosted") and "┆ 600 " in line for line in out.splitlines())


def test_sample_data_is_what_the_generator_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = runpy.run_path(str(ROOT / "examples" / "make_sample_data.py"))
    monkeypatch.setitem(module["main"].__globals__, "DATA", tmp_path)
    module["main"]()
    for name in ("qrels.txt", "runs.txt", "predictions.csv"):
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
