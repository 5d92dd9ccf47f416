"""``frame-eval``: trec_eval's command line, printing what trec_eval 10.0 prints, byte for byte.

    frame-eval [options] QRELS RUN [RUN ...]

Every trec_eval option is taken, with its long form as trec_eval spells it
(``-q``/``--query_eval_wanted``, ``-m``/``--measure``, ``-c``, ``-l``, ``-n``,
``-J``, ``-N``, ``-M``, ``-R``, ``-T``, ``-Z``, ``-D``, ``-h``, ``-v``). Output is
trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` lines (counts as integers), measures
in trec_eval's order, queries in the byte order of their ids, the summary
(``all``) last, starting with the ``runid`` line. Several run files print one
after the other. ``--format tidy|csv|json|parquet`` writes one tidy table
``[run_id, query_id, metric, value]`` instead (to ``--output PATH``, written to a
temporary file and renamed, so an error leaves nothing behind).

Input files are TREC text (plain or ``.gz``), or Parquet, CSV and Arrow IPC
tables with the standard columns (``query_id``, ``doc_id``, ``score``,
``relevance``, optionally ``run_id``), chosen by extension.

Exit status, as trec_eval's: 0 on success; 1 for a usage error or an unknown
measure; 2 for an unreadable or malformed input file (the message names the
file, the line and what was expected); 7 when no query has both results and
judgements.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from frame_eval import cli_measures
from frame_eval.cli_args import (  # noqa: F401  (re-exported: the names' old home)
    _FORMATS,
    HELP,
    CliError,
    _measure_help,
    _options,
    _Parser,
    build_parser,
)
from frame_eval.cli_evaluate import (  # noqa: F401  (re-exported: the names' old home)
    _judgement_group_frames,
    _preference_frames,
    _relstrings,
    evaluate_run,
)
from frame_eval.cli_input import (  # noqa: F401  (re-exported: the names' old home)
    _TABLE_EXTENSIONS,
    _collect,
    _explain_repeats,
    _standard,
    _table,
    read_input,
    read_judgements,
    read_zscores,
)
from frame_eval.cli_measures import MeasureError
from frame_eval.cli_output import Chunk, RunResult, tidy_frame, to_zscores, trec_chunks, write_chunks

__all__ = ["main"]


class _Progress:
    """Stage messages on standard error, only when it is a terminal and the work takes a while."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.on = sys.stderr.isatty()
        self.shown = False

    def __call__(self, text: str) -> None:
        if self.on and time.monotonic() - self.start > 2.0:
            sys.stderr.write(f"\r\x1b[Kframe-eval: {text}")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _write_output(frame: pl.DataFrame, fmt: str, output: str | None) -> None:
    if fmt == "parquet" and output is None:
        raise CliError("--format parquet needs --output PATH", 1)
    if output is None:
        text = {"tidy": lambda: frame.write_csv(separator="\t"), "csv": frame.write_csv,
                "json": lambda: json.dumps(frame.to_dicts()) + "\n"}[fmt]()
        sys.stdout.write(text)
        return
    target = Path(output)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    try:
        if fmt == "parquet":
            frame.write_parquet(temporary)
        elif fmt == "tidy":
            frame.write_csv(temporary, separator="\t")
        elif fmt == "csv":
            frame.write_csv(temporary)
        else:
            Path(temporary).write_text(json.dumps(frame.to_dicts()) + "\n")
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def run(args: argparse.Namespace) -> tuple[list[Chunk], pl.DataFrame | None]:
    """Evaluate as the parsed options say: (trec_eval's output, or the tidy frame for --format)."""
    if args.version:
        return [f"frame-eval version {_package_version()} (trec_eval 10.0 compatible)\n"], None
    if args.help:
        return [HELP + ("\n" + _measure_help(args.measure) if args.measure else "")], None
    if len(args.files) < 2:
        raise CliError("expected a judgements file and at least one results file "
                       "(frame-eval [options] rel_info_file results_file ...; -h for help)", 1)
    if args.format not in _FORMATS:
        raise CliError(f"--format must be one of {', '.join(_FORMATS)}, got {args.format!r}", 1)
    if args.Results_format != "trec_results":
        raise CliError(f"illegal retrieval results format {args.Results_format!r}; expected trec_results", 2)
    if args.Rel_info_format not in ("qrels", "qrels_jg", "prefs", "qrels_prefs"):
        raise CliError(f"illegal rel_format {args.Rel_info_format!r}; expected qrels, prefs, qrels_prefs "
                       f"or qrels_jg", 2)
    try:
        chosen = cli_measures.select(args.measure or ["official"])
        lines = cli_measures.lines(chosen)
        cli_measures.check_format(lines, args.Rel_info_format)
    except MeasureError as error:
        raise CliError(str(error), 1) from None
    options = _options(args)
    progress = _Progress()
    qrels_path, run_paths = args.files[0], args.files[1:]
    zscores = read_zscores(args.Zscore) if args.Zscore else None
    progress(f"reading {qrels_path}")
    qrels = read_judgements(qrels_path, args.Rel_info_format)
    debug_query = args.Debug_level.partition(".")[2] if args.Debug_level else ""
    if debug_query:
        qrels = qrels.filter(pl.col("query_id") == debug_query)
    per_query, summary = bool(args.query_eval_wanted), not args.nosummary
    results: list[RunResult] = []
    for i, run_path in enumerate(run_paths):
        progress(f"reading {run_path} ({i + 1} of {len(run_paths)})")
        run_df = read_input(run_path, "run")
        if debug_query:
            run_df = run_df.filter(pl.col("query_id") == debug_query)
        progress(f"evaluating {run_path} ({i + 1} of {len(run_paths)})")
        # a file holding several runs (run_id values) gives each its own evaluation, in file order
        several = run_df["run_id"].n_unique() > 1
        parts = run_df.partition_by("run_id", maintain_order=True) if several else [run_df]
        for part in parts:
            try:
                result = evaluate_run(part, qrels, lines, options, per_query, args.Rel_info_format)
            except ValueError as error:
                raise _explain_repeats(error, part, run_path, qrels, qrels_path) from None
            if not result.per_query.height:
                raise CliError(f"no queries with both results and relevance info: {run_path!r} and "
                               f"{qrels_path!r} share no query id", 7)
            results.append(result if zscores is None else to_zscores(result, lines, zscores))
    progress.done()
    if args.format != "trec":
        return [], tidy_frame(results, lines, per_query, summary)
    z = zscores is not None
    text = [chunk for result in results for chunk in trec_chunks(result, lines, per_query, summary, z)]
    return text, None


def _package_version() -> str:
    import frame_eval

    return frame_eval.__version__


def main(argv: Sequence[str] | None = None) -> int:
    """The ``frame-eval`` command: returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
        text, frame = run(args)
        if frame is not None:
            _write_output(frame, args.format, args.output)
        else:
            _write_text(text, args.output)
    except CliError as error:
        print(f"frame-eval: {error}", file=sys.stderr)
        return error.status
    except (ValueError, TypeError) as error:
        print(f"frame-eval: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"frame-eval: {error}", file=sys.stderr)
        return 2
    return 0


def _write_text(chunks: Sequence[Chunk], output: str | None) -> None:
    if output is None:
        sys.stdout.flush()
        write_chunks(chunks, sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    target = Path(output)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            write_chunks(chunks, out)
        os.replace(temporary, target)  # renamed into place: never half-written
    except BaseException:
        os.unlink(temporary)
        raise


if __name__ == "__main__":
    raise SystemExit(main())
