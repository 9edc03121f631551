"""The bandit-ambush maze: a two-player zero-sum game with chance and hidden information.

An agent walks from ``S`` to ``D`` through a maze (:mod:`gdl.bandits.maze`); a team of k bandits
(one player, the attacker) waits at k of the dangerous places ``E``. The rules, as a state machine:

1. The attacker places its k bandits on k distinct dangerous places. The agent does not see where.
2. The agent, on square x, moves up, down, left or right to a square that is not an obstacle and that
   it has not visited (the start counts as visited). When it has no such square, the game ends with
   payoff 0.
3. Entering ``D`` ends the game with payoff 10 plus the gold collected. Entering ``G`` collects 1 gold.
4. Entering a dangerous place that holds a bandit: the bandit attacks. Chance decides: with
   probability p the attack succeeds and the game ends with payoff 0; otherwise the agent goes on, and
   knows it was attacked there.
5. Entering a dangerous place that holds no bandit, when it is the first dangerous place the agent
   enters: the alarm goes off. The attacker, who knows then its placement and the agent's square but not
   the way the agent came, moves one bandit to a dangerous place that holds no bandit and is not the
   agent's square, or leaves all bandits where they are. The alarm never goes off again, and never at
   all when the first dangerous place entered holds a bandit (rule 4).
6. The agent sees nothing else: its information is its own path and where it was attacked. Since it is
   attacked exactly when the square holds a bandit, it can tell whether the alarm went off, but not
   what the bandits did then.

The agent's payoff is the game's payoff (it maximises); the attacker's is its negative.

Information sets: the agent's key is its path with the squares where it survived an attack
(``agent:(2,1) (1,1) attacked (1,2)``); the attacker's are ``attacker:place`` and, after an alarm,
``attacker:PLACEMENT alarm SQUARE``. Action labels: the agent's the square it enters (``(1,2)``); the
attacker's a placement (``(1,1)+(3,4)``), ``stay``, or a move of one bandit (``(1,1)->(1,5)``);
chance's ``success`` and ``failure`` (an outcome of probability 0 is left out).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, replace
from itertools import combinations

from gdl.bandits.maze import DANGER, DESTINATION, GOLD, Maze, Square, square_label
from gdl.errors import GameTooLargeError
from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal

AGENT, ATTACKER = "agent", "attacker"
#: The payoff for reaching the destination, before the gold.
REWARD = 10
STAY = "stay"
ATTACKED = "attacked"
#: The default budget of game-tree nodes (about 0.5 kB of memory each, with the LP: see docs/bandits.md).
MAX_NODES = 1_000_000
#: An agent's node also holds its path (its information set's key, the squares visited), some 24 bytes
#: a step: a node this many steps deep is counted as one more node (an open 100 x 100 maze's first
#: path, ten thousand squares deep, took gigabytes before the budget of nodes was spent).
STEPS_PER_NODE = 20


@dataclass(frozen=True)
class Play:
    """A state of the game where the agent is about to move (or the game has ended)."""

    #: The squares visited, from the start to the agent's square.
    path: tuple[Square, ...]
    #: Where the agent survived an attack.
    attacked: frozenset[Square]
    #: Where the bandits were placed at the start (what the attacker remembers), and where they are now.
    placement: frozenset[Square]
    bandits: frozenset[Square]
    #: Whether the agent has entered a dangerous place (after that the alarm cannot go off).
    alarmed: bool
    gold: int

    @property
    def square(self) -> Square:
        return self.path[-1]


@dataclass(frozen=True)
class Entered:
    """What happens when the agent enters a square: the play after it, and which event (if any) the
    game must resolve first: ``"attack"`` (chance), ``"alarm"`` (the attacker moves) or ``"goal"``."""

    play: Play
    event: str | None


def placements(maze: Maze) -> tuple[frozenset[Square], ...]:
    """The attacker's first choices: every set of k dangerous places, in reading order."""
    return tuple(frozenset(chosen) for chosen in combinations(maze.dangerous, maze.bandits))


def initial_play(maze: Maze, placement: frozenset[Square]) -> Play:
    return Play((maze.start,), frozenset(), placement, placement, False, 0)


def agent_moves(maze: Maze, play: Play) -> tuple[Square, ...]:
    """The squares the agent may enter: unvisited, not obstacles; up, down, left, right."""
    return tuple(near for near in maze.neighbours(play.square) if near not in play.path)


def enter(maze: Maze, play: Play, square: Square) -> Entered:
    """The agent enters ``square`` (one of :func:`agent_moves`)."""
    symbol = maze.symbol(square)
    danger = symbol == DANGER
    after = Play(
        (*play.path, square),
        play.attacked,
        play.placement,
        play.bandits,
        play.alarmed or danger,
        play.gold + (symbol == GOLD),
    )
    if symbol == DESTINATION:
        return Entered(after, "goal")
    if not danger:
        return Entered(after, None)
    return Entered(after, "attack" if square in play.bandits else None if play.alarmed else "alarm")


def survive(play: Play) -> Play:
    """The attack on the agent's square failed: the agent knows it was attacked there."""
    return replace(play, attacked=play.attacked | {play.square})


def relocations(maze: Maze, play: Play) -> tuple[tuple[Square, Square] | None, ...]:
    """The attacker's choices at the alarm: None (stay), or (from, to) moving one bandit to a free
    dangerous place other than the agent's square."""
    free = [place for place in maze.dangerous if place not in play.bandits and place != play.square]
    return (None, *((bandit, place) for bandit in sorted(play.bandits) for place in free))


def relocate(play: Play, move: tuple[Square, Square] | None) -> Play:
    if move is None:
        return play
    return replace(play, bandits=(play.bandits - {move[0]}) | {move[1]})


def final_payoff(maze: Maze, play: Play, moves: tuple[Square, ...]) -> int | None:
    """The payoff if the game ends at ``play``, where the agent may enter ``moves``: at ``D``, or with
    no square left to enter; else None."""
    if play.square == maze.destination:
        return REWARD + play.gold
    return None if moves else 0


# --- labels and information-set keys -------------------------------------------------------------


def placement_label(placement: frozenset[Square]) -> str:
    return "+".join(square_label(square) for square in sorted(placement))


def relocation_label(move: tuple[Square, Square] | None) -> str:
    return STAY if move is None else f"{square_label(move[0])}->{square_label(move[1])}"


def alarm_infoset(play: Play) -> str:
    return f"{ATTACKER}:{placement_label(play.placement)} alarm {square_label(play.square)}"


PLACE_INFOSET = f"{ATTACKER}:place"


# --- the game tree ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BanditsGame:
    """The maze's extensive-form game, with each information set's past as its player sees it
    (``pasts[key]``: the labels of the player's own earlier steps), to print sequences readably."""

    maze: Maze
    game: ExtensiveGame
    pasts: dict[str, tuple[str, ...]]

    def sequence_steps(self, sequence: tuple[str, ...]) -> tuple[str, ...]:
        """A sequence, named by its last choice ``(infoset, action)`` or ``()`` for the empty one, as
        the player's steps: ``((1,1) attacked, (1,2))`` or ``((1,1), alarm (3,1), stay)``."""
        if not sequence:
            return ()
        infoset, action = sequence
        return (*self.pasts[infoset], action)

    def sequence_text(self, sequence: tuple[str, ...]) -> str:
        """A sequence as printed: ``[(1,1) attacked, (1,2)]``."""
        return "[" + ", ".join(self.sequence_steps(sequence)) + "]"


#: A node being built: it yields the builds of its children, is sent each child built, returns itself.
_Build = Generator["_Build", Node, Node]


def _run(build: _Build) -> Node:
    """Drive a build and the builds it yields on a stack of its own: a path through an open maze is
    thousands of squares long, deeper than Python's recursion allows."""
    stack = [build]
    built: Node | None = None
    while True:
        try:
            child = stack[-1].send(built) if built is not None else next(stack[-1])
        except StopIteration as done:
            stack.pop()
            built = done.value
            if not stack:
                assert built is not None
                return built
            continue
        stack.append(child)
        built = None


class _Builder:
    def __init__(self, maze: Maze, max_nodes: int) -> None:
        self.maze = maze
        self.max_nodes = max_nodes
        self.nodes = 0
        self.pasts: dict[str, tuple[str, ...]] = {PLACE_INFOSET: ()}
        self.success = maze.success
        self.labels = {square: square_label(square) for square in maze.squares_all()}
        self.agent_prefix = f"{AGENT}:{self.labels[maze.start]}"
        self.terminals: dict[int, Terminal] = {}

    def count(self, nodes: int = 1) -> None:
        self.afford(nodes)
        self.nodes += nodes

    def afford(self, nodes: int) -> None:
        """Refuse the game if ``nodes`` more would pass the budget: each choice of a node leads to a node
        at least, so a choice of a million placements is refused before it is listed."""
        if self.nodes + nodes > self.max_nodes:
            raise GameTooLargeError(
                f"the maze's game has more than {self.max_nodes} nodes (a smaller maze, or raise --max-nodes)"
            )

    def terminal(self, payoff: int) -> Terminal:
        self.count()
        if payoff not in self.terminals:  # immutable: one object per payoff
            self.terminals[payoff] = Terminal({AGENT: payoff, ATTACKER: -payoff})
        return self.terminals[payoff]

    def root(self) -> _Build:
        self.count()
        self.afford(math.comb(len(self.maze.dangerous), self.maze.bandits))
        choices = placements(self.maze)
        children: list[Node] = []
        for placement in choices:
            children.append((yield self.agent_turn(initial_play(self.maze, placement), ())))
        return Decision(ATTACKER, PLACE_INFOSET, [placement_label(p) for p in choices], children)

    def agent_turn(self, play: Play, steps: tuple[str, ...]) -> _Build:
        """The agent's turn; ``steps`` are its past as it knows it (squares entered, attacks survived)."""
        moves = agent_moves(self.maze, play)
        payoff = final_payoff(self.maze, play, moves)
        if payoff is not None:
            return self.terminal(payoff)
        self.count(1 + len(steps) // STEPS_PER_NODE)
        key = " ".join((self.agent_prefix, *steps))
        self.pasts.setdefault(key, steps)
        labels = [self.labels[square] for square in moves]
        children: list[Node] = []
        for square, label in zip(moves, labels, strict=True):
            children.append((yield self.entered(enter(self.maze, play, square), (*steps, label))))
        return Decision(AGENT, key, labels, children)

    def entered(self, entered: Entered, steps: tuple[str, ...]) -> _Build:
        play = entered.play
        if entered.event == "attack":
            self.count()
            # An outcome of probability 0 is left out (p is 0 or 1).
            labels = [label for label, p in (("success", self.success), ("failure", 1 - self.success)) if p]
            attacked = (*steps[:-1], f"{steps[-1]} {ATTACKED}")
            children: list[Node] = []
            for label in labels:
                if label == "success":
                    children.append(self.terminal(0))
                else:
                    children.append((yield self.agent_turn(survive(play), attacked)))
            odds = [self.success if label == "success" else 1 - self.success for label in labels]
            return Chance(labels, odds, children)
        if entered.event == "alarm":
            self.count()
            key = alarm_infoset(play)
            self.pasts.setdefault(key, (placement_label(play.placement), f"alarm {self.labels[play.square]}"))
            free = len(self.maze.dangerous) - len(play.bandits) - (play.square not in play.bandits)
            self.afford(1 + len(play.bandits) * free)
            moves = relocations(self.maze, play)
            relocated: list[Node] = []
            for move in moves:
                relocated.append((yield self.agent_turn(relocate(play, move), steps)))
            return Decision(ATTACKER, key, [relocation_label(move) for move in moves], relocated)
        return (yield self.agent_turn(play, steps))


def bandits_game(maze: Maze, *, max_nodes: int = MAX_NODES) -> BanditsGame:
    """The maze's game as an extensive-form game; :class:`~gdl.errors.GameTooLargeError` past
    ``max_nodes`` nodes."""
    builder = _Builder(maze, max_nodes)
    root = _run(builder.root())
    game = ExtensiveGame((AGENT, ATTACKER), root, title="bandits")
    return BanditsGame(maze, game, builder.pasts)
