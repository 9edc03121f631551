"""Gambit's .efg format: reading, writing, round trips, OpenSpiel as an oracle, and clear errors."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.extensive_strategies import games
from support.openspiel_games import from_openspiel
from support.paths import GAMES

import gdl.extensive.gambit
from gdl.errors import EfgError, ExtensiveGameError
from gdl.extensive.gambit import read_efg, write_efg
from gdl.extensive.lp import solve_lp
from gdl.extensive.model import ExtensiveGame, Terminal

SIGNAL = """EFG 2 R "signalling, after Watson" { "Worker" "Firm" }
"a comment that is not kept"

c "nature" 1 "types" { "High" 1/3 "Low" 2/3 } 0
p "" 1 1 "high" { "Educate" "No" } 0
p "" 2 1 "educated" { "Manager" "Clerk" } 0
t "" 1 "o1" { 6, 10 }
t "" 2 "o2" { 0, 4 }
p "" 2 2 "not educated" { "Manager" "Clerk" } 0
t "" 3 "o3" { 10, 10 }
t "" 4 "o4" { 4 4 }
p "" 1 2 "low" { "Educate" "No" } 0
p "" 2 1 0
t "" 5 "o5" { 3, 0 }
t "" 6 "o6" { -3, 4 }
p "" 2 2 0
t "" 1
t "" 8 "o8" { 4.5, .5 }
"""


def test_module_docstring_examples_run() -> None:
    result = doctest.testmod(gdl.extensive.gambit)
    assert result.attempted > 0 and result.failed == 0


def test_read_a_signalling_game() -> None:
    game = read_efg(SIGNAL)
    assert game.title == "signalling, after Watson"
    assert game.players == ("Worker", "Firm")
    assert list(game.infosets) == ["high", "educated", "not educated", "low"]
    # A later node of an information set may leave out its name and actions.
    assert game.infosets["educated"].actions == ("Manager", "Clerk")
    assert game.root.probabilities == (Fraction(1, 3), Fraction(2, 3))  # type: ignore[union-attr]
    terminals = [node for _, node in game.walk() if isinstance(node, Terminal)]
    # Outcome 1 reused by number; decimals read exactly.
    assert terminals[-2] == terminals[0]
    assert terminals[-1].payoffs == (("Firm", Fraction(1, 2)), ("Worker", Fraction(9, 2)))
    assert game.sizes["terminal"] == 8


def test_outcomes_on_inner_nodes_add_to_the_terminals_below() -> None:
    text = """EFG 2 R "" { "A" "B" }
c "" 1 "" { "x" 1/2 "y" 1/2 } 1 "ante" { -1, 1 }
t "" 2 "win" { 3, -3 }
p "" 1 1 "" { "l" } 3 "bonus" { 10, 0 }
t "" 0
"""
    game = read_efg(text)
    terminals = [node for _, node in game.walk() if isinstance(node, Terminal)]
    assert [t.payoffs for t in terminals] == [
        (("A", Fraction(2)), ("B", Fraction(-2))),
        (("A", Fraction(9)), ("B", Fraction(1))),
    ]


def test_unnamed_information_sets_and_players_get_keys_by_number() -> None:
    text = """EFG 2 R "" { "" "" }
p "" 1 1 { "" "" } 0
p "" 2 1 "same" { "a" } 0
t "" 1 "" { 1, -1 }
p "" 2 2 "same" { "a" } 0
t "" 1
"""
    game = read_efg(text)
    assert game.players == ("1", "2")
    # "same" names two information sets, so neither is called by it.
    assert list(game.infosets) == ["1:1", "2:1", "2:2"]
    assert game.infosets["1:1"].actions == ("action 1", "action 2")


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("", 1, 1, "empty file"),
        ('EFG 3 R "" { "1" }\nt "" 0\n', 1, 5, "expected '2', found '3'"),
        ('EFG 2 Q "" { "1" }\nt "" 0\n', 1, 7, "expected R (rational) or D"),
        ('EFG 2 R "" { }\nt "" 0\n', 1, 14, "at least one player"),
        ('EFG 2 R "" { "1" "2" }\nx "" 0\n', 2, 1, "expected a node ('c', 'p' or 't'), found 'x'"),
        ('EFG 2 R "" { "1" "2" }\np "" 3 1 "" { "a" } 0\nt "" 0\n', 2, 6, "player 3 does not exist"),
        ('EFG 2 R "" { "1" "2" }\np "" 1 1 "" { "a" "b" } 0\nt "" 0\n', 3, 7, "unexpected end of file"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1 }\n', 2, 6, "1 payoffs for 2 players"),
        ('EFG 2 R "" { "1" "2" }\nt "" 4\n', 2, 6, "outcome 4 has no payoffs"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1, x }\n', 2, 16, "expected a payoff (a number"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1, 1/0 }\n', 2, 16, "division by zero"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1, 1e999999999 }\n', 2, 16, "is out of range"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1, ' + "9" * 5000 + " }\n", 2, 16, "is out of range"),
        ('EFG 2 R "" { "1" "2" }\nt "" ' + "9" * 5000 + " \n", 2, 6, "more than 200 digits"),
        ('EFG 2 R "" { "1" "2" }\nt "" 1 "" { 1, 1e3/2 }\n', 2, 16, "expected a payoff (a number"),
        ('EFG 2 R "" { "1" "2" }\nc "" 1 "" { "a" 1/2 "b" 1/3 } 0\nt "" 0\nt "" 0\n', 2, 1, "sum to 5/6"),
        ('EFG 2 R "" { "1" "2" }\np "" 1 1 "" 0\nt "" 0\n', 2, 13, "needs its action list"),
        ('EFG 2 R "" { "1" "2" }\nt "" 0\nt "" 0\n', 3, 1, "unexpected 't' after the last node"),
        ('EFG 2 R "" { "1" }\nt "oops 0\n', 2, 3, "unterminated string"),
        ('EFG 2 R "" { "1" "2" }\np "" 1 1 { } 0\n', 2, 10, "at least one action"),
        (
            'EFG 2 R "" { "1" "2" }\nc "" 1 "" { "a" 1/2 "b" 1/2 } 0\np "" 1 1 "x" { "l" } 0\nt "" 0\n'
            'p "" 1 1 "x" { "r" } 0\nt "" 0\n',
            5,
            14,
            "has actions ['l'] on line 3 but ['r'] here",
        ),
        (
            'EFG 2 R "" { "1" "2" }\nc "" 1 "" { "a" 1/2 "b" 1/2 } 0\nc "" 1 "" { "a" 1/3 "b" 2/3 } 0\n'
            't "" 0\nt "" 0\nt "" 0\n',
            3,
            11,
            "information set 1 of chance has probabilities ['1/2', '1/2'] on line 2 but ['1/3', '2/3'] here",
        ),
        (
            'EFG 2 R "" { "1" "2" }\np "" 1 1 "x" { "l" } 0\np "" 1 1 "y" { "l" } 0\nt "" 0\n',
            3,
            10,
            "named 'x' on line 2 but 'y' here",
        ),
        (
            'EFG 2 R "" { "1" "2" }\np "" 1 1 "first" { "a" "b" } 0\np "" 1 2 "again" { "c" } 0\nt "" 0\n'
            'p "" 1 2 "again" { "c" } 0\nt "" 0\n',
            5,
            1,
            "imperfect recall: information set 'again' of player '1' holds histories (a) and (b)",
        ),
    ],
)
def test_bad_input_is_one_error_with_line_and_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(EfgError) as info:
        read_efg(text, "bad.efg")
    assert message in info.value.message, info.value.message
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert str(info.value).startswith(f"bad.efg:{line}:{column}: error: ")


def test_quotes_and_backslashes_in_labels_round_trip() -> None:
    text = r"""EFG 2 R "a \"quoted\" title" { "1" "2" }
p "" 1 1 "say \"hi\"" { "back\\slash" "x" } 0
t "" 1 "" { 1, -1 }
t "" 2 "" { -1, 1 }
"""
    game = read_efg(text)
    assert game.title == 'a "quoted" title'
    assert game.infosets['say "hi"'].actions == ("back\\slash", "x")
    assert read_efg(write_efg(game)) == game


def test_a_deep_tree_reads_and_writes_without_recursion() -> None:
    depth = 1200  # past Python's recursion limit
    chain = [f'p "" {1 + i % 2} {1 + i // 2} "" {{ "a" "b" }} 0' for i in range(depth)]
    ends = ['t "" 1 "" { 1, -1 }'] + ['t "" 2 "" { 0, 0 }'] * depth
    text = "\n".join(['EFG 2 R "" { "1" "2" }', *chain, *ends]) + "\n"
    game = read_efg(text)
    assert game.sizes["decision"] == depth
    assert read_efg(write_efg(game)) == game


@pytest.mark.parametrize("name", ["kuhn_poker", "leduc_poker"])
def test_poker_round_trips(name: str) -> None:
    pytest.importorskip("pyspiel")
    game = from_openspiel(name)
    assert read_efg(write_efg(game)) == game


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_games_round_trip(game: ExtensiveGame) -> None:
    text = write_efg(game)
    again = read_efg(text)
    assert again == game
    assert write_efg(again) == text


def openspiel_agrees(game: ExtensiveGame) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import sequence_form_lp

    theirs = pyspiel.load_efg_game(write_efg(game))
    value, _, _, _ = sequence_form_lp.solve_zero_sum_game(theirs)
    assert solve_lp(game).value["1"] == pytest.approx(value, abs=1e-6)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(max_depth=3))
def test_openspiel_solves_our_export_to_the_same_value(game: ExtensiveGame) -> None:
    assume(all(game.infosets_of(player) for player in game.players))  # OpenSpiel's LP needs both to move
    openspiel_agrees(game)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(max_depth=5))
def test_openspiel_solves_many_larger_exports_to_the_same_value(game: ExtensiveGame) -> None:
    assume(all(game.infosets_of(player) for player in game.players))
    openspiel_agrees(game)


_VALID = write_efg(read_efg(SIGNAL))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_no_traceback_on_any_text(data: st.DataObject) -> None:
    """Mangled files (a span cut out, or text spliced in) and arbitrary text raise only EfgError."""
    start = data.draw(st.integers(0, len(_VALID)))
    end = data.draw(st.integers(start, min(len(_VALID), start + 12)))
    insert = data.draw(st.text(alphabet='{}",/ .-0123456789cpt\n"\\ab', max_size=6))
    text = data.draw(st.sampled_from([_VALID[:start] + insert + _VALID[end:], insert * 3]))
    try:
        game = read_efg(text)
    except EfgError as problem:
        assert problem.line >= 1 and problem.column >= 1
    else:
        assert isinstance(game, ExtensiveGame)


@given(st.text(max_size=200))
def test_no_traceback_on_random_text(text: str) -> None:
    with pytest.raises(ExtensiveGameError):
        read_efg(text)


def test_openspiel_solves_our_kuhn_export_to_minus_one_eighteenth() -> None:
    pytest.importorskip("pyspiel")
    openspiel_agrees(from_openspiel("kuhn_poker"))
    assert solve_lp(read_efg((GAMES / "kuhn.efg").read_text())).value["1"] == pytest.approx(-1 / 18, abs=1e-9)
