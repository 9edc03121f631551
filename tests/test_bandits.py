"""The bandit-ambush maze game: its rules in the tree, and its value by the sequence-form LP against a
brute-force oracle (pure strategies and a matrix game, tests/support/bandits_oracle.py)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.bandits_oracle import AgentStrategy, AttackerStrategy, Oracle, TooLarge

from gdl.bandits.game import ATTACKER, bandits_game
from gdl.bandits.maze import Maze, read_maze
from gdl.errors import GameTooLargeError
from gdl.extensive.lp import solve_lp
from gdl.extensive.model import Chance, Terminal
from gdl.extensive.sequence import SequenceForm

EXAMPLE = read_maze("5\n7\n#######\n#E---E#\n#S#-#D#\n#E--EG#\n#######\n1\n0.7\n")
#: Mazes of our own: two bandits, gold, dead ends, an alarm that can move a bandit ahead, p at 0 and 1.
OWN = [
    Maze(("SE-G", "-#E-", "EG-D"), 2, Fraction(1, 2)),
    Maze(("SE-G", "-#E-", "EG-D"), 1, Fraction(1, 3)),
    Maze(("S-E-", "E#G-", "-E-D"), 1, Fraction(7, 10)),
    Maze(("SEEED", "-#G#-", "---E-"), 1, Fraction(9, 10)),
    Maze(("SEGD", "-E--"), 1, Fraction(0)),
    Maze(("SEGD", "-E--"), 1, Fraction(1)),
    Maze(("S-E", "E-G", "-ED"), 2, Fraction(2, 5)),
    Maze(("SD#", "-#E"), 1, Fraction(1, 2)),  # the bandit cannot reach the agent
    Maze(("S#D", "E#-"), 1, Fraction(1, 2)),  # D cannot be reached: 0
]


def lp_value(maze: Maze) -> float:
    return solve_lp(bandits_game(maze).game).value["agent"]


def oracle_value(maze: Maze, most: int = 10**6) -> float:
    return Oracle(list(maze.rows), maze.bandits, maze.success).value(most)


def test_the_examples_value() -> None:
    assert lp_value(EXAMPLE) == pytest.approx(5.054761904761906, abs=1e-9)


@pytest.mark.parametrize("maze", OWN, ids=repr)
def test_own_mazes_have_the_oracles_value(maze: Maze) -> None:
    assert lp_value(maze) == pytest.approx(oracle_value(maze), abs=1e-9)


@st.composite
def mazes(draw: st.DrawFn) -> Maze:
    height = draw(st.integers(1, 3))
    width = draw(st.integers(2, 4))
    cells = draw(st.lists(st.sampled_from("#-GEE"), min_size=height * width, max_size=height * width))
    start, goal = draw(st.lists(st.integers(0, height * width - 1), min_size=2, max_size=2, unique=True))
    cells[start], cells[goal] = "S", "D"
    assume("E" in cells)
    rows = tuple("".join(cells[r * width : (r + 1) * width]) for r in range(height))
    bandits = draw(st.integers(1, min(2, cells.count("E"))))
    success = draw(st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(7, 10), Fraction(1)]))
    return Maze(rows, bandits, success)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(mazes())
def test_random_tiny_mazes_have_the_oracles_value(maze: Maze) -> None:
    try:
        expected = oracle_value(maze, most=20_000)
    except TooLarge:
        assume(False)
        raise
    assert lp_value(maze) == pytest.approx(expected, abs=1e-8)


def attacker_infosets(maze: Maze) -> list[str]:
    return [s.key for s in bandits_game(maze).game.infosets_of(ATTACKER)]


def test_the_alarm_goes_off_only_on_the_first_dangerous_place_and_once() -> None:
    # The agent must pass (0,1), (0,2), (0,3): only (0,1) is ever first; a bandit there attacks instead.
    corridor = Maze(("SEEED",), 1, Fraction(1, 2))
    assert attacker_infosets(corridor) == [
        "attacker:place",
        "attacker:(0,2) alarm (0,1)",
        "attacker:(0,3) alarm (0,1)",
    ]
    game = bandits_game(corridor).game
    answers = game.infosets["attacker:(0,3) alarm (0,1)"].actions
    # Not onto the agent's square nor onto a bandit; one bandit moves at most.
    assert answers == ("stay", "(0,3)->(0,2)")


def test_the_agent_learns_only_attacks() -> None:
    corridor = Maze(("SEEED",), 1, Fraction(1, 2))
    keys = [s.key for s in bandits_game(corridor).game.infosets_of("agent")]
    # Whether the bandit moved on the alarm stays hidden: after (0,1) without attack, one set only.
    assert "agent:(0,0) (0,1)" in keys
    assert "agent:(0,0) (0,1) attacked" in keys
    assert "agent:(0,0) (0,1) (0,2) attacked" in keys
    assert "agent:(0,0) (0,1) (0,2)" in keys
    # On (0,3) the agent was attacked on (0,1), (0,2) or there: the alarm cannot put the bandit on the
    # agent's square, so a walk without any attack is impossible.
    assert "agent:(0,0) (0,1) (0,2) (0,3)" not in keys
    assert len(keys) == 1 + 2 + 3 + 3


def payoffs(maze: Maze) -> set[Fraction]:
    return {node.payoff("agent") for _, node in bandits_game(maze).game.walk() if isinstance(node, Terminal)}


def test_payoffs_are_ten_plus_gold_at_the_destination_else_zero() -> None:
    # Right: gold then D (11); down: a dead end on a dangerous place (0).
    assert payoffs(Maze(("SGD", "E##"), 1, Fraction(1, 2))) == {Fraction(11), Fraction(0)}
    assert lp_value(Maze(("SGD", "E##"), 1, Fraction(1, 2))) == pytest.approx(11)
    assert payoffs(Maze(("SGGD", "E###"), 1, Fraction(1, 2))) == {Fraction(12), Fraction(0)}


def test_an_attack_is_a_chance_node_without_zero_probability_outcomes() -> None:
    def chances(maze: Maze) -> set[tuple[str, ...]]:
        return {node.actions for _, node in bandits_game(maze).game.walk() if isinstance(node, Chance)}

    assert chances(Maze(("SED",), 1, Fraction(7, 10))) == {("success", "failure")}
    assert chances(Maze(("SED",), 1, Fraction(1))) == {("success",)}
    assert chances(Maze(("SED",), 1, Fraction(0))) == {("failure",)}
    assert lp_value(Maze(("SED",), 1, Fraction(7, 10))) == pytest.approx(3.0)


def test_a_game_past_the_node_budget_is_refused() -> None:
    with pytest.raises(GameTooLargeError, match="more than 50 nodes"):
        bandits_game(EXAMPLE, max_nodes=50)
    assert sum(bandits_game(EXAMPLE).game.sizes.values()) > 50


def cell(label: str) -> tuple[int, int]:
    row, column = label.strip("()").split(",")
    return int(row), int(column)


def agent_behaviour(keys: tuple[str, ...], strategy: AgentStrategy) -> dict[str, dict[str, float]]:
    """The oracle's pure strategy on our information sets (keyed by the agent's path and attacks)."""
    behaviour = {}
    for key in keys:
        steps = re.findall(r"\((\d+),(\d+)\)( attacked)?", key)
        path = tuple((int(r), int(c)) for r, c, _ in steps)
        hit = frozenset((int(r), int(c)) for r, c, attacked in steps if attacked)
        move = strategy.get((path, hit))
        # Sets the strategy never reaches get any move: their sequences have probability 0 anyway.
        behaviour[key] = {f"({move[0]},{move[1]})": 1.0} if move else {}
    return behaviour


def attacker_behaviour(keys: tuple[str, ...], strategy: AttackerStrategy) -> dict[str, dict[str, float]]:
    placed, answers = strategy
    placement = "+".join(f"({r},{c})" for r, c in sorted(placed))
    behaviour: dict[str, dict[str, float]] = {}
    for key in keys:
        if key == "attacker:place":
            behaviour[key] = {placement: 1.0}
        elif key.startswith(f"attacker:{placement} alarm "):
            answer = answers[cell(key.rsplit(" ", 1)[1])]
            label = "stay" if answer is None else "->".join(f"({r},{c})" for r, c in answer)
            behaviour[key] = {label: 1.0}
        else:
            behaviour[key] = {}
    return behaviour


def completed(side: Any, behaviour: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    first = {key: side.sequences[int(side.first[i])][1] for i, key in enumerate(side.infosets)}
    return {key: choice or {first[key]: 1.0} for key, choice in behaviour.items()}


@pytest.mark.parametrize("maze", [EXAMPLE, OWN[0], OWN[3]], ids=repr)
def test_the_utility_table_gives_every_pure_strategy_pairs_payoff(maze: Maze) -> None:
    """x^T G y for the realization plans of two pure strategies is what the oracle's own simulator
    pays them, exactly: every entry of the extended utility table is checked through its sums."""
    form = SequenceForm.from_game(bandits_game(maze).game)
    agent, attacker = form.sides
    oracle = Oracle(list(maze.rows), maze.bandits, maze.success)
    agents = list(oracle.agent_strategies((oracle.start,), frozenset()))[:60]
    attackers = list(oracle.attacker_strategies())[:30]
    payoffs = set()
    for a in agents:
        x = agent.realization_plan(completed(agent, agent_behaviour(agent.infosets, a)))
        for b in attackers:
            y = attacker.realization_plan(completed(attacker, attacker_behaviour(attacker.infosets, b)))
            total = sum(
                (g for (i, j), g in form.payoffs[0].items() if x[i] == 1 and y[j] == 1), Fraction(0)
            )
            assert total == oracle.payoff(a, b)
            payoffs.add(total)
    assert len(payoffs) > 2  # pairs that reach D with and without attacks, and pairs that do not
