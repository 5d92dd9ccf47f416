"""``frame-eval`` against trec_eval 10.0: its own test suite byte for byte, and the binary on random runs.

Each command line of trec_eval's ``make quicktest`` (listed in ../shared/trec_eval/README.md)
is run as ``python -m frame_eval`` from the repository root and its standard output
compared byte for byte with the expected file. Random runs and qrels are evaluated by
the reference binary (its ordinary 4-decimal output) and by frame-eval, with -q, -c,
-M, -l, -J, -n and several measures, and the outputs compared byte for byte.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (expected file, trec_eval arguments), as in ../shared/trec_eval/README.md
QUICKTESTS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test",
    ]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
]
FILES = {"qrels.test", "qrels.test.with-comments", "qrels.comment.test", "results.comment.test",
         "results.test", "results.trunc", "qrels.rel_level", "prefs.test", "prefs.comment.test",
         "prefs.results.test", "qrels.123", "qrels.comments.123", "zscores_file"}


def frame_eval(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command as a user runs it, from this checkout (not an installed copy)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "frame_eval", *args], capture_output=True,
                          cwd=cwd or ROOT, env=env, check=False)


def _resolve(args: list[str], trec_dir: Path) -> list[str]:
    return [str(trec_dir / a) if a in FILES else a for a in args]


@pytest.mark.parametrize(("expected", "args"), QUICKTESTS, ids=[" ".join(a) for _, a in QUICKTESTS])
def test_quicktest_byte_for_byte(trec_dir: Path, expected: str, args: list[str]) -> None:
    done = frame_eval(*_resolve(args, trec_dir))
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert done.stdout == (trec_dir / expected).read_bytes()


def test_console_script_is_frame_eval() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["frame-eval"] == "frame_eval.cli:main"


# ---------------------------------------------------------------- random runs against the binary


def _random_case(seed: int, tmp: Path) -> tuple[Path, Path]:
    rng = random.Random(seed)
    queries = [str(q) for q in rng.sample(range(1, 60), rng.randint(1, 6))]
    qrels_lines, run_lines = [], []
    for q in queries:
        docs = [f"d{rng.randint(0, 80)}" for _ in range(60)]
        docs = list(dict.fromkeys(docs))
        judged = rng.sample(docs, k=min(len(docs), rng.randint(1, 30)))
        for d in judged:
            qrels_lines.append(f"{q} 0 {d} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}")
        judged_extra = [f"x{q}_{i}" for i in range(rng.randint(0, 4))]
        for d in judged_extra:
            qrels_lines.append(f"{q} 0 {d} {rng.choice([0, 1, 2])}")
        retrieved = rng.sample(docs, k=rng.randint(1, len(docs)))
        if judged[0] not in retrieved:  # under -J trec_eval prints -nan for a query with no judged document
            retrieved.append(judged[0])
        for rank, d in enumerate(retrieved):
            score = rng.choice([round(rng.random(), 2), rng.randint(0, 5), rng.random()])
            sep = rng.choice([" ", "\t", "  ", " \t "])
            run_lines.append(sep.join([q, "Q0", d, str(rank), repr(float(score)), f"run{seed}"]))
    rng.shuffle(run_lines)
    rng.shuffle(qrels_lines)
    qrels, run = tmp / f"qrels{seed}", tmp / f"run{seed}"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


OPTION_SETS = [
    ["-q"],
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-M", "7", "-m", "all_trec"],
    ["-q", "-l", "2", "-m", "all_trec", "-m", "relstring.15"],
    ["-q", "-J", "-m", "official", "-m", "ndcg_cut.3,5"],
    ["-n", "-q", "-m", "P.1,2,3", "-m", "map_cut.4", "-m", "success.1,2"],
    # not -c with -l: trec_eval's summary num_rel then counts judgements > 0, ignoring -l (README)
    ["-c", "-M3", "-m", "set", "-m", "utility.3,-2,1,0", "-N", "500"],
    ["-q", "-c", "-l2", "-m", "map", "-m", "P.5", "-m", "ndcg", "-m", "bpref"],
    ["-q", "-m", "Rprec_mult.0.5,1.5", "-m", "iprec_at_recall..3,.9", "-m", "rbp.p=0.5", "-m", "unj.1,3"],
    ["-q", "-c", "-M", "9", "-m", "yaap", "-m", "map"],
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", OPTION_SETS, ids=[" ".join(o) for o in OPTION_SETS])
def test_random_runs_match_the_binary(trec_eval_binary, tmp_path: Path, seed: int,  # type: ignore[no-untyped-def]
                                      options: list[str]) -> None:
    qrels, run = _random_case(seed, tmp_path)
    expected = subprocess.run([str(trec_eval_binary.binary), *options, str(qrels), str(run)],
                              capture_output=True, check=False)
    assert expected.returncode == 0, expected.stderr.decode()
    got = frame_eval(*options, str(qrels), str(run))
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == expected.stdout.decode()


JG_OPTIONS = [["-q", "-m", "qrels_jg"], ["-q", "-c", "-M", "9", "-l", "2", "-m", "qrels_jg"],
              ["-m", "P_avgjg.1,3", "-m", "Rprec_mult_avgjg.0.5,1.5", "-J"]]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("options", JG_OPTIONS, ids=[" ".join(o) for o in JG_OPTIONS])
def test_random_judgement_groups_match_the_binary(trec_eval_binary, tmp_path: Path, seed: int,  # type: ignore[no-untyped-def]
                                                   options: list[str]) -> None:
    qrels, run = _random_case(seed, tmp_path)
    rng = random.Random(seed)
    lines = qrels.read_text().splitlines()
    grouped = []
    for line in lines:
        q, _, d, r = line.split()
        for group in rng.sample(["ann", "bob", "cy"], k=rng.randint(1, 3)):
            grouped.append(f"{q} {group} {d} {rng.choice([r, '0', '1', '2'])}")
    qrels.write_text("\n".join(grouped) + "\n")
    args = [*options, "-R", "qrels_jg", str(qrels), str(run)]
    expected = subprocess.run([str(trec_eval_binary.binary), *args], capture_output=True, check=False)
    assert expected.returncode == 0, expected.stderr.decode()
    got = frame_eval(*args)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == expected.stdout.decode()


PREFS_OPTIONS = [["-q", "-m", "all_prefs", "-R", "prefs"],
                 ["-q", "-c", "-M", "6", "-m", "all_prefs", "-R", "prefs"],
                 ["-q", "-m", "all_prefs", "-R", "qrels_prefs"]]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", PREFS_OPTIONS, ids=[" ".join(o) for o in PREFS_OPTIONS])
def test_random_preferences_match_the_binary(trec_eval_binary, tmp_path: Path, seed: int,  # type: ignore[no-untyped-def]
                                             options: list[str]) -> None:
    qrels, run = _random_case(seed, tmp_path)
    if "prefs" in options:  # preference lines: consistent hidden levels, several users and subgroups
        rng = random.Random(seed)
        lines = []
        for q in sorted({line.split()[0] for line in qrels.read_text().splitlines()}):
            docs = [line.split()[2] for line in qrels.read_text().splitlines() if line.split()[0] == q]
            for user in rng.sample(["u1", "u2", "u3"], k=rng.randint(1, 3)):
                level = {d: rng.choice([0, 0, 1, 2, 3]) for d in docs}
                for sub in rng.sample(["a", "b", "c"], k=rng.randint(1, 3)):
                    for d in rng.sample(docs, k=min(len(docs), rng.randint(2, 12))):
                        lines.append(f"{q} {user} {sub} {d} {level[d]}")
        qrels.write_text("\n".join(lines) + "\n")
    else:  # no negative judgements: with a class below 0 trec_eval's prefs_avgjg_Rnonrel reads past its
        # array when it cuts the non-relevant documents to R (undefined; see the README)
        qrels.write_text(qrels.read_text().replace(" -1\n", " 0\n"))
    args = [*options, str(qrels), str(run)]
    expected = subprocess.run([str(trec_eval_binary.binary), *args], capture_output=True, check=False)
    assert expected.returncode == 0, expected.stderr.decode()
    got = frame_eval(*args)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == expected.stdout.decode()
