"""The games of the shared corpus, as lists and as test parameters."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from support.paths import CORPUS, needs_corpus


def corpus_games(corpus: Path = CORPUS) -> list[Path]:
    """Every game of the corpus that is not GDL-II (see :func:`support.gdl2_games.gdl2_corpus_games`)."""
    rows = (line.split("\t") for line in (corpus / "games" / "INDEX.tsv").read_text().splitlines()[1:])
    return [corpus / "games" / row[0] for row in rows if row[-1] == "-"]


def corpus_params(items: Sequence[Any], at_least: int) -> list[Any]:
    """Test parameters taken from the corpus: ``items``; when the corpus is absent, one parameter whose
    test is skipped (a failure under CI). A corpus present with fewer than ``at_least`` items stops the
    collection with the count (a list built at import must not silently shrink)."""
    if not CORPUS.is_dir():
        return [pytest.param(None, id="corpus-absent", marks=needs_corpus)]
    if len(items) < at_least:
        raise AssertionError(f"{len(items)} corpus parameters, at least {at_least} expected ({CORPUS})")
    return list(items)


def corpus_items(build: Any, at_least: int) -> list[Any]:
    """:func:`corpus_params` of ``build()``, called only when the corpus is there."""
    return corpus_params(build() if CORPUS.is_dir() else [], at_least)


#: Games no bottom-up evaluator can run, with why.
UNEVALUABLE = {
    "sudoku": "the static relation exactlyfirst/10 has about 387 million facts (9 ** 9 choices of its "
    "arguments); ours and clingo's bottom-up evaluation would materialise every one",
}
#: Every game of the corpus but the GDL-II ones, as parameters (those of :data:`UNEVALUABLE` skipped).
SLOW_GAMES = corpus_items(
    lambda: [
        pytest.param(path, marks=pytest.mark.skip(reason=UNEVALUABLE[path.stem]), id=path.stem)
        if path.stem in UNEVALUABLE
        else pytest.param(path, id=path.stem)
        for path in corpus_games()
    ],
    at_least=172,  # the games of INDEX.tsv that are not GDL-II
)
