"""The uct player's tree where several roles choose at once: children linked by joint move, proofs by a
move that wins against every move of the others or by a pure saddle point, and none where the value
needs mixed strategies."""

from __future__ import annotations

import time
from itertools import product

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.games import DOMINANT
from support.timing import NEVER

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.game import Game
from gdl.players import make_player
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct.layout import JOINT, JOINT_LIMIT
from gdl.players.uct.tree import Tree, goal_values


def matrix_game(payoffs: dict[tuple[str, str], int], rounds: int = 1) -> str:
    """A game of ``rounds`` steps in which roles ``a`` and ``b`` choose at once, a's move among the
    first letters of ``payoffs``' keys and b's among the second; the last step's pair decides: a gets
    its payoff, b 100 less it. The earlier steps' moves change nothing but the state."""
    rows = sorted({a for a, _ in payoffs})
    columns = sorted({b for _, b in payoffs})
    lines = ["(role a) (role b)", "(init (step 0))"]
    lines += [f"(legal a {m})" for m in rows] + [f"(legal b {m})" for m in columns]
    lines += [f"(succ {n} {n + 1})" for n in range(rounds)]
    lines += [
        "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))",
        "(<= (next (by ?r ?m ?n)) (does ?r ?m) (true (step ?n)))",
        "(<= (next (by ?r ?m ?n)) (true (by ?r ?m ?n)))",
        f"(<= terminal (true (step {rounds})))",
    ]
    last = rounds - 1
    for (a, b), value in payoffs.items():
        both = f"(true (by a {a} {last})) (true (by b {b} {last}))"
        lines += [f"(<= (goal a {value}) {both})", f"(<= (goal b {100 - value}) {both})"]
    return "\n".join(lines)


def two_by_two(xp: int, xq: int, yp: int, yq: int) -> dict[tuple[str, str], int]:
    """a's payoffs where a plays x or y and b plays p or q."""
    return {("x", "p"): xp, ("x", "q"): xq, ("y", "p"): yp, ("y", "q"): yq}


def searched(text: str, iterations: int) -> tuple[Tree, int, Game]:
    warm_up()
    game = gdl.parse(text)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 20_000, 200_000, 7)
    root = tree.root(reasoner.from_fluents(game.initial_state().fluents()))
    tree.search(root, iterations)
    return tree, root, game


def joint_children(tree: Tree, node: int) -> npt.NDArray[np.int32]:
    """The children ``node``'s joint moves link (-1: none yet)."""
    base = int(tree.first[node, -1] + tree.counts[node, -1])
    return tree.children[base : base + int(np.prod(tree.counts[node]))]


def secured(tree: Tree, node: int, role: int) -> list[float | None]:
    return [edge.proven for edge in tree.edges(node, role)]


def test_a_move_that_wins_against_every_reply_proves_the_node() -> None:
    # a wins with x whatever b plays; with y it wins against p only.
    tree, root, _ = searched(matrix_game(two_by_two(100, 100, 100, 0)), 200)
    assert tree.flags[root] & JOINT
    assert tree.solved(root)
    assert (tree.value(root, 0), tree.value(root, 1)) == (1.0, 0.0)
    # x secures the win; the search ends with the proof, so y may not have met both replies.
    assert secured(tree, root, 0)[0] == 1.0 and secured(tree, root, 0)[1] in (None, 0.0)
    assert all(value in (None, 0.0) for value in secured(tree, root, 1))  # p, q: each loses to x


def test_a_win_against_every_reply_two_steps_down_proves_the_root() -> None:
    tree, root, _ = searched(matrix_game(two_by_two(100, 100, 0, 50), 2), 2_000)
    assert tree.solved(root) and tree.value(root, 0) == 1.0
    # Each of the root's four joint moves leads to a node a wins by x; any first move of a wins.
    assert 1.0 in secured(tree, root, 0)


def test_a_pure_saddle_point_proves_the_node_at_its_value() -> None:
    # Rows' least values for a: x 50, y 0; columns' most: p 50, q 70. The saddle is (x, p) at 50.
    tree, root, _ = searched(matrix_game(two_by_two(50, 70, 30, 0)), 200)
    assert (joint_children(tree, root) >= 0).all()
    assert tree.solved(root)
    assert (tree.value(root, 0), tree.value(root, 1)) == (0.5, 0.5)
    assert secured(tree, root, 0) == [0.5, 0.0]
    assert secured(tree, root, 1) == [0.5, 0.3]


def test_matching_pennies_is_not_proven_though_every_child_is() -> None:
    tree, root, _ = searched(matrix_game(two_by_two(100, 0, 0, 100)), 2_000)
    assert (joint_children(tree, root) >= 0).all()
    assert not tree.solved(root)
    assert secured(tree, root, 0) == [0.0, 0.0] and secured(tree, root, 1) == [0.0, 0.0]


payoff = st.sampled_from([0, 25, 50, 75, 100])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(payoff, min_size=9, max_size=9))
def test_a_proof_holds_the_value_each_role_can_secure(values: list[int]) -> None:
    """A node proven gives each role exactly the value its pure security level says where a pure
    saddle point exists, and is proven only where one does (the game is constant-sum)."""
    cells = dict(zip(product("xyz", "pqr"), values, strict=True))
    tree, root, _ = searched(matrix_game(cells), 600)
    floor = max(min(cells[a, b] for b in "pqr") for a in "xyz")
    ceiling = min(max(cells[a, b] for a in "xyz") for b in "pqr")
    if tree.solved(root):
        assert floor == ceiling
        assert (tree.value(root, 0), tree.value(root, 1)) == (floor / 100, (100 - floor) / 100)
    else:
        # Unproven with a saddle point only while a joint move is still untried (no proof by a win
        # can have been missed: a winning row or column ends the search once its children are in).
        assert floor != ceiling or (joint_children(tree, root) < 0).any()
    rows = [min(cells[a, b] for b in "pqr") / 100 for a in "xyz"]
    assert all(got in (None, want) for got, want in zip(secured(tree, root, 0), rows, strict=True))


def test_a_node_with_more_joint_moves_than_the_limit_has_no_slots_and_is_not_proven() -> None:
    moves = int(JOINT_LIMIT**0.5) + 1
    names = [f"m{n}" for n in range(moves)]
    # a wins with m0 whatever b plays: provable, but its children are found by state only.
    cells = {(f"{p}", f"{q}"): 100 if p == "m0" else 0 for p in names for q in names}
    tree, root, _ = searched(matrix_game(cells), 3 * moves * moves)
    assert not tree.flags[root] & JOINT
    assert int(tree.meta[1]) == 2 * moves  # edges: the roles' moves only
    assert not tree.solved(root)


@pytest.mark.parametrize(("role", "best"), [("row", "a"), ("column", "l")])
def test_uct_plays_the_move_a_proof_at_a_simultaneous_root_names(role: str, best: str) -> None:
    game = gdl.parse(DOMINANT)  # row wins by a whatever column plays; column's l gets 70, r 30
    player = make_player("uct:iterations=300,seed=2,ponder=0")
    assert isinstance(player, UctPlayer)
    player.start(game, role, 5.0, 5.0)
    assert str(player.play(game.initial_state(), time.monotonic() + NEVER)) == best
    # The root was proven in the start clock; the winner's move is proven to win.
    assert player.info()["iterations"] == 0
    assert player.info().get("proven") is (True if role == "row" else None)
