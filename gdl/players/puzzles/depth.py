"""Depth-first search for a line to a goal, on the network at native speed (:mod:`.depth_kernel`).

For puzzles whose states are too many to explore breadth first but whose solutions are deep and
plentiful (a knight's tour, a grid to fill): the search dives, most constrained successor first, and
never expands a state twice (a transposition table of rows). It runs in chunks of states between which
the clock is read, and can be resumed.
"""

from __future__ import annotations

import time

import numpy as np

from gdl.engines.sweep import Sweep
from gdl.errors import GameDefinitionError
from gdl.game import Game, State

#: The time a call of the kernel aims at, in seconds, between two looks at the clock: the states it may
#: expand are scaled to it from the last call's pace.
CALL_SECONDS = 0.02
#: The deepest line the search follows (deeper frames are cut, and the search is then not exhaustive).
MAX_DEPTH = 1_000


class DepthFirst:
    """A resumable depth-first search from ``root`` (not terminal) of a one-role game with a network,
    for a terminal state whose goal is at least ``target``, in at most ``memory`` bytes; with ``focus``,
    of the successors of one group only (see :func:`.depth_kernel._focus`: not exhaustive)."""

    def __init__(self, game: Game, root: State, target: int, memory: int, focus: bool = False) -> None:
        from gdl.players.puzzles import depth_kernel as kernel

        net = game.reasoner.net  # type: ignore[attr-defined]
        self.game = game
        self.root = root
        self.target = target
        input_of = {move: i for i, move in enumerate(net.moves)}
        legal = net.legal[0]
        outputs = [net.terminal, *(node for _, node in legal), *(node for _, node in net.goals[0])]
        self.state_sweep = Sweep(net, outputs)
        self.next_sweep = Sweep(net, list(net.next))
        self.legal_input = np.asarray([input_of.get((0, move), -1) for move, _ in legal], dtype=np.int64)
        self.goal_value = np.asarray([int(v) for v, _ in net.goals[0]], dtype=np.int16)
        width = max(1, (len(net.fluents) + 7) // 8)
        self.width = width
        branching = max(1, len(legal))
        frame_bytes = branching * (width + 4) + width + 16
        depth = int(max(2, min(MAX_DEPTH, memory // 4 // frame_bytes)))
        self.rows = np.zeros((depth, width), dtype=np.uint8)
        bits = game.reasoner.from_fluents(root.fluents())
        self.rows[0] = np.frombuffer(bits.to_bytes(width, "little"), dtype=np.uint8)
        self.kids = np.zeros((depth, branching, width), dtype=np.uint8)
        self.kid_move = np.zeros((depth, branching), dtype=np.int32)
        self.kid_count = np.zeros(depth, dtype=np.int64)
        self.position = np.zeros(depth, dtype=np.int64)
        self.line = np.zeros(depth, dtype=np.int64)
        self.best_line = np.zeros(depth, dtype=np.int64)
        # The transposition table: rows, and twice as many slots (a power of two) of row numbers.
        capacity = max(16, (memory - depth * frame_bytes) // (width + 16))
        self.keys = np.zeros((capacity, width), dtype=np.uint8)
        self.table = np.zeros(1 << (2 * capacity - 1).bit_length(), dtype=np.uint64)
        self.held = np.zeros(1, dtype=np.int64)
        self.counters = np.zeros(kernel.COUNTERS, dtype=np.int64)
        self.counters[kernel.DEPTH] = -1
        self.counters[kernel.BEST_GOAL] = -1
        self.culprit = np.zeros(width, dtype=np.uint8)
        self.focus = focus
        self.groups = np.zeros(depth, dtype=np.int64)
        self.status = kernel.CHUNK

    @property
    def method(self) -> str:
        return "focused depth-first" if self.focus else "depth-first"

    @property
    def expanded(self) -> int:
        from gdl.players.puzzles.depth_kernel import EXPANDED

        return int(self.counters[EXPANDED])

    @property
    def finished(self) -> bool:
        """Whether the search found its target or searched every state it could reach."""
        from gdl.players.puzzles.depth_kernel import EXHAUSTED, FOUND

        return self.status in (FOUND, EXHAUSTED)

    @property
    def exhaustive(self) -> bool:
        """Whether every reachable state was expanded (no line cut, the table never full)."""
        from gdl.players.puzzles.depth_kernel import CUT, EXHAUSTED

        return self.status == EXHAUSTED and not self.counters[CUT] and not self.focus

    def best(self) -> tuple[tuple[int, ...], int | None]:
        """The line to the best terminal state reached (legal move numbers) and its goal (None: none)."""
        from gdl.players.puzzles.depth_kernel import BEST_GOAL, BEST_LENGTH

        goal = int(self.counters[BEST_GOAL])
        if goal < 0:
            return (), None
        length = int(self.counters[BEST_LENGTH])
        return tuple(int(k) for k in self.best_line[:length]), goal

    def run(self, stop_at: float) -> None:
        """Search until the target is found, the search is over, or ``stop_at`` (:func:`time.monotonic`)."""
        from gdl.players.puzzles import depth_kernel as kernel

        chunk = 16
        while not self.finished and self.status != kernel.TABLE_FULL:
            begun = time.monotonic()
            if begun >= stop_at:
                break
            self.status = kernel.search(
                self.state_sweep.tables, self.next_sweep.tables, self.legal_input, self.goal_value,
                self.target, self.rows, self.kids, self.kid_move, self.kid_count, self.position, self.line,
                self.best_line, self.keys, self.table, self.held, self.counters, self.culprit, chunk,
                self.focus, self.groups,
            )
            took = time.monotonic() - begun
            chunk = max(1, min(4 * chunk, int(chunk * CALL_SECONDS / max(took, 1e-6))))
            if self.status in (kernel.NO_LEGAL_MOVE, kernel.NO_GOAL):
                culprit = State(self.game, int.from_bytes(self.culprit.tobytes(), "little"))
                # The game's own question raises the error it would raise in play, with its message.
                culprit.goals()
                culprit.legal_moves(self.game.roles[0])
                raise GameDefinitionError(f"the rules break GDL in state {culprit!r}")
