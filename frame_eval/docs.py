"""The README's measure tables, generated from the registry: ``python -m frame_eval.docs``.

Every measure family declares its row with ``doc=Doc(...)`` in its registry
entry (:class:`frame_eval.registry.Doc`): the expression functions, what the
value is, and when it is null (classification) or trec_eval's names for it
(ranking); the names and aliases come from the entry itself. A ranking row may
document several families (``covers``: SetP's row holds SetR, SetAP and
set_relative_P). ``python -m frame_eval.docs`` prints the table;
``python -m frame_eval.docs --write README.md`` replaces the README's copy
between its marker comments, and ``tests/test_readme_generated.py`` checks that
the two are the same, byte for byte.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frame_eval.registry import Doc, MeasureSpec, specs

__all__ = ["CLASSIFICATION", "COMMAND", "RANKING", "classification_table", "main", "ranking_table",
           "replace_section", "section", "section_markers"]

CLASSIFICATION = "classification-measures"
RANKING = "ranking-measures"
HEADER = ("measure", "also accepted", "expression", "value", "null when")
RANKING_HEADER = ("measure", "trec_eval name", "expression", "value")
COMMAND = "python -m frame_eval.docs --write README.md"


def _escaped(text: str) -> str:
    """``|`` and ``*`` as Markdown table text shows them, except inside code spans."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("|", "\\|").replace("*", "\\*")
    return "`".join(parts)


def _ticked(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _documented(spec: MeasureSpec) -> Doc:
    if spec.doc is None:
        raise ValueError(
            f"{spec.kind} measure {spec.name!r} has no doc=Doc(...) in its registry entry: add one "
            f"(its README row), then run {COMMAND}"
        )
    return spec.doc


def _expressions(doc: Doc) -> str:
    """The expression column: each function in code, or the Markdown as written when it holds code."""
    if "`" in doc.expression:
        return doc.expression
    return _ticked([e.strip() for e in doc.expression.split(",")])


def _row(spec: MeasureSpec) -> list[str]:
    doc = _documented(spec)
    accepted = ", ".join(part for part in (_ticked(spec.aliases), doc.accepted) if part)
    names = _ticked(doc.names or (spec.name,))
    return [names, accepted, _expressions(doc), _escaped(doc.value), doc.null_when]


def _ranking_row(spec: MeasureSpec, covered: list[MeasureSpec]) -> list[str]:
    doc = _documented(spec)
    aliases = [a for s in (spec, *covered) for a in s.aliases]
    names = _ticked(doc.names or (spec.name,))
    if aliases:
        names += f" (alias{'es' if len(aliases) > 1 else ''} {_ticked(aliases)})"
    return [names, doc.trec, _expressions(doc), _escaped(doc.value)]


def _table(header: tuple[str, ...], rows: list[list[str]]) -> str:
    lines = [header, tuple("---" for _ in header), *rows]
    return "".join("|" + "|".join(f" {cell} " if cell else " " for cell in line) + "|\n" for line in lines)


# the table's order: by the module that builds the family (then registration order); others last
MODULE_ORDER = ("rates", "curves", "probabilistic", "multiclass", "calibration", "thresholds")


def _ours(kind: str) -> list[MeasureSpec]:
    """The families frame_eval itself registers (a user's own, registered at run time, have no README row)."""
    return [s for s in specs(kind) if s.build.__module__.startswith("frame_eval.")]


def _place(spec: MeasureSpec, order: tuple[str, ...] = MODULE_ORDER) -> int:
    module = spec.build.__module__.rsplit(".", 1)[-1]
    return order.index(module) if module in order else len(order)


def classification_table() -> str:
    """The classification measure table, a row per registered family: the measures of predicted
    labels (``rates.py``), then those of scores and probabilities, then the best threshold.

    >>> print(classification_table().splitlines()[2])
    | `TP` | `true_positives` | `C.tp` | positive rows predicted positive | never |
    """
    import frame_eval.classification  # noqa: F401  (registers the families)

    return _table(HEADER, [_row(s) for s in sorted(_ours("classification"), key=_place)])


# the ranking table's order: by the module that builds the family (then registration order)
RANKING_ORDER = ("average_precision", "gain", "precision", "reciprocal", "interpolated", "counts",
                 "set_based", "gain_variants", "incomplete", "rank_biased", "judgement_groups", "preferences")


def ranking_table() -> str:
    """The ranking measure table: a row per registered family, or per group of families one row
    documents (``Doc.covers``), in :data:`RANKING_ORDER` of their modules.

    >>> print(ranking_table().splitlines()[8])
    | `P@k` | `P.k` | `fe.ranking.precision` | relevant in the top k, divided by k |
    """
    import frame_eval.ranking  # noqa: F401  (registers the families)

    families = {s.name: s for s in _ours("ranking")}
    covered: dict[str, list[MeasureSpec]] = {}
    for spec in families.values():
        for name in spec.doc.covers if spec.doc is not None else ():
            if name not in families or name in covered or families[name].doc is not None:
                raise ValueError(f"ranking measure {spec.name!r}: its Doc covers {name!r}, which is not a "
                                 "registered family without a row of its own, covered once")
            covered[name] = [families[name]]
    rows = []
    for spec in sorted(families.values(), key=lambda s: _place(s, RANKING_ORDER)):
        if spec.name not in covered:
            rows.append(_ranking_row(spec, [families[n] for n in _documented(spec).covers]))
    return _table(RANKING_HEADER, rows)


def section_markers(name: str) -> tuple[str, str]:
    """The comments around a generated section of the README."""
    return (f"<!-- {name}: generated from the registry by `{COMMAND}`; edit the registry -->\n",
            f"<!-- end {name} -->\n")


def _split(text: str, name: str) -> tuple[str, str, str]:
    start, end = section_markers(name)
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"the README must hold the markers of {name!r} once each, in order: "
                         f"{start.strip()} ... {end.strip()}")
    before, rest = text.split(start)
    inside, after = rest.split(end)
    return before + start, inside, end + after


def section(text: str, name: str) -> str:
    """The generated section ``name`` of ``text``, between its markers (and the blank lines there)."""
    inside = _split(text, name)[1]
    return inside.removeprefix("\n").removesuffix("\n")


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with the section ``name`` (between its markers) replaced by ``body``.

    >>> start, end = section_markers("x")
    >>> section(replace_section("intro " + start + end + "outro", "x", "body"), "x")
    'body'
    """
    before, _, after = _split(text, name)
    return before + "\n" + body + "\n" + after


GENERATED = {RANKING: ranking_table, CLASSIFICATION: classification_table}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m frame_eval.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="README", type=Path,
                        help="replace the generated sections of this file in place (else print them)")
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write("\n".join(build() for build in GENERATED.values()))
        return 0
    text = args.write.read_text(encoding="utf-8")
    for name, build in GENERATED.items():
        text = replace_section(text, name, build())
    args.write.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
