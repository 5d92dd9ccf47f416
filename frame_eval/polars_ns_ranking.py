"""The ranking methods of ``.ireval`` on a polars frame (the run): ``judge``, ``evaluate``,
``summarize`` and ``ranking_curve``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Literal

import polars as pl

from frame_eval import _checks, _reuse
from frame_eval import evaluate as _core
from frame_eval.judged import Duplicates, RunColumns, as_by, judge_lazy
from frame_eval.partitioned import Partitioning
from frame_eval.polars_ns_base import FrameT, NamespaceBase, _collects, _evaluates, to_lazy


class RankingMethods(NamespaceBase[FrameT]):
    """``run.ireval.judge / evaluate / summarize / ranking_curve``: the run and its qrels."""

    @_collects
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
        strict: bool = False,
        judged_only: bool = False,
        ties: Literal["docid", "optimistic", "pessimistic"] = "docid",
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
        strict
            When fewer than half of the run's queries have judgements (ids spelled
            differently on the two sides, say), raise instead of warning.
        judged_only
            Drop retrieved documents without a judgement of 0 or more, after ``depth``,
            and rank the rest 1, 2, ... (trec_eval ``-J``).
        ties
            ``"docid"`` (default): equal scores ordered by doc_id, as trec_eval.
            ``"optimistic"`` / ``"pessimistic"``: equal scores ordered by judgement,
            best / worst first (the bounds of ``evaluate(ties=...)``).

        Bad data (nulls, NaN, repeated rows) raises a ``ValueError`` naming the column
        and the first offending row, counted from 0 in the frame as given; for a
        LazyFrame, when the result is collected.

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
            complete=complete, depth=depth, duplicates=duplicates, strict=strict,
            judged_only=judged_only, ties=ties,
        )
        return self._finish(result)

    @_evaluates
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
        strict: bool = False,
        shape: _core.Shape = "long",
        labels: _core.Labels = "canonical",
        names: _core.Names = "canonical",
        judged_only: bool = False,
        rel: int | None = None,
        collection_size: int | None = None,
        ties: _core.Ties = "docid",
        partitions: int | None = None,
        memory_limit: int | str | None = None,
        progress: bool = False,
    ) -> FrameT:
        """Score every evaluated query of this run on each measure.

        ``shape="long"`` returns ``[*by, query_id, metric, value]`` (``value``
        Float64, ``metric`` the canonical name such as ``nDCG@10``);
        ``shape="wide"`` returns ``[*by, query_id, <one Float64 column per measure>]``.
        Rows are sorted by the keys; measures keep the order given.

        ``measures`` are names (``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``,
        trec_eval's ``"map"``, ``"ndcg_cut.10"``...), :class:`~frame_eval.Measure`
        values or ir_measures measure objects (``nDCG@10``). Other parameters as in
        :meth:`judge`, and:

        labels
            ``"canonical"`` (default): each measure is labelled with its canonical
            name, so ``"MAP"`` and ``"map"`` are reported as ``AP`` (once);
            ``"as_given"``: one label per name, as written.
        names
            ``"safe"`` spells labels with letters, digits and underscores only
            (``nDCG@10`` becomes ``nDCG_at_10``), for SQL engines.
        judged_only, rel, collection_size
            trec_eval's ``-J``, ``-l`` (the relevance level of every measure that takes
            one and was not given its own) and ``-N`` (documents in the collection,
            for ``utility``).
        ties
            ``"docid"`` (default): trec_eval's order, equal scores by doc_id.
            ``"expected"``: each measure's mean over every ordering of the documents
            with equal scores; ``"optimistic"`` / ``"pessimistic"``: its best / worst
            value over those orderings (P@k, R@k, AP, RR, nDCG; see
            :mod:`frame_eval.compare.ties`). The long form then has a ``straddling``
            column: the tie groups that cross the measure's cutoff.
        partitions, memory_limit
            Runs larger than memory are evaluated a range of query ids at a time, each
            range through the streaming engine, with the same values as one plan.
            ``partitions=None`` (default) splits a Parquet or IPC scan, or an in-memory
            frame, when its estimated peak passes ``memory_limit`` (bytes or text such as
            ``"4GiB"``; default an eighth of the machine's memory, at most half of what is
            free); ``partitions=P`` splits into ``P`` ranges (1: one plan). A split result
            is still lazy: the ranges are computed one after the other when it is
            collected (see :mod:`frame_eval.partitioned`).
        progress
            Report each range (rows, elapsed seconds) on standard error while it runs.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
        ...                     "score": [0.2, 0.9, 0.5]})
        >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "d"], "relevance": [1, 2]})
        >>> run.ireval.evaluate(qrels, ["P@2", "RR"]).rows()
        [('q1', 'P@2', 0.5), ('q1', 'RR', 1.0)]
        """
        cols = RunColumns(query_id, doc_id, score, relevance, _core.RANK, as_by(by))
        options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict,
                   "shape": shape, "labels": labels, "names": names, "judged_only": judged_only, "rel": rel,
                   "collection_size": collection_size, "ties": ties}
        scale = Partitioning.of(self._frame, qrels, partitions, memory_limit, progress)
        return self._planned(_core.evaluate, qrels, measures, cols, options, scale)

    @_evaluates
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
        strict: bool = False,
        shape: _core.Shape = "long",
        labels: _core.Labels = "canonical",
        names: _core.Names = "canonical",
        judged_only: bool = False,
        rel: int | None = None,
        collection_size: int | None = None,
        aggregate: _core.Aggregate | None = None,
        ties: _core.Ties = "docid",
        ci: float | None = None,
        ci_method: Literal["t", "bootstrap"] = "t",
        n_resamples: int = 10_000,
        seed: int = 0,
        partitions: int | None = None,
        memory_limit: int | str | None = None,
        progress: bool = False,
    ) -> FrameT:
        """Average each measure over the evaluated queries (trec_eval's ``all`` lines).

        Returns ``[*by, metric, value, num_q]``: the mean over queries (MAP,
        mean nDCG...), except count measures (``NumRet``, ``NumRel``,
        ``NumRelRet``, ``NumQ``), which are summed. ``num_q`` is the number of
        queries averaged. ``shape="wide"`` gives ``[*by, <one column per measure>, num_q]``.
        Values are added query after query in the text order of the query ids (as
        trec_eval does) and divided once: the same bits on every call. ``gm_map`` and
        ``gm_bpref`` are trec_eval's geometric means; ``aggregate="mean"``, ``"gmean"`` or
        ``"micro"`` (numerators and denominators summed before dividing) applies one
        summary to every measure. ``ci=0.95`` adds ``ci_low`` and ``ci_high``, the
        Student's t interval of each mean over the queries, or with ``ci_method="bootstrap"``
        the percentile interval of ``n_resamples`` bootstrap means drawn with ``seed``
        (needs the ``[stats]`` extra). ``partitions``, ``memory_limit`` and ``progress``
        split a large run by query ranges as :meth:`evaluate` does; the summary is the
        same to the last bit.
        Other parameters as in :meth:`evaluate`.

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
        cols = RunColumns(query_id, doc_id, score, relevance, _core.RANK, as_by(by))
        options = {"complete": complete, "depth": depth, "duplicates": duplicates, "strict": strict,
                   "shape": shape, "labels": labels, "names": names, "judged_only": judged_only, "rel": rel,
                   "collection_size": collection_size, "aggregate": aggregate, "ties": ties, "ci": ci,
                   "ci_method": ci_method, "n_resamples": n_resamples, "seed": seed}
        scale = Partitioning.of(self._frame, qrels, partitions, memory_limit, progress)
        return self._planned(_core.summarize, qrels, measures, cols, options, scale)

    def _planned(
        self, build: Callable[..., pl.LazyFrame], qrels: Any, measures: _core.MeasureArg, cols: RunColumns,
        options: dict[str, Any], scale: Partitioning,
    ) -> FrameT:
        """``build(run, qrels, measures, cols, **options)`` (``_core.evaluate`` or ``_core.summarize``) as
        this frame's result; a small eager call reuses the plan of an earlier call of the same shape
        (:mod:`frame_eval._reuse`)."""
        if isinstance(self._frame, pl.DataFrame) and scale.one_plan():
            key = _reuse.key_of((build.__name__, measures, dataclasses.astuple(cols), *options.items()))
            found = _reuse.collect(
                self._frame, qrels, key, lambda run, judged: build(run, judged, measures, cols, **options),
                stacklevel=6,
            )
            if found is not None:
                return found  # type: ignore[return-value]
        run, judgements = to_lazy(self._frame, "run"), to_lazy(qrels, "qrels")
        state = _checks.current()
        if state is not None:  # (an eager run: its qrels' checks may read them beside the plan)
            state.other_in_memory = isinstance(qrels, pl.DataFrame)
        return self._finish(build(run, judgements, measures, cols, **options, scale=scale))

    def ranking_curve(
        self,
        qrels: Any,
        *,
        by: str | Sequence[str] | None = None,
        query_id: str = "query_id",
        doc_id: str = "doc_id",
        score: str = "score",
        relevance: str = "relevance",
        rel: int = 1,
        interpolated: bool = False,
        levels: Sequence[float] | None = None,
        rounding: Literal["trec10", "trec9", "ceil"] = "trec10",
        average: bool = False,
        complete: bool = False,
        depth: int | None = None,
        duplicates: Duplicates = "error",
        strict: bool = False,
        judged_only: bool = False,
    ) -> FrameT:
        """Precision-recall curves of this run's rankings, tidy (also ``pr_curve(qrels)``).

        Per rank (default): ``[*by, query_id, rank, doc_id, relevant, precision, recall]``,
        one row per retrieved document of each evaluated query, sorted by the keys
        and rank. ``precision`` is ``P@rank`` and ``recall`` ``R@rank`` (0 when the
        query has no relevant document), with trec_eval's bits; ``relevant`` says
        whether the document at that rank has a judgement ``>= rel``.

        ``interpolated=True``: the interpolated precision at recall ``levels``
        (default the 11 standard levels 0, 0.1, ..., 1), ``[*by, query_id, recall,
        precision]``: each value is trec_eval's ``iprec_at_recall`` (``IPrec@level``,
        ``rounding`` as there). With ``average=True``, averaged over the evaluated
        queries as :meth:`summarize` averages ``IPrec``: ``[*by, recall, precision,
        num_q]``, the classic averaged 11-point curve.

        Parameters
        ----------
        rel
            A judgement ``>= rel`` is relevant (trec_eval ``-l``).
        interpolated, levels, rounding, average
            As above; ``levels`` and ``average`` need ``interpolated=True``.
        by, query_id, doc_id, score, relevance, complete, depth, duplicates, strict, judged_only
            As in :meth:`evaluate`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
        ...                     "score": [0.2, 0.9, 0.5]})
        >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "relevance": [1, 2]})
        >>> run.ireval.ranking_curve(qrels).select("rank", "relevant", "precision", "recall").rows()
        [(1, True, 1.0, 0.5), (2, False, 0.5, 0.5), (3, True, 0.6666666666666666, 1.0)]
        >>> curve = run.ireval.pr_curve(qrels, interpolated=True, average=True)
        >>> curve.filter(pl.col("recall").is_in([0.5, 1.0])).rows()
        [(0.5, 1.0, 1), (1.0, 0.6666666666666666, 1)]
        """
        from frame_eval.ranking.curves import ranking_curve

        cols = RunColumns(query_id, doc_id, score, relevance, "rank", as_by(by))
        result = ranking_curve(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), cols, rel=rel, interpolated=interpolated,
            levels=levels, rounding=rounding, average=average, complete=complete, depth=depth,
            duplicates=duplicates, strict=strict, judged_only=judged_only,
        )
        return self._finish(result)
