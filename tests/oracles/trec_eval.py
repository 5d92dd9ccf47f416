"""The trec_eval 10.0 reference binary (built from ../shared/trec_eval), printing full precision.

``build(dest)`` builds it once with ``../shared/trec_eval/build.sh`` and compiles a
tiny ``printf`` wrapper (``full_precision_printf.c``, ours) that makes it print
every value with 17 significant digits, so tests compare values with ``==``.
Both need a C compiler; :func:`build` returns ``None`` with the reason when the
source or a compiler is missing, for the caller to skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import polars as pl

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "trec_eval"
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class TrecEval:
    binary: Path
    preload: Path

    def run(self, qrels: Path, run: Path, *args: str) -> str:
        """trec_eval's standard output for these files and options (values at full precision)."""
        env = {**os.environ, "LD_PRELOAD": str(self.preload)}
        done = subprocess.run([str(self.binary), *args, str(qrels), str(run)], capture_output=True,
                              text=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"trec_eval {' '.join(args)} failed ({done.returncode}): {done.stderr}")
        return done.stdout

    def values(self, qrels: Path, run: Path, *args: str) -> dict[tuple[str, str], float]:
        """``{(measure, query): value}`` from ``-q`` output (``query`` is ``all`` for summaries)."""
        out = {}
        for line in self.run(qrels, run, *args).splitlines():
            name, query, value = line.split("\t")
            if name.strip() != "runid":
                out[(name.strip(), query)] = float(value)
        return out


def build(dest: Path) -> TrecEval | str:
    """The reference binary, or the reason it cannot be had here."""
    script = SHARED / "build.sh"
    if not script.is_file():
        return f"trec_eval source not found at {SHARED}"
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None or shutil.which("make") is None:
        return "no C compiler or make on this machine"
    done = subprocess.run(["bash", str(script), str(dest / "trec_eval")], capture_output=True, text=True)
    if done.returncode != 0:
        return f"building trec_eval failed: {done.stderr.strip()}"
    preload = dest / "full_precision_printf.so"
    done = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(preload),
                           str(HERE / "full_precision_printf.c")], capture_output=True, text=True)
    if done.returncode != 0:
        return f"compiling the printf wrapper failed: {done.stderr.strip()}"
    return TrecEval(dest / "trec_eval" / "trec_eval", preload)


def write_run(run: pl.DataFrame, path: Path, run_id: str = "frame_eval") -> None:
    """A TREC run file (``query Q0 doc rank score run_id``); scores in full precision."""
    lines = [f"{q} Q0 {d} {i} {s!r} {run_id}" for i, (q, d, s) in enumerate(
        run.select("query_id", "doc_id", "score").iter_rows())]
    path.write_text("\n".join(lines) + "\n")


def write_qrels(qrels: pl.DataFrame, path: Path) -> None:
    lines = [f"{q} 0 {d} {r}" for q, d, r in qrels.select("query_id", "doc_id", "relevance").iter_rows()]
    path.write_text("\n".join(lines) + "\n")
