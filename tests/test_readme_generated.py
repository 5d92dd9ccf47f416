"""The README's generated tables are the registry's: ``python -m frame_eval.docs`` prints them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from frame_eval import docs
from frame_eval.registry import Doc, MeasureSpec

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [docs.RANKING, docs.CLASSIFICATION])
def test_the_readme_tables_are_the_generated_ones_byte_for_byte(name: str) -> None:
    shown, generated = docs.section(README, name), docs.GENERATED[name]()
    if shown != generated:
        lines = list(zip(shown.splitlines(), generated.splitlines(), strict=False))
        first = next((i for i, (a, b) in enumerate(lines) if a != b), len(lines))
        pytest.fail(
            f"README.md's {name} table differs from the registry's (first at table line "
            f"{first + 1}, 1-based): run `{docs.COMMAND}` from the repository root"
        )


def test_every_ranking_family_has_one_row_and_every_expression_named_exists() -> None:
    import frame_eval as fe
    ours = docs._ours("ranking")  # (tests register measures of their own)
    table = docs.ranking_table()
    for spec in ours:
        doc = spec.doc or next(s.doc for s in ours if s.doc and spec.name in s.doc.covers)
        assert f"`{(doc.names or (spec.name,))[0]}`" in table
    for expression in re.findall(r"`fe\.ranking\.(\w+)", table):
        assert callable(getattr(fe.ranking, expression)), expression


def test_a_ranking_row_lists_the_aliases_of_the_families_it_covers_and_a_bad_cover_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = next(line for line in docs.ranking_table().splitlines() if line.startswith("| `SetP`"))
    assert "(alias `SetRelP`)" in row  # set_relative_P's alias, in SetP's row
    from frame_eval import registry

    set_p = registry._SPECS["ranking:SetP"]
    bad = MeasureSpec(**{**set_p.__dict__, "doc": Doc("x", "y", covers=("nothing_like_it",))})
    monkeypatch.setitem(registry._SPECS, "ranking:SetP", bad)
    with pytest.raises(ValueError, match="covers 'nothing_like_it'"):
        docs.ranking_table()


def test_the_command_prints_the_table_and_writing_it_back_changes_nothing(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "frame_eval.docs"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert printed == docs.ranking_table() + "\n" + docs.classification_table()
    copy = tmp_path / "README.md"
    copy.write_text(README, encoding="utf-8")
    assert docs.main(["--write", str(copy)]) == 0
    assert copy.read_text(encoding="utf-8") == README  # the README holds the generated tables


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


def test_a_users_own_measure_gets_no_row_and_breaks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from frame_eval import registry

    def build(columns: object, cutoff: object) -> None:
        return None

    for kind in ("ranking", "classification"):
        toy = MeasureSpec(name="users_toy", kind=kind, summary="toy", build=build)
        monkeypatch.setitem(registry._SPECS, f"{kind}:users_toy", toy)
    assert "users_toy" not in docs.ranking_table() + docs.classification_table()
    assert docs.section(README, docs.RANKING) == docs.ranking_table()
