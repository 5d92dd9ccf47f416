"""The wall and CPU seconds of a call repeated in this process (the call-by-call scripts' clock)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_times(step: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """``(wall s, CPU s, the last call's value)``: the medians of ``repeat`` calls of ``step``, each taken
    on its own (so a slow first call moves the median, not the figure)."""
    runs, value = [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        value = step()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    walls, cpus = sorted(r[0] for r in runs), sorted(r[1] for r in runs)
    return walls[repeat // 2], cpus[repeat // 2], value


def best_and_median(call: Callable[[], object], repeat: int) -> tuple[float, float, float, float]:
    """(best wall, median wall, best CPU, median CPU) seconds of ``repeat`` calls of ``call``."""
    walls, cpus = [], []
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - began_cpu)
    return min(walls), statistics.median(walls), min(cpus), statistics.median(cpus)
