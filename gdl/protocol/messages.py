"""The messages of the GGP network protocol: reading them from request bodies and writing them.

A game manager sends each message to a player as the body of an HTTP POST; the body is one KIF list
whose first word names the message (case-insensitive)::

    (START id role (rules...) startclock playclock)   -> ready
    (PLAY id NIL) / (PLAY id (m1 ... mn))              -> the player's move
    (STOP id NIL) / (STOP id (m1 ... mn))              -> done
    (PLAY id turn move (p1 ... pk))                    -> the player's move (GDL-II)
    (STOP id turn move (p1 ... pk))                    -> done (GDL-II)
    (ABORT id)                                         -> aborted
    (INFO)                                             -> ((name N) (status available|busy))
    (PREVIEW (rules...) clock)                         -> ready

The moves of PLAY and STOP are the previous joint move, one per role in role order; NIL means none yet.

In a GDL-II game a player may not see the others' moves, so PLAY and STOP carry instead the turn (0 in
the first PLAY, one more in each later PLAY and in STOP), the player's own move of the previous turn
(the one the manager played for it) and what it saw after that joint move, its percepts by the game's
``sees`` rules. The first PLAY of a match is ``(PLAY id 0 NIL NIL)``; a turn with nothing seen has the
empty list ``()``. This is the format of the Dresden GameController and the GGP server
(ggpserver.general-game-playing.de, "The GDL-II communication protocol"). Which form a PLAY has is told
by its number of arguments.

A message is read in one linear pass that cuts out its arguments as text, without building the
rules' terms: the rules of START and PREVIEW stay text for the checker, which runs in a worker process;
only moves, at most :data:`MAX_MOVE` characters each, become terms. What a message may cost the server
is bounded by its size: :func:`body_limit` gives the largest body of each kind, which a server reads
from :func:`message_head` (the kind and the match id, from the first bytes) before the rest.

>>> parse_message(b"(play m1 ((mark 1 1) NOOP))")
Play(match_id='m1', moves=(Function('mark', (Constant('1'), Constant('1'))), Constant('noop')))
>>> format_message(Play("m1", None))
'(PLAY m1 NIL)'
>>> parse_message("(PLAY m1 2 (choose 1) ((opened 3)))")
PlayII(match_id='m1', turn=2, move=Function('choose', (Constant('1'),)), \
percepts=(Function('opened', (Constant('3'),)),))
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gdl.errors import KifSyntaxError, ProtocolError
from gdl.syntax.model import Term
from gdl.syntax.reader import MAX_DEPTH, parse_term

#: Clocks above this many seconds are refused: no real match runs that long, and timers overflow.
MAX_CLOCK = 1_000_000.0

#: The largest body of a START or PREVIEW (bytes): the largest game of the corpus is 46 kB.
MAX_RULES_MESSAGE = 1 << 20

#: The largest body of any other message (bytes): PLAY and STOP carry one move per role.
MAX_MESSAGE = 64 << 10

#: The longest move (characters), from a manager or from a player: real moves are a few dozen.
MAX_MOVE = 4096

#: How many bytes of a body :func:`message_head` needs to tell the kind and the match id.
HEAD = 512


@dataclass(frozen=True, slots=True)
class Start:
    """A match begins: the player's role, the rules (KIF text of the clauses) and the clocks."""

    match_id: str
    role: str
    rules: str
    start_clock: float
    play_clock: float


@dataclass(frozen=True, slots=True)
class Play:
    """Ask for a move; ``moves`` is the previous joint move in role order, ``None`` before the first."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class Stop:
    """The match ended after the joint move ``moves`` (``None`` when no move was played)."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class _Turn:
    """GDL-II's PLAY and STOP: the ``turn`` (0 first, one more each message), the player's own ``move``
    of the previous turn and the ``percepts`` it got after it, both ``None`` (NIL) at turn 0."""

    match_id: str
    turn: int
    move: Term | None
    percepts: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class PlayII(_Turn):
    """GDL-II: ask for a move at ``turn``, after the player's ``move`` and its ``percepts``."""


@dataclass(frozen=True, slots=True)
class StopII(_Turn):
    """GDL-II: the match ended at ``turn``, after the player's ``move``, having seen ``percepts``."""


@dataclass(frozen=True, slots=True)
class Abort:
    """The match was abandoned."""

    match_id: str


@dataclass(frozen=True, slots=True)
class Info:
    """Ask the player for its name and whether it is busy."""


@dataclass(frozen=True, slots=True)
class Preview:
    """Rules of a game to be played soon, for preparation within ``clock`` seconds."""

    rules: str
    clock: float


Message = Start | Play | Stop | PlayII | StopII | Abort | Info | Preview


def _shown(text: str, limit: int = 60) -> str:
    """Bad input quoted in an error message, cut short: a garbage body can be megabytes long."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise ProtocolError(f"message is not UTF-8 text (bad byte at offset {problem.start})") from None


#: What gives a message its structure: parentheses and comments (words hold neither).
_STRUCTURE = re.compile(r"[()]|;[^\n]*")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class _Item:
    """One item of a list, as the span ``start:end`` of the message text; ``is_list`` when parenthesised."""

    start: int
    end: int
    is_list: bool


def _items(text: str, start: int = 0, end: int | None = None) -> list[_Item]:
    """The items of the one list that ``text[start:end]`` holds, in a linear pass that reads no deeper
    than their extent (the rules of a START stay text); raises :class:`ProtocolError` for anything but
    one balanced list."""
    end = len(text) if end is None else end
    items: list[_Item] = []
    depth, position, item_start, closed = 0, start, 0, False
    for match in _STRUCTURE.finditer(text, start, end):
        at = match.start()
        if depth == 1:
            items.extend(_Item(w.start(), w.end(), False) for w in _WORD.finditer(text, position, at))
        elif depth == 0 and (closed or text[position:at].strip()):
            raise ProtocolError(f"a message is one KIF list, not {_shown(text[start:end].strip())}")
        position = match.end()
        token = match.group()
        if token == "(":
            depth += 1
            if depth == 2:
                item_start = at
            elif depth > MAX_DEPTH:
                raise ProtocolError(f"message is not KIF: lists nested too deeply (more than {MAX_DEPTH})")
        elif token == ")":
            depth -= 1
            if depth < 0:
                raise ProtocolError(f"message is not KIF: unmatched closing parenthesis at offset {at}")
            if depth == 1:
                items.append(_Item(item_start, position, True))
            closed = closed or depth == 0
    if depth > 0:
        raise ProtocolError("message is not KIF: unmatched opening parenthesis")
    if not closed or text[position:end].strip():
        raise ProtocolError(f"a message is one KIF list, not {_shown(text[start:end].strip())}")
    return items


#: Each message's arguments, for arity errors; PLAY and STOP have a GDL-I and a GDL-II form.
_ARGUMENTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "start": (("match id", "role", "rules", "start clock", "play clock"),),
    "play": (("match id", "moves"), ("match id", "turn", "last move", "percepts")),
    "stop": (("match id", "moves"), ("match id", "turn", "last move", "percepts")),
    "abort": (("match id",),),
    "info": ((),),
    "preview": (("rules", "clock"),),
}

#: Turns above this are refused: no match is that long, and the number stays small.
MAX_TURN = 10**9


class _MessageReader:
    """Gives the items of one message their meaning; items are spans of ``text``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def text_of(self, item: _Item) -> str:
        return self.text[item.start : item.end]

    def is_nil(self, item: _Item) -> bool:
        return not item.is_list and self.text_of(item).lower() == "nil"

    def word(self, item: _Item, what: str) -> str:
        text = self.text_of(item)
        if item.is_list or text.startswith("?"):
            raise ProtocolError(f"{what} must be a word, not {_shown(text)}")
        return text

    def clock(self, item: _Item, what: str) -> float:
        text = self.word(item, what)
        try:
            value = float(text)
        except ValueError:
            raise ProtocolError(f"{what} must be a number of seconds, not {_shown(text)}") from None
        if not math.isfinite(value) or not 0 <= value <= MAX_CLOCK:
            raise ProtocolError(f"{what} must be between 0 and {MAX_CLOCK:.0f} seconds, not {_shown(text)}")
        return value

    def match_id(self, item: _Item) -> str:
        text = self.word(item, "the match id")
        # A match id reaches log lines and terminals: escape sequences there could rewrite what they show.
        if not text.isprintable():
            raise ProtocolError(f"the match id may not contain control characters, not {_shown(text)}")
        return text

    def rules(self, item: _Item) -> str:
        if not item.is_list:
            raise ProtocolError(f"the rules must be a list of clauses, not {_shown(self.text_of(item))}")
        # The clauses as written, without the list's own parentheses, for gdl.parse to read.
        return self.text[item.start + 1 : item.end - 1]

    def terms(self, item: _Item) -> tuple[Term, ...]:
        return tuple(parse_move(self.text_of(move)) for move in _items(self.text, item.start, item.end))

    def moves(self, item: _Item) -> tuple[Term, ...] | None:
        if self.is_nil(item):
            return None
        moves = self.terms(item) if item.is_list else ()
        if not moves:
            raise ProtocolError(f"the moves must be NIL or a list of moves, not {_shown(self.text_of(item))}")
        return moves

    def turn(self, item: _Item) -> int:
        text = self.word(item, "the turn")
        if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) > MAX_TURN:
            raise ProtocolError(f"the turn must be a whole number from 0 to {MAX_TURN}, not {_shown(text)}")
        return int(text)

    def last_move(self, item: _Item) -> Term | None:
        return None if self.is_nil(item) else parse_move(self.text_of(item))

    def percepts(self, item: _Item) -> tuple[Term, ...] | None:
        if self.is_nil(item):
            return None
        if not item.is_list:
            raise ProtocolError(f"the percepts must be NIL or a list, not {_shown(self.text_of(item))}")
        return self.terms(item)

    def message(self, kind: str, args: list[_Item]) -> Message:
        if kind in ("play", "stop") and len(args) == 4:
            fields = (
                self.match_id(args[0]),
                self.turn(args[1]),
                self.last_move(args[2]),
                self.percepts(args[3]),
            )
            return PlayII(*fields) if kind == "play" else StopII(*fields)
        if kind == "start":
            return Start(
                self.match_id(args[0]),
                self.word(args[1], "the role").lower(),
                self.rules(args[2]),
                self.clock(args[3], "the start clock"),
                self.clock(args[4], "the play clock"),
            )
        if kind == "play":
            return Play(self.match_id(args[0]), self.moves(args[1]))
        if kind == "stop":
            return Stop(self.match_id(args[0]), self.moves(args[1]))
        if kind == "abort":
            return Abort(self.match_id(args[0]))
        if kind == "info":
            return Info()
        return Preview(self.rules(args[0]), self.clock(args[1], "the clock"))


def parse_move(text: str) -> Term:
    """A ground term written in KIF, e.g. a player's reply ``( mark 1 1 )``, of at most
    :data:`MAX_MOVE` characters."""
    if len(text) > MAX_MOVE:
        raise ProtocolError(f"a move may have at most {MAX_MOVE} characters, not {len(text)}: {_shown(text)}")
    try:
        term = parse_term(text.strip())
    except KifSyntaxError:
        raise ProtocolError(f"not a move: {_shown(text)}") from None
    except RecursionError:
        raise ProtocolError(f"move is nested too deeply: {_shown(text)}") from None
    if not term.is_ground():
        raise ProtocolError(f"a move may not contain variables: {_shown(text)}")
    return term


_HEAD = re.compile(r"\s*\(\s*([^\s();]+)(?:\s+([^\s();]+))?")


def message_head(data: bytes) -> tuple[str, str | None]:
    """The kind of a message (lower case, "" when it does not start as a message should) and its first
    argument when that is a word (the match id of PLAY, STOP, ABORT and START), read from the first
    bytes of a body (:data:`HEAD` are enough) without reading the rest."""
    text = data[:HEAD].decode("utf-8", "replace").removeprefix("\ufeff")
    head = _HEAD.match(text)
    if head is None:
        return "", None
    # A word that reaches the end of the bytes read may go on further.
    argument = head.group(2) if head.end() < len(text) or len(data) <= HEAD else None
    return head.group(1).lower(), argument


def body_limit(kind: str) -> int:
    """The largest body of a message of ``kind`` (as :func:`message_head` gives it), in bytes."""
    return MAX_RULES_MESSAGE if kind in ("start", "preview") else MAX_MESSAGE


def parse_message(data: bytes | str) -> Message:
    """Read one protocol message; raises :class:`ProtocolError` for anything else."""
    # A byte order mark is no part of the message.
    text = _decode(data).removeprefix("\ufeff")
    items = _items(text)
    if not items or items[0].is_list:
        raise ProtocolError(f"a message starts with its name, not {_shown(text.strip())}")
    reader = _MessageReader(text)
    name = reader.text_of(items[0])
    kind = name.lower()
    shapes = _ARGUMENTS.get(kind)
    if shapes is None:
        raise ProtocolError(f"unknown message {_shown(name)}")
    if all(len(items) - 1 != len(expected) for expected in shapes):
        wanted = " or ".join(
            f"{len(expected)} argument(s)" + (f" ({', '.join(expected)})" if expected else "")
            for expected in shapes
        )
        raise ProtocolError(f"{kind.upper()} takes {wanted}, not {len(items) - 1}")
    return reader.message(kind, items[1:])


def _moves_text(moves: Sequence[Term] | None, spell: Callable[[object], str]) -> str:
    return "NIL" if moves is None else "(" + " ".join(map(spell, moves)) + ")"


def _seen_text(
    move: Term | None, percepts: Sequence[Term] | None, spell: Callable[[object], str] = str
) -> str:
    """The last move and the percepts of a GDL-II PLAY or STOP; an empty list of percepts is ``()``."""
    seen = "NIL" if percepts is None else "(" + " ".join(map(spell, percepts)) + ")"
    return f"{'NIL' if move is None else spell(move)} {seen}"


def format_message(message: Message, spell: Callable[[object], str] = str) -> str:
    """The KIF text of a message, as a game manager sends it; ``spell`` writes the moves (e.g.
    :meth:`gdl.game.Game.spell`, so that they are spelled as the rules spell them)."""
    match message:
        case Start(match_id, role, rules, start_clock, play_clock):
            clocks = f"{_number(start_clock)} {_number(play_clock)}"
            return f"(START {match_id} {role} ({_closable(rules)}) {clocks})"
        case Play(match_id, moves):
            return f"(PLAY {match_id} {_moves_text(moves, spell)})"
        case Stop(match_id, moves):
            return f"(STOP {match_id} {_moves_text(moves, spell)})"
        case PlayII(match_id, turn, move, percepts):
            return f"(PLAY {match_id} {turn} {_seen_text(move, percepts, spell)})"
        case StopII(match_id, turn, move, percepts):
            return f"(STOP {match_id} {turn} {_seen_text(move, percepts, spell)})"
        case Abort(match_id):
            return f"(ABORT {match_id})"
        case Info():
            return "(INFO)"
        case Preview(rules, clock):
            return f"(PREVIEW ({_closable(rules)}) {_number(clock)})"


def _number(seconds: float) -> str:
    """Clocks as whole seconds when they are whole: the form every GGP player understands."""
    return str(int(seconds)) if seconds == int(seconds) else repr(seconds)


def _closable(rules: str) -> str:
    """Rules text that a closing parenthesis may follow: a trailing comment would swallow it."""
    return rules + "\n" if ";" in rules.rsplit("\n", 1)[-1] else rules
