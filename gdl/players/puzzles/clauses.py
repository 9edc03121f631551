"""Rules as :mod:`.possible` solves them: terms as plain Python values, unification over bindings, and
clauses renamed apart at each use.

A constant is its name, a compound term a tuple (functor, arguments...), a variable a :class:`Var`
(compared by identity); a binding maps variables to values, extended by copying (a search backtracks by
dropping the copy).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from gdl.datalog.plan import split_disjunctions
from gdl.syntax.model import Atom, Constant, Distinct, Not, Rule, Term, Variable
from gdl.syntax.model import Literal as RuleLiteral


class Var:
    """A variable of a rule in use (each use of a rule gets fresh ones)."""

    __slots__ = ()


#: A term here: a constant's name, a variable, or a compound as (functor, arguments...).
Value = str | Var | tuple[object, ...]
Binding = dict[Var, Value]


@dataclass(frozen=True)
class Literal:
    kind: str  # "pos", "neg" or "distinct"
    relation: str
    args: tuple[Value, ...]


@dataclass(frozen=True)
class Clause:
    head: tuple[Value, ...]
    body: tuple[Literal, ...]
    variables: tuple[Var, ...] = field(default=())


def value_of(term: Term, names: dict[str, Var]) -> Value:
    if isinstance(term, Constant):
        return term.name
    if isinstance(term, Variable):
        return names.setdefault(term.name, Var())
    return (term.name, *(value_of(arg, names) for arg in term.args))


def walk(value: Value, binding: Binding) -> Value:
    while isinstance(value, Var) and value in binding:
        value = binding[value]
    return value


def resolve(value: Value, binding: Binding) -> Value:
    value = walk(value, binding)
    if isinstance(value, tuple):
        return tuple(resolve(arg, binding) if isinstance(arg, (Var, tuple)) else arg
                     for arg in value)
    return value


def add_free(value: Value, binding: Binding, into: set[Var]) -> None:
    """Add the unbound variables of ``value`` to ``into``."""
    while isinstance(value, Var):
        bound = binding.get(value)
        if bound is None:
            into.add(value)
            return
        value = bound
    if isinstance(value, tuple):
        for arg in value[1:]:
            add_free(arg, binding, into)  # type: ignore[arg-type]


def is_ground(value: Value, binding: Binding) -> bool:
    value = walk(value, binding)
    if isinstance(value, Var):
        return False
    if isinstance(value, tuple):
        return all(is_ground(arg, binding) for arg in value[1:])  # type: ignore[arg-type]
    return True


def unify(left: Value, right: Value, binding: Binding) -> Binding | None:
    left, right = walk(left, binding), walk(right, binding)
    if left is right or (isinstance(left, str) and left == right):
        return binding
    if isinstance(left, Var):
        return {**binding, left: right}
    if isinstance(right, Var):
        return {**binding, right: left}
    if isinstance(left, tuple) and isinstance(right, tuple) and len(left) == len(right) \
            and left[0] == right[0]:
        for a, b in zip(left[1:], right[1:], strict=True):
            unified = unify(a, b, binding)  # type: ignore[arg-type]
            if unified is None:
                return None
            binding = unified
        return binding
    return None


def unify_all(lefts: Sequence[Value], rights: Sequence[Value], binding: Binding | None) -> Binding | None:
    for left, right in zip(lefts, rights, strict=True):
        if binding is None:
            return None
        binding = unify(left, right, binding)
    return binding


def pattern_key(values: Sequence[Value], binding: Binding) -> tuple[object, ...]:
    """The values resolved, their variables numbered by first occurrence: one key per call pattern."""
    numbers: dict[Var, int] = {}

    def canonical(value: Value) -> object:
        value = walk(value, binding)
        if isinstance(value, Var):
            return ("?", numbers.setdefault(value, len(numbers)))
        if isinstance(value, tuple):
            return (value[0], *(canonical(arg) for arg in value[1:]))  # type: ignore[arg-type]
        return value

    return tuple(canonical(value) for value in values)


def rename(clause: Clause) -> tuple[tuple[Value, ...], tuple[Literal, ...]]:
    if not clause.variables:
        return clause.head, clause.body
    fresh = {var: Var() for var in clause.variables}

    def renamed(value: Value) -> Value:
        if isinstance(value, Var):
            return fresh[value]
        if isinstance(value, tuple):
            return (value[0], *(renamed(arg) for arg in value[1:]))  # type: ignore[arg-type]
        return value

    head = tuple(renamed(arg) for arg in clause.head)
    body = tuple(Literal(lit.kind, lit.relation, tuple(renamed(arg) for arg in lit.args))
                 for lit in clause.body)
    return head, body


def variables(values: Iterable[Value]) -> Iterator[Var]:
    for value in values:
        if isinstance(value, Var):
            yield value
        elif isinstance(value, tuple):
            yield from variables(value[1:])  # type: ignore[arg-type]


def fluent_value(term: Term) -> Value:
    """A ground fluent (a term of the game) as this module holds it."""
    return value_of(term, {})


def clauses_of(rules: Iterable[Rule]) -> dict[str, list[Clause]]:
    """The clauses of ``rules`` (``or`` multiplied out) by the relation of their heads."""
    clauses: dict[str, list[Clause]] = {}
    for rule in rules:
        for head, body in split_disjunctions(rule):
            names: dict[str, Var] = {}
            head_args = tuple(value_of(arg, names) for arg in head.args)
            literals = tuple(_literal_of(literal, names) for literal in body)
            clauses.setdefault(head.relation, []).append(Clause(head_args, literals, tuple(names.values())))
    return clauses


def _literal_of(literal: RuleLiteral, names: dict[str, Var]) -> Literal:
    if isinstance(literal, Atom):
        return Literal("pos", literal.relation, tuple(value_of(arg, names) for arg in literal.args))
    if isinstance(literal, Not):
        atom = literal.atom
        return Literal("neg", atom.relation, tuple(value_of(arg, names) for arg in atom.args))
    assert isinstance(literal, Distinct), "split_disjunctions removes every or"
    return Literal("distinct", "distinct", (value_of(literal.left, names), value_of(literal.right, names)))
