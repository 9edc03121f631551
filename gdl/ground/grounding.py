"""The instantiated game: ground values, atoms and rules, as instantiation makes them and networks
read them."""

from __future__ import annotations

from dataclasses import dataclass, field

from gdl.check import CheckedProgram
from gdl.syntax.model import Constant, Function, Term

#: A ground term: a constant's name, or ``(name, arg, ...)`` for a function term.
#: A ground term: a constant's name, or ``(name, arg, ...)`` for a function term.
Value = str | tuple["Value", ...]
#: A ground atom: the relation and its argument values.
#: A ground atom: the relation and its argument values.
GroundAtom = tuple[str, tuple[Value, ...]]

#: Relations whose ground rules make the network's outputs (``sees``: the percepts of GDL-II).
OUTPUT_RELATIONS = ("legal", "next", "goal", "terminal", "sees")


def value_of(term: Term) -> Value:
    """The ground value of a ground term of the clause model."""
    if isinstance(term, Constant):
        return term.name
    if isinstance(term, Function):
        return (term.name, *map(value_of, term.args))
    raise ValueError(f"term is not ground: {term}")


def term_of(value: Value) -> Term:
    """The clause-model term of a ground value."""
    if isinstance(value, str):
        return Constant(value)
    return Function(value[0], tuple(term_of(arg) for arg in value[1:]))  # type: ignore[arg-type]


def atom_text(atom: GroundAtom) -> str:
    """The KIF text of a ground atom."""
    relation, args = atom
    if not args:
        return relation
    return "(" + " ".join([relation, *map(value_text, args)]) + ")"


def value_text(value: Value) -> str:
    if isinstance(value, str):
        return value
    return "(" + " ".join([value[0], *map(value_text, value[1:])]) + ")"  # type: ignore[list-item]


@dataclass(frozen=True, slots=True)
class GroundRule:
    """``head`` holds when every body literal holds; ``origin`` numbers the (or-free) rule it came from.

    The body keeps one slot per literal of the origin rule that depends on the state, in order; a slot is
    ``None`` where the literal was folded to true, so that instances of one rule line up by position.
    """

    head: GroundAtom
    body: tuple[tuple[GroundAtom, bool] | None, ...]
    origin: int


@dataclass
class Grounding:
    """The instantiated game: its roles, fluents, moves and ground rules, and what it cost."""

    roles: tuple[str, ...]
    init: frozenset[Value]
    #: Every fluent that can ever hold (the relaxed ``true`` atoms), sorted by KIF text.
    fluents: tuple[Value, ...]
    #: Every (role, move) that can ever be played (the relaxed ``does`` atoms), sorted.
    moves: tuple[tuple[Value, Value], ...]
    #: Ground rules of every state-dependent relation needed by the outputs.
    rules: tuple[GroundRule, ...]
    #: Static output facts (e.g. a constant ``goal``), already true in every state.
    facts: frozenset[GroundAtom]
    relaxed_atoms: int
    seconds: float
    stats: dict[str, float] = field(default_factory=dict)


def sorted_roles(checked: CheckedProgram) -> list[str]:
    """Role names in declaration order."""
    return [
        str(rule.head.args[0])
        for rule in checked.program.rules
        if rule.head.relation == "role" and not rule.body and len(rule.head.args) == 1
    ]
