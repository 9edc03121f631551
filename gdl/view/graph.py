"""Pictures of a game's rules: the relation dependency graph as SVG or Graphviz DOT.

An edge runs from a relation to each relation its rules use; an edge through ``not`` is dashed and
ends in a circle. Nodes are drawn in layers, the relations a rule uses below it, and coloured by
stratum (the number of negations below them: a relation is complete before any stratum above uses it
under ``not``); relations on a recursive cycle and the edges of the cycle are purple. What the checker
reports is red: the relation a diagnostic points into (an unsafe variable of a rule for ``legal``, the
undefined ``tru``) and the dependency it points at (``goal`` -> ``does``, an edge of a cycle through
negation), each with its message as the tooltip and in the list under the picture.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from html import escape

import networkx as nx

from gdl.check.graph import dependency_graph
from gdl.diagnostics import Diagnostic, Level
from gdl.syntax.model import Atom, Program, walk_atoms
from gdl.view.svg import document, tag, text

#: Fill colours of strata 0, 1, 2, ... (repeating).
STRATUM_COLOURS = ("#e8f0fe", "#e6f4ea", "#fef7e0", "#fce8e6", "#f3e8fd", "#e0f7fa")
ERROR = "#d93025"
RECURSIVE = "#8e44ad"
_LAYER_HEIGHT = 80
_NODE_HEIGHT = 28
_GAP = 18


@dataclass
class RuleGraph:
    """The dependency graph of a program with its strata, recursion and the checker's problems."""

    graph: nx.DiGraph
    strata: dict[str, int]
    layers: dict[str, int]
    recursive: set[str]
    #: Node or (head, used) edge -> the diagnostics that point at it.
    problems: dict[object, list[Diagnostic]] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()

    @classmethod
    def of(cls, program: Program, diagnostics: tuple[Diagnostic, ...] = ()) -> RuleGraph:
        graph = dependency_graph(program)
        component_of: dict[str, int] = {}
        condensed = nx.condensation(graph)
        for index, members in condensed.nodes(data="members"):
            for member in members:
                component_of[member] = index
        stratum: dict[int, int] = defaultdict(int)
        layer: dict[int, int] = defaultdict(int)
        for index in reversed(list(nx.topological_sort(condensed))):
            for member in condensed.nodes[index]["members"]:
                for used in graph.successors(member):
                    other = component_of[used]
                    if other != index:
                        negative = graph.edges[member, used]["negative"]
                        stratum[index] = max(stratum[index], stratum[other] + negative)
                        layer[index] = max(layer[index], layer[other] + 1)
        recursive = {
            m
            for index, members in condensed.nodes(data="members")
            if len(members) > 1 or any(graph.has_edge(m, m) for m in members)
            for m in members
        }
        found = cls(
            graph,
            {n: stratum[component_of[n]] for n in graph},
            {n: layer[component_of[n]] for n in graph},
            recursive,
            diagnostics=tuple(diagnostics),
        )
        for diagnostic in diagnostics:
            target = _target(program, graph, diagnostic)
            if target is not None:
                found.problems.setdefault(target, []).append(diagnostic)
        return found

    def to_dot(self) -> str:
        """The graph in Graphviz DOT: one cluster per stratum, the checker's problems in red."""
        lines = ["digraph rules {", "  rankdir=BT;", '  node [shape=box, style="rounded,filled"];']
        by_stratum: dict[int, list[str]] = defaultdict(list)
        for node in sorted(self.graph):
            by_stratum[self.strata[node]].append(node)
        for number, nodes in sorted(by_stratum.items()):
            lines.append(f'  subgraph cluster_stratum_{number} {{ label="stratum {number}";')
            for node in nodes:
                colour = ERROR if node in self.problems else RECURSIVE if node in self.recursive else "black"
                tooltip = _tooltip(self.problems.get(node, []))
                lines.append(
                    f'    "{_dot(node)}" [fillcolor="{STRATUM_COLOURS[number % len(STRATUM_COLOURS)]}", '
                    f'color="{colour}"{", penwidth=3" if node in self.problems else ""}'
                    f"{f', tooltip={chr(34)}{_dot(tooltip)}{chr(34)}' if tooltip else ''}];"
                )
            lines.append("  }")
        for head, used, negative in sorted(self.graph.edges(data="negative")):
            attrs = [] if not negative else ["style=dashed", "arrowhead=odot", 'label="not"']
            if (head, used) in self.problems:
                attrs += [
                    f'color="{ERROR}"',
                    "penwidth=3",
                    f'tooltip="{_dot(_tooltip(self.problems[head, used]))}"',
                ]
            elif self._cyclic(head, used):
                attrs.append(f'color="{RECURSIVE}"')
            lines.append(
                f'  "{_dot(head)}" -> "{_dot(used)}"' + (f" [{', '.join(attrs)}]" if attrs else "") + ";"
            )
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _cyclic(self, head: str, used: str) -> bool:
        return head in self.recursive and used in self.recursive and nx.has_path(self.graph, used, head)

    def to_svg(self, title: str = "") -> str:
        """The graph drawn in layers (uses below), with a legend and the checker's messages."""
        rows: dict[int, list[str]] = defaultdict(list)
        for node in sorted(self.graph):
            rows[self.layers[node]].append(node)
        top = max(rows, default=0)
        x_of: dict[str, float] = {}
        width_of = {n: 14 + 7.2 * len(n) for n in self.graph}
        # Each layer is ordered by where the relations it uses are (a barycentre sweep from the bottom).
        for number in range(top + 1):
            nodes = rows[number]
            if number:

                def centre(node: str) -> float:
                    below = [x_of[u] for u in self.graph.successors(node) if u in x_of]
                    return sum(below) / len(below) if below else 0.0

                nodes.sort(key=centre)
            x = 0.0
            for node in nodes:
                x_of[node] = x + width_of[node] / 2
                x += width_of[node] + _GAP
        widest = max((sum(width_of[n] + _GAP for n in row) for row in rows.values()), default=100)
        for row in rows.values():
            shift = (widest - sum(width_of[n] + _GAP for n in row)) / 2 + 20
            for node in row:
                x_of[node] += shift
        y_of: dict[str, float] = {n: 76 + (top - self.layers[n]) * _LAYER_HEIGHT for n in self.graph}
        parts = [
            "<defs>",
            _marker("arrow", tag("path", d="M0,0L8,4L0,8z", fill="context-stroke"), 10),
            _marker("not", tag("circle", cx=4, cy=4, r=3, fill="white", stroke="context-stroke"), 11),
            "</defs>",
        ]
        if title:
            parts.append(text(20, 22, title, font_size=15, font_weight="bold"))
        for head, used, negative in sorted(self.graph.edges(data="negative")):
            parts.append(self._edge(head, used, negative, x_of, y_of, width_of))
        for node in sorted(self.graph):
            parts.append(self._node(node, x_of[node], y_of[node], width_of[node]))
        height = 76 + (top + 1) * _LAYER_HEIGHT
        legend = [
            ("dashed, ending in a circle: a use under not", "#555"),
            ("purple: recursion (a cycle of dependencies)", RECURSIVE),
            ("red: what the checker reports (hover for the message)", ERROR),
        ]
        for i, (words, colour) in enumerate(legend):
            parts.append(text(20, height + 16 * i, words, fill=colour, font_size=12))
        height += 16 * len(legend)
        parts.append(text(20, height, "fill: the stratum", fill="#555", font_size=12))
        for number in range(1 + max(self.strata.values(), default=0)):
            x = 130 + 30 * number
            fill = STRATUM_COLOURS[number % len(STRATUM_COLOURS)]
            parts.append(tag("rect", x=x, y=height - 11, width=24, height=15, fill=fill, stroke="#555", rx=3))
            parts.append(text(x + 12, height, str(number), text_anchor="middle", font_size=11))
        height += 24
        longest = 0.0
        for diagnostic in self.diagnostics:
            colour = ERROR if diagnostic.level is Level.ERROR else "#b06000"
            where = f"{diagnostic.span.line}:{diagnostic.span.column}" if diagnostic.span.line else ""
            line = f"{where}: {diagnostic.level.value}: {diagnostic.message}"
            parts.append(text(20, height + 8, line, fill=colour, font_size=12, class_="diagnostic"))
            longest = max(longest, 40 + 6.6 * len(line))
            height += 18
        return document(
            max(widest + 40, 420, longest),
            height + 10,
            "".join(parts),
            font_family="sans-serif",
            font_size=13,
            class_="rules",
        )

    def _node(self, node: str, x: float, y: float, width: float) -> str:
        problems = self.problems.get(node, [])
        fill = STRATUM_COLOURS[self.strata[node] % len(STRATUM_COLOURS)]
        stroke = ERROR if problems else RECURSIVE if node in self.recursive else "#555"
        box = tag(
            "rect",
            x=x - width / 2,
            y=y - _NODE_HEIGHT / 2,
            width=width,
            height=_NODE_HEIGHT,
            rx=6,
            fill=fill,
            stroke=stroke,
            stroke_width=3 if problems else 1.5,
        )
        label = text(x, y + 4, node, text_anchor="middle")
        tip = tag(
            "title",
            escape(
                f"{node}: stratum {self.strata[node]}"
                + "".join(f"\n{d.level.value}: {d.message}" for d in problems)
            ),
        )
        return tag(
            "g",
            tip + box + label,
            class_="node error" if problems else "node",
            data_relation=node,
            data_stratum=self.strata[node],
        )

    def _edge(
        self,
        head: str,
        used: str,
        negative: bool,
        x_of: dict[str, float],
        y_of: dict[str, float],
        width_of: dict[str, float],
    ) -> str:
        problems = self.problems.get((head, used), [])
        colour = ERROR if problems else RECURSIVE if self._cyclic(head, used) else "#777"
        x1, y1, x2, y2 = x_of[head], y_of[head], x_of[used], y_of[used]
        if head == used:
            w = width_of[head] / 2
            d = f"M{x1 + w},{y1 - 4}C{x1 + w + 30},{y1 - 30} {x1 + w + 30},{y1 + 26} {x1 + w},{y1 + 6}"
        elif y2 > y1:  # the used relation is below
            d = f"M{x1},{y1 + _NODE_HEIGHT / 2}L{x2},{y2 - _NODE_HEIGHT / 2}"
        else:  # same layer or above, on a cycle: rightwards over the nodes, leftwards under them
            side = -1 if x2 >= x1 else 1
            edge = side * _NODE_HEIGHT / 2
            turn = (y1 + y2) / 2 + side * (_NODE_HEIGHT / 2 + 36)
            d = f"M{x1},{y1 + edge}Q{(x1 + x2) / 2},{turn} {x2},{y2 + edge}"
        tip = tag(
            "title",
            escape(
                f"{head} uses {'not ' if negative else ''}{used}"
                + "".join(f"\n{d.level.value}: {d.message}" for d in problems)
            ),
        )
        path = tag(
            "path",
            d=d,
            fill="none",
            stroke=colour,
            stroke_width=3 if problems else 1.3,
            stroke_dasharray="5,4" if negative else None,
            marker_end="url(#not)" if negative else "url(#arrow)",
        )
        return tag(
            "g",
            tip + path,
            class_="edge error" if problems else "edge",
            data_from=head,
            data_to=used,
            data_negative=str(negative).lower(),
        )


def _target(program: Program, graph: nx.DiGraph, diagnostic: Diagnostic) -> object | None:
    """The node or edge a diagnostic points into: the innermost atom of a rule at its position (the
    head: that relation; a body literal: the dependency, and the relation too when nothing defines it)."""
    if not diagnostic.span.line:
        return None
    at = diagnostic.span.start
    for rule in program.rules:
        if not rule.span.start <= at < max(rule.span.end, rule.span.start + 1):
            continue
        atoms: list[tuple[Atom, bool]] = [(rule.head, True), *((a, False) for a, _ in walk_atoms(rule.body))]
        inside = [(a, head) for a, head in atoms if a.span.start <= at < a.span.end]
        if not inside:
            return rule.head.relation
        atom, is_head = min(inside, key=lambda item: item[0].span.end - item[0].span.start)
        if is_head or atom.relation == rule.head.relation:
            return atom.relation
        defined = {r.head.relation for r in program.rules}
        if atom.relation not in defined and diagnostic.code == "undefined-relation":
            return atom.relation
        return rule.head.relation, atom.relation
    return None


def _marker(name: str, shape: str, size: int) -> str:
    """An arrowhead (``url(#name)``) drawn in the colour of the line it ends, ``size`` units wide
    however thick the line."""
    return tag("marker", shape, id=name, viewBox="0 0 8 8", refX=8, refY=4, markerWidth=size,
               markerHeight=size, orient="auto", markerUnits="userSpaceOnUse")


def _tooltip(diagnostics: list[Diagnostic]) -> str:
    return "; ".join(f"{d.level.value}: {d.message}" for d in diagnostics)


def _dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def rule_picture(text: str, file: str, fmt: str = "svg") -> tuple[str, tuple[Diagnostic, ...]]:
    """The dependency graph of the KIF ``text`` (named ``file``) as SVG or DOT, and the checker's
    diagnostics, which it marks."""
    from gdl.check import check
    from gdl.syntax.reader import read

    result = read(text, file)
    diagnostics = check(result.program, result.diagnostics).diagnostics
    picture = RuleGraph.of(result.program, diagnostics)
    return (picture.to_dot() if fmt == "dot" else picture.to_svg(file)), diagnostics
