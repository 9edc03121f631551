"""Exhaustive solving: the game-theoretic value of games small enough to search every reachable state.

>>> import gdl
>>> from gdl.solve import solve
>>> solution = solve(gdl.load("games/tictactoe.kif"))
>>> solution.solved, solution.value
(True, {'xplayer': 50, 'oplayer': 50})

The solver first builds the graph of every reachable state (each state is expanded once: a
transposition table), then values it backwards from the terminal states. Which value it reports
depends on the kind of game, and :attr:`Solution.concept` says which:

- one role: the **best reachable goal**;
- two roles, turn-taking, constant-sum goals: the **minimax value** (perfect play by both);
- more roles or general-sum goals, turn-taking: **backward induction** (max^n): the role to move
  picks the successor best for itself; this is a subgame-perfect equilibrium;
- simultaneous moves: each role's **security value**, the goal it can guarantee with pure strategies
  against every other role even if they see its move first. When two constant-sum roles' security
  values add up to the constant, that is the exact minimax value and is reported as such.

In turn-taking games ties are broken towards the shorter line of play, then towards the first move in
KIF text order, so the principal variation of a single-player game is a shortest way to the best goal.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from gdl.game import Game, State
from gdl.syntax.model import Term

BEST_GOAL = "best reachable goal (single player)"
MINIMAX = "minimax value (two-player, constant-sum, turn-taking)"
MINIMAX_SIMULTANEOUS = "minimax value (two-player, constant-sum; pure strategies suffice)"
BACKWARD_INDUCTION = "backward induction (max^n: the role to move maximises its own goal)"
SECURITY = "security values (each role's goal guaranteed in pure strategies against all others)"


@dataclass
class Solution:
    """The outcome of :func:`solve`; ``value`` and ``pv`` are empty when it is not ``solved``."""

    solved: bool
    concept: str
    value: dict[str, int]
    pv: list[dict[str, str]]
    states: int
    seconds: float
    reason: str = ""
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "solved": self.solved,
            "concept": self.concept,
            "value": self.value,
            "pv": self.pv,
            "states": self.states,
            "seconds": round(self.seconds, 3),
            "reason": self.reason,
            "notes": self.notes,
        }


class _Node:
    """A reachable state: terminal goals, or each role's legal moves and the successor per joint move."""

    __slots__ = ("children", "goals", "moves")

    def __init__(self, state: State, roles: tuple[str, ...]) -> None:
        self.children: dict[tuple[int, ...], State] = {}
        if state.is_terminal():
            goals = state.goals()
            self.goals: tuple[int, ...] | None = tuple(goals[r] for r in roles)
            self.moves: tuple[list[Term], ...] = ()
        else:
            self.goals = None
            self.moves = tuple(state.legal_moves(r) for r in roles)


class _OutOfBudget(Exception):
    """The time or state budget ran out while building the graph."""


class _Cycle(Exception):
    """A state is reachable from itself, so the game need not end and has no backward induction."""


def solve(game: Game, budget: float = 60.0, max_states: int | None = None) -> Solution:
    """Solve ``game`` within ``budget`` seconds and at most ``max_states`` reachable states."""
    started = time.monotonic()
    nodes: dict[State, _Node] = {}
    root = game.initial_state()
    try:
        order = _explore(game, root, nodes, started + budget, max_states)
    except _OutOfBudget:
        return Solution(
            False, "", {}, [], len(nodes), time.monotonic() - started,
            "not solved within budget",
        )
    except _Cycle as cycle:
        return Solution(False, "", {}, [], len(nodes), time.monotonic() - started, str(cycle))
    roles = game.roles
    inner = [n for n in nodes.values() if n.goals is None]
    turn_taking = all(sum(len(m) > 1 for m in n.moves) <= 1 for n in inner)
    sums = {sum(n.goals) for n in nodes.values() if n.goals is not None}
    constant_sum = len(sums) == 1
    notes = [
        f"{len(roles)} role(s); {'turn-taking' if turn_taking else 'simultaneous moves'}; "
        f"{'constant-sum' if constant_sum else 'general-sum'} goals"
    ]
    if turn_taking:
        concept = BEST_GOAL if len(roles) == 1 else MINIMAX if len(roles) == 2 and constant_sum else (
            BACKWARD_INDUCTION
        )
        values, choice = _backward_induction(nodes, order)
    else:
        values, choice = _security(nodes, order, len(roles))
        concept = SECURITY
        if len(roles) == 2 and constant_sum and sum(values[root]) == sums.pop():
            concept = MINIMAX_SIMULTANEOUS
    pv = _principal_variation(game, nodes, choice, root)
    return Solution(
        True, concept, dict(zip(roles, values[root], strict=True)), pv, len(nodes),
        time.monotonic() - started, notes=notes,
    )


def _explore(
    game: Game, root: State, nodes: dict[State, _Node], stop_at: float, max_states: int | None
) -> list[State]:
    """Expand every reachable state once; return them children first (a reverse topological order)."""
    roles = game.roles
    order: list[State] = []
    on_path: set[State] = set()
    stack: list[tuple[State, list[State]]] = []

    def enter(state: State) -> None:
        if time.monotonic() > stop_at or (max_states is not None and len(nodes) >= max_states):
            raise _OutOfBudget
        node = _Node(state, roles)
        nodes[state] = node
        joints = itertools.product(*(range(len(m)) for m in node.moves)) if node.goals is None else ()
        for joint in joints:
            moves = {role: m[i] for role, m, i in zip(roles, node.moves, joint, strict=True)}
            node.children[joint] = state.next(moves)
        on_path.add(state)
        stack.append((state, list(node.children.values())))

    enter(root)
    while stack:
        state, pending = stack[-1]
        if pending:
            child = pending.pop()
            if child in on_path:
                raise _Cycle(f"not solved: a state repeats, so the game may not end: {child!r}")
            if child not in nodes:
                enter(child)
        else:
            stack.pop()
            on_path.discard(state)
            order.append(state)
    return order


_Values = dict[State, tuple[int, ...]]
_Choices = dict[State, tuple[int, ...]]


def _backward_induction(nodes: dict[State, _Node], order: list[State]) -> tuple[_Values, _Choices]:
    """Turn-taking values: the role to move picks the successor best for itself, shorter lines first."""
    values: _Values = {}
    length: dict[State, int] = {}
    choice: _Choices = {}
    for state in order:
        node = nodes[state]
        if node.goals is not None:
            values[state], length[state] = node.goals, 0
            continue
        mover = next((r for r, m in enumerate(node.moves) if len(m) > 1), 0)
        joint = max(node.children, key=lambda j: (values[node.children[j]][mover], -length[node.children[j]]))
        child = node.children[joint]
        values[state], length[state], choice[state] = values[child], length[child] + 1, joint
    return values, choice


def _security(nodes: dict[State, _Node], order: list[State], role_count: int) -> tuple[_Values, _Choices]:
    """Each role's max-min goal with the others answering its move; the choice is each role's own."""
    values: _Values = {}
    choice: _Choices = {}
    for state in order:
        node = nodes[state]
        if node.goals is not None:
            values[state] = node.goals
            continue
        secured, moves = [], []
        for r in range(role_count):
            worst_after: dict[int, int] = {}
            for joint, child in node.children.items():
                value = values[child][r]
                worst_after[joint[r]] = min(worst_after.get(joint[r], 101), value)
            best = max(worst_after, key=lambda i: (worst_after[i], -i))
            secured.append(worst_after[best])
            moves.append(best)
        values[state], choice[state] = tuple(secured), tuple(moves)
    return values, choice


def _principal_variation(
    game: Game, nodes: dict[State, _Node], choice: _Choices, state: State
) -> list[dict[str, str]]:
    """The joint moves from ``state`` when every role follows the chosen moves."""
    line = []
    while state in choice:
        node, joint = nodes[state], choice[state]
        line.append({role: str(m[i]) for role, m, i in zip(game.roles, node.moves, joint, strict=True)})
        state = node.children[joint]
    return line
