"""Solving turn-taking games at engine speed: the reachable states as packed bits explored by a native
kernel over the compiled network, then valued backwards from the terminal states.

:func:`gdl.solve.solve` tries this first. It applies to a game played by the compiled engine (its
propositional network) whose every state has at most one role with a choice; it gives the same answers
as the search over :class:`gdl.game.State` objects (the same concepts, values, tie-breaks and principal
variation), at a few hundred thousand states per CPU-second instead of a few thousand. A game it does not
apply to (simultaneous moves, no network) goes to that search.

**How.** States are rows of 64-bit words in a hash table (numpy arrays: no Python object per state),
expanded breadth first by a numba kernel (:mod:`gdl.retrograde_kernel`) that evaluates the network's
schedule (:mod:`gdl.engines.sweep`) over words of 64 lanes: the terminal test, the legal moves and the
goals of 64 states at once, then the successors of 64 joint moves at once. The graph is kept as compressed rows of successor numbers; values are
then propagated from the terminal states through the graph reversed, each state taken once its last
successor is valued (Kahn's order), so that a state that repeats is found (a state never valued).

**Memory.** A state costs about ``b + 62 + 4 r + 16 m`` bytes (``b`` the bytes of its base propositions,
``r`` the roles, ``m`` its joint moves): its row, two hash slots, its successors and its values, and the
graph reversed while valuing. The exploration stops with a clear reason before its arrays would pass
``memory`` bytes (:data:`DEFAULT_MEMORY`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gdl.engines.sweep import Sweep
from gdl.errors import GameDefinitionError, NotTurnTakingError
from gdl.game import Game, State

#: Fields of the exploration's counters (those of :mod:`gdl.retrograde_kernel`, which imports numba).
STATES, EXPANDED, EDGES = range(3)
#: The memory the exploration may use by default, in bytes.
DEFAULT_MEMORY = 8 * 2**30
#: States expanded per call of the kernel (between two looks at the clock and the progress function).
CHUNK = 50_000
#: The first capacity of the arrays, in states (they double as needed).
FIRST_CAPACITY = 1 << 16


class Exploration:
    """The reachable states of a game from one state, as arrays (see the module docstring)."""

    def __init__(self, game: Game, root: State, memory: int) -> None:
        net = game.reasoner.net  # type: ignore[attr-defined]
        self.game = game
        self.memory = memory
        roles = len(net.roles)
        input_of = {move: i for i, move in enumerate(net.moves)}
        legal_outputs = [node for entries in net.legal for _, node in entries]
        goal_outputs = [node for entries in net.goals for _, node in entries]
        self.state_sweep = Sweep(net, [net.terminal, *legal_outputs, *goal_outputs])
        self.next_sweep = Sweep(net, list(net.next))
        self.legal_first = np.cumsum([0, *(len(e) for e in net.legal)]).astype(np.int64)
        self.legal_input = np.asarray(
            [input_of.get((r, move), -1) for r, entries in enumerate(net.legal) for move, _ in entries],
            dtype=np.int64,
        )
        self.goal_first = np.cumsum([0, *(len(e) for e in net.goals)]).astype(np.int64)
        self.goal_value = np.asarray([int(v) for entries in net.goals for v, _ in entries], dtype=np.int16)
        self.state_words = max(1, (len(net.fluents) + 63) // 64)
        self.counters = np.zeros(4, dtype=np.int64)
        self.capacity = 0
        self.keys = np.zeros((0, self.state_words), dtype=np.uint64)
        self.table = np.zeros(0, dtype=np.uint64)
        self.child_start = np.zeros(1, dtype=np.int64)
        self.children = np.zeros(FIRST_CAPACITY, dtype=np.int64)
        self.terminal = np.zeros(0, dtype=np.bool_)
        self.goals = np.zeros((0, roles), dtype=np.int16)
        self.mover = np.zeros(0, dtype=np.int16)
        first = max(2, min(FIRST_CAPACITY, int(memory // self.bytes_per_state())))
        self.grow_states(first)
        self.keys[0] = self.row(root)
        self.counters[STATES] = 1
        self.grow_states(first)  # hashes the root

    def row(self, state: State) -> np.ndarray:
        data = int(self.game.reasoner.from_fluents(state.fluents()))
        return np.frombuffer(data.to_bytes(8 * self.state_words, "little"), dtype="<u8").astype(np.uint64)

    def state(self, number: int) -> State:
        """The game state of state ``number``."""
        return State(self.game, int.from_bytes(self.keys[number].astype("<u8").tobytes(), "little"))

    def bytes_per_state(self) -> float:
        branching = max(1.0, int(self.counters[EDGES]) / max(1, int(self.counters[EXPANDED])))
        return 8 * self.state_words + 62 + 4 * self.goals.shape[1] + 16 * branching

    def fits(self, states: int) -> bool:
        return states * self.bytes_per_state() <= self.memory

    def grow_states(self, capacity: int) -> None:
        from gdl.retrograde_kernel import rehash

        count = int(self.counters[STATES])
        keys = np.zeros((capacity, self.state_words), dtype=np.uint64)
        keys[:count] = self.keys[:count]
        self.keys = keys
        self.table = np.zeros(1 << (2 * capacity - 1).bit_length(), dtype=np.uint64)  # a power of two
        rehash(self.keys, self.table, count)
        self.child_start = _grown(self.child_start, capacity + 1)
        self.terminal = _grown(self.terminal, capacity)
        self.goals = _grown(self.goals, capacity)
        self.mover = _grown(self.mover, capacity)
        self.capacity = capacity

    def run(self, chunk: int, limit: int) -> int:
        from gdl.retrograde_kernel import expand

        return int(expand(
            self.state_sweep.tables, self.next_sweep.tables, self.legal_first, self.legal_input,
            self.goal_first, self.goal_value, self.keys, self.table, self.counters,
            self.child_start, self.children, self.terminal, self.goals, self.mover, chunk, limit,
        ))


def _grown(array: np.ndarray, length: int) -> np.ndarray:
    grown = np.zeros((length, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def explore(
    game: Game,
    root: State,
    stop_at: float,
    max_states: int | None,
    memory: int,
    progress: Callable[[int, float], None] | None,
) -> tuple[Exploration, str]:
    """The states reachable from ``root``; the reason the exploration stopped early, or ``""``.

    Raises :class:`NotTurnTakingError` for a game with simultaneous moves or without a network, and
    :class:`gdl.errors.GameDefinitionError` where the rules break GDL (as the game's states would)."""
    from gdl.retrograde_kernel import CHUNK as STOPPED_AT_CHUNK
    from gdl.retrograde_kernel import (
        CULPRIT,
        DONE,
        GROW_EDGES,
        GROW_STATES,
        LIMIT,
        NO_GOAL,
        NO_LEGAL_MOVE,
        SIMULTANEOUS,
    )

    if getattr(game.reasoner, "net", None) is None:
        raise NotTurnTakingError("the game has no network")
    started = time.monotonic()
    found = Exploration(game, root, memory)
    while True:
        if time.monotonic() > stop_at:
            return found, "not solved within budget"
        status = found.run(CHUNK, 2**62 if max_states is None else max_states)
        if progress is not None:
            progress(int(found.counters[STATES]), time.monotonic() - started)
        if status == LIMIT:
            return found, "not solved within budget"
        if status == DONE:
            return found, ""
        if status == STOPPED_AT_CHUNK:
            continue
        if status == GROW_STATES:
            wanted = 2 * found.capacity
            if not found.fits(wanted):
                return found, _too_large(found, wanted)
            found.grow_states(wanted)
        elif status == GROW_EDGES:
            found.children = _grown(found.children, 2 * len(found.children))
        elif status == SIMULTANEOUS:
            raise NotTurnTakingError("a state where several roles have a choice")
        elif status in (NO_GOAL, NO_LEGAL_MOVE):
            culprit = found.state(int(found.counters[CULPRIT]))
            # The game's own question raises the error it would raise in play, with its message.
            if status == NO_GOAL:
                culprit.goals()
            for role in game.roles:
                culprit.legal_moves(role)
            raise GameDefinitionError(f"the rules break GDL in state {culprit!r}")


def _too_large(found: Exploration, wanted: int) -> str:
    per_state = found.bytes_per_state()
    memory = f"{found.memory / 2**30:.1f} GiB" if found.memory >= 2**30 else f"{found.memory / 2**20:.1f} MiB"
    return (
        f"not solved: more than {found.capacity:,} states, and {wanted:,} would not fit in {memory} "
        f"(about {per_state:.0f} bytes a state)"
    )


def values(found: Exploration) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each state's values, line length and chosen joint move by backward induction; None when a
    state repeats (some state is never valued)."""
    from gdl.retrograde_kernel import backward

    count = int(found.counters[STATES])
    roles = found.goals.shape[1]
    valued = np.zeros((count, roles), dtype=np.int16)
    length = np.zeros(count, dtype=np.int32)
    choice = np.zeros(count, dtype=np.int32)
    done = backward(
        count, found.child_start, found.children, found.terminal, found.goals, found.mover,
        valued, length, choice,
    )
    return None if done < count else (valued, length, choice)


def principal_variation(found: Exploration, choice: np.ndarray) -> list[dict[str, str]]:
    """The joint moves from the root when every role follows the chosen moves."""
    game = found.game
    line: list[dict[str, str]] = []
    number = 0
    while not found.terminal[number]:
        state = found.state(number)
        legal = [state.legal_moves(role) for role in game.roles]
        rest = int(choice[number])
        picked: list[Any] = [None] * len(legal)
        for r in range(len(legal) - 1, -1, -1):
            picked[r] = legal[r][rest % len(legal[r])]
            rest //= len(legal[r])
        line.append({role: str(move) for role, move in zip(game.roles, picked, strict=True)})
        number = int(found.children[found.child_start[number] + int(choice[number])])
    return line


def warm_up() -> None:
    """Compile (or load from numba's cache) the kernels, on the smallest game; ``make`` calls this at
    installation, so that no solve pays the compilation inside its time limit."""
    from gdl.check import check_text
    from gdl.engines.compiled import CompiledReasoner
    from gdl.engines.warm import WARM_UP_GAME

    checked = check_text(WARM_UP_GAME).checked
    assert checked is not None
    game = Game(checked, CompiledReasoner(checked))
    found, _ = explore(game, game.initial_state(), float("inf"), None, 1 << 20, None)
    values(found)
