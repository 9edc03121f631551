"""Boards drawn from the rules: a state as SVG, the shape of the board found in the fluents.

A :class:`Layout` is decided once per game or record from every fluent it may show (the base
propositions and the states), so that all the steps of a match are drawn on the same board. It looks for

* a *board*: the relation whose fluents look most like squares, ``(cell x y value)`` with constant
  coordinates (two coordinates and a value; with three coordinates, ``(cell x y z value)``, one grid per
  layer ``z``; ``(queen x y)`` marks a square with the relation's name), drawn as a grid with the first
  coordinate across and the highest row on top, as :mod:`gdl.render` prints boards;
* *pieces*: the values on the squares, constants drawn as marks (``x`` a cross, ``o`` a ring, colour
  names as discs of that colour, chess names as chess glyphs, anything else as a labelled disc);
  ``b``, ``blank``, ``empty`` and the like are empty squares;
* *control*: ``(control role)`` (or ``turn``), shown as whose turn it is;
* *counters*: fluents whose last argument is a number, ``(step 3)`` or ``(score robot 40)``;

and lists every other fluent. A game may carry drawing hints in a sidecar file (:mod:`gdl.view.hints`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gdl.render import BLANKS, axis
from gdl.syntax.model import Constant, Function, Term
from gdl.view.hints import Hints, PieceStyle
from gdl.view.svg import document, tag, text

#: Relations that say whose turn it is.
CONTROLS = ("control", "turn", "tomove", "player")
#: The side of a square, in SVG units.
SQUARE = 40
#: Room for the axis labels.
_MARGIN = 22

_COLOURS = {
    "red": "#d33",
    "black": "#222",
    "white": "#f4f4f4",
    "yellow": "#f2c500",
    "blue": "#2d6cdf",
    "green": "#2a9d4b",
    "orange": "#f08c00",
    "purple": "#8e44ad",
    "brown": "#8b5a2b",
    "grey": "#888",
    "gray": "#888",
    "pink": "#e377c2",
    "cyan": "#17becf",
}
#: Chess pieces as ggp games name them: a colour letter or word, then the piece.
_CHESS = {
    "k": "♚",
    "q": "♛",
    "r": "♜",
    "b": "♝",
    "n": "♞",
    "p": "♟",
    "king": "♚",
    "queen": "♛",
    "rook": "♜",
    "bishop": "♝",
    "knight": "♞",
    "pawn": "♟",
}


@dataclass(frozen=True)
class Grid:
    """The board: a relation, where its coordinates and value are, and the squares it covers."""

    relation: str
    arity: int
    x: int
    y: int
    layer: int | None
    value: int | None
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    layers: tuple[str, ...]
    checkered: bool = False

    def place(self, fluent: Term) -> tuple[str, str, str, str] | None:
        """(layer, column, row, value) of a fluent on this board, or None when it is not one of its
        squares."""
        if not (
            isinstance(fluent, Function) and fluent.name == self.relation and len(fluent.args) == self.arity
        ):
            return None
        args = fluent.args
        coordinates = [args[self.x], args[self.y]] + ([args[self.layer]] if self.layer is not None else [])
        if not all(isinstance(a, Constant) for a in coordinates):
            return None
        column, row = str(args[self.x]), str(args[self.y])
        layer = str(args[self.layer]) if self.layer is not None else ""
        if (
            column not in self.columns
            or row not in self.rows
            or (self.layer is not None and layer not in self.layers)
        ):
            return None
        value = self.relation if self.value is None else str(args[self.value])
        return layer, column, row, value


@dataclass(frozen=True)
class Picture:
    """A state drawn: the board as SVG ("" when there is none), whose turn it is, the counters, and the
    fluents drawn in neither."""

    svg: str
    control: tuple[str, ...] = ()
    counters: tuple[tuple[str, str], ...] = ()
    facts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "svg": self.svg,
            "control": list(self.control),
            "counters": [list(c) for c in self.counters],
            "facts": list(self.facts),
        }


@dataclass(frozen=True)
class Layout:
    """How a game's states are drawn (see the module docstring); :meth:`infer` finds one."""

    grid: Grid | None
    hints: Hints = field(default_factory=Hints)

    @classmethod
    def infer(cls, fluents: Iterable[Term], hints: Hints | None = None) -> Layout:
        """The layout for states made of (some of) ``fluents``: the base propositions, states, or both."""
        hints = hints or Hints()
        every = list(fluents)
        return cls(_find_grid(every, hints), hints)

    def draw(self, fluents: Iterable[Term], spell: Any = str) -> Picture:
        """A state as a :class:`Picture`; ``spell`` writes names as the rules spell them."""
        squares: dict[tuple[str, str, str], str] = {}
        control: list[str] = []
        counters: list[tuple[str, str]] = []
        facts: list[str] = []
        for fluent in sorted(fluents, key=str):
            name = fluent.name if isinstance(fluent, Function | Constant) else str(fluent)
            if name in self.hints.hide:
                continue
            placed = self.grid.place(fluent) if self.grid else None
            if placed is not None:
                layer, column, row, value = placed
                if value.lower() not in BLANKS or value in self.hints.pieces:
                    squares[layer, column, row] = spell(value)
            elif _is_control(fluent, self.hints):
                assert isinstance(fluent, Function)
                control.append(" ".join(spell(a) for a in fluent.args))
            elif (counter := _counter(fluent, self.hints)) is not None:
                counters.append((spell(counter[0]), spell(counter[1])))
            else:
                facts.append(spell(fluent))
        svg = self._board(squares) if self.grid else ""
        return Picture(svg, tuple(control), tuple(counters), tuple(facts))

    def _board(self, squares: dict[tuple[str, str, str], str]) -> str:
        grid = self.grid
        assert grid is not None
        columns = grid.columns
        rows = grid.rows[::-1] if self.hints.first_row_on_top else grid.rows
        width = _MARGIN + len(columns) * SQUARE + 4
        one = _MARGIN + len(rows) * SQUARE + 4
        parts: list[str] = []
        for index, layer in enumerate(grid.layers or ("",)):
            top = index * (one + (_MARGIN if layer else 0)) + (_MARGIN if layer else 0)
            if layer:
                parts.append(text(2, top - 6, f"{grid.relation} layer {layer}", class_="layer"))
            for i, column in enumerate(columns):
                parts.append(
                    text(_MARGIN + (i + 0.5) * SQUARE, top + 14, column, class_="axis", text_anchor="middle")
                )
            for j, row in enumerate(rows):
                y = top + _MARGIN + j * SQUARE
                parts.append(text(_MARGIN - 4, y + SQUARE / 2 + 4, row, class_="axis", text_anchor="end"))
                for i, column in enumerate(columns):
                    x = _MARGIN + i * SQUARE
                    dark = grid.checkered and (i + j) % 2 == 1
                    value = squares.get((layer, column, row), "")
                    cell = tag(
                        "rect",
                        x=x,
                        y=y,
                        width=SQUARE,
                        height=SQUARE,
                        fill="#b58863" if dark else "#f0e6d2",
                        stroke="#6b5b45",
                        stroke_width=1,
                    )
                    parts.append(
                        tag(
                            "g",
                            cell + (self._piece(value, x, y) if value else ""),
                            class_="cell",
                            data_layer=layer or None,
                            data_x=column,
                            data_y=row,
                            data_value=value,
                        )
                    )
        height = len(grid.layers or ("",)) * (one + (_MARGIN if grid.layers else 0))
        scale = max(1.0, min(2.0, 320 / width))  # small boards drawn larger
        return document(
            width, height, "".join(parts), class_="board", font_family="sans-serif", font_size=12,
            style=f"width:{width * scale:.0f}px",
        )

    def _piece(self, value: str, x: float, y: float) -> str:
        style = self.hints.pieces.get(value) or self.hints.pieces.get(value.lower()) or default_style(value)
        cx, cy, r = x + SQUARE / 2, y + SQUARE / 2, SQUARE * 0.36
        bold = {"fill": style.text_colour, "font_size": 14, "font_weight": "bold"}
        label = text(cx, cy + 5, style.label, text_anchor="middle", **bold) if style.label else ""
        if style.shape == "cross":
            a, b = cx - r * 0.8, cx + r * 0.8
            top, bottom = cy - r * 0.8, cy + r * 0.8
            d = f"M{a},{top}L{b},{bottom}M{b},{top}L{a},{bottom}"
            return tag("path", d=d, stroke=style.colour, stroke_width=5, stroke_linecap="round")
        if style.shape == "ring":
            return tag("circle", cx=cx, cy=cy, r=r * 0.8, fill="none", stroke=style.colour, stroke_width=5)
        if style.shape == "glyph":
            outline = "#000" if style.colour.lower() in ("#fff", "#ffffff", "#f4f4f4") else None
            glyph = {"fill": style.colour, "font_size": 30, "stroke": outline, "stroke_width": 0.8}
            return text(cx, cy + 11, style.label, text_anchor="middle", **glyph)
        if style.shape == "square":
            return (
                tag("rect", x=cx - r, y=cy - r, width=2 * r, height=2 * r, fill=style.colour, stroke="#333")
                + label
            )
        if style.shape == "text":
            return text(cx, cy + 5, style.label, text_anchor="middle", fill=style.colour, font_size=14)
        return tag("circle", cx=cx, cy=cy, r=r, fill=style.colour, stroke="#333") + label


def default_style(value: str) -> PieceStyle:
    """How a piece is drawn when the hints do not say: by its name."""
    low = value.lower()
    if low == "x":
        return PieceStyle(shape="cross", colour="#c0392b")
    if low == "o":
        return PieceStyle(shape="ring", colour="#1f5fa8")
    if low in _COLOURS:
        return PieceStyle(colour=_COLOURS[low], label="")
    for sides, colour in ((("w", "white"), "#ffffff"), (("b", "black"), "#222222")):
        for side in sides:
            rest = low.removeprefix(side).lstrip("_-")
            if low.startswith(side) and rest in _CHESS:
                return PieceStyle(shape="glyph", label=_CHESS[rest], colour=colour)
    digest = hashlib.sha1(low.encode()).digest()
    colour = f"hsl({digest[0] * 360 // 256}, 55%, 55%)"
    return PieceStyle(colour=colour, label=value[:3])


def _is_control(fluent: Term, hints: Hints) -> bool:
    names = (hints.control,) if hints.control else CONTROLS
    return isinstance(fluent, Function) and fluent.name in names and 1 <= len(fluent.args) <= 2


def _counter(fluent: Term, hints: Hints) -> tuple[str, str] | None:
    """(name, number) of a counter fluent: its last argument is a number; or any fluent the hints name."""
    if not isinstance(fluent, Function) or len(fluent.args) > (3 if fluent.name in hints.counters else 2):
        return None
    last = fluent.args[-1]
    if fluent.name in hints.counters or (isinstance(last, Constant) and last.name.isdigit()):
        head = " ".join([fluent.name, *map(str, fluent.args[:-1])])
        return head, str(last)
    return None


def _find_grid(fluents: list[Term], hints: Hints) -> Grid | None:
    """The relation that looks most like a board (at least 4 squares), or the one the hints name."""
    groups: dict[tuple[str, int], list[Function]] = {}
    for fluent in fluents:
        if isinstance(fluent, Function) and len(fluent.args) >= 2:
            groups.setdefault((fluent.name, len(fluent.args)), []).append(fluent)
    best: Grid | None = None
    best_size = 3
    for (name, arity), members in sorted(groups.items()):
        if hints.board is not None and name != hints.board:
            continue
        grid = _grid_of(name, arity, members, hints)
        if grid is None:
            continue
        size = len(grid.columns) * len(grid.rows) * max(1, len(grid.layers))
        if size > best_size or (hints.board is not None and best is None):
            best, best_size = grid, size
    return best


def _grid_of(name: str, arity: int, members: list[Function], hints: Hints) -> Grid | None:
    x, y = hints.x - 1, hints.y - 1
    if max(x, y) >= arity:
        return None
    if arity == 2:
        value = None  # (queen x y): the relation names the piece
        if not hints.board and not all(_short(f.args[0]) and _short(f.args[1]) for f in members):
            return None
    else:
        value = (hints.value - 1) if hints.board and hints.value else arity - 1
    layer = None
    if arity >= 4 and not hints.board:
        third = {str(f.args[2]) for f in members}
        if all(t.isdigit() for t in third) and len(third) > 1:
            layer = 2
    if hints.board and hints.layer:
        layer = hints.layer - 1
    if any(i is not None and i >= arity for i in (value, layer)):
        return None  # hints naming arguments the relation does not have
    columns = {str(f.args[x]) for f in members if isinstance(f.args[x], Constant)}
    rows = {str(f.args[y]) for f in members if isinstance(f.args[y], Constant)}
    if not columns or not rows:
        return None
    # A guessed board has at least four squares; one the hints name is drawn whatever its size.
    squares = {(str(f.args[x]), str(f.args[y])) for f in members}
    if len(squares) < 4 and not hints.board:
        return None
    if len(columns) * len(rows) > 40 * 40:
        return None
    layers = tuple(axis({str(f.args[layer]) for f in members})) if layer is not None else ()
    return Grid(
        name,
        arity,
        x,
        y,
        layer,
        value,
        tuple(axis(columns)),
        tuple(axis(rows)[::-1]),
        layers,
        hints.checkered,
    )


def _short(term: Term) -> bool:
    """Whether a term looks like a coordinate: a number or a name of one or two characters."""
    return isinstance(term, Constant) and (term.name.isdigit() or len(term.name) <= 2)
