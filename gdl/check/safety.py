"""Rule safety: every variable is bound by a positive literal, so that rules only derive ground facts."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import networkx as nx

from gdl.diagnostics import Diagnostic, error
from gdl.syntax.model import Atom, Distinct, Literal, Not, Or, Program, Rule, Variable


def _every_atom(atom: Atom) -> bool:
    return True


def bound_variables(
    literals: tuple[Literal, ...], binds: Callable[[Atom], bool] = _every_atom
) -> set[Variable]:
    """The variables a conjunction binds: those of its positive atoms (for which ``binds`` holds), and
    those a disjunction in it binds in every branch. An empty disjunction binds nothing."""
    bound: set[Variable] = set()
    for literal in literals:
        if isinstance(literal, Atom):
            if binds(literal):
                bound.update(literal.variables())
        elif isinstance(literal, Or) and literal.branches:
            bound |= set.intersection(*(bound_variables(branch, binds) for branch in literal.branches))
    return bound


def _unbound(literals: tuple[Literal, ...], outside: set[Variable]) -> Iterator[tuple[Variable, str]]:
    """Variables of negations and ``distinct`` bound neither in their conjunction nor ``outside`` it."""
    bound = outside | bound_variables(literals)
    for literal in literals:
        if isinstance(literal, Not | Distinct):
            where = "a negated literal" if isinstance(literal, Not) else "'distinct'"
            for variable in literal.variables():
                if variable not in bound:
                    yield variable, where
        elif isinstance(literal, Or):
            for branch in literal.branches:
                for variable, where in _unbound(branch, bound):
                    yield variable, where + " inside a disjunction"


def unsafe_variables(rule: Rule) -> list[tuple[Variable, str]]:
    """Each occurrence of a variable that needs binding but is not bound, with where it occurs."""
    body_bound = bound_variables(rule.body)
    unsafe = [(variable, "the head") for variable in rule.head.variables() if variable not in body_bound]
    unsafe.extend(_unbound(rule.body, set()))
    return unsafe


def check_safety(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """One error per unsafe variable of a rule, at its first occurrence that needs binding."""
    for rule in program.rules:
        reported: set[Variable] = set()
        for variable, where in unsafe_variables(rule):
            if variable in reported:
                continue
            reported.add(variable)
            yield error(
                "unsafe-variable",
                f"unsafe variable '{variable}' in a rule for '{rule.head.relation}'",
                variable.span,
                f"'{variable}' occurs in {where} but in no positive literal that binds it",
                "a variable of the head, of a negation or of 'distinct' must occur in a positive literal",
            )
