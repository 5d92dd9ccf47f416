"""``frame-eval`` on bad input: one line on standard error naming the file, the line and what was
expected; trec_eval's exit status; nothing written to ``--output``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq2 Q0 d3 1 0.5 sys\n"


def frame_eval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "frame_eval", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=False)


def _files(tmp_path: Path, qrels: str = QRELS, run: str = RUN) -> tuple[Path, Path]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return tmp_path / "qrels", tmp_path / "run"


def _one_line_error(done: subprocess.CompletedProcess[str], status: int, *parts: str) -> None:
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("frame-eval: ")
    for part in parts:
        assert part in lines[0], (part, lines[0])


BAD_RUNS = {
    "too few fields": ("q1 Q0 d1 1 2.5 sys\n# note\n\nq1 Q0 d2 2 1.5\n", "line 4: 5 field(s), expected 6"),
    "non-numeric score": ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 high sys\n", "line 2: score high is not a number"),
    "first of several": ("q1 Q0 d1 1 x sys\nq1 Q0 d2\n", "line 1: score x is not a number"),
    "duplicate document": ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5 sys\nq1 Q0 d1 3 0.5 sys\n",
                           "line 3: document 'd1' of query 'q1' appears again (first at line 1)"),
    "empty file": ("", "holds no results"),
    "only comments": ("# nothing\n\n", "holds no results"),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_malformed_run(tmp_path: Path, case: str) -> None:
    text, expected = BAD_RUNS[case]
    qrels, run = _files(tmp_path, run=text)
    _one_line_error(frame_eval(qrels, run), 2, f"run file {str(run)!r}", expected)


BAD_QRELS = {
    "too many fields": ("q1 0 d1 1\nq1 0 d2 0 extra\n", "line 2: 5 fields, expected 4"),
    "non-integer relevance": ("q1 0 d1 1\nq1 0 d2 0.5\n", "line 2: relevance 0.5 is not a whole number"),
    "duplicate judgement": ("q1 0 d1 1\nq1 0 d1 0\n", "line 2: document 'd1' of query 'q1' appears again"),
    "empty file": ("", "holds no judgements"),
}


@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_malformed_qrels(tmp_path: Path, case: str) -> None:
    text, expected = BAD_QRELS[case]
    qrels, run = _files(tmp_path, qrels=text)
    _one_line_error(frame_eval(qrels, run), 2, f"qrels file {str(qrels)!r}", expected)


def test_missing_file_unknown_measure_usage_and_no_shared_query(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    _one_line_error(frame_eval(qrels, tmp_path / "nope"), 2, "no such file", "nope")
    _one_line_error(frame_eval("-m", "nDGC@10", qrels, run), 1, "illegal measure 'nDGC@10'", "nDCG")
    _one_line_error(frame_eval("-m", "P.0", qrels, run), 1, "cutoff")
    _one_line_error(frame_eval("-M", "0", qrels, run), 1, "-M 0")
    _one_line_error(frame_eval("-m", "map", "-R", "prefs", qrels, run), 1, "cannot be computed from -R prefs")
    _one_line_error(frame_eval(qrels), 1, "expected a judgements file")
    _one_line_error(frame_eval("--bogus", qrels, run), 1, "unrecognized arguments")
    _one_line_error(frame_eval("-R", "nonsense", qrels, run), 2, "illegal rel_format 'nonsense'")
    _one_line_error(frame_eval("-T", "other", qrels, run), 2, "illegal retrieval results format")
    (tmp_path / "other").write_text("q9 Q0 d1 1 2.5 sys\n")
    _one_line_error(frame_eval(qrels, tmp_path / "other"), 7, "no queries with both results and relevance")


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json", "tidy"])
def test_nothing_half_written_on_error(tmp_path: Path, fmt: str) -> None:
    qrels, run = _files(tmp_path)
    bad = tmp_path / "bad"
    bad.write_text(RUN + "q2 Q0 d9 2 oops sys\n")
    out = tmp_path / f"result.{fmt}"
    done = frame_eval("--format", fmt, "--output", out, qrels, run, bad)
    _one_line_error(done, 2, "line 4")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "qrels", "run"]  # no temporary left
    assert frame_eval("--format", fmt, "--output", out, qrels, run).returncode == 0
    assert out.stat().st_size > 0
