"""The extensive-form model: construction, its checks and their messages."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gdl.errors import ExtensiveGameError, ImperfectRecallError, InformationSetError
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Terminal


def pay(x: int) -> Terminal:
    return Terminal({"1": x, "2": -x})


def matching_pennies() -> ExtensiveGame:
    """Player 2 moves without seeing player 1's coin."""
    def p2(a: str) -> Decision:
        return Decision("2", "2", ("h", "t"), (pay(1 if a == "h" else -1), pay(-1 if a == "h" else 1)))

    return ExtensiveGame(("1", "2"), Decision("1", "1", ("h", "t"), (p2("h"), p2("t"))))


def test_infosets_sizes_and_walk_order() -> None:
    game = matching_pennies()
    assert list(game.infosets) == ["1", "2"]
    assert game.infosets["2"].player == "2"
    assert game.infosets["2"].actions == ("h", "t")
    assert dict(game.sizes) == {"terminal": 4, "chance": 0, "decision": 3}
    assert [h for h, _ in game.walk()] == [(), ("h",), ("h", "h"), ("h", "t"), ("t",), ("t", "h"), ("t", "t")]
    assert game.is_zero_sum()
    assert [s.key for s in game.infosets_of("2")] == ["2"]


def test_equal_games_compare_equal_and_hash() -> None:
    assert matching_pennies() == matching_pennies()
    assert hash(matching_pennies()) == hash(matching_pennies())
    assert matching_pennies() != ExtensiveGame(("1", "2"), pay(0))


def test_payoffs_are_exact_fractions_sorted_by_player() -> None:
    terminal = Terminal({"b": 0.1, "a": Fraction(1, 3)})
    assert terminal.payoffs == (("a", Fraction(1, 3)), ("b", Fraction(1, 10)))
    assert terminal.payoff("b") == Fraction(1, 10)
    assert terminal == Terminal([("a", Fraction(1, 3)), ("b", Fraction(1, 10))])
    assert repr(terminal) == "Terminal({'a': '1/3', 'b': '1/10'})"


def test_chance_probabilities_must_sum_to_one_exactly() -> None:
    node = Chance(("x", "y", "z"), (Fraction(1, 3),) * 3, (pay(0),) * 3)
    assert sum(node.probabilities) == 1
    assert Chance.uniform(("x", "y"), (pay(0), pay(1))).probabilities == (Fraction(1, 2), Fraction(1, 2))
    with pytest.raises(ExtensiveGameError, match=r"sum to 2/3, not 1"):
        Chance(("x", "y"), (Fraction(1, 3), Fraction(1, 3)), (pay(0), pay(0)))
    with pytest.raises(ExtensiveGameError, match="negative"):
        Chance(("x", "y"), (Fraction(3, 2), Fraction(-1, 2)), (pay(0), pay(0)))
    with pytest.raises(ExtensiveGameError, match="2 actions, 1 probabilities and 2 children"):
        Chance(("x", "y"), (1,), (pay(0), pay(0)))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "1"])
def test_payoffs_must_be_finite_numbers(bad: object) -> None:
    with pytest.raises(ExtensiveGameError, match="not a"):
        Terminal({"1": bad})  # type: ignore[dict-item]


def test_actions_are_distinct_and_match_children() -> None:
    with pytest.raises(ExtensiveGameError, match="action 'a' appears twice"):
        Decision("1", "s", ("a", "a"), (pay(0), pay(0)))
    with pytest.raises(ExtensiveGameError, match="2 actions but 1 children"):
        Decision("1", "s", ("a", "b"), (pay(0),))
    with pytest.raises(ExtensiveGameError, match="at least one action"):
        Decision("1", "s", (), ())


def test_terminal_payoffs_name_exactly_the_players() -> None:
    with pytest.raises(ExtensiveGameError, match=r"terminal at \(a\) has payoffs for \['1'\]"):
        ExtensiveGame(("1", "2"), Decision("1", "s", ("a",), (Terminal({"1": 0}),)))


def test_unknown_player() -> None:
    with pytest.raises(ExtensiveGameError, match="unknown player '3'"):
        ExtensiveGame(("1", "2"), Decision("3", "s", ("a",), (pay(0),)))


def test_one_infoset_one_player() -> None:
    first, second = Decision("1", "s", ("a",), (pay(0),)), Decision("2", "s", ("a",), (pay(0),))
    root = Chance.uniform(("x", "y"), (first, second))
    with pytest.raises(InformationSetError, match=r"'s' is player '1'.s at \(x\) but player '2'.s at \(y\)"):
        ExtensiveGame(("1", "2"), root)


def test_one_infoset_one_action_list() -> None:
    first, second = Decision("1", "s", ("a",), (pay(0),)), Decision("1", "s", ("b",), (pay(0),))
    root = Chance.uniform(("x", "y"), (first, second))
    with pytest.raises(InformationSetError, match=r"actions \['a'\] at \(x\) but \['b'\] at \(y\)"):
        ExtensiveGame(("1", "2"), root)


def test_forgetting_own_action_is_imperfect_recall() -> None:
    # Player 1 moves, then moves again without knowing what it chose first.
    again = Decision("1", "again", ("c", "d"), (pay(0), pay(1)))
    with pytest.raises(ImperfectRecallError) as info:
        ExtensiveGame(("1", "2"), Decision("1", "first", ("a", "b"), (again, again)))
    assert info.value.infoset == "again"
    assert set(info.value.histories) == {("a",), ("b",)}
    assert "(a)" in str(info.value) and "(b)" in str(info.value)


def test_forgetting_an_observation_is_imperfect_recall() -> None:
    # Player 1 sees the chance move at its first decision, then forgets it at the second.
    def branch(card: str) -> Decision:
        return Decision("1", f"saw {card}", ("go",), (Decision("1", "later", ("c",), (pay(0),)),))

    with pytest.raises(ImperfectRecallError, match=r"'later'.*\((x|y), go\) and \((x|y), go\)"):
        ExtensiveGame(("1", "2"), Chance.uniform(("x", "y"), (branch("x"), branch("y"))))


def test_absent_minded_driver_is_imperfect_recall() -> None:
    inner = Decision("1", "exit?", ("exit", "on"), (pay(0), pay(1)))
    with pytest.raises(ImperfectRecallError, match="'exit\\?'"):
        ExtensiveGame(("1", "2"), Decision("1", "exit?", ("exit", "on"), (pay(4), inner)))


def test_other_players_moves_do_not_break_recall() -> None:
    # Player 2 not seeing player 1's move is hidden information, not imperfect recall.
    assert matching_pennies().infosets["2"].player == "2"


def test_players_are_named_once() -> None:
    with pytest.raises(ExtensiveGameError, match="named twice"):
        ExtensiveGame(("1", "1"), Terminal({"1": 0}))
    with pytest.raises(ExtensiveGameError, match="at least one player"):
        ExtensiveGame((), Terminal({}))


def test_constant_sum() -> None:
    outcomes = (Terminal({"a": 100, "b": 0}), Terminal({"a": 30, "b": 70}))
    game = ExtensiveGame(("a", "b"), Chance.uniform(("x", "y"), outcomes))
    assert game.constant_sum() == 100
    assert not game.is_zero_sum()
    outcomes = (Terminal({"a": 1, "b": 0}), Terminal({"a": 0, "b": 0}))
    general = ExtensiveGame(("a", "b"), Chance.uniform(("x", "y"), outcomes))
    assert general.constant_sum() is None


def test_module_docstring_examples_run() -> None:
    import doctest

    import gdl.extensive.model

    result = doctest.testmod(gdl.extensive.model)
    assert result.attempted > 0 and result.failed == 0
