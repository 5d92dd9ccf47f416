"""Reading and writing TREC files (runs, qrels, preferences) as polars frames.

Formats, whitespace separated, read the way trec_eval 10.0 reads them:

- run: ``query_id Q0 doc_id rank score run_id``; anything after the sixth
  field is ignored, as trec_eval does.
- qrels: ``query_id iteration doc_id relevance``, exactly four fields.
- prefs: ``query_id judgement_group judgement_subgroup doc_id preference``,
  exactly five fields (trec_eval's ``-R prefs`` format).

Whitespace is what C's ``isspace`` calls whitespace (space, tab, CR, LF,
vertical tab, form feed), and runs of it separate fields. Blank lines and
lines whose first non-blank character is ``#`` are skipped, as trec_eval
10.0 skips them (a ``#`` inside a field, ``doc#3``, is part of the field).

Columns have the library's standard names: ``query_id``, ``doc_id``,
``score`` (Float64), ``relevance`` (Int64), ``run_id``, and the file's rank
column as ``rank_in_file`` (Int64; null when it is not a whole number, since
trec_eval ignores it). Ids stay strings, as trec_eval compares them.

Every reader takes one path, a list of paths or a glob (``runs/*.txt``);
files ending in ``.gz`` are decompressed. Reading is lazy: ``scan_*`` return
a :class:`polars.LazyFrame` whose scan runs in parallel when collected. A
malformed line (too few or too many fields, a score that is not a number, a
judgement that is not a whole number) raises one ``ValueError`` when the
frame is collected, naming the file, the first malformed line's number
(counting from 1, blank and comment lines included) and what was expected;
no line is skipped silently. Each file is read once per collect.
"""

from __future__ import annotations

import glob as _glob
import gzip
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from frame_eval import _checks

__all__ = [
    "read_trec_prefs", "read_trec_qrels", "read_trec_run", "scan_trec_prefs", "scan_trec_qrels",
    "scan_trec_run", "write_trec_qrels", "write_trec_run",
]

PathArg = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

_TEXT, _LINE, _FILE = "__frame_eval_text", "__frame_eval_line", "__frame_eval_file"
# C's isspace: the separators trec_eval splits fields on
_SPACE = " \t\n\r\x0b\x0c"
_FIELD = r"[^ \t\n\r\x0B\x0C]+"


@dataclass(frozen=True)
class _Format:
    kind: str
    fields: tuple[str, ...]  # the names of the fields, in file order
    extra_allowed: bool  # anything after the last field is ignored (runs) or an error
    numbers: tuple[tuple[str, pl.DataType, str], ...]  # (field, dtype, what it must be) checked strictly
    lenient: tuple[tuple[str, pl.DataType], ...] = ()  # parsed, null when unreadable, never an error
    columns: tuple[str, ...] = ()  # output columns, in order

    @property
    def layout(self) -> str:
        return " ".join(self.fields)


_RUN = _Format(
    "run", ("query_id", "Q0", "doc_id", "rank", "score", "run_id"), True,
    (("score", pl.Float64, "a number"),), (("rank", pl.Int64),),
    ("query_id", "doc_id", "rank_in_file", "score", "run_id"),
)
_QRELS = _Format(
    "qrels", ("query_id", "iteration", "doc_id", "relevance"), False,
    (("relevance", pl.Int64, "a whole number"),), (), ("query_id", "doc_id", "relevance"),
)
_PREFS = _Format(
    "prefs", ("query_id", "judgement_group", "judgement_subgroup", "doc_id", "preference"), False,
    (("preference", pl.Float64, "a number"),), (),
    ("query_id", "judgement_group", "judgement_subgroup", "doc_id", "preference"),
)

_QRELS_JG = _Format(  # trec_eval's -R qrels_jg: the second field names the judgement group
    "qrels_jg", ("query_id", "judgement_group", "doc_id", "relevance"), False,
    (("relevance", pl.Int64, "a whole number"),), (), ("query_id", "judgement_group", "doc_id", "relevance"),
)
_ZSCORES = _Format(  # trec_eval's -Z file: per query and measure, the mean and standard deviation
    "zscores", ("query_id", "measure", "mean", "stddev"), False,
    (("mean", pl.Float64, "a number"), ("stddev", pl.Float64, "a number")), (),
    ("query_id", "measure", "mean", "stddev"),
)


def expand_paths(paths: PathArg) -> list[str]:
    """The files ``paths`` names: one path, a list, or glob patterns (expanded, sorted)."""
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not items:
        raise ValueError("no file given; pass a path, a list of paths or a glob such as 'runs/*.txt'")
    out: list[str] = []
    for item in items:
        text = os.fspath(item)
        if _glob.has_magic(text) and not os.path.exists(text):
            found = sorted(_glob.glob(text))
            if not found:
                raise FileNotFoundError(f"no file matches {text!r}")
            out.extend(found)
        else:
            out.append(text)
    return out


def _raw_lines(path: str) -> pl.LazyFrame:
    """``[text, line]``: every line of the file, blank ones as null, numbered from 1."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"cannot read {path!r}: no such file")
    if os.path.getsize(path) == 0:
        return pl.LazyFrame(schema={_TEXT: pl.String, _LINE: pl.UInt32})
    # one column per line: a separator and no quote character that never split a line
    frame = pl.scan_csv(path, has_header=False, separator="\x1f", quote_char=None, new_columns=[_TEXT],
                        schema_overrides={_TEXT: pl.String})
    return frame.with_row_index(_LINE, offset=1)


def _parse(paths: list[str], fmt: _Format) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """(parsed rows with their file index and line, the first malformed line's message)."""
    frames = [_raw_lines(p).with_columns(pl.lit(i, pl.UInt32).alias(_FILE)) for i, p in enumerate(paths)]
    lines = pl.concat(frames) if len(frames) > 1 else frames[0]
    text = pl.col(_TEXT).str.strip_chars_start(_SPACE)
    lines = lines.with_columns(text.alias(_TEXT)).filter(
        pl.col(_TEXT).is_not_null() & (pl.col(_TEXT).str.len_bytes() > 0)
        & ~pl.col(_TEXT).str.starts_with("#")
    )
    parts = pl.col(_TEXT).str.extract_all(_FIELD)
    count = parts.list.len()
    n = len(fmt.fields)
    fields = [parts.list.get(i, null_on_oob=True).alias(name) for i, name in enumerate(fmt.fields)]
    parsed = lines.select(_FILE, _LINE, _TEXT, count.alias("__count"), *fields)
    casts = [pl.col(name).cast(dtype, strict=False).alias(f"__{name}") for name, dtype, _ in fmt.numbers]
    parsed = parsed.with_columns(casts).cache()  # one read feeds the rows and the malformed-line check
    expected = f"expected {n} whitespace-separated fields ({fmt.layout})"
    problem = pl.when(pl.col("__count") < n).then(
        pl.format(f"{{}} field(s), {expected}", pl.col("__count"))
    )
    if not fmt.extra_allowed:
        problem = problem.when(pl.col("__count") > n).then(
            pl.format(f"{{}} fields, {expected}", pl.col("__count"))
        )
    for name, _, what in fmt.numbers:
        problem = problem.when(pl.col(f"__{name}").is_null()).then(
            pl.format(f"{name} {{}} is not {what}", pl.col(name))
        )
    file_names = pl.Series([str(p) for p in paths], dtype=pl.String)
    flagged = parsed.select(_FILE, _LINE, _TEXT, problem.alias("__problem")).filter(
        pl.col("__problem").is_not_null()
    )
    first = pl.struct(_FILE, _LINE, _TEXT, "__problem").sort_by(_FILE, _LINE).first()
    bad = flagged.select(count=pl.len().cast(pl.UInt64), first=first).select(
        "count",
        message=pl.format(
            f"{fmt.kind} file {{}}, line {{}}: {{}}; the line reads {{}}",
            pl.col("first").struct.field(_FILE).replace_strict(
                list(range(len(paths))), [repr(p) for p in file_names.to_list()], return_dtype=pl.String
            ),
            pl.col("first").struct.field(_LINE),
            pl.col("first").struct.field("__problem"),
            pl.col("first").struct.field(_TEXT).str.strip_chars_end(_SPACE),
        ),
    )
    return parsed, bad


def _typed(parsed: pl.LazyFrame, fmt: _Format, keep: Sequence[str] = ()) -> pl.LazyFrame:
    exprs: dict[str, pl.Expr] = {name: pl.col(name) for name in fmt.fields}
    for name, _, _ in fmt.numbers:
        exprs[name] = pl.col(f"__{name}")
    for name, dtype in fmt.lenient:
        exprs[name] = pl.col(name).cast(dtype, strict=False)
    exprs["rank_in_file"] = exprs["rank"] if "rank" in exprs else pl.lit(None)
    return parsed.select(*keep, *(exprs[c].alias(c) for c in fmt.columns))


def _scan(paths: PathArg, fmt: _Format, *, lines: bool = False) -> pl.LazyFrame:
    parsed, bad = _parse(expand_paths(paths), fmt)
    keep = [_FILE, _LINE] if lines else []
    return _checks.attach(_typed(parsed, fmt, keep), [bad])


_OTHER_SPACE = (b"\t", b"\r", b"\x0b", b"\x0c")


def read_single_spaced(path: str, fmt: _Format) -> pl.DataFrame | None:
    """The file read by polars' CSV reader with a one-space separator, or None when it needs the
    general reader (whitespace other than single spaces, a field that does not parse, ...).

    The general reader (:func:`_scan`) splits every line itself; files written with single
    spaces, the common case, are read about twice as fast this way. Anything the fast reader
    might read differently from trec_eval sends the file to the general reader, which also
    gives the precise error for a malformed line.
    """
    if path.endswith(".gz") or not os.path.isfile(path) or os.path.getsize(path) == 0:
        return None
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 26):
            if any(c in chunk for c in _OTHER_SPACE):
                return None
    names = [f"__f{i}" for i in range(len(fmt.fields))]
    try:
        raw = pl.read_csv(path, has_header=False, separator=" ", quote_char=None, comment_prefix="#",
                          truncate_ragged_lines=fmt.extra_allowed, schema={n: pl.String for n in names},
                          empty_string_is_null=True)
    except (pl.exceptions.PolarsError, OSError):
        return None
    renamed = raw.rename(dict(zip(names, fmt.fields, strict=True)))
    typed = renamed.with_columns(pl.col(name).cast(dtype, strict=False).alias(f"__{name}")
                                 for name, dtype, _ in fmt.numbers)
    needed = [*fmt.fields, *(f"__{name}" for name, _, _ in fmt.numbers)]
    if typed.height == 0 or typed.select(pl.any_horizontal(pl.col(needed).is_null().any())).item():
        return None
    return _typed(typed.lazy(), fmt).collect()


def scan_trec_run(paths: PathArg) -> pl.LazyFrame:
    """Lazily read TREC run files: ``[query_id, doc_id, rank_in_file, score, run_id]``.

    ``paths`` is one path, a list or a glob; the ``run_id`` column (the sixth field
    of each line) tells the runs apart. See the module documentation for the format,
    comments and errors.

    >>> import frame_eval as fe
    >>> fe.scan_trec_run("examples/data/runs.txt").head(2).collect().rows()
    [('401', 'D401-017', 1, 3.33, 'bm25'), ('401', 'D401-030', 2, 3.05, 'bm25')]
    """
    return _scan(paths, _RUN)


def scan_trec_qrels(paths: PathArg) -> pl.LazyFrame:
    """Lazily read TREC qrels files: ``[query_id, doc_id, relevance]``.

    >>> import frame_eval as fe
    >>> fe.scan_trec_qrels("examples/data/qrels.txt").head(2).collect().rows()
    [('401', 'D401-064', 1), ('401', 'D401-030', 1)]
    """
    return _scan(paths, _QRELS)


def scan_trec_prefs(paths: PathArg) -> pl.LazyFrame:
    """Lazily read trec_eval preference files (``-R prefs``):
    ``[query_id, judgement_group, judgement_subgroup, doc_id, preference]``.

    Within a judgement subgroup a document with a higher ``preference`` is
    preferred to one with a lower value (see :mod:`frame_eval.ranking.preferences`).

    >>> import frame_eval as fe
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.txt"
    >>> _ = path.write_text("q1 user1 a d1 3\\nq1 user1 a d2 1\\n")
    >>> fe.scan_trec_prefs(path).collect().rows()
    [('q1', 'user1', 'a', 'd1', 3.0), ('q1', 'user1', 'a', 'd2', 1.0)]
    """
    return _scan(paths, _PREFS)


def read_trec_run(paths: PathArg) -> pl.DataFrame:
    """Read TREC run files at once: ``[query_id, doc_id, rank_in_file, score, run_id]``."""
    return scan_trec_run(paths).collect()


def read_trec_qrels(paths: PathArg) -> pl.DataFrame:
    """Read TREC qrels files at once: ``[query_id, doc_id, relevance]``."""
    return scan_trec_qrels(paths).collect()


def read_trec_prefs(paths: PathArg) -> pl.DataFrame:
    """Read trec_eval preference files at once (see :func:`scan_trec_prefs`)."""
    return scan_trec_prefs(paths).collect()


def _write_lines(lines: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write one text column as lines, atomically: a temporary file renamed into place."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    try:
        if target.name.endswith(".gz"):
            text = "".join(f"{line}\n" for line in lines.to_series())
            with gzip.open(temporary, "wt", encoding="utf-8") as out:
                out.write(text)
        else:
            lines.write_csv(temporary, include_header=False, quote_style="never")
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _frame(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    raise TypeError(f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def _require(frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    _checks.require_columns(frame.schema, columns, what, "rename your columns to the standard names")
    for column in columns:
        if frame[column].null_count():
            row = frame[column].is_null().arg_max()
            raise ValueError(f"{what} column {column!r} has a missing value at row {row} (counting from 0); "
                             f"a TREC file cannot hold it: fill or drop those rows first")
        if frame[column].dtype == pl.String:
            spaced = frame[column].str.contains(r"[ \t\n\r\x0B\x0C]") | (frame[column].str.len_bytes() == 0)
            if spaced.any():
                row = spaced.arg_max()
                raise ValueError(f"{what} column {column!r} value {frame[column][row]!r} at row {row} "
                                 f"(counting from 0) is empty or holds whitespace, which would split "
                                 f"the field in a TREC file; replace it first")


def write_trec_run(
    frame: pl.DataFrame | pl.LazyFrame, path: str | os.PathLike[str], *, run_id: str | None = None
) -> None:
    """Write a run as a TREC run file: ``query_id Q0 doc_id rank score run_id`` per line.

    Each query's documents are written in trec_eval's order (score descending,
    ties by ``doc_id`` descending) with ranks 1, 2, ...; scores in the shortest
    text that reads back to the same double. ``run_id`` names the run when the
    frame has no ``run_id`` column. ``.gz`` paths are compressed. The file is
    written to a temporary name and renamed into place, so a failure leaves no
    half-written file.

    >>> import polars as pl, frame_eval as fe, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.5]})
    >>> fe.write_trec_run(run, path, run_id="mine")
    >>> print(path.read_text(), end="")
    q1 Q0 b 1 2.5 mine
    q1 Q0 a 2 1.0 mine
    """
    df = _frame(frame)
    _require(df, ["query_id", "doc_id", "score"], "run")
    if "run_id" not in df.columns:
        df = df.with_columns(pl.lit(run_id or "frame_eval").alias("run_id"))
    _require(df, ["run_id"], "run")
    keys = ["run_id", "query_id"]
    text = [pl.col(c).cast(pl.String) for c in ("query_id", "doc_id", "run_id")]
    ordered = df.with_columns(*text).sort(
        ["run_id", "query_id", "score", "doc_id"], descending=[False, False, True, True]
    )
    rank = pl.int_range(1, pl.len() + 1).over(keys)
    lines = ordered.select(pl.format("{} Q0 {} {} {} {}", "query_id", "doc_id", rank,
                                     pl.col("score").cast(pl.Float64), "run_id").alias("line"))
    _write_lines(lines, path)


def write_trec_qrels(frame: pl.DataFrame | pl.LazyFrame, path: str | os.PathLike[str]) -> None:
    """Write judgements as a TREC qrels file: ``query_id 0 doc_id relevance`` per line.

    Rows are written sorted by query and document; ``relevance`` must be whole
    numbers. Written to a temporary name and renamed into place (``.gz``: compressed).

    >>> import polars as pl, frame_eval as fe, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> fe.write_trec_qrels(pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [2]}), path)
    >>> print(path.read_text(), end="")
    q1 0 b 2
    """
    df = _frame(frame)
    _require(df, ["query_id", "doc_id", "relevance"], "qrels")
    if not df.schema["relevance"].is_integer():
        raise TypeError(f"qrels column 'relevance' must hold whole numbers, got {df.schema['relevance']}; "
                        f"cast it, e.g. pl.col('relevance').cast(pl.Int64)")
    text = [pl.col(c).cast(pl.String) for c in ("query_id", "doc_id")]
    ordered = df.with_columns(*text).sort("query_id", "doc_id")
    lines = ordered.select(pl.format("{} 0 {} {}", "query_id", "doc_id", "relevance").alias("line"))
    _write_lines(lines, path)
