"""Solving one-role games (puzzles) within a deadline: a plan of moves to the best goal.

>>> import time, gdl
>>> from gdl.players.puzzles import solve_puzzle
>>> game = gdl.load("games/buttons.kif")
>>> plan = solve_puzzle(game, game.initial_state(), time.monotonic() + 10)
>>> [str(move) for move in plan.moves], plan.goal, plan.proven, plan.shortest
(['a', 'b', 'a'], 100, True, True)

:func:`solve_puzzle` works on the game's propositional network at native speed, in two searches:

1. **Breadth first** (:mod:`.breadth`, over :func:`gdl.retrograde.explore`): every reachable state, as
   rows of bytes in a hash table. When it finishes, or when it reaches the highest goal the rules give,
   the plan is proven: the best goal, by a shortest line (what a puzzle rewarding speed asks for; where
   the goal asks for a given number of steps, as the 8-puzzle's does, the first terminal state with that
   goal is one of the nearest anyway).
2. **Depth first** (:mod:`.depth`), when the first search ran out of time or memory: a dive, most
   constrained successor first, with a transposition table, for the highest goal. Puzzles with more
   states than memory but many deep solutions (a knight's tour) fall to it. It runs twice: first
   *focused* (the successors of one group only, the moves that fill one cell of a grid, the cell with
   fewest choices: a heuristic for puzzles of marks such as sudoku, which may miss every solution), then
   exhaustive. A line either finds to the highest goal is proven best in goal, but not proven shortest.

A game loaded without a network (the Datalog engine) gets one built if it can within half the time; if
not, it is searched over its own states: first by a dive towards the highest goal its rules may still
give (:mod:`.dive`, cut by a sound test of the rules, :mod:`.possible`), in :data:`DIVE_SHARE` of the
time (all of it when the dive is resumed), then exhaustively by :func:`gdl.solve.solve` (slow,
bounded by :data:`SEARCHED_STATES`). The plan is empty, saying why, when neither finishes; the dive is
then handed back in the plan (:attr:`PuzzlePlan.diver`), to go on with at the next call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gdl.budget import budget
from gdl.engines import another_reasoner, build_compiled
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameTooLargeError
from gdl.game import Game, State
from gdl.ground.grounding import term_of
from gdl.players.puzzles.breadth import breadth_first
from gdl.players.puzzles.depth import DepthFirst
from gdl.players.puzzles.dive import Diver
from gdl.solve import solve
from gdl.syntax.model import Term

#: The memory the breadth-first exploration may use, in bytes (a player's worker has 2 GiB of address
#: space in all, :data:`gdl.workers.DEFAULT_LIMITS`).
BREADTH_MEMORY = 768 * 2**20
#: The memory of the depth-first search's stack and transposition table, in bytes.
DEPTH_MEMORY = 256 * 2**20
#: The share of the time that building a network may take, for a game loaded without one (the Datalog
#: engine); and the states the search over the game's states may keep when none can be built.
NETWORK_SHARE = 0.5
SEARCHED_STATES = 200_000
#: The share of the time the dive gets, for a game without a network, when it is not resumed (the
#: exhaustive search of its states gets the rest).
DIVE_SHARE = 0.8
#: The share of the time the breadth-first exploration gets when it does not finish, and the share of
#: the rest the focused depth-first search gets (the exhaustive one gets what is left).
BREADTH_SHARE = 0.7
FOCUS_SHARE = 0.5


@dataclass(frozen=True)
class PuzzlePlan:
    """Moves from a state to a terminal state and the goal they reach (None and no moves: no terminal
    state found); ``proven`` when no line reaches a higher goal, ``shortest`` when no shorter line
    reaches ``goal``; ``states`` expanded, CPU ``seconds`` spent, the ``method`` that found it
    (``"breadth-first"``, ``"focused depth-first"``, ``"depth-first"``, ``"search over states"`` without
    a network; ``"terminal"`` for a state that needs no move, ``"none"`` when nothing was found without a
    network), and why it is not proven."""

    moves: tuple[Term, ...]
    goal: int | None
    proven: bool
    shortest: bool
    states: int
    seconds: float
    method: str
    reason: str = ""
    #: For a game without a network: the dive, to resume from the next state (see :mod:`.dive`).
    diver: Diver | None = field(default=None, compare=False, repr=False)


def solve_puzzle(
    game: Game,
    state: State,
    deadline: float,
    breadth_memory: int = BREADTH_MEMORY,
    depth_memory: int = DEPTH_MEMORY,
    diver: Diver | None = None,
) -> PuzzlePlan:
    """The best plan found from ``state`` of the one-role ``game`` by ``deadline`` (a
    :func:`time.monotonic` instant; the searches stop within a chunk of states of it); ``diver``, a
    dive handed back by an earlier call for a game without a network, is resumed if ``state`` is on its
    line. Raises :class:`ValueError` for a game of more than one role (nature counts)."""
    if len(game.roles) != 1:
        raise ValueError(f"{game.name} has {len(game.roles)} roles: a puzzle has one")
    started = time.process_time()
    role = game.roles[0]

    def plan(moves: tuple[Term, ...], goal: int | None, proven: bool, shortest: bool, states: int,
             method: str, reason: str = "", diver: Diver | None = None) -> PuzzlePlan:
        return PuzzlePlan(moves, goal, proven, shortest, states, time.process_time() - started, method,
                          reason, diver)

    if state.is_terminal():
        return plan((), state.goals()[role], True, True, 0, "terminal")
    if diver is not None:  # an earlier call found no network
        return _without_network(game, state, deadline, diver, plan)
    native = _network_game(game, NETWORK_SHARE * max(0.0, deadline - time.monotonic()))
    if native is None:
        return _without_network(game, state, deadline, diver, plan)
    root = State(native, native.reasoner.from_fluents(state.fluents()))
    net = native.reasoner.net  # type: ignore[attr-defined]
    highest = max((int(value) for value, _ in net.goals[0]), default=0)

    now = time.monotonic()
    breadth = breadth_first(native, root, now + BREADTH_SHARE * (deadline - now), breadth_memory)
    breadth_moves = _replay(native, root, breadth.line)
    if breadth.complete or breadth.goal == highest:
        return plan(breadth_moves, breadth.goal, True, True, breadth.states, "breadth-first")

    found = [(breadth.goal, breadth_moves, "breadth-first")]
    states = breadth.states
    proven = False
    now = time.monotonic()
    for focus, stop_at in ((True, now + FOCUS_SHARE * (deadline - now)), (False, deadline)):
        search = DepthFirst(native, root, highest, depth_memory, focus)
        search.run(stop_at)
        states += search.expanded
        line, goal = search.best()
        found.append((goal, tuple(term_of(net.legal[0][k][0]) for k in line), search.method))
        proven = goal == highest or search.exhaustive
        del search
        if proven:
            break
    goal, moves, method = max(found, key=lambda each: (-1 if each[0] is None else each[0], -len(each[1])))
    reason = "" if proven else f"not proven: {breadth.reason}; the depth-first searches ran out of time"
    return plan(moves, goal, proven, False, states, method, reason)


def _without_network(
    game: Game, state: State, deadline: float, diver: Diver | None, plan: Callable[..., PuzzlePlan]
) -> PuzzlePlan:
    """The plan of the dive (resumed, if ``diver`` can be, with all the time), else of the search over
    the game's own states (:func:`gdl.solve.solve`, for a puzzle small enough)."""
    resumed = diver is not None and diver.follow(state)
    if diver is None:
        diver = Diver(game, state)
    elif not resumed:
        # The game left the dive's line: a new dive, which keeps what the test learnt of the rules.
        diver = Diver(game, state, diver.possibility)
    now = time.monotonic()
    diver.run(deadline if resumed else now + DIVE_SHARE * (deadline - now))
    if diver.found is not None:
        # The target is the highest goal the rules may give from the dive's first root: proven best.
        return plan(diver.found, diver.target, True, False, diver.expanded, "dive")
    reason = f"no network; the dive found no line to {diver.target} yet"
    if resumed:
        return plan((), None, False, False, diver.expanded, "none", reason, diver)
    solution = solve(game, max(0.0, deadline - time.monotonic()), SEARCHED_STATES, start=state)
    if not solution.solved:
        return plan((), None, False, False, diver.expanded + solution.states, "none",
                    f"{reason}; {solution.reason}", diver)
    moves = _replay(game, state, tuple(step[game.roles[0]] for step in solution.pv))
    return plan(moves, int(solution.value[game.roles[0]]), True, True, solution.states, "search over states")


def _network_game(game: Game, seconds: float) -> Game | None:
    """``game`` on a compiled engine of its own (sharing only the network with the game's, if it has
    one), or None when the network cannot be built within ``seconds`` (of CPU time and of wall time,
    and the atoms of :data:`gdl.engines.AUTO_MAX_ATOMS`)."""
    reasoner = getattr(game.reasoner, "unlocked", game.reasoner)  # a match's lock around it
    if isinstance(reasoner, CompiledReasoner):
        return Game(game.checked, another_reasoner(reasoner, game.checked), game.name)
    try:
        # Wall time too: the start clock is, and on a busy machine CPU time lags far behind it.
        with budget("building the network of a puzzle", seconds, wall=True):
            compiled = build_compiled(game.checked, seconds)
    except GameTooLargeError:
        return None
    return Game(game.checked, compiled, game.name)


def _replay(game: Game, root: State, line: tuple[int | str, ...]) -> tuple[Term, ...]:
    """The moves of ``line`` from ``root``: numbers into each state's legal moves, or their texts."""
    role = game.roles[0]
    moves = []
    state = root
    for step in line:
        legal = state.legal_moves(role)
        if isinstance(step, str):
            step = [str(move).lower() for move in legal].index(step.lower())
        moves.append(legal[step])
        state = state.next({role: legal[step]})
    return tuple(moves)


def warm_up() -> None:
    """Compile (or load from numba's cache) the depth-first kernel on the smallest game; ``make`` calls
    this at installation, so that no search pays the compilation inside a clock."""
    from gdl.check import check_text
    from gdl.engines.warm import WARM_UP_GAME

    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    game = Game(checked, CompiledReasoner(checked))
    DepthFirst(game, game.initial_state(), 100, 1 << 20).run(float("inf"))
