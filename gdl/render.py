"""States drawn as text, as ``gdl play`` shows them: fluents like ``(cell x y v)`` as a grid (first
argument across, second up), the whole board the game's base propositions describe with ``.`` for an
empty square, and the other fluents listed sorted."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TypeGuard

import networkx as nx

from gdl.check import CheckedProgram, check
from gdl.datalog import evaluate
from gdl.game import Game, State
from gdl.syntax import Program
from gdl.syntax.model import Constant, Function, Term

#: Cell values drawn as an empty square.
BLANKS = {"b", "blank", "empty", "none", "nil"}
#: A board axis of numbers is drawn with every number between its least and greatest up to this length.
_MAX_FILLED_AXIS = 32


def render(state: State) -> str:
    """The state as text: a grid for the largest set of ``(name x y value)`` fluents, then the rest.
    The grid is the whole board the game's base propositions describe (``.`` for an empty square),
    not only the squares that hold something now."""
    fluents = sorted(state.fluents(), key=str)
    base = _largest_board(sorted(base_fluents(state.game), key=str), distinct=False)
    name = base[0].name if base else None
    board = [f for f in fluents if name is not None and _is_cell(f) and f.name == name] or (
        [] if base else _largest_board(fluents)
    )
    squares = {(str(f.args[0]), str(f.args[1])) for f in base}
    spell = state.game.spell  # names as the rules spell them
    lines = _grid(board, squares, spell) if board or squares else []
    lines += [f"  {spell(fluent)}" for fluent in fluents if fluent not in board]
    return "\n".join(lines)


def _is_cell(fluent: Term) -> TypeGuard[Function]:
    """Whether a fluent looks like a square of a board: ``(name x y value)`` with constant x and y."""
    return (
        isinstance(fluent, Function) and len(fluent.args) == 3
        and all(isinstance(a, Constant) for a in fluent.args[:2])
    )


def _largest_board(fluents: list[Term], distinct: bool = True) -> list[Function]:
    """The fluents of the relation that looks most like a 2-D board (at least 4 squares; with
    ``distinct``, of a state: one value per square)."""
    groups: dict[str, list[Function]] = {}
    for fluent in fluents:
        if _is_cell(fluent):
            groups.setdefault(fluent.name, []).append(fluent)
    boards = [
        cells for cells in groups.values()
        if len(squares := {c.args[:2] for c in cells}) >= 4 and (not distinct or len(squares) == len(cells))
    ]
    return max(boards, key=len, default=[])


def _grid(
    cells: list[Function], squares: set[tuple[str, str]], spell: Callable[[object], str]
) -> list[str]:
    """The cells drawn as a grid: first argument across (the column, x), second argument down (the row, y),
    the highest row on top. So files and ranks come out as in chess diagrams, connect four's first
    row is at the bottom, and breakthrough's white starts at the bottom."""
    value = {(str(c.args[0]), str(c.args[1])): spell(c.args[2]) for c in cells}
    shown = {k: "." if v.lower() in BLANKS else v for k, v in value.items()}
    shown.update({square: "." for square in squares - set(shown)})
    columns = axis({x for x, _ in shown})
    rows = axis({y for _, y in shown})[::-1]
    width = max(len(t) for t in [*columns, *shown.values()])
    margin = max(len(r) for r in rows)
    lines = [" " * (margin + 3) + " ".join(c.rjust(width) for c in columns)]
    for row in rows:
        drawn = " ".join(shown.get((column, row), " ").rjust(width) for column in columns)
        lines.append(f"  {row.rjust(margin)} {drawn}")
    return lines


_BASES: weakref.WeakKeyDictionary[Game, frozenset[Term]] = weakref.WeakKeyDictionary()


def base_fluents(game: Game) -> frozenset[Term]:
    """The game's base propositions (every fluent its ``base`` rules name; none when it has no such
    rules), evaluated once per game from those rules and the static relations they use alone."""
    if game not in _BASES:
        _BASES[game] = keyword_fluents(game.checked, "base")
    return _BASES[game]


def keyword_fluents(checked: CheckedProgram, keyword: str) -> frozenset[Term]:
    """The fluents a state-independent keyword (``base``, ``init``) names, evaluated from its rules and
    the static relations they use alone."""
    graph = checked.graph
    if keyword not in graph:
        return frozenset()
    needed = {keyword} | nx.descendants(graph, keyword)
    rules = tuple(r for r in checked.program.rules if r.head.relation in needed)
    alone = check(Program(rules), game=False).checked
    return frozenset() if alone is None else frozenset(args[0] for args in evaluate(alone).get(keyword, ()))


def axis(labels: set[str]) -> list[str]:
    """Coordinates in order, numbers numerically; a short run of numbers (from 1, or from 0 when used)
    or of letters is completed, so that a board with few pieces, as in connect four, keeps its empty
    rows and columns."""
    if all(label.isascii() and label.isdigit() for label in labels):
        if max(map(len, labels)) < 4:
            low, high = min(1, *map(int, labels)), max(map(int, labels))
            if high - low < _MAX_FILLED_AXIS:
                return [str(n) for n in range(low, high + 1)]
        return sorted(labels, key=_number_order)
    if all(len(label) == 1 and label.isalpha() for label in labels):
        return [chr(n) for n in range(ord(min(labels)), ord(max(labels)) + 1)]
    return sorted(labels, key=_number_order)


def _number_order(text: str) -> tuple[int, int, str]:
    """Numbers (ASCII digits) first, by value, then the other words alphabetically; no ``int``, which
    refuses very long numbers."""
    if text.isascii() and text.isdigit():
        digits = text.lstrip("0")
        return 0, len(digits), digits
    return 1, 0, text
