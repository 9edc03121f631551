"""Solving games at engine speed: the reachable states as packed bits explored by a native kernel over
the compiled network, then valued backwards from the terminal states.

:func:`gdl.solve.solve` uses this for a game played by the compiled engine (its propositional network)
of more than a few thousand states; it gives the same answers as the search over
:class:`gdl.game.State` objects (the same concepts, values, tie-breaks, principal variation and mixed
strategies), at hundreds of thousands of states per CPU-second instead of a few thousand. A turn-taking
game without nature is valued here in integers (:func:`values`); a game with simultaneous moves or
nature in exact fractions by :mod:`gdl.retrograde_values`. A game without a network goes to the search.

**How.** States are rows of 64-bit words in a hash table (numpy arrays: no Python object per state),
expanded breadth first by a numba kernel (:mod:`gdl.retrograde_kernel`) that evaluates the network's
schedule (:mod:`gdl.engines.sweep`) over rows of words of lanes: the terminal test, the legal moves and
the goals of 256 states at once, then the successors of 256 joint moves at once. The graph is kept as
compressed rows of successor numbers; values are then propagated from the terminal states through the
graph reversed, each state taken once its last successor is valued (Kahn's order), so that a state that
repeats is found (a state never valued).

**Memory.** A state costs about ``8 w + 74 + 22 r + 8 m`` bytes (``w`` the 64-bit words of its base
propositions, ``r`` the roles, ``m`` its joint moves): its row, two hash slots, its successors, its legal
moves' counts and its values (a numerator and a denominator per player when they are fractions), and the
graph reversed while valuing (:meth:`Exploration.bytes_per_capacity`). Arrays grow by doubling; where
the edges would not fit, :func:`gdl.solve.solve`'s exploration goes on counting the states without
them, then explores again in arrays of the size counted if those fit. The exploration
stops with a clear reason before its arrays would pass ``memory`` bytes (by default what the address
space limit leaves, as ``gdl`` limits it, or :data:`DEFAULT_MEMORY` where it is not limited).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from gdl.engines.sweep import Sweep
from gdl.errors import GameDefinitionError, NoNetworkError
from gdl.game import CHANCE_ROLE, Game, State
from gdl.ground.propnet import TRUE
from gdl.memory import address_space_left

#: Fields of the exploration's counters (those of :mod:`gdl.retrograde_kernel`, which imports numba).
STATES, EXPANDED, EDGES = range(3)
#: The memory the exploration may use by default where the process's address space is not limited, in
#: bytes (where it is, what the limit leaves: see :func:`memory_room`).
DEFAULT_MEMORY = 8 * 2**30
#: Seconds between two looks at the clock and calls of the progress function: the kernel is called on
#: as many states as it expanded in that time before.
CHUNK_SECONDS = 0.1
#: States expanded by the first call of the kernel, and at least by each call.
FIRST_CHUNK = 64
#: The first capacity of the arrays, in states (they double as needed).
FIRST_CAPACITY = 1 << 16
#: The bytes of an edge: the successor's number, and the predecessor's while valuing (32 bits each).
EDGE_BYTES = 8
#: The most states an exploration numbers (in 32 bits).
MOST_STATES = 2**31 - 1


class Exploration:
    """The reachable states of a game from one state, as arrays (see the module docstring)."""

    def __init__(self, game: Game, root: State, memory: int, sizes: tuple[int, int] | None = None) -> None:
        """Arrays for the exploration from ``root`` in ``memory`` bytes: ``sizes`` states and edges when
        known, else a first capacity that grows."""
        from gdl.retrograde_kernel import rehash

        net = game.reasoner.net  # type: ignore[attr-defined]
        self.game = game
        self.memory = memory
        #: The seconds the exploration has taken so far (set by :func:`explore`).
        self.seconds = 0.0
        roles = len(net.roles)
        input_of = {move: i for i, move in enumerate(net.moves)}
        legal_outputs = [node for entries in net.legal for _, node in entries]
        # Nature has no goal: a constant one satisfies the kernel's check of one goal a role.
        goals = [
            [(0, TRUE)] if role == CHANCE_ROLE else entries
            for role, entries in zip(net.roles, net.goals, strict=True)
        ]
        goal_outputs = [node for entries in goals for _, node in entries]
        self.state_sweep = Sweep(net, [net.terminal, *legal_outputs, *goal_outputs])
        self.next_sweep = Sweep(net, list(net.next))
        self.legal_first = np.cumsum([0, *(len(e) for e in net.legal)]).astype(np.int64)
        self.legal_input = np.asarray(
            [input_of.get((r, move), -1) for r, entries in enumerate(net.legal) for move, _ in entries],
            dtype=np.int64,
        )
        self.goal_first = np.cumsum([0, *(len(e) for e in goals)]).astype(np.int64)
        self.goal_value = np.asarray([int(v) for entries in goals for v, _ in entries], dtype=np.int16)
        self.state_words = max(1, (len(net.fluents) + 63) // 64)
        self.counters = np.zeros(4, dtype=np.int64)
        #: Whether the successors are only counted, their edges past the memory (:func:`explore`).
        self.counting = False
        self.capacity = 0
        self.keys = np.zeros((0, self.state_words), dtype=np.uint64)
        self.table = np.zeros(0, dtype=np.uint64)
        self.child_start = np.zeros(1, dtype=np.int64)
        self.terminal = np.zeros(0, dtype=np.bool_)
        self.goals = np.zeros((0, roles), dtype=np.int16)
        self.legal_counts = np.zeros((0, roles), dtype=np.int32)
        first = max(2, min(FIRST_CAPACITY, int(memory // self.bytes_per_state())))
        states, edges = (first, first) if sizes is None else sizes
        self.children = np.zeros(max(1, edges), dtype=np.int32)
        self.grow_states(states)
        self.keys[0] = self.row(root)
        self.counters[STATES] = 1
        rehash(self.keys, self.table, 1)

    def row(self, state: State) -> np.ndarray:
        data = int(self.game.reasoner.from_fluents(state.fluents()))
        return np.frombuffer(data.to_bytes(8 * self.state_words, "little"), dtype="<u8").astype(np.uint64)

    def state(self, number: int) -> State:
        """The game state of state ``number``."""
        return State(self.game, int.from_bytes(self.keys[number].astype("<u8").tobytes(), "little"))

    def branching(self) -> float:
        """The mean number of successors of the states expanded so far (at least 1)."""
        return max(1.0, int(self.counters[EDGES]) / max(1, int(self.counters[EXPANDED])))

    def bytes_per_state(self) -> float:
        """The memory a state takes, the valuing's included, with the mean number of successors so far
        (only counted, they take none)."""
        return self.bytes_per_capacity() + (0 if self.counting else EDGE_BYTES * self.branching())

    def bytes_per_capacity(self) -> int:
        """The memory a state takes, the valuing's included, but for its edges (:data:`EDGE_BYTES`
        each: the successor's number, and the predecessor's while valuing): its row, two slots of the
        hash table, its first edge, terminal flag, goals and legal moves' counts; then its values (a
        numerator and a denominator per role when they are fractions), line length, choice, flag and
        the valuing's four counters."""
        roles = self.goals.shape[1]
        return 8 * self.state_words + 16 + 8 + 1 + 2 * roles + 4 * roles + (16 * roles + 4 + 4 + 1 + 32)

    def fits(self, capacity: int, edges: int) -> bool:
        """Whether arrays for ``capacity`` states and ``edges`` edges (none while counting) fit in the
        memory allowed."""
        edge_bytes = 0 if self.counting else EDGE_BYTES * edges
        return capacity * self.bytes_per_capacity() + edge_bytes <= self.memory

    def release(self) -> None:
        """Free the arrays of the states, keeping the counters."""
        self.capacity = 0
        self.keys = np.zeros((0, self.state_words), dtype=np.uint64)
        self.table = np.zeros(0, dtype=np.uint64)
        self.child_start = np.zeros(1, dtype=np.int64)
        self.children = np.zeros(1, dtype=np.int32)
        self.terminal = np.zeros(0, dtype=np.bool_)
        self.goals = np.zeros((0, self.goals.shape[1]), dtype=np.int16)
        self.legal_counts = np.zeros((0, self.legal_counts.shape[1]), dtype=np.int32)

    def count_only(self) -> None:
        """Go on counting the states and their successors without keeping the edges."""
        self.counting = True
        self.children = np.zeros(1, dtype=np.int32)

    def grow_states(self, capacity: int) -> None:
        """Room for ``capacity`` states. The arrays are resized in place where the memory allows it (no
        copy), so no other reference to them may be held while exploring."""
        from gdl.retrograde_kernel import REGROW_BITS, regrow, rehash

        table = np.zeros(1 << (2 * capacity - 1).bit_length(), dtype=np.uint64)  # a power of two
        if len(table) <= 1 << REGROW_BITS:
            regrow(self.table, table)
        else:
            rehash(self.keys, table, int(self.counters[STATES]))
        self.table = table
        self.keys.resize((capacity, self.state_words), refcheck=False)
        self.child_start.resize(capacity + 1, refcheck=False)
        self.terminal.resize(capacity, refcheck=False)
        self.goals.resize((capacity, self.goals.shape[1]), refcheck=False)
        self.legal_counts.resize((capacity, self.legal_counts.shape[1]), refcheck=False)
        self.capacity = capacity

    def run(self, chunk: int, limit: int) -> int:
        from gdl.retrograde_kernel import expand

        return int(expand(
            self.state_sweep.tables, self.next_sweep.tables, self.legal_first, self.legal_input,
            self.goal_first, self.goal_value, self.keys, self.table, self.counters,
            self.child_start, self.children, self.terminal, self.goals, self.legal_counts, chunk, limit,
            not self.counting,
        ))


def explore(
    game: Game,
    root: State,
    stop_at: float,
    max_states: int | None,
    memory: int | None,
    progress: Callable[[int, float], None] | None,
    count_past_memory: bool = False,
) -> tuple[Exploration, str]:
    """The states reachable from ``root``, at most ``max_states`` of them, found before ``stop_at`` (a
    :func:`time.monotonic` instant) in arrays of at most ``memory`` bytes (None: what the address space
    leaves, :func:`memory_room`, or :data:`DEFAULT_MEMORY` where it is not limited); the reason the
    exploration stopped early, or ``""``.
    ``progress(states, seconds)`` is called about every :data:`CHUNK_SECONDS`. With
    ``count_past_memory``, an exploration whose edges would not fit goes on without them, counting the
    states (so that the refusal says how many there are, or that there are more than ``max_states``).

    Raises :class:`NoNetworkError` for a game without a network, and
    :class:`gdl.errors.GameDefinitionError` where the rules break GDL (as the game's states would)."""
    if getattr(game.reasoner, "net", None) is None:
        raise NoNetworkError("the game has no network")
    started = time.monotonic()
    room = memory_room()
    if memory is None:
        memory = DEFAULT_MEMORY if room is None else room
    memory = memory if room is None else min(memory, room)
    found = Exploration(game, root, memory)
    stopped = _explore(found, started, stop_at, max_states, progress, count_past_memory)
    if stopped or not found.counting:
        return found, stopped
    # Every state counted, without the edges: arrays of exactly that size may hold them where arrays
    # grown by doubling did not.
    states, edges = int(found.counters[STATES]), int(found.counters[EDGES])
    widest = int(np.prod(found.legal_counts[:states].astype(np.int64), axis=1).max(initial=1))
    sizes = (states + widest + LANES_HEADROOM, edges)
    if sizes[0] * found.bytes_per_capacity() + EDGE_BYTES * edges > memory:
        return found, _edges_too_large(found)
    refusal = _edges_too_large(found)
    found.release()
    again = Exploration(game, root, memory, sizes)
    stopped = _explore(again, started, stop_at, max_states, progress, False)
    return (again, "") if not stopped else (found, refusal)


#: The states an exploration sized to a known count keeps free besides the widest state's successors:
#: those of the joint moves in flight in the kernel's lanes.
LANES_HEADROOM = 1024


def _explore(
    found: Exploration,
    started: float,
    stop_at: float,
    max_states: int | None,
    progress: Callable[[int, float], None] | None,
    count_past_memory: bool,
) -> str:
    """Run the exploration ``found`` (see :func:`explore`); the reason it stopped early, or ``""``."""
    from gdl.retrograde_kernel import CHUNK as STOPPED_AT_CHUNK
    from gdl.retrograde_kernel import (
        CULPRIT,
        DONE,
        GROW_EDGES,
        GROW_STATES,
        LIMIT,
        NO_GOAL,
        NO_LEGAL_MOVE,
    )

    game = found.game
    chunk = FIRST_CHUNK
    while True:
        now = time.monotonic()
        if now > stop_at:
            return OUT_OF_BUDGET
        expanded = int(found.counters[EXPANDED])
        status = found.run(chunk, MOST_STATES if max_states is None else min(max_states, MOST_STATES))
        spent = time.monotonic() - now
        if status == STOPPED_AT_CHUNK:
            # As many states next time as fit in CHUNK_SECONDS at this pace (at most 4 times as many).
            pace = (int(found.counters[EXPANDED]) - expanded) / max(spent, 1e-6)
            chunk = max(FIRST_CHUNK, min(4 * chunk, int(pace * CHUNK_SECONDS)))
        found.seconds = time.monotonic() - started
        if progress is not None:
            progress(int(found.counters[STATES]), found.seconds)
        if status == LIMIT:
            return OUT_OF_BUDGET
        if status == DONE:
            return ""
        if status in (GROW_STATES, GROW_EDGES):
            states = found.capacity
            if status == GROW_STATES:
                states = 2 * states
                if max_states is not None:  # no room past the states allowed (and a joint move's)
                    states = min(states, max(found.capacity + found.capacity // 8, max_states + HEADROOM))
            edges = 2 * len(found.children) if status == GROW_EDGES else len(found.children)
            if status == GROW_STATES:  # the edges the states will have, at the branching so far
                edges = max(edges, int(states * found.branching()))
            if not found.fits(states, edges):
                if count_past_memory and not found.counting:
                    found.count_only()
                    continue
                return _too_large(found)
            try:
                if status == GROW_STATES:
                    found.grow_states(states)
                else:
                    found.children.resize(edges, refcheck=False)
            except MemoryError:
                if count_past_memory and not found.counting:
                    found.count_only()
                    continue
                return _too_large(found)
        elif status in (NO_GOAL, NO_LEGAL_MOVE):
            culprit = found.state(int(found.counters[CULPRIT]))
            # The game's own question raises the error it would raise in play, with its message.
            if status == NO_GOAL:
                culprit.goals()
            for role in game.roles:
                culprit.legal_moves(role)
            raise GameDefinitionError(f"the rules break GDL in state {culprit!r}")


def explored(found: Exploration) -> str:
    """What an exploration stopped early did, for people: the states found and expanded, and how fast."""
    expanded = int(found.counters[EXPANDED])
    return (
        f"{int(found.counters[STATES]):,} states found, {expanded:,} of them expanded in "
        f"{found.seconds:.2f} s ({expanded / max(found.seconds, 1e-9):,.0f} a second) on the compiled network"
    )


#: The room for states past ``max_states`` an exploration's arrays keep: the successors of the joint
#: moves in flight when the limit is reached.
HEADROOM = 1 << 14
#: The reason an exploration stopped at its time or state limit.
OUT_OF_BUDGET = "not solved within budget"


def memory_room() -> int | None:
    """The bytes the exploration may take where the process's address space is limited (as ``gdl``
    limits it): three quarters of what is left under the limit (an array may be copied as it grows);
    None when it is not limited."""
    left = address_space_left()
    return None if left is None else left * 3 // 4


def _too_large(found: Exploration) -> str:
    counted = ", counting them without their edges" if found.counting else ""
    return (
        f"not solved: more than {int(found.counters[STATES]):,} states, which would not fit in "
        f"{_size(found.memory)}{counted} (about {found.bytes_per_state():.0f} bytes a state)"
    )


def _edges_too_large(found: Exploration) -> str:
    states, edges = int(found.counters[STATES]), int(found.counters[EDGES])
    needed = states * found.bytes_per_capacity() + EDGE_BYTES * edges
    return (
        f"not solved: all {states:,} reachable states counted, but with the {edges:,} edges to them they "
        f"would not fit in {_size(found.memory)} (they need {_size(needed)}, "
        f"about {needed / max(states, 1):.0f} bytes a state)"
    )


def _size(memory: float) -> str:
    return f"{memory / 2**30:.1f} GiB" if memory >= 2**30 else f"{memory / 2**20:.1f} MiB"


def values(found: Exploration) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each state's values, line length and chosen joint move by backward induction in a turn-taking
    game without nature (in integers); None when a state repeats (some state is never valued)."""
    from gdl.retrograde_kernel import backward

    count = int(found.counters[STATES])
    roles = found.goals.shape[1]
    valued = np.zeros((count, roles), dtype=np.int16)
    length = np.zeros(count, dtype=np.int32)
    choice = np.zeros(count, dtype=np.int32)
    mover = np.argmax(found.legal_counts[:count] > 1, axis=1)  # the first role with a choice, or 0
    done = backward(
        count, found.child_start, found.children, found.terminal, found.goals, mover, valued, length, choice,
    )
    return None if done < count else (valued, length, choice)


def principal_variation(found: Exploration, chosen: Callable[[int], int]) -> list[dict[str, str]]:
    """The joint moves from the root when every role follows the chosen moves: ``chosen(s)`` is the
    number of the joint move taken in state ``s`` (as the kernels number them)."""
    game = found.game
    line: list[dict[str, str]] = []
    number = 0
    while not found.terminal[number]:
        state = found.state(number)
        legal = [state.legal_moves(role) for role in game.roles]
        joint = chosen(number)
        rest = joint
        picked: list[Any] = [None] * len(legal)
        for r in range(len(legal) - 1, -1, -1):
            picked[r] = legal[r][rest % len(legal[r])]
            rest //= len(legal[r])
        line.append({role: str(move) for role, move in zip(game.roles, picked, strict=True)})
        number = int(found.children[found.child_start[number] + joint])
    return line

