"""``gdl network GAME``: instantiate a game and describe its propositional network.

Prints the grounding cost and the network's size; ``--dot FILE`` or ``--graphml FILE`` writes the
network for a graph viewer (Graphviz, yEd, Gephi). Base propositions, inputs and outputs are labelled
with their atoms. ``--table`` prints one Markdown table row per game instead (for many games at once).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import networkx as nx

from gdl.cli._common import (
    add_command,
    add_time_limit,
    checked_program,
    output_file,
    positive_int,
    write_text,
)
from gdl.errors import GameTooLargeError
from gdl.ground.grounding import value_text
from gdl.ground.instantiate import DEFAULT_MAX_ATOMS, DEFAULT_MAX_SECONDS, instantiate
from gdl.ground.propnet import FALSE, TRUE, PropNet, build
from gdl.view.network import network_svg


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers, "network", "instantiate a game and show its propositional network",
        """Grounds each game within an atom and time budget and prints the cost and the network's size
(base propositions, inputs, and, or, not gates, edges). --dot FILE or --graphml FILE writes the network
for a graph viewer (Graphviz, yEd, Gephi), its base propositions, inputs and outputs labelled with
their atoms; --table prints one Markdown table row per game instead.""",
        [
            "gdl network games/tictactoe.kif",
            "gdl network games/nim.kif --dot nim.dot",
            "gdl network games/tictactoe.kif --picture tictactoe.network.svg",
            "gdl network games/*.kif --table --time-limit 5",
        ],
    )
    parser.add_argument("games", nargs="+", metavar="GAME", help="GDL file (.kif)")
    parser.add_argument("--table", action="store_true", help="one Markdown table row per game")
    parser.add_argument("--dot", metavar="FILE", type=output_file, help="write the network as Graphviz DOT")
    parser.add_argument("--graphml", metavar="FILE", type=output_file, help="write the network as GraphML")
    parser.add_argument("--picture", metavar="FILE", type=output_file,
                        help="draw the summary (nodes by kind, gates by depth) as SVG")
    parser.add_argument(
        "--max-atoms", type=positive_int, default=DEFAULT_MAX_ATOMS, metavar="N",
        help=f"atom budget of instantiation (default {DEFAULT_MAX_ATOMS})",
    )
    add_time_limit(parser, DEFAULT_MAX_SECONDS, "CPU seconds of instantiation")
    parser.set_defaults(run=run)


def graph(net: PropNet) -> nx.DiGraph:
    """The network as a graph: an edge from each node to every gate that reads it."""
    result: nx.DiGraph = nx.DiGraph()
    for node in range(net.size):
        kind = "base" if node < net.first_input else "input" if node < net.first_gate else "gate"
        result.add_node(node, label=net.label(node), kind=kind)
    for gate, args in enumerate(net.args):
        for arg in args:
            result.add_edge(arg, net.first_gate + gate)
    outputs: list[tuple[str, int]] = [
        (f"(next {value_text(f)})", n) for f, n in zip(net.fluents, net.next, strict=True)
    ]
    outputs.append(("terminal", net.terminal))
    for relation, table in (("legal", net.legal), ("goal", net.goals)):
        for role, entries in enumerate(table):
            outputs += [(f"({relation} {net.roles[role]} {value_text(v)})", n) for v, n in entries]
    for label, node in outputs:
        if node in (FALSE, TRUE):
            result.add_node(label, label=f"{label} = {'true' if node == TRUE else 'false'}", kind="output")
        else:
            result.add_node(label, label=label, kind="output")
            result.add_edge(node, label)
    return result


def _dot(net: PropNet) -> str:
    shapes = {"base": "box", "input": "diamond", "gate": "ellipse", "output": "note"}
    lines = ["digraph propnet {", "  rankdir=LR;"]
    names: dict[object, str] = {}
    exported = graph(net)
    for index, (node, data) in enumerate(exported.nodes(data=True)):
        names[node] = f"n{index}"
        label = str(data["label"]).replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'  n{index} [label="{label}", shape={shapes[data["kind"]]}];')
    for source, target in exported.edges:
        lines.append(f"  {names[source]} -> {names[target]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


_HEADER = (
    "| game | CPU s | relaxed atoms | ground rules | base | input | and | or | not | edges |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def run(args: argparse.Namespace) -> int:
    if args.table:
        print(_HEADER)
    status = 0
    for name in args.games:
        status = max(status, _one(Path(name), args))
    return status


def _one(path: Path, args: argparse.Namespace) -> int:
    checked = checked_program(path, "network")
    if isinstance(checked, int):
        return checked
    started = time.process_time()
    try:
        grounding = instantiate(checked, args.max_atoms, args.time_limit)
    except GameTooLargeError as problem:
        if args.table:
            spent = time.process_time() - started
            reason = re.sub(r"^cannot instantiate '.*?':? ", "", str(problem))
            print(f"| {path.stem} | {spent:.2f} | too large: {reason} |||||||")
            return 0
        print(f"gdl network: {problem}", file=sys.stderr)
        return 1
    started = time.process_time()
    net = build(grounding)
    built = time.process_time() - started
    sizes = net.sizes()
    if args.table:
        counts = " | ".join(str(sizes[k]) for k in ("base", "input", "and", "or", "not", "edges"))
        print(
            f"| {path.stem} | {grounding.seconds + built:.2f} | {grounding.relaxed_atoms} | "
            f"{len(grounding.rules)} | {counts} |"
        )
        return 0
    print(f"game: {path.stem}")
    print(f"roles: {' '.join(net.roles)}")
    print(
        f"instantiation: {grounding.seconds:.3f} s CPU, {grounding.relaxed_atoms} relaxed atoms, "
        f"{len(grounding.rules)} ground rules"
    )
    print(f"network: built in {built:.3f} s CPU, {net.size} nodes")
    for name, count in sizes.items():
        print(f"  {name}: {count}")
    if args.dot and not write_text(args.dot, _dot(net), "network"):
        return 2
    if args.picture and not write_text(args.picture, network_svg(net, path.stem), "network"):
        return 2
    if args.graphml:
        exported = graph(net)
        nx.relabel_nodes(exported, {n: str(n) for n in exported.nodes}, copy=False)
        if not write_text(args.graphml, "\n".join(nx.generate_graphml(exported)) + "\n", "network"):
            return 2
    return 0
