"""GDL-II games as extensive-form games: information sets from views, chance, simultaneous moves,
payoffs, refusals; our Kuhn and Leduc poker checked against the JSON Kuhn and OpenSpiel's Leduc."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import gdl
from gdl.errors import GameTooLargeError, NotExtensiveError, OutOfTimeError
from gdl.extensive.from_gdl import GdlExtensiveGame, extensive_from_gdl
from gdl.extensive.model import Chance, Decision, Terminal

GAMES = Path(__file__).resolve().parent.parent / "games"

PENNIES = """
(role left) (role right)
(init start)
(<= (legal ?r heads) (role ?r) (true start))
(<= (legal ?r tails) (role ?r) (true start))
(<= (next (chose ?r ?m)) (does ?r ?m))
(<= (sees ?r over) (role ?r) (true start))
(<= same (true (chose left ?m)) (true (chose right ?m)))
(<= terminal (not (true start)))
(<= (goal left 100) same)
(<= (goal right 0) same)
(<= (goal left 0) (not same) (not (true start)))
(<= (goal right {right_loses}) (not same) (not (true start)))
(<= (goal ?r 50) (role ?r) (true start))
"""


def test_simultaneous_moves_become_decisions_the_later_role_cannot_tell_apart() -> None:
    game = extensive_from_gdl(gdl.parse(PENNIES.format(right_loses=100)))
    assert game.players == ("left", "right") and game.goal_offset == 50
    root = game.root
    assert isinstance(root, Decision) and root.player == "left" and root.actions == ("heads", "tails")
    assert all(isinstance(c, Decision) and c.player == "right" for c in root.children)
    assert len({c.infoset for c in root.children if isinstance(c, Decision)}) == 1
    first = root.children[0]
    assert isinstance(first, Decision)
    assert first.children == (Terminal({"left": 50, "right": -50}), Terminal({"left": -50, "right": 50}))


def test_goals_that_are_not_constant_sum_are_refused() -> None:
    with pytest.raises(
        NotExtensiveError,
        match=r"not constant-sum: the goals sum to 100 after \(heads, heads\) "
        r"but to 0 after \(heads, tails\)",
    ):
        extensive_from_gdl(gdl.parse(PENNIES.format(right_loses=0)))


def test_more_than_two_players_are_refused() -> None:
    three = PENNIES.format(right_loses=100).replace("(role right)", "(role right) (role third)")
    with pytest.raises(NotExtensiveError, match=r"has 3 players \(left, right, third\)"):
        extensive_from_gdl(gdl.parse(three))


def test_budgets_of_nodes_and_seconds() -> None:
    leduc = gdl.load(GAMES / "leduc.kif")
    with pytest.raises(GameTooLargeError, match="more than 100 nodes"):
        extensive_from_gdl(leduc, max_nodes=100)
    with pytest.raises(OutOfTimeError, match=r"nodes explored in 0 s"):
        extensive_from_gdl(leduc, seconds=0)


def test_a_gdl_game_without_percepts_tells_every_role_the_joint_move() -> None:
    # rock-paper-scissors, three rounds: before round n a player knows both moves of the rounds before
    game = extensive_from_gdl(gdl.load(GAMES / "rps.kif"))
    assert len(game.infosets_of("left")) == len(game.infosets_of("right")) == 1 + 9 + 81
    assert game.sizes["terminal"] == 9**3
    assert game.is_zero_sum()


def test_kuhn_has_the_shape_of_the_json_kuhn() -> None:
    game = extensive_from_gdl(gdl.load(GAMES / "kuhn.kif"))
    assert game.sizes == {"terminal": 30, "chance": 1, "decision": 24}
    assert len(game.infosets_of("player1")) == len(game.infosets_of("player2")) == 6
    assert isinstance(game.root, Chance) and set(game.root.probabilities) == {Fraction(1, 6)}
    # payoffs are chips: goal minus 50
    payoffs = {node.payoff("player1") for _, node in game.walk() if isinstance(node, Terminal)}
    assert payoffs == {-2, -1, 1, 2}
    player2 = {key: info.actions for key, info in game.infosets.items() if info.player == "player2"}
    assert player2[
        "(view player2 (step noop (seen (yourcard king))) (step noop (seen (did player1 check)))"
        " (legal bet check))"
    ] == ("bet", "check")


@pytest.fixture(scope="module")
def leduc() -> GdlExtensiveGame:
    return extensive_from_gdl(gdl.load(GAMES / "leduc.kif"))


def test_leduc_has_openspiels_information_sets_and_terminals(leduc: GdlExtensiveGame) -> None:
    game = leduc
    assert len(game.infosets) == 936  # OpenSpiel's leduc_poker: 936 information states
    assert game.sizes["terminal"] == 5520
    assert game.goal_offset == 50 and game.is_zero_sum()


CARDS = ["jackofspades", "jackofhearts", "queenofspades", "queenofhearts", "kingofspades", "kingofhearts"]
ACTIONS = {0: "fold", 1: "call", 2: "raise"}


def test_leduc_rules_agree_with_openspiel_on_every_history(leduc: GdlExtensiveGame) -> None:
    """Legal moves and payoffs of games/leduc.kif along every history of OpenSpiel's leduc_poker."""
    pyspiel = pytest.importorskip("pyspiel")
    payoffs = {history: node for history, node in leduc.walk() if isinstance(node, Terminal)}
    checked = 0
    stack = [(pyspiel.load_game("leduc_poker").new_initial_state(), ())]
    while stack:
        state, history = stack.pop()
        if state.is_terminal():
            assert payoffs[history].payoff("player1") == state.returns()[0], history
            checked += 1
            continue
        if state.is_chance_node() and not history:  # both private cards are one move of nature
            for first in state.legal_actions():
                dealt = state.child(first)
                stack.extend(
                    (dealt.child(second), (f"(deal {CARDS[first]} {CARDS[second]})",))
                    for second in dealt.legal_actions()
                )
        elif state.is_chance_node():
            stack.extend((state.child(a), (*history, f"(reveal {CARDS[a]})")) for a in state.legal_actions())
        else:
            stack.extend((state.child(a), (*history, ACTIONS[a])) for a in state.legal_actions())
    assert checked == len(payoffs) == 5520


def test_module_examples() -> None:
    import doctest

    import gdl.extensive.from_gdl

    result = doctest.testmod(gdl.extensive.from_gdl)
    assert result.attempted >= 2 and result.failed == 0


def test_a_game_that_never_ends_is_too_large() -> None:
    endless = """
    (role random) (role a) (role b)
    (init on) (<= (next on) (true on))
    (<= (legal ?r wait) (role ?r))
    (<= (sees a tick) (true on))
    (<= terminal (true off)) (<= (next off) (true off))
    (<= (goal a 50) (true on)) (<= (goal b 50) (true on))
    """
    with pytest.raises(GameTooLargeError, match="has plays longer than 1000 steps"):
        extensive_from_gdl(gdl.parse(endless))


def test_a_view_that_forgets_earlier_legal_moves_is_refused_as_imperfect_recall() -> None:
    # Nature's coin shows in the player's legal moves at the first step only.
    forgetful = """
    (role random) (role p) (role q)
    (init (step 0))
    (<= (legal random (coin ?c)) (true (step 0)) (side ?c)) (side a) (side b)
    (<= (legal random wait) (not (true (step 0))))
    (<= (legal p wait) (true (step 0)))
    (<= (legal p m) (true (step 1)))
    (<= (legal p ma) (true (step 1)) (true (coin a)))
    (<= (legal p mb) (true (step 1)) (true (coin b)))
    (<= (legal p x) (true (step 2))) (<= (legal p y) (true (step 2)))
    (<= (legal q wait) (role q))
    (<= (next (coin ?c)) (does random (coin ?c))) (<= (next (coin ?c)) (true (coin ?c)))
    (<= (next (step 1)) (true (step 0))) (<= (next (step 2)) (true (step 1)))
    (<= (next (step 3)) (true (step 2)))
    (<= (sees q nothing) (true (step 0)))
    (<= terminal (true (step 3)))
    (<= (goal ?r 50) (role ?r) (distinct ?r random))
    """
    with pytest.raises(NotExtensiveError, match=r"imperfect recall.*forgets something it knew"):
        extensive_from_gdl(gdl.parse(forgetful))
