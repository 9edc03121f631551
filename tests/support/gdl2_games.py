"""Small GDL-II games written for the tests (the corpus's GDL-II games are used when present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus import corpus_items

#: Monty Hall: nature hides the car and opens a door, the candidate sees which door and, at the end,
#: where the car is.
MONTY_HALL = """
(role random) (role candidate)
(init (closed 1)) (init (closed 2)) (init (closed 3)) (init (step 1))
(<= (legal random (hide_car ?d)) (true (step 1)) (true (closed ?d)))
(<= (legal random (open_door ?d)) (true (step 2)) (true (closed ?d))
    (not (true (car ?d))) (not (true (chosen ?d))))
(<= (legal random noop) (true (step 3)))
(<= (legal candidate (choose ?d)) (true (step 1)) (true (closed ?d)))
(<= (legal candidate noop) (true (step 2)))
(<= (legal candidate switch) (true (step 3)))
(<= (legal candidate noop) (true (step 3)))
(<= (sees candidate (opened ?d)) (does random (open_door ?d)))
(<= (sees candidate (car ?d)) (true (step 3)) (true (car ?d)))
(<= (next (car ?d)) (does random (hide_car ?d)))
(<= (next (car ?d)) (true (car ?d)))
(<= (next (closed ?d)) (true (closed ?d)) (not (does random (open_door ?d))))
(<= (next (chosen ?d)) (does candidate (choose ?d)))
(<= (next (chosen ?d)) (true (chosen ?d)) (not (does candidate switch)))
(<= (next (chosen ?d)) (does candidate switch) (true (closed ?d)) (not (true (chosen ?d))))
(<= (next (step 2)) (true (step 1)))
(<= (next (step 3)) (true (step 2)))
(<= (next (step 4)) (true (step 3)))
(<= terminal (true (step 4)))
(<= (goal candidate 100) (true (chosen ?d)) (true (car ?d)))
(<= (goal candidate 0) (true (chosen ?d)) (not (true (car ?d))))
"""

#: Two players each secretly pick a bit; each sees the other's bit only when they differ. Nature adds a
#: coin that only player a sees. Player a wins when the bits agree.
HIDDEN_BITS = """
(role a) (role random) (role b)
(init (turn 1))
(bit 0) (bit 1)
(<= (legal a (pick ?x)) (true (turn 1)) (bit ?x))
(<= (legal b (pick ?x)) (true (turn 1)) (bit ?x))
(<= (legal random (coin ?x)) (true (turn 1)) (bit ?x))
(<= (sees a (coin ?x)) (does random (coin ?x)))
(<= (sees a (other ?y)) (does a (pick ?x)) (does b (pick ?y)) (distinct ?x ?y))
(<= (sees b (other ?x)) (does a (pick ?x)) (does b (pick ?y)) (distinct ?x ?y))
(<= (next (picked ?r ?x)) (does ?r (pick ?x)))
(<= (next (coin ?x)) (does random (coin ?x)))
(<= (next done) (true (turn 1)))
(<= terminal (true done))
(<= (same) (true (picked a ?x)) (true (picked b ?x)))
(<= (goal a 100) (same))
(<= (goal a 0) (not (same)))
(<= (goal b 0) (same))
(<= (goal b 100) (not (same)))
"""

#: GDL-II games of the corpus that the checker rejects, with the real defect of each: (code, line).
GDL2_DEFECTS = {
    # (not (distinct ...)), and (legal ?player noop) bound only by distinct
    "BattleshipsFog.gdl": {("negated-non-sentence", 303), ("unsafe-variable", 46)},
    # a parenthesis closes the legal rule early, leaving (true (turn ?c)) as a fact
    "ConnectThreeDecompositionII.gdl": {("variable-in-fact", 141)},
    # its goal reads (score ?s), which nothing defines, for (true (score ?s)): no terminal state has a goal
    "HoldYourCourseII.gdl": {("goal-never-derived", 64)},
    # (not (next-player random)), where next-player has 2 arguments everywhere else
    "blackjack.gdl": {("relation-arity", 271)},
    # (<= terminal not open): a bare 'not'
    "minesweeper.gdl": {("keyword-misuse", 159)},
    # fragments to be included in a game: no role, legal, goal or terminal of their own
    "minesweeper1_robot.gdl": {("missing-keyword", 0)},
    "minesweeper_robot.gdl": {("missing-keyword", 0)},
    # (not (true secretnumber ?n)) for (not (true (secretnumber ?n)))
    "numberguessing.gdl": {("keyword-arity", 126)},
}

#: The rejected GDL-II games by name, with the codes of their errors.
REJECTED_GDL2 = {Path(name).stem: {code for code, _ in found} for name, found in GDL2_DEFECTS.items()}

#: GDL-II games whose three clingo walks take more than about 5 s (small_dominion: minutes): slow run only.
SLOW_GDL2 = {
    "small_dominion", "SmallDominion2", "minesweeper1", "BlindBreakthrough", "vis_pacman3p",
    "IrrelevantMultiboardConnectThreeDecompositionI", "mastermind", "mastermind448", "Mastermind448",
    "stratego",
}


def gdl2_corpus_games(corpus: Path) -> list[Path]:
    """Every GDL-II game of the corpus (``sees`` or ``random``): in ``games/`` by its index, and ``gdl2/``."""
    rows = (line.split("\t") for line in (corpus / "games" / "INDEX.tsv").read_text().splitlines()[1:])
    indexed = [corpus / "games" / row[0] for row in rows if row[-1] != "-"]
    return indexed + sorted((corpus / "gdl2").glob("*.gdl"))


def gdl2_params(corpus: Path, slow: frozenset[str] | set[str] = SLOW_GDL2) -> list[object]:
    """The GDL-II corpus games as test parameters (see :func:`support.corpus.corpus_params` when the
    corpus is absent); ``slow`` ones marked."""
    return corpus_items(
        lambda: [
            pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if path.stem in slow else [])
            for path in gdl2_corpus_games(corpus)
        ],
        at_least=33,  # 11 in the index of games/, 22 in gdl2/
    )
