"""frame_eval on PySpark: the ``.ireval`` methods for :class:`pyspark.sql.DataFrame`.

``fe.spark.evaluate(run, qrels, measures, by=...)`` and the other functions here take and
return Spark DataFrames, with the parameters and output columns of the polars methods of
the same name. Results are lazy Spark plans: nothing is read or collected to the driver
until you act on them (``show``, ``write``, ``collect``).

How (one definition of every measure): the run and the qrels are shuffled by a hash of the
query id into ``buckets`` groups (default ``spark.sql.shuffle.partitions``), and frame_eval's
own polars evaluation runs on each bucket through Spark's Arrow grouped map
(``groupBy(...).cogroup(...).applyInArrow``). A query's values depend only on its own rows,
so they are the polars values exactly (``==``). ``summarize`` takes those per-query values
to one group per ``by`` value (``groupBy(by).applyInArrow``) and applies the polars
summary: sums in the text order of the query ids, then one division, the same bits.
Classification methods run per ``by`` group the same way. Memory per task is bounded by
the largest bucket (ranking) or ``by`` group (classification), not by the input.

- Output schemas are derived from the polars plans on empty frames of the inputs' schemas,
  so schema errors (a missing column, a wrong dtype) raise at once, with the polars text.
- Data errors (nulls, NaN, repeated rows) raise when the Spark job runs: Spark reports a
  ``PythonException`` whose message holds frame_eval's ``ValueError`` text. A row number
  there counts within one shuffle group as it reached the worker; the values shown
  identify the row.
- Unsigned integer columns of a result become signed (``rank``: ``long``); categorical
  columns become strings. Rows come in no particular order (sort as you need).
- ``strict=True``: the distinct query ids of each bucket are counted in polars, the counts
  added up in one task, and the polars error raised from the job when fewer than half of
  the run's queries have judgements (without ``strict`` nothing warns: no warning reaches
  the driver from a job). ``summarize(ci=...)``: the polars intervals, computed with the
  summary from each ``by`` group's per-query values. Without ``by``, an empty input gives
  an empty summary (polars gives one row with ``num_q`` 0).
- Every worker needs frame_eval and polars installed (``pip install "frame-eval[spark]"``
  on the cluster's Python; a local session uses the driver's).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from frame_eval import evaluate as _core
from frame_eval.engines import _grouped

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    from pyspark.sql import DataFrame

__all__ = [
    "best_threshold", "calibration", "classification_report", "confusion", "confusion_matrix",
    "det_curve", "evaluate", "evaluate_with", "judge", "pr_curve", "probabilities", "rates", "roc",
    "scores", "summarize",
]

ENGINE = "Spark"


def _pyspark() -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyspark.sql
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            'frame_eval.spark needs PySpark 4 and pyarrow: pip install "frame-eval[spark]"'
        ) from error
    return pyspark.sql


def _require_frame(frame: Any, name: str) -> None:
    if not type(frame).__module__.startswith("pyspark.sql"):
        raise TypeError(f"{name} must be a pyspark.sql.DataFrame, got {type(frame).__name__}; "
                        f"for polars or pandas frames use the .ireval methods")


def _empty(frame: DataFrame) -> pl.DataFrame:
    """An empty polars frame with ``frame``'s columns, typed as Spark hands them to Python."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return pl.from_arrow(to_arrow_schema(frame.schema).empty_table())  # type: ignore[return-value]


def _storable(dtype: pl.DataType) -> pl.DataType:
    """The polars dtype a Spark column can hold: unsigned widened to signed, categories as text."""
    if dtype in (pl.UInt8,):
        return pl.Int16
    if dtype == pl.UInt16:
        return pl.Int32
    if dtype in (pl.UInt32, pl.UInt64):
        return pl.Int64
    if isinstance(dtype, pl.Categorical | pl.Enum):
        return pl.String
    if isinstance(dtype, pl.List | pl.Array):
        return pl.List(_storable(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return pl.Struct({f.name: _storable(f.dtype) for f in dtype.fields})
    return dtype


def _spark_type(dtype: pl.DataType) -> Any:
    from pyspark.sql import types as T

    simple = {pl.Int8: T.ByteType(), pl.Int16: T.ShortType(), pl.Int32: T.IntegerType(),
              pl.Int64: T.LongType(), pl.Float32: T.FloatType(), pl.Float64: T.DoubleType(),
              pl.Boolean: T.BooleanType(), pl.String: T.StringType(), pl.Date: T.DateType(),
              pl.Null: T.NullType()}
    for polars_type, spark_type in simple.items():
        if dtype == polars_type:
            return spark_type
    if isinstance(dtype, pl.Datetime):
        return T.TimestampType() if dtype.time_zone else T.TimestampNTZType()
    if isinstance(dtype, pl.Decimal):
        return T.DecimalType(dtype.precision or 38, dtype.scale or 0)
    if isinstance(dtype, pl.List):
        return T.ArrayType(_spark_type(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return T.StructType([T.StructField(f.name, _spark_type(f.dtype)) for f in dtype.fields])
    raise TypeError(f"a result column of dtype {dtype} has no Spark type; cast it before evaluating")


class _Output:
    """A polars result schema as Spark sees it, and the conversion of results to it.

    Spark's grouped maps look columns up by name, where a dot means a struct field, so
    inside a job columns are named by position (``_c0``, ``_c1``, ...); ``named`` gives a
    finished frame its real names back.
    """

    def __init__(self, schema: pl.Schema) -> None:
        from pyspark.sql import types as T
        from pyspark.sql.pandas.types import to_arrow_schema

        self.names = list(schema.names())
        self.storable = {name: _storable(dtype) for name, dtype in schema.items()}
        self.spark = T.StructType([
            T.StructField(_position(i), _spark_type(d)) for i, d in enumerate(self.storable.values())
        ])
        self.arrow = to_arrow_schema(self.spark)

    def __call__(self, frame: pl.DataFrame) -> pa.Table:
        stored = frame.cast(self.storable)  # type: ignore[arg-type]
        stored.columns = [_position(i) for i in range(stored.width)]
        return stored.to_arrow().cast(self.arrow)

    def named(self, frame: DataFrame) -> DataFrame:
        return frame.toDF(*self.names)


def _position(i: int) -> str:
    return f"_c{i}"


def _positional(frame: DataFrame) -> tuple[DataFrame, dict[str, str]]:
    """``frame`` with columns named ``_c0``, ``_c1``, ...; and each real name's position name."""
    names = frame.columns
    at = {n: _position(i) for i, n in enumerate(names)}
    return frame.toDF(*at.values()), at


def _polars(rows: pa.Table, names: list[str]) -> pl.DataFrame:
    """A group's rows as polars, with their real column names (the bucket column dropped)."""
    frame: pl.DataFrame = pl.from_arrow(rows)  # type: ignore[assignment]
    frame.columns = names if frame.width == len(names) else [*names, _grouped.BUCKET]  # one group: a key
    return frame.drop(_grouped.BUCKET, strict=False)


_SPARK_TYPES = {"String": "string", "Float64": "double", "Float32": "float", "Int64": "bigint",
                "Int32": "int", "Int16": "smallint", "Int8": "tinyint", "Boolean": "boolean", "Date": "date",
                "Null": "void", "Binary": "binary"}


def spark_message(text: str) -> str:
    """A core message in Spark terms: ``pl.col('x').cast(pl.Float64)`` becomes
    ``F.col('x').cast('double')`` and the dtype after ``got`` a Spark type name.

    >>> spark_message("run column 'score' must be numeric, got String; cast it, "
    ...               "e.g. pl.col('score').cast(pl.Float64)")
    "run column 'score' must be numeric, got string; cast it, e.g. F.col('score').cast('double')"
    """
    def cast(match: re.Match[str]) -> str:
        return f"F.col({match.group(1)}).cast({_SPARK_TYPES.get(match.group(2), match.group(2).lower())!r})"

    text = re.sub(r"pl\.col\(('(?:[^'\\]|\\.)*'|\"[^\"]*\")\)\.cast\(pl\.(\w+)\)", cast, text)
    def dtype(match: re.Match[str]) -> str:
        return f"got {_SPARK_TYPES.get(match.group(1), match.group(1))}"

    return re.sub(r"\bgot (\w+)(?=[;,.]| in )", dtype, text)


def _noted(step: Callable[..., pl.DataFrame]) -> Callable[..., pl.DataFrame]:
    @functools.wraps(step)
    def call(*frames: pl.DataFrame) -> pl.DataFrame:
        try:
            return step(*frames)
        except (ValueError, TypeError) as error:
            raise _grouped.with_note(error, ENGINE, spark_message) from None
    return call


def _planned(make: Callable[[], Any]) -> Any:
    """``make()``, its schema errors in Spark terms."""
    try:
        return make()
    except (ValueError, TypeError) as error:
        raise type(error)(spark_message(str(error))) from None


def _col(name: str) -> Any:
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _bucket(query_id: str, buckets: int) -> Any:
    from pyspark.sql import functions as F

    # the id's text, so integer ids of different widths on the two sides hash alike
    return F.pmod(F.xxhash64(_col(query_id).cast("string")), F.lit(buckets)).alias(_grouped.BUCKET)


def _buckets(run: DataFrame, buckets: int | None) -> int:
    if buckets is None:
        setting = run.sparkSession.conf.get("spark.sql.shuffle.partitions") or "200"
        return int(setting) if setting.isdigit() else 200  # some platforms say "auto"
    if isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1:
        raise ValueError(f"buckets must be a positive integer, got {buckets!r}")
    return buckets


def _ranking(method: str, run: DataFrame, qrels: DataFrame, measures: Any, buckets: int | None,
             options: dict[str, Any]) -> DataFrame:
    _pyspark()
    _require_frame(run, "run")
    _require_frame(qrels, "qrels")
    plan = _planned(lambda: _grouped.ranking_plan(method, _empty(run), _empty(qrels), measures, options))
    n = _buckets(run, buckets)
    left = run.withColumn(_grouped.BUCKET, _bucket(plan.query_id, n))
    right = qrels.select(*[_col(c) for c in plan.qrels_columns])
    keys = [_grouped.BUCKET]
    if plan.per_system:  # every system's judgements, so each system's empty queries are scored
        systems = run.select(*[_col(b).alias(b) for b in plan.by]).distinct()  # aliased: a new lineage
        right = right.crossJoin(systems)
        keys = [*plan.by, _grouped.BUCKET]
    right = right.withColumn(_grouped.BUCKET, _bucket(plan.query_id, n))
    left_names, right_names = left.columns, right.columns
    (left, left_at), (right, right_at) = _positional(left), _positional(right)
    values = _Output(plan.schema)
    step = _noted(plan.step)

    def each_bucket(left_rows: pa.Table, right_rows: pa.Table) -> pa.Table:
        return values(step(_polars(left_rows, left_names), _polars(right_rows, right_names)))

    per_query = left.groupBy(*[left_at[k] for k in keys]).cogroup(
        right.groupBy(*[right_at[k] for k in keys])
    ).applyInArrow(each_bucket, values.spark)
    if plan.summary is None:
        result = values.named(per_query)
    else:
        assert plan.summary_schema is not None
        totals = _Output(plan.summary_schema)
        summary = _noted(plan.summary)

        def each_group(rows: pa.Table) -> pa.Table:
            return totals(summary(_polars(rows, values.names)))

        result = totals.named(_per_group(per_query, [values.names.index(b) for b in plan.by], each_group,
                                         totals))
    if not plan.strict:
        return result
    return _with_overlap_check(result, run, qrels, plan.query_id, n)


def _with_overlap_check(result: DataFrame, run: DataFrame, qrels: DataFrame, query_id: str, n: int
                        ) -> DataFrame:
    """``result`` joined to the overlap check of ``strict=True`` (one row, or the job's error): the
    distinct query ids of each bucket counted in polars, the counts added up in one task."""
    from pyspark.sql import functions as F

    def ids(frame: DataFrame) -> tuple[DataFrame, list[str]]:
        bucketed = frame.select(_col(query_id)).withColumn(_grouped.BUCKET, _bucket(query_id, n))
        names = bucketed.columns
        return _positional(bucketed)[0], names

    (left, left_names), (right, right_names) = ids(run), ids(qrels)
    counts = _Output(_grouped.overlap_counts(_empty(run), _empty(qrels), query_id).schema)
    count = _noted(_grouped.overlap_counts)

    def each_bucket(left_rows: pa.Table, right_rows: pa.Table) -> pa.Table:
        return counts(count(_polars(left_rows, left_names), _polars(right_rows, right_names), query_id))

    per_bucket = left.groupBy(_position(1)).cogroup(right.groupBy(_position(1))).applyInArrow(
        each_bucket, counts.spark)
    checked = _Output(pl.Schema({"checked": pl.Boolean}))
    check = _noted(_grouped.overlap_check)

    def total(rows: pa.Table) -> pa.Table:
        return checked(check(_polars(rows, counts.names)))

    flag = _per_group(per_bucket, [], total, checked).toDF(_grouped.BUCKET)
    # the check's one row joins every result row: the job cannot finish without it
    return result.crossJoin(flag).where(F.col(_grouped.BUCKET)).drop(_grouped.BUCKET)


def _per_group(frame: DataFrame, keys: list[int], each_group: Callable[[pa.Table], pa.Table],
               out: _Output) -> DataFrame:
    """``each_group`` on the rows of each value of the columns at ``keys`` (all rows: one group)."""
    from pyspark.sql import functions as F

    if keys:
        return frame.groupBy(*[_position(k) for k in keys]).applyInArrow(each_group, out.spark)
    one = frame.withColumn(_grouped.BUCKET, F.lit(0))
    return one.groupBy(_grouped.BUCKET).applyInArrow(each_group, out.spark)


def _classification(method: str, predictions: DataFrame, args: tuple[Any, ...],
                    options: dict[str, Any]) -> DataFrame:
    _pyspark()
    _require_frame(predictions, "predictions")
    plan = _planned(lambda: _grouped.classification_plan(method, _empty(predictions), args, options))
    out = _Output(plan.schema)
    step = _noted(plan.step)
    names = predictions.columns
    frame, _ = _positional(predictions)

    def each_group(rows: pa.Table) -> pa.Table:
        return out(step(_polars(rows, names)))

    return out.named(_per_group(frame, [names.index(b) for b in plan.by], each_group, out))


@_grouped.mirror("evaluate", "run", [_grouped.BUCKETS])
def evaluate(run: DataFrame, qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES, *,
             buckets: int | None = None, **options: Any) -> DataFrame:
    """Per-query values of ``measures`` on Spark: ``[*by, query_id, metric, value]`` (or wide).

    The parameters and output of :meth:`frame_eval.polars_ns.IREvalNamespace.evaluate`, and
    ``buckets``: how many groups the queries are hashed into (default
    ``spark.sql.shuffle.partitions``); a task holds one bucket's rows. The values equal
    the polars ones exactly.

    Examples
    --------
    >>> import frame_eval as fe                                          # doctest: +SKIP
    >>> run = spark.createDataFrame([("q1", "a", 0.2), ("q1", "b", 0.9)],
    ...                             "query_id string, doc_id string, score double")  # doctest: +SKIP
    >>> qrels = spark.createDataFrame([("q1", "b", 1)], "query_id string, doc_id string, relevance long")
    ...                                                                  # doctest: +SKIP
    >>> fe.spark.evaluate(run, qrels, ["P@2", "RR"]).orderBy("metric").collect()  # doctest: +SKIP
    [Row(query_id='q1', metric='P@2', value=0.5), Row(query_id='q1', metric='RR', value=1.0)]
    """
    return _ranking("evaluate", run, qrels, measures, buckets, options)


@_grouped.mirror("summarize", "run", [_grouped.BUCKETS])
def summarize(run: DataFrame, qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES, *,
              buckets: int | None = None, **options: Any) -> DataFrame:
    """Summaries over queries on Spark: ``[*by, metric, value, num_q]`` (or wide; with ``ci``,
    ``ci_low`` and ``ci_high``), as :meth:`frame_eval.polars_ns.IREvalNamespace.summarize`, with
    the same bits.

    Per-query values are computed per bucket (see :func:`evaluate`), then each ``by``
    group's values meet in one task, where the polars summary adds them in the text order
    of the query ids and divides once (and computes the intervals).

    >>> fe.spark.summarize(run, qrels, ["AP"]).collect()  # doctest: +SKIP
    [Row(metric='AP', value=1.0, num_q=1)]
    """
    return _ranking("summarize", run, qrels, measures, buckets, options)


@_grouped.mirror("judge", "run", [_grouped.BUCKETS])
def judge(run: DataFrame, qrels: DataFrame, *, buckets: int | None = None, **options: Any) -> DataFrame:
    """The judged frame on Spark, as :meth:`frame_eval.polars_ns.IREvalNamespace.judge`
    (``rank`` is a ``long``).

    >>> fe.spark.judge(run, qrels).select("doc_id", "rank", "relevance").orderBy("rank").collect()
    ...                                                                  # doctest: +SKIP
    [Row(doc_id='b', rank=1, relevance=1), Row(doc_id='a', rank=2, relevance=None)]
    """
    return _ranking("judge", run, qrels, None, buckets, options)


def evaluate_with(qrels: DataFrame, measures: _core.MeasureArg = _core.DEFAULT_MEASURES,
                  **options: Any) -> Callable[[DataFrame], DataFrame]:
    """:func:`evaluate` as a function of the run, for Spark's ``run.transform(...)`` chains.

    >>> per_query = run.transform(fe.spark.evaluate_with(qrels, ["AP", "nDCG@10"]))  # doctest: +SKIP
    """
    return lambda run: evaluate(run, qrels, measures, **options)


def _classification_function(name: str) -> Callable[..., DataFrame]:
    return _grouped.classification_function(name, _classification, engine="Spark", module="spark",
                                            holds="one task holds", collect="")


confusion = _classification_function("confusion")
rates = _classification_function("rates")
confusion_matrix = _classification_function("confusion_matrix")
roc = _classification_function("roc")
pr_curve = _classification_function("pr_curve")
det_curve = _classification_function("det_curve")
scores = _classification_function("scores")
best_threshold = _classification_function("best_threshold")
classification_report = _classification_function("classification_report")
probabilities = _classification_function("probabilities")
calibration = _classification_function("calibration")
