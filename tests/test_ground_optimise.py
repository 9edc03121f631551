"""The network optimised for play (:mod:`gdl.ground.optimise`): base propositions that cannot change in
reachable states found (hand-written networks), folded as constants with the gates they make identical
merged, and the optimised network agreeing with the original on legal, next, goal and terminal in the
states random walks reach (hypothesis over the walks, on corpus games where something is folded)."""

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
from gdl.ground.optimise import EITHER, MAY_FALSE, MAY_TRUE, constants, optimise, possible_values
from gdl.ground.propnet import FALSE, TRUE, Gate, PropNet, build

#: Corpus games with base propositions that never change (aipsrovers01: 2 of 66, bomberman2p: 64 of
#: 562, 4pttc: 4 of 273, folded out of 28 of its 9,109 gate inputs; hanoi: 1 of 31).
FOLDED = ("aipsrovers01", "bomberman2p", "4pttc", "hanoi")


def network(
    bases: int,
    init: set[int],
    gates: list[tuple[Gate, tuple[int, ...]]],
    next_nodes: list[int],
    legal: list[int],
) -> PropNet:
    """One role with one input (node ``bases``), the gates from node ``bases + 1`` on."""
    return PropNet(
        roles=("r",),
        fluents=tuple(f"f{i}" for i in range(bases)),
        moves=((0, "m"),),
        kinds=tuple(kind for kind, _ in gates),
        args=tuple(args for _, args in gates),
        cycles=(),
        next=tuple(next_nodes),
        legal=(tuple((f"m{k}", node) for k, node in enumerate(legal)),),
        goals=((),),
        terminal=FALSE,
        init=frozenset(init),
    )


def values(net: PropNet, state: int, moves: set[int]) -> list[int]:
    value = [state >> b & 1 for b in range(net.first_input)]
    value += [int(node in moves) for node in range(net.first_input, net.first_gate)]
    for kind, args in zip(net.kinds, net.args, strict=True):
        read = [int(a == TRUE) if a < 0 else value[a] for a in args]
        value.append(1 - read[0] if kind is Gate.NOT else int(all(read) if kind is Gate.AND else any(read)))
    return value


def output(value: list[int], node: int) -> int:
    return int(node == TRUE) if node < 0 else value[node]


def outputs(net: PropNet, state: int, moves: set[int]) -> tuple[object, ...]:
    """Legal, goal and terminal in ``state``, and the next state after ``moves``."""
    played = values(net, state, moves)
    unplayed = values(net, state, set())
    return (
        [[output(unplayed, n) for _, n in entries] for entries in net.legal],
        [[output(unplayed, n) for _, n in entries] for entries in net.goals],
        output(unplayed, net.terminal),
        sum(output(played, n) << b for b, n in enumerate(net.next)),
    )


def test_a_base_proposition_whose_next_is_itself_is_its_initial_value() -> None:
    # f0 (true initially) and f1 (false) keep their values; f2 flips every step; f3 becomes true once
    # f2 and the move hold, and stays.
    gates = [(Gate.NOT, (2,)), (Gate.AND, (2, 4)), (Gate.OR, (3, 6)), (Gate.AND, (0, 1, 2))]
    net = network(4, {0}, gates, [0, 1, 5, 7], [8, 2])
    value = possible_values(net)
    assert value[:4] == [MAY_TRUE, MAY_FALSE, EITHER, EITHER]
    # and(f0, f1, f2) is false in every reachable state.
    assert value[8] == MAY_FALSE
    optimised = optimise(net)
    assert optimised.next[:2] == (TRUE, FALSE)
    assert optimised.legal[0][0][1] == FALSE
    assert len(optimised.kinds) == 3


def test_gates_the_folding_makes_identical_are_merged() -> None:
    # and(f0, f2) and and(f1, f2) with f0 and f1 both always true: both are f2; or(f2, f3) and
    # or(and(f0, f2), f3) become one gate.
    gates = [(Gate.AND, (0, 2)), (Gate.OR, (2, 3)), (Gate.OR, (5, 3)), (Gate.NOT, (2,)), (Gate.AND, (1, 4))]
    net = network(4, {0, 1, 2}, gates, [0, 1, 8, 9], [6, 7])
    optimised = optimise(net)
    assert optimised.legal[0][0][1] == optimised.legal[0][1][1]
    assert optimised.sizes()["or"] == 1


def test_a_network_where_every_base_proposition_can_change_is_left_as_it_is() -> None:
    net = network(1, {0}, [(Gate.NOT, (0,)), (Gate.AND, (1, 2))], [2], [3])
    assert optimise(net) is net


@pytest.mark.parametrize("name", FOLDED)
def test_optimised_networks_agree_with_the_original_in_reachable_states(corpus: Path, name: str) -> None:
    net = build(instantiate(checked_game(corpus / "games" / f"{name}.kif")))
    optimised = optimise(net)
    assert optimised.sizes()["edges"] < net.sizes()["edges"]
    inputs = {(role, move): net.first_input + j for j, (role, move) in enumerate(net.moves)}

    @settings(max_examples=10, deadline=None)
    @given(st.integers(0, 2**32))
    def walk(seed: int) -> None:
        rng = random.Random(seed)
        state = sum(1 << b for b in net.init)
        for _ in range(40):
            expected = outputs(net, state, set())
            legal, _, terminal, _ = expected
            if terminal or not all(any(row) for row in legal):
                break
            moves = {
                inputs[(role, rng.choice([m for (m, _), ok in zip(entries, row, strict=True) if ok]))]
                for role, (entries, row) in enumerate(zip(net.legal, legal, strict=True))
            }
            assert outputs(optimised, state, moves) == outputs(net, state, moves)
            state = outputs(net, state, moves)[3]  # type: ignore[assignment]

    walk()


def agree_with_the_constants(net: PropNet, examples: int) -> None:
    """The optimised network agrees with ``net`` in arbitrary states that agree with its constants."""
    folded = constants(net)
    optimised = optimise(net)
    mask = sum(1 << b for b in folded)
    fixed = sum(1 << b for b, value in folded.items() if value)

    @settings(max_examples=examples, deadline=None)
    @given(st.integers(0, 2**32))
    def check(seed: int) -> None:
        rng = random.Random(seed)
        state = rng.getrandbits(net.first_input) & ~mask | fixed
        moves = {node for node in range(net.first_input, net.first_gate) if rng.random() < 0.1}
        expected = outputs(net, state, moves)
        assert outputs(optimised, state, moves) == expected
        assert expected[3] & mask == fixed  # type: ignore[operator]

    check()


@pytest.mark.parametrize("name", FOLDED)
def test_optimised_networks_agree_in_every_state_with_the_constants(corpus: Path, name: str) -> None:
    # The native kernels run the optimised network from any state handed in that agrees with the
    # constants (gdl.engines.folding): the other base propositions and the inputs are arbitrary here
    # (several moves of a role, or none, too), and the next state agrees with the constants again.
    net = build(instantiate(checked_game(corpus / "games" / f"{name}.kif")))
    assert constants(net)
    agree_with_the_constants(net, 25)


CORPUS_GAMES = corpus_items(lambda: sorted(p.stem for p in (CORPUS / "games").glob("*.kif")), at_least=183)


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_every_corpus_network_with_constants_agrees_in_every_state_with_them(corpus: Path, name: str) -> None:
    try:
        net = build(instantiate(checked_game(corpus / "games" / f"{name}.kif")))
    except GameTooLargeError:
        pytest.skip(f"{name} does not ground")
    if not constants(net) or net.size > 60_000:
        pytest.skip(f"{name}: nothing folds, or {net.size} nodes")
    agree_with_the_constants(net, 5)


def test_constants_are_what_optimise_folds() -> None:
    gates = [(Gate.NOT, (2,)), (Gate.AND, (2, 4)), (Gate.OR, (3, 6)), (Gate.AND, (0, 1, 2))]
    net = network(4, {0}, gates, [0, 1, 5, 7], [8, 2])
    assert constants(net) == {0: True, 1: False}
    assert constants(network(1, {0}, [(Gate.NOT, (0,)), (Gate.AND, (1, 2))], [2], [3])) == {}
