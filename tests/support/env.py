"""What the environment tests share: the corpus games, loaded or skipped with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import gdl
from gdl.env import Encoding, UngroundableGameError
from gdl.errors import GameDefinitionError, GameTooLargeError
from support.corpus import corpus_items
from support.paths import CORPUS, shared_path


def corpus_games() -> list[Path]:
    """Every GDL game and every GDL-II game of the corpus, as test parameters (see
    :func:`support.corpus.corpus_params` when the corpus is absent)."""
    return corpus_items(
        lambda: [
            path
            for folder, pattern in (("games", "*.kif"), ("gdl2", "*.gdl"))
            for path in sorted((CORPUS / folder).glob(pattern))
        ],
        at_least=205,  # 183 in games/, 22 in gdl2/
    )


def instantiated(path: Path) -> gdl.Game:
    """The game at ``path``; the test is skipped when it does not load or instantiate."""
    try:
        game = gdl.load(path)
        Encoding(game)
    except (gdl.InvalidGameError, GameTooLargeError, UngroundableGameError) as problem:
        pytest.skip(f"{path.name} does not load or instantiate: {str(problem).splitlines()[0]}")
    return game


@contextmanager
def unless_the_game_breaks_gdl(path: Path) -> Iterator[None]:
    """Skip the test when the game breaks a promise of GDL in play (e.g. no goal value at the end): a
    clear, domain error naming the state, never a crash of the environment."""
    try:
        yield
    except GameDefinitionError as problem:
        pytest.skip(f"{path.name} breaks a run-time promise of GDL: {str(problem)[:200]}")


def present(path: Path) -> gdl.Game:
    """The game at ``path`` of the shared corpus (see :func:`support.paths.shared_path` when absent)."""
    return gdl.load(shared_path(path))
