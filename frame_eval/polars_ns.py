"""The ``.ireval`` namespace on :class:`polars.DataFrame` and :class:`polars.LazyFrame`.

Thin by design: each method names its columns, hands lazy frames to the
shared core and collects only when the caller's frame was eager.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from frame_eval.polars_ns_base import FrameT, is_frame, to_lazy
from frame_eval.polars_ns_labels import LabelMethods
from frame_eval.polars_ns_ranking import RankingMethods
from frame_eval.polars_ns_scores import ScoreMethods

__all__ = ["IREvalNamespace", "is_frame", "register", "to_lazy"]


class IREvalNamespace(RankingMethods[FrameT], LabelMethods[FrameT], ScoreMethods[FrameT]):
    """Evaluation methods on a frame: ``df.ireval.evaluate(qrels, [...])`` and friends.

    DataFrame in, DataFrame out; LazyFrame in, LazyFrame out (nothing is
    collected until you collect). The frame this namespace sits on is the
    *run* (ranking methods) or the *predictions* (classification methods).
    """

    # -- comparing systems (frame_eval.compare) ----------------------------------------------

    def compare(self, baseline: Any = None, **options: Any) -> FrameT:
        """Paired significance tests of this frame's systems; see :func:`frame_eval.compare.compare`.

        The frame is per-query values, long (the output of :meth:`evaluate`).
        Collects the data; a LazyFrame gives a LazyFrame.

        >>> import polars as pl, frame_eval as fe
        >>> per_query = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query_id": [1, 2, 3] * 2,
        ...                           "metric": ["AP"] * 6, "value": [0.1, 0.5, 0.3, 0.2, 0.6, 0.5]})
        >>> per_query.ireval.compare("a", tests="sign").select("system", "wins", "p_value").rows()
        [('b', 3, 0.25)]
        """
        from frame_eval.compare import compare

        return compare(self._frame, baseline, **options)  # type: ignore[return-value]

    def intervals(self, **options: Any) -> FrameT:
        """Each system's mean with a confidence interval; see :func:`frame_eval.compare.intervals`."""
        from frame_eval.compare import intervals

        return intervals(self._frame, **options)  # type: ignore[return-value]

    def report(self, format: str = "markdown", **options: Any) -> str:
        """This comparison result as a Markdown or LaTeX table; see :func:`frame_eval.compare.report`."""
        from frame_eval.compare import report

        return report(self._frame, format, **options)  # type: ignore[arg-type]

    def tie_aware(self, measures: Any = ("AP", "nDCG@10", "P@10", "RR"), **options: Any) -> FrameT:
        """Expected / optimistic / pessimistic values over tied scores of this judged frame
        (the output of :meth:`judge`); see :func:`frame_eval.compare.tie_aware`."""
        from frame_eval.compare import tie_aware

        return tie_aware(self._frame, measures, **options)


def register() -> None:
    """Register ``.ireval`` on polars DataFrame and LazyFrame (idempotent)."""
    if not hasattr(pl.DataFrame, "ireval"):
        pl.api.register_dataframe_namespace("ireval")(IREvalNamespace)
    if not hasattr(pl.LazyFrame, "ireval"):
        pl.api.register_lazyframe_namespace("ireval")(IREvalNamespace)
