"""Exact values in fractions: what a behaviour-strategy profile earns, a player's best response to the
others, and the proof that a profile is an equilibrium.

A floating-point solver (the LP, CFR+) gives strategies close to an equilibrium; :func:`exact_equilibrium`
reads them as fractions with small denominators and checks, in exact arithmetic, that no player gains by
deviating. When the check passes, the value is exact and proven; when it does not, the strategies are
only approximately optimal.

A game of one player (against nature or alone) has no equilibrium to search: its value is the best
response to nobody, the most the player can expect (:func:`best_response`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from gdl.extensive.model import Chance, ExtensiveGame, Node, Terminal

#: Behaviour strategies in fractions: information set -> action -> probability.
ExactStrategy = dict[str, dict[str, Fraction]]

_Sequence = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ExactBestResponse:
    """The most ``player`` can expect against the others' strategies, and a pure strategy that earns it
    (information set -> action, for every information set the others' strategies let it reach)."""

    player: str
    value: Fraction
    choices: dict[str, str]


def best_response(
    game: ExtensiveGame, player: str, others: Mapping[str, Mapping[str, Fraction]]
) -> ExactBestResponse:
    """The exact best response of ``player`` to the other players' behaviour strategies ``others``
    (information set -> action -> probability, covering every information set of theirs it reaches).

    With perfect recall a player's information sets hang off its own sequences (its past moves), so the
    best response is a backward induction over them: a sequence is worth what the terminals right after
    it earn (weighted by chance and the others' probabilities) plus, for each information set it leads
    to, the best of that set's actions.
    """
    earned: dict[_Sequence, Fraction] = defaultdict(Fraction)
    following: dict[_Sequence, dict[str, tuple[str, ...]]] = defaultdict(dict)
    stack: list[tuple[Node, Fraction, _Sequence]] = [(game.root, Fraction(1), ())]
    while stack:
        node, reach, sequence = stack.pop()
        if isinstance(node, Terminal):
            earned[sequence] += reach * node.payoff(player)
        elif isinstance(node, Chance):
            stack.extend(
                (child, reach * p, sequence)
                for p, child in zip(node.probabilities, node.children, strict=True)
                if p
            )
        elif node.player == player:
            following[sequence][node.infoset] = node.actions
            stack.extend(
                (child, reach, (*sequence, (node.infoset, action)))
                for action, child in zip(node.actions, node.children, strict=True)
            )
        else:
            probabilities = others[node.infoset]
            for action, child in zip(node.actions, node.children, strict=True):
                if probability := probabilities.get(action, Fraction(0)):
                    stack.append((child, reach * probability, sequence))
    choices: dict[str, str] = {}

    def worth(sequence: _Sequence) -> Fraction:
        total = earned.get(sequence, Fraction(0))
        for infoset, actions in following.get(sequence, {}).items():
            values = [worth((*sequence, (infoset, action))) for action in actions]
            best = max(range(len(actions)), key=lambda i: (values[i], -i))
            choices[infoset] = actions[best]
            total += values[best]
        return total

    return ExactBestResponse(player, worth(()), choices)


def expected_payoffs(
    game: ExtensiveGame, strategy: Mapping[str, Mapping[str, Fraction]]
) -> dict[str, Fraction]:
    """Each player's exact expected payoff when every player follows ``strategy``."""
    totals = dict.fromkeys(game.players, Fraction(0))
    stack: list[tuple[Node, Fraction]] = [(game.root, Fraction(1))]
    while stack:
        node, reach = stack.pop()
        if isinstance(node, Terminal):
            for player in game.players:
                totals[player] += reach * node.payoff(player)
        elif isinstance(node, Chance):
            stack.extend((c, reach * p) for p, c in zip(node.probabilities, node.children, strict=True) if p)
        else:
            probabilities = strategy[node.infoset]
            for action, child in zip(node.actions, node.children, strict=True):
                if probability := probabilities.get(action, Fraction(0)):
                    stack.append((child, reach * probability))
    return totals


def as_fractions(strategy: Mapping[str, Mapping[str, float]], denominator: int = 10_000) -> ExactStrategy:
    """Floating-point behaviour strategies read as fractions of at most ``denominator``, each
    information set's probabilities made to sum to exactly 1."""
    exact: ExactStrategy = {}
    for infoset, probabilities in strategy.items():
        read = {
            action: max(Fraction(p).limit_denominator(denominator), Fraction(0))
            for action, p in probabilities.items()
        }
        total = sum(read.values(), Fraction(0))
        exact[infoset] = {action: p / total for action, p in read.items()} if total else read
    return exact


@dataclass(frozen=True)
class ExactCheck:
    """A profile's exact values, each player's exact best response to the others, and whether the
    profile is an equilibrium (no best response gains anything)."""

    values: dict[str, Fraction]
    best_responses: dict[str, Fraction]

    @property
    def equilibrium(self) -> bool:
        return all(self.best_responses[p] == v for p, v in self.values.items())


def check_profile(game: ExtensiveGame, strategy: Mapping[str, Mapping[str, Fraction]]) -> ExactCheck:
    """The exact values of ``strategy`` (covering every player's information sets) and of each player's
    best response to it."""
    values = expected_payoffs(game, strategy)
    best = {player: best_response(game, player, strategy).value for player in game.players}
    return ExactCheck(values, best)


__all__ = [
    "ExactBestResponse",
    "ExactCheck",
    "ExactStrategy",
    "as_fractions",
    "best_response",
    "check_profile",
    "expected_payoffs",
]
