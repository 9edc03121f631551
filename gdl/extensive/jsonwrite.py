"""Writing the JSON game format (see :mod:`gdl.extensive.jsonformat`): any two-player zero-sum game
with integer payoffs whose chance moves are uniform, the only chance the format has.

States are named by the action labels from the root (the root is ``start``); the first player is
``1``, the second ``2``. An information-set key ``"p:k"`` of player ``p`` (as reading makes them) is
written as knowledge ``k``, so a game read from JSON is written back as it was read; other keys are
written whole.
"""

from __future__ import annotations

import json
from typing import Any

from gdl.deprecation import moved_names
from gdl.errors import JsonWriteError
from gdl.extensive.model import Chance, ExtensiveGame, Node, Terminal, format_history

#: The players of the format, in order.
PLAYERS = ("1", "2")


def write_json_game(game: ExtensiveGame, *, description: str = "") -> str:
    """``game`` in the JSON format; raises :class:`JsonWriteError` saying why it cannot be written."""
    if len(game.players) != 2:
        raise JsonWriteError(f"the JSON format has two players; this game has {len(game.players)}")
    first, second = game.players
    number = {first: 1, second: 2}
    prefixes = {key.startswith(f"{info.player}:") for key, info in game.infosets.items()}
    strip = prefixes == {True}  # keys written as "player:knowledge" read back the same
    states: list[dict[str, Any]] = []
    names: set[str] = set()
    stack: list[tuple[tuple[str, ...], Node, str]] = [((), game.root, _fresh("start", names))]
    while stack:
        history, node, name = stack.pop()
        if isinstance(node, Terminal):
            states.append({"name": name, "result": _result(node, first, second, history)})
            continue
        children = [
            (a, c, _fresh(" ".join((*history, a)), names))
            for a, c in zip(node.actions, node.children, strict=True)
        ]
        state: dict[str, Any] = {"name": name}
        if isinstance(node, Chance):
            if len(set(node.probabilities)) != 1:
                shown = ", ".join(str(p) for p in node.probabilities)
                raise JsonWriteError(
                    f"the JSON format's chance is uniform; the chance node at {format_history(history)} "
                    f"has probabilities {shown}"
                )
            state["player"] = "chance"
        else:
            state["player"] = number[node.player]
            state["knowledge"] = node.infoset[len(node.player) + 1 :] if strip else node.infoset
        state["actions"] = [{action: child_name} for action, _, child_name in children]
        states.append(state)
        stack.extend(((*history, a), c, child_name) for a, c, child_name in reversed(children))
    document: dict[str, Any] = {"name": game.title} if game.title else {}
    if description:
        document["description"] = description
    document["start"] = states[0]["name"]
    document["states"] = states
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _fresh(name: str, used: set[str]) -> str:
    """``name``, or ``name #2``, ``name #3``... whichever is not yet used."""
    candidate, number = name or "start", 1
    while candidate in used:
        number += 1
        candidate = f"{name} #{number}"
    used.add(candidate)
    return candidate


def _result(node: Terminal, first: str, second: str, history: tuple[str, ...]) -> int:
    one, two = node.payoff(first), node.payoff(second)
    if one + two != 0:
        raise JsonWriteError(
            f"the JSON format is zero-sum; the terminal at {format_history(history)} pays {one} and {two}"
        )
    if one.denominator != 1:
        raise JsonWriteError(
            f"the JSON format's results are integers; the terminal at {format_history(history)} pays {one}"
        )
    return int(one)


moved_names(__name__, "gdl.errors", "JsonWriteError")
