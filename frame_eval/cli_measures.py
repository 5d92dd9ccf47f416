"""trec_eval's measure table for the command line: names, parameters, print order and format.

trec_eval prints its measures in one fixed order (its ``measures.c``), whatever
the order of ``-m`` options; ``-m name.params`` gives a measure its parameters
(the first ``-m`` naming a measure wins), and a nickname (``official``,
``all_trec``, ...) marks a list of measures. A measure's parameters decide the
names it prints: cutoffs sorted ascending (``P.10,5`` prints ``P_5`` then
``P_10``; ``Rprec_mult`` cutoffs as ``%3.2f``), other parameter lists as
written (``utility_2,-1,0,0``). Counts print as integers, everything else with
``%6.4f``. A few measures print no per-query line (``num_q``, ``gm_map``,
``gm_bpref``); ``runid`` prints the run's name, ``relstring`` the judgements of
the top documents, per query only.

This module turns ``-m`` options into :class:`Line` values: the label printed,
the frame_eval :class:`~frame_eval.registry.Measure` computing it, and how it
prints. Names that are not trec_eval's (``nDCG@10``, ``AP(rel=2)``) are parsed
by :func:`frame_eval.registry.parse_measures` and printed after trec_eval's,
under their canonical names, in the order given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from frame_eval.evaluate import _ranking  # noqa: F401  (registers the ranking measures)
from frame_eval.registry import Measure, parse_measures

Kind = Literal["runid", "long", "double", "cut_long", "cut_double", "params", "relstring"]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_LEVELS = tuple(i / 10 for i in range(11))
_MULTS = tuple(i / 10 for i in range(2, 21, 2))


@dataclass(frozen=True)
class TrecMeasure:
    name: str
    kind: Kind
    default: tuple[float, ...] = ()  # default cutoffs (cut kinds), or relstring's length
    per_query: bool = True  # False: printed in the summary only
    source: str = "qrels"  # the judgement format it needs: qrels, prefs or qrels_jg


def _table() -> tuple[TrecMeasure, ...]:
    t = TrecMeasure
    prefs_long = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
    prefs_double = ("prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                    "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                    "prefs_pair_imp", "prefs_avgjg_imp")
    return (
        t("runid", "runid", source="any"), t("num_q", "long", per_query=False, source="any"),
        t("num_ret", "long"), t("num_rel", "long"), t("num_rel_ret", "long"), t("map", "double"),
        t("gm_map", "double", per_query=False), t("Rprec", "double"), t("bpref", "double"),
        t("recip_rank", "double"), t("iprec_at_recall", "cut_double", _LEVELS), t("P", "cut_long", _CUTS),
        t("relstring", "relstring", (10,)), t("recall", "cut_long", _CUTS), t("infAP", "double"),
        t("gm_bpref", "double", per_query=False), t("Rprec_mult", "cut_double", _MULTS),
        t("utility", "params"), t("11pt_avg", "params"), t("binG", "double"), t("G", "params"),
        t("dcg", "params"), t("ideal_dcg", "params"), t("ndcg", "params"), t("ndcg_rel", "params"),
        t("Rndcg", "params"), t("ndcg_cut", "cut_long", _CUTS), t("map_cut", "cut_long", _CUTS),
        t("relative_P", "cut_long", _CUTS), t("success", "cut_long", (1, 5, 10)), t("set_P", "double"),
        t("set_relative_P", "double"), t("set_recall", "double"), t("set_map", "double"),
        t("set_F", "params"), t("num_nonrel_judged_ret", "long"),
        *(t(n, "long", source="prefs") for n in prefs_long),
        *(t(n, "double", source="prefs") for n in prefs_double),
        t("map_avgjg", "double"), t("P_avgjg", "cut_long", _CUTS),
        t("Rprec_mult_avgjg", "cut_double", _MULTS), t("yaap", "double"),
        t("rbp", "params"), t("rbp_resid", "params"), t("unj", "cut_long", (5, 10, 20)),
    )


TABLE = _table()
_BY_NAME = {m.name: m for m in TABLE}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
                 "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                 "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
# measures of trec_eval 10.0 that frame-eval does not compute (none of its nicknames names them)
NOT_IMPLEMENTED = {"dcg", "ideal_dcg"}


class MeasureError(ValueError):
    """An ``-m`` option that names no measure, or gives a measure bad parameters."""


@dataclass(frozen=True)
class Line:
    """One printed measure: its label, the measure computing it and how it prints."""

    label: str
    measure: Measure | None  # None: runid and relstring, which the command line prints itself
    integer: bool = False
    per_query: bool = True
    kind: str = "value"  # value, runid or relstring
    length: int = 0  # relstring's number of documents
    source: str = "qrels"


@dataclass
class Selection:
    """The measures ``-m`` options select, in trec_eval's print order, then the extra names."""

    marked: set[str] = field(default_factory=set)
    params: dict[str, str] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)


def _c_long(text: str) -> int:
    """C's ``atol``: leading blanks, an optional sign and digits; 0 when none."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _c_double(text: str) -> float:
    """C's ``atof`` for decimal numbers: the longest leading number; 0.0 when none."""
    m = re.match(r"\s*([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", text,
                 re.IGNORECASE)
    return float(m.group(1)) if m else 0.0


def select(options: Sequence[str]) -> Selection:
    """Mark measures as trec_eval's ``-m`` does; other names are kept for the registry."""
    chosen = Selection()
    for option in options:
        name, dot, params = option.partition(".")
        if dot and not params:
            raise MeasureError(f"improper measure in parameter {name!r}: nothing after the '.'")
        if name in NICKNAMES:
            chosen.marked.update(NICKNAMES[name])
        elif name in _BY_NAME:
            chosen.marked.add(name)
            if dot:
                chosen.params.setdefault(name, params)  # trec_eval uses the first -m that names it
        else:
            try:
                parse_measures(option)
            except ValueError as error:
                raise MeasureError(f"illegal measure {option!r}: {error}") from None
            chosen.extra.append(option)
    return chosen


def _cut_labels(m: TrecMeasure, params: str | None) -> list[tuple[str, str]]:
    """(printed label, the name frame_eval parses) for each cutoff, sorted as trec_eval sorts."""
    if m.kind == "cut_long":
        cuts = sorted(_c_long(p) for p in params.split(",")) if params else list(m.default)
        if cuts[0] <= 0:
            raise MeasureError(f"{m.name}.{params}: negative cutoff detected; cutoffs are positive")
        if len(set(cuts)) < len(cuts):
            raise MeasureError(f"{m.name}.{params}: duplicate cutoffs detected")
        return [(f"{m.name}_{int(c)}", f"{m.name}.{int(c)}") for c in cuts]
    values = sorted(_c_double(p) for p in params.split(",")) if params else list(m.default)
    if len(set(values)) < len(values):
        raise MeasureError(f"{m.name}.{params}: duplicate cutoffs detected")
    return [(f"{m.name}_{v:3.2f}", f"{m.name}.{v!r}") for v in values]


def _one(name: str, label: str) -> Measure:
    try:
        found = parse_measures(name)
    except ValueError as error:
        raise MeasureError(f"illegal measure {label!r}: {error}") from None
    if len(found) != 1:
        raise MeasureError(f"measure {label!r} stands for {len(found)} measures, expected one")
    return found[0]


def lines(chosen: Selection) -> list[Line]:
    """The printed lines of the selection: trec_eval's measures in its order, then the others."""
    out: list[Line] = []
    for m in TABLE:
        if m.name not in chosen.marked:
            continue
        if m.name in NOT_IMPLEMENTED:
            raise MeasureError(f"trec_eval's measure {m.name!r} is not implemented by frame-eval")
        params = chosen.params.get(m.name)
        integer = m.kind == "long"
        if m.kind == "runid":
            out.append(Line("runid", None, per_query=False, kind="runid", source=m.source))
        elif m.kind == "relstring":
            length = math.trunc(_c_double(params)) if params else int(m.default[0])
            label = f"relstring_{params}" if params else "relstring"
            out.append(Line(label, None, kind="relstring", length=length, source=m.source))
        elif m.kind in ("cut_long", "cut_double"):
            for label, name in _cut_labels(m, params):
                out.append(Line(label, _one(name, label), per_query=m.per_query, source=m.source))
        elif m.kind == "params" and params:
            label = f"{m.name}_{params}"
            out.append(Line(label, _one(f"{m.name}.{params}", label), per_query=m.per_query, source=m.source))
        else:
            out.append(Line(m.name, _one(m.name, m.name), integer, m.per_query, source=m.source))
    seen = {line.measure.name for line in out if line.measure is not None}
    for name in chosen.extra:
        for measure in parse_measures(name):
            if measure.name not in seen:
                seen.add(measure.name)
                out.append(Line(measure.name, measure, measure.spec.aggregate == "sum"))
    return out


def check_format(lines: list[Line], rel_format: str) -> None:
    """Each measure can be computed from judgements in ``rel_format`` (trec_eval's ``-R``)."""
    for line in lines:
        need = line.source
        if line.measure is not None and line.measure.spec.name in _JG_SPECS:
            need = "qrels_jg_or_qrels"
        if need == "any" or need == rel_format or (need == "qrels_jg_or_qrels" and rel_format in (
                "qrels", "qrels_jg")) or (need == "prefs" and rel_format in ("prefs", "qrels_prefs")):
            continue
        raise MeasureError(f"measure {line.label!r} cannot be computed from -R {rel_format} judgements "
                           f"(it needs -R {need.split('_or_')[0]})")


_JG_SPECS = {"map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}
