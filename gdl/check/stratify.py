"""Stratified negation: order the rules so that every negated literal is complete before it is used.

The order is first sought at the level of relation names. Some real games negate a relation inside its
own definition with different constant arguments, e.g. ``(<= (goal robot 100) (not (goal robot 0)))``.
No ground instance closes such a cycle, so those relations are split by the constant arguments of their
heads (``goal/robot/0`` and ``goal/robot/100``), and the program is accepted, with a warning, when the
refined graph is stratified. The evaluator runs the strata found here, so it reads the program the same
way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import networkx as nx

from gdl.budget import checkpoint
from gdl.check.graph import describe_path
from gdl.diagnostics import Diagnostic, error, warning
from gdl.syntax.model import Atom, Constant, Program, Rule, walk_atoms

#: A refined node: a relation with the constant arguments of a head (None for any other argument),
#: or with ``None`` in place of the whole pattern when the relation is not split.
_Pattern = tuple[str | None, ...]
_Node = tuple[str, _Pattern | None]


@dataclass(frozen=True, slots=True)
class Stratum:
    """Rules evaluated together to a fixpoint, after every stratum before them is complete."""

    rules: tuple[Rule, ...]
    relations: frozenset[str]
    recursive: bool


def _pattern(atom: Atom) -> _Pattern:
    return tuple(arg.name if isinstance(arg, Constant) else None for arg in atom.args)


def _unify(a: _Pattern, b: _Pattern) -> bool:
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def _negative_cycles(graph: nx.DiGraph) -> list[tuple[set[Any], tuple[Any, Any]]]:
    """Components of ``graph`` that contain a negative edge, with one such edge each."""
    found = []
    for component in nx.strongly_connected_components(graph):
        if len(component) == 1 and not any(graph.has_edge(node, node) for node in component):
            continue  # no cycle at all; skipping it keeps large programs of plain facts fast
        for u, v, negative in graph.subgraph(component).edges(data="negative"):
            if negative:
                found.append((component, (u, v)))
                break
    return found


#: Dependencies the refined graph may have (a few hundred bytes each). A relation negating itself under
#: thousands of constant heads, each reading all the others, makes millions (a 69 kB file: 3.2 GB).
MAX_REFINED_EDGES = 200_000


def _refined_graph(program: Program, split: set[str]) -> tuple[nx.DiGraph, dict[Rule, _Node]] | None:
    """The graph of the ``split`` relations' heads by constant arguments; None when it would have more
    than :data:`MAX_REFINED_EDGES` edges."""
    heads: dict[str, set[_Pattern]] = defaultdict(set)
    for rule in program.rules:
        if rule.head.relation in split:
            heads[rule.head.relation].add(_pattern(rule.head))

    def nodes_for(atom: Atom) -> list[_Node]:
        if atom.relation not in split:
            return [(atom.relation, None)]
        pattern = _pattern(atom)
        return [(atom.relation, p) for p in heads[atom.relation] if _unify(p, pattern)]

    graph = nx.DiGraph()
    node_of: dict[Rule, _Node] = {}
    edges = 0
    for rule in program.rules:
        checkpoint()
        edges += sum(len(nodes_for(atom)) for atom, _ in walk_atoms(rule.body))
        if edges > MAX_REFINED_EDGES:
            return None
        head: _Node = (
            (rule.head.relation, _pattern(rule.head))
            if rule.head.relation in split
            else (rule.head.relation, None)
        )
        node_of[rule] = head
        graph.add_node(head)
        for atom, positive in walk_atoms(rule.body):
            for node in nodes_for(atom):
                negative = not positive or (
                    graph.has_edge(head, node) and graph.edges[head, node]["negative"]
                )
                graph.add_edge(head, node, negative=negative)
    return graph, node_of


def _strata(graph: nx.DiGraph, rules_of: dict[_Node, list[Rule]]) -> tuple[Stratum, ...]:
    condensed = nx.condensation(graph)
    strata = []
    # Edges run from a head to what it uses, so the reversed topological order evaluates uses first.
    for index in reversed(list(nx.topological_sort(condensed))):
        members: set[_Node] = condensed.nodes[index]["members"]
        rules = tuple(rule for node in sorted(members, key=str) for rule in rules_of.get(node, ()))
        if not rules:
            continue
        recursive = len(members) > 1 or any(graph.has_edge(m, m) for m in members)
        strata.append(Stratum(rules, frozenset(m[0] for m in members), recursive))
    return tuple(strata)


def _cycle_path(graph: nx.DiGraph, component: set[str], edge: tuple[str, str]) -> list[str]:
    u, v = edge
    back: list[str] = nx.shortest_path(graph.subgraph(component), v, u)
    return [u, *back]


def _negated(graph: nx.DiGraph, edge: tuple[str, str]) -> Any:
    """The first negated use along ``edge`` of the relation graph."""
    uses = (use for use in graph.edges[edge]["uses"] if use.negative)
    return min(uses, key=lambda use: use.atom.span.start)


def _too_many_dependencies(graph: nx.DiGraph, component: set[str], edge: tuple[str, str]) -> Diagnostic:
    negated = _negated(graph, edge)
    return error(
        "unstratified",
        f"cycle through negation: '{negated.rule.head.relation}' depends on '(not {negated.atom})', which "
        f"depends on '{negated.rule.head.relation}'",
        negated.atom.span,
        f"cycle: {describe_path(graph, _cycle_path(graph, component, edge))}",
        f"split by constant arguments its rules have more than {MAX_REFINED_EDGES} dependencies, too many "
        "to check that no cycle goes through negation",
    )


def stratify(
    program: Program, graph: nx.DiGraph
) -> tuple[tuple[Stratum, ...] | None, list[Diagnostic]]:
    """Strata in evaluation order, or None with an error for every cycle through negation."""
    relation_graph = nx.DiGraph()
    relation_graph.add_nodes_from((node, None) for node in graph.nodes)
    relation_graph.add_edges_from(
        ((u, None), (v, None), {"negative": negative})
        for u, v, negative in graph.edges(data="negative")
    )
    cycles = _negative_cycles(graph)
    if not cycles:
        rules_of: dict[_Node, list[Rule]] = defaultdict(list)
        for rule in program.rules:
            rules_of[(rule.head.relation, None)].append(rule)
        return _strata(relation_graph, rules_of), []

    split = {relation for component, _ in cycles for relation in component}
    found = _refined_graph(program, split)
    if found is None:
        return None, [_too_many_dependencies(graph, component, edge) for component, edge in cycles]
    refined, node_of = found
    diagnostics: list[Diagnostic] = []
    refined_cycles = _negative_cycles(refined)
    still_cyclic = {node[0] for component, _ in refined_cycles for node in component}
    for component, edge in cycles:
        path = _cycle_path(graph, component, edge)
        negated = _negated(graph, edge)
        cycle = describe_path(graph, path)
        if component & still_cyclic:
            diagnostics.append(
                error(
                    "unstratified",
                    f"cycle through negation: '{negated.rule.head.relation}' depends on "
                    f"'(not {negated.atom})', which depends on '{negated.rule.head.relation}'",
                    negated.atom.span,
                    f"cycle: {cycle}",
                    "negation must not occur on a cycle of the dependency graph",
                )
            )
        else:
            diagnostics.append(
                warning(
                    "stratified-by-arguments",
                    f"'{negated.rule.head.relation}' negates itself, but with other constant arguments",
                    negated.atom.span,
                    f"cycle at the level of relation names: {cycle}",
                    "split by constant arguments no cycle goes through negation, so the rules are "
                    "evaluated in that refined order",
                )
            )
    if refined_cycles:
        return None, diagnostics
    rules_by_node: dict[_Node, list[Rule]] = defaultdict(list)
    for rule in program.rules:
        rules_by_node[node_of[rule]].append(rule)
    return _strata(refined, rules_by_node), diagnostics
