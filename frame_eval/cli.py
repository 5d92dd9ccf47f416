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
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from frame_eval import cli_measures, io
from frame_eval._float import ordered_sum
from frame_eval.cli_measures import Line, MeasureError
from frame_eval.cli_output import Chunk, RunResult, tidy_frame, to_zscores, trec_chunks, write_chunks
from frame_eval.evaluate import _aggregate, evaluate
from frame_eval.judged import RunColumns, rank_expr
from frame_eval.registry import parse_measures, resolve

__all__ = ["main"]

_TABLE_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".arrow": "ipc",
                     ".ipc": "ipc", ".feather": "ipc"}
_FORMATS = ("trec", "tidy", "csv", "json", "parquet")

HELP = """\
frame-eval [-h] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-J] [-N <num>] [-M <num>]
           [-R rel_format] [-T results_format] [-Z zscores_file] [-D <num>] [-v]
           [--format trec|tidy|csv|json|parquet] [--output PATH]
           rel_info_file results_file [results_file ...]

Evaluate the results in each results_file against the judgements in
rel_info_file, printing exactly what trec_eval 10.0 prints. A results_file
named - is read from standard input.

 -h, --help: this message; with -m measure, what each measure named computes.
 -v, --version: print the version and exit.
 -q, --query_eval_wanted: per-query values as well as the summary.
 -m, --measure measure[.params]: a measure to print (repeatable), in trec_eval's
     syntax (P.5,10, iprec_at_recall..10,.20, utility.2,-1,0,0) or a nickname:
     official (the default), all_trec, set, all_prefs, prefs, qrels_jg. Names
     frame_eval reads (nDCG@10, AP(rel=2), RBP(p=0.8)) print after trec_eval's.
 -c, --complete_rel_info_wanted: average over every query of the judgements;
     a query the run lacks scores 0.
 -l, --level_for_rel <num>: a judgement >= num is relevant (default 1).
 -n, --nosummary: no summary (all) lines.
 -J, --Judged_docs_only: drop unjudged documents before evaluating.
 -N, --Number_docs_in_coll <num>: documents in the collection (utility).
 -M, --Max_retrieved_per_topic <num>: use only the first num documents of a ranking.
 -R, --Rel_info_format qrels|prefs|qrels_prefs|qrels_jg: the judgement format
     (prefs: query group subgroup doc level; qrels_jg: query group doc relevance;
     qrels_prefs: qrels read as preferences).
 -T, --Results_format trec_results: the results format (the only one).
 -Z, --Zscore zscores_file: print z-scores against the file's per-query means
     and standard deviations (lines: qid measure mean stddev).
 -D, --Debug_level <num>[.qid]: accepted; with .qid only that query is evaluated.
 --format trec|tidy|csv|json|parquet: trec_eval's layout (default), or one tidy
     table [run_id, query_id, metric, value] (tidy: tab-separated).
 --output PATH: write there instead of standard output (needed for parquet).

Files may be TREC text (plain or .gz), or Parquet, CSV or Arrow IPC tables with
columns query_id, doc_id, score (run; run_id optional) or relevance (qrels).

Differences from trec_eval 10.0: a query judged but missing from a run is
left out of the evaluation without -c (as trec_eval 9.x did; 10.0 stops with
exit status 4); several results files may be given; a malformed line, a
score that is not a number or a repeated document is an error naming the
file and line (trec_eval reads such a score as 0).
Exit status: 0 success, 1 usage or unknown measure, 2 unreadable or
malformed input, 7 no query with both results and judgements.
"""


class CliError(Exception):
    """A message for standard error and the exit status that goes with it."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(f"{message} (frame-eval -h for help)", 1)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="frame-eval", add_help=False, allow_abbrev=True)
    p.add_argument("-h", "--help", action="count", default=0)
    p.add_argument("-v", "--version", action="store_true")
    p.add_argument("-q", "--query_eval_wanted", action="count", default=0)
    p.add_argument("-m", "--measure", action="append", default=[])
    p.add_argument("-c", "--complete_rel_info_wanted", action="count", default=0)
    p.add_argument("-l", "--level_for_rel", type=int, default=1)
    p.add_argument("-n", "--nosummary", action="store_true")
    p.add_argument("-D", "--Debug_level", default=None)
    p.add_argument("-J", "--Judged_docs_only", action="count", default=0)
    p.add_argument("-N", "--Number_docs_in_coll", type=int, default=None)
    p.add_argument("-M", "--Max_retrieved_per_topic", type=int, default=None)
    p.add_argument("-R", "--Rel_info_format", default="qrels")
    p.add_argument("-T", "--Results_format", default="trec_results")
    p.add_argument("-o", "--Output_old_results_format", action="store_true")
    p.add_argument("-Z", "--Zscore", default=None)
    p.add_argument("--format", default="trec")
    p.add_argument("--output", default=None)
    p.add_argument("files", nargs="*")
    return p


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


# ---------------------------------------------------------------- reading inputs


def _table(path: str, kind: str) -> pl.LazyFrame | None:
    """A Parquet / CSV / Arrow IPC table by extension, or None for TREC text."""
    fmt = _TABLE_EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None:
        return None
    if fmt == "parquet":
        return pl.scan_parquet(path)
    if fmt == "csv":
        return pl.scan_csv(path)
    return pl.scan_ipc(path)


def _standard(frame: pl.LazyFrame, path: str, kind: str) -> pl.LazyFrame:
    needed = {"run": ["query_id", "doc_id", "score"], "qrels": ["query_id", "doc_id", "relevance"]}[kind]
    schema = frame.collect_schema()
    missing = [c for c in needed if c not in schema]
    if missing:
        raise CliError(f"{kind} file {path!r} has no column {missing[0]!r}; its columns are "
                       f"{schema.names()}; expected {', '.join(needed)}", 2)
    cols = [pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String)]
    if kind == "run":
        cols.append(pl.col("score").cast(pl.Float64))
        run_id = pl.col("run_id").cast(pl.String) if "run_id" in schema else pl.lit(Path(path).stem)
        cols.append(run_id.alias("run_id"))
    else:
        cols.append(pl.col("relevance").cast(pl.Int64))
    return frame.select(cols)


def _collect(frame: pl.LazyFrame, path: str, kind: str) -> pl.DataFrame:
    try:
        df = frame.collect()
    except (OSError, pl.exceptions.ComputeError, pl.exceptions.NoDataError) as error:
        raise CliError(f"cannot read {kind} file {path!r}: {str(error).splitlines()[0]}", 2) from None
    except (ValueError, pl.exceptions.InvalidOperationError) as error:
        raise CliError(str(error).splitlines()[0], 2) from None
    if df.height == 0:
        what = "results" if kind == "run" else "judgements"
        raise CliError(f"{kind} file {path!r} holds no {what}: it is empty or has only comment lines", 2)
    return df


def read_input(path: str, kind: str) -> pl.DataFrame:
    """The file's rows with the standard columns (text files keep their line numbers); a run
    named ``-`` is read from standard input, as trec_eval does."""
    if path == "-" and kind == "run":
        with tempfile.TemporaryDirectory() as folder:
            copy = os.path.join(folder, "stdin")
            with open(copy, "wb") as out:
                shutil.copyfileobj(sys.stdin.buffer, out)
            try:
                return read_input(copy, kind)
            except CliError as error:
                raise CliError(str(error).replace(repr(copy), "'-' (standard input)"), error.status) from None
    if not os.path.isfile(path):
        raise CliError(f"cannot read {kind} file {path!r}: no such file", 2)
    table = _table(path, kind)
    if table is not None:
        return _collect(_standard(table, path, kind), path, kind)
    fmt = {"run": io._RUN, "qrels": io._QRELS, "prefs": io._PREFS, "zscores": io._ZSCORES,
           "qrels_jg": io._QRELS_JG}[kind]
    fast = io.read_single_spaced(path, fmt)
    if fast is not None:
        return fast
    return _collect(io._scan(path, fmt, lines=True), path, kind)


def read_judgements(path: str, rel_format: str) -> pl.DataFrame:
    """The judgements in trec_eval's ``-R`` format; ``qrels_prefs``: qrels read as preferences
    (the second field the judgement group, one subgroup, the judgement the level)."""
    if rel_format == "qrels_prefs":
        frame = read_input(path, "qrels_jg")
        return frame.select("query_id", "judgement_group", pl.lit("0").alias("judgement_subgroup"), "doc_id",
                            pl.col("relevance").cast(pl.Float64).alias("preference"))
    return read_input(path, rel_format)


def _explain_repeats(error: ValueError, run: pl.DataFrame, run_path: str, qrels: pl.DataFrame,
                     qrels_path: str) -> CliError:
    """A duplicate found by the core, told in the file's terms: the lines of the first repeat."""
    text = str(error)
    for frame, path, kind in ((run, run_path, "run"), (qrels, qrels_path, "qrels")):
        if f"more than once in the {kind}" not in text or _table(path, kind) is not None or path == "-":
            continue
        if io._LINE not in frame.columns:  # read by the fast reader: read again, with line numbers
            fmt = io._RUN if kind == "run" else io._QRELS
            frame = io._scan(path, fmt, lines=True).collect().filter(
                pl.col("run_id") == run["run_id"][0] if kind == "run" else pl.lit(True))
        lines = frame.select("query_id", "doc_id", io._LINE)
        first = (lines.filter(pl.len().over("query_id", "doc_id") > 1)
                 .group_by("query_id", "doc_id").agg(pl.col(io._LINE).sort())
                 .sort(pl.col(io._LINE).list.get(1)).row(0, named=True))
        where = first[io._LINE]
        return CliError(f"{kind} file {path!r}, line {where[1]}: document {first['doc_id']!r} of query "
                        f"{first['query_id']!r} appears again (first at line {where[0]}); expected one "
                        f"line per query and document", 2)
    return CliError(text.splitlines()[0], 2)


# ---------------------------------------------------------------- evaluating


def _relstrings(
    run: pl.DataFrame, qrels: pl.DataFrame, length: int, options: dict[str, Any]
) -> dict[str, str]:
    """trec_eval's relstring: the judgement of each of the first ``length`` documents as a character:
    the digit, ``>`` above 9, ``-`` for a document not in the qrels, ``.`` for a negative judgement."""
    rel = pl.col("relevance")
    char = (pl.when(rel.is_null()).then(pl.lit("-"))  # not in the qrels
            .when(rel < 0).then(pl.lit("."))  # in the pool, not judged
            .when(rel > 9).then(pl.lit(">"))
            .otherwise(rel.cast(pl.String)))
    if options["judged_only"]:  # the unjudged leave the ranking first: rank the judged frame
        judged = run.lazy().ireval.judge(qrels.lazy(), complete=options["complete"], depth=options["depth"],
                                         judged_only=True)
        top = judged.filter(pl.col("rank").is_not_null() & (pl.col("rank") <= length))
    else:
        # only documents whose score is among the first `length` of their query can rank that high
        # (ties included: every document ranked above one has a score at least as high), so only
        # those are ranked, by trec_eval's order (score, then doc_id descending); -0.0 is 0.0 there
        deepest = length if options["depth"] is None else min(length, options["depth"])
        score = pl.col("score") + 0.0
        cut = score.top_k(deepest).min().over("query_id")
        candidates = run.lazy().select("query_id", "doc_id", "score").filter(score >= cut)
        ranked = candidates.with_columns(rank_expr(RunColumns(), pl.String)).filter(pl.col("rank") <= deepest)
        top = ranked.join(qrels.lazy().select("query_id", "doc_id", "relevance"), on=["query_id", "doc_id"],
                          how="left")
    strings = top.group_by("query_id").agg(char.sort_by("rank").str.join("").alias("s")).collect()
    return dict(strings.iter_rows())


def _judgement_group_frames(run_lf: pl.LazyFrame, qrels: pl.DataFrame, measures: list[Any],
                            options: dict[str, Any]) -> list[pl.LazyFrame]:
    """(summary, per query) of the judgement-group measures (``-R qrels_jg``)."""
    from frame_eval.ranking.judgement_groups import GROUP, evaluate_judgement_groups
    from frame_eval.registry import resolve

    if not measures:
        measures = resolve(["map_avgjg"])  # the queries evaluated still decide num_q
    wide = evaluate_judgement_groups(run_lf, qrels.lazy().select("query_id", GROUP, "doc_id", "relevance"),
                                     [m for m in measures if m.spec.name != "NumQ"], **options)
    wide = wide.with_columns(pl.lit(1.0).alias(m.name) for m in measures if m.spec.name == "NumQ")
    order = pl.col("query_id")
    summary = wide.select(
        (ordered_sum(pl.col(m.name), order) if m.spec.aggregate == "sum" else
         ordered_sum(pl.col(m.name), order) / pl.len()).alias(m.name) for m in measures
    )
    return [summary, wide]


def _preference_frames(run: pl.DataFrame, prefs: pl.DataFrame, measures: list[Any],
                       options: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(summary, per query) of the preference measures (``-R prefs``, ``-R qrels_prefs``)."""
    from frame_eval.ranking.preferences import evaluate_preferences

    wide = evaluate_preferences(run, prefs, [m for m in measures if m.spec.name != "NumQ"],
                                complete=options["complete"], depth=options["depth"])
    wide = wide.with_columns(pl.lit(1.0).alias(m.name) for m in measures if m.spec.name == "NumQ")
    order = pl.col("query_id")
    summary = wide.select(_aggregate(pl.col(m.name), order, m.spec.aggregate).alias(m.name) for m in measures)
    return summary, wide


def evaluate_run(run: pl.DataFrame, qrels: pl.DataFrame, lines: list[Line], options: dict[str, Any],
                 per_query: bool, rel_format: str = "qrels") -> RunResult:
    """Per-query values and summaries of the measures ``lines`` name, for one run file."""
    measures = list({line.measure.name: line.measure for line in lines if line.measure is not None}.values())
    run_lf = run.lazy().select("query_id", "doc_id", "score")
    cols = RunColumns()
    with warnings.catch_warnings():  # trec_eval evaluates the shared queries without a word
        warnings.simplefilter("ignore", UserWarning)
        if rel_format == "qrels_jg":
            summary, wide = pl.collect_all(_judgement_group_frames(run_lf, qrels, measures, options))
        elif rel_format in ("prefs", "qrels_prefs"):
            summary, wide = _preference_frames(run, qrels, measures, options)
        else:
            qrels_lf = qrels.lazy().select("query_id", "doc_id", "relevance")
            # only runid / relstring: the queries evaluated still decide num_q and the order
            asked = measures or resolve(["NumQ"])
            wide = evaluate(run_lf, qrels_lf, asked, cols, shape="wide", **options).collect()
            # evaluated once, summarised as summarize() does: added in query order, divided once
            order = pl.col("query_id").cast(pl.String)
            summary = wide.select(_aggregate(pl.col(m.name), order, m.spec.aggregate).alias(m.name)
                                  for m in asked)
    valued = [line for line in lines if line.measure is not None]
    per_query_values = wide.select(pl.col("query_id").cast(pl.String),
                                   *(pl.col(line.measure.name).alias(line.label) for line in valued))  # type: ignore[union-attr]
    totals = {line.label: summary[line.measure.name][0] for line in valued}  # type: ignore[union-attr]
    relstrings: dict[str, str] = {}
    for line in lines:
        if line.kind == "relstring" and per_query and rel_format == "qrels":
            relstrings = _relstrings(run, qrels.select("query_id", "doc_id", "relevance"), line.length,
                                     options)
    run_id = run["run_id"][-1]  # trec_eval names the run by the file's last line
    return RunResult(str(run_id), per_query_values, totals, relstrings)


# ---------------------------------------------------------------- printing


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(query, printed measure name): (mean, standard deviation)}`` from a ``-Z`` file."""
    frame = read_input(path, "zscores")
    return {(q, m): (mean, sd) for q, m, mean, sd in frame.iter_rows()}


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


# ---------------------------------------------------------------- the command


def _measure_help(options: Sequence[str]) -> str:
    """What each measure ``-m`` names computes (trec_eval's ``-h -m measure``)."""
    out = ["Individual measure documentation for requested measures"]
    try:
        chosen = cli_measures.select(options)
    except MeasureError as error:
        raise CliError(str(error), 1) from None
    texts = {"runid": "the run's name (the run_id of the file's last line)",
             "relstring": "the judgements of the first N (default 10) documents, one character each: "
                          "the digit, '>' above 9, '-' not in the qrels, '.' judged below 0"}
    for m in cli_measures.TABLE:
        if m.name not in chosen.marked:
            continue
        if m.name in texts:
            out.append(f"{m.name}\n    {texts[m.name]}")
            continue
        one = cli_measures.Selection({m.name}, {k: v for k, v in chosen.params.items() if k == m.name})
        try:
            found = [line.measure for line in cli_measures.lines(one) if line.measure is not None]
        except MeasureError:
            found = []
        summary = found[0].spec.summary if found else "(not implemented by frame-eval)"
        out.append(f"{m.name}\n    {summary}")
    for name in chosen.extra:
        out.append(f"{name}\n    {parse_measures(name)[0].spec.summary}")
    return "\n".join(out) + "\n"


def _options(args: argparse.Namespace) -> dict[str, Any]:
    for flag, value in (("-M", args.Max_retrieved_per_topic), ("-N", args.Number_docs_in_coll)):
        if value is not None and value < 0:
            raise CliError(f"{flag} takes a whole number from 0 up, got {value}", 1)
    if args.level_for_rel < 0:
        raise CliError(f"-l takes a judgement level from 0 up, got {args.level_for_rel}", 1)
    depth = args.Max_retrieved_per_topic
    if depth == 0:
        raise CliError("-M 0 would evaluate empty rankings; keep 1 or more documents per ranking", 1)
    return {"complete": bool(args.complete_rel_info_wanted), "depth": depth,
            "judged_only": bool(args.Judged_docs_only), "rel": args.level_for_rel,
            "collection_size": args.Number_docs_in_coll}


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
