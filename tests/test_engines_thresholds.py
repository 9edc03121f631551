"""The native kernel's threshold gates (:mod:`gdl.engines.thresholds`): a gate over the moves of several
roles rewritten as a count agrees with the gate it replaces whenever each role plays one move (small
hand-written networks, by brute force, and random ones with hypothesis); kernel walks on corpus games
where the rewrite applies agree with the Datalog evaluator; and the rewrite does what it is for (the turn
passing in breakthrough propagates through none of the frame axioms)."""

from __future__ import annotations

import itertools
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.engines import checked_game, replay_disagreements

from gdl.engines import thresholds
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.native_layout import SIZES, WORK
from gdl.engines.schedule import AND_OP, AT_LEAST_OP, OR_OP
from gdl.engines.thresholds import role_moves, threshold_gates
from gdl.ground.propnet import FALSE, Gate, PropNet

#: Corpus games whose networks have gates over several roles' moves (breakthrough and its kin, games of
#: simultaneous moves), checked beside tests/test_engines_native.py's.
REWRITTEN = ("alquerque", "knightthrough", "pawntoqueen", "biddingtictactoe")


def network(roles: list[int], gates: list[tuple[Gate, tuple[int, ...]]], outputs: list[int]) -> PropNet:
    """A network of a base proposition per output (``next`` of base proposition ``i`` reads
    ``outputs[i]``), inputs of the given roles (``roles[j]`` for input ``j``) and the gates."""
    return PropNet(
        roles=tuple(f"r{r}" for r in range(max(roles) + 1)),
        fluents=tuple(f"f{i}" for i in range(len(outputs))),
        moves=tuple((role, f"m{j}") for j, role in enumerate(roles)),
        kinds=tuple(kind for kind, _ in gates),
        args=tuple(args for _, args in gates),
        cycles=(),
        next=tuple(outputs),
        legal=tuple(() for _ in range(max(roles) + 1)),
        goals=tuple(() for _ in range(max(roles) + 1)),
        terminal=FALSE,
        init=frozenset(),
    )


def values(net: PropNet, base: int, played: tuple[int, ...]) -> list[int]:
    """Every node's value, the base propositions as in ``base``, the inputs ``played`` set."""
    value = [base >> i & 1 for i in range(len(net.fluents))]
    value += [int(net.first_input + j in played) for j in range(len(net.moves))]
    for kind, args in zip(net.kinds, net.args, strict=True):
        read = [value[a] for a in args]
        value.append(1 - read[0] if kind is Gate.NOT else int(all(read) if kind is Gate.AND else any(read)))
    return value


def rewritten_value(
    net: PropNet, rewritten: dict[int, tuple[int, list[int]]], node: int, value: list[int]
) -> int:
    """The value of a node as the kernel's rewritten gates compute it."""
    if node == net.size:
        return 0  # the constant false (its negation is true)
    if node not in rewritten:
        return value[node]
    op, lits = rewritten[node]
    true = sum(rewritten_value(net, rewritten, lit >> 1, value) ^ (lit & 1) for lit in lits)
    need = len(lits) if op == AND_OP else 1 if op == OR_OP else op - AT_LEAST_OP
    return int(true >= need)


def disagreements(net: PropNet) -> list[str]:
    """The states and joint moves (one per role) where a rewritten gate differs from the network's."""
    rewritten, _ = threshold_gates(net, net.size + 1)
    inputs_of = [
        [net.first_input + j for j, (r, _) in enumerate(net.moves) if r == role]
        for role in range(len(net.roles))
    ]
    found = []
    for base in range(2 ** len(net.fluents)):
        for played in itertools.product(*inputs_of):
            value = values(net, base, played)
            for node in rewritten:
                if node < net.size and rewritten_value(net, rewritten, node, value) != value[node]:
                    found.append(f"node {node}, base {base}, moves {played}")
    return found


def test_an_or_of_negated_role_disjunctions_becomes_one_threshold_gate() -> None:
    # Inputs 1, 2, 3 of role 0 and 4, 5 of role 1 (node 0 is the base proposition); the frame axiom
    # "some role plays a move outside {1, 2} or outside {4}": or(not(or(1, 2)), not(4)).
    net = network(
        [0, 0, 0, 1, 1], [(Gate.OR, (1, 2)), (Gate.NOT, (6,)), (Gate.NOT, (4,)), (Gate.OR, (7, 8))], [9]
    )
    rewritten, made = threshold_gates(net, net.size + 1)
    # At most one of the three moves 1, 2, 4 played: at least two of their negations hold.
    assert rewritten == {9: (AT_LEAST_OP + 2, [3, 5, 9])}
    assert made == 0
    assert disagreements(net) == []


def test_an_and_of_role_disjunctions_beside_other_literals_gets_a_threshold_gate_of_its_own() -> None:
    # and(base, or(1, 2), or(4, 5)): both roles play in their sets, and the base proposition holds.
    net = network([0, 0, 0, 1, 1], [(Gate.OR, (1, 2)), (Gate.OR, (4, 5)), (Gate.AND, (0, 6, 7))], [8])
    rewritten, made = threshold_gates(net, net.size + 1)
    assert made == 1
    assert rewritten == {10: (AT_LEAST_OP + 2, [2, 4, 8, 10]), 8: (AND_OP, [0, 20])}
    assert disagreements(net) == []


def test_gates_over_one_role_or_over_base_propositions_are_left_alone() -> None:
    # Base propositions 0 and 1, inputs 2, 3, 4 of role 0 and 5 of role 1: or(not(or(2, 3)), not(4)),
    # both of role 0; and(0, or(2, 5)), a disjunction over two roles.
    net = network(
        [0, 0, 0, 1],
        [
            (Gate.OR, (2, 3)),
            (Gate.NOT, (6,)),
            (Gate.NOT, (4,)),
            (Gate.OR, (7, 8)),
            (Gate.OR, (2, 5)),
            (Gate.AND, (0, 10)),
        ],
        [9, 11],
    )
    assert threshold_gates(net, net.size + 1) == ({}, 0)
    assert role_moves(net, 10) is None
    assert role_moves(net, 6) == (0, [2, 3])


@st.composite
def role_move_networks(draw: st.DrawFn) -> PropNet:
    """Random networks of two base propositions, inputs of two to three roles, per role a disjunction of
    some of its inputs (or a single input), and two gates (or, and) reading some of those, negated or
    not, and the base propositions (the outputs)."""
    roles = draw(st.integers(2, 3))
    owner = [r for r in range(roles) for _ in range(draw(st.integers(1, 3)))]
    first_input, first_gate = 2, 2 + len(owner)
    gates: list[tuple[Gate, tuple[int, ...]]] = []
    reads = [0, 1]
    for role in range(roles):
        inputs = [first_input + j for j, r in enumerate(owner) if r == role]
        chosen = draw(st.lists(st.sampled_from(inputs), min_size=1, unique=True))
        if len(chosen) == 1:
            node = chosen[0]
        else:
            gates.append((Gate.OR, tuple(sorted(chosen))))
            node = first_gate + len(gates) - 1
        gates.append((Gate.NOT, (node,)))
        reads += [node, first_gate + len(gates) - 1]
    outputs = []
    for _ in range(2):
        kind = draw(st.sampled_from([Gate.AND, Gate.OR]))
        args = draw(st.lists(st.sampled_from(reads), min_size=2, max_size=5, unique=True))
        gates.append((kind, tuple(sorted(args))))
        outputs.append(first_gate + len(gates) - 1)
    return network(owner, gates, outputs)


@settings(max_examples=300, deadline=None)
@given(role_move_networks(), st.sampled_from([1, 2, 3, thresholds.SHARED]))
def test_rewritten_gates_agree_with_the_network_whenever_each_role_plays_one_move(
    net: PropNet, shared: int
) -> None:
    # With few readers taken as many, the moves the gates share are counted apart (as breakthrough's
    # noops are, read by 64 gates).
    with patch.object(thresholds, "SHARED", shared):
        assert disagreements(net) == []


def test_moves_many_gates_read_are_counted_apart_in_gates_they_share() -> None:
    # Base propositions 0 to 2; inputs 3 to 6 of role 0, 7 and 8 of role 1; three frame axioms
    # or(not(or(3, 4, x)), not(or(7, 8))) for x = 5, 6 and none (nodes 17 to 19). Moves 3, 4, 7 and 8,
    # read by all three, are counted apart: at least k of all hold when at least j of them do and at
    # least k - j of the rest.
    gates = [(Gate.OR, (3, 4, 5)), (Gate.OR, (3, 4, 6)), (Gate.OR, (3, 4)), (Gate.OR, (7, 8))]
    gates += [(Gate.NOT, (9,)), (Gate.NOT, (10,)), (Gate.NOT, (11,)), (Gate.NOT, (12,))]
    gates += [(Gate.OR, (13, 16)), (Gate.OR, (14, 16)), (Gate.OR, (15, 16))]
    net = network([0, 0, 0, 0, 1, 1], gates, [17, 18, 19])
    with patch.object(thresholds, "SHARED", 3):
        rewritten, made = threshold_gates(net, net.size + 1)
        assert disagreements(net) == []
    # At least 3 of the negations of the shared moves (7, 9, 15, 17): one gate, which the third axiom
    # reads; and the first two read it beside their own move (5 or 6, negated: 11 or 13).
    (shared,) = [node for node, gate in rewritten.items() if gate == (AT_LEAST_OP + 3, [7, 9, 15, 17])]
    assert shared > net.size
    assert rewritten[19] == (OR_OP, [2 * shared])
    for axiom, own in ((17, 11), (18, 13)):
        op, terms = rewritten[axiom]
        assert op == OR_OP
        assert [rewritten[t >> 1] for t in terms] == [(AND_OP, [own, 2 * shared]), (AND_OP, [7, 9, 15, 17])]
    assert made == 4


@pytest.mark.parametrize("name", REWRITTEN)
def test_walks_where_gates_are_rewritten_agree_with_datalog(corpus: Path, name: str) -> None:
    checked = checked_game(corpus / "games" / f"{name}.kif")
    net = CompiledReasoner(checked).net
    assert threshold_gates(net, net.size + 1)[0]
    for swap in (0, 1):
        assert replay_disagreements(checked, range(3), 80, swap=swap) == []


def test_in_breakthrough_the_turn_passing_reaches_no_frame_axiom(corpus: Path) -> None:
    # 64 frame axioms (one per cell) read "a role plays outside the moves touching the cell and its
    # noop". As threshold gates, with the two noops (read by all 64) counted apart, they do not change as
    # the turn passes: a step propagates about 110 fanout entries where it propagated 486 before the
    # rewrite, 256 of them the flips of the frame axioms and 128 the noops' fanout.
    compiled = CompiledReasoner(checked_game(corpus / "games" / "breakthrough.kif"))
    net, kernel = compiled.net, compiled.kernel
    rewritten, _ = threshold_gates(net, net.size + 1)
    noops = [net.first_input + j for j, (_, move) in enumerate(net.moves) if move == "noop"]
    assert len(noops) == 2
    # Each noop is read by the two gates over the noops alone, and not by the 64 axioms.
    assert all(sum(2 * n + 1 in lits for _, lits in rewritten.values()) == 2 for n in noops)
    sizes = kernel.section(SIZES)
    sizes[WORK] = 0
    steps = sum(kernel.playout(compiled.initial(), seed, 200).depth for seed in range(20))
    assert sizes[WORK] / steps < 150
