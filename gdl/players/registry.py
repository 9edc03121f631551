"""Players built from text: ``KIND[:option=value,...]``, e.g. ``mcts:iterations=500,c=1.0``.

>>> from gdl.players import make_player
>>> make_player("mcts:iterations=100").iterations
100
>>> make_player("minimax:dept=3")
Traceback (most recent call last):
...
gdl.errors.PlayerSpecError: unknown option 'dept' for minimax player (options: depth, margin)

A kind's options are the keyword arguments of its class, converted to the annotated type.
"""

from __future__ import annotations

import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gdl.errors import PlayerSpecError
from gdl.players.base import Player
from gdl.players.equilibrium import EquilibriumPlayer
from gdl.players.human import HumanPlayer
from gdl.players.hyperplay import HyperPlayer
from gdl.players.legal import LegalPlayer
from gdl.players.mcts import MctsPlayer
from gdl.players.minimax import MinimaxPlayer
from gdl.players.puzzles.player import PuzzlePlayer
from gdl.players.random import RandomPlayer
from gdl.players.uct import UctPlayer

if TYPE_CHECKING:
    from gdl.game import Game

#: Player kinds by name.
PLAYER_KINDS: dict[str, type[Player]] = {
    kind.name: kind
    for kind in (
        RandomPlayer, LegalPlayer, HumanPlayer, MinimaxPlayer, MctsPlayer, UctPlayer, HyperPlayer,
        EquilibriumPlayer, PuzzlePlayer,
    )
}

#: Option types that can be written as text, with their converters.
_CONVERTERS: dict[type, Callable[[str], object]] = {
    int: int, float: lambda text: _finite(float(text)), str: str
}
_EXPECTED = {int: "an integer", float: "a finite number", str: "text"}
#: Options that are not written as text (streams of the human player).
_HIDDEN = {"input", "output"}
_NOT_OPTIONS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {value}")
    return value


def options(kind: str) -> dict[str, type]:
    """The options of a player kind: name -> the type its value is converted to."""
    cls = PLAYER_KINDS[kind]
    hints = typing.get_type_hints(cls.__init__)
    result = {}
    for name, parameter in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or name in _HIDDEN or parameter.kind in _NOT_OPTIONS:
            continue
        hint = hints[name]
        if isinstance(hint, types.UnionType):
            hint = next(a for a in typing.get_args(hint) if a is not type(None))
        result[name] = hint
    return result


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``KIND[:option=value,...]`` into the kind and its options as text."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in PLAYER_KINDS:
        kinds = ", ".join(sorted(PLAYER_KINDS))
        raise PlayerSpecError(f"unknown player kind: {kind!r} (choose from: {kinds})")
    settings: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        name, equals, value = item.partition("=")
        if not equals or not name.strip() or not value.strip():
            raise PlayerSpecError(f"option {item!r} of {kind} player is not of the form option=value")
        settings[name.strip().lower()] = value.strip()
    return kind, settings


def make_player(spec: str, seed: int | None = None) -> Player:
    """The player described by ``spec``; ``seed`` is the default for a kind's ``seed`` option."""
    kind, settings = parse_spec(spec)
    known = options(kind)
    arguments: dict[str, object] = {}
    for name, text in settings.items():
        if name not in known:
            shown = ", ".join(sorted(known)) or "none"
            raise PlayerSpecError(f"unknown option {name!r} for {kind} player (options: {shown})")
        try:
            arguments[name] = _CONVERTERS[known[name]](text)
        except ValueError:
            raise PlayerSpecError(
                f"option {name!r} of {kind} player expects {_EXPECTED[known[name]]}, got {text!r}"
            ) from None
    if "seed" in known and "seed" not in arguments and seed is not None:
        arguments["seed"] = seed
    try:
        return PLAYER_KINDS[kind](**arguments)
    except ValueError as problem:
        raise PlayerSpecError(f"bad {kind} player: {problem}") from None


#: ``ROLE=`` in front of a player description: an ``=`` before any ``:``.
ROLE_PREFIX = re.compile(r"^\s*([^:=\s]+)\s*=(.*)$")


def assign_roles(game: Game, specs: Sequence[str], default: str | None = "random") -> dict[str, str]:
    """Who plays each role of ``game`` (nature aside), in role order, from ``[ROLE=]SPEC`` texts: a
    named role gets its ``SPEC``, the others take the unnamed texts in role order, and any role left
    over gets ``default`` (None: a :class:`PlayerSpecError` says which roles have no player)."""
    chosen: dict[str, str] = {}
    unnamed: list[str] = []
    for text in specs:
        named = ROLE_PREFIX.match(text)
        if named is None:
            unnamed.append(text.strip())
            continue
        role = game.roles[game.role_index(named.group(1))]
        if role == game.chance_role:
            raise PlayerSpecError(f"role {game.spell(role)!r} is nature: the match draws its moves")
        if role in chosen:
            raise PlayerSpecError(f"role {game.spell(role)!r} is given two players")
        if not named.group(2).strip():
            raise PlayerSpecError(f"player {text!r} names a role but no player")
        chosen[role] = named.group(2).strip()
    free = [role for role in game.players if role not in chosen]
    if len(unnamed) > len(free):
        raise PlayerSpecError(f"{len(specs)} players given for {len(game.players)} role(s) of {game.name}")
    chosen.update(zip(free, unnamed, strict=False))
    missing = [game.spell(role) for role in game.players if role not in chosen]
    if missing and default is None:
        raise PlayerSpecError(f"no player for role(s) {', '.join(missing)} of {game.name}")
    return {role: chosen.get(role, default or "") for role in game.players}
