"""Drawing hints: a sidecar file beside a game, ``GAME.view.json`` next to ``GAME.kif``.

Every key is optional; the file is data, checked against :data:`SCHEMA`, never code::

    {
      "board": "cell",          the relation drawn as the grid
      "x": 1, "y": 2,           its arguments (from 1) that are the column and the row
      "layer": 3,               an argument that is a third coordinate: one grid per value
      "value": 3,               the argument that holds the piece (default: the last one)
      "first_row_on_top": true, draw the least row on top (default: the greatest, as chess diagrams)
      "checkered": true,        alternate dark and light squares
      "pieces": {"x": {"shape": "cross", "colour": "#c0392b"},
                 "wk": {"shape": "glyph", "label": "♚", "colour": "#fff"}},
      "control": "control",     the relation that says whose turn it is
      "counters": ["step"],     relations shown as counters
      "hide": ["step"]          relations not shown at all
    }

Shapes are ``disc`` (the default, with the label on it), ``square``, ``cross``, ``ring``, ``glyph``
(the label as a large character) and ``text``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from gdl.errors import HintsError

SHAPES = ("disc", "square", "cross", "ring", "glyph", "text")

_POSITION = {"type": "integer", "minimum": 1, "maximum": 16}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "board": {"type": "string", "minLength": 1},
        "x": _POSITION,
        "y": _POSITION,
        "layer": _POSITION,
        "value": _POSITION,
        "first_row_on_top": {"type": "boolean"},
        "checkered": {"type": "boolean"},
        "pieces": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "shape": {"enum": list(SHAPES)},
                    "colour": {"type": "string", "maxLength": 40},
                    "label": {"type": "string", "maxLength": 8},
                    "text_colour": {"type": "string", "maxLength": 40},
                },
            },
        },
        "control": {"type": "string"},
        "counters": {"type": "array", "items": {"type": "string"}},
        "hide": {"type": "array", "items": {"type": "string"}},
    },
}

#: The sidecar file's suffix, in place of the game file's.
SUFFIX = ".view.json"


@dataclass(frozen=True)
class PieceStyle:
    """How one value on a square is drawn."""

    shape: str = "disc"
    colour: str = "#888"
    label: str = ""
    text_colour: str = "#fff"


@dataclass(frozen=True)
class Hints:
    """A game's drawing hints (see the module docstring); the defaults let the layout be guessed."""

    board: str | None = None
    x: int = 1
    y: int = 2
    layer: int | None = None
    value: int | None = None
    first_row_on_top: bool = False
    checkered: bool = False
    pieces: dict[str, PieceStyle] = field(default_factory=dict)
    control: str | None = None
    counters: tuple[str, ...] = ()
    hide: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Any, source: str = "<hints>") -> Hints:
        """Hints from parsed JSON; :class:`HintsError` names the bad key by its JSON path."""
        try:
            jsonschema.validate(data, SCHEMA)
        except jsonschema.ValidationError as problem:
            where = "$" + "".join(
                f"[{p!r}]" if isinstance(p, int) else f".{p}" for p in problem.absolute_path
            )
            raise HintsError(f"{source}: {where}: {problem.message}") from None
        pieces = {
            name: PieceStyle(**{"label": "", **style}) for name, style in data.get("pieces", {}).items()
        }
        keys = ("board", "x", "y", "layer", "value", "first_row_on_top", "checkered", "control")
        return cls(
            **{k: data[k] for k in keys if k in data},
            pieces=pieces,
            counters=tuple(data.get("counters", ())),
            hide=tuple(data.get("hide", ())),
        )


def sidecar(game_file: str | Path) -> Path:
    """Where the hints of a game file are: ``tictactoe.kif`` -> ``tictactoe.view.json``."""
    path = Path(game_file)
    return path.with_name(path.name.rsplit(".", 1)[0] + SUFFIX)


def load_hints(game_file: str | Path | None) -> Hints:
    """The hints beside a game file, or none when it has no sidecar file."""
    if game_file is None:
        return Hints()
    path = sidecar(game_file)
    if not path.is_file():
        return Hints()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as problem:
        raise HintsError(f"{path}: cannot read: {problem}") from None
    except json.JSONDecodeError as problem:
        raise HintsError(f"{path}:{problem.lineno}:{problem.colno}: not JSON: {problem.msg}") from None
    return Hints.from_json(data, str(path))
