"""Gambit's extensive-form text format (``.efg``), read and written.

>>> from gdl.extensive.gambit import read_efg, write_efg
>>> game = read_efg('''EFG 2 R "pennies" { "Player 1" "Player 2" }
... ""
... p "" 1 1 "mine" { "H" "T" } 0
... p "" 2 1 "yours" { "h" "t" } 0
... t "" 1 "win" { 1, -1 }
... t "" 2 "lose" { -1, 1 }
... p "" 2 1 { "h" "t" } 0
... t "" 2
... t "" 1
... ''')
>>> game.players, list(game.infosets)
(('Player 1', 'Player 2'), ['mine', 'yours'])
>>> print(write_efg(game), end="")
EFG 2 R "pennies" { "Player 1" "Player 2" }
""
p "" 1 1 "mine" { "H" "T" } 0
p "" 2 1 "yours" { "h" "t" } 0
t "" 1 "" { 1, -1 }
t "" 2 "" { -1, 1 }
p "" 2 1 "yours" { "h" "t" } 0
t "" 2 "" { -1, 1 }
t "" 1 "" { 1, -1 }

The format (Gambit's documentation, "The extensive game (.efg) file format"): a prologue ``EFG 2 R
"title" { "player" ... }`` with an optional comment string, then one entry per node in prefix order,
children in the order of their parent's actions:

- ``c "node" INFOSET ["infoset name"] [{ "action" PROBABILITY ... }] OUTCOME`` (chance),
- ``p "node" PLAYER INFOSET ["infoset name"] [{ "action" ... }] OUTCOME`` (a player's move),
- ``t "node" OUTCOME`` (terminal),

where ``OUTCOME`` is 0 (none) or a number optionally followed by its name and, the first time it
appears, its payoffs ``{ p1, p2, ... }`` (commas optional). An information set's action list may be
left out after its first node. Numbers are integers, decimals or rationals ``n/d``; all are read
exactly. Outcomes at chance and player nodes are added to the payoffs of every terminal below them,
as Gambit does.

Mapping to :class:`~gdl.extensive.model.ExtensiveGame`: players keep the names in the prologue (a
player without a unique, nonempty name is called by its number); an information set's key is its name
when that name is nonempty and names no other information set, and ``"PLAYER:NUMBER"`` otherwise;
node names, outcome names and the comment are not kept. Empty or repeated action labels within one
information set are renamed by their position (``"action 2"``), since the model needs distinct ones.

Writing numbers each player's information sets 1, 2, ... in walk order (as OpenSpiel requires), names
them by their keys, gives every terminal its payoffs (as OpenSpiel requires; outcome numbers stand for
distinct payoff vectors) and writes probabilities and payoffs as exact rationals. Chance probabilities
must sum to exactly 1: a file of rounded decimals (``0.333333`` three times) is rejected with that
advice rather than silently renormalised.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from gdl.deprecation import moved_names
from gdl.errors import EfgError, ExtensiveGameError, ImperfectRecallError
from gdl.extensive.model import Chance, Decision, ExtensiveGame, History, Node, Terminal
from gdl.files import read_text_file

_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[{},]|[^\s{}",]+)', re.DOTALL)
_NUMBER = re.compile(r"[+-]?\d+/\d+|[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
#: Bounds on a number's text and decimal exponent: a file is data, and 1e999999999 would be a
#: billion-digit integer.
MAX_NUMBER_LENGTH = 200
MAX_EXPONENT = 400
#: The largest magnitude of a number: payoffs are solved in floating point, where 1e400 is infinite.
MAX_MAGNITUDE = 2**53
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_INTEGER = re.compile(r"\d+")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


class _Token(NamedTuple):
    text: str
    start: int  # offset of the token in the text
    end: int
    quoted: bool


def _tokens(text: str, file: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    for match in _TOKEN.finditer(text):
        if match.start() != position:  # only a quote without its closing quote matches nothing
            break
        chunk, position = match.group(1), match.end()
        if chunk.startswith('"'):
            inner = chunk[1:-1]
            inner = _ESCAPE.sub(r"\1", inner) if "\\" in inner else inner
            tokens.append(_Token(inner, match.start(1), position, True))
        else:
            tokens.append(_Token(chunk, match.start(1), position, False))
    rest = len(text[position:]) - len(text[position:].lstrip())
    if position + rest != len(text):
        raise EfgError("unterminated string", *_line_column(text, position + rest), file)
    if not tokens:
        raise EfgError("empty file, expected 'EFG 2 R'", 1, 1, file)
    return tokens


def _line_column(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


@dataclass
class _Raw:
    """A node as read, before information-set keys are known."""

    kind: str
    token: _Token
    actions: tuple[str, ...] = ()
    probabilities: tuple[Fraction, ...] = ()
    player: int = 0
    infoset: int = 0
    payoffs: tuple[Fraction, ...] = ()
    children: list[_Raw] = field(default_factory=list)


class _Reader:
    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.tokens = _tokens(text, file)
        self.index = 0
        self.players: tuple[str, ...] = ()
        self.outcomes: dict[int, tuple[Fraction, ...]] = {}
        self.numbers: dict[str, Fraction] = {}
        self.infoset_names: dict[tuple[int, int], tuple[str, _Token]] = {}
        self.infoset_actions: dict[tuple[int, int], tuple[tuple[str, ...], tuple[Fraction, ...], _Token]] = {}

    def error(self, message: str, token: _Token | None = None) -> EfgError:
        token = token or self.peek()
        return EfgError(message, *_line_column(self.text, token.start), self.file)

    def line(self, token: _Token) -> int:
        return _line_column(self.text, token.start)[0]

    def peek(self) -> _Token:
        if self.index < len(self.tokens):
            return self.tokens[self.index]
        end = self.tokens[-1].end
        return _Token("", end, end, False)

    def at_end(self) -> bool:
        return self.index >= len(self.tokens)

    def next(self, what: str) -> _Token:
        if self.at_end():
            raise self.error(f"unexpected end of file, expected {what}")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, text: str) -> _Token:
        token = self.next(repr(text))
        if token.quoted or token.text != text:
            raise self.error(f"expected {text!r}, found {_show(token)}", token)
        return token

    def string(self, what: str) -> str:
        token = self.next(what)
        if not token.quoted:
            raise self.error(f"expected {what} (a quoted string), found {_show(token)}", token)
        return token.text

    def name(self, what: str) -> str:
        """A quoted string that gdl keeps and prints (a title, a player, an information set, an action):
        without control characters, which must not reach a terminal."""
        token = self.peek()
        text = self.string(what)
        if _CONTROL.search(text):
            raise self.error(f"{what} {text!r} holds a control character", token)
        return text

    def peek_string(self) -> bool:
        return not self.at_end() and self.peek().quoted

    def peek_symbol(self, text: str) -> bool:
        return not self.at_end() and not self.peek().quoted and self.peek().text == text

    def integer(self, what: str) -> int:
        token = self.next(what)
        if token.quoted or not _INTEGER.fullmatch(token.text):
            raise self.error(f"expected {what} (a whole number), found {_show(token)}", token)
        if len(token.text) > MAX_NUMBER_LENGTH:
            raise self.error(f"{what} has more than {MAX_NUMBER_LENGTH} digits", token)
        return int(token.text)

    def number(self, what: str) -> Fraction:
        token = self.next(what)
        known = self.numbers.get(token.text)
        if known is not None and not token.quoted:
            return known
        match = None if token.quoted else _NUMBER.fullmatch(token.text)
        if match is None:
            found = _show(token)
            raise self.error(f"expected {what} (a number such as 2, -0.5 or 1/3), found {found}", token)
        if len(token.text) > MAX_NUMBER_LENGTH or abs(int(match.group(1) or 0)) > MAX_EXPONENT:
            raise self.error(
                f"{what} {token.text[:20]!r}... is out of range (at most {MAX_NUMBER_LENGTH} characters "
                f"and exponents up to {MAX_EXPONENT})",
                token,
            )
        try:
            value = Fraction(token.text)
        except ZeroDivisionError:
            raise self.error(f"division by zero in {token.text!r}", token) from None
        if abs(value) > MAX_MAGNITUDE:
            raise self.error(
                f"{what} {token.text[:20]!r} is out of range (from {-MAX_MAGNITUDE} to {MAX_MAGNITUDE})",
                token,
            )
        self.numbers[token.text] = value
        return value

    def prologue(self) -> str:
        self.expect("EFG")
        self.expect("2")
        kind = self.next("R or D")
        if kind.quoted or kind.text not in ("R", "D"):
            raise self.error(f"expected R (rational) or D (decimal), found {_show(kind)}", kind)
        title = self.name("the game's title")
        self.expect("{")
        names: list[str] = []
        while self.peek_string():
            names.append(self.name("a player name"))
        brace = self.expect("}")
        if not names:
            raise self.error("a game needs at least one player", brace)
        if self.peek_string():
            self.string("the comment")
        self.players = tuple(
            name if name and names.count(name) == 1 and not _INTEGER.fullmatch(name) else str(number)
            for number, name in enumerate(names, 1)
        )
        return title

    def outcome(self) -> tuple[Fraction, ...]:
        """An outcome number with its optional name and payoffs; the payoffs it stands for."""
        token = self.peek()
        number = self.integer("an outcome number")
        if self.peek_string():
            self.string("the outcome's name")
        if self.peek_symbol("{"):
            self.expect("{")
            payoffs: list[Fraction] = []
            while not self.peek_symbol("}"):
                payoffs.append(self.number("a payoff"))
                if self.peek_symbol(","):
                    self.expect(",")
            self.expect("}")
            if len(payoffs) != len(self.players):
                raise self.error(f"{len(payoffs)} payoffs for {len(self.players)} players", token)
            if number == 0:
                raise self.error("outcome 0 means no outcome and cannot have payoffs", token)
            self.outcomes[number] = tuple(payoffs)
        if number == 0:
            return (Fraction(0),) * len(self.players)
        if number not in self.outcomes:
            raise self.error(f"outcome {number} has no payoffs (give them where it first appears)", token)
        return self.outcomes[number]

    def infoset_name(self, key: tuple[int, int]) -> None:
        if not self.peek_string():
            return
        name_token = self.peek()
        name = self.name("the information set's name")
        known = self.infoset_names.get(key)
        if known is None or not known[0]:
            self.infoset_names[key] = (name, name_token)
        elif name and name != known[0]:
            raise self.error(
                f"information set {key[1]} of {self._who(key[0])} is named {known[0]!r} on line "
                f"{self.line(known[1])} but {name!r} here",
                name_token,
            )

    def _who(self, player: int) -> str:
        return "chance" if player == 0 else f"player {self.players[player - 1]!r}"

    def action_list(self, key: tuple[int, int]) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
        known = self.infoset_actions.get(key)
        if not self.peek_symbol("{"):
            if known is None:
                raise self.error(
                    f"information set {key[1]} of {self._who(key[0])} appears here first and needs its "
                    "action list"
                )
            return known[0], known[1]
        start = self.expect("{")
        labels: list[str] = []
        probabilities: list[Fraction] = []
        while not self.peek_symbol("}"):
            labels.append(self.name("an action name or '}'"))
            if key[0] == 0:
                probabilities.append(self.number("the action's probability"))
        self.expect("}")
        if not labels:
            raise self.error("an action list needs at least one action", start)
        actions = _distinct_labels(labels)
        if known is None:
            self.infoset_actions[key] = (actions, tuple(probabilities), start)
        elif (known[0], known[1]) != (actions, tuple(probabilities)):
            before, now = (
                (list(known[0]), list(actions))
                if known[0] != actions
                else ([str(p) for p in known[1]], [str(p) for p in probabilities])
            )
            what = "actions" if known[0] != actions else "probabilities"
            raise self.error(
                f"information set {key[1]} of {self._who(key[0])} has {what} {before} on line "
                f"{self.line(known[2])} but {now} here",
                start,
            )
        return actions, tuple(probabilities)

    def node(self, inherited: tuple[Fraction, ...]) -> _Raw:
        token = self.next("a node ('c', 'p' or 't')")
        if token.quoted or token.text not in ("c", "p", "t"):
            raise self.error(f"expected a node ('c', 'p' or 't'), found {_show(token)}", token)
        self.string("the node's name")
        raw = _Raw(token.text, token)
        if token.text != "t":
            if token.text == "p":
                player_token = self.peek()
                raw.player = self.integer("a player number")
                if not 1 <= raw.player <= len(self.players):
                    raise self.error(
                        f"player {raw.player} does not exist (the game has {len(self.players)})", player_token
                    )
            raw.infoset = self.integer("an information set number")
            key = (raw.player, raw.infoset)
            self.infoset_name(key)
            raw.actions, raw.probabilities = self.action_list(key)
        own = self.outcome()
        raw.payoffs = tuple(a + b for a, b in zip(inherited, own, strict=True)) if any(inherited) else own
        return raw

    def tree(self) -> _Raw:
        """Every node in prefix order; the tree is built with a stack, so depth is not limited."""
        zero = (Fraction(0),) * len(self.players)
        root = self.node(zero)
        stack = [root] if root.kind != "t" else []
        while stack:
            parent = stack[-1]
            child = self.node(parent.payoffs)
            parent.children.append(child)
            if len(parent.children) == len(parent.actions):
                stack.pop()
            if child.kind != "t":
                stack.append(child)
        if not self.at_end():
            raise self.error(f"unexpected {_show(self.peek())} after the last node")
        return root


def _show(token: _Token) -> str:
    return f'"{token.text}"' if token.quoted else repr(token.text) if token.text else "end of file"


def _distinct_labels(labels: list[str]) -> tuple[str, ...]:
    if all(labels) and len(set(labels)) == len(labels):
        return tuple(labels)
    renamed: list[str] = []
    for position, label in enumerate(labels, 1):
        name = label if label and labels.count(label) == 1 else f"action {position}"
        while name in renamed or (name != label and name in labels):
            name += "'"
        renamed.append(name)
    return tuple(renamed)


def read_efg(text: str, file: str = "<string>") -> ExtensiveGame:
    """The game in a ``.efg`` text; an :class:`EfgError` with line and column when it is not one."""
    reader = _Reader(text.removeprefix("\ufeff"), file)
    title = reader.prologue()
    root = reader.tree()
    keys = _infoset_keys(reader)
    players = reader.players

    def build(raw: _Raw) -> Node:
        # Children first, without recursion: a deep file must not exhaust the Python stack.
        built: dict[int, Node] = {}
        order: list[_Raw] = []
        pending = [raw]
        while pending:
            item = pending.pop()
            order.append(item)
            pending.extend(item.children)
        for item in reversed(order):
            children = [built.pop(id(c)) for c in item.children]
            try:
                built[id(item)] = _node(item, children, players, keys)
            except ExtensiveGameError as problem:
                raise reader.error(str(problem), item.token) from None
        return built[id(raw)]

    tree = build(root)
    try:
        return ExtensiveGame(players, tree, title=title)
    except ImperfectRecallError as problem:
        raise reader.error(str(problem), _node_at(root, problem.histories[1]).token) from None
    except ExtensiveGameError as problem:  # not expected from a file that parsed; still one clear line
        raise reader.error(str(problem), reader.tokens[0]) from None


def _node_at(root: _Raw, history: History) -> _Raw:
    """The node reached from ``root`` along ``history`` (action labels)."""
    node = root
    for label in history:
        node = node.children[node.actions.index(label)]
    return node


def _node(
    raw: _Raw, children: list[Node], players: tuple[str, ...], keys: dict[tuple[int, int], str]
) -> Node:
    if raw.kind == "t":
        return Terminal(dict(zip(players, raw.payoffs, strict=True)))
    if raw.kind == "c":
        return Chance(raw.actions, raw.probabilities, children)
    return Decision(players[raw.player - 1], keys[(raw.player, raw.infoset)], raw.actions, children)


def _infoset_keys(reader: _Reader) -> dict[tuple[int, int], str]:
    names = {key: name for key, (name, _) in reader.infoset_names.items() if key[0] != 0}
    used = Counter(name for name in names.values() if name)
    keys: dict[tuple[int, int], str] = {}
    for player, number in (key for key in reader.infoset_actions if key[0] != 0):
        name = names.get((player, number), "")
        if name and used[name] == 1:
            keys[(player, number)] = name
    taken = set(keys.values())  # sets: a file of 60,000 information sets took minutes with lists
    for player, number in (key for key in reader.infoset_actions if key[0] != 0):
        if (player, number) not in keys:
            key = f"{reader.players[player - 1]}:{number}"
            while key in used or key in taken:
                key += "'"
            keys[(player, number)] = key
            taken.add(key)
    return keys


def load_efg(path: str | Path) -> ExtensiveGame:
    """The game in a ``.efg`` file."""
    return read_efg(read_text_file(path), str(path))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def write_efg(game: ExtensiveGame) -> str:
    """The game as a ``.efg`` text (see the module docstring for how it is numbered)."""
    player_number = {player: index for index, player in enumerate(game.players, 1)}
    infoset_number: dict[str, int] = {}
    for player in game.players:
        for number, infoset in enumerate(game.infosets_of(player), 1):
            infoset_number[infoset.key] = number
    outcome_number: dict[tuple[Fraction, ...], int] = {}
    lines = [
        f"EFG 2 R {_quote(game.title)} {{ {' '.join(_quote(p) for p in game.players)} }}",
        '""',
    ]
    chance_count = 0
    for node in game.nodes():
        if isinstance(node, Terminal):
            payoffs = tuple(node.payoff(player) for player in game.players)
            number = outcome_number.setdefault(payoffs, len(outcome_number) + 1)
            lines.append(f't "" {number} "" {{ {", ".join(_number(p) for p in payoffs)} }}')
        elif isinstance(node, Chance):
            chance_count += 1
            branches = " ".join(
                f"{_quote(a)} {_number(p)}" for a, p in zip(node.actions, node.probabilities, strict=True)
            )
            lines.append(f'c "" {chance_count} "" {{ {branches} }} 0')
        else:
            actions = " ".join(_quote(a) for a in node.actions)
            lines.append(
                f'p "" {player_number[node.player]} {infoset_number[node.infoset]} '
                f"{_quote(node.infoset)} {{ {actions} }} 0"
            )
    return "\n".join(lines) + "\n"


moved_names(__name__, "gdl.errors", "EfgError")
