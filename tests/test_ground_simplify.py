"""The network the native kernels run (:mod:`gdl.ground.simplify`): constant and identical gates
removed. It must agree with the network as built in EVERY state (random
bits, not only reachable ones) with at most one move per role: hypothesis over arbitrary states, on
hand-written networks and on corpus games (all of them in the slow test)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.corpus import corpus_items
from support.engines import checked_game
from support.paths import CORPUS

from gdl.errors import GameTooLargeError
from gdl.ground.instantiate import instantiate
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, build
from gdl.ground.simplify import _applies, _round, simplify

#: The seven benchmark games of ``gdl bench`` and larger corpus networks (cycle blocks in some).
GAMES = ("tictactoe", "connectfour", "breakthrough", "nim1", "hanoi", "buttons", "blocker", "bomberman2p")


def values(net: PropNet, state: int, moves: set[int]) -> list[int]:
    """Every node's value; a cycle block iterated from all-false to its least fixpoint."""
    value = [state >> b & 1 for b in range(net.first_input)]
    value += [int(node in moves) for node in range(net.first_input, net.first_gate)]
    value += [0] * len(net.kinds)
    block_end = dict(net.cycles)

    def gate(node: int) -> int:
        kind, args = net.kinds[node - net.first_gate], net.args[node - net.first_gate]
        read = [int(a == TRUE) if a < 0 else value[a] for a in args]
        return 1 - read[0] if kind is Gate.NOT else int(all(read) if kind is Gate.AND else any(read))

    node = net.first_gate
    while node < net.size:
        end = block_end.get(node, node + 1)
        changed = True
        while changed:
            changed = False
            for member in range(node, end):
                new = gate(member)
                changed |= new != value[member]
                value[member] = new
        node = end
    return value


def outputs(net: PropNet, state: int, moves: set[int]) -> tuple[object, ...]:
    """Legal, goal and terminal in ``state`` (no move), and next and sees after ``moves``."""
    played = values(net, state, moves)
    unplayed = values(net, state, set())

    def out(value: list[int], node: int) -> int:
        return int(node == TRUE) if node < 0 else value[node]

    return (
        [[out(unplayed, n) for _, n in entries] for entries in net.legal],
        [[out(unplayed, n) for _, n in entries] for entries in net.goals],
        out(unplayed, net.terminal),
        [out(played, n) for n in net.next],
        [[out(played, n) for _, n in entries] for entries in net.sees],
    )


def agree(net: PropNet, other: PropNet, seed: int, states: int = 6) -> None:
    """``other`` agrees with ``net`` in random states (each bit a coin) with one move per role, or none."""
    rng = random.Random(seed)
    by_role: list[list[int]] = [[] for _ in net.roles]
    for j, (role, _) in enumerate(net.moves):
        by_role[role].append(net.first_input + j)
    for _ in range(states):
        state = rng.getrandbits(max(1, net.first_input))
        moves = {rng.choice(inputs) for inputs in by_role if inputs and rng.random() < 0.9}
        assert outputs(other, state, moves) == outputs(net, state, moves)


def network(bases: int, gates: list[tuple[Gate, tuple[int, ...]]], legal: list[int]) -> PropNet:
    """One role with two inputs (nodes ``bases`` and ``bases + 1``), gates from ``bases + 2`` on."""
    return PropNet(
        roles=("r",),
        fluents=tuple(f"f{i}" for i in range(bases)),
        moves=((0, "a"), (0, "b")),
        kinds=tuple(kind for kind, _ in gates),
        args=tuple(args for _, args in gates),
        cycles=(),
        next=tuple(range(bases)),
        legal=(tuple((f"m{k}", node) for k, node in enumerate(legal)),),
        goals=((),),
        terminal=FALSE,
        init=frozenset(),
    )


def test_contradictions_and_two_moves_of_one_role_are_constants() -> None:
    # 4: not f0; 5: and(f0, not f0); 6: or(f0, not f0); 7: and(a, b), one role's two moves.
    gates = [(Gate.NOT, (0,)), (Gate.AND, (0, 4)), (Gate.OR, (0, 4)), (Gate.AND, (2, 3))]
    net = simplify(network(2, gates, [5, 6, 7]))
    assert [node for _, node in net.legal[0]] == [FALSE, TRUE, FALSE]
    assert not net.kinds


def test_absorption_to_a_fixpoint() -> None:
    # 4: or(f0, f1); 5: and(f0, 4) = f0; 6: and(f0, f1); 7: or(5, 6) = or(f0, and(f0, f1)) = f0, which
    # only the first round's merging of 5 into f0 shows.
    gates = [(Gate.OR, (0, 1)), (Gate.AND, (0, 4)), (Gate.AND, (0, 1)), (Gate.OR, (5, 6))]
    net = simplify(network(2, gates, [7, 5]))
    assert [node for _, node in net.legal[0]] == [0, 0]
    assert not net.kinds


def corpus_net(corpus: Path, name: str, any_game: bool = False) -> PropNet:
    """The network of a corpus game. A game that does not ground fails the test, unless ``any_game``
    (a test over the whole corpus, where some games are too large) skips it."""
    try:
        return build(instantiate(checked_game(corpus / "games" / f"{name}.kif")))
    except GameTooLargeError:
        if not any_game:
            raise
        pytest.skip(f"{name} does not ground")


@pytest.mark.parametrize("name", GAMES)
def test_the_kernels_network_agrees_with_the_built_one_in_arbitrary_states(corpus: Path, name: str) -> None:
    net = corpus_net(corpus, name)
    optimised = simplify(net)
    assert len(optimised.kinds) <= len(net.kinds)

    @settings(max_examples=15, deadline=None)
    @given(st.integers(0, 2**32))
    def check(seed: int) -> None:
        agree(net, optimised, seed, states=2)

    check()


@pytest.mark.parametrize("name", ["tictactoe", "breakthrough", "englishdraughts", "chess_200"])
def test_the_scan_that_skips_simplifying_misses_nothing_a_round_finds(corpus: Path, name: str) -> None:
    # simplify() rebuilds the network only when a rule applies to one of its gates (a scan): where none
    # does, a round gives the same network back; englishdraughts and chess_200 have absorptions.
    net = corpus_net(corpus, name)
    if _applies(net):
        assert name in ("englishdraughts", "chess_200")
        assert sum(map(len, simplify(net).args)) < sum(map(len, net.args))
    else:
        assert name in ("tictactoe", "breakthrough")
        assert _round(net).sizes() == net.sizes()
        assert simplify(net) is net


CORPUS_GAMES = corpus_items(lambda: sorted(p.stem for p in (CORPUS / "games").glob("*.kif")), at_least=183)
#: Networks larger than this are left out of the corpus-wide test (the Python evaluator here takes
#: seconds a state on them).
LARGEST = 60_000


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_every_corpus_network_agrees_in_arbitrary_states(corpus: Path, name: str) -> None:
    net = corpus_net(corpus, name, any_game=True)
    if net.size > LARGEST:
        pytest.skip(f"{name}: {net.size} nodes")
    optimised = simplify(net)
    assert len(optimised.kinds) <= len(net.kinds)
    for seed in range(3):
        agree(net, optimised, seed, states=2)
