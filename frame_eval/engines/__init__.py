"""frame_eval on engines past one machine: Spark (:mod:`frame_eval.engines.spark`) and Dask
(:mod:`frame_eval.engines.dask`).

Neither holds a measure of its own. Both shuffle the rows so that every query (ranking) or
every ``by`` group (classification) lands whole in one group, and run frame_eval's polars
evaluation on each group (:mod:`frame_eval.engines._grouped`); per-query values are
independent of other queries, so they are the polars values exactly, and summaries are
made in a second pass from those values with the polars summary's arithmetic.
"""

from __future__ import annotations

from frame_eval.engines import dask, spark

__all__ = ["dask", "spark"]
