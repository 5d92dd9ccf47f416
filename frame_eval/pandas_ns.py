"""The ``.ireval`` accessor on :class:`pandas.DataFrame`.

Each method converts the frame (and any frame argument) to polars, calls
the polars namespace of the same name and converts the result back, so
pandas and polars give the same rows and values. The pandas index is not
used; the caller's frames are never modified. Needs pandas and pyarrow
(``pip install frame-eval[pandas]``).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from typing import Any

import polars as pl

from frame_eval.polars_ns import IREvalNamespace


class PandasIREval:
    """``pandas_df.ireval``: the polars ``.ireval`` methods, pandas in and pandas out."""

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        namespace = IREvalNamespace(pl.from_pandas(self._frame))
        return getattr(namespace, method)(*args, **kwargs).to_pandas()

    def judge(self, qrels: Any, **options: Any) -> Any:
        """Run joined with judgements; see :meth:`frame_eval.polars_ns.IREvalNamespace.judge`."""
        return self._call("judge", qrels, **options)

    def evaluate(self, qrels: Any, measures: Any = None, **options: Any) -> Any:
        """Per-query values; see :meth:`frame_eval.polars_ns.IREvalNamespace.evaluate`."""
        args = (qrels,) if measures is None else (qrels, measures)
        return self._call("evaluate", *args, **options)

    def summarize(self, qrels: Any, measures: Any = None, **options: Any) -> Any:
        """Means over queries; see :meth:`frame_eval.polars_ns.IREvalNamespace.summarize`."""
        args = (qrels,) if measures is None else (qrels, measures)
        return self._call("summarize", *args, **options)

    def confusion(self, actual: str = "actual", predicted: str = "predicted", **options: Any) -> Any:
        """Confusion counts; see :meth:`frame_eval.polars_ns.IREvalNamespace.confusion`."""
        return self._call("confusion", actual, predicted, **options)

    def rates(self, actual: str = "actual", predicted: str = "predicted", **options: Any) -> Any:
        """Rates, tidy long; see :meth:`frame_eval.polars_ns.IREvalNamespace.rates`."""
        return self._call("rates", actual, predicted, **options)

    def confusion_matrix(self, actual: str = "actual", predicted: str = "predicted", **options: Any) -> Any:
        """K x K matrix, tidy long; see :meth:`frame_eval.polars_ns.IREvalNamespace.confusion_matrix`."""
        return self._call("confusion_matrix", actual, predicted, **options)

    def roc(self, actual: str = "actual", score: Any = "score", **options: Any) -> Any:
        """ROC curve points; see :meth:`frame_eval.polars_ns.IREvalNamespace.roc`."""
        return self._call("roc", actual, score, **options)

    def pr_curve(self, actual: str = "actual", score: Any = "score", **options: Any) -> Any:
        """Precision-recall curve points; see :meth:`frame_eval.polars_ns.IREvalNamespace.pr_curve`."""
        return self._call("pr_curve", actual, score, **options)

    def scores(self, actual: str = "actual", score: Any = "score", **options: Any) -> Any:
        """ROC AUC, average precision, ...; see :meth:`frame_eval.polars_ns.IREvalNamespace.scores`."""
        return self._call("scores", actual, score, **options)


    # -- comparing systems (frame_eval.compare) ----------------------------------------------

    def compare(self, baseline: Any = None, **options: Any) -> Any:
        """Paired significance tests; see :func:`frame_eval.compare.compare`."""
        return self._call("compare", baseline, **options)

    def intervals(self, **options: Any) -> Any:
        """Means with confidence intervals; see :func:`frame_eval.compare.intervals`."""
        return self._call("intervals", **options)

    def report(self, format: str = "markdown", **options: Any) -> str:
        """Markdown or LaTeX results table; see :func:`frame_eval.compare.report`."""
        from frame_eval.compare import report

        return report(self._frame, format, **options)  # type: ignore[arg-type]

    def tie_aware(self, measures: Any = ("AP", "nDCG@10", "P@10", "RR"), **options: Any) -> Any:
        """Tie-aware values of a judged frame; see :func:`frame_eval.compare.tie_aware`."""
        return self._call("tie_aware", measures, **options)


def _register_now() -> None:
    import pandas as pd

    if not hasattr(pd.DataFrame, "ireval"):
        pd.api.extensions.register_dataframe_accessor("ireval")(PandasIREval)


class _AfterPandasImport(importlib.abc.MetaPathFinder):
    """Registers the accessor right after pandas is first imported, so importing
    frame_eval never imports pandas itself."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "pandas":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module: Any) -> None:
            run_module(module)
            _register_now()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def register() -> None:
    """Register ``.ireval`` on pandas DataFrame now if pandas is loaded, else once it is."""
    if "pandas" in sys.modules:
        _register_now()
    elif importlib.util.find_spec("pandas") is not None and not any(
        isinstance(f, _AfterPandasImport) for f in sys.meta_path
    ):
        sys.meta_path.insert(0, _AfterPandasImport())
