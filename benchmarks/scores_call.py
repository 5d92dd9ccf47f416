"""One ``.ireval.scores(..., by="model", metrics=["ROC_AUC", "AP"])`` call, timed in this process.

    python benchmarks/scores_call.py [--data benchmarks/data/10M] [--repeat 5] [--weighted | --steps]
    PYTHONPATH=<checkout of another revision> python benchmarks/scores_call.py

Prints the best wall and CPU seconds of ``--repeat`` calls on the predictions Parquet file
(read once, before timing), with the data checks as usual and with them left out (``attach``
given no checks), to tell the cost of the checks from the cost of the areas; and, taking turns
with the usual call, with every frame function run where polars calls it instead of on a thread
of its own (``frame_eval._own_thread``; a revision without it skips this). Run it with
``PYTHONPATH`` pointing at two checkouts in turn to compare revisions. With ``--weighted``, the
call takes ``weight="w"``, ``w = floor(1000 prob) mod 4 / 4`` as in ``added_parts.py`` (a quarter of
the weights 0); the sort of the unweighted keys alone is left out, and the weighted path's steps are
timed one at a time instead. With ``--steps``, the unweighted call's steps are timed one at a time
instead of the comparisons above (CPU seconds with the page faults they cause: on this machine a page
faulted in costs about 1.5 us, so a 10M-row column of 64 bits first touched costs about 0.03 s), with
the variants measured and dropped.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl


def best(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    wall = cpu = float("inf")
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        call()
        wall = min(wall, time.perf_counter() - began)
        cpu = min(cpu, time.process_time() - began_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "data" / "10M")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--weighted", action="store_true", help='scores(..., weight="w")')
    parser.add_argument("--steps", action="store_true", help="the unweighted call's steps one at a time")
    args = parser.parse_args()
    import frame_eval
    from frame_eval import _checks

    preds = pl.read_parquet(args.data / "predictions.parquet")
    weight = "w" if args.weighted else None
    if weight:
        preds = preds.with_columns((((pl.col("prob") * 1000.0).floor() % 4.0) * 0.25).alias(weight))

    def call() -> object:
        return preds.ireval.scores("label", "prob", by="model", metrics=["ROC_AUC", "AP"], weight=weight)

    print(f"frame_eval from {Path(frame_eval.__file__).parent}")
    if args.steps:
        _steps(preds, args.repeat)
        return
    wall, cpu = best(call, args.repeat)
    name = "weighted scores" if weight else "scores"
    print(f"{name}: best wall {wall:.3f} s, best CPU {cpu:.3f} s")
    attach = _checks.attach
    _checks.attach = lambda result, problems, *rest, **options: attach(result, [], *rest, **options)
    try:
        wall, cpu = best(call, args.repeat)
    finally:
        _checks.attach = attach
    print(f"{name} without the data checks: best wall {wall:.3f} s, best CPU {cpu:.3f} s")
    try:
        from frame_eval import _own_thread
    except ImportError:
        return
    if weight:
        with contextlib.suppress(ImportError, AttributeError):  # (a revision without these steps)
            _weighted_steps(preds, args.repeat)
    from frame_eval.classification import packed_points as pp

    # the sort of the packed keys alone: outside a plan, and in a streaming plan's frame function, run
    # where called and on a thread of its own
    packed = preds.select(
        (pl.col("model").hash() // 2).alias(pp._G), pl.col("label").alias(pp._L), pl.col("prob").alias(pp._S)
    ).select(pp.packed_key().alias("_key")) if hasattr(pp, "packed_key") and not weight else None
    if packed is not None:
        def sort(frame: pl.DataFrame) -> pl.DataFrame:
            return frame.get_column("_key").sort(descending=True).to_frame()

        for label, run in (
            ("outside a plan", lambda: sort(packed)),
            ("in a frame function", lambda: packed.lazy().map_batches(sort).collect(engine="streaming")),
            ("... on its own thread", lambda: packed.lazy().map_batches(_own_thread.on_own_thread(sort))
             .collect(engine="streaming")),
        ):
            wall, cpu = best(run, args.repeat)
            print(f"sort of the 10M packed keys {label}: best wall {wall:.3f} s, best CPU {cpu:.3f} s")
    rows = _own_thread.OWN_THREAD_ROWS
    times: dict[int, list[tuple[float, float]]] = {rows: [], 1 << 62: []}
    try:
        for _ in range(args.repeat):  # the two ways in turn
            for setting in times:
                _own_thread.OWN_THREAD_ROWS = setting
                times[setting].append(best(call, 1))
    finally:
        _own_thread.OWN_THREAD_ROWS = rows
    for setting, label in ((rows, "frame functions on their own thread"), (1 << 62, "... where called")):
        wall, cpu = min(w for w, _ in times[setting]), min(c for _, c in times[setting])
        print(f"{name}, {label}: best wall {wall:.3f} s, best CPU {cpu:.3f} s")


def _faults() -> tuple[float, int]:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_minflt


def _steps(preds: pl.DataFrame, repeat: int) -> None:
    """The unweighted ``scores()`` steps one at a time on the main thread, and the variants dropped: best
    CPU of ``repeat``, and the CPU and page faults of each step's first run in this process."""
    import functools

    from frame_eval import _float
    from frame_eval._own_thread import side_by_side
    from frame_eval.classification import grouped_scores as gs
    from frame_eval.classification import packed_points as pp

    rows = preds.select("model", pl.col("label").alias(pp._L), pl.col("prob").alias(pp._S))
    number = pp._group_hash(["model"])
    key = pp.packed_key(number).alias("_key")
    keys = rows.lazy().select(key).collect(engine="streaming").get_column("_key")
    ordered = keys.sort(descending=True)
    points = gs._points_of_rows(rows, number)
    names = ["ROC_AUC", "average_precision"]
    sums, terms = gs._area_terms(names)
    big, u64 = pl.UInt128, pl.UInt64
    order = pp._order(pl.col(pp._S))
    halves = (  # the key from two 64-bit halves, one 128-bit product and sum
        (number * pl.lit(2, u64) + order // pl.lit(1 << 63, u64)).cast(big) * pl.lit(1 << 64, big)
        + ((order % pl.lit(1 << 63, u64)) * pl.lit(2, u64) + pl.col(pp._L).cast(u64)).cast(big)
    ).alias("_key")

    def one_select() -> pl.DataFrame:  # both areas' terms in one select, then their sums side by side
        both = points.lazy().select(pp._G, *terms).collect(engine="in-memory")

        def summed(name: str, backwards: bool) -> pl.DataFrame:
            part = both.select(pp._G, name).filter(pl.col(name).is_not_null())
            part = part.reverse() if backwards else part
            runs = part.select(pl.col(pp._G).rle()).unnest(pp._G)
            total = _float.numpy_sums(part[name], runs["len"].to_list()).alias(name)
            return runs.select(pl.col("value").alias(pp._G), total)

        parts = side_by_side([functools.partial(summed, *item) for item in sums.items()], both.height)
        return parts[0].join(parts[1], on=pp._G, how="left", maintain_order="left")

    def streamed(*exprs: pl.Expr | str) -> pl.DataFrame:
        return rows.lazy().select(*exprs).collect(engine="streaming")

    for label, step in (
        ("the group table (one key: the Series' unique, as called)", lambda: rows["model"].unique()),
        ("... a frame's unique on the streaming engine", lambda: streamed(pl.col("model").unique())),
        ("... a frame's unique on the in-memory engine", lambda: rows.select("model").unique()),
        ("packed keys, streaming pass (as called)", lambda: streamed(key)),
        ("packed keys, one expression on the frame", lambda: rows.select(key)),
        ("... from two 64-bit halves (dropped)", lambda: streamed(halves)),
        ("sort of the packed keys", lambda: keys.sort(descending=True)),
        ("runs of the sorted keys", lambda: ordered.rle()),
        ("points from the rows (keys, sort, runs)", lambda: gs._points_of_rows(rows, number)),
        ("areas of the points (ROC AUC, AP)", lambda: gs.frame_point_areas(points, names)),
        ("... terms in one select, then the sums (dropped)", one_select),
    ):
        cpu_before, faults_before = _faults()
        step()
        cpu_after, faults_after = _faults()
        _, cpu = best(step, repeat)
        print(f"  {label}: best CPU {cpu:.3f} s; first {cpu_after - cpu_before:.3f} s, "
              f"{faults_after - faults_before} page faults")


def _weighted_steps(preds: pl.DataFrame, repeat: int) -> None:
    """The weighted path's steps one at a time, on this thread (best of ``repeat``): its checks of the
    weights, the list of groups, the packed keys on either engine, their sort whole (on every core and
    on one) and in one part of about half the rows (as the call splits them), and that part's points
    and areas."""
    from frame_eval.classification import exact_weights, frame_points
    from frame_eval.classification import packed_weighted as pw

    rows = preds.select("model", pl.col("label").alias("y"), pl.col("prob").alias("s"), "w")
    k = exact_weights.bounded_exponent(rows["w"])
    unit_bits = pw._unit_bits(rows, "w", k)
    guess = pw._Layout(pl.DataFrame(schema={pw.GROUP: pl.UInt64}), pw._KEY_BITS - unit_bits, unit_bits, 0)
    plan = rows.lazy().filter(pl.col("w") != 0).select(
        pw._key(pw._placed(["model"], guess), "y", "s", "w", k, unit_bits).alias("_key")
    )
    packed = plan.collect(engine="streaming").get_column("_key")
    part = pw._parts(rows, ["model"], "w", guess)[0]
    half = pw._keys(rows, ["model"], "y", "s", "w", k, guess, part)
    runs = half.sort(multithreaded=False).rle().struct.unnest()
    points = pw._points(runs, guess, k, None)
    print(f"weighted steps: {packed.len()} keys of weight above 0, {half.len()} in the first part")
    for label, step in (
        ("bound of the weights (null, NaN, min, max)", lambda: exact_weights.bounded_exponent(rows["w"])),
        ("every check of the weights (exact_sums)", lambda: exact_weights.exact_sums(rows["w"])),
        ("the groups (unique model strings)", lambda: pw._distinct(rows, ["model"])),
        ("keys, streaming engine", lambda: plan.collect(engine="streaming")),
        ("keys, in-memory engine", lambda: plan.collect(engine="in-memory")),
        ("sort of all keys, every core", lambda: packed.sort()),
        ("sort of all keys, one core", lambda: packed.sort(multithreaded=False)),
        ("a part's keys (its own streaming pass)", lambda: pw._keys(
            rows, ["model"], "y", "s", "w", k, guess, part)),
        ("a part's sort, one core", lambda: half.sort(multithreaded=False)),
        ("a part's sort and runs, one core", lambda: half.sort(multithreaded=False).rle()),
        ("a part's points from its runs", lambda: pw._points(runs, guess, k, None)),
        ("a part's areas (ROC AUC, AP)", lambda: frame_points._group_areas(
            points.lazy(), ["ROC_AUC", "average_precision"]).collect(engine="in-memory")),
    ):
        wall, cpu = best(step, repeat)
        print(f"  {label}: best wall {wall:.3f} s, best CPU {cpu:.3f} s")


if __name__ == "__main__":
    main()
