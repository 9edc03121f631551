"""An immutable extensive-form game: a tree of chance, decision and terminal nodes.

>>> from fractions import Fraction
>>> from gdl.extensive.model import Chance, Decision, ExtensiveGame, Terminal
>>> def show(card):  # player 1 sees its card; player 2 does not, and guesses it
...     guess = lambda won: Terminal({"1": -1 if won else 1, "2": 1 if won else -1})
...     return Decision("1", f"1:{card}", ("show", "hide"), (
...         Terminal({"1": 0, "2": 0}),
...         Decision("2", "2:hidden", ("high", "low"), (guess(card == "high"), guess(card == "low")))))
>>> game = ExtensiveGame(("1", "2"), Chance(("high", "low"), (Fraction(1, 2), Fraction(1, 2)),
...                                          (show("high"), show("low"))), title="guess")
>>> sorted(game.infosets)
['1:high', '1:low', '2:hidden']
>>> game.infosets["2:hidden"]
InformationSet(key='2:hidden', player='2', actions=('high', 'low'))
>>> game.is_zero_sum()
True

The constructors, exactly:

- ``Terminal(payoffs)``: ``payoffs`` maps each player to its payoff (int, :class:`~fractions.Fraction`,
  or float; a float is taken as the decimal it prints as, so ``0.1`` is ``Fraction(1, 10)``). Stored
  as exact fractions, sorted by player name, so two terminals are equal when their payoffs are.
- ``Chance(actions, probabilities, children)``: nature's move; ``actions`` are distinct labels,
  ``probabilities`` exact fractions (ints or floats are converted as above) that are nonnegative and
  sum to exactly 1, ``children`` one node per action.
- ``Decision(player, infoset, actions, children)``: ``player`` (a name from the game's players) moves
  at information set ``infoset`` (a string, unique in the whole game: it identifies one set of one
  player) choosing among ``actions`` (distinct labels), ``children`` one node per action.
- ``ExtensiveGame(players, root, title="")``: players are named by strings (``"1"``, ``"2"``, or GDL
  roles); nature is not a player.

Constructing an :class:`ExtensiveGame` checks the whole tree and raises an
:class:`ExtensiveGameError` (a ``ValueError``) on the first problem found: a payoff for an unknown
player or a missing one, a decision by an unknown player, one information set used by two players or
with two different action lists (:class:`InformationSetError`), and imperfect recall
(:class:`ImperfectRecallError`): two histories in one information set along which its player's own
past, the information sets it acted in and the actions it chose there, differs. Histories are shown as
the action labels from the root.

A behaviour strategy (:data:`Strategy`) maps an information-set key to a mapping from its action
labels to probabilities; one mapping may hold the strategies of several players, since the keys are
unique across the game.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from gdl.deprecation import moved_names
from gdl.errors import ExtensiveGameError, ImperfectRecallError, InformationSetError

Number = int | float | Fraction
#: Information-set key -> action label -> probability (one or several players' behaviour strategies).
Strategy = Mapping[str, Mapping[str, float]]
#: The action labels from the root to a node.
History = tuple[str, ...]


def format_history(history: History) -> str:
    """A history as text: ``(deal JQ, check)``; the root is ``()``."""
    return "(" + ", ".join(history) + ")"


class Sequences:
    """Sequences of steps (a history, a player's own past) as numbers: extending one is one dictionary
    entry, and equal sequences have equal numbers, so a deep tree keeps one entry per node where
    tuples would copy the whole path at every node (a chain of 100,000 states took gigabytes)."""

    def __init__(self) -> None:
        self._numbers: dict[tuple[int, object], int] = {}
        self._links: list[tuple[int, object]] = [(0, None)]

    #: The empty sequence.
    EMPTY = 0

    def extend(self, sequence: int, step: object) -> int:
        """The number of ``sequence`` followed by ``step``."""
        key = (sequence, step)
        found = self._numbers.get(key)
        if found is None:
            found = self._numbers[key] = len(self._links)
            self._links.append(key)
        return found

    def steps(self, sequence: int) -> tuple[object, ...]:
        """The steps of a sequence, first to last."""
        found = []
        while sequence:
            sequence, step = self._links[sequence]
            found.append(step)
        return tuple(reversed(found))

    def history(self, sequence: int) -> History:
        """A sequence of action labels as a :data:`History`."""
        return tuple(str(step) for step in self.steps(sequence))


def to_fraction(value: Number) -> Fraction:
    """An exact fraction; a float is taken as the decimal it prints as (``0.1`` is ``1/10``)."""
    if isinstance(value, bool):
        raise ExtensiveGameError(f"not a number: {value!r}")
    if isinstance(value, numbers.Rational):
        return Fraction(value.numerator, value.denominator)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ExtensiveGameError(f"not a finite number: {value!r}")
        return Fraction(repr(number))
    raise ExtensiveGameError(f"not a number: {value!r}")


#: The largest denominator of a solver's value taken for the exact fraction it is close to.
EXACT_DENOMINATOR = 1000


def exact_fraction(value: float) -> Fraction | None:
    """The fraction of denominator at most :data:`EXACT_DENOMINATOR` that a solver's ``value`` is
    (within 1e-9, the solver's noise), or None when there is none."""
    close = Fraction(value).limit_denominator(EXACT_DENOMINATOR)
    return close if abs(float(close) - value) < 1e-9 else None


def tidy(value: float) -> float:
    """A solver's value as shown: the correctly rounded float of the exact fraction it is close to
    (``2123/420``, not the solver's 5.054761904761901), and never ``-0.0``."""
    close = exact_fraction(value)
    return (float(close) if close is not None else float(value)) + 0.0


def _distinct(labels: tuple[str, ...], what: str) -> None:
    if not labels:
        raise ExtensiveGameError(f"a {what} node needs at least one action")
    seen: set[str] = set()
    for label in labels:
        if not isinstance(label, str):
            raise ExtensiveGameError(f"an action label must be a string, not {label!r}")
        if label in seen:
            raise ExtensiveGameError(f"action {label!r} appears twice at one {what} node")
        seen.add(label)


@dataclass(frozen=True)
class Terminal:
    """The end of a play: a payoff per player (exact fractions, sorted by player name)."""

    payoffs: tuple[tuple[str, Fraction], ...]

    def __init__(self, payoffs: Mapping[str, Number] | Sequence[tuple[str, Number]]) -> None:
        items = payoffs.items() if isinstance(payoffs, Mapping) else payoffs
        pairs = tuple(sorted((str(player), to_fraction(value)) for player, value in items))
        if len({player for player, _ in pairs}) != len(pairs):
            raise ExtensiveGameError(f"a player has two payoffs at one terminal: {pairs!r}")
        object.__setattr__(self, "payoffs", pairs)

    def payoff(self, player: str) -> Fraction:
        """The payoff of ``player`` here."""
        for name, value in self.payoffs:
            if name == player:
                return value
        raise KeyError(player)

    def __repr__(self) -> str:
        shown = ", ".join(f"{player!r}: {str(value)!r}" for player, value in self.payoffs)
        return f"Terminal({{{shown}}})"


@dataclass(frozen=True)
class Chance:
    """Nature's move: each action happens with its exact probability."""

    actions: tuple[str, ...]
    probabilities: tuple[Fraction, ...]
    children: tuple[Node, ...]

    def __init__(
        self, actions: Sequence[str], probabilities: Sequence[Number], children: Sequence[Node]
    ) -> None:
        actions_ = tuple(actions)
        probabilities_ = tuple(to_fraction(p) for p in probabilities)
        children_ = tuple(children)
        _distinct(actions_, "chance")
        if not len(actions_) == len(probabilities_) == len(children_):
            raise ExtensiveGameError(
                f"a chance node has {len(actions_)} actions, {len(probabilities_)} probabilities "
                f"and {len(children_)} children"
            )
        if any(p < 0 for p in probabilities_):
            raise ExtensiveGameError(f"a negative chance probability in {[str(p) for p in probabilities_]}")
        if sum(probabilities_) != 1:
            raise ExtensiveGameError(
                f"chance probabilities {[str(p) for p in probabilities_]} sum to {sum(probabilities_)}, not 1"
            )
        object.__setattr__(self, "actions", actions_)
        object.__setattr__(self, "probabilities", probabilities_)
        object.__setattr__(self, "children", children_)

    @classmethod
    def uniform(cls, actions: Sequence[str], children: Sequence[Node]) -> Chance:
        """Each action with probability 1/n."""
        return cls(actions, [Fraction(1, len(actions))] * len(actions), children)


@dataclass(frozen=True)
class Decision:
    """A player's move at an information set."""

    player: str
    infoset: str
    actions: tuple[str, ...]
    children: tuple[Node, ...]

    def __init__(self, player: str, infoset: str, actions: Sequence[str], children: Sequence[Node]) -> None:
        actions_ = tuple(actions)
        children_ = tuple(children)
        _distinct(actions_, "decision")
        if len(actions_) != len(children_):
            raise ExtensiveGameError(
                f"information set {infoset!r}: {len(actions_)} actions but {len(children_)} children"
            )
        object.__setattr__(self, "player", str(player))
        object.__setattr__(self, "infoset", str(infoset))
        object.__setattr__(self, "actions", actions_)
        object.__setattr__(self, "children", children_)


Node = Terminal | Chance | Decision


@dataclass(frozen=True)
class InformationSet:
    """What a player cannot tell apart: its key, the player, and the actions available there."""

    key: str
    player: str
    actions: tuple[str, ...]


@dataclass(frozen=True)
class ExtensiveGame:
    """A checked game tree; see the module docstring for what the constructor checks."""

    players: tuple[str, ...]
    root: Node
    title: str = ""
    #: Every information set by key, in the order of a depth-first walk (children in action order).
    infosets: Mapping[str, InformationSet] = field(init=False, repr=False, compare=False)
    #: Node counts: ``{"terminal": ..., "chance": ..., "decision": ...}``.
    sizes: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        players = tuple(str(p) for p in self.players)
        if not players:
            raise ExtensiveGameError("a game needs at least one player")
        if len(set(players)) != len(players):
            raise ExtensiveGameError(f"a player is named twice in {players!r}")
        object.__setattr__(self, "players", players)
        infosets, sizes = _check(players, self.root)
        object.__setattr__(self, "infosets", infosets)
        object.__setattr__(self, "sizes", sizes)

    def __eq__(self, other: object) -> bool:
        """Same players, title and tree; compared without recursion, so deep trees compare too."""
        if not isinstance(other, ExtensiveGame):
            return NotImplemented
        if (self.players, self.title, self.sizes) != (other.players, other.title, other.sizes):
            return False
        pairs: list[tuple[Node, Node]] = [(self.root, other.root)]
        while pairs:
            mine, theirs = pairs.pop()
            if mine is theirs:
                continue
            if type(mine) is not type(theirs) or _fields(mine) != _fields(theirs):
                return False
            if not isinstance(mine, Terminal) and not isinstance(theirs, Terminal):
                pairs.extend(zip(mine.children, theirs.children, strict=True))
        return True

    def __hash__(self) -> int:
        return hash((self.players, self.title, tuple(self.sizes.items()), tuple(self.infosets.values())))

    def walk(self) -> Iterator[tuple[History, Node]]:
        """Every node with its history, depth first, children in action order."""
        stack: list[tuple[History, Node]] = [((), self.root)]
        while stack:
            history, node = stack.pop()
            yield history, node
            if not isinstance(node, Terminal):
                pairs = tuple(zip(node.actions, node.children, strict=True))
                stack.extend(((*history, a), c) for a, c in reversed(pairs))

    def infosets_of(self, player: str) -> tuple[InformationSet, ...]:
        """The information sets where ``player`` moves, in walk order."""
        return tuple(s for s in self.infosets.values() if s.player == player)

    def nodes(self) -> Iterator[Node]:
        """Every node, in the order of :meth:`walk`, without the histories (which cost a copy of the
        path at each node)."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            if not isinstance(node, Terminal):
                stack.extend(reversed(node.children))

    def constant_sum(self) -> Fraction | None:
        """The sum of payoffs common to every terminal, or None if they differ."""
        distinct = {node.payoffs for node in self.nodes() if isinstance(node, Terminal)}
        sums = {sum((value for _, value in payoffs), Fraction(0)) for payoffs in distinct}
        return sums.pop() if len(sums) == 1 else None

    def is_zero_sum(self) -> bool:
        """Whether the payoffs sum to zero at every terminal."""
        return self.constant_sum() == 0


def _fields(node: Node) -> tuple[object, ...]:
    """A node's own fields, without its children."""
    if isinstance(node, Terminal):
        return (node.payoffs,)
    if isinstance(node, Chance):
        return (node.actions, node.probabilities)
    return (node.player, node.infoset, node.actions)


def _check(players: tuple[str, ...], root: Node) -> tuple[dict[str, InformationSet], dict[str, int]]:
    """Check the tree (see the module docstring); return its information sets and node counts."""
    known = set(players)
    infosets: dict[str, InformationSet] = {}
    # Histories and the players' own pasts (the information sets each acted in and what it chose
    # there) are numbered sequences: tuples of them would copy the path at every node.
    sequences = Sequences()
    # infoset key -> (a history reaching it, the player's own past along it)
    pasts: dict[str, tuple[int, int]] = {}
    sizes = {"terminal": 0, "chance": 0, "decision": 0}
    # Depth first, children in action order. Each entry: node, its history, and each player's own past.
    stack: list[tuple[Node, int, dict[str, int]]] = [(root, Sequences.EMPTY, {})]

    def shown(history: int) -> str:
        return format_history(sequences.history(history))

    while stack:
        node, history, own = stack.pop()
        if isinstance(node, Terminal):
            sizes["terminal"] += 1
            named = {player for player, _ in node.payoffs}
            if named != known:
                raise ExtensiveGameError(
                    f"terminal at {shown(history)} has payoffs for {sorted(named)}, "
                    f"but the players are {list(players)}"
                )
            continue
        if isinstance(node, Chance):
            sizes["chance"] += 1
            pairs = tuple(zip(node.actions, node.children, strict=True))
            stack.extend((child, sequences.extend(history, a), own) for a, child in reversed(pairs))
            continue
        if not isinstance(node, Decision):
            raise ExtensiveGameError(f"not a node at {shown(history)}: {node!r}")
        sizes["decision"] += 1
        if node.player not in known:
            raise ExtensiveGameError(
                f"decision at {shown(history)} by unknown player {node.player!r} "
                f"(the players are {list(players)})"
            )
        found = infosets.get(node.infoset)
        past = own.get(node.player, Sequences.EMPTY)
        if found is None:
            infosets[node.infoset] = InformationSet(node.infoset, node.player, node.actions)
            pasts[node.infoset] = (history, past)
        else:
            first = pasts[node.infoset][0]
            if found.player != node.player:
                raise InformationSetError(
                    f"information set {node.infoset!r} is player {found.player!r}'s at "
                    f"{shown(first)} but player {node.player!r}'s at {shown(history)}"
                )
            if found.actions != node.actions:
                raise InformationSetError(
                    f"information set {node.infoset!r} has actions {list(found.actions)} at "
                    f"{shown(first)} but {list(node.actions)} at {shown(history)}"
                )
            if pasts[node.infoset][1] != past:
                raise ImperfectRecallError(
                    node.infoset, node.player, sequences.history(first), sequences.history(history)
                )
        for action, child in reversed(tuple(zip(node.actions, node.children, strict=True))):
            mine = sequences.extend(past, (node.infoset, action))
            stack.append((child, sequences.extend(history, action), {**own, node.player: mine}))
    return infosets, sizes


moved_names(__name__, "gdl.errors", "ExtensiveGameError", "InformationSetError", "ImperfectRecallError")
