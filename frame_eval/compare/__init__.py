"""Comparing systems: paired significance tests, multiple-comparison corrections, intervals.

>>> import polars as pl, frame_eval as fe
>>> per_query = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": [1, 2, 3] * 2,
...                           "metric": ["AP"] * 6, "value": [0.1, 0.5, 0.3, 0.2, 0.6, 0.5]})
>>> fe.compare.compare(per_query, "a", tests="sign").select("system", "wins", "p_value").rows()
[('b', 3, 0.25)]
"""

from __future__ import annotations

from frame_eval.compare.corrections import adjust
from frame_eval.compare.frame import compare
from frame_eval.compare.intervals import intervals
from frame_eval.compare.report import report
from frame_eval.compare.ties import tie_aware

__all__ = ["adjust", "compare", "intervals", "report", "tie_aware"]
