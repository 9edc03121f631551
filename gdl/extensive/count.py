"""The size of a GDL-II game's extensive form, counted without walking its histories (numba kernels
in :mod:`gdl.extensive.count_kernel`, on the game's compiled network as
:mod:`gdl.extensive.generate` uses it).

- :func:`count_tree`: nodes and terminals, over the reachable states: a state's subtree is the same
  wherever it is reached, so each state is counted once from its successors' counts;
- :func:`count_infosets`: one player's information sets, over the pairs of a view and a state the
  player may be in: each pair once.

Krieg-tictactoe's 16,363,068,211 nodes are counted over its 415,123 states in about a CPU-second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gdl.errors import ArraysUnsupportedError, GameTooLargeError, OutOfTimeError
from gdl.extensive.generate import DEFAULT_MEMORY, FIRST_CAPACITY, Network, grown, mib
from gdl.game import Game

#: States (or pairs of a view and a state) a call of a counting kernel finishes between two looks at
#: the clock.
COUNT_CHUNK = 5_000


@dataclass(frozen=True)
class TreeCount:
    """The size of a game's extensive form, counted over its states (:func:`count_tree`)."""

    nodes: int
    terminals: int
    #: The reachable states the count went through.
    states: int
    #: Whether the counts reached :data:`gdl.extensive.count_kernel.SATURATED` (at least that many).
    saturated: bool
    seconds: float


#: Bytes of a node in a :class:`GameTree`: its kind, first child, child count, information set and
#: legal moves; and of a terminal, besides: its chance denominator, and per player its goal and own
#: sequence.
NODE_BYTES = 1 + 8 + 4 + 4 + 4
TERMINAL_BYTES = 8
PLAYER_TERMINAL_BYTES = 2 + 8


def least_bytes(size: TreeCount, players: int) -> int:
    """The least memory the arrays of a tree of this size take (its views and information sets come on
    top)."""
    return size.nodes * NODE_BYTES + size.terminals * (TERMINAL_BYTES + players * PLAYER_TERMINAL_BYTES)


def count_tree(
    game: Game,
    *,
    seconds: float = float("inf"),
    memory: int = DEFAULT_MEMORY,
    max_steps: int = 1_000,
    progress: Callable[[int, float], None] | None = None,
) -> TreeCount:
    """The nodes and terminals of ``game``'s extensive form, counted without walking its histories:
    each reachable state once, its subtree's size summed from its successors' (the same wherever it is
    reached). Raises :class:`ArraysUnsupportedError` where the count cannot be made (no network, a play that
    repeats a state or passes ``max_steps``, rules that break GDL), :class:`GameTooLargeError` past
    ``memory`` bytes and :class:`OutOfTimeError` past ``seconds``; ``progress(states, seconds)``."""
    from gdl.extensive import count_kernel as kernel
    from gdl.extensive import generate_kernel as codes

    started = time.monotonic()
    setup = Network(game)
    roles = len(setup.net.roles)
    frames = max_steps + 1
    frame_state = setup.frames(frames)
    frame_legal = np.zeros((frames, roles, setup.most_legal), dtype=np.int64)
    frame_count = np.zeros((frames, roles), dtype=np.int64)
    frame_joint, frame_id, frame_nodes, frame_terminals = (np.zeros(frames, dtype=np.int64) for _ in range(4))
    words = (setup.state_bytes + 7) // 8
    capacity = FIRST_CAPACITY
    keys = np.zeros((capacity, words), dtype=np.int64)
    table = np.zeros(4 * capacity, dtype=np.int64)
    memo_nodes = np.zeros(capacity, dtype=np.int64)
    memo_terminals = np.zeros(capacity, dtype=np.int64)
    counters = np.zeros(3, dtype=np.int64)
    counters[kernel.STACK] = -1
    while True:
        status = kernel.count_histories(
            setup.state_sweep.tables, setup.next_sweep.tables, setup.legal_first, setup.legal_input,
            setup.input_bytes, max_steps, COUNT_CHUNK, counters, keys, table, memo_nodes, memo_terminals,
            frame_state, frame_legal, frame_count, frame_joint, frame_id, frame_nodes, frame_terminals,
        )
        states = int(counters[kernel.STATES])
        elapsed = time.monotonic() - started
        if progress is not None:
            progress(states, elapsed)
        if status == codes.DONE:
            break
        if status not in (codes.CHUNK, codes.GROW):
            raise ArraysUnsupportedError(f"status {status}")
        if elapsed > seconds:
            raise OutOfTimeError(
                f"game {game.name!r}: {states:,} states counted in {max(seconds, 0):.3g} s, and the count "
                "of its extensive form is not complete"
            )
        if status == codes.GROW:
            capacity *= 2
            keys = grown(keys, capacity)
            memo_nodes, memo_terminals = grown(memo_nodes, capacity), grown(memo_terminals, capacity)
            table = np.zeros(4 * capacity, dtype=np.int64)
            codes.rehash(keys, table, states)
            used = keys.nbytes + table.nbytes + memo_nodes.nbytes + memo_terminals.nbytes
            if used > memory:
                raise GameTooLargeError(
                    f"game {game.name!r}: more than {states:,} states, and counting its extensive form "
                    f"would pass {mib(memory)}"
                )
    root = int(frame_id[0])
    nodes, terminals = int(memo_nodes[root]), int(memo_terminals[root])
    saturated = max(nodes, terminals) >= kernel.SATURATED
    return TreeCount(nodes, terminals, int(counters[kernel.STATES]), saturated, time.monotonic() - started)


@dataclass(frozen=True)
class InfosetCount:
    """The information sets of one player (:func:`count_infosets`): all of them, or as many as were
    found when the time or the memory ran out (``stopped`` says which)."""

    infosets: int
    #: The pairs of a view and a state walked.
    pairs: int
    stopped: str = ""

    @property
    def complete(self) -> bool:
        return not self.stopped


def count_infosets(
    game: Game,
    player: str,
    *,
    seconds: float = float("inf"),
    memory: int = DEFAULT_MEMORY,
    max_steps: int = 1_000,
    progress: Callable[[int, float], None] | None = None,
) -> InfosetCount:
    """The information sets of ``player`` in ``game``'s extensive form, counted without walking its
    histories: the player's views are walked with the states each may be in, each (view, state) pair
    once; as many as were found when ``seconds`` or ``memory`` run out. Raises
    :class:`ArraysUnsupportedError` as :func:`count_tree`; ``progress(pairs, seconds)``."""
    from gdl.extensive import count_kernel as kernel
    from gdl.extensive import generate_kernel as codes

    started = time.monotonic()
    setup = Network(game)
    net = setup.net
    roles = len(net.roles)
    role = [str(r) for r in net.roles].index(player)
    sees = setup.sees
    sees_first = np.cumsum([0, *(len(e) for e in sees)]).astype(np.int64)
    frames = max_steps + 1
    frame_state = setup.frames(frames)
    frame_legal = np.zeros((frames, roles, setup.most_legal), dtype=np.int64)
    frame_count = np.zeros((frames, roles), dtype=np.int64)
    frame_joint, frame_view = np.zeros(frames, dtype=np.int64), np.zeros(frames, dtype=np.int64)
    widths = {
        "state": (setup.state_bytes + 7) // 8, "pair": 2, "view": 3,
        "percept": max(roles, *((len(e) + 63) // 64 for e in sees), 1),
        "legal": (setup.most_legal + 63) // 64, "set": 2,
    }
    keys = {name: np.zeros((FIRST_CAPACITY, width), dtype=np.int64) for name, width in widths.items()}
    tables = {name: np.zeros(4 * FIRST_CAPACITY, dtype=np.int64) for name in widths}
    field = {"state": kernel.PAIR_STATES, "pair": kernel.PAIRS, "view": codes.VIEWS,
             "percept": codes.PERCEPTS, "legal": codes.LEGALS, "set": codes.INFOSETS}
    counters = np.zeros(13, dtype=np.int64)
    counters[kernel.PAIR_STACK] = -1
    while True:
        status = kernel.count_infosets(
            setup.state_sweep.tables, setup.next_sweep.tables, setup.legal_first, setup.legal_input,
            sees_first, role, not game.has_percepts, setup.input_bytes, max_steps, COUNT_CHUNK, counters,
            keys["state"], tables["state"], keys["pair"], tables["pair"], keys["view"], tables["view"],
            keys["percept"], tables["percept"], keys["legal"], tables["legal"], keys["set"], tables["set"],
            frame_state, frame_legal, frame_count, frame_joint, frame_view,
        )
        pairs = int(counters[kernel.PAIRS])
        elapsed = time.monotonic() - started
        if progress is not None:
            progress(pairs, elapsed)
        found = int(counters[codes.INFOSETS])
        if status == codes.DONE:
            return InfosetCount(found, pairs)
        if status not in (codes.CHUNK, codes.GROW):
            raise ArraysUnsupportedError(f"status {status}")
        if elapsed > seconds:
            return InfosetCount(found, pairs, f"the time ran out ({max(seconds, 0):.3g} s)")
        if status == codes.GROW:
            for name in widths:
                count = int(counters[field[name]])
                if 2 * (count + 1) > len(keys[name]):
                    keys[name] = grown(keys[name], 2 * len(keys[name]))
                    tables[name] = np.zeros(4 * len(keys[name]), dtype=np.int64)
                    codes.rehash(keys[name], tables[name], count)
            used = sum(a.nbytes for a in keys.values()) + sum(a.nbytes for a in tables.values())
            if used > memory:
                return InfosetCount(found, pairs, f"the count would pass {mib(memory)}")


__all__ = ["COUNT_CHUNK", "InfosetCount", "TreeCount", "count_infosets", "count_tree", "least_bytes"]
