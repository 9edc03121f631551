"""The propositional network of an instantiated game: base propositions, inputs, gates and outputs.

Nodes are numbered: first one per base proposition (``true`` of a fluent), then one per input (``does``
of a role and move), then the gates (and, or, not) in an order where every gate comes after its inputs,
except inside a *cycle block*: a range of gates from positively recursive rules, which an evaluator
iterates from all-false until nothing changes (the least fixpoint). Outputs (``next`` of each fluent,
``legal``, ``goal``, ``terminal``) name nodes, or the constants :data:`FALSE` and :data:`TRUE`.

Building the network folds constants, shares identical gates, factors the instances of one rule that
differ in a single literal into ``and(common..., or(differing...))``, rewrites a large disjunction of one
role's moves as the negation of the small disjunction of the others (each role plays exactly one move),
and drops every node no output needs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property

import networkx as nx

from gdl.budget import checkpoint
from gdl.errors import GameTooLargeError
from gdl.ground.grounding import GroundAtom, Grounding, GroundRule, Value, atom_text, value_text

FALSE = -1
TRUE = -2


class Gate(IntEnum):
    AND = 0
    OR = 1
    NOT = 2


@dataclass(frozen=True)
class PropNet:
    """A network ready to evaluate; see the module docstring for the numbering of nodes."""

    roles: tuple[str, ...]
    #: The fluent of each base proposition.
    fluents: tuple[Value, ...]
    #: The (role index, move) of each input.
    moves: tuple[tuple[int, Value], ...]
    #: Kind and input nodes of each gate; gate ``i`` is node ``first_gate + i``.
    kinds: tuple[Gate, ...]
    args: tuple[tuple[int, ...], ...]
    #: Half-open ranges of gate nodes that form cycle blocks.
    cycles: tuple[tuple[int, int], ...]
    #: For each base proposition, the node (or constant) of its ``next``.
    next: tuple[int, ...]
    #: Per role, the (move, node) of each legal output, sorted by the move's KIF text.
    legal: tuple[tuple[tuple[Value, int], ...], ...]
    #: Per role, the (goal value, node) of each goal output, sorted by value.
    goals: tuple[tuple[tuple[Value, int], ...], ...]
    terminal: int
    #: The base propositions true in the initial state.
    init: frozenset[int]
    #: GDL-II: per role, the (percept, node) of each ``sees`` output, sorted by the percept's KIF text;
    #: these nodes read the inputs, like ``next``, and are not among the :meth:`outputs` of a playout.
    sees: tuple[tuple[tuple[Value, int], ...], ...] = ()

    @property
    def first_input(self) -> int:
        return len(self.fluents)

    @property
    def first_gate(self) -> int:
        return len(self.fluents) + len(self.moves)

    @property
    def size(self) -> int:
        return self.first_gate + len(self.kinds)

    def sizes(self) -> dict[str, int]:
        """Counts of nodes by kind, and of gate inputs (edges)."""
        counts = {kind.name.lower(): 0 for kind in Gate}
        for kind in self.kinds:
            counts[kind.name.lower()] += 1
        return {
            "base": len(self.fluents),
            "input": len(self.moves),
            **counts,
            "edges": sum(len(a) for a in self.args),
            "cycle_blocks": len(self.cycles),
            "legal": sum(len(entries) for entries in self.legal),
            "goal": sum(len(entries) for entries in self.goals),
        }

    @cached_property
    def block_of(self) -> dict[int, tuple[int, int]]:
        """The cycle block (half-open range of gate nodes) of each gate on a cycle."""
        return {node: (start, end) for start, end in self.cycles for node in range(start, end)}

    def cone(self, outputs: Iterable[int]) -> list[int]:
        """The gates needed for ``outputs`` in evaluation order (whole cycle blocks included)."""
        needed: set[int] = set()
        blocks: set[tuple[int, int]] = set()
        stack = [n for n in outputs if n >= self.first_gate]
        while stack:
            node = stack.pop()
            if node in needed:
                continue
            needed.add(node)
            stack.extend(n for n in self.args[node - self.first_gate] if n >= self.first_gate)
            block = self.block_of.get(node)
            if block is not None and block not in blocks:  # once per block, not once per member
                blocks.add(block)
                stack.extend(range(*block))
        return sorted(needed)

    def outputs(self) -> list[int]:
        nodes = [*self.next, self.terminal]
        nodes += [node for entries in (*self.legal, *self.goals) for _, node in entries]
        return [node for node in nodes if node >= 0]

    def label(self, node: int) -> str:
        """A readable name for a node."""
        if node == FALSE:
            return "false"
        if node == TRUE:
            return "true"
        if node < self.first_input:
            return f"(true {value_text(self.fluents[node])})"
        if node < self.first_gate:
            role, move = self.moves[node - self.first_input]
            return f"(does {self.roles[role]} {value_text(move)})"
        return f"{self.kinds[node - self.first_gate].name.lower()}#{node}"


class _Builder:
    """Makes shared, constant-folded gates; node ids as in :class:`PropNet`."""

    def __init__(self, first_gate: int, role_inputs: dict[int, int], inputs_of_role: list[frozenset[int]]):
        self.first_gate = first_gate
        self.kinds: list[Gate] = []
        self.args: list[tuple[int, ...]] = []
        self.known: dict[tuple[Gate, tuple[int, ...]], int] = {}
        self.role_of_input = role_inputs
        self.inputs_of_role = inputs_of_role
        #: Per gate, whether it may read an input (``does``): a gate of a cycle block always may.
        self.reads_input: list[bool] = []

    def _new(self, kind: Gate, args: tuple[int, ...]) -> int:
        key = (kind, args)
        node = self.known.get(key)
        if node is None:
            node = self.first_gate + len(self.kinds)
            self.kinds.append(kind)
            self.args.append(args)
            self.known[key] = node
            first_gate, reads, inputs = self.first_gate, self.reads_input, self.role_of_input
            self.reads_input.append(
                any(reads[a - first_gate] if a >= first_gate else a in inputs for a in args)
            )
        return node

    def placeholder(self) -> int:
        """An or-gate whose inputs are set later (for recursive atoms)."""
        self.kinds.append(Gate.OR)
        self.args.append(())
        self.reads_input.append(True)
        return self.first_gate + len(self.kinds) - 1

    def negate(self, node: int) -> int:
        if node == TRUE:
            return FALSE
        if node == FALSE:
            return TRUE
        if node >= self.first_gate and self.kinds[node - self.first_gate] is Gate.NOT:
            return self.args[node - self.first_gate][0]
        return self._new(Gate.NOT, (node,))

    def conjoin(self, nodes: Iterable[int]) -> int:
        found = set()
        for node in nodes:
            if node == FALSE:
                return FALSE
            if node != TRUE:
                found.add(node)
        if not found:
            return TRUE
        if len(found) == 1:
            return found.pop()
        return self._new(Gate.AND, tuple(sorted(found)))

    def disjoin(self, nodes: Iterable[int]) -> int:
        found = set()
        for node in nodes:
            if node == TRUE:
                return TRUE
            if node != FALSE:
                found.add(node)
        by_role: dict[int, set[int]] = defaultdict(set)
        for node in found:
            role = self.role_of_input.get(node)
            if role is not None:
                by_role[role].add(node)
        for role, moves in by_role.items():
            every = self.inputs_of_role[role]
            # Each role plays exactly one of its moves, so a disjunction of most of them is the negation of
            # the disjunction of the rest.
            if len(moves) > 1 and 2 * len(moves) > len(every):
                found -= moves
                rest = every - moves
                found.add(self.negate(self.disjoin(rest)) if rest else TRUE)
                if TRUE in found:
                    return TRUE
        if not found:
            return FALSE
        if len(found) == 1:
            return found.pop()
        return self._new(Gate.OR, tuple(sorted(found)))


def _factor(builder: _Builder, bodies: list[tuple[int, ...]]) -> int:
    """The disjunction of conjunctions ``bodies`` (instances of one rule), factored on one literal."""
    if len(bodies) == 1:
        return builder.conjoin(bodies[0])
    width = len(bodies[0])
    best: dict[tuple[int, ...], list[int]] | None = None
    for slot in range(width):
        groups: dict[tuple[int, ...], list[int]] = defaultdict(list)
        for body in bodies:
            groups[body[:slot] + body[slot + 1 :]].append(body[slot])
        if best is None or len(groups) < len(best):
            best = groups
    if best is None or len(best) == len(bodies):
        return builder.disjoin(builder.conjoin(body) for body in bodies)
    return builder.disjoin(
        builder.conjoin([*common, builder.disjoin(varying)]) for common, varying in best.items()
    )


def _definition_order(
    rules_of: dict[GroundAtom, list[GroundRule]],
) -> Iterable[GroundAtom | set[GroundAtom]]:
    """The defined atoms in an order where each comes after the atoms its rules read: an atom alone, or
    the set of atoms of a positive or negative cycle (a strongly connected component).

    Relations are ordered first, on their small graph; atoms are ordered one by one only within the
    relations that are recursive, the rest following their relation's order.
    """
    atoms_of: dict[str, list[GroundAtom]] = defaultdict(list)
    for head in rules_of:
        atoms_of[head[0]].append(head)
    relations: nx.DiGraph = nx.DiGraph()
    relations.add_nodes_from(atoms_of)
    # A relation no rule defines (true, does, a static fact) orders nothing.
    relations.add_edges_from({
        (head[0], literal[0][0])
        for head, rules in rules_of.items()
        for rule in rules
        for literal in rule.body
        if literal is not None and literal[0][0] in atoms_of
    })
    # Tarjan's algorithm yields each component after every component it depends on.
    for component in nx.strongly_connected_components(relations):
        if len(component) == 1:
            (relation,) = component
            if not relations.has_edge(relation, relation):
                yield from atoms_of[relation]
                continue
        atoms: nx.DiGraph = nx.DiGraph()
        for relation in component:
            for head in atoms_of[relation]:
                atoms.add_node(head)
                for rule in rules_of[head]:
                    for literal in rule.body:
                        if literal is not None and literal[0] in rules_of and literal[0][0] in component:
                            atoms.add_edge(head, literal[0])
        for cycle in nx.strongly_connected_components(atoms):
            if len(cycle) == 1:
                (atom,) = cycle
                if not atoms.has_edge(atom, atom):
                    yield atom
                    continue
            yield cycle


def build(grounding: Grounding) -> PropNet:
    """The network of a grounding."""
    roles = grounding.roles
    role_index = {role: i for i, role in enumerate(roles)}
    fluents = grounding.fluents
    moves = tuple(
        (role_index[role], move)
        for role, move in grounding.moves
        if isinstance(role, str) and role in role_index
    )
    first_input = len(fluents)
    first_gate = first_input + len(moves)
    node_of: dict[GroundAtom, int] = {("true", (f,)): i for i, f in enumerate(fluents)}
    inputs_of_role: list[set[int]] = [set() for _ in roles]
    role_of_input: dict[int, int] = {}
    for j, (role, move) in enumerate(moves):
        node_of[("does", (roles[role], move))] = first_input + j
        inputs_of_role[role].add(first_input + j)
        role_of_input[first_input + j] = role
    builder = _Builder(first_gate, role_of_input, [frozenset(s) for s in inputs_of_role])

    rules_of: dict[GroundAtom, list[GroundRule]] = defaultdict(list)
    for rule in grounding.rules:
        rules_of[rule.head].append(rule)

    def literal_node(literal: tuple[GroundAtom, bool] | None) -> int:
        if literal is None:
            return TRUE
        atom, positive = literal
        node = node_of.get(atom, FALSE)
        return node if positive else builder.negate(node)

    def definition(head: GroundAtom) -> int:
        by_origin: dict[int, list[tuple[int, ...]]] = defaultdict(list)
        for rule in rules_of.get(head, ()):
            by_origin[rule.origin].append(tuple(literal_node(lit) for lit in rule.body))
        return builder.disjoin(_factor(builder, bodies) for bodies in by_origin.values())

    cycles: list[tuple[int, int]] = []
    for count, heads in enumerate(_definition_order(rules_of)):
        if not count & 255:
            checkpoint()
        if isinstance(heads, tuple):
            node_of[heads] = definition(heads)
            continue
        start = builder.first_gate + len(builder.kinds)
        members = sorted(heads, key=atom_text)
        holders = {head: builder.placeholder() for head in members}
        node_of.update(holders)
        for head in members:
            value = definition(head)
            gate = holders[head] - first_gate
            # An or of nothing is false, an and of nothing is true.
            builder.args[gate] = (value,) if value >= 0 else ()
            if value == TRUE:
                builder.kinds[gate] = Gate.AND
        cycles.append((start, builder.first_gate + len(builder.kinds)))

    legal: list[list[tuple[Value, int]]] = [[] for _ in roles]
    goals: list[list[tuple[Value, int]]] = [[] for _ in roles]
    sees: list[list[tuple[Value, int]]] = [[] for _ in roles]
    facts = grounding.facts
    unplayed = _Unplayed(builder, cycles)
    for head in [*rules_of, *facts]:
        relation, args = head
        if relation in ("legal", "goal") and len(args) == 2 and args[0] in role_index:
            node = TRUE if head in facts else unplayed.value(node_of.get(head, FALSE))
            target = legal if relation == "legal" else goals
            target[role_index[args[0]]].append((args[1], node))
        elif relation == "sees" and len(args) == 2 and args[0] in role_index:
            sees[role_index[args[0]]].append((args[1], TRUE if head in facts else node_of.get(head, FALSE)))
    next_nodes = [TRUE if ("next", (f,)) in facts else node_of.get(("next", (f,)), FALSE) for f in fluents]
    terminal = TRUE if ("terminal", ()) in facts else unplayed.value(node_of.get(("terminal", ()), FALSE))
    init = frozenset(i for i, f in enumerate(fluents) if f in grounding.init)
    return _prune(
        roles,
        fluents,
        moves,
        builder,
        cycles,
        next_nodes,
        [sorted(set(entries), key=lambda e: value_text(e[0])) for entries in legal],
        [sorted(set(entries), key=lambda e: value_text(e[0])) for entries in goals],
        terminal,
        init,
        [sorted(set(entries), key=lambda e: value_text(e[0])) for entries in sees],
    )


class _Unplayed:
    """Nodes as they are evaluated in a state, where no move is played (every ``does`` false).

    ``legal``, ``goal`` and ``terminal`` are evaluated so; in a game where they depend on ``does`` anyway
    (which GDL forbids, but the checker lets pass), the nodes they share with ``next`` are copied with
    the inputs folded to false.
    """

    def __init__(self, builder: _Builder, cycles: list[tuple[int, int]]) -> None:
        self.builder = builder
        self.block_of = {node: (start, end) for start, end in cycles for node in range(start, end)}
        self.cyclic = self.block_of.keys()
        self.blocks_reaching: dict[tuple[int, int], bool] = {}
        self.memo: dict[int, int] = {}

    def value(self, node: int) -> int:
        builder = self.builder
        if node < builder.first_gate:
            return FALSE if node >= 0 and node in builder.role_of_input else node
        if not builder.reads_input[node - builder.first_gate]:
            return node
        stack = [node]
        while stack:
            top = stack[-1]
            if top in self.memo:
                stack.pop()
                continue
            args = builder.args[top - builder.first_gate]
            pending = [a for a in args if a >= builder.first_gate and a not in self.memo]
            if pending and top not in self.cyclic:
                stack.extend(pending)
                continue
            stack.pop()
            self.memo[top] = self._copy(top)
        return self.memo[node]

    def _copy(self, node: int) -> int:
        builder = self.builder
        gate = node - builder.first_gate
        args = builder.args[gate]
        if node in self.cyclic:
            block = self.block_of[node]
            if block not in self.blocks_reaching:
                self.blocks_reaching[block] = self._reaches_input(range(*block))
            if self.blocks_reaching[block]:
                raise GameTooLargeError(
                    "cannot build the network: legal, goal or terminal depends on does through recursion"
                )
            return node
        mapped = [self.memo.get(a, a) if a >= builder.first_gate else self.value(a) for a in args]
        if mapped == list(args):
            return node
        kind = builder.kinds[gate]
        if kind is Gate.NOT:
            return builder.negate(mapped[0])
        return builder.conjoin(mapped) if kind is Gate.AND else builder.disjoin(mapped)

    def _reaches_input(self, nodes: Iterable[int]) -> bool:
        builder = self.builder
        seen = set(nodes)
        stack = list(seen)
        while stack:
            for arg in builder.args[stack.pop() - builder.first_gate]:
                if arg in builder.role_of_input:
                    return True
                if arg >= builder.first_gate and arg not in seen:
                    seen.add(arg)
                    stack.append(arg)
        return False


def _prune(
    roles: tuple[str, ...],
    fluents: tuple[Value, ...],
    moves: tuple[tuple[int, Value], ...],
    builder: _Builder,
    cycles: list[tuple[int, int]],
    next_nodes: list[int],
    legal: list[list[tuple[Value, int]]],
    goals: list[list[tuple[Value, int]]],
    terminal: int,
    init: frozenset[int],
    sees: list[list[tuple[Value, int]]],
) -> PropNet:
    """Drop the gates no output needs and renumber the rest, keeping their order."""
    first_gate = builder.first_gate
    checkpoint()
    needed = [False] * len(builder.kinds)
    stack = [n for n in [*next_nodes, terminal] if n >= first_gate]
    stack += [n for entries in (*legal, *goals, *sees) for _, n in entries if n >= first_gate]
    while stack:
        gate = stack.pop() - first_gate
        if needed[gate]:
            continue
        needed[gate] = True
        stack.extend(n for n in builder.args[gate] if n >= first_gate and not needed[n - first_gate])
    renumber: dict[int, int] = {}
    kinds: list[Gate] = []
    for gate, keep in enumerate(needed):
        if keep:
            renumber[first_gate + gate] = first_gate + len(kinds)
            kinds.append(builder.kinds[gate])

    def new(node: int) -> int:
        return renumber.get(node, node)

    args = [tuple(new(n) for n in builder.args[g]) for g, keep in enumerate(needed) if keep]
    blocks = []
    for start, end in cycles:
        kept = [renumber[n] for n in range(start, end) if n in renumber]
        if kept:
            blocks.append((kept[0], kept[-1] + 1))
    return PropNet(
        roles=roles,
        fluents=fluents,
        moves=moves,
        kinds=tuple(kinds),
        args=tuple(args),
        cycles=tuple(blocks),
        next=tuple(new(n) for n in next_nodes),
        legal=tuple(tuple((m, new(n)) for m, n in entries) for entries in legal),
        goals=tuple(tuple((v, new(n)) for v, n in entries) for entries in goals),
        terminal=new(terminal),
        init=init,
        sees=tuple(tuple((p, new(n)) for p, n in entries) for entries in sees) if any(sees) else (),
    )
