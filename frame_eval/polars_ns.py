"""The ``.ireval`` namespace on :class:`polars.DataFrame` and :class:`polars.LazyFrame`.

Thin by design: each method names its columns, hands lazy frames to the
shared core and collects only when the caller's frame was eager.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import polars as pl

from frame_eval import evaluate as _core
from frame_eval.judged import Duplicates, RunColumns, as_by, judge_lazy

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def to_lazy(frame: Any, name: str) -> pl.LazyFrame:
    """A LazyFrame view of a polars or pandas frame (pandas is converted, never modified)."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    module = type(frame).__module__
    if module.startswith("pandas"):
        return pl.from_pandas(frame).lazy()
    raise TypeError(
        f"{name} must be a polars DataFrame or LazyFrame or a pandas DataFrame, "
        f"got {type(frame).__name__}"
    )


class IREvalNamespace(Generic[FrameT]):
    """Evaluation methods on a frame: ``df.ireval.evaluate(qrels, [...])`` and friends.

    DataFrame in, DataFrame out; LazyFrame in, LazyFrame out (nothing is
    collected until you collect). The frame this namespace sits on is the
    *run* (ranking methods) or the *predictions* (classification methods).
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _finish(self, result: pl.LazyFrame) -> FrameT:
        if isinstance(self._frame, pl.LazyFrame):
            return result  # type: ignore[return-value]
        return result.collect()  # type: ignore[return-value]

    # -- rankings --------------------------------------------------------------------------

    def judge(
        self,
        qrels: Any,
        *,
        by: str | Sequence[str] | None = None,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
        rank: str = "rank",
        complete: bool = False,
        depth: int | None = None,
        duplicates: Duplicates = "error",
    ) -> FrameT:
        """Join this run with its judgements: one row per ranked or missed judged document.

        Returns ``[*by, query_id, doc_id, rank, relevance, score, <other run columns>]``
        sorted by query and rank: ``rank`` is 1-based (score descending, ties by
        doc_id descending, as trec_eval), null for judged documents the run
        missed; ``relevance`` is null for unjudged documents. This is the
        frame the :mod:`frame_eval.ranking` expressions aggregate.

        Parameters
        ----------
        qrels
            Judgements: one row per (query, document) with an integer relevance.
        by
            Run columns that identify separate rankings of a query (``system``).
        query_id, doc_id, score, relevance
            Column names in the run and qrels.
        rank
            Name of the output rank column (a run column of that name is replaced).
        complete
            Also include qrels queries absent from the run (trec_eval ``-c``).
        depth
            Keep only the first ``depth`` documents of each ranking (trec_eval ``-M``).
        duplicates
            ``"error"`` (default) on a repeated (query, document) row, or
            ``"max"`` to keep the highest score (run) and judgement (qrels).

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
        ...                     "score": [0.2, 0.9, 0.5]})
        >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "d"], "relevance": [1, 2]})
        >>> run.ireval.judge(qrels).select("doc_id", "rank", "relevance").rows()
        [('b', 1, 1), ('c', 2, None), ('a', 3, None), ('d', None, 2)]
        """
        cols = RunColumns(query_id, doc_id, score, relevance, rank, as_by(by))
        result = judge_lazy(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), cols,
            complete=complete, depth=depth, duplicates=duplicates,
        )
        return self._finish(result)

    def evaluate(
        self,
        qrels: Any,
        measures: _core.MeasureArg = _core.DEFAULT_MEASURES,
        *,
        by: str | Sequence[str] | None = None,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
        complete: bool = False,
        depth: int | None = None,
        duplicates: Duplicates = "error",
        shape: _core.Shape = "long",
    ) -> FrameT:
        """Score every evaluated query of this run on each measure.

        ``shape="long"`` returns ``[*by, query_id, metric, value]`` (``value``
        Float64, ``metric`` the canonical name such as ``nDCG@10``);
        ``shape="wide"`` returns ``[*by, query_id, <one Float64 column per measure>]``.
        Rows are sorted by the keys; measures keep the order given.

        ``measures`` are names (``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``,
        trec_eval's ``"map"``, ``"ndcg_cut.10"``...) or
        :class:`~frame_eval.Measure` values. Other parameters as in :meth:`judge`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
        ...                     "score": [0.2, 0.9, 0.5]})
        >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "d"], "relevance": [1, 2]})
        >>> run.ireval.evaluate(qrels, ["P@2", "RR"]).rows()
        [('q1', 'P@2', 0.5), ('q1', 'RR', 1.0)]
        """
        cols = RunColumns(query_id, doc_id, score, relevance, "rank", as_by(by))
        result = _core.evaluate(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), measures, cols,
            complete=complete, depth=depth, duplicates=duplicates, shape=shape,
        )
        return self._finish(result)

    def summarize(
        self,
        qrels: Any,
        measures: _core.MeasureArg = _core.DEFAULT_MEASURES,
        *,
        by: str | Sequence[str] | None = None,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
        complete: bool = False,
        depth: int | None = None,
        duplicates: Duplicates = "error",
    ) -> FrameT:
        """Average each measure over the evaluated queries (trec_eval's ``all`` lines).

        Returns ``[*by, metric, value, num_q]``: the mean over queries (MAP,
        mean nDCG...), except count measures (``NumRet``, ``NumRel``,
        ``NumRelRet``, ``NumQ``), which are summed. ``num_q`` is the number of
        queries averaged. Parameters as in :meth:`evaluate`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> runs = pl.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2,
        ...                      "doc_id": ["d1", "d2", "d2", "d1"], "score": [1.0] * 4})
        >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d1"],
        ...                       "relevance": [1, 1]})
        >>> runs.ireval.summarize(qrels, ["AP"], by="system").rows()
        [('a', 'AP', 0.5, 2), ('b', 'AP', 0.5, 2)]
        """
        cols = RunColumns(query_id, doc_id, score, relevance, "rank", as_by(by))
        result = _core.summarize(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), measures, cols,
            complete=complete, depth=depth, duplicates=duplicates,
        )
        return self._finish(result)


def register() -> None:
    """Register ``.ireval`` on polars DataFrame and LazyFrame (idempotent)."""
    if not hasattr(pl.DataFrame, "ireval"):
        pl.api.register_dataframe_namespace("ireval")(IREvalNamespace)
    if not hasattr(pl.LazyFrame, "ireval"):
        pl.api.register_lazyframe_namespace("ireval")(IREvalNamespace)
