"""The README's classification section says what the code does: its measure table and its example."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import polars as pl
import pytest

import frame_eval as fe
from frame_eval import classification as C
from frame_eval.classification.thresholds import CRITERIA
from frame_eval.registry import specs

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
SECTION = README[README.index("## Classification") : README.index("## Correctness")]


def _table_rows() -> list[list[str]]:
    header = "| measure | also accepted | expression | value | null when |"
    lines = SECTION[SECTION.index(header) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


ROWS = _table_rows()
# a frame where every measure is defined, to read the name each expression gives its column
SAMPLE = pl.DataFrame({"y": [1, 1, 0, 0, 1, 0], "yhat": [1, 0, 1, 0, 1, 0],
                       "prob": [0.9, 0.4, 0.6, 0.2, 0.8, 0.1]})


def _canonical(name: str) -> str:
    (m,) = fe.parse_measures(name, kind="classification")
    return m.name


def test_the_table_lists_every_family_and_every_synonym_of_the_registry() -> None:
    listed = {name.split("(")[0].lower() for row in ROWS for name in _ticked(row[0]) + _ticked(row[1])}
    for spec in specs("classification"):
        names = spec.aliases if spec.name == "F" else (spec.name, *spec.aliases)  # F is shown as F1, F2...
        missing = [n for n in names if n.lower() not in listed]
        assert not missing, (spec.name, missing)
    families = {_canonical(_ticked(row[0])[0].split("(")[0]).split("(")[0] for row in ROWS}
    assert families == {s.name if s.name != "F" else "F1" for s in specs("classification")}


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_every_name_in_a_row_parses_to_its_measure(row: list[str]) -> None:
    names, synonyms, expressions = _ticked(row[0]), _ticked(row[1]), _ticked(row[2])
    if names[0].startswith("best_threshold"):
        assert sorted(synonyms) == sorted(CRITERIA)
        for criterion in synonyms:
            assert _canonical(f"best_threshold(criterion={criterion})").startswith("best_threshold")
        assert SAMPLE.select(C.best_threshold("y", "prob")).columns == ["best_threshold"]
        return
    first = _canonical(names[0])
    for name in names[1:]:
        assert _canonical(name).startswith("F"), name  # F1, F2, F0.5, F(beta=3)
    beta = "(beta=b)" in row[1]
    for name in (n for n in synonyms if not n.startswith("(")):
        if beta and "(" not in name:
            assert _canonical(name) == "F1"
            assert _canonical(f"{name}(beta=2)") == "F2"
        else:
            assert _canonical(name) == first, name
    # the expression named in the row gives the measure under its first name
    fn = getattr(C, expressions[0].removeprefix("C."))
    if first.startswith("top_k_accuracy"):
        assert SAMPLE.select(fn("y", {0: "prob", 1: "prob"})).columns == [first]
        return
    columns = ("y", "prob") if first in {"ROC_AUC", "average_precision", "PR_AUC", "EER"} else ("y", "yhat")
    assert SAMPLE.select(fn(*columns)).columns == [first]


def test_the_screening_snippet_prints_what_the_readme_shows() -> None:
    # fenced blocks alternate with text: [text, lang + code, text, lang + code, ...]
    blocks = SECTION.split("```")[1::2]
    at = next(i for i, block in enumerate(blocks) if block.startswith("python") and "screening" in block)
    code, shown = blocks[at].removeprefix("python\n"), blocks[at + 1].removeprefix("\n")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {"pl": pl, "fe": fe})
    assert printed.getvalue() == shown
