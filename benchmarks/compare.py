"""Time one benchmark tool at two git revisions of frame_eval, in alternating fresh processes.

    python benchmarks/compare.py 2cc720a HEAD --tool frame_eval --data benchmarks/data/10M --rounds 4

The machine's speed drifts within minutes, so a change is judged by running the old
and the new code turn about (A, B, A, B, ...), each in its own process started from
a ``git worktree`` of its revision, with ``benchmarks/tools.py`` of the current
checkout timing the tool (Parquet to per-query results, as in ``run.py``). Prints
the median and best seconds, the median CPU seconds (user and system: steadier than
wall time when other work shares the machine) and the median peak resident memory of
each revision.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def _time_once(checkout: Path, tool: str, data: Path, out: Path) -> tuple[float, float, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # that revision's frame_eval comes first
    proc = subprocess.run(
        [sys.executable, str(HERE / "tools.py"), tool, str(data), str(out)],
        capture_output=True, text=True, env=env, cwd=checkout, check=True,
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result["seconds"], result["cpu_seconds"], result["peak_mb"]


def compare(
    revisions: list[str], tool: str, data: Path, rounds: int
) -> dict[str, list[tuple[float, float, float]]]:
    """``{revision: [(seconds, CPU seconds, peak MB), ...]}``, ``rounds`` runs each, taken in turn."""
    timings: dict[str, list[tuple[float, float, float]]] = {rev: [] for rev in revisions}
    with tempfile.TemporaryDirectory() as tmp:
        checkouts = {}
        for i, rev in enumerate(revisions):
            checkouts[rev] = Path(tmp) / f"rev{i}"
            _git("worktree", "add", "--detach", "--quiet", str(checkouts[rev]), rev)
        try:
            for _ in range(rounds):
                for rev in revisions:
                    timings[rev].append(_time_once(checkouts[rev], tool, data, Path(tmp) / "out.parquet"))
        finally:
            for path in checkouts.values():
                _git("worktree", "remove", "--force", str(path))
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("revisions", nargs=2, help="two git revisions, e.g. 2cc720a HEAD")
    parser.add_argument("--tool", default="frame_eval", help="a tool of benchmarks/tools.py")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "10M")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    timings = compare(args.revisions, args.tool, args.data.resolve(), args.rounds)
    for rev, runs in timings.items():
        seconds = [s for s, _, _ in runs]
        print(
            f"{rev:>12s} {args.tool}: median {statistics.median(seconds):.2f} s, best {min(seconds):.2f} s, "
            f"CPU median {statistics.median(c for _, c, _ in runs):.2f} s, "
            f"peak {statistics.median(mb for _, _, mb in runs):.0f} MB ({len(runs)} runs)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
