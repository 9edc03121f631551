"""OpenSpiel's games traversed into our model: Kuhn and Leduc poker as a test oracle, independent of
our own GDL-II sources. OpenSpiel is a test-only dependency."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal


def from_openspiel(name: str) -> ExtensiveGame:
    """The whole tree of an OpenSpiel game (players ``"1"`` and ``"2"``; information sets keyed
    ``"PLAYER:information state string"``; chance probabilities as exact fractions)."""
    import pyspiel

    game = pyspiel.load_game(name)
    players = tuple(str(p + 1) for p in range(game.num_players()))

    def build(state: Any) -> Node:
        if state.is_terminal():
            return Terminal(dict(zip(players, state.returns(), strict=True)))
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            labels = [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes]
            probabilities = [Fraction(p).limit_denominator(10_000) for _, p in outcomes]
            return Chance(labels, probabilities, [build(state.child(a)) for a, _ in outcomes])
        player = state.current_player()
        actions = state.legal_actions()
        return Decision(
            players[player],
            f"{player + 1}:{state.information_state_string(player)}",
            [state.action_to_string(player, a) for a in actions],
            [build(state.child(a)) for a in actions],
        )

    return ExtensiveGame(players, build(game.new_initial_state()), title=name)
