"""Dynamic well-formedness: explore a game's reachable states and decide what GDL asks of a game.

The specification asks more than valid syntax of a game: it must terminate, every role must always
have a legal move, every terminal state must give each role exactly one goal value, goals should be
monotonic, and the game must be winnable. :func:`analyse` explores the reachable states breadth-first
from the initial state within a budget and decides each property as ``True``, ``False`` or ``None``
(not decided). A verdict is only ever ``True`` when it was proven: for the universal properties that
means the whole state space was explored. Every ``False`` comes with a :class:`Counterexample`, a
sequence of joint moves from the initial state that a test (or a user) can replay.

In a GDL-II game the role ``random`` is nature, not a player: it must always have a legal move, but it
has no goal and wins nothing; its moves are chance, followed in every way they can go. Every verdict of
such a game says so, and strong winnability also says that it assumes the player sees the state when
the game has percepts (a player who does not may be unable to force what the verdict says it can).

>>> import gdl
>>> report = analyse(gdl.load("games/buttons.kif"))
>>> report.complete, report.terminating, report.strongly_winnable
(True, True, True)
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, TextIO

import networkx as nx

from gdl.budget import LOAD_SECONDS, budget
from gdl.diagnostics import Diagnostic, Level
from gdl.engines.base import goal_number
from gdl.errors import GameDefinitionError
from gdl.game import Game, State, load
from gdl.syntax.model import Term
from gdl.wellformed_report import (
    PROPERTIES,
    REQUIRED,
    Counterexample,
    JointMove,
    Moves,
    Progress,
    Report,
    Simulation,
    Verdict,
)

__all__ = [
    "PROPERTIES", "REQUIRED", "Counterexample", "Progress", "ProgressBar", "Report", "Simulation", "Verdict",
    "analyse", "check_files",
]

@dataclass(slots=True)
class _Node:
    """A discovered state; ``edges`` is None until the state is expanded."""

    state: State
    depth: int
    parent: int | None
    move: JointMove | None
    terminal: bool = False
    goals: dict[str, int] | None = None
    edges: list[tuple[JointMove, int]] | None = None


@dataclass(slots=True)
class _Evaluation:
    """What one state says: terminal, goals (or the problem with them), legal moves per role."""

    terminal: bool
    goals: dict[str, int]  # the roles with exactly one goal value
    goal_problem: str  # a player without exactly one goal value, or ""
    legal: tuple[tuple[Term, ...], ...]
    stuck: str  # a role without a legal move in a non-terminal state, or ""


class _Analysis:
    """One run of the analysis: the explored graph and the first counterexample of each property."""

    def __init__(self, game: Game, progress: Callable[[Progress], None] | None) -> None:
        self.game = game
        self.roles = game.roles
        # GDL-II's random role is nature, not a player: it needs legal moves but neither goals nor wins.
        self.players = game.players
        self.progress = progress
        self.nodes: list[_Node] = []
        self.index: dict[State, int] = {}
        self.failures: dict[str, Counterexample] = {}
        # Per role: the best goal value seen in a terminal state and the moves that reach it.
        self.best: dict[str, tuple[int, Moves]] = {}
        # The longest play from each node, filled in by has_cycle when there is none.
        self.longest: list[int] = []
        self.complete = False
        self.interrupted = False
        self.simulation: Simulation | None = None
        self.started = time.monotonic()

    # -- evaluation shared by the exploration and the playouts ------------------------------------

    def evaluate(self, state: State) -> _Evaluation:
        terminal = state.is_terminal()
        try:
            goals, problem = state.goals(), ""
        except GameDefinitionError:
            goals, problem = self.goals_by_role(state)
        legal: list[tuple[Term, ...]] = []
        stuck = ""
        if not terminal:
            for role in self.roles:
                try:
                    legal.append(tuple(state.legal_moves(role)))
                except GameDefinitionError:
                    legal.append(())
                    stuck = stuck or role
        return _Evaluation(terminal, goals, problem, tuple(legal), stuck)

    def goals_by_role(self, state: State) -> tuple[dict[str, int], str]:
        """The goal of each role that has exactly one value in 0..100, and what is wrong for the first
        player that has not. :meth:`State.goals` is all or nothing, so this asks the reasoner role by role.
        """
        reasoner = self.game.reasoner
        data = reasoner.from_fluents(state.fluents())
        goals: dict[str, int] = {}
        problem = ""
        for index, role in enumerate(self.roles):
            values = sorted(map(str, reasoner.goals(data, index)))
            if len(values) == 1 and (value := goal_number(values[0])) is not None:
                goals[role] = value
            elif role in self.players and not problem:
                problem = f"role {role!r} has {len(values)} goal values ({', '.join(values) or 'none'})"
        return goals, problem

    def observe(self, evaluation: _Evaluation, moves: Callable[[], Moves]) -> None:
        """Record the failures and goal witnesses a state shows; ``moves`` is the way to it."""
        if evaluation.goal_problem:
            self.fail(
                "monotonic", f"goals are not defined in a reachable state: {evaluation.goal_problem}", moves
            )
            if evaluation.terminal:
                self.fail("goals_defined", f"in a terminal state, {evaluation.goal_problem}", moves)
        if evaluation.terminal:
            for role, value in evaluation.goals.items():
                if value > self.best.get(role, (-1, ()))[0]:
                    self.best[role] = (value, moves())
        if evaluation.stuck:
            self.fail(
                "playable", f"role {evaluation.stuck!r} has no legal move in a non-terminal state", moves
            )

    def fail(
        self,
        name: str,
        message: str,
        moves: Callable[[], Moves],
        cycle_start: int | None = None,
    ) -> None:
        if name not in self.failures:
            self.failures[name] = Counterexample(name, message, moves(), cycle_start)

    def path(self, node_id: int, then: JointMove = ()) -> Moves:
        """The joint moves (KIF text) by which breadth-first search first reached a node, then ``then``."""
        moves: list[tuple[str, ...]] = [_text(then)] if then else []
        node = self.nodes[node_id]
        while node.parent is not None and node.move is not None:
            moves.append(_text(node.move))
            node = self.nodes[node.parent]
        return tuple(reversed(moves))

    # -- breadth-first exploration -----------------------------------------------------------------

    def explore(self, max_states: int, deadline: float) -> None:
        self.discover(self.game.initial_state(), 0, None, None)
        queue = deque([0])
        last_report = 0.0
        while queue:
            now = time.monotonic()
            if now > deadline:
                return
            if self.progress is not None and now - last_report > 0.2:
                last_report = now
                self.progress(
                    Progress(
                        len(self.nodes),
                        len(queue),
                        self.nodes[queue[-1]].depth,
                        now - self.started,
                        max_states,
                    )
                )
            node_id = queue[0]
            if not self.expand(node_id, max_states, deadline, queue):
                return
            queue.popleft()
        self.complete = True

    def discover(self, state: State, depth: int, parent: int | None, move: JointMove | None) -> int:
        self.nodes.append(_Node(state, depth, parent, move))
        self.index[state] = len(self.nodes) - 1
        return len(self.nodes) - 1

    def expand(self, node_id: int, max_states: int, deadline: float, queue: deque[int]) -> bool:
        """Evaluate a node and add its successors; False when the budget does not allow it."""
        node = self.nodes[node_id]
        evaluation = self.evaluate(node.state)
        node.terminal, node.goals = evaluation.terminal, evaluation.goals
        self.observe(evaluation, lambda: self.path(node_id))
        successors: list[tuple[JointMove, State]] = []
        for joint in () if evaluation.terminal else itertools.product(*evaluation.legal):
            if time.monotonic() > deadline:
                return False
            successors.append((joint, node.state.next(dict(zip(self.roles, joint, strict=True)))))
        new = {state for _, state in successors if state not in self.index}
        if len(self.nodes) + len(new) > max_states:
            return False
        edges = []
        for joint, state in successors:
            child = self.index.get(state)
            if child is None:
                child = self.discover(state, node.depth + 1, node_id, joint)
                queue.append(child)
            edges.append((joint, child))
        node.edges = edges
        return True

    # -- termination -------------------------------------------------------------------------------

    def has_cycle(self) -> bool:
        """Whether the expanded states have a cycle, by iterative depth-first search.

        As a by-product, when there is no cycle, :attr:`longest` holds the longest play from each node.
        """
        white, grey, black = 0, 1, 2
        colour = [white] * len(self.nodes)
        self.longest = [0] * len(self.nodes)
        for root in range(len(self.nodes)):
            if colour[root] != white:
                continue
            colour[root] = grey
            stack = [(root, iter(self.nodes[root].edges or ()))]
            while stack:
                node_id, edges = stack[-1]
                step = next(edges, None)
                if step is None:
                    colour[node_id] = black
                    stack.pop()
                    children = self.nodes[node_id].edges or ()
                    self.longest[node_id] = max((self.longest[c] + 1 for _, c in children), default=0)
                elif colour[step[1]] == grey:
                    return True
                elif colour[step[1]] == white:
                    colour[step[1]] = grey
                    stack.append((step[1], iter(self.nodes[step[1]].edges or ())))
        return False

    def shortest_cycle(self) -> tuple[int, list[JointMove]]:
        """The shallowest state on a cycle and the shortest cycle through it (when there is a cycle)."""
        graph = nx.DiGraph()
        loops = set()
        for node_id, node in enumerate(self.nodes):
            for _, child in node.edges or ():
                graph.add_edge(node_id, child)
                if child == node_id:
                    loops.add(node_id)
        components = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
        # Nodes are numbered in breadth-first order, so the smallest number is the shallowest state.
        start = min(loops.union(*components))
        reached: dict[int, tuple[int, JointMove]] = {}
        queue = deque([start])
        while queue:
            node_id = queue.popleft()
            for joint, child in self.nodes[node_id].edges or ():
                if child == start:
                    moves = [joint]
                    while node_id != start:
                        node_id, step = reached[node_id]
                        moves.append(step)
                    return start, moves[::-1]
                if child not in reached:
                    reached[child] = (node_id, joint)
                    queue.append(child)
        raise AssertionError("the state lies on a cycle")

    def check_termination(self) -> None:
        if not self.has_cycle():
            return
        start, moves = self.shortest_cycle()
        prefix = self.path(start)
        self.fail(
            "terminating",
            f"a cycle of {len(moves)} joint move(s) returns to a reachable non-terminal state",
            lambda: prefix + tuple(_text(m) for m in moves),
            cycle_start=len(prefix),
        )

    # -- goals -------------------------------------------------------------------------------------

    def check_monotonic(self) -> None:
        for node_id, node in enumerate(self.nodes):
            for joint, child in node.edges or ():
                after = self.nodes[child].goals or {}
                if self.check_drop(node.goals or {}, after, partial(self.path, node_id, joint)):
                    return

    def check_drop(self, before: dict[str, int], after: dict[str, int], moves: Callable[[], Moves]) -> bool:
        """Record a failure of monotonicity if a transition (the last of ``moves``) lowers a goal."""
        for role in self.players:
            if role in before and role in after and after[role] < before[role]:
                message = f"the goal value of {role} drops from {before[role]} to {after[role]}"
                self.fail("monotonic", message, moves)
                return True
        return False

    # -- winnability -------------------------------------------------------------------------------

    def forced_win(self, role: str, optimistic: bool) -> bool:
        """Whether ``role`` can force goal 100 from the initial state in the explored graph.

        Retrograde analysis (the least fixpoint of an AND-OR search): a state is won when it is
        terminal with goal 100, or when the role has a move such that every joint move with it leads
        to a won state. Unexpanded states count as won when ``optimistic``, as lost otherwise, which
        gives an upper and a lower bound of the truth.
        """
        me = self.roles.index(role)
        won = [False] * len(self.nodes)
        # For each (state, move of the role): how many of its joint moves do not lead to a won state yet.
        pending: dict[tuple[int, Term], int] = {}
        parents: list[list[tuple[int, Term]]] = [[] for _ in self.nodes]
        queue: deque[int] = deque()
        for node_id, node in enumerate(self.nodes):
            if node.edges is None:
                won[node_id] = optimistic
            elif node.terminal:
                won[node_id] = node.goals is not None and node.goals.get(role) == 100
            for joint, child in node.edges or ():
                key = (node_id, joint[me])
                pending[key] = pending.get(key, 0) + 1
                parents[child].append(key)
            if won[node_id]:
                queue.append(node_id)
        while queue:
            for key in parents[queue.popleft()]:
                pending[key] -= 1
                if pending[key] == 0 and not won[key[0]]:
                    won[key[0]] = True
                    queue.append(key[0])
        return won[0]

    def check_winnability(self) -> tuple[Verdict, Verdict]:
        losers = [role for role in self.players if self.best.get(role, (-1, ()))[0] < 100]
        weak: Verdict = True if not losers else (False if self.complete else None)
        if any(self.forced_win(role, optimistic=False) for role in self.players):
            strong: Verdict = True
        elif self.complete or not any(self.forced_win(role, optimistic=True) for role in self.players):
            strong = False
        else:
            strong = None
        for role in losers if weak is False else ():
            best, moves = self.shortfall(role)
            self.fail("weakly_winnable", f"no play gives {role} goal 100; {best}", moves)
        if strong is False and len(self.roles) == 1:
            best, moves = self.shortfall(self.roles[0])
            self.fail("strongly_winnable", f"a single-player game must be winnable; {best}", moves)
        return weak, strong

    def shortfall(self, role: str) -> tuple[str, Callable[[], Moves]]:
        """The best goal value a role reaches in a terminal state, and the moves that reach it."""
        if role not in self.best:
            return "no reachable terminal state gives it a goal value", tuple
        value, moves = self.best[role]
        return f"the best is {value}", partial(tuple, moves)

    # -- random playouts ---------------------------------------------------------------------------

    def simulate(self, playouts: int, depth_limit: int, deadline: float, seed: int) -> None:
        """Random playouts from the initial state: evidence, never proof, except for what they find."""
        generator = random.Random(seed)
        ended = longest = played = 0
        for _ in range(playouts):
            if time.monotonic() > deadline:
                break
            played += 1
            state = self.game.initial_state()
            seen = {state: 0}
            moves: list[tuple[str, ...]] = []
            before: dict[str, int] = {}
            for depth in range(depth_limit + 1):
                evaluation = self.evaluate(state)
                self.observe(evaluation, partial(tuple, moves))
                self.check_drop(before, evaluation.goals, partial(tuple, moves))
                before = evaluation.goals
                if evaluation.terminal:
                    ended += 1
                    longest = max(longest, depth)
                    break
                if evaluation.stuck or depth == depth_limit or time.monotonic() > deadline:
                    break
                joint = tuple(generator.choice(options) for options in evaluation.legal)
                moves.append(_text(joint))
                state = state.next(dict(zip(self.roles, joint, strict=True)))
                if state in seen:
                    start = seen[state]
                    self.fail(
                        "terminating",
                        f"a cycle of {len(moves) - start} joint move(s) returns to a reachable state"
                        " (found by a random playout)",
                        partial(tuple, moves),
                        cycle_start=start,
                    )
                    break
                seen[state] = len(moves)
        self.simulation = Simulation(played, depth_limit, ended, longest)

    def with_state(self, example: Counterexample) -> Counterexample:
        """The counterexample with the fluents of the state its moves lead to, found by replaying them."""
        state = self.game.initial_state()
        for joint in example.moves[: example.cycle_start]:
            state = state.next(dict(zip(self.roles, joint, strict=True)))
        return replace(example, state=tuple(sorted(map(str, state.fluents()))))

    # -- the report --------------------------------------------------------------------------------

    def report(self) -> Report:
        self.check_termination()
        self.check_monotonic()
        weak, strong = self.check_winnability()
        decided_true: Verdict = True if self.complete else None
        verdicts = {name: (False if name in self.failures else decided_true) for name in PROPERTIES}
        verdicts["weakly_winnable"], verdicts["strongly_winnable"] = weak, strong
        longest_play = None
        if verdicts["terminating"] is True and self.nodes:
            longest_play = self.longest[0]
        order = {name: i for i, name in enumerate(PROPERTIES)}
        examples = sorted(map(self.with_state, self.failures.values()), key=lambda c: order[c.property])
        return Report(
            game=self.game.name,
            roles=self.roles,
            reachable_states=len(self.nodes),
            terminal_states=sum(node.terminal for node in self.nodes),
            max_depth=max((node.depth for node in self.nodes), default=0),
            complete=self.complete,
            counterexamples=tuple(examples),
            longest_play=longest_play,
            simulation=self.simulation,
            interrupted=self.interrupted,
            seconds=time.monotonic() - self.started,
            nature=self.game.chance_role,
            percepts=self.game.has_percepts,
            **verdicts,
        )


def _text(joint: JointMove) -> tuple[str, ...]:
    return tuple(map(str, joint))


def analyse(
    game: Game,
    max_states: int = 100_000,
    seconds: float = 60.0,
    playouts: int = 100,
    depth_limit: int = 1000,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
) -> Report:
    """Explore ``game`` within the budget and decide its well-formedness properties.

    Three quarters of ``seconds`` go to the breadth-first exploration; when it does not cover the
    whole space, the rest goes to up to ``playouts`` random playouts of at most ``depth_limit`` moves.
    Ctrl-C (KeyboardInterrupt) stops the work and returns what is known so far.
    """
    analysis = _Analysis(game, progress)
    try:
        analysis.explore(max_states, analysis.started + 0.75 * seconds)
        if not analysis.complete:
            analysis.simulate(playouts, depth_limit, analysis.started + seconds, seed)
    except KeyboardInterrupt:
        analysis.interrupted = True
    return analysis.report()


class ProgressBar:
    """A one-line progress display on a terminal stream; does nothing on other streams."""

    def __init__(self, stream: TextIO | None = None) -> None:
        # sys.stderr looked up now, not at import: it may have been replaced since (tests, IDEs)
        self.stream = sys.stderr if stream is None else stream
        self.active = self.stream.isatty()

    def __call__(self, progress: Progress) -> None:
        if not self.active:
            return
        filled = math.floor(30 * min(1.0, progress.states / max(progress.max_states, 1)))
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {progress.states} states, "
            f"{progress.frontier} to expand, depth {progress.depth}, {progress.seconds:.0f} s "
        )
        self.stream.flush()

    def close(self) -> None:
        """Erase the progress line."""
        if self.active:
            self.stream.write("\r\033[K")
            self.stream.flush()


def check_files(
    files: Sequence[str],
    diagnostics: Sequence[Diagnostic],
    max_states: int,
    seconds: float,
    as_json: bool,
    engine: str = "auto",
    required: Sequence[str] = REQUIRED,
    emit: Callable[[Any], bool] | None = None,
) -> int:
    """``gdl check --dynamic``: print the static diagnostics and a report per valid game.

    The exit status is 0 when no required property fails (the failure of another is a warning), 1 when
    one does (or a game has errors), 130 when interrupted; with ``as_json`` each game gives an object
    with the report's keys plus ``file``, ``diagnostics``, ``required`` and ``violations`` (a list of
    objects when there are several files). ``emit``, when given, is handed that JSON instead of its being
    printed, and returns False when it could not be written (exit status 2).
    """
    if max_states < 1 or not seconds > 0:
        print("gdl check: --max-states must be at least 1 and --seconds positive", file=sys.stderr)
        return 2
    status = 0
    results: list[dict[str, Any]] = []
    for file in files:
        own = [d for d in diagnostics if d.file == file]
        result: dict[str, Any] = {"file": file, "diagnostics": [d.to_json() for d in own]}
        results.append(result)
        if not as_json:
            for diagnostic in own:
                print(diagnostic.format())
        if any(d.level is Level.ERROR for d in own):
            status = 1
            continue
        bar = ProgressBar()
        try:
            # The time per game covers loading it too.
            started = time.monotonic()
            with budget("loading", seconds, total=True, wall=True):
                game = load(file, engine, max_seconds=min(seconds, LOAD_SECONDS))
            left = max(seconds - (time.monotonic() - started), 0.01)
            report = analyse(game, max_states, left, progress=bar)
        except ValueError as problem:  # a run-time promise of GDL the reasoner could not keep
            print(f"gdl check: {file}: {problem}", file=sys.stderr)
            status = 1
            continue
        except (MemoryError, RecursionError) as problem:
            print(
                f"gdl check: {file}: the reasoner ran out of resources ({type(problem).__name__})",
                file=sys.stderr,
            )
            status = 1
            continue
        finally:
            bar.close()
        status = max(status, record_report(report, required, result, as_json))
        if report.interrupted:
            status = 130
            break
    data = results[0] if len(files) == 1 else results
    if emit is not None:
        return status if emit(data) else 2
    if as_json:
        print(json.dumps(data, indent=2))
    return status


def record_report(report: Report, required: Sequence[str], result: dict[str, Any], as_json: bool) -> int:
    """Add a game's report to its JSON ``result`` and print it (unless ``as_json``) under the policy
    ``required``; the exit status it calls for: 1 when a required property fails, else 0."""
    violations = report.violations(required)
    result.update(report.to_json(), required=list(required), violations=violations)
    if not as_json:
        print(report.format())
        print(_policy_line(report, required, violations))
    return 1 if violations else 0


def _policy_line(report: Report, required: Sequence[str], violations: list[str]) -> str:
    names = ", ".join(name.replace("_", " ") for name in required) or "nothing"
    warned = [c.property.replace("_", " ") for c in report.counterexamples if c.property not in required]
    verdict = "not well-formed" if violations else "well-formed"
    also = f"; warning: not {', '.join(warned)} (not required)" if warned else ""
    return f"{report.game}: {verdict} (required: {names}){also}"


__all__ = [
    "PROPERTIES",
    "REQUIRED",
    "Counterexample",
    "Progress",
    "ProgressBar",
    "Report",
    "Simulation",
    "analyse",
    "check_files",
    "record_report",
]
