"""Reading TREC run and qrels files into polars frames.

Formats (whitespace separated, as trec_eval reads them):

- run: ``query_id Q0 doc_id rank score run_id``; anything after the sixth
  field is ignored, as trec_eval does.
- qrels: ``query_id iteration doc_id relevance``.

Ids are read as strings, rank and relevance as Int64, score as Float64.
``scan_*`` return a :class:`polars.LazyFrame`; a malformed line raises a
``ValueError`` naming the file, the line number and the line when the frame
is collected. ``read_*`` collect at once.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from frame_eval import _checks

__all__ = ["read_trec_qrels", "read_trec_run", "scan_trec_qrels", "scan_trec_run"]

_LINE = "__line"
_RUN_FIELDS = [("query_id", None), ("q0", None), ("doc_id", None), ("rank", pl.Int64),
               ("score", pl.Float64), ("run_id", None)]
_QRELS_FIELDS = [("query_id", None), ("iteration", None), ("doc_id", None),
                 ("relevance", pl.Int64)]


def _scan(path: str | Path, fields: list[tuple[str, pl.DataType | None]], kind: str) -> pl.LazyFrame:
    pattern = r"^\s*" + r"\s+".join(r"(\S+)" for _ in fields) + r"(?:\s|$)"
    lines = pl.scan_csv(
        path, has_header=False, separator="\x1f", quote_char=None, new_columns=[_LINE],
        schema_overrides={_LINE: pl.String},
    ).filter(pl.col(_LINE).str.strip_chars().str.len_bytes() > 0)
    parts = pl.col(_LINE).str.extract_groups(pattern)
    exprs = []
    for i, (name, dtype) in enumerate(fields):
        raw = parts.struct.field(str(i + 1))
        exprs.append((raw if dtype is None else raw.cast(dtype, strict=False)).alias(name))
    parsed = lines.with_row_index("__row", offset=1).with_columns(exprs)
    valid = pl.all_horizontal(pl.col(name).is_not_null() for name, _ in fields)
    bad = parsed.filter(~valid).select(
        count=pl.len().cast(pl.UInt64),
        message=pl.format(
            f"{{}} malformed line(s) in {kind} file {str(path)!r}, e.g. non-empty line {{}}: {{}}; "
            f"expected {len(fields)} whitespace-separated fields "
            f"({' '.join(name for name, _ in fields)})",
            pl.len(), pl.col("__row").first(), pl.col(_LINE).first(),
        ),
    )
    result = parsed.select([name for name, _ in fields])
    return _checks.attach(result, [bad])


def scan_trec_run(path: str | Path) -> pl.LazyFrame:
    """Lazily read a TREC run file: ``[query_id, q0, doc_id, rank, score, run_id]``.

    >>> import frame_eval as fe
    >>> run = fe.scan_trec_run("examples/data/run.txt")  # doctest: +SKIP
    """
    return _scan(path, _RUN_FIELDS, "run")


def scan_trec_qrels(path: str | Path) -> pl.LazyFrame:
    """Lazily read a TREC qrels file: ``[query_id, iteration, doc_id, relevance]``."""
    return _scan(path, _QRELS_FIELDS, "qrels")


def read_trec_run(path: str | Path) -> pl.DataFrame:
    """Read a TREC run file: ``[query_id, q0, doc_id, rank, score, run_id]``."""
    return scan_trec_run(path).collect()


def read_trec_qrels(path: str | Path) -> pl.DataFrame:
    """Read a TREC qrels file: ``[query_id, iteration, doc_id, relevance]``."""
    return scan_trec_qrels(path).collect()
