"""Gates over the moves of several roles, rewritten for the native kernel as threshold gates.

Every role plays exactly one move a step, so a disjunction of most of one role's moves is the negation
of the disjunction of the rest (the network's builder does that rewrite). A frame axiom that reads "some
role plays a move that leaves this cell alone" becomes ``or(not(or(C_1)), not(or(C_2)), ...)``, one
``C_r`` per role, holding the moves of role ``r`` that touch the cell *and* its ``noop``: in a game where
the turn passes, every such ``or(C_r)`` flips each step (breakthrough flipped 128 of them).

With ``n`` the number of moves in all the ``C_r`` of ``k`` roles, at most one of them played per role:
``or(not(or(C_1)), ..., not(or(C_k)))`` holds when some role plays outside its ``C_r``, that is when at
most ``k - 1`` of the ``n`` moves are played, when at least ``n - k + 1`` of their negations hold; and
``and(or(C_1), ..., or(C_k))`` when at least ``k`` of them are played. A threshold gate counts as the
kernel's other gates do (its counter is its true literals less the threshold, plus one), so the turn
passing only moves counters up and down by one: nothing crosses zero, nothing propagates.

The rewrite holds in the states the kernel reads ``next`` in (one move set per role); the counters stay
consistent in every other state (no move set, between steps), where ``next`` is not read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gdl.engines.schedule import AND_OP, AT_LEAST_OP, OR_OP, folded_literal
from gdl.ground.propnet import Gate, PropNet


def role_moves(net: PropNet, node: int, literal: Sequence[int] = ()) -> tuple[int, list[int]] | None:
    """The role and the inputs of ``node`` when it is one input, or an or-gate of inputs of one role
    (outside cycle blocks); ``literal``, when given, is the folded literal of every node."""
    first_input, first_gate = net.first_input, net.first_gate
    if first_input <= node < first_gate:
        return net.moves[node - first_input][0], [node]
    if node < first_gate or node >= net.size or node in net.block_of:
        return None
    if net.kinds[node - first_gate] is not Gate.OR:
        return None
    args = net.args[node - first_gate]
    lits = [literal[arg] if literal and arg >= 0 else folded_literal(net, arg) for arg in args]
    if any(lit & 1 or not first_input <= lit >> 1 < first_gate for lit in lits):
        return None
    roles = {net.moves[(lit >> 1) - first_input][0] for lit in lits}
    if len(roles) != 1:
        return None
    return roles.pop(), [lit >> 1 for lit in lits]


#: A move read by at least this many threshold gates is counted apart from the rest (see
#: :func:`threshold_gates`).
SHARED = 8


def threshold_gates(net: PropNet, first_new: int) -> tuple[dict[int, tuple[int, list[int]]], int]:
    """The gates rewritten: ``(op, literals)`` by node, gates the rewrite makes numbered from
    ``first_new`` on; and how many it makes.

    A move read by many threshold gates (a ``noop``, in every frame axiom of breakthrough) is counted
    apart: with ``P`` those moves of a gate and ``Q`` the others, at least ``k`` of ``P + Q`` hold when,
    for some ``j``, at least ``j`` of ``P`` hold and at least ``k - j`` of ``Q``; the gates over ``P``
    alone are shared by all, and do not change as the turn passes (one ``noop`` is set for another).
    """
    maker = _Maker(net, first_new)
    found: list[tuple[int, int, list[int], int, list[int]]] = []
    literal = [folded_literal(net, node) for node in range(net.size)]
    known: dict[int, tuple[int, list[int]] | None] = {}
    for gate, (kind, args) in enumerate(zip(net.kinds, net.args, strict=True)):
        node = net.first_gate + gate
        if kind is Gate.NOT or node in net.block_of:
            continue
        # An or reads the role disjunctions negated, an and reads them as they are.
        wanted = 1 if kind is Gate.OR else 0
        lits = [literal[arg] if arg >= 0 else folded_literal(net, arg) for arg in args]
        by_role: dict[int, tuple[int, list[int]]] = {}
        for lit in lits:
            if lit & 1 != wanted or lit >> 1 < net.first_input:
                continue
            if lit >> 1 not in known:
                known[lit >> 1] = role_moves(net, lit >> 1, literal)
            moves = known[lit >> 1]
            if moves is not None and moves[0] not in by_role:
                by_role[moves[0]] = (lit, moves[1])
        if len(by_role) < 2:
            continue
        inputs = sorted({move for _, moves_of_role in by_role.values() for move in moves_of_role})
        consumed = {lit for lit, _ in by_role.values()}
        rest = [lit for lit in lits if lit not in consumed]
        if kind is Gate.OR:
            need, counted = len(inputs) - len(by_role) + 1, [2 * move + 1 for move in inputs]
        else:
            need, counted = len(by_role), [2 * move for move in inputs]
        found.append((node, OR_OP if kind is Gate.OR else AND_OP, rest, need, counted))
    readers = Counter(lit for *_, counted in found for lit in counted)
    rewritten = maker.gates
    thresholds: list[Made] = []
    for _, _, _, need, counted in found:
        shared = [lit for lit in counted if readers[lit] >= SHARED]
        own = [lit for lit in counted if readers[lit] < SHARED]
        if shared and own:
            terms = [
                maker.both(maker.at_least(j, shared), maker.at_least(need - j, own))
                for j in range(max(0, need - len(own)), min(len(shared), need) + 1)
            ]
            thresholds.append(maker.any_of(terms))
        else:
            thresholds.append(maker.at_least(need, counted))
    for (node, op, rest, _, _), threshold in zip(found, thresholds, strict=True):
        # A gate made already (over shared moves alone) is read rather than counted again.
        if not isinstance(threshold, int) and maker.key(threshold) in maker.known:
            threshold = maker.literal(threshold)
        if rest:
            rewritten[node] = (op, [*rest, maker.literal(threshold)])
        elif isinstance(threshold, int):
            rewritten[node] = (OR_OP, [threshold])
        else:
            rewritten[node] = threshold
    return rewritten, maker.made


#: A gate to make: ``(op, literals)``; or a literal (constants are the literals of the extra node).
Made = tuple[int, list[int]] | int


class _Maker:
    """Makes gates numbered from ``first_new`` on (each one once), folding constants."""

    def __init__(self, net: PropNet, first_new: int) -> None:
        self.false = 2 * net.size
        self.true = self.false + 1
        self.first_new = first_new
        self.made = 0
        self.gates: dict[int, tuple[int, list[int]]] = {}
        self.known: dict[tuple[int, tuple[int, ...]], int] = {}

    def literal(self, gate: Made) -> int:
        if isinstance(gate, int):
            return gate
        key = self.key(gate)
        if key not in self.known:
            node = self.first_new + self.made
            self.made += 1
            self.gates[node] = (key[0], list(key[1]))
            self.known[key] = 2 * node
        return self.known[key]

    @staticmethod
    def key(gate: tuple[int, list[int]]) -> tuple[int, tuple[int, ...]]:
        return gate[0], tuple(sorted(gate[1]))

    def at_least(self, need: int, lits: list[int]) -> Made:
        if need <= 0:
            return self.true
        if need > len(lits):
            return self.false
        if len(lits) == 1:
            return lits[0]
        if need == len(lits):
            return AND_OP, lits
        return (OR_OP, lits) if need == 1 else (AT_LEAST_OP + need, lits)

    def both(self, a: Made, b: Made) -> Made:
        if self.false in (a, b):
            return self.false
        if a == self.true:
            return b
        if b == self.true:
            return a
        return AND_OP, [self.literal(a), self.literal(b)]

    def any_of(self, terms: list[Made]) -> Made:
        terms = [t for t in terms if t != self.false]
        if self.true in terms:
            return self.true
        if not terms:
            return self.false
        if len(terms) == 1:
            return terms[0]
        return OR_OP, [self.literal(t) for t in terms]
