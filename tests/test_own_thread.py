"""Frame functions run on a thread of their own (``frame_eval._own_thread``) give the same frames and
raise the same errors as run in place, on either engine and any thread count (no deadlock with one)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import frame_eval  # noqa: F401
from frame_eval import _own_thread
from frame_eval._own_thread import on_own_thread, side_by_side

ROOT = Path(__file__).resolve().parent.parent


def _predictions(n: int = 20_000, seed: int = 5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return pl.DataFrame({
        "model": rng.choice(["m0", "m1", "m2", "m3"], n),
        "y": y,
        "s": np.round(rng.random(n) * 0.6 + 0.3 * y, 3),
    })


def _scores(frame: pl.DataFrame | pl.LazyFrame, engine: str = "auto") -> pl.DataFrame:
    metrics = ["ROC_AUC", "AP", "PR_AUC", "EER"]
    result = frame.ireval.scores("y", "s", by="model", metrics=metrics)
    return result.collect(engine=engine) if isinstance(result, pl.LazyFrame) else result


def test_scores_are_the_same_frames_on_a_thread_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the in-memory engine, which calls frame functions on its own threads, in the subprocess test below)
    frame = _predictions()
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 10**12)
    in_place = [_scores(frame), _scores(frame.lazy(), "streaming")]
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)
    apart = [_scores(frame), _scores(frame.lazy(), "streaming")]
    for want, got in zip(in_place, apart, strict=True):
        assert got.equals(want)
    assert apart[0].height == 4 * 4


def test_the_function_runs_apart_from_a_size_on() -> None:
    seen: list[int] = []

    def where(frame: pl.DataFrame) -> pl.DataFrame:
        seen.append(threading.get_ident())
        return frame

    small, large = pl.DataFrame({"a": [1, 2]}), pl.DataFrame({"a": range(_own_thread.OWN_THREAD_ROWS)})
    assert on_own_thread(where)(small) is small
    assert on_own_thread(where)(large) is large
    assert seen[0] == threading.get_ident() != seen[1]
    # called elsewhere than on the main thread (as the in-memory engine calls it), it stays there
    other = threading.Thread(target=lambda: on_own_thread(where)(large))
    other.start()
    other.join()
    assert seen[2] == other.ident


def test_errors_come_through_as_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)

    def refuse(frame: pl.DataFrame) -> pl.DataFrame:
        raise ValueError(f"no thanks: {frame.height} rows")

    with pytest.raises(ValueError, match="no thanks: 3 rows"):
        on_own_thread(refuse)(pl.DataFrame({"a": [1, 2, 3]}))
    plan = pl.LazyFrame({"a": [1, 2, 3]}).map_batches(on_own_thread(refuse), schema={"a": pl.Int64})
    for engine in ("in-memory", "streaming"):
        with pytest.raises(Exception, match="no thanks: 3 rows"):
            plan.collect(engine=engine)  # type: ignore[call-overload]


def test_side_by_side_gives_the_results_in_order_and_raises_the_first_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 0)
    where: list[threading.Thread] = []

    def piece(i: int) -> int:
        where.append(threading.current_thread())
        return i * i

    assert side_by_side([lambda i=i: piece(i) for i in range(4)], rows=1) == [0, 1, 4, 9]
    assert len(set(where)) == 4  # each but the first on a thread of its own
    assert threading.current_thread() in where
    where.clear()
    assert side_by_side([lambda i=i: piece(i) for i in range(4)], rows=-1) == [0, 1, 4, 9]
    assert set(where) == {threading.current_thread()}  # too small: here, one after the other

    def fail(message: str) -> int:
        raise ValueError(message)

    with pytest.raises(ValueError, match="first"):
        side_by_side([lambda: fail("first"), lambda: fail("second")], rows=1)
    with pytest.raises(ValueError, match="second"):
        side_by_side([lambda: 1, lambda: fail("second")], rows=1)
    # a thread that is neither the main thread nor one of ours (a polars worker) does not wait for others
    seen: list[set[threading.Thread]] = []
    other = threading.Thread(target=lambda: seen.append(
        {threading.current_thread(), *side_by_side([threading.current_thread] * 3, rows=1)}
    ))
    other.start()
    other.join()
    assert seen == [{other}]


def test_in_background_begins_at_once_and_gives_its_result_or_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_own_thread, "OWN_THREAD_ROWS", 10)
    where: list[threading.Thread] = []

    def count() -> int:
        where.append(threading.current_thread())
        return pl.DataFrame({"a": [3, 1, 2]}).select(pl.col("a").sort().first()).item()

    pending = _own_thread.in_background(count, rows=10)
    assert pending() == 1 and pending() == 1 and len(where) == 1
    assert where[0] is not threading.current_thread()  # begun on a thread of its own
    later = _own_thread.in_background(count, rows=9)  # too few rows: run here, when first asked
    assert len(where) == 1
    assert later() == 1 and later() == 1 and where[1:] == [threading.current_thread()]

    def fail() -> int:
        raise ValueError("counted wrong")

    for rows in (10, 9):
        failing = _own_thread.in_background(fail, rows=rows)
        with pytest.raises(ValueError, match="counted wrong"):
            failing()


SCRIPT = r"""
import sys
import polars as pl
import frame_eval
from frame_eval import _own_thread
from frame_eval.classification import frame_points
sys.path.insert(0, sys.argv[3])
from test_own_thread import _predictions, _scores
_own_thread.OWN_THREAD_ROWS = int(sys.argv[2])
frame = _predictions(seed=9)
results = [_scores(frame), _scores(frame.lazy(), "streaming"), _scores(frame.lazy(), "in-memory")]
quarters = frame.with_columns(w=(pl.col("s") * 4).floor() / 4).lazy()
weighted = quarters.ireval.scores("y", "s", by="model", weight="w")
results += [weighted.collect(engine="in-memory"), weighted.collect(engine="streaming")]
frame_points.PACKED_ROWS = 0  # now the exact weights' packed sort, however few the rows
results += [weighted.collect(engine="in-memory"), weighted.collect(engine="streaming")]
pl.concat(results).write_ipc(sys.argv[1])
"""


def test_any_thread_count_gives_the_same_bits(tmp_path: Path) -> None:
    script = tmp_path / "apart.py"
    script.write_text(SCRIPT)
    frames = []
    for threads, rows in [("1", "0"), ("2", "0"), ("8", "0"), ("1", str(10**12))]:
        out = tmp_path / f"{threads}-{rows}.arrow"
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, str(script), str(out), rows, str(ROOT / "tests")], check=True,
                       env=env, cwd=ROOT, timeout=120)
        frames.append(pl.read_ipc(out))
    assert all(f.equals(frames[0]) for f in frames[1:])
    assert frames[0].height == 7 * 4 * 4
