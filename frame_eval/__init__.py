"""frame_eval: retrieval and classification evaluation as dataframe operations.

Importing the package registers the ``.ireval`` namespace on
:class:`polars.DataFrame`, :class:`polars.LazyFrame` and (when pandas is
installed) :class:`pandas.DataFrame`.

>>> import polars as pl
>>> import frame_eval as fe
>>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
>>> run.ireval.evaluate(qrels, ["AP", "nDCG@10", "RR"], shape="wide").rows()
[('q1', 0.5, 0.6309297535714575, 0.5)]
"""

from __future__ import annotations

from frame_eval import classification, compare, ranking
from frame_eval import pandas_ns as _pandas_ns
from frame_eval import polars_ns as _polars_ns
from frame_eval.arrow_input import ireval
from frame_eval.engines import dask, spark
from frame_eval.io import (
    read_trec_prefs,
    read_trec_qrels,
    read_trec_run,
    scan_trec_prefs,
    scan_trec_qrels,
    scan_trec_run,
    write_trec_qrels,
    write_trec_run,
)
from frame_eval.registry import Measure, MeasureSpec, measure, parse_measures, specs

__all__ = [
    "Measure",
    "MeasureSpec",
    "classification",
    "compare",
    "dask",
    "ireval",
    "measure",
    "measures",
    "parse_measures",
    "ranking",
    "read_trec_prefs",
    "read_trec_qrels",
    "read_trec_run",
    "scan_trec_prefs",
    "scan_trec_qrels",
    "scan_trec_run",
    "spark",
    "write_trec_qrels",
    "write_trec_run",
]
__version__ = "0.1.0"


def measures(kind: str | None = None) -> list[str]:
    """Names of the registered measure families (``"ranking"``, ``"classification"`` or all)."""
    return [s.name for s in specs(kind)]  # type: ignore[arg-type]


_polars_ns.register()
_pandas_ns.register()
