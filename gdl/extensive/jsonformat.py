"""The JSON format for two-player zero-sum games with chance and hidden information.

The format is the one of ``../shared/json-games`` (Mike Peters, 2021, Apache License 2.0; its schema
ships beside this module as ``json-game.schema.json``). A game names its ``start`` state and lists its
``states``: a chance state (``"player": "chance"``) picks one of its ``actions`` uniformly at random; a
decision state (``"player": 1`` or ``2``) is in the information set of that player and its
``knowledge`` string; a terminal state has a ``result``, player 1's payoff (player 2 gets its
negation). An action is an object ``{"label": "next state's name"}``.

Reading gives an :class:`~gdl.extensive.model.ExtensiveGame` with players ``"1"`` and ``"2"``;
the information-set key of player ``p`` knowing ``k`` is ``"p:k"``. A state reached along several
paths is copied for each (the model is a tree), so the number of nodes is bounded (``max_nodes``).

>>> game = read_json_game('''{"start": "pick", "states": [
...   {"name": "pick", "player": 1, "knowledge": "", "actions": [{"heads": "h"}, {"tails": "t"}]},
...   {"name": "h", "result": 1}, {"name": "t", "result": -1}]}''')
>>> game.players, list(game.infosets)
(('1', '2'), ['1:'])

What the schema cannot see is checked too, and every problem is reported at once, each with its JSON
path and the names involved:

>>> read_json_game('''{"start": "a", "states": [{"name": "a", "player": "chance", "actions": [{"x": "b"}]},
...   {"name": "a", "result": 1}, {"name": "c", "result": 2}]}''')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gdl.errors.JsonGameError: <json>: states[0].actions[0]: error: action 'x' of state 'a' leads...
<json>: states[1].name: error: state name 'a' is already the name of states[0]
<json>: states[2]: error: state 'c' cannot be reached from the start 'a'

:func:`write_json_game` writes any two-player zero-sum game with integer payoffs whose chance
moves are uniform (the only chance the format has).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from gdl.deprecation import moved_names
from gdl.errors import ExtensiveGameError, JsonGameError, JsonProblem, JsonWriteError, UnreadableFileError
from gdl.extensive.json_schema_check import json_path, schema_problems, short_repr
from gdl.extensive.jsonwrite import PLAYERS, write_json_game
from gdl.extensive.model import (
    Chance,
    Decision,
    ExtensiveGame,
    Node,
    Sequences,
    Terminal,
    format_history,
)
from gdl.files import read_text_file

__all__ = [
    "JsonGameError",
    "JsonProblem",
    "JsonWriteError",
    "game_from_json",
    "json_path",
    "parse_json_game",
    "read_json_game",
    "write_json_game",
]

#: The tree built from a game (shared states copied per path) may have at most this many nodes.
DEFAULT_MAX_NODES = 500_000
#: At most this many problems are listed; the rest are counted.


def read_json_game(source: str | Path, *, max_nodes: int = DEFAULT_MAX_NODES) -> ExtensiveGame:
    """The game in a JSON file (a :class:`~pathlib.Path`) or JSON text (a ``str``).

    Raises :class:`JsonGameError` listing every problem, each with its JSON path."""
    if isinstance(source, Path):
        return parse_json_game(_read_file(source), str(source), max_nodes=max_nodes)
    return parse_json_game(source, max_nodes=max_nodes)


def parse_json_game(text: str, name: str = "<json>", *, max_nodes: int = DEFAULT_MAX_NODES) -> ExtensiveGame:
    """The game in JSON ``text``; ``name`` (the file's) starts each line of a :class:`JsonGameError`."""
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except _NotANumber as problem:
        raise JsonGameError([JsonProblem("$", str(problem))], name) from None
    except json.JSONDecodeError as problem:
        raise JsonGameError(
            [JsonProblem(f"line {problem.lineno} column {problem.colno}", f"not JSON: {problem.msg}")], name
        ) from None
    except (ValueError, RecursionError) as problem:  # a huge integer literal, nesting too deep
        raise JsonGameError([JsonProblem("$", f"not usable JSON: {problem}")], name) from None
    return game_from_json(document, source=name, max_nodes=max_nodes)


class _NotANumber(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's json reads them, but they are not JSON."""


def _no_constant(name: str) -> Any:
    raise _NotANumber(f"not JSON: {name} is not a number JSON has")


def _read_file(path: Path) -> str:
    try:
        return read_text_file(path)
    except UnreadableFileError as problem:
        reason = f"cannot read the file: {problem.reason}"
        raise JsonGameError([JsonProblem("$", reason)], str(path)) from None


def game_from_json(
    document: Any, *, source: str = "<json>", max_nodes: int = DEFAULT_MAX_NODES
) -> ExtensiveGame:
    """The game in an already parsed JSON document (see :func:`read_json_game`)."""
    try:
        problems = _control_characters(document) + schema_problems(document)
        structure = _Structure(document)
        problems += structure.problems
        root: Node | None = None
        if not problems:
            root, recall = structure.build(max_nodes)
            problems += recall
        if problems or root is None:
            raise JsonGameError(_in_document_order(problems), source)
        title = document.get("name", "")
        return ExtensiveGame(PLAYERS, root, title=title)
    except RecursionError:
        raise JsonGameError([JsonProblem("$", "nested too deeply")], source) from None
    except JsonGameError:
        raise
    except ExtensiveGameError as problem:  # a rule of the model the checks above missed
        raise JsonGameError([JsonProblem("$", str(problem))], source) from None


# --- what the schema cannot see ------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The largest result: payoffs are solved in floating point, where larger integers are not exact.
MAX_RESULT = 2**53


def _control_characters(document: Any) -> list[JsonProblem]:
    """A problem for each string (names, labels, knowledge, keys) holding a control character: gdl
    prints them, and an escape sequence must not reach a terminal."""
    problems = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if _CONTROL.search(key):
                    message = f"the key {short_repr(key)} holds a control character"
                    problems.append(JsonProblem(json_path(path), message))
                stack.append((item, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, (*path, index)) for index, item in enumerate(value))
        elif isinstance(value, str) and _CONTROL.search(value):
            problems.append(JsonProblem(json_path(path), f"{short_repr(value)} holds a control character"))
    return problems



@dataclass(frozen=True)
class _Action:
    label: str
    target: str
    path: str


@dataclass(frozen=True)
class _State:
    index: int
    name: str
    player: str | None  # "1", "2", or None for chance and terminal states
    knowledge: str
    actions: tuple[_Action, ...] | None  # None for a terminal state
    result: Fraction | None

    @property
    def path(self) -> str:
        return f"states[{self.index}]"


def _player(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in (1, 2):
        return None
    return str(int(value))


class _Structure:
    """The states of a document and what is wrong with their links (schema problems aside)."""

    def __init__(self, document: Any) -> None:
        self.problems: list[JsonProblem] = []
        self.states: dict[str, _State] = {}
        raw = document.get("states") if isinstance(document, dict) else None
        items = raw if isinstance(raw, list) else []
        # every name, even of a state the schema rejects: a link to it is not broken
        self.names = {
            item["name"] for item in items if isinstance(item, dict) and isinstance(item.get("name"), str)
        }
        for index, item in enumerate(items):
            state = self._state(index, item)
            if state is None:
                continue
            first = self.states.get(state.name)
            if first is not None:
                self._problem(
                    f"{state.path}.name", f"state name {state.name!r} is already the name of {first.path}"
                )
                continue
            self.states[state.name] = state
        self.start = self._start(document)
        self._links()
        if self.start is not None:
            self._reachable_and_acyclic()
        self.infosets: dict[tuple[str, str], _State] = {}
        self._information_sets()

    def _problem(self, path: str, message: str) -> None:
        self.problems.append(JsonProblem(path, message))

    def _state(self, index: int, item: Any) -> _State | None:
        """A state of the document, or None when the schema has already said what is wrong."""
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        path = f"states[{index}]"
        if "result" in item:
            result = item["result"]
            if isinstance(result, bool) or not isinstance(result, int | float):
                return None
            if not -MAX_RESULT <= result <= MAX_RESULT:  # also NaN and the infinity 1e400 is read as
                message = f"the result {short_repr(result)} is not from {-MAX_RESULT} to {MAX_RESULT}"
                self._problem(f"{path}.result", message)
                return None
            if result != int(result):
                return None
            return _State(index, item["name"], None, "", None, Fraction(int(result)))
        player = item.get("player")
        listed = item.get("actions")
        if not isinstance(listed, list) or (player != "chance" and _player(player) is None):
            return None
        knowledge = item.get("knowledge", "")
        if not isinstance(knowledge, str):
            return None
        actions = []
        seen: dict[str, int] = {}
        for number, entry in enumerate(listed):
            where = f"{path}.actions[{number}]"
            if not isinstance(entry, dict) or len(entry) != 1:
                count = len(entry) if isinstance(entry, dict) else 0
                self._problem(
                    where, f"an action is an object with one entry, label: next state ({count} here)"
                )
                continue
            ((label, target),) = entry.items()
            if not isinstance(target, str):
                self._problem(where, f"action {label!r} leads to {short_repr(target)}, not to a state name")
                continue
            if label in seen:
                self._problem(
                    where, f"state {item['name']!r} has action {label!r} twice (also actions[{seen[label]}])"
                )
                continue
            seen[label] = number
            actions.append(_Action(label, target, where))
        if not listed:
            self._problem(f"{path}.actions", f"state {item['name']!r} has no actions")
        return _State(index, item["name"], _player(player), knowledge, tuple(actions), None)

    def _start(self, document: Any) -> _State | None:
        if not isinstance(document, dict):
            return None
        start = document.get("start")
        if start is None:
            self._problem("start", "no start state: the game must name the state it starts in")
            return None
        if not isinstance(start, str):
            return None  # the schema said so
        state = self.states.get(start)
        if state is None:
            self._problem("start", f"the start {start!r} is no state")
        return state

    def _links(self) -> None:
        for state in self.states.values():
            for action in state.actions or ():
                if action.target not in self.names:
                    self._problem(
                        action.path,
                        f"action {action.label!r} of state {state.name!r} leads to {action.target!r}, "
                        "which is no state",
                    )

    def _reachable_and_acyclic(self) -> None:
        """Depth first from the start: each edge back to a state on the path closes a cycle."""
        assert self.start is not None
        on_path: dict[str, int] = {}  # name -> position on the current path
        path: list[str] = []
        done: set[str] = set()
        stack: list[tuple[_State, int]] = [(self.start, 0)]
        on_path[self.start.name] = 0
        path.append(self.start.name)
        while stack:
            state, next_action = stack[-1]
            actions = state.actions or ()
            if next_action == len(actions):
                stack.pop()
                path.pop()
                del on_path[state.name]
                done.add(state.name)
                continue
            stack[-1] = (state, next_action + 1)
            action = actions[next_action]
            if action.target not in self.states:
                continue  # a broken link or a malformed state, already reported
            if action.target in on_path:
                self._problem(
                    action.path,
                    f"action {action.label!r} of state {state.name!r} closes a cycle: "
                    + _cycle(path, on_path[action.target]),
                )
            elif action.target not in done:
                target = self.states[action.target]
                on_path[target.name] = len(path)
                path.append(target.name)
                stack.append((target, 0))
        for state in self.states.values():
            if state.name not in done:
                self._problem(
                    state.path, f"state {state.name!r} cannot be reached from the start {self.start.name!r}"
                )

    def _information_sets(self) -> None:
        """The states of one information set offer the same action labels (in any order)."""
        for state in self.states.values():
            if state.player is None or state.actions is None:
                continue
            key = (state.player, state.knowledge)
            first = self.infosets.setdefault(key, state)
            mine = sorted(a.label for a in state.actions)
            theirs = sorted(a.label for a in first.actions or ())
            if mine != theirs:
                self._problem(
                    state.path,
                    f"states {first.name!r} and {state.name!r} are one information set of player "
                    f"{state.player} (knowledge {state.knowledge!r}) but offer different actions: "
                    f"{theirs} and {mine}",
                )

    def _tree_size(self, limit: int) -> int:
        """Nodes of the tree the states unfold into (capped just past ``limit``)."""
        assert self.start is not None
        sizes: dict[str, int] = {}
        stack = [self.start]
        while stack:
            state = stack[-1]
            pending = [self.states[a.target] for a in state.actions or () if a.target not in sizes]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            sizes[state.name] = min(limit + 1, 1 + sum(sizes[a.target] for a in state.actions or ()))
        return sizes[self.start.name]

    def build(self, max_nodes: int) -> tuple[Node | None, list[JsonProblem]]:
        """The game tree, or the imperfect-recall problems that forbid it (structure already sound)."""
        assert self.start is not None
        size = self._tree_size(max_nodes)
        if size > max_nodes:
            message = (
                f"the game unfolds into more than {max_nodes} nodes (a state reached along several paths "
                "is copied for each)"
            )
            return None, [JsonProblem("states", message)]
        return _Builder(self).run()


class _Builder:
    """Unfolds the states into a tree, checking perfect recall on the way. Histories and the players'
    own pasts (pairs of knowledge and action label) are numbered :class:`Sequences`."""

    def __init__(self, structure: _Structure) -> None:
        self.structure = structure
        self.sequences = Sequences()
        # information set -> the first state, history and own past that reached it
        self.first: dict[tuple[str, str], tuple[_State, int, int]] = {}
        self.reported: set[tuple[str, str]] = set()
        self.problems: list[JsonProblem] = []

    def run(self) -> tuple[Node | None, list[JsonProblem]]:
        start = self.structure.start
        assert start is not None
        sequences = self.sequences
        # Post-order without recursion: (state, history, pasts, built children or None).
        built: list[Node] = []
        stack: list[tuple[_State, int, dict[str, int], bool]] = [(start, Sequences.EMPTY, {}, False)]
        while stack:
            state, history, pasts, expanded = stack.pop()
            if state.actions is None:
                assert state.result is not None
                built.append(Terminal({"1": state.result, "2": -state.result}))
                continue
            actions = self._ordered(state)
            if expanded:
                children = built[len(built) - len(actions) :]
                del built[len(built) - len(actions) :]
                built.append(self._node(state, actions, children))
                continue
            self._check_recall(state, history, pasts)
            stack.append((state, history, pasts, True))
            for action in reversed(actions):
                child_pasts = pasts
                if state.player is not None:
                    past = pasts.get(state.player, Sequences.EMPTY)
                    own = sequences.extend(past, (state.knowledge, action.label))
                    child_pasts = {**pasts, state.player: own}
                target = self.structure.states[action.target]
                stack.append((target, sequences.extend(history, action.label), child_pasts, False))
        if self.problems:
            return None, self.problems
        (root,) = built
        return root, []

    def _ordered(self, state: _State) -> tuple[_Action, ...]:
        """The actions in the order of the first state of the information set (the model wants one)."""
        assert state.actions is not None
        if state.player is None:
            return state.actions
        first = self.structure.infosets[(state.player, state.knowledge)]
        order = {a.label: i for i, a in enumerate(first.actions or ())}
        return tuple(sorted(state.actions, key=lambda a: order[a.label]))

    @staticmethod
    def _node(state: _State, actions: tuple[_Action, ...], children: Sequence[Node]) -> Node:
        labels = [a.label for a in actions]
        if state.player is None:
            return Chance.uniform(labels, children)
        return Decision(state.player, f"{state.player}:{state.knowledge}", labels, children)

    def _shown(self, history: int) -> str:
        return format_history(self.sequences.history(history))

    def _check_recall(self, state: _State, history: int, pasts: Mapping[str, int]) -> None:
        if state.player is None:
            return
        key = (state.player, state.knowledge)
        past = pasts.get(state.player, Sequences.EMPTY)
        first = self.first.setdefault(key, (state, history, past))
        if first[2] != past and key not in self.reported:
            self.reported.add(key)
            self.problems.append(
                JsonProblem(
                    state.path,
                    f"imperfect recall: player {state.player} cannot tell {first[0].name!r} at "
                    f"{self._shown(first[1])} from {state.name!r} at {self._shown(history)} "
                    f"(knowledge {state.knowledge!r}), but its own moves before them differ",
                )
            )


#: The states of a cycle named in full up to this many; a longer one by its first and last ones.
CYCLE_SHOWN = 8


def _cycle(path: list[str], start: int) -> str:
    """The cycle from ``path[start]`` to the end of ``path`` and back. A long one is shortened: twenty
    thousand cycles along one path, each named in full, made gigabytes of messages."""
    length = len(path) - start
    if length <= CYCLE_SHOWN:
        names = [repr(name) for name in path[start:]]
    else:
        half = CYCLE_SHOWN // 2
        names = [
            *map(repr, path[start : start + half]), f"... ({length - CYCLE_SHOWN} more)",
            *map(repr, path[len(path) - half :]),
        ]
    return " -> ".join([*names, repr(path[start])])


def _in_document_order(problems: list[JsonProblem]) -> list[JsonProblem]:
    """Problems sorted by where they are: ``$`` and top-level keys first, then states by index."""

    def key(problem: JsonProblem) -> tuple[int, int, str]:
        path = problem.path
        if path.startswith("states["):
            number = path[len("states[") : path.index("]")]
            return (1, int(number), path)
        return (0, 0, path)

    return sorted(problems, key=key)


moved_names(__name__, "gdl.errors", "JsonGameError", "JsonProblem")
