"""Shared fixtures: the trec_eval reference suite in ../shared, when it is there."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "trec_eval"


@pytest.fixture(scope="session")
def trec_dir() -> Path:
    if not (SHARED / "out.test").is_file():
        pytest.skip(f"trec_eval reference suite not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """trec_eval 10.0 built from ../shared, printing values at full precision (or a clean skip)."""
    from oracles.trec_eval import build

    found = build(tmp_path_factory.mktemp("trec_eval"))
    if isinstance(found, str):
        pytest.skip(found)
    return found
