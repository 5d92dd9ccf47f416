"""The classification methods of ``.ireval`` on predicted labels: ``confusion``, ``rates``,
``confusion_matrix``, ``classification_report``, and ``best_threshold`` of a score column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frame_eval.classification import evaluate as _classify
from frame_eval.classification.counts import AUTO, Average
from frame_eval.judged import as_by
from frame_eval.polars_ns_base import FrameT, NamespaceBase, _collects


class LabelMethods(NamespaceBase[FrameT]):
    """Counts and rates of predicted labels, and the best threshold of a score."""

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
