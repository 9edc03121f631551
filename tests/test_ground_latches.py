"""Latches (:mod:`gdl.ground.latches`): base propositions proved from the network to stay true once true
(or false once false). Random walks through the Datalog evaluator (independent of the network) never
see one unlatch, on corpus games (all of them in the slow test)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.corpus import corpus_items
from support.engines import checked_game
from support.paths import CORPUS

from gdl.engines.datalog import DatalogReasoner
from gdl.errors import GameTooLargeError
from gdl.ground.grounding import term_of, value_text
from gdl.ground.instantiate import instantiate
from gdl.ground.latches import find_latches
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, build

#: Games with latches of both kinds (tictactoe: marks stay, blanks stay gone; breakthrough: a home row
#: left empty stays so) and games with few.
GAMES = ("tictactoe", "connectfour", "breakthrough", "blocker", "hanoi", "aipsrovers01", "nim1")


def test_a_disjunction_with_the_proposition_itself_stays_true_and_a_conjunction_stays_false() -> None:
    # next(f0) = or(f0, a); next(f1) = and(f1, not a); next(f2) = or(and(f2, f0), a): f2 can drop when
    # f0 does; next(f3) = TRUE stays true; next(f4) = f4 both.
    net = PropNet(
        roles=("r",),
        fluents=("f0", "f1", "f2", "f3", "f4"),
        moves=((0, "a"),),
        kinds=(Gate.OR, Gate.NOT, Gate.AND, Gate.AND, Gate.OR),
        args=((0, 5), (5,), (1, 7), (2, 0), (9, 5)),
        cycles=(),
        next=(6, 8, 10, TRUE, 4),
        legal=((),),
        goals=((),),
        terminal=FALSE,
        init=frozenset(),
    )
    latches = find_latches(net)
    assert latches.stays_true == {0, 3, 4}
    assert latches.stays_false == {1, 4}


def walk_checks(name: str, corpus: Path, seeds: int, steps: int = 60, any_game: bool = False) -> int:
    """Walks at random with the Datalog evaluator; asserts no latch ever unlatches; the latches found.
    A game that does not ground fails the test, unless ``any_game`` (a walk over the whole corpus, where
    some games are too large) skips it."""
    checked = checked_game(corpus / "games" / f"{name}.kif")
    try:
        net = build(instantiate(checked))
    except (GameTooLargeError, RecursionError):
        if not any_game:
            raise
        pytest.skip(f"{name} does not ground")
    latches = find_latches(net)
    terms = [term_of(f) for f in net.fluents]
    reasoner = DatalogReasoner(checked)

    @settings(max_examples=seeds, deadline=None)
    @given(st.integers(0, 2**32))
    def walk(seed: int) -> None:
        rng = random.Random(seed)
        state = reasoner.initial()
        before = reasoner.fluents(state)
        for _ in range(steps):
            if reasoner.terminal(state):
                break
            legal = [reasoner.legal(state, role) for role in range(len(reasoner.roles))]
            if not all(legal):
                break
            state = reasoner.next(state, [rng.choice(moves) for moves in legal])
            after = reasoner.fluents(state)
            for b in latches.stays_true:
                assert terms[b] not in before or terms[b] in after, f"{terms[b]} unlatched"
            for b in latches.stays_false:
                assert terms[b] in before or terms[b] not in after, f"{terms[b]} unlatched"
            before = after

    walk()
    return len(latches.stays_true) + len(latches.stays_false)


@pytest.mark.parametrize("name", GAMES)
def test_random_walks_never_unlatch_a_latch(corpus: Path, name: str) -> None:
    found = walk_checks(name, corpus, seeds=8)
    assert found > 0


def test_tictactoe_marks_stay_and_blanks_stay_gone(corpus: Path) -> None:
    net = build(instantiate(checked_game(corpus / "games" / "tictactoe.kif")))
    text = [value_text(f) for f in net.fluents]
    marks = {b for b, t in enumerate(text) if t.startswith("(cell ") and not t.endswith(" b)")}
    blanks = {b for b, t in enumerate(text) if t.startswith("(cell ") and t.endswith(" b)")}
    assert len(marks) == 18 and len(blanks) == 9
    latches = find_latches(net)
    assert latches.stays_true == marks
    assert latches.stays_false == blanks


CORPUS_GAMES = corpus_items(lambda: sorted(p.stem for p in (CORPUS / "games").glob("*.kif")), at_least=183)


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_no_corpus_game_unlatches_a_latch(corpus: Path, name: str) -> None:
    walk_checks(name, corpus, seeds=3, steps=40, any_game=True)
