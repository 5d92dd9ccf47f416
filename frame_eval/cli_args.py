"""The command line's arguments: trec_eval's options and help text, parsed and checked.

:func:`build_parser` reads the options as trec_eval spells them; :func:`_options` turns them into
the core's keyword arguments; :class:`CliError` carries a message and an exit status to
:func:`frame_eval.cli.main`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from frame_eval import cli_measures
from frame_eval.cli_measures import MeasureError
from frame_eval.registry import parse_measures

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
