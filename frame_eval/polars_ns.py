"""The ``.ireval`` namespace on :class:`polars.DataFrame` and :class:`polars.LazyFrame`.

Thin by design: each method names its columns, hands lazy frames to the
shared core and collects only when the caller's frame was eager.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, TypeVar

import polars as pl

from frame_eval import _checks, _reuse
from frame_eval import evaluate as _core
from frame_eval.classification import evaluate as _classify
from frame_eval.classification.counts import AUTO, Average
from frame_eval.judged import Duplicates, RunColumns, as_by, judge_lazy
from frame_eval.partitioned import Partitioning

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
Method = TypeVar("Method", bound=Callable[..., Any])


def _collects(method: Method, unoptimized: str = "UNOPTIMIZED_ROWS") -> Method:
    """For an eager frame, build the result with its data checks set aside (``_checks.deferred``)
    so that ``_finish`` computes both in one ``collect_all``: a smaller plan than the lazy
    result's check branch, which matters for the many small calls of a training loop."""

    @functools.wraps(method)
    def wrapper(self: IREvalNamespace[Any], *args: Any, **kwargs: Any) -> Any:
        if isinstance(self._frame, pl.LazyFrame):
            return method(self, *args, **kwargs)
        with _checks.deferred(rows=self._frame.height, unoptimized_rows=getattr(_checks, unoptimized)):
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _evaluates(method: Method) -> Method:
    """:func:`_collects` for ``evaluate`` and ``summarize`` (``_checks.EVALUATION_UNOPTIMIZED_ROWS``)."""
    return _collects(method, "EVALUATION_UNOPTIMIZED_ROWS")


def is_frame(value: Any) -> bool:
    """Whether ``value`` is a polars DataFrame or LazyFrame or a pandas DataFrame."""
    if isinstance(value, pl.DataFrame | pl.LazyFrame):
        return True
    return type(value).__module__.startswith("pandas") and hasattr(value, "columns")


def to_lazy(frame: Any, name: str) -> pl.LazyFrame:
    """A LazyFrame view of a polars, pandas or Arrow frame (converted, never modified)."""
    if isinstance(frame, pl.LazyFrame):
        return frame
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    module = type(frame).__module__
    if module.startswith("pandas"):
        return pl.from_pandas(frame).lazy()
    from frame_eval.arrow_input import is_arrow_stream, read_arrow_stream

    if is_arrow_stream(frame):  # a pyarrow Table, a DuckDB relation, ...
        return read_arrow_stream(frame, name).lazy()
    raise TypeError(
        f"{name} must be a polars DataFrame or LazyFrame, a pandas DataFrame or an Arrow table "
        f"(an object with __arrow_c_stream__), got {type(frame).__name__}"
    )


class IREvalNamespace(Generic[FrameT]):
    """Evaluation methods on a frame: ``df.ireval.evaluate(qrels, [...])`` and friends.

    DataFrame in, DataFrame out; LazyFrame in, LazyFrame out (nothing is
    collected until you collect). The frame this namespace sits on is the
    *run* (ranking methods) or the *predictions* (classification methods).
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _predictions(self) -> pl.LazyFrame:
        """The predictions as a LazyFrame; a lazy input is cached, so that a collect reads it once
        (the result and each data check read it; an upstream may be a costly parse or scan)."""
        frame = to_lazy(self._frame, "predictions")
        return frame.cache() if isinstance(self._frame, pl.LazyFrame) else frame

    def _finish(self, result: pl.LazyFrame) -> FrameT:
        if isinstance(self._frame, pl.LazyFrame):
            return result  # type: ignore[return-value]
        # eager in: the data checks set aside by ``_collects`` are computed with the result
        # stacklevel 6: warnings point at the caller's line
        return _checks.collect(result, stacklevel=6)  # type: ignore[return-value]

    # -- rankings --------------------------------------------------------------------------

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
        if isinstance(self._frame, pl.DataFrame) and scale.one_plan():  # a small call reuses its plan
            shape_key = _reuse.key_of(("evaluate", measures, dataclasses.astuple(cols), *options.items()))
            found = _reuse.collect(
                self._frame, qrels, shape_key,
                lambda run, judged: _core.evaluate(run, judged, measures, cols, **options), stacklevel=5,
            )
            if found is not None:
                return found  # type: ignore[return-value]
        result = _core.evaluate(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), measures, cols, **options, scale=scale
        )
        return self._finish(result)

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
        if isinstance(self._frame, pl.DataFrame) and scale.one_plan():  # a small call reuses its plan
            shape_key = _reuse.key_of(("summarize", measures, dataclasses.astuple(cols), *options.items()))
            found = _reuse.collect(
                self._frame, qrels, shape_key,
                lambda run, judged: _core.summarize(run, judged, measures, cols, **options), stacklevel=5,
            )
            if found is not None:
                return found  # type: ignore[return-value]
        result = _core.summarize(
            to_lazy(self._frame, "run"), to_lazy(qrels, "qrels"), measures, cols, **options, scale=scale
        )
        return self._finish(result)

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

    # -- classification --------------------------------------------------------------------------

    @_collects
    def confusion(
        self,
        actual: str = "actual",
        predicted: str = "predicted",
        *,
        by: str | Sequence[str] | None = None,
        positive: Any = AUTO,
        weight: str | None = None,
    ) -> FrameT:
        """Confusion counts of predicted labels, per group.

        Returns ``[*by, tp, fp, fn, tn, p, n, pp, pn, total]`` (Int64): one row
        per group for a binary problem, or, one-vs-rest, one row per class of
        each group with a ``class`` column after ``by``. ``p``/``n`` are actual
        positives/negatives, ``pp``/``pn`` predicted ones.

        Parameters
        ----------
        actual, predicted
            Label columns: Boolean, integer, string or categorical, no nulls.
        by
            Columns whose groups are evaluated separately (model, segment...).
        positive
            The positive label of a binary problem. Default: ``True`` for
            Boolean labels; ``1`` for integer labels, which must then be 0 or 1;
            one-vs-rest rows for string and categorical labels. ``None``:
            one-vs-rest rows for any labels. A group's classes are the labels
            in its actual or predicted column.
        weight
            A column of sample weights (scikit-learn's ``sample_weight``):
            each count becomes the sum of its rows' weights, Float64, added in
            a fixed order (the same bits in any row order). Weights must be
            finite numbers >= 0; a null, NaN, infinite or negative one is an
            error naming its row (at collect time for lazy frames).

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"model": ["a"] * 4 + ["b"] * 4,
        ...                       "label": [1, 1, 0, 0] * 2, "pred": [1, 0, 0, 0, 1, 1, 1, 0]})
        >>> preds.ireval.confusion("label", "pred", by="model").rows()
        [('a', 1, 0, 1, 2, 2, 2, 1, 3, 4), ('b', 2, 1, 0, 1, 2, 2, 3, 1, 4)]
        """
        result = _classify.confusion(
            self._predictions(), actual, predicted, as_by(by), positive=positive,
            weight=weight,
        )
        return self._finish(result)

    @_collects
    def rates(
        self,
        actual: str = "actual",
        predicted: str = "predicted",
        *,
        by: str | Sequence[str] | None = None,
        metrics: _classify.MeasureArg | None = None,
        positive: Any = AUTO,
        average: Average | None = None,
        zero_division: float | None = None,
        shape: _classify.Shape = "long",
        score: str | None = None,
        thresholds: Sequence[float] | int | None = None,
        inclusive: bool = True,
        weight: str | None = None,
    ) -> FrameT:
        """Rates of predicted labels (recall, precision, F1, MCC...), per group, tidy long.

        Returns ``[*by, metric, value]`` (``value`` Float64), with a ``class``
        column after ``by`` for one-vs-rest rows. Metrics keep the order given;
        the default is every rate: ``recall, FNR, specificity, FPR, precision,
        FDR, NPV, FOR, accuracy, error_rate, prevalence, F1,
        balanced_accuracy, MCC, informedness, markedness, LR+, LR-, DOR, FM,
        CSI``. Names resolve through the registry, synonyms included
        (``TPR``, ``sensitivity``, ``PPV``, ``fall-out``, ``F2``, ``F(beta=3)``...).

        Parameters
        ----------
        metrics
            Measure names or :class:`~frame_eval.Measure` values (classification kind).
        average
            ``None`` (binary, or one row per class), or ``"micro"``, ``"macro"``,
            ``"weighted"``: one value per group from the per-class values, as
            scikit-learn averages; see :mod:`frame_eval.classification`.
            Accuracy, error rate, balanced accuracy and MCC then take their
            multi-class definitions. Excludes a ``positive`` label.
            ``"binary"`` (scikit-learn's name) is the same as ``None``.
        zero_division
            Value of a rate whose formula divides by zero: any real number
            (``0``, ``1``, ``np.int64(1)``...). The default leaves it null (and
            out of macro and weighted means); ``float("nan")`` gives NaN there
            and, as scikit-learn's ``zero_division=np.nan``, also leaves it
            out of the means.
        shape
            ``"long"`` (``[*by, (class,) metric, value]``) or ``"wide"``
            (``[*by, (class,) <one Float64 column per metric>]``).
        score, thresholds, inclusive
            Rates at thresholds you choose instead of predicted labels: a row
            is predicted positive when its ``score`` is ``>= t`` (``inclusive=True``,
            scikit-learn's rule) or ``> t`` (``False``), for each ``t`` of
            ``thresholds`` (increasing numbers, or a count of evenly spaced
            thresholds in [0, 1]: ``11`` gives 0, 0.1, ..., 1). Returns
            ``[*by, threshold, metric, value]`` (or wide), every count and rate
            at each threshold; ``predicted`` is not read.
        actual, predicted, by, positive, weight
            As in :meth:`confusion`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": ["cat", "cat", "dog", "bird"],
        ...                       "pred": ["cat", "dog", "dog", "dog"]})
        >>> preds.ireval.rates("label", "pred", metrics=["recall", "F1"], average="macro").rows()
        [('recall', 0.5), ('F1', 0.38888888888888884)]
        >>> preds.ireval.rates("label", "pred", metrics=["PPV"], positive="dog").rows()
        [('precision', 0.3333333333333333)]
        """
        if thresholds is not None or score is not None:
            if thresholds is None or score is None or average is not None:
                raise ValueError(
                    "rates at chosen thresholds need both score= and thresholds= (and no average=)"
                )
            result = _classify.threshold_rates(
                self._predictions(), actual, score, as_by(by), thresholds=thresholds,
                inclusive=inclusive, metrics=metrics, positive=positive, zero_division=zero_division,
                shape=shape, weight=weight,
            )
            return self._finish(result)
        result = _classify.rates(
            self._predictions(), actual, predicted, as_by(by), metrics=metrics,
            positive=positive, average=average, zero_division=zero_division, shape=shape, weight=weight,
        )
        return self._finish(result)

    @_collects
    def confusion_matrix(
        self,
        actual: str = "actual",
        predicted: str = "predicted",
        *,
        by: str | Sequence[str] | None = None,
        weight: str | None = None,
    ) -> FrameT:
        """The K x K confusion matrix of each group, tidy long: ``[*by, actual, predicted, count]``.

        Every (actual, predicted) pair of the group's classes has a row, zero
        counts included, sorted by actual then predicted label (as rows and
        columns of scikit-learn's ``confusion_matrix``); with ``weight``, each
        count is the sum of its rows' weights (Float64). Parameters as in :meth:`confusion`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": ["a", "a", "b"], "pred": ["a", "b", "b"]})
        >>> preds.ireval.confusion_matrix("label", "pred").rows()
        [('a', 'a', 1), ('a', 'b', 1), ('b', 'a', 0), ('b', 'b', 1)]
        """
        result = _classify.confusion_matrix(
            self._predictions(), actual, predicted, as_by(by), weight=weight
        )
        return self._finish(result)

    @_collects
    def classification_report(
        self,
        actual: str = "actual",
        predicted: str = "predicted",
        *,
        by: str | Sequence[str] | None = None,
        zero_division: float | None = None,
        weight: str | None = None,
    ) -> FrameT:
        """scikit-learn's ``classification_report(output_dict=True)`` as a tidy frame, per group.

        Returns ``[*by, class, precision, recall, f1-score, support]``: one row
        per class of the group (its label as text, ``str(label)``, in label
        order) with ``precision = TP / PP``, ``recall = TP / P``,
        ``f1-score = 2 TP / (2 TP + FP + FN)``, ``support = P``; then
        ``accuracy`` (correct rows / all rows in ``f1-score``, precision and
        recall null, support the group's rows, as the printed report),
        ``macro avg`` (plain means over classes) and ``weighted avg`` (means
        weighted by support), both with the group's rows as support.
        Undefined ratios are null and left out of the means, or
        ``zero_division`` (``0`` gives scikit-learn's default numbers).

        Parameters
        ----------
        zero_division
            As in :meth:`rates`.
        actual, predicted, by, weight
            As in :meth:`confusion` (with ``weight``, support is a Float64 sum of weights).

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": ["a", "a", "b"], "pred": ["a", "b", "b"]})
        >>> preds.ireval.classification_report("label", "pred").rows()[:2]
        [('a', 1.0, 0.5, 0.6666666666666666, 2), ('b', 0.5, 1.0, 0.6666666666666666, 1)]
        """
        result = _classify.classification_report(
            self._predictions(), actual, predicted, as_by(by), zero_division=zero_division,
            weight=weight,
        )
        return self._finish(result)

    @_collects
    def best_threshold(
        self,
        actual: str = "actual",
        score: _classify.ScoreArg = "score",
        *,
        by: str | Sequence[str] | None = None,
        criterion: str = "youden",
        min_specificity: float | None = None,
        min_recall: float | None = None,
        min_precision: float | None = None,
        max_fpr: float | None = None,
        weights: tuple[float, float] | None = None,
        costs: tuple[float, float] | None = None,
        prevalence: float | None = None,
        positive: Any = AUTO,
        score_range: tuple[float, float] | None = None,
        weight: str | None = None,
    ) -> FrameT:
        """The best score threshold of each group, with the counts and rates there.

        Returns ``[*by, threshold, tp, fp, fn, tn, recall, specificity, FPR,
        FNR, precision, accuracy]`` (a ``class`` column after ``by`` for a
        score mapping): one row per group, the row's values null when no
        threshold meets the constraints. A row is predicted positive when
        ``score >= threshold``; the candidates are the group's distinct scores.

        Parameters
        ----------
        criterion
            What the threshold maximises: ``"youden"`` (TPR - FPR),
            ``"accuracy"``, ``"f1"``, ``"closest_to_01"`` (nearest the ROC
            corner), ``"recall"``, ``"precision"``, ``"specificity"``.
        min_specificity, min_recall, min_precision, max_fpr
            Constraints every candidate must meet (numbers in [0, 1]):
            ``TN / N >= s``, ``TP / P >= r``, ``TP / (TP + FP) >= p``,
            ``FP / N <= f``. E.g. the most sensitive threshold with
            specificity at least 0.9: ``criterion="recall", min_specificity=0.9``.
        weights
            ``(w_sens, w_spec)``: maximise ``w_sens TPR + w_spec TNR``.
        costs, prevalence
            ``(c_fp, c_fn)``: minimise the expected cost
            ``c_fp FPR (1 - prevalence) + c_fn FNR prevalence``; the default
            prevalence is the group's own (``P / total``), which minimises
            ``c_fp FP + c_fn FN``.
        actual, score, by, positive, score_range, weight
            As in :meth:`roc`.

        Every comparison is exact (integer counts and the numbers given read
        as the decimals they are written as, ``0.9`` = 9/10, in 128-bit
        integers; with ``weight``, on floats);
        among equally good thresholds the highest wins. The expression
        ``C.best_threshold`` gives the same threshold.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": [0, 0, 1, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8, 0.9]})
        >>> best = preds.ireval.best_threshold("label", "prob", criterion="recall", min_specificity=0.5)
        >>> best.select("threshold", "tp", "fp", "recall", "specificity").rows()
        [(0.35, 3, 1, 1.0, 0.5)]
        """
        result = _classify.best_threshold(
            self._predictions(), actual, score, as_by(by), criterion=criterion,
            positive=positive, score_range=score_range, weight=weight, min_specificity=min_specificity,
            min_recall=min_recall, min_precision=min_precision, max_fpr=max_fpr, weights=weights,
            costs=costs, prevalence=prevalence,
        )
        return self._finish(result)

    @_collects
    def roc(
        self,
        actual: str = "actual",
        score: _classify.ScoreArg = "score",
        *,
        by: str | Sequence[str] | None = None,
        positive: Any = AUTO,
        score_range: tuple[float, float] | None = None,
        weight: str | None = None,
    ) -> FrameT:
        """The ROC curve of each group: one row per distinct score, ready to plot ``fpr`` against ``tpr``.

        Returns ``[*by, threshold, tp, fp, fn, tn, tpr, fpr, precision,
        recall]``, threshold descending. At threshold ``t`` a row is predicted
        positive when ``score >= t``, so tied scores form one point. Rates are
        null where undefined (``tpr`` without positives, ``fpr`` without negatives).

        Relation to scikit-learn (``drop_intermediate=False``): ``roc_curve``
        has these rows after its first one (threshold ``inf``, the origin);
        ``precision_recall_curve`` has them in reverse, plus its last point
        (recall 0, precision 1); ``det_curve`` keeps the rows from the last
        one without false positives to the first with every positive found.

        Parameters
        ----------
        score
            A numeric score column (higher: more likely positive), or a mapping
            ``{class label: score column}`` for one-vs-rest curves, one per
            class, with a ``class`` column after ``by``.
        positive
            The positive label as in :meth:`confusion`; string labels need it
            (or a score mapping).
        score_range
            ``(low, high)``: scores outside it raise an error (at collect time
            for lazy frames), e.g. ``(0, 1)`` for probabilities.
        weight
            Sample weights as in :meth:`confusion`: the counts are sums of
            weights (Float64); rows of weight 0 are left out, as in
            scikit-learn's curves, so a score only they hold is no point.
        actual, by
            As in :meth:`confusion`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
        >>> preds.ireval.roc("label", "prob").select("threshold", "fpr", "tpr").rows()
        [(0.8, 0.0, 0.5), (0.4, 0.5, 0.5), (0.35, 0.5, 1.0), (0.1, 1.0, 1.0)]
        """
        result = _classify.curve(
            self._predictions(), actual, score, as_by(by), positive=positive,
            score_range=score_range, weight=weight,
        )
        return self._finish(result)

    def pr_curve(
        self,
        actual: Any = "actual",
        score: _classify.ScoreArg = "score",
        *,
        by: str | Sequence[str] | None = None,
        positive: Any = AUTO,
        score_range: tuple[float, float] | None = None,
        weight: str | None = None,
        **ranking: Any,
    ) -> FrameT:
        """The precision-recall curve of each group: plot ``recall`` against ``precision``.

        Classification (``actual`` a label column): the same table as :meth:`roc` (one
        row per distinct score, threshold descending, so recall rises down the rows);
        parameters as there.

        Rankings: given a qrels frame first, ``run.ireval.pr_curve(qrels, ...)`` is
        :meth:`ranking_curve` (``score`` is then the run's score column, and the
        other keywords are :meth:`ranking_curve`'s).

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
        >>> preds.ireval.pr_curve("label", "prob").select("threshold", "recall", "precision").rows()
        [(0.8, 0.5, 1.0), (0.4, 0.5, 0.5), (0.35, 1.0, 0.6666666666666666), (0.1, 1.0, 0.5)]
        """
        if is_frame(actual):
            given = [name for name, value in (("positive", positive is not AUTO),
                                              ("score_range", score_range is not None),
                                              ("weight", weight is not None)) if value]
            if given:
                raise TypeError(f"pr_curve(qrels, ...) gives ranking curves, which take no {given[0]}=; "
                                f"it applies to classification curves, pr_curve(actual, score, ...)")
            if not isinstance(score, str):
                raise TypeError(f"score= names the run's score column, got {score!r}")
            return self.ranking_curve(actual, by=by, score=score, **ranking)
        if ranking:
            raise TypeError(
                f"pr_curve() got an unexpected keyword argument {next(iter(ranking))!r}: ranking options "
                f"apply when the first argument is a qrels frame, pr_curve(qrels, ...)"
            )
        return self.roc(actual, score, by=by, positive=positive, score_range=score_range, weight=weight)

    @_collects
    def det_curve(
        self,
        actual: str = "actual",
        score: _classify.ScoreArg = "score",
        *,
        by: str | Sequence[str] | None = None,
        positive: Any = AUTO,
        score_range: tuple[float, float] | None = None,
        weight: str | None = None,
    ) -> FrameT:
        """The detection error tradeoff (DET) curve of each group: plot ``fpr`` (FAR) against ``fnr`` (FRR).

        Returns ``[*by, threshold, fp, fn, fpr, fnr, fpr_probit, fnr_probit]``,
        threshold ascending: scikit-learn's ``det_curve`` points exactly (from
        the last threshold with no more false positives than the highest one,
        to the first that finds every positive). ``fpr_probit`` and
        ``fnr_probit`` are the rates' standard normal deviates
        ``Phi^-1(rate)``, the axes of a DET plot (``scipy.stats.norm.ppf``,
        computed in polars without SciPy: Wichura's AS 241, within 1.1e-15
        relative of ``scipy.special.ndtri``; a rate of 0 gives ``-inf``, 1
        gives ``inf``). A group with only one class has no rows.
        Parameters as in :meth:`roc`.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
        >>> preds.ireval.det_curve("label", "prob").select("threshold", "fpr", "fnr").rows()
        [(0.35, 0.5, 0.0), (0.4, 0.5, 0.5), (0.8, 0.0, 0.5)]
        """
        result = _classify.det_curve(
            self._predictions(), actual, score, as_by(by), positive=positive,
            score_range=score_range, weight=weight,
        )
        return self._finish(result)

    @_collects
    def scores(
        self,
        actual: str = "actual",
        score: _classify.ScoreArg = "score",
        *,
        by: str | Sequence[str] | None = None,
        metrics: _classify.MeasureArg | None = None,
        positive: Any = AUTO,
        score_range: tuple[float, float] | None = None,
        shape: _classify.Shape = "long",
        weight: str | None = None,
        average: str | None = None,
        multi_class: str = "ovr",
    ) -> FrameT:
        """Score-based measures of each group, tidy long: ``[*by, (class,) metric, value]``.

        The default measures are ``ROC_AUC``, ``average_precision``, ``PR_AUC``
        and ``EER`` (any synonym works, e.g. ``"AUC"``, ``"AP"``), plus
        ``best_threshold(criterion=...)`` on request. With tp_i, fp_i the
        positives and negatives scoring at least the i-th distinct score (high to
        low, tp_0 = fp_0 = 0) and P, N the group's positives and negatives:

        - ROC_AUC = sum_i (fp_i - fp_{i-1}) (tp_i + tp_{i-1}) / 2 / (P N),
          scikit-learn's ``roc_auc_score``; null unless the group has both classes;
        - average_precision = sum_i (tp_i - tp_{i-1}) / P * tp_i / (tp_i + fp_i),
          scikit-learn's ``average_precision_score``; null without positives;
        - PR_AUC: trapezoids under the precision-recall points from (recall 0,
          precision 1); null without positives;
        - EER: the false positive rate where FPR and FNR cross, interpolated
          between the two points around the crossing; null unless both classes.

        Each group's scores are sorted once and every area is read off that one
        ordering, so this is several times faster than the ``C.*`` expressions
        of the same measures when you want more than one of them.

        Parameters
        ----------
        metrics
            Names or :class:`~frame_eval.registry.Measure` objects of score
            measures; label-based rates raise an error naming ``rates()``.
        shape
            ``"long"`` or ``"wide"`` (one Float64 column per measure), as in :meth:`rates`.
        average, multi_class
            Multi-class scores from ``score={class label: probability column}``:
            ``average="macro"``, ``"weighted"`` or ``"micro"`` gives one value
            per group (``[*by, metric, value]``) of ``ROC_AUC`` (one-vs-rest,
            or one-vs-one with ``multi_class="ovo"``: macro and weighted only),
            ``average_precision`` and ``top_k_accuracy(k=...)``, as
            scikit-learn's ``roc_auc_score(multi_class=, average=)``,
            ``average_precision_score`` and ``top_k_accuracy_score``. The
            default metrics are ROC AUC and AP. For ROC AUC each row's
            probabilities must lie in [0, 1] and add to 1 (NumPy's ``allclose``
            tolerance). Without ``average``, a mapping gives one row per class.
        actual, score, by, positive, score_range, weight
            As in :meth:`roc`; ``weight`` also weighs log-loss and Brier, as :meth:`probabilities` does.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"label": [0, 0, 1, 1], "prob": [0.1, 0.4, 0.35, 0.8]})
        >>> preds.ireval.scores("label", "prob", metrics=["AUC", "AP"]).rows()
        [('ROC_AUC', 0.75), ('average_precision', 0.8333333333333333)]
        >>> three = pl.DataFrame({"y": ["a", "b", "c", "a"], "pa": [0.6, 0.3, 0.2, 0.3],
        ...                       "pb": [0.3, 0.4, 0.3, 0.3], "pc": [0.1, 0.3, 0.5, 0.4]})
        >>> three.ireval.scores("y", {"a": "pa", "b": "pb", "c": "pc"}, average="macro",
        ...                     metrics=["ROC_AUC", "top_k_accuracy(k=1)"]).rows()
        [('ROC_AUC', 0.9583333333333334), ('top_k_accuracy(k=1)', 0.75)]
        """
        result = _classify.scores(
            self._predictions(), actual, score, as_by(by), metrics=metrics,
            positive=positive, score_range=score_range, shape=shape, weight=weight, average=average,
            multi_class=multi_class,
        )
        return self._finish(result)


    def probabilities(
        self,
        actual: str = "actual",
        prob: str | dict[Any, str] | list[str] = "prob",
        *,
        by: str | Sequence[str] | None = None,
        metrics: _classify.MeasureArg | None = None,
        positive: Any = AUTO,
        weight: str | None = None,
        labels: Sequence[Any] | None = None,
        shape: _classify.Shape = "long",
        sample: str | Sequence[str] | None = None,
        class_column: str = "class",
    ) -> FrameT:
        """Scores of predicted probabilities per group, tidy long: ``[*by, metric, value]``.

        The default measures are ``log_loss`` (cross-entropy) and ``brier``;
        ``ECE(n_bins=10, strategy=uniform)`` on request (binary). See
        :mod:`frame_eval.classification.probabilistic` for the formulas
        (scikit-learn 1.9's ``log_loss`` with its clipping, ``brier_score_loss``).

        Parameters
        ----------
        prob
            The probability of the positive class (binary, one column), or a
            mapping ``{class label: probability column}`` with a column for
            every class (multi-class; each row's probabilities must sum to 1),
            or a list of columns with ``labels=``.
        labels
            With ``prob=[columns]``: the class of each column, in the same
            order (scikit-learn's ``labels=`` for the columns of ``y_prob``).
            With ``sample=``: the classes every sample must have a row for.
        sample, class_column
            A long frame, one row per (sample, class): ``sample`` names the
            column(s) identifying a sample (within a group), ``class_column``
            the row's class, ``prob`` its probability; ``actual`` (and
            ``weight``) repeat the sample's label (weight) on each of its
            rows. The classes of a group are those in ``class_column`` (or
            ``labels``). Each sample must have a row for every class, exactly
            once, one label and one weight, and probabilities adding to 1;
            otherwise a ``ValueError`` names the first offending row (0-based)
            and its sample. Log-loss has the wide layout's bits; Brier agrees
            with it within 1e-15 relative.
        positive
            The positive label (binary), as in :meth:`confusion`.
        weight
            Optional column of non-negative sample weights.
        metrics, shape, actual, by
            As in :meth:`scores`.

        Probabilities outside [0, 1], rows whose probabilities do not sum to 1
        (within ``1e-8 + sqrt(eps)``, scikit-learn's tolerance), labels without
        a probability column, negative weights and null values raise a
        ``ValueError`` naming the column, the first offending row (counting
        from 0), its value and the fix.

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({
        ...     "y": ["a", "b", "c"], "pa": [0.7, 0.2, 0.1], "pb": [0.2, 0.5, 0.1], "pc": [0.1, 0.3, 0.8]
        ... })
        >>> out = preds.ireval.probabilities("y", {"a": "pa", "b": "pb", "c": "pc"})
        >>> [(m, round(v, 6)) for m, v in out.rows()]
        [('log_loss', 0.424322), ('brier', 0.193333)]
        >>> long = pl.DataFrame({"id": [0, 0, 1, 1], "class": ["a", "b"] * 2, "y": ["a", "a", "b", "b"],
        ...                      "p": [0.8, 0.2, 0.4, 0.6]})
        >>> out = long.ireval.probabilities("y", "p", sample="id")  # Brier halved: 2 classes
        >>> [(m, round(v, 6)) for m, v in out.rows()]
        [('log_loss', 0.366985), ('brier', 0.1)]
        """
        from frame_eval.classification import probabilities as _probabilities

        result = _probabilities.probabilities(
            self._predictions(), actual, prob, as_by(by), metrics=metrics,
            positive=positive, weight=weight, labels=labels, shape=shape, sample=sample,
            class_column=class_column,
        )
        return self._finish(result)

    def calibration(
        self,
        actual: str = "actual",
        prob: str = "prob",
        *,
        by: str | Sequence[str] | None = None,
        n_bins: int = 5,
        strategy: Literal["uniform", "quantile"] = "uniform",
        positive: Any = AUTO,
    ) -> FrameT:
        """The reliability curve per group: ``[*by, bin, count, mean_predicted, fraction_positive]``.

        scikit-learn's ``calibration_curve(y, prob, n_bins=, strategy=)``:
        ``fraction_positive`` is its ``prob_true`` and ``mean_predicted`` its
        ``prob_pred``, one row per non-empty bin (``bin`` counts from 0, low
        probabilities first). ``strategy="uniform"`` cuts [0, 1] into equal
        widths, ``"quantile"`` at the quantiles of the group's probabilities.
        The expected calibration error, ``sum_b count_b / n * |mean_predicted_b
        - fraction_positive_b|``, is the measure ``ECE`` (``C.expected_calibration_error``,
        or ``.ireval.probabilities(..., metrics=["ECE(n_bins=5)"])``).

        Parameters as in :meth:`roc`; probabilities must lie in [0, 1].

        Examples
        --------
        >>> import polars as pl, frame_eval as fe
        >>> preds = pl.DataFrame({"y": [0, 0, 1, 1], "p": [0.1, 0.3, 0.6, 0.8]})
        >>> preds.ireval.calibration("y", "p", n_bins=2).rows()
        [(0, 2, 0.2, 0.0), (1, 2, 0.7, 1.0)]
        """
        from frame_eval.classification import probabilities as _probabilities

        result = _probabilities.calibration(
            self._predictions(), actual, prob, as_by(by), n_bins=n_bins, strategy=strategy,
            positive=positive,
        )
        return self._finish(result)

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
