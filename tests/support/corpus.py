"""The games of the shared corpus, as lists and as test parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.paths import CORPUS


def corpus_games(corpus: Path) -> list[Path]:
    """Every game of the corpus that is not GDL-II (see :func:`support.gdl2_games.gdl2_corpus_games`)."""
    rows = (line.split("\t") for line in (corpus / "games" / "INDEX.tsv").read_text().splitlines()[1:])
    return [corpus / "games" / row[0] for row in rows if row[-1] == "-"]


#: Games no bottom-up evaluator can run, with why.
UNEVALUABLE = {
    "sudoku": "the static relation exactlyfirst/10 has about 387 million facts (9 ** 9 choices of its "
    "arguments); ours and clingo's bottom-up evaluation would materialise every one",
}
SLOW_GAMES = [
    pytest.param(path, marks=pytest.mark.skip(reason=UNEVALUABLE[path.stem]), id=path.stem)
    if path.stem in UNEVALUABLE
    else pytest.param(path, id=path.stem)
    for path in (corpus_games(CORPUS) if (CORPUS / "games" / "INDEX.tsv").is_file() else [])
]
