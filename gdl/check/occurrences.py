"""Where relations and function symbols occur in a program, in source order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gdl.syntax.model import Atom, Distinct, Function, Literal, Not, Program, Term, walk_atoms, walk_terms


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def atoms_in_order(program: Program) -> Iterator[Atom]:
    """Every atom of every rule: each head, then the atoms of its body (inside ``not`` and ``or`` too)."""
    for rule in program.rules:
        yield rule.head
        for atom, _ in walk_atoms(rule.body):
            yield atom


def by_arity(atoms: Iterable[Atom]) -> dict[str, dict[int, list[Atom]]]:
    """The occurrences of each relation grouped by arity, both in order of first occurrence."""
    grouped: dict[str, dict[int, list[Atom]]] = {}
    for atom in atoms:
        grouped.setdefault(atom.relation, {}).setdefault(atom.arity, []).append(atom)
    return grouped


def _literal_terms(literal: Literal) -> Iterator[Term]:
    if isinstance(literal, Atom):
        yield from literal.args
    elif isinstance(literal, Not):
        yield from literal.atom.args
    elif isinstance(literal, Distinct):
        yield literal.left
        yield literal.right
    else:
        yield from (term for branch in literal.branches for lit in branch for term in _literal_terms(lit))


def functions_in_order(program: Program) -> Iterator[Function]:
    """Every compound term of every rule, outer terms before the terms nested in them."""
    for rule in program.rules:
        terms: list[Term] = list(rule.head.args)
        for literal in rule.body:
            terms.extend(_literal_terms(literal))
        for term in terms:
            for nested in walk_terms(term):
                if isinstance(nested, Function):
                    yield nested


