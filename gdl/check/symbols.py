"""Relation and function symbols: one arity each, never both kinds, and each relation defined and used."""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from gdl.check.keywords import GIVEN, KEYWORD_ARITY
from gdl.check.occurrences import atoms_in_order, by_arity, functions_in_order, plural
from gdl.diagnostics import Diagnostic, error, warning
from gdl.syntax.model import Atom, Function, Program, walk_atoms


def check_arities(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """Each relation and each function symbol has one arity; no name is both a relation and a function.

    A relation with two arities is an error (the GDL specification forbids it and the evaluator could
    not index it); a function symbol with two arities is only a warning, as in other GDL validators.
    Keywords are left to :func:`gdl.check.keywords.check_keywords`, which knows their arities.
    """
    relations = by_arity(atoms_in_order(program))
    for name, arities in relations.items():
        if name in KEYWORD_ARITY:
            continue
        first_arity, first_atoms = next(iter(arities.items()))
        for arity, atoms in list(arities.items())[1:]:
            yield error(
                "relation-arity",
                f"relation '{name}' used with {plural(arity, 'argument')}",
                atoms[0].span,
                f"'{name}' is first used with {plural(first_arity, 'argument')} at {first_atoms[0].span}",
                "a relation has one arity",
            )
    functions: dict[str, dict[int, Function]] = {}
    for term in functions_in_order(program):
        functions.setdefault(term.name, {}).setdefault(len(term.args), term)
    for name, first_of in functions.items():
        first_arity, first = next(iter(first_of.items()))
        for arity, term in list(first_of.items())[1:]:
            yield warning(
                "function-arity",
                f"function '{name}' used with {plural(arity, 'argument')}",
                term.span,
                f"'{name}' is first used with {plural(first_arity, 'argument')} at {first.span}",
            )
        if name in relations:
            relation = next(iter(relations[name].values()))[0]
            yield warning(
                "relation-and-function",
                f"'{name}' is used both as a relation and as a function",
                first.span,
                f"'{name}' is used as a relation at {relation.span}",
            )


def check_usage(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """Relations used but never defined (always false) and relations defined but never used."""
    defined: dict[str, Atom] = {}
    for rule in program.rules:
        defined.setdefault(rule.head.relation, rule.head)
    used: dict[str, Atom] = {}
    for rule in program.rules:
        for atom, _ in walk_atoms(rule.body):
            used.setdefault(atom.relation, atom)
    for name, atom in used.items():
        if name not in defined and name not in GIVEN:
            yield warning(
                "undefined-relation",
                f"relation '{name}' is used but never defined",
                atom.span,
                f"no rule or fact defines '{name}', so it is always false",
            )
    for name, atom in defined.items():
        if name not in used and name not in KEYWORD_ARITY:
            yield warning(
                "unused-relation",
                f"relation '{name}' is defined but never used",
                atom.span,
                f"no rule body mentions '{name}' and it is no GDL keyword",
            )
