"""The extensive form of a GDL-II game generated on the compiled network, as arrays.

:func:`generate_tree` makes the same game as :func:`gdl.extensive.from_gdl.extensive_from_gdl` (the same
nodes in the same order, the same information sets, actions, probabilities and payoffs; see that module
for the rules of the unfolding) without a Python object per node: a numba kernel
(:mod:`gdl.extensive.generate_kernel`) walks the histories depth first on the game's propositional
network and writes a :class:`GameTree`. A player's information set is its view
(:meth:`gdl.views.View.information_state`: its own moves, what it was told after each, its legal moves
now), kept as numbers: a view is its previous view, its move and its percepts, interned in a hash table,
and an information set is a view and the legal moves. Their texts are made only when asked for
(:meth:`GameTree.infoset_key`).

Where the rules break GDL (no legal move, no goal), a play is too long, the goals are not constant-sum,
a player forgets, or the game has no network, there is nothing to gain from arrays: the
object-per-node import runs instead, and raises its error with its message.

**Memory.** A node costs 21 bytes (its kind, first child, child count, information set and legal moves),
a terminal 8 + 10 per player more, a view about 40 (:func:`gdl.extensive.count.least_bytes`); the
arrays double as they
fill, and the generation stops with :class:`~gdl.errors.GameTooLargeError` before they would pass
``memory`` bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from gdl.engines.base import goal_value
from gdl.engines.sweep import Sweep
from gdl.errors import ArraysUnsupportedError, GameTooLargeError, OutOfTimeError
from gdl.game import Game
from gdl.ground.grounding import term_of
from gdl.ground.propnet import FALSE

#: The memory the arrays of a generation may take by default, in bytes.
DEFAULT_MEMORY = 4 * 2**30
#: Nodes a call of the kernel walks between two looks at the clock (a few hundredths of a CPU-second).
CHUNK = 20_000
#: The first capacity of the arrays, in nodes.
FIRST_CAPACITY = 1 << 12

Ints = npt.NDArray[np.int64]


@dataclass(eq=False)
class GameTree:
    """A game tree as arrays (see the module docstring). Node 0 is the root; a node's children are
    ``first[n] .. first[n] + count[n] - 1``, in the order of its actions; a terminal's ``first`` is its
    row in ``goals``."""

    game: Game
    players: tuple[str, ...]
    #: Per node: :data:`TERMINAL`, :data:`CHANCE` or :data:`DECISION` (gdl.extensive.generate_kernel).
    kind: npt.NDArray[np.int8]
    first: Ints
    count: npt.NDArray[np.int32]
    #: Per node: its information set (decisions) or -1.
    infoset: npt.NDArray[np.int32]
    #: Per node: the number of the legal moves its role chooses from (-1 at terminals).
    node_legal: npt.NDArray[np.int32]
    #: Per terminal: each player's goal, each player's last own sequence (see :attr:`set_parent`),
    #: and the denominator of chance's probability of reaching it (chance is uniform).
    goals: npt.NDArray[np.int16]
    term_own: Ints
    term_den: Ints
    #: Per information set: its player, its number of actions, the player's sequence leading to it
    #: (``infoset * radix + action`` of its last own choice, or -1), its view and its legal moves.
    set_player: npt.NDArray[np.int8]
    set_count: npt.NDArray[np.int32]
    set_parent: Ints
    set_view: Ints
    set_legal: Ints
    #: How own sequences are numbered: ``infoset * radix + action``.
    radix: int
    #: Interned views (previous view, move input, percept row; roots ``(-1 - player, -1, -1)``),
    #: percept rows and legal rows (bits of the role's legal outputs).
    view_keys: Ints
    percept_keys: Ints
    legal_keys: Ints
    #: Steps (joint moves) of the longest play.
    deepest: int
    seconds: float
    _texts: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def nodes(self) -> int:
        return len(self.kind)

    @property
    def title(self) -> str:
        return self.game.name

    @cached_property
    def sizes(self) -> dict[str, int]:
        """Node counts: ``{"terminal": ..., "chance": ..., "decision": ...}``."""
        counts = np.bincount(self.kind, minlength=3)
        return {"terminal": int(counts[0]), "chance": int(counts[1]), "decision": int(counts[2])}

    @cached_property
    def constant(self) -> int | None:
        """The goals' common sum at every terminal, or None when they differ."""
        sums = self.goals.astype(np.int64).sum(axis=1)
        return int(sums[0]) if len(sums) and (sums == sums[0]).all() else None

    @property
    def goal_offset(self) -> Fraction:
        """Half the goals' constant sum with two players (0 with one): payoffs are goals minus it."""
        if len(self.players) == 1 or self.constant is None:
            return Fraction(0)
        return Fraction(self.constant, 2)

    def payoffs(self) -> npt.NDArray[np.float64]:
        """Per terminal and player: its payoff (goal minus :attr:`goal_offset`)."""
        return self.goals.astype(np.float64) - float(self.goal_offset)

    @property
    def nbytes(self) -> int:
        return sum(
            a.nbytes for a in (
                self.kind, self.first, self.count, self.infoset, self.node_legal, self.goals,
                self.term_own, self.term_den, self.set_player, self.set_count, self.set_parent,
                self.set_view, self.set_legal, self.view_keys, self.percept_keys, self.legal_keys,
            )
        )

    # Texts: made on demand, from the network's terms.

    def _role_of_node(self, node: int) -> int:
        game = self.game
        if self.kind[node] == CHANCE_KIND:
            return game.roles.index(game.chance_role or "")
        return game.roles.index(self.players[int(self.set_player[self.infoset[node]])])

    def actions(self, role: int, legal: int) -> tuple[str, ...]:
        """The action labels (moves' KIF text, in the order of the role's legal moves) of legal row
        ``legal`` of role ``role``."""
        key = (role, legal)
        cache = self._texts.setdefault("actions", {})
        found = cache.get(key)
        if found is None:
            texts = self._legal_texts[role]
            row = self.legal_keys[legal]
            found = cache[key] = tuple(
                texts[k] for k in range(len(texts)) if int(row[k >> 6]) >> (k & 63) & 1
            )
        return found  # type: ignore[no-any-return]

    def node_actions(self, node: int) -> tuple[str, ...]:
        return self.actions(self._role_of_node(node), int(self.node_legal[node]))

    def infoset_actions(self, number: int) -> tuple[str, ...]:
        role = self.game.roles.index(self.players[int(self.set_player[number])])
        return self.actions(role, int(self.set_legal[number]))

    @cached_property
    def _legal_texts(self) -> list[list[str]]:
        net = self.game.reasoner.net  # type: ignore[attr-defined]
        return [[str(term_of(move)) for move, _ in entries] for entries in net.legal]

    @cached_property
    def _move_texts(self) -> list[str]:
        net = self.game.reasoner.net  # type: ignore[attr-defined]
        return [str(term_of(move)) for _, move in net.moves]

    @cached_property
    def _move_roles(self) -> list[int]:
        net = self.game.reasoner.net  # type: ignore[attr-defined]
        return [int(role) for role, _ in net.moves]

    def _percepts(self, row: int, role: int) -> str:
        """The percepts of a percept row, as :meth:`View.information_state` shows them."""
        cache = self._texts.setdefault("percepts", {})
        key = (row, role)
        found = cache.get(key)
        if found is None:
            words = self.percept_keys[row]
            game = self.game
            if not game.has_percepts:  # told the joint move
                texts = [
                    f"(does {game.roles[self._move_roles[int(j)]]} {self._move_texts[int(j)]})"
                    for j in words if j >= 0
                ]
            else:
                net = game.reasoner.net  # type: ignore[attr-defined]
                entries = net.sees[role] if net.sees else ()
                texts = [
                    str(term_of(entries[k][0]))
                    for k in range(len(entries))
                    if int(words[k >> 6]) >> (k & 63) & 1
                ]
            found = cache[key] = "".join(" " + t for t in sorted(texts))
        return found  # type: ignore[no-any-return]

    def infoset_key(self, number: int) -> str:
        """The information set's key: its player's view as :meth:`View.information_state` writes it."""
        player = self.players[int(self.set_player[number])]
        role = self.game.roles.index(player)
        steps = []
        view = int(self.set_view[number])
        while True:
            parent, move, percepts = (int(x) for x in self.view_keys[view])
            if move < 0:
                break
            steps.append(f"(step {self._move_texts[move]} (seen{self._percepts(percepts, role)}))")
            view = parent
        legal = "".join(" " + t for t in sorted(self.infoset_actions(number)))
        return " ".join([f"(view {player}", *reversed(steps), f"(legal{legal}))"])


CHANCE_KIND = 1


def generate_tree(
    game: Game,
    *,
    max_nodes: int | None = None,
    seconds: float = float("inf"),
    memory: int = DEFAULT_MEMORY,
    max_steps: int = 1_000,
    progress: Callable[[int, float], None] | None = None,
) -> GameTree:
    """The extensive form of ``game`` as a :class:`GameTree` (see the module docstring).

    Raises :class:`ArraysUnsupportedError` where the object-per-node import must make it,
    :class:`~gdl.errors.GameTooLargeError` past ``max_nodes`` nodes or ``memory`` bytes, and
    :class:`~gdl.errors.OutOfTimeError` past ``seconds``; ``progress(nodes, seconds)`` is called after
    every chunk of nodes."""
    from gdl.extensive import generate_kernel as kernel

    started = time.monotonic()
    setup = Network(game)
    net = setup.net
    players = game.players
    roles = len(net.roles)
    legal_input, goal_values, legal_first, goal_first = (
        setup.legal_input, setup.goal_values, setup.legal_first, setup.goal_first
    )
    most_legal = setup.most_legal
    sees = setup.sees
    legal_words = (most_legal + 63) // 64
    percept_words = max(roles, *((len(e) + 63) // 64 for e in sees), 1)
    sees_first = np.cumsum([0, *(len(e) for e in sees)]).astype(np.int64)
    role_names = [str(r) for r in net.roles]
    player_role = np.asarray([role_names.index(p) for p in players], dtype=np.int64)
    role_player = np.full(roles, -1, dtype=np.int64)
    role_player[player_role] = np.arange(len(players))
    chance = role_names.index(game.chance_role) if game.chance_role in role_names else -1
    state_sweep, next_sweep = setup.state_sweep, setup.next_sweep
    frames = max_steps + 2
    radix = most_legal + 1
    headroom = frames * max(roles, 1)

    def table(rows: int) -> Ints:
        return np.zeros(1 << (2 * rows).bit_length(), dtype=np.int64)

    nodes_cap = FIRST_CAPACITY + most_legal + 1
    arrays: dict[str, np.ndarray] = {
        "kind": np.zeros(nodes_cap, dtype=np.int8),
        "first": np.zeros(nodes_cap, dtype=np.int64),
        "count": np.zeros(nodes_cap, dtype=np.int32),
        "infoset": np.zeros(nodes_cap, dtype=np.int32),
        "node_legal": np.full(nodes_cap, -1, dtype=np.int32),
        "goals": np.zeros((FIRST_CAPACITY, len(players)), dtype=np.int16),
        "term_own": np.zeros((FIRST_CAPACITY, len(players)), dtype=np.int64),
        "term_den": np.zeros(FIRST_CAPACITY, dtype=np.int64),
        "set_player": np.zeros(FIRST_CAPACITY, dtype=np.int8),
        "set_count": np.zeros(FIRST_CAPACITY, dtype=np.int32),
        "set_parent": np.zeros(FIRST_CAPACITY, dtype=np.int64),
        "set_keys": np.zeros((FIRST_CAPACITY, 2), dtype=np.int64),
        "view_keys": np.zeros((FIRST_CAPACITY + headroom, 3), dtype=np.int64),
        "percept_keys": np.zeros((FIRST_CAPACITY + headroom, percept_words), dtype=np.int64),
        "legal_keys": np.zeros((FIRST_CAPACITY + headroom, legal_words), dtype=np.int64),
    }
    tables = {
        "set_keys": table(FIRST_CAPACITY),
        "view_keys": table(FIRST_CAPACITY + headroom),
        "percept_keys": table(FIRST_CAPACITY + headroom),
        "legal_keys": table(FIRST_CAPACITY + headroom),
    }
    counted = {"set_keys": kernel.INFOSETS, "view_keys": kernel.VIEWS, "percept_keys": kernel.PERCEPTS,
               "legal_keys": kernel.LEGALS}
    frame_state = setup.frames(frames)
    frame_legal = np.zeros((frames, roles, most_legal), dtype=np.int64)
    frame_count = np.zeros((frames, roles), dtype=np.int64)
    frame_choice = np.zeros((frames, roles), dtype=np.int64)
    frame_view = np.zeros((frames, len(players)), dtype=np.int64)
    depth = frames * max(roles, 1) + 1
    open_node = np.zeros(depth, dtype=np.int64)
    open_frame = np.zeros(depth, dtype=np.int64)
    open_role = np.zeros(depth, dtype=np.int64)
    open_next = np.zeros(depth, dtype=np.int64)
    open_own = np.zeros((depth, len(players)), dtype=np.int64)
    open_den = np.zeros(depth, dtype=np.int64)
    counters = np.zeros(10, dtype=np.int64)
    counters[kernel.TOP] = -1
    input_bytes = setup.input_bytes
    limit = max_nodes if max_nodes is not None else 2**62

    def grow(name: str, rows: int) -> None:
        old = arrays[name]
        grown = np.zeros((rows, *old.shape[1:]), dtype=old.dtype)
        if name == "node_legal":
            grown[:] = -1
        grown[: len(old)] = old
        arrays[name] = grown
        if name in tables:
            tables[name] = table(rows)
            kernel.rehash(grown, tables[name], int(counters[counted[name]]))

    def used() -> int:
        return sum(a.nbytes for a in arrays.values()) + sum(t.nbytes for t in tables.values())

    while True:
        status = kernel.generate(
            state_sweep.tables, next_sweep.tables, legal_first, legal_input, goal_first, goal_values,
            sees_first, player_role, role_player, chance, not game.has_percepts, input_bytes, max_steps,
            radix, CHUNK, counters, arrays["kind"], arrays["first"], arrays["count"], arrays["infoset"],
            arrays["node_legal"], arrays["goals"], arrays["term_own"], arrays["term_den"],
            arrays["set_player"], arrays["set_count"], arrays["set_parent"], arrays["set_keys"],
            tables["set_keys"], arrays["view_keys"], tables["view_keys"], arrays["percept_keys"],
            tables["percept_keys"], arrays["legal_keys"], tables["legal_keys"], frame_state, frame_legal,
            frame_count, frame_choice, frame_view, open_node, open_frame, open_role, open_next, open_own,
            open_den,
        )
        nodes = int(counters[kernel.NODES])
        elapsed = time.monotonic() - started
        if progress is not None:
            progress(nodes, elapsed)
        if status == kernel.DONE:
            break
        if status not in (kernel.CHUNK, kernel.GROW):
            raise ArraysUnsupportedError(f"status {status}")
        if nodes > limit:
            raise GameTooLargeError(
                f"game {game.name!r} has more than {limit} nodes in extensive form"
            )
        if elapsed > seconds:
            raise OutOfTimeError(
                f"game {game.name!r}: {nodes} nodes explored in {max(seconds, 0):.3g} s, "
                "and the extensive form is not complete"
            )
        if status == kernel.GROW:
            wanted = {
                "kind": nodes + most_legal + 1,
                "term_den": int(counters[kernel.TERMINALS]) + 1,
                "set_player": int(counters[kernel.INFOSETS]) + 1,
                "view_keys": int(counters[kernel.VIEWS]) + headroom,
                "percept_keys": int(counters[kernel.PERCEPTS]) + headroom,
                "legal_keys": int(counters[kernel.LEGALS]) + headroom,
            }
            groups = {
                "kind": ("kind", "first", "count", "infoset", "node_legal"),
                "term_den": ("term_den", "goals", "term_own"),
                "set_player": ("set_player", "set_count", "set_parent", "set_keys"),
                "view_keys": ("view_keys",),
                "percept_keys": ("percept_keys",),
                "legal_keys": ("legal_keys",),
            }
            if 2 * used() > memory:  # growing doubles the arrays that are full
                raise GameTooLargeError(_too_large(game, nodes, 2 * used(), memory))
            for lead, rows in wanted.items():
                have = len(arrays[lead])
                full = rows > have or (lead in tables and 2 * rows > len(tables[lead]))
                if lead == "set_player":
                    full = full or 2 * rows > len(tables["set_keys"])
                if full:
                    for name in groups[lead]:
                        grow(name, max(2 * have, rows))
    sets = int(counters[kernel.INFOSETS])
    terminals = int(counters[kernel.TERMINALS])
    views = int(counters[kernel.VIEWS])
    found = GameTree(
        game, players,
        arrays["kind"][:nodes].copy(), arrays["first"][:nodes].copy(), arrays["count"][:nodes].copy(),
        arrays["infoset"][:nodes].copy(), arrays["node_legal"][:nodes].copy(),
        arrays["goals"][:terminals].copy(), arrays["term_own"][:terminals].copy(),
        arrays["term_den"][:terminals].copy(),
        arrays["set_player"][:sets].copy(), arrays["set_count"][:sets].copy(),
        arrays["set_parent"][:sets].copy(), arrays["set_keys"][:sets, 0].copy(),
        arrays["set_keys"][:sets, 1].copy(), radix, arrays["view_keys"][:views].copy(),
        arrays["percept_keys"][: int(counters[kernel.PERCEPTS])].copy(),
        arrays["legal_keys"][: int(counters[kernel.LEGALS])].copy(),
        int(counters[kernel.DEEPEST]), time.monotonic() - started,
    )
    if len(players) == 2 and found.constant is None:
        raise ArraysUnsupportedError("not constant-sum")
    return found


class Network:
    """What the kernels read of a game's network: its sweeps (the terminal test, legal moves and goals
    of a state; the successor and the percepts of a joint move) and the numbering of its outputs."""

    def __init__(self, game: Game) -> None:
        net = getattr(game.reasoner, "net", None)
        if net is None:
            raise ArraysUnsupportedError("the game has no network")
        if len(game.players) not in (1, 2):
            raise ArraysUnsupportedError("not one or two players")
        self.game = game
        self.net = net
        input_of = {move: j for j, move in enumerate(net.moves)}
        self.legal_input = np.asarray(
            [input_of.get((r, move), -1) for r, entries in enumerate(net.legal) for move, _ in entries],
            dtype=np.int64,
        )
        if (self.legal_input < 0).any():
            raise ArraysUnsupportedError("a legal move that is no input")
        values = [goal_value((term_of(v),)) for entries in net.goals for v, _ in entries]
        self.goal_values = np.asarray([-1 if v is None else v for v in values], dtype=np.int16)
        self.sees = net.sees if net.sees else tuple(() for _ in net.roles)
        legal_outputs = [node for entries in net.legal for _, node in entries]
        goal_outputs = [node for entries in net.goals for _, node in entries]
        sees_outputs = [node for entries in self.sees for _, node in entries]
        self.state_sweep = Sweep(net, [net.terminal, *legal_outputs, *goal_outputs])
        self.state_bytes = max(1, (len(net.fluents) + 7) // 8)
        # The successor's bits fill whole bytes, so that the percepts start at a byte.
        padding = [FALSE] * (8 * self.state_bytes - len(net.fluents))
        self.next_sweep = Sweep(net, [*net.next, *padding, *sees_outputs])
        self.legal_first = np.cumsum([0, *(len(e) for e in net.legal)]).astype(np.int64)
        self.goal_first = np.cumsum([0, *(len(e) for e in net.goals)]).astype(np.int64)
        self.most_legal = max(1, *(len(e) for e in net.legal))
        self.input_bytes = (len(net.moves) + 7) // 8

    def frames(self, count: int) -> npt.NDArray[np.uint8]:
        """Rows of states for a stack of ``count``, the initial state in the first."""
        rows = np.zeros((count, self.state_bytes), dtype=np.uint8)
        initial = int(self.game.reasoner.initial())
        rows[0] = np.frombuffer(initial.to_bytes(self.state_bytes, "little"), dtype=np.uint8)
        return rows


def grown(array: npt.NDArray[Any], rows: int) -> npt.NDArray[Any]:
    grown = np.zeros((rows, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _too_large(game: Game, nodes: int, used: int, memory: int) -> str:
    return (
        f"game {game.name!r} has more than {nodes:,} nodes in extensive form, and its arrays would pass "
        f"{mib(memory)} ({mib(used)} at {nodes:,} nodes)"
    )


def mib(size: int) -> str:
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.0f} MiB"


__all__ = ["DEFAULT_MEMORY", "ArraysUnsupportedError", "GameTree", "Network", "generate_tree"]
