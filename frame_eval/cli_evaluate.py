"""The command line's evaluation of one run file: per-query values, summaries and relstrings.

Qrels go through :func:`frame_eval.evaluate.evaluate` as every front end does; judgement groups
(``-R qrels_jg``) and preferences (``-R prefs``, ``-R qrels_prefs``) through their own modules.
"""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl

from frame_eval._float import ordered_sum
from frame_eval.cli_measures import Line
from frame_eval.cli_output import RunResult
from frame_eval.evaluate import _aggregate, evaluate
from frame_eval.judged import RunColumns, rank_expr
from frame_eval.registry import resolve


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
