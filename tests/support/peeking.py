"""A player that cheats: it searches everything it can reach for the true state of Monty Hall.

A module of its own, so that a match can pickle the player into a process of its own."""

from __future__ import annotations

import gc
import sys
import types
from collections import deque
from typing import Any

from gdl.game import State
from gdl.players import Player
from gdl.syntax.model import Function, Term
from gdl.syntax.reader import parse_term
from gdl.views import View

#: The most objects one search visits: far more than a player's process holds.
MAX_OBJECTS = 5_000_000


def _car_doors(fluents: Any) -> set[str]:
    return {str(f.args[0]) for f in fluents if isinstance(f, Function) and f.name == "car"}


class Peeking(Player):
    """Before choosing a door, walks every object reachable from what it was handed (itself, its view,
    its game: attributes, closures, containers, caches, anything :func:`gc.get_referents` gives) for a
    state of the game, decoding the keys of every reasoner's caches too; picks a door where it found the
    car, and stays. ``everything``: also start from every object the collector tracks and from every
    module (in a process of its own, all of it is the player's)."""

    name = "peeking"
    thinks = False

    def __init__(self, everything: bool) -> None:
        self.everything = everything
        self.found: set[str] = set()
        self.visited = 0

    def play(self, state: State, deadline: float) -> Term:
        raise AssertionError("Monty Hall has sees rules: the player gets views")

    def play_view(self, view: View, deadline: float) -> Term:
        chooses = [m for m in view.legal if isinstance(m, Function) and m.name == "choose"]
        if not chooses:
            return parse_term("noop") if parse_term("noop") in view.legal else view.legal[0]
        self.found = self._peek(view)
        door = min(self.found) if self.found else "1"
        return parse_term(f"(choose {door})")

    def info(self) -> dict[str, Any]:
        return {"found": sorted(self.found), "visited": self.visited}

    def _peek(self, view: View) -> set[str]:
        roots: list[object] = [self, view, self.game]
        skipped: set[int] = set()
        if self.everything:
            roots += [sys.modules, *gc.get_objects()]
        else:  # the objects handed over, not the interpreter's globals
            skipped = {id(vars(m)) for m in list(sys.modules.values()) if m is not None}
        found: set[str] = set()
        seen: set[int] = set()
        queue = deque(roots)
        while queue and len(seen) < MAX_OBJECTS:
            item = queue.popleft()
            if id(item) in seen or id(item) in skipped:
                continue
            seen.add(id(item))
            if not self.everything and isinstance(item, types.ModuleType | type):
                continue
            if isinstance(item, State):
                found |= _car_doors(item.fluents())
            elif _is_reasoner(item):
                found |= _decoded(item)
            queue.extend(gc.get_referents(item))
        self.visited = len(seen)
        return found


def _is_reasoner(item: object) -> bool:
    kind = type(item)
    return all(callable(getattr(kind, name, None)) for name in ("fluents", "legal", "next", "terminal"))


def _decoded(reasoner: Any) -> set[str]:
    """The car doors of every state a reasoner's caches hold (their keys and items, decoded)."""
    found: set[str] = set()
    for value in list(getattr(reasoner, "__dict__", {}).values()):
        candidates = list(value) if isinstance(value, dict | tuple | list) else []
        for candidate in candidates:
            if isinstance(candidate, int) and candidate < 0:  # a marker (no state yet), not a bitset
                continue
            try:
                found |= _car_doors(reasoner.fluents(candidate))
            except Exception:  # not a state of this reasoner: go on
                continue
    return found
