"""TREC readers and writers, and the command line on Parquet, CSV and Arrow IPC inputs."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import frame_eval as fe
from frame_eval import io as fe_io

ROOT = Path(__file__).resolve().parents[1]


def frame_eval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "frame_eval", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=False)


RUN_TEXT = ("# a comment\nq1 Q0 d1 1 2.5 sysA\n\n  q1\tQ0  d2 x 1.5e0 sysA trailing junk\n"
            " q2 Q0 d#3 1 -0.5 sysA\n")


def test_run_reader_whitespace_comments_and_columns(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    path.write_text(RUN_TEXT)
    frame = fe.scan_trec_run(path)
    assert isinstance(frame, pl.LazyFrame)
    got = frame.collect()
    assert got.columns == ["query_id", "doc_id", "rank_in_file", "score", "run_id"]
    assert got.rows() == [("q1", "d1", 1, 2.5, "sysA"), ("q1", "d2", None, 1.5, "sysA"),
                          ("q2", "d#3", 1, -0.5, "sysA")]
    assert frame.collect(engine="streaming").equals(got)


def test_gzip_glob_and_several_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("q1 Q0 d1 1 2.5 A\n")
    with gzip.open(tmp_path / "b.txt.gz", "wt") as out:
        out.write("q1 Q0 d1 1 0.5 B\n")
    both = fe.read_trec_run(str(tmp_path / "*.txt*"))
    assert both.rows() == [("q1", "d1", 1, 2.5, "A"), ("q1", "d1", 1, 0.5, "B")]
    assert fe.read_trec_run([tmp_path / "a.txt", tmp_path / "b.txt.gz"]).equals(both)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        fe.scan_trec_run(str(tmp_path / "*.nothing"))


def test_first_malformed_line_is_named_whatever_the_engine(tmp_path: Path) -> None:
    lines = [f"q{i} Q0 d{i} 1 {i}.5 s" for i in range(20_000)]
    lines[12_345] = "q Q0 d 1 bad s"
    lines[17_000] = "q Q0 d"
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    for engine in ("in-memory", "streaming"):
        with pytest.raises(ValueError, match=r"line 12346: score bad is not a number"):
            fe.scan_trec_run(tmp_path / "run").collect(engine=engine)


def test_prefs_reader(tmp_path: Path) -> None:
    (tmp_path / "prefs").write_text("q1 u1 s1 d1 3\nq1 u1 s1 d2 1.5\n")
    assert fe.read_trec_prefs(tmp_path / "prefs").rows() == [("q1", "u1", "s1", "d1", 3.0),
                                                             ("q1", "u1", "s1", "d2", 1.5)]
    (tmp_path / "prefs").write_text("q1 u1 s1 d1\n")
    with pytest.raises(ValueError, match=r"4 field.*expected 5"):
        fe.read_trec_prefs(tmp_path / "prefs")


def test_writers_round_trip(tmp_path: Path) -> None:
    run = pl.DataFrame({"query_id": ["q2", "q1", "q1"], "doc_id": ["a", "b", "c"],
                        "score": [0.1, 1 / 3, 1 / 3], "run_id": ["r", "r", "r"]})
    fe.write_trec_run(run, tmp_path / "run.txt")
    assert (tmp_path / "run.txt").read_text().splitlines()[:2] == [
        f"q1 Q0 c 1 {1 / 3!r} r", f"q1 Q0 b 2 {1 / 3!r} r"]  # trec_eval's order: ties by doc_id descending
    back = fe.read_trec_run(tmp_path / "run.txt").sort("query_id", "doc_id")
    assert back.select("query_id", "doc_id", "score").equals(run.select("query_id", "doc_id", "score")
                                                             .sort("query_id", "doc_id"))
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "relevance": [2, 0]})
    fe.write_trec_qrels(qrels.lazy(), tmp_path / "qrels.txt.gz")
    assert fe.read_trec_qrels(tmp_path / "qrels.txt.gz").equals(qrels.sort("doc_id"))
    with pytest.raises(ValueError, match="holds whitespace"):
        fe.write_trec_run(run.with_columns(doc_id=pl.lit("a b")), tmp_path / "bad.txt")
    assert not (tmp_path / "bad.txt").exists()


QUICK = [  # the quicktests whose inputs are standard qrels and runs
    ("qrels.test", "results.test", []),
    ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    ("qrels.rel_level", "results.test", ["-m", "all_trec", "-q", "-l2"]),
]


@pytest.mark.parametrize(("qrels_name", "run_name", "options"), QUICK)
@pytest.mark.parametrize("ext", ["parquet", "csv", "arrow"])
def test_table_inputs_give_the_text_files_values(trec_dir: Path, tmp_path: Path, qrels_name: str,
                                                 run_name: str, options: list[str], ext: str) -> None:
    run = fe.read_trec_run(trec_dir / run_name)
    qrels = fe.read_trec_qrels(trec_dir / qrels_name)
    writers = {"parquet": "write_parquet", "csv": "write_csv", "arrow": "write_ipc"}
    getattr(run, writers[ext])(tmp_path / f"run.{ext}")
    getattr(qrels, writers[ext])(tmp_path / f"qrels.{ext}")
    text = frame_eval(*options, "--format", "csv", trec_dir / qrels_name, trec_dir / run_name)
    table = frame_eval(*options, "--format", "csv", tmp_path / f"qrels.{ext}", tmp_path / f"run.{ext}")
    assert text.returncode == table.returncode == 0, table.stderr
    ids = {"query_id": pl.String}
    read = [pl.read_csv(io.StringIO(x.stdout), schema_overrides=ids) for x in (text, table)]
    assert read[0].height > 20
    assert read[0].equals(read[1])


def test_several_runs_and_output_formats(trec_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.write_text((trec_dir / "results.test").read_text().replace("STANDARD", "OTHER"))
    qrels, run = trec_dir / "qrels.test", trec_dir / "results.test"
    trec = frame_eval(qrels, run, other)
    single = (trec_dir / "out.test").read_text()
    assert trec.stdout == single + single.replace("STANDARD", "OTHER")
    frame_eval("-q", "--format", "parquet", "--output", tmp_path / "out.parquet", qrels, run, other)
    table = pl.read_parquet(tmp_path / "out.parquet")
    assert table.columns == ["run_id", "query_id", "metric", "value"]
    assert table["run_id"].unique(maintain_order=True).to_list() == ["STANDARD", "OTHER"]
    assert table.filter(run_id="STANDARD", query_id="all", metric="map")["value"].round(4).item() == 0.1785
    as_json = json.loads(frame_eval("-q", "--format", "json", qrels, run, other).stdout)
    assert len(as_json) == table.height and as_json[0].keys() == {"run_id", "query_id", "metric", "value"}
    tidy = frame_eval("-q", "--format", "tidy", qrels, run).stdout.splitlines()
    assert tidy[0] == "run_id\tquery_id\tmetric\tvalue" and tidy[1].startswith("STANDARD\t301\tnum_ret\t")
    assert frame_eval("--format", "parquet", qrels, run).returncode == 1  # parquet needs --output


def test_fast_and_general_readers_agree(tmp_path: Path) -> None:
    text = "".join(f"q{i % 7} Q0 d{i} {i} {i / 7!r} run\n" for i in range(500))
    (tmp_path / "single").write_text(text)
    (tmp_path / "tabs").write_text(text.replace(" ", "\t"))
    fast = fe_io.read_single_spaced(str(tmp_path / "single"), fe_io._RUN)
    assert fast is not None
    assert fe_io.read_single_spaced(str(tmp_path / "tabs"), fe_io._RUN) is None  # the general reader's work
    assert fast.equals(fe.read_trec_run(tmp_path / "single"))
    assert fast.equals(fe.read_trec_run(tmp_path / "tabs"))


def test_progress_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from frame_eval import cli

    progress = cli._Progress()
    progress.start -= 10  # as if the work had taken a while
    progress("reading")
    assert capsys.readouterr().err == ""  # pytest's stderr is not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    progress = cli._Progress()
    progress.start -= 10
    progress("reading")
    progress.done()
    assert "frame-eval: reading" in capsys.readouterr().err


def test_run_from_standard_input(trec_dir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "frame_eval", str(trec_dir / "qrels.test"), "-"],
                          input=(trec_dir / "results.test").read_bytes(), capture_output=True, cwd=ROOT,
                          env=env, check=False)
    assert done.returncode == 0 and done.stdout == (trec_dir / "out.test").read_bytes()
    bad = subprocess.run([sys.executable, "-m", "frame_eval", str(trec_dir / "qrels.test"), "-"],
                         input=b"301 Q0 d 1 x r\n", capture_output=True, cwd=ROOT, env=env)
    assert bad.returncode == 2
    assert bad.stderr.decode() == ("frame-eval: run file '-' (standard input), line 1: score x is not a "
                                   "number; the line reads 301 Q0 d 1 x r\n")


def test_help_and_version() -> None:
    helped = frame_eval("-h", "-m", "map", "-m", "P.5")
    assert helped.returncode == 0
    assert "trec_eval 9.x did" in helped.stdout.replace("\n", " ") or "9.x did" in helped.stdout
    assert "map\n    average precision" in helped.stdout and "P\n    precision at k" in helped.stdout
    assert frame_eval("-v").stdout.startswith("frame-eval version ")


def test_each_file_is_scanned_once_per_collect(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("q1 Q0 d1 1 2.5 A\n")
    (tmp_path / "b").write_text("q1 Q0 d1 1 0.5 B\n")
    plan = fe.scan_trec_run([tmp_path / "a", tmp_path / "b"]).explain()
    # the rows and the malformed-line check share one cached scan of each file
    assert plan.count("SCAN [") == 2 and "CACHE" in plan
