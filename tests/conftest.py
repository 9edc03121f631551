"""Shared test fixtures: where our games and the shared corpus are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture
def corpus() -> Path:
    """The shared corpus; tests that need it are skipped cleanly when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS
