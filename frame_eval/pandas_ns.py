"""The ``.ireval`` accessor on :class:`pandas.DataFrame`.

Each method is generated from the polars namespace method of the same name
(same signature, same documentation, one definition): it converts the
pandas frames to polars, calls that method and converts the result back, so
pandas and polars give the same rows and values. Needs pandas and pyarrow
(``pip install frame-eval[pandas]``).

What the pandas front end adds, and nothing more:

- **Errors in pandas terms.** A ``ValueError`` or ``TypeError`` from the core
  is raised again, same type, with its message rewritten for pandas users
  (``df['x'].astype('float64')`` for ``pl.col('x').cast(pl.Float64)``,
  pandas dtype names, missing values called missing); see :func:`pandas_message`.
  The core's warnings are rewritten the same way.
  Rows are counted by position from 0; the message adds the row's index
  label when the frame's index is not the default one.
- **NaN stays NaN.** A NaN in a float column is reported as NaN; ``None``,
  ``NaN`` in a text column and ``pd.NA`` are reported as missing values.
- **Index levels are used.** A column named in a call (``query_id``,
  ``doc_id``, ``by=``, ``actual``...) that is a level of the frame's index
  rather than a column, e.g. after ``set_index("query_id")`` or a
  ``groupby()`` result, is read from the index (as ``reset_index`` would);
  other index levels are ignored.
- **Non-string column labels work.** ``query_id=0`` names the column
  labelled ``0``; results keep the caller's labels.
- The caller's frames are never modified.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import polars as pl

from frame_eval.arrow_input import is_arrow_stream, read_arrow_stream
from frame_eval.polars_ns import IREvalNamespace, is_frame

_RANKING: Final = frozenset({"judge", "evaluate", "summarize", "ranking_curve"})
_COLUMN_PARAMS: Final = (
    "by", "query_id", "doc_id", "score", "relevance", "rank", "actual", "predicted", "weight", "prob",
    "sample", "class_column",
)
_ROLES: Final = ("run", "qrels", "predictions")


# -- pandas frames to polars ---------------------------------------------------------------------

@dataclass
class _Converted:
    """A pandas frame as polars, with what is needed to talk about it in pandas terms."""

    original: Any  # the caller's pandas frame (never modified)
    frame: pl.DataFrame
    labels: dict[str, Any] = field(default_factory=dict)  # polars name -> non-string pandas label

    def dtype_of(self, name: str) -> str | None:
        label = self.labels.get(name, name)
        source = self.original
        if label in source.columns:
            return str(source[label].dtype)
        if label in source.index.names:
            return str(source.index.get_level_values(label).dtype)
        return None

    def row_label(self, position: int) -> str:
        """``"; index label <label>"`` when the index is not the default 0, 1, 2...; else ``""``."""
        index = self.original.index
        default = type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1
        if default or not 0 <= position < len(index):
            return ""
        return f"; index label {_plain(index[position])!r}"


def _plain(value: Any) -> Any:
    """A numpy scalar (or a tuple of them, from a MultiIndex) as the Python value it shows."""
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value.item() if type(value).__module__ == "numpy" and hasattr(value, "item") else value


def _null_dtype_for(series: Any) -> pl.DataType:
    """The polars dtype of a column pandas holds no values of (an empty categorical, ...)."""
    dtype = series.dtype
    kind = dtype.categories.dtype.kind if str(dtype) == "category" else dtype.kind
    return {"i": pl.Int64, "u": pl.Int64, "f": pl.Float64, "b": pl.Boolean}.get(kind, pl.String)


def _conversion_error(frame: Any, role: str, error: Exception) -> TypeError:
    """A clean error naming the column pyarrow could not convert (mixed kinds of values, ...)."""
    for label in frame.columns:
        try:
            pl.from_pandas(frame[[label]], nan_to_null=False)
        except Exception:  # any failure here points at this column
            kinds = sorted({type(v).__name__ for v in frame[label] if v is not None})
            return TypeError(
                f"{role} column {label!r} cannot be read: it mixes values of types {', '.join(kinds)}; "
                f"give it one type, e.g. df[{label!r}].astype(str)"
            )
    return TypeError(f"the {role} frame cannot be converted to polars: {error}")


def _to_polars(frame: Any, role: str, wanted: set[Any]) -> _Converted:
    """Convert a pandas frame; index levels named in ``wanted`` (and not columns) become columns."""
    if type(frame.columns).__name__ == "MultiIndex":
        raise TypeError(
            f"the {role} frame has MultiIndex columns; flatten them to single names first, "
            f"e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns]"
        )
    levels = [
        name for name in frame.index.names
        if name is not None and name not in frame.columns and _hashable(name) and name in wanted
    ]
    source = frame.reset_index(level=levels) if levels else frame
    if source.columns.has_duplicates:
        repeated = source.columns[source.columns.duplicated()][0]
        raise ValueError(f"the {role} frame has more than one column labelled {repeated!r}; rename them")
    labels = {str(c): c for c in source.columns if not isinstance(c, str)}
    taken = {c for c in source.columns if isinstance(c, str)}
    clash = [name for name in labels if name in taken]
    if clash:
        raise ValueError(
            f"the {role} frame has columns {labels[clash[0]]!r} and {clash[0]!r}, which are the same name "
            f"as text; rename one, e.g. df.rename(columns={{{labels[clash[0]]!r}: 'new_name'}})"
        )
    try:
        converted = pl.from_pandas(source, nan_to_null=False)
    except Exception as error:  # pyarrow raises many types; name the column
        raise _conversion_error(source, role, error) from None
    nulls = [name for name, dtype in converted.schema.items() if dtype == pl.Null]
    if nulls:
        converted = converted.with_columns(
            pl.col(name).cast(_null_dtype_for(source[labels.get(name, name)])) for name in nulls
        )
    return _Converted(frame, converted, labels)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _is_pandas(frame: Any) -> bool:
    return type(frame).__module__.startswith("pandas") and hasattr(frame, "columns")


def _column_names(arguments: Mapping[str, Any]) -> set[Any]:
    """Every column label the caller's arguments name (by=, query_id=, a score mapping...)."""
    names: set[Any] = set()
    for param in _COLUMN_PARAMS:
        value = arguments.get(param)
        if isinstance(value, Mapping):
            names.update(v for v in value.values() if _hashable(v))
        elif isinstance(value, list | tuple):
            names.update(v for v in value if _hashable(v))
        elif value is not None and _hashable(value):
            names.add(value)
    return names


def _polars_arguments(arguments: dict[str, Any], labels: Mapping[Any, str]) -> dict[str, Any]:
    """The caller's arguments with non-string column labels replaced by their polars names."""

    def name(value: Any) -> Any:
        return labels.get(value, value) if _hashable(value) and not isinstance(value, bool) else value

    out = dict(arguments)
    for param in _COLUMN_PARAMS:
        value = out.get(param)
        if isinstance(value, Mapping):
            out[param] = {k: name(v) for k, v in value.items()}
        elif isinstance(value, list | tuple):
            out[param] = [name(v) for v in value]
        elif param == "by" and value is not None and not isinstance(value, str) and value in labels:
            out[param] = labels[value]
        elif value is not None:
            out[param] = name(value)
    return out


# -- messages in pandas terms ---------------------------------------------------------------------

_PANDAS_DTYPES: Final = {
    "Boolean": "bool", "String": "str", "Utf8": "str", "Categorical": "category", "Enum": "category",
    "Float32": "float32", "Float64": "float64", "Int8": "int8", "Int16": "int16", "Int32": "int32",
    "Int64": "int64", "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
    "Null": "object (all missing)", "Object": "object", "Date": "datetime64", "Datetime": "datetime64",
    "Duration": "timedelta64", "Decimal": "decimal", "Binary": "bytes", "List": "list", "Struct": "dict",
}
_ASTYPE: Final = {"bool": "bool", "str": "str"}
_DTYPE: Final = (
    r"(?P<dtype>(?:Enum|Categorical|Datetime|Duration|Decimal|List|Struct|Array)"
    r"\((?:[^()]|\([^()]*\))*\)|\w+)"
)
_CAST = re.compile(r"pl\.col\((?P<col>'[^']*'|\"[^\"]*\")\)\.cast\(pl\." + _DTYPE + r"\)")
_COL = re.compile(r"pl\.col\((?P<col>'[^']*'|\"[^\"]*\")\)")
_PL_DTYPE = re.compile(r"\bpl\." + _DTYPE)
_GOT = re.compile(
    r"\b(?P<role>run|qrels|predictions) column (?P<col>'[^']*'|\"[^\"]*\") (?P<middle>[^;]*?)\bgot "
    + _DTYPE
)
_POLARS_DTYPE_WORD = re.compile(
    r"\b(?:(?:Enum|Categorical|Datetime|Duration|Decimal)\((?:[^()]|\([^()]*\))*\)|"
    + "|".join(sorted((k for k in _PANDAS_DTYPES if k[0].isupper() and k != "Object"), key=len, reverse=True))
    + r")(?![\w(])"
)
_ROW = re.compile(r"\brow (?P<row>\d+)\b(?:, counting from 0)?")
_NULL = re.compile(r"\bnull values\b")
_FRAME_TYPES = re.compile(r"\ba polars DataFrame or LazyFrame or a pandas DataFrame\b")

def _pandas_dtype(polars_name: str) -> str:
    base = polars_name.split("(", 1)[0]
    return _PANDAS_DTYPES.get(base, base)


def _astype(polars_name: str) -> str:
    pandas = _pandas_dtype(polars_name)
    return _ASTYPE.get(pandas, repr(pandas.split(" ", 1)[0]))


def pandas_message(message: str, frames: Mapping[str, _Converted] | None = None) -> str:
    """Rewrite a core error message for pandas users.

    The rewriting follows the patterns the core's messages use:

    - ``pl.col('x').cast(pl.T)`` becomes ``df['x'].astype(<pandas dtype>)``;
      any other ``pl.col('x')`` becomes ``df['x']`` and ``pl.T`` a pandas dtype name;
    - ``<frame> column 'x' ... got T`` names the column's pandas dtype (``run``,
      ``qrels`` or ``predictions``), other polars dtype names their pandas twin;
    - ``null values`` become missing values (None, NaN or pd.NA);
    - ``row N`` (0-based) gets the row's index label when the index is not the default;
    - mentions of LazyFrame and of collecting are left out (the clause that
      talks of collecting is dropped).

    >>> pandas_message("run column 'score' must be numeric, got String; "
    ...                "cast it, e.g. pl.col('score').cast(pl.Float64)")
    "run column 'score' must be numeric, got str; cast it, e.g. df['score'].astype('float64')"
    """
    frames = frames or {}
    role_match = re.search(r"\b(run|qrels|predictions)\b", message)
    role = role_match.group(1) if role_match else ""

    def converted(name: str) -> _Converted | None:
        return frames.get(name) or (frames.get("predictions") if name == "run" else None)

    kept: list[str] = []  # pandas text already final, kept out of the dtype-name rewriting

    def keep(text: str) -> str:
        kept.append(text)
        return f"\x00{len(kept) - 1}\x00"

    def got(m: re.Match[str]) -> str:
        frame = converted(m["role"])
        actual = frame.dtype_of(m["col"][1:-1]) if frame is not None else None
        return f"{m['role']} column {m['col']} {m['middle']}got {keep(actual or _pandas_dtype(m['dtype']))}"

    counted = re.search(r"0-based|from 0|counted from zero", message) is not None

    def row(m: re.Match[str]) -> str:
        frame = converted(role)
        label = frame.row_label(int(m["row"])) if frame is not None else ""
        if label:
            return f"row {m['row']} (0-based position{label})"
        return m[0] if counted else f"row {m['row']} (0-based)"

    text = _CAST.sub(lambda m: keep(f"df[{m['col']}].astype({_astype(m['dtype'])})"), message)
    text = _COL.sub(lambda m: f"df[{m['col']}]", text)
    text = _PL_DTYPE.sub(lambda m: keep(repr(_pandas_dtype(m["dtype"]))), text)
    text = _GOT.sub(got, text)
    text = _POLARS_DTYPE_WORD.sub(lambda m: _pandas_dtype(m[0]), text)
    text = re.sub("\x00(\\d+)\x00", lambda m: kept[int(m[1])], text)
    text = _NULL.sub("missing values (None, NaN or pd.NA)", text)
    text = _ROW.sub(row, text)
    text = _FRAME_TYPES.sub("a pandas DataFrame", text)
    if "collect" in text.lower():  # any other talk of collecting: leave out the clause that says it
        text = _without_clauses(text, "collect")
    text = re.sub(r"\bLazyFrames?\b", "DataFrame", text)
    text = re.sub(r"\bpolars\b", "pandas", text)
    for frame in frames.values():
        for name, label in frame.labels.items():
            text = text.replace(repr(name), repr(label))
    return text


def _without_clauses(text: str, word: str) -> str:
    """``text`` without the smallest clauses (``; ``, ``. ``, ``, `` separated) that mention ``word``."""
    sentences = []
    for sentence in re.split(r"(?<=[;.]) ", text):
        if word not in sentence.lower():
            sentences.append(sentence)
            continue
        end = sentence[-1] if sentence[-1] in ";." else ""
        kept = [part for part in sentence.rstrip(";.").split(", ") if word not in part.lower()]
        if kept:
            sentences.append(", ".join(kept) + end)
    return " ".join(sentences).rstrip(";, ")


def _rethrow(error: ValueError | TypeError, frames: Mapping[str, _Converted]) -> Exception:
    kind = type(error)
    text = pandas_message(str(error), frames)
    try:
        clean = kind(text)
    except Exception:  # an exception type that takes other arguments
        clean = (TypeError if isinstance(error, TypeError) else ValueError)(text)
    return clean


# -- the accessor ---------------------------------------------------------------------------------

def _pandas_doc(doc: str | None) -> str:
    """The polars method's documentation without its polars examples, plus what pandas adds."""
    text = (doc or "").split("\n        Examples\n", 1)[0].rstrip()
    return (
        f"{text}\n\n        pandas: the same parameters; pandas frames in and out (``qrels`` may also be a "
        f"polars frame).\n        Index levels named as columns are read, errors speak pandas; see "
        f":mod:`frame_eval.pandas_ns`.\n"
    )


def _generated(name: str) -> Callable[..., Any]:
    """``PandasIREval.<name>``: the polars method's signature and documentation, pandas in and out."""
    target = getattr(IREvalNamespace, name)
    signature = inspect.signature(target)
    if "Frame" in str(signature.return_annotation):  # frames come back as pandas; text stays text
        signature = signature.replace(return_annotation="pandas.DataFrame")

    @functools.wraps(target)
    def method(self: PandasIREval, *args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments: dict[str, Any] = {}
        for param, value in list(bound.arguments.items())[1:]:  # without self
            kind = signature.parameters[param].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                arguments.update(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                if value:
                    raise TypeError(f"{name}() takes its extra arguments by keyword")
            else:
                arguments[param] = value
        return self._run(name, arguments)

    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__doc__ = _pandas_doc(target.__doc__)
    method.__annotations__ = {**target.__annotations__, "return": signature.return_annotation}
    method.__module__ = __name__
    method.__qualname__ = f"PandasIREval.{name}"
    return method


class PandasIREval:
    """``pandas_df.ireval``: the polars ``.ireval`` methods, pandas in and pandas out.

    >>> import pandas as pd, frame_eval as fe
    >>> run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [0.2, 0.9, 0.5]})
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "d"], "relevance": [1, 2]})
    >>> run.set_index("query_id").ireval.evaluate(qrels, ["P@2", "RR"]).values.tolist()
    [['q1', 'P@2', 0.5], ['q1', 'RR', 1.0]]
    >>> preds = pd.DataFrame({"label": [1, 0, 1], "prob": [0.9, None, 0.2]})
    >>> preds.ireval.scores("label", "prob")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: 1 NaN values in predictions column 'prob' (first at row 1...); drop or fill them
    """

    def __init__(self, frame: Any) -> None:
        self._frame = frame

    def _run(self, name: str, arguments: dict[str, Any]) -> Any:
        ranking = name in _RANKING or (name == "pr_curve" and is_frame(arguments.get("actual")))
        role = "run" if ranking else "predictions"
        wanted = _column_names(arguments)
        frames = {role: _to_polars(self._frame, role, wanted)}
        for param, value in arguments.items():  # frame arguments (qrels, ...) are converted too
            if _is_pandas(value):
                frames[param] = _to_polars(value, param, wanted)
                arguments[param] = frames[param].frame
            elif param == "qrels" and is_arrow_stream(value):  # a pyarrow Table, a DuckDB relation, ...
                arguments[param] = read_arrow_stream(value, param)
        qrels = arguments.get("qrels")
        if "qrels" in arguments and not isinstance(qrels, pl.DataFrame | pl.LazyFrame):
            raise TypeError(f"qrels must be a pandas DataFrame or an Arrow table (an object with "
                            f"__arrow_c_stream__), got {type(qrels).__name__}")
        labels = {label: name for frame in frames.values() for name, label in frame.labels.items()}
        namespace = IREvalNamespace(frames[role].frame)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = getattr(namespace, name)(**_polars_arguments(arguments, labels))
            except (ValueError, TypeError) as error:
                if isinstance(error, pl.exceptions.PolarsError):
                    raise
                raise _rethrow(error, frames) from None
        for warning in caught:  # the core's warnings, also in pandas terms, pointing at the caller
            warnings.warn(pandas_message(str(warning.message), frames), warning.category, stacklevel=3)
        if not isinstance(result, pl.DataFrame):  # a method that returns text or a number
            return result
        back = {name: label for name, label in frames[role].labels.items() if name in result.columns}
        out = result.to_pandas()
        return out.rename(columns=back) if back else out

    judge = _generated("judge")
    evaluate = _generated("evaluate")
    summarize = _generated("summarize")
    confusion = _generated("confusion")
    rates = _generated("rates")
    confusion_matrix = _generated("confusion_matrix")
    roc = _generated("roc")
    pr_curve = _generated("pr_curve")
    scores = _generated("scores")


def public_methods() -> list[str]:
    """The polars namespace's public methods (its own and those of its families, ``polars_ns_*``):
    the pandas accessor has each, with its signature."""
    return [
        name
        for family in IREvalNamespace.__mro__ if family.__module__.startswith("frame_eval.")
        for name, value in vars(family).items() if not name.startswith("_") and callable(value)
    ]


for _name in public_methods():  # methods added to the polars namespace later come along
    if _name not in vars(PandasIREval):
        setattr(PandasIREval, _name, _generated(_name))


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
