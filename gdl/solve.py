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
- two roles, constant-sum, simultaneous moves: the **minimax value in mixed strategies** (von
  Neumann): at each state the matrix game of the successors' values is solved exactly (simplex over
  fractions), and :attr:`Solution.strategies` gives both roles' optimal mixed strategies at the start;
- otherwise (general-sum or more roles, simultaneous moves): each role's **security value**, the goal
  it can guarantee with pure strategies against every other role even if they see its move first.

Nature (the role ``random``) moves uniformly among its legal moves, so in a game with nature each joint
move of the players is valued by the mean over nature's moves made with it (its expected goals): every
concept above is then taken in expectation. A game without ``sees`` rules is played under GDL's
protocol, where every role is told every joint move, nature's included (:mod:`gdl.views`), so searching
its states is sound. A GDL-II game (with ``sees`` rules) is not solved here: searching it as if every
role saw the state would give a wrong value. Its value is that of an extensive-form game.

In turn-taking games ties are broken towards the shorter line of play, then towards the first move in
KIF text order, so the principal variation of a single-player game is a shortest way to the best goal.
With mixed strategies the principal variation follows each role's most probable move.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gdl.engines import AUTO_MAX_ATOMS, build_compiled
from gdl.errors import GameDefinitionError, GameTooLargeError
from gdl.game import Game, State
from gdl.retrograde import (
    STATES,
    Exploration,
    explore,
    explored,
    principal_variation,
    values,
)
from gdl.retrograde_values import BACKWARD_INDUCTION as BY_BACKWARD_INDUCTION
from gdl.retrograde_values import MIXED_MINIMAX as BY_MIXED_MINIMAX
from gdl.retrograde_values import SECURITY as BY_SECURITY
from gdl.retrograde_values import ExactValues
from gdl.solution_concepts import (
    Joint,
    Value,
    best_for_mover,
    expected,
    most_probable,
    mover,
    payoff,
    security,
    solve_matrix_game,
)
from gdl.syntax.model import Term

BEST_GOAL = "best reachable goal (single player)"
MINIMAX = "minimax value (two-player, constant-sum, turn-taking)"
MIXED_MINIMAX = "minimax value in mixed strategies (two-player, constant-sum, simultaneous moves)"
BACKWARD_INDUCTION = "backward induction (max^n: the role to move maximises its own goal)"
SECURITY = "security values (each role's goal guaranteed in pure strategies against all others)"


@dataclass
class Solution:
    """The outcome of :func:`solve`; ``value`` and ``pv`` are empty when it is not ``solved``."""

    solved: bool
    concept: str
    value: dict[str, int | float]
    pv: list[dict[str, str]]
    states: int
    seconds: float
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    #: Mixed strategies at the start (role -> move -> probability); only for :data:`MIXED_MINIMAX`.
    strategies: dict[str, dict[str, float]] = field(default_factory=dict)
    #: ``value`` exactly, as fractions (``"100/3"``): the search computes it in exact arithmetic.
    exact_value: dict[str, str] = field(default_factory=dict)

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
            "strategies": self.strategies,
            "exact_value": self.exact_value,
        }


class _Node:
    """A reachable state: the players' terminal goals, or each role's legal moves (nature's included) and
    the successor per joint move."""

    __slots__ = ("children", "goals", "moves")

    def __init__(self, state: State, game: Game) -> None:
        self.children: dict[tuple[int, ...], State] = {}
        if state.is_terminal():
            goals = state.goals()
            self.goals: tuple[int, ...] | None = tuple(goals[r] for r in game.players)
            self.moves: tuple[list[Term], ...] = ()
        else:
            self.goals = None
            self.moves = tuple(state.legal_moves(r) for r in game.roles)


class _Valuation:
    """The players' view of the graph: each inner state's joint moves of the players (indexes over
    :attr:`Game.players`), each with the successors nature's moves lead to, all equally likely."""

    def __init__(self, game: Game, nodes: dict[State, _Node]) -> None:
        self.nodes = nodes
        self.chance = game.roles.index(game.chance_role) if game.chance_role is not None else None
        #: The inner states.
        self.inner = [state for state, node in nodes.items() if node.goals is None]

    def outcomes(self, state: State) -> dict[tuple[int, ...], list[State]]:
        """The players' joint moves at an inner state, each with its successors (one per nature's move)."""
        grouped: dict[tuple[int, ...], list[State]] = {}
        for joint, child in self.nodes[state].children.items():
            grouped.setdefault(self.players_part(joint), []).append(child)
        return grouped

    def expected(self, values: _Values, state: State) -> dict[Joint, Value]:
        """The players' joint moves at an inner state, each with its value in expectation over nature's
        moves."""
        return {joint: expected([values[c] for c in kids]) for joint, kids in self.outcomes(state).items()}

    def players_part(self, joint: tuple[int, ...]) -> tuple[int, ...]:
        """A joint move's indexes without nature's."""
        return joint if self.chance is None else joint[: self.chance] + joint[self.chance + 1 :]

    def choices(self, state: State) -> tuple[list[Term], ...]:
        """The players' legal moves at an inner state."""
        moves = self.nodes[state].moves
        return moves if self.chance is None else moves[: self.chance] + moves[self.chance + 1 :]


class _OutOfBudget(Exception):
    """The time or state budget ran out while building the graph."""


class _Cycle(Exception):
    """A state is reachable from itself, so the game need not end and has no backward induction."""


def solve(
    game: Game,
    budget: float = 60.0,
    max_states: int | None = None,
    start: State | None = None,
    progress: Callable[[int, float], None] | None = None,
    memory: int | None = None,
) -> Solution:
    """Solve ``game`` within ``budget`` seconds and at most ``max_states`` reachable states, from its
    initial state or from ``start`` (a state of the game, e.g. ``game.state("(cell 1 1 x) ...")``).
    A game of more than :data:`SMALL_GAME` states played by the compiled engine is solved by
    :mod:`gdl.retrograde`, whose arrays take at most ``memory`` bytes (by default what the address
    space limit leaves, or :data:`gdl.retrograde.DEFAULT_MEMORY` where it is not limited).

    ``progress(states, seconds)`` is called about every :data:`PROGRESS_EVERY` states expanded.
    """
    started = time.monotonic()
    if game.has_percepts:
        return Solution(False, "", {}, [], 0, time.monotonic() - started, _imperfect_information())
    root = game.initial_state() if start is None else start
    if root.game is not game:
        raise ValueError("solve: the start state belongs to another game")
    native = getattr(game.reasoner, "net", None) is not None
    if not native or (max_states is not None and max_states <= SMALL_GAME):
        return _searched(game, root, started, budget, max_states, progress)
    # A small game is searched at once (in a share of the budget: with many joint moves a state, a few
    # states may take long); a larger one goes to the native solver, whose kernels take a moment to load
    # (the search's states so far are a small part of its work).
    small = _searched(game, root, started, budget * SMALL_GAME_SHARE, SMALL_GAME, progress, SMALL_GAME_JOINTS)
    if small.solved or small.reason != OUT_OF_BUDGET:
        return small
    return _solved_natively(game, root, started, budget, max_states, memory, progress)


#: The share of a solve's time a network may take to build where ``engine="auto"`` gave the game to the
#: Datalog evaluator (auto's own budget is a few seconds, so that play starts soon; a solve that may take
#: minutes affords a network of a minute: see :func:`solving_engine`).
NETWORK_SHARE = 0.25
#: The ground atoms or rules of a relation a solve's network may have (twenty times auto's: corpus games
#: such as quarto, merrills and kalaha ground in 5 to 20 CPU-s past auto's limit).
NETWORK_MAX_ATOMS = 20 * AUTO_MAX_ATOMS


def solving_engine(game: Game, budget: float) -> Game:
    """``game`` on the compiled engine, its network built within ``NETWORK_SHARE * budget`` CPU seconds
    and :data:`NETWORK_MAX_ATOMS`, when it is played by another engine (as ``engine="auto"`` leaves a
    game whose network takes longer than its own budgets); ``game`` itself when the network does not fit
    them or the memory."""
    if getattr(game.reasoner, "net", None) is not None:
        return game
    try:
        network = build_compiled(game.checked, NETWORK_SHARE * budget, NETWORK_MAX_ATOMS)
        return Game(game.checked, network, game.name)
    except (GameTooLargeError, MemoryError, RecursionError):
        return game


#: Games of at most this many states are searched without the native solver.
SMALL_GAME = 2_000
#: The share of the budget the search of a small game may take before the native solver has its turn.
SMALL_GAME_SHARE = 0.25
#: A game with a state of more joint moves than this is not small, whatever its count of states: the
#: search would take longer over that state's successors alone than the native solver over the game.
SMALL_GAME_JOINTS = 10 * SMALL_GAME
OUT_OF_BUDGET = "not solved within budget"


def _searched(
    game: Game,
    root: State,
    started: float,
    budget: float,
    max_states: int | None,
    progress: Callable[[int, float], None] | None,
    max_joints: int | None = None,
) -> Solution:
    """The search over states: every reachable state expanded once, then valued backwards; it stops as
    out of budget at a state of more than ``max_joints`` joint moves."""
    nodes: dict[State, _Node] = {}
    try:
        order = _explore(game, root, nodes, started + budget, max_states, progress, max_joints)
    except _OutOfBudget:
        return Solution(False, "", {}, [], len(nodes), time.monotonic() - started, OUT_OF_BUDGET)
    except _Cycle as cycle:
        return Solution(False, "", {}, [], len(nodes), time.monotonic() - started, str(cycle))
    except GameDefinitionError as problem:
        reason = f"not solved: the rules break GDL: {problem}"
        return Solution(False, "", {}, [], len(nodes), time.monotonic() - started, reason)
    roles = game.players
    graph = _Valuation(game, nodes)
    turn_taking = all(sum(len(m) > 1 for m in graph.choices(s)) <= 1 for s in graph.inner)
    sums = {sum(n.goals) for n in nodes.values() if n.goals is not None}
    concept = _concept(len(roles), turn_taking, len(sums) == 1)
    notes = _notes(len(roles), turn_taking, len(sums) == 1, graph.chance is not None)
    strategies: tuple[list[Fraction], list[Fraction]] = ([], [])
    if turn_taking:
        values, choice = _backward_induction(graph, order)
    elif concept == MIXED_MINIMAX:
        values, choice, strategies = _mixed_minimax(graph, order, sums.pop())
    else:
        values, choice = _security(graph, order, len(roles))
    pv = _principal_variation(game, graph, choice, root)
    moves = graph.choices(root) if concept == MIXED_MINIMAX else ()
    return _solution(game, concept, values[root], pv, len(nodes), started, notes, moves, strategies)


def _concept(players: int, turn_taking: bool, constant_sum: bool) -> str:
    """The concept a game is solved by (see the module docstring)."""
    if turn_taking:
        return BEST_GOAL if players == 1 else MINIMAX if players == 2 and constant_sum else BACKWARD_INDUCTION
    return MIXED_MINIMAX if players == 2 and constant_sum else SECURITY


def _notes(players: int, turn_taking: bool, constant_sum: bool, nature: bool) -> list[str]:
    notes = [
        f"{players} role(s); {'turn-taking' if turn_taking else 'simultaneous moves'}; "
        f"{'constant-sum' if constant_sum else 'general-sum'} goals"
    ]
    if nature:
        notes.append("nature (role 'random') moves uniformly: every value is an expected goal")
    return notes


def _solution(
    game: Game,
    concept: str,
    value: Value,
    pv: list[dict[str, str]],
    states: int,
    started: float,
    notes: list[str],
    moves: Sequence[Sequence[Term]],
    strategies: tuple[list[Fraction], list[Fraction]],
) -> Solution:
    """A solved game's solution from its players' values at the start and, under mixed minimax, the
    players' moves there and their optimal mixed strategies."""
    roles = game.players
    solution = Solution(
        True, concept, {r: _number(v) for r, v in zip(roles, value, strict=True)}, pv, states,
        time.monotonic() - started, notes=notes,
        exact_value={r: str(Fraction(v)) for r, v in zip(roles, value, strict=True)},
    )
    if concept == MIXED_MINIMAX:
        solution.strategies = {
            role: {str(move): float(p) for move, p in zip(moves[r], strategies[r], strict=True) if p}
            for r, role in enumerate(roles)
        }
    return solution


def _solved_natively(
    game: Game,
    root: State,
    started: float,
    budget: float,
    max_states: int | None,
    memory: int | None,
    progress: Callable[[int, float], None] | None,
) -> Solution:
    """A game with a network solved by :mod:`gdl.retrograde`: turn-taking games without nature in
    integers, the others in exact fractions (:mod:`gdl.retrograde_values`)."""
    try:
        found, stopped = explore(game, root, started + budget, max_states, memory, progress, True)
    except GameDefinitionError as problem:
        reason = f"not solved: the rules break GDL: {problem}"
        return Solution(False, "", {}, [], 0, time.monotonic() - started, reason)
    if stopped:
        count, seconds = int(found.counters[STATES]), time.monotonic() - started
        return Solution(False, "", {}, [], count, seconds, stopped, notes=[explored(found)])
    return native_solution(found, started)


def native_solution(found: Exploration, started: float) -> Solution:
    """The solution of a game whose every reachable state ``found`` holds (from the state numbered 0),
    ``started`` when the solving did (a :func:`time.monotonic` time): turn-taking games without nature
    valued in integers, the others in exact fractions (:mod:`gdl.retrograde_values`)."""
    game = found.game
    count = int(found.counters[STATES])
    players = [game.roles.index(p) for p in game.players]
    terminal = found.terminal[:count]
    choosers = (found.legal_counts[:count][~terminal][:, players] > 1).sum(axis=1)
    turn_taking = bool((choosers <= 1).all())
    sums = set(found.goals[:count][terminal][:, players].sum(axis=1).tolist())
    concept = _concept(len(players), turn_taking, len(sums) == 1)
    notes = _notes(len(players), turn_taking, len(sums) == 1, game.chance_role is not None)
    notes.append(NATIVE)
    repeats = "not solved: a state repeats, so the game may not end"
    if turn_taking and game.chance_role is None:
        valued = values(found)
        if valued is None:
            return Solution(False, "", {}, [], count, time.monotonic() - started, repeats)
        value = tuple(int(v) for v in valued[0][0])
        pv = principal_variation(found, lambda s: int(valued[2][s]))
        return _solution(game, concept, value, pv, count, started, notes, (), ([], []))
    kind = BY_MIXED_MINIMAX if concept == MIXED_MINIMAX else BY_SECURITY
    if turn_taking:
        kind = BY_BACKWARD_INDUCTION
    exact = ExactValues(found, kind, sums.pop() if len(sums) == 1 else 0)
    if not exact.run():
        return Solution(False, "", {}, [], count, time.monotonic() - started, repeats)
    pv = principal_variation(found, exact.chosen)
    moves: Sequence[Sequence[Term]] = ()
    strategies: tuple[list[Fraction], list[Fraction]] = ([], [])
    if concept == MIXED_MINIMAX:
        moves = [found.state(0).legal_moves(role) for role in game.players]
        strategies = exact.strategies(0)[1:]
    return _solution(game, concept, exact.value(0), pv, count, started, notes, moves, strategies)


#: The note of a solution found by the native solver.
NATIVE = "solved by retrograde analysis on the compiled network"


def _imperfect_information() -> str:
    return (
        "not solved: a GDL-II game with percepts ('sees'); perfect-information search would value it "
        "as if every role saw the state (its value is that of an extensive-form game)"
    )


def _number(value: Fraction | int) -> int | float:
    """A value for people and JSON: an int when whole, else a float rounded to 4 places."""
    return int(value) if value == int(value) else round(float(value), 4)


#: States expanded between two calls of ``solve``'s progress function.
PROGRESS_EVERY = 2000


def _explore(
    game: Game,
    root: State,
    nodes: dict[State, _Node],
    stop_at: float,
    max_states: int | None,
    progress: Callable[[int, float], None] | None = None,
    max_joints: int | None = None,
) -> list[State]:
    """Expand every reachable state once; return them children first (a reverse topological order)."""
    roles = game.roles
    started = time.monotonic()
    order: list[State] = []
    on_path: set[State] = set()
    stack: list[tuple[State, list[State]]] = []

    def enter(state: State) -> None:
        if time.monotonic() > stop_at or (max_states is not None and len(nodes) >= max_states):
            raise _OutOfBudget
        node = _Node(state, game)
        nodes[state] = node
        if progress is not None and len(nodes) % PROGRESS_EVERY == 0:
            progress(len(nodes), time.monotonic() - started)
        if node.goals is None and max_joints is not None and math.prod(map(len, node.moves)) > max_joints:
            raise _OutOfBudget
        joints = itertools.product(*(range(len(m)) for m in node.moves)) if node.goals is None else ()
        for count, joint in enumerate(joints):
            if count % 256 == 255 and time.monotonic() > stop_at:  # many joint moves take a while too
                raise _OutOfBudget
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


_Values = dict[State, Value]
_Choices = dict[State, Joint]


def _backward_induction(graph: _Valuation, order: list[State]) -> tuple[_Values, _Choices]:
    """Turn-taking values: the role to move picks the successor (in expectation over nature's moves) best
    for itself, shorter lines first."""
    values: _Values = {}
    length: dict[State, int] = {}
    choice: _Choices = {}
    for state in order:
        node = graph.nodes[state]
        if node.goals is not None:
            values[state], length[state] = node.goals, 0
            continue
        role = mover([len(m) for m in graph.choices(state)])
        outcomes = graph.outcomes(state)
        valued = graph.expected(values, state)
        longest = {joint: max(length[c] for c in children) for joint, children in outcomes.items()}
        joint = best_for_mover(valued, longest, role)
        values[state], length[state], choice[state] = valued[joint], longest[joint] + 1, joint
    return values, choice


def _security(graph: _Valuation, order: list[State], role_count: int) -> tuple[_Values, _Choices]:
    """Each role's max-min goal with the others answering its move; the choice is each role's own."""
    values: _Values = {}
    choice: _Choices = {}
    for state in order:
        node = graph.nodes[state]
        if node.goals is not None:
            values[state] = node.goals
            continue
        outcomes = graph.expected(values, state)
        values[state], choice[state] = security(outcomes, role_count)
    return values, choice


def _mixed_minimax(
    graph: _Valuation, order: list[State], constant: int
) -> tuple[_Values, _Choices, tuple[list[Fraction], list[Fraction]]]:
    """Two constant-sum roles: solve the matrix game of the successors' (expected) values at every state."""
    values: _Values = {}
    choice: _Choices = {}
    strategies: tuple[list[Fraction], list[Fraction]] = ([], [])
    for state in order:
        node = graph.nodes[state]
        if node.goals is not None:
            values[state] = node.goals
            continue
        outcomes = graph.expected(values, state)
        rows, columns = (len(m) for m in graph.choices(state))
        value, row_strategy, column_strategy = solve_matrix_game(payoff(outcomes, rows, columns))
        values[state] = (value, constant - value)
        choice[state] = (most_probable(row_strategy), most_probable(column_strategy))
        strategies = (row_strategy, column_strategy)  # the last state valued is the root
    return values, choice, strategies


def _principal_variation(
    game: Game, graph: _Valuation, choice: _Choices, state: State
) -> list[dict[str, str]]:
    """The joint moves from ``state`` when every player follows the chosen moves (and nature plays its
    first legal move)."""
    line = []
    while state in choice:
        node = graph.nodes[state]
        joint = next(j for j in node.children if graph.players_part(j) == choice[state])
        line.append({role: str(m[i]) for role, m, i in zip(game.roles, node.moves, joint, strict=True)})
        state = node.children[joint]
    return line
