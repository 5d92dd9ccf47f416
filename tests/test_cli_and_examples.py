"""The command line and the runnable examples."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from frame_eval.cli import main, run_cli

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"


def test_cli_matches_trec_eval_summary_lines(trec_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(trec_dir / "qrels.test"), str(trec_dir / "results.test"), "-m", "map",
                 "-m", "num_rel_ret", "-m", "P.5,10"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    got = {(name.strip(), query): value for name, query, _, value in lines}
    rows = [line.split() for line in (trec_dir / "out.test").read_text().splitlines()]
    expected = {(name, query): value for name, query, value in rows}
    assert got[("AP", "all")] == expected[("map", "all")] == "0.1785"
    assert got[("NumRelRet", "all")] == expected[("num_rel_ret", "all")] == "131"
    assert got[("P@10", "all")] == expected[("P_10", "all")]


def test_cli_per_query_two_runs_and_options() -> None:
    result = run_cli([str(DATA / "qrels.txt"), str(DATA / "runs.txt"), "-q", "-c", "-M", "10",
                      "-l", "2", "-m", "AP", "-m", "NumRet"])
    assert result.columns == ["run_id", "query_id", "metric", "value"]
    assert set(result["run_id"]) == {"bm25", "dense"}
    assert set(result["metric"]) == {"AP(rel=2)", "NumRet"}
    assert result.filter(metric="NumRet", query_id="all")["value"].to_list() == [400.0, 400.0]


def test_cli_reports_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(DATA / "qrels.txt"), str(DATA / "runs.txt"), "-m", "nDGC"]) == 2
    assert "closest known names: nDCG" in capsys.readouterr().err


def test_python_dash_m_entry_point() -> None:
    out = subprocess.run([sys.executable, "-m", "frame_eval", str(DATA / "qrels.txt"),
                          str(DATA / "runs.txt"), "-m", "NumQ"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["NumQ", "all", "bm25", "40", "NumQ", "all", "dense", "40"]


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
