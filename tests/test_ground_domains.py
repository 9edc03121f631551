"""gdl.ground.domains: the relaxed domains of moves, fluents and percepts are supersets of what
instantiation lists, and bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import CORPUS, GAMES

import gdl
from gdl.engines import AUTO_MAX_ATOMS, AUTO_MAX_SECONDS
from gdl.errors import DomainTooLargeError, GameTooLargeError
from gdl.ground.domains import domains
from gdl.ground.grounding import term_of, value_text
from gdl.ground.instantiate import instantiate
from gdl.syntax.model import Term

TESTS = Path(__file__).resolve().parent
#: Corpus games of many shapes (simultaneous, GDL-II, recursion, functions in moves), compared by default.
CORPUS_SAMPLE = [
    "games/breakthrough.kif", "games/pentago.kif", "games/hanoi.kif", "games/nim3.kif",
    "games/checkerstorus.kif", "games/tictactoe_3player.kif", "games/roshambo2.kif",
    "games/ggpbase_test_case_5e.kif", "gdl2/MontyHall.gdl", "games/pennies.kif",
    "gdl2/BlindBreakthrough.gdl", "games/blocker.kif",
]


def _compare(path: Path) -> bool:
    """Check that the domains of the game at ``path`` hold everything its instantiation lists; False when
    it does not instantiate (nothing to compare)."""
    game = gdl.load(path, engine="datalog")
    try:
        grounding = instantiate(game.checked, AUTO_MAX_ATOMS, AUTO_MAX_SECONDS)
    except GameTooLargeError:
        return False
    relaxed = domains(game.checked.program, game.roles)
    moves: dict[str, set[Term]] = {role: set() for role in game.roles}
    for role, move in grounding.moves:
        moves[value_text(role)].add(term_of(move))
    for role in game.roles:
        missing = moves[role] - set(relaxed.moves[role])
        assert not missing, (path.name, role, missing)
    fluents = {term_of(f) for f in grounding.fluents}
    assert fluents <= set(relaxed.fluents), (path.name, fluents - set(relaxed.fluents))
    percepts = {
        (value_text(args[0]), term_of(args[1]))
        for relation, args in [rule.head for rule in grounding.rules] + list(grounding.facts)
        if relation == "sees" and len(args) == 2 and value_text(args[0]) in game.roles
    }
    for role, percept in percepts:
        assert percept in relaxed.percepts[role], (path.name, role, percept)
    return True


def test_the_domains_of_every_bundled_game_hold_what_instantiation_lists() -> None:
    paths = sorted(GAMES.glob("*.kif")) + sorted((TESTS / "games").glob("*.kif"))
    compared = [path.name for path in paths if _compare(path)]
    assert len(compared) >= 15, compared


def test_the_domains_of_a_sample_of_corpus_games_hold_what_instantiation_lists(corpus: Path) -> None:
    compared = [name for name in CORPUS_SAMPLE if _compare(corpus / name)]
    assert compared == CORPUS_SAMPLE


@pytest.mark.slow
def test_the_domains_of_every_corpus_game_hold_what_instantiation_lists(corpus: Path) -> None:
    compared = 0
    for path in sorted((corpus / "games").glob("*.kif")) + sorted((corpus / "gdl2").glob("*.gdl")):
        try:
            compared += _compare(path)
        except (gdl.InvalidGameError, DomainTooLargeError):
            continue
    assert compared >= 150


def test_moves_are_kept_per_role_and_fluents_come_from_init_and_next() -> None:
    game = gdl.parse(
        "(role white) (role black) (init (control white)) (col a) (col b)"
        " (<= (legal white (w ?c)) (true (control white)) (col ?c))"
        " (<= (legal black (b ?c)) (true (control black)) (col ?c))"
        " (<= (legal ?r noop) (role ?r) (not (true (control ?r))))"
        " (<= (next (control black)) (true (control white)))"
        " (<= (next (placed ?c)) (does ?r (w ?c)))"
        " (<= terminal (true (placed a))) (<= (goal ?r 50) (role ?r))",
        engine="datalog",
    )
    relaxed = domains(game.checked.program, game.roles)
    assert [str(m) for m in relaxed.moves["white"]] == ["(w a)", "(w b)", "noop"]
    assert [str(m) for m in relaxed.moves["black"]] == ["(b a)", "(b b)", "noop"]
    assert [str(f) for f in relaxed.fluents] == [
        "(control black)", "(control white)", "(placed a)", "(placed b)",
    ]


def test_an_unbounded_counter_is_refused_with_the_term_that_grows() -> None:
    game = gdl.parse(
        "(role r) (init (count 0)) (<= (legal r tick) (true (count ?n)))"
        " (<= (next (count (s ?n))) (true (count ?n))) (<= terminal (true (count 0)))"
        " (<= (goal r 0) (true (count ?n)))",
        engine="datalog",
    )
    with pytest.raises(DomainTooLargeError, match=r"'\(count \(s \?n\)\)' makes terms nested more than"):
        domains(game.checked.program, game.roles)


def test_a_move_space_past_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gdl.ground.domains.MAX_TERMS", 50)
    game = gdl.load(TESTS / "games" / "too_many_rules.kif", engine="datalog")
    with pytest.raises(DomainTooLargeError, match="more than 50 terms"):
        domains(game.checked.program, game.roles)


def test_corpus_sample_is_where_it_is_said() -> None:
    if CORPUS.is_dir():
        assert all((CORPUS / name).is_file() for name in CORPUS_SAMPLE)
