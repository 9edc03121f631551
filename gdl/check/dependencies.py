"""Keyword dependencies: what may depend on the state and the moves, through the dependency graph.

``role``, ``init``, ``base`` and ``input`` are the same in every state, so they must not depend on the
state, the moves or what is computed from them; ``legal``, ``goal`` and ``terminal`` are decided in a
state before its moves are made, so they must not depend on ``does``.

A keyword that uses a forbidden relation itself, or reaches it through positive literals only, is an
error: the rules on that path can never fire (``does`` is empty when ``terminal`` is evaluated, ``true``
when ``init`` is). Where the keyword reaches it only through another relation and every path goes
through a negation, the negated relation is constant where the keyword is evaluated (e.g.
``(not (killed ?e))`` always holds for ``terminal`` in fire_sheep, when ``killed`` is defined by
``does``). Such a program still has one clear meaning, and public games rely on it, so it is reported
as a warning.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from gdl.check.graph import describe_path
from gdl.diagnostics import Diagnostic, error, warning
from gdl.syntax.model import Program, walk_atoms

_STATEFUL = ("true", "does", "next", "legal", "goal", "terminal", "sees")

#: For each keyword, the relations it must not depend on, and why.
FORBIDDEN: dict[str, tuple[tuple[str, ...], str]] = {
    **{
        name: (_STATEFUL, f"'{name}' is the same in every state, so it cannot depend on the state or moves")
        for name in ("role", "init", "base", "input")
    },
    **{
        name: (("does",), f"'{name}' is decided in a state, before its moves are made")
        for name in ("legal", "goal", "terminal")
    },
}


def _reaching(graph: nx.DiGraph, target: str) -> set[str]:
    """The relations from which ``target`` can be reached, itself included."""
    return nx.ancestors(graph, target) | {target} if target in graph else set()


def _shortest(graph: nx.DiGraph, source: str, target: str) -> list[str]:
    return [target] if source == target else list(nx.shortest_path(graph, source, target))


def check_dependencies(program: Program, graph: nx.DiGraph) -> Iterator[Diagnostic]:
    """Report each body literal through which a keyword depends on a relation it must not depend on.

    The path of relation names from the keyword to the forbidden relation goes in a note. When one
    literal leads to several forbidden relations, the nearest is named.
    """
    positive = graph.edge_subgraph(
        [(u, v) for u, v, uses in graph.edges(data="uses") if any(not use.negative for use in uses)]
    )
    targets = {target for forbidden, _ in FORBIDDEN.values() for target in forbidden}
    reaching = {target: _reaching(graph, target) for target in targets}
    reaching_positively = {target: _reaching(positive, target) for target in targets}
    for rule in program.rules:
        keyword = rule.head.relation
        if keyword not in FORBIDDEN:
            continue
        forbidden, reason = FORBIDDEN[keyword]
        for atom, is_positive in walk_atoms(rule.body):
            reached = [target for target in forbidden if atom.relation in reaching[target]]
            if not reached:
                continue
            errors = [
                t
                for t in reached
                if atom.relation == t or (is_positive and atom.relation in reaching_positively[t])
            ]
            if errors:
                path = min((_shortest(positive, atom.relation, t) for t in errors), key=len)
                yield error(
                    "forbidden-dependency",
                    f"'{keyword}' depends on '{path[-1]}'",
                    atom.span,
                    "dependency: " + " -> ".join([keyword, *path]),
                    reason,
                )
            else:
                path = min((_shortest(graph, atom.relation, t) for t in reached), key=len)
                yield warning(
                    "negated-dependency",
                    f"'{keyword}' depends on '{path[-1]}' through a negation",
                    atom.span,
                    "dependency: " + describe_path(graph, [keyword, *path]),
                    reason,
                    f"where '{keyword}' is evaluated '{path[-1]}' is empty, so the negated relation on "
                    "this path is constant: the rules keep one meaning, but likely not the intended one",
                )

