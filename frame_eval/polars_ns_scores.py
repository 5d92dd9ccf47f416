"""The classification methods of ``.ireval`` on scores and probabilities: ``roc``, ``pr_curve``,
``det_curve``, ``scores``, ``probabilities`` and ``calibration``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from frame_eval.classification import evaluate as _classify
from frame_eval.classification.counts import AUTO
from frame_eval.judged import as_by
from frame_eval.polars_ns_base import FrameT, NamespaceBase, _collects, is_frame


class ScoreMethods(NamespaceBase[FrameT]):
    """Curves and scores of a score column, and measures of predicted probabilities."""

    # -- classification: scores and probabilities ----------------------------------------------

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
