"""The dependency graph of a program: which relation's rules use which relations, and how."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import networkx as nx

from gdl.syntax.model import Atom, Program, Rule, walk_atoms


@dataclass(frozen=True, slots=True)
class Use:
    """One occurrence of a relation in the body of a rule for another."""

    rule: Rule
    atom: Atom
    negative: bool


def dependency_graph(program: Program) -> nx.DiGraph:
    """Relation ``p`` has an edge to ``q`` when a rule for ``p`` uses ``q`` in its body.

    Each edge carries ``negative`` (some use is under ``not``) and ``uses`` (every :class:`Use`, in
    source order), so that a diagnostic can point at the literal responsible for a dependency.
    """
    graph = nx.DiGraph()
    for rule in program.rules:
        head = rule.head.relation
        graph.add_node(head)
        for atom, positive in walk_atoms(rule.body):
            use = Use(rule, atom, not positive)
            if graph.has_edge(head, atom.relation):
                data = graph.edges[head, atom.relation]
                data["negative"] = data["negative"] or not positive
                data["uses"].append(use)
            else:
                graph.add_edge(head, atom.relation, negative=not positive, uses=[use])
    return graph


def describe_path(graph: nx.DiGraph, path: list[str]) -> str:
    """A path of relation names as ``a -> not b -> c``, marking the edges that go through negation."""
    parts = [path[0]]
    for a, b in pairwise(path):
        parts.append(("not " if graph.edges[a, b]["negative"] else "") + b)
    return " -> ".join(parts)
