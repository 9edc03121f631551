"""The JSON game format's schema (``json-game.schema.json``, beside this module), applied state by
state, and its complaints in gdl's words, each at its JSON path."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from gdl.errors import JsonProblem

if TYPE_CHECKING:
    import jsonschema


@cache
def _validators() -> tuple[jsonschema.Draft7Validator, jsonschema.Draft7Validator]:
    """The schema split in two: the document without its states' contents, and one state."""
    import jsonschema  # here: importing it takes 0.4 s, which every gdl command would pay

    text = resources.files("gdl.extensive").joinpath("json-game.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    document = {**schema, "properties": {**schema["properties"], "states": {"type": "array"}}}
    state = {"$ref": "#/definitions/gameState", "definitions": schema["definitions"]}
    return jsonschema.Draft7Validator(document), jsonschema.Draft7Validator(state)


def _shape(state: Any) -> tuple[Any, ...] | None:
    """What the schema looks at in a state (its keys, their types, the player, whether a float result
    is whole, the types of the actions), so that a shape once valid need not be validated again; None
    when there is no such summary."""
    if not isinstance(state, dict):
        return None
    parts: list[tuple[Any, ...]] = []
    for key, value in state.items():
        kind = type(value).__name__
        if key == "player":
            if not isinstance(value, str | int | float):
                return None
            parts.append((key, kind, value))
        elif key == "result" and isinstance(value, float):
            parts.append((key, kind, value.is_integer()))
        elif key == "actions" and isinstance(value, list):
            parts.append((key, kind, frozenset(type(action).__name__ for action in value)))
        else:
            parts.append((key, kind))
    return tuple(sorted(parts, key=repr))


def json_path(parts: Iterator[str | int] | Sequence[str | int]) -> str:
    """A JSON path as gdl prints it: ``states[3].actions[1]``; ``$`` is the whole document."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "$"


def short_repr(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def schema_problems(document: Any) -> list[JsonProblem]:
    """The schema's complaints. States are validated one by one, and a state of a shape already found
    valid is not validated again (a game's states have few shapes: validating all 9,451 states of
    Leduc poker took 7 s, most of the reading)."""
    validate_document, validate_state = _validators()
    errors = [(list(error.absolute_path), error) for error in validate_document.iter_errors(document)]
    states = document.get("states") if isinstance(document, dict) else None
    valid: set[tuple[Any, ...]] = set()
    for index, state in enumerate(states if isinstance(states, list) else []):
        shape = _shape(state)
        if shape is not None and shape in valid:
            continue
        found = [
            (["states", index, *error.absolute_path], error) for error in validate_state.iter_errors(state)
        ]
        if found:
            errors += found
        elif shape is not None:
            valid.add(shape)
    return [JsonProblem(json_path(path), schema_message(error)) for path, error in errors]


def schema_message(error: jsonschema.ValidationError) -> str:
    """The schema's complaint in gdl's words, never quoting a whole state back."""
    instance: Any = error.instance
    kind = error.validator
    expected: Any = error.validator_value
    if kind == "oneOf" and isinstance(instance, dict):
        if "actions" in instance and "result" in instance:
            return "a state has either actions or a result, not both"
        return "a state needs either actions (chance or decision) or a result (terminal)"
    if kind == "not" and isinstance(instance, dict):
        return "only a decision state (player 1 or 2) has knowledge"
    if kind == "required":
        missing = [name for name in expected if name not in instance]
        return f"missing {', '.join(map(repr, missing))}"
    if kind == "dependencies" and isinstance(instance, dict):
        if "player" in instance and "actions" not in instance:
            return "a state with a player lists its actions"
        return "a state with actions names its player (1, 2 or chance)"
    if kind == "type":
        return f"{short_repr(instance)} is not of type {expected!r}"
    if kind == "enum":
        return f"{short_repr(instance)} is not one of {expected!r}"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."
