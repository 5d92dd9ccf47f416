"""The README's measure tables, generated from the registry: ``python -m frame_eval.docs``.

Every classification family declares its row with ``doc=Doc(...)`` in its
registry entry (:class:`frame_eval.registry.Doc`): the expression functions,
what the value is and when it is null; the names and aliases come from the
entry itself. ``python -m frame_eval.docs`` prints the table;
``python -m frame_eval.docs --write README.md`` replaces the README's copy
between its marker comments, and ``tests/test_readme_generated.py`` checks that
the two are the same, byte for byte.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frame_eval.registry import MeasureSpec, specs

__all__ = ["CLASSIFICATION", "COMMAND", "classification_table", "main", "replace_section", "section",
           "section_markers"]

CLASSIFICATION = "classification-measures"
HEADER = ("measure", "also accepted", "expression", "value", "null when")
COMMAND = "python -m frame_eval.docs --write README.md"


def _escaped(text: str) -> str:
    """``|`` and ``*`` as Markdown table text shows them, except inside code spans."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("|", "\\|").replace("*", "\\*")
    return "`".join(parts)


def _ticked(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _row(spec: MeasureSpec) -> list[str]:
    doc = spec.doc
    if doc is None:
        raise ValueError(
            f"classification measure {spec.name!r} has no doc=Doc(...) in its registry entry: add one "
            f"(its README row), then run {COMMAND}"
        )
    accepted = ", ".join(part for part in (_ticked(spec.aliases), doc.accepted) if part)
    expressions = _ticked([e.strip() for e in doc.expression.split(",")])
    return [_ticked(doc.names or (spec.name,)), accepted, expressions, _escaped(doc.value), doc.null_when]


def _table(header: tuple[str, ...], rows: list[list[str]]) -> str:
    lines = [header, tuple("---" for _ in header), *rows]
    return "".join("|" + "|".join(f" {cell} " if cell else " " for cell in line) + "|\n" for line in lines)


# the table's order: by the module that builds the family (then registration order); others last
MODULE_ORDER = ("rates", "curves", "probabilistic", "multiclass", "calibration", "thresholds")


def _place(spec: MeasureSpec) -> int:
    module = spec.build.__module__.rsplit(".", 1)[-1]
    return MODULE_ORDER.index(module) if module in MODULE_ORDER else len(MODULE_ORDER)


def classification_table() -> str:
    """The classification measure table, a row per registered family: the measures of predicted
    labels (``rates.py``), then those of scores and probabilities, then the best threshold.

    >>> print(classification_table().splitlines()[2])
    | `TP` | `true_positives` | `C.tp` | positive rows predicted positive | never |
    """
    import frame_eval.classification  # noqa: F401  (registers the families)

    return _table(HEADER, [_row(s) for s in sorted(specs("classification"), key=_place)])


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


GENERATED = {CLASSIFICATION: classification_table}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m frame_eval.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="README", type=Path,
                        help="replace the generated sections of this file in place (else print them)")
    args = parser.parse_args(argv)
    if args.write is None:
        sys.stdout.write(classification_table())
        return 0
    text = args.write.read_text(encoding="utf-8")
    for name, build in GENERATED.items():
        text = replace_section(text, name, build())
    args.write.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
