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
