"""The README's generated tables are the registry's: ``python -m frame_eval.docs`` prints them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from frame_eval import docs
from frame_eval.registry import Doc, MeasureSpec

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_classification_table_is_the_generated_one_byte_for_byte() -> None:
    shown, generated = docs.section(README, docs.CLASSIFICATION), docs.classification_table()
    if shown != generated:
        lines = list(zip(shown.splitlines(), generated.splitlines(), strict=False))
        first = next((i for i, (a, b) in enumerate(lines) if a != b), len(lines))
        pytest.fail(
            f"README.md's classification measure table differs from the registry's (first at table line "
            f"{first + 1}, 1-based): run `{docs.COMMAND}` from the repository root"
        )


def test_the_command_prints_the_table_and_writing_it_back_changes_nothing(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "frame_eval.docs"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert printed == docs.classification_table()
    copy = tmp_path / "README.md"
    copy.write_text(README, encoding="utf-8")
    assert docs.main(["--write", str(copy)]) == 0
    assert copy.read_text(encoding="utf-8") == docs.replace_section(
        README, docs.CLASSIFICATION, docs.classification_table()
    )


def test_writing_replaces_only_the_section_between_the_markers() -> None:
    start, end = docs.section_markers("x")
    text = f"before\n{start}\nold\n{end}after\n"
    assert docs.replace_section(text, "x", "new\n") == f"before\n{start}\nnew\n\n{end}after\n"
    assert docs.section(docs.replace_section(text, "x", "new\n"), "x") == "new\n"
    with pytest.raises(ValueError, match="markers of 'y' once each"):
        docs.replace_section(text, "y", "new\n")


def test_a_row_escapes_pipes_and_stars_outside_code_and_a_family_without_doc_is_an_error() -> None:
    def build(columns: object, cutoff: object) -> None:
        return None

    spec = MeasureSpec(name="toy", kind="classification", summary="toy", build=build, aliases=("t",),
                       doc=Doc("C.toy", "|a| * b, `x | y`", "no rows"))
    assert docs._row(spec) == ["`toy`", "`t`", "`C.toy`", "\\|a\\| \\* b, `x | y`", "no rows"]
    bare = MeasureSpec(name="bare", kind="classification", summary="bare", build=build)
    with pytest.raises(ValueError, match=r"'bare' has no doc=Doc\(\.\.\.\).*python -m frame_eval.docs"):
        docs._row(bare)
