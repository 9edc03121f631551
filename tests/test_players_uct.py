"""The uct player: its native tree search (solver, transpositions, reuse) and its play."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.games import DOMINANT, board
from support.timing import NEVER, slack

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.errors import GameTooLargeError
from gdl.game import Game, State
from gdl.match import Match
from gdl.players import make_player
from gdl.players.equilibrium import EquilibriumPlayer
from gdl.players.mcts import MctsPlayer
from gdl.players.puzzles.player import PuzzlePlayer
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct import player as uct_module
from gdl.players.uct.layout import JOINT
from gdl.players.uct.tree import Edge, Tree, choose, goal_values

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def tictactoe() -> Game:
    warm_up()
    return gdl.load(GAMES / "tictactoe.kif")


def tree_of(
    game: Game, nodes: int = 20_000, edges: int = 200_000, averages: bool = False
) -> tuple[Tree, CompiledReasoner]:
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    return Tree(reasoner.kernel, goal_values(reasoner), nodes, edges, 7, averages=averages), reasoner


def root_of(tree: Tree, reasoner: CompiledReasoner, state: State) -> int:
    return tree.root(reasoner.from_fluents(state.fluents()))


def started(spec: str, game: Game, role: str, clock: float = 5.0) -> UctPlayer:
    player = make_player(spec)
    assert isinstance(player, UctPlayer)
    player.start(game, role, clock, clock)
    return player


# -- the tree and its solver --------------------------------------------------------------------------


def test_solver_proves_a_won_position_and_its_winning_move(tictactoe: Game) -> None:
    # x to move: (mark 1 3) wins at once, and x also has a fork after other moves.
    state = board(tictactoe, ["xx.", "oo.", "..."], "xplayer")
    tree, reasoner = tree_of(tictactoe)
    root = root_of(tree, reasoner, state)
    tree.search(root, 100_000)
    assert tree.solved(root)
    assert tree.value(root, 0) == 1.0 and tree.value(root, 1) == 0.0
    winning = [e for e in tree.edges(root, 0) if e.proven == 1.0]
    assert winning, "a proven win has a proven winning move"
    best = choose(tree.edges(root, 0), tree.value(root, 0))
    assert best.proven == 1.0


def test_solver_proves_a_lost_position_for_the_side_to_move(tictactoe: Game) -> None:
    # x has a fork (two open lines) and o to move can block only one.
    state = board(tictactoe, ["x.x", ".o.", "x.o"], "oplayer")
    tree, reasoner = tree_of(tictactoe)
    root = root_of(tree, reasoner, state)
    tree.search(root, 200_000)
    assert tree.solved(root)
    assert (tree.value(root, 0), tree.value(root, 1)) == (1.0, 0.0)
    assert all(e.proven == 0.0 for e in tree.edges(root, 1))


@pytest.mark.parametrize("rave", [0, 20])
def test_solver_proofs_agree_with_minimax(tictactoe: Game, rave: int) -> None:
    """Positions four to six marks in: those the search proves (with GRAVE's selection too) have
    minimax's exact value."""
    rng = random.Random(11)
    proven = 0
    for _ in range(12):
        state = tictactoe.initial_state()
        for _ in range(rng.randrange(4, 7)):
            state = state.next({role: rng.choice(state.legal_moves(role)) for role in tictactoe.roles})
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        mover = next(r for r in tictactoe.roles if len(state.legal_moves(r)) > 1)
        tree, reasoner = tree_of(tictactoe, averages=rave > 0)
        root = root_of(tree, reasoner, state)
        tree.search(root, 200_000, rave=rave)
        if not tree.solved(root):
            continue
        minimax = make_player("minimax")
        minimax.start(tictactoe, mover, NEVER, NEVER)
        minimax.play(state, time.monotonic() + NEVER)
        assert minimax.info()["exact"] is True
        assert 100 * tree.value(root, tictactoe.roles.index(mover)) == minimax.info()["value"]
        proven += 1
    assert proven >= 6


COIN = """
(role random) (role p)
(init start)
(legal random heads) (legal random tails) (legal p wait)
(<= (next done) (true start))
(<= (next (landed ?s)) (does random ?s))
(<= terminal (true done))
(<= (goal p 100) (true (landed heads)))
(<= (goal p 0) (true (landed tails)))
"""


def test_solver_leaves_a_node_where_nature_alone_chooses_unproven() -> None:
    # Both children are proven (100 and 0 for p): the node's value is an expectation, not a proof.
    game = gdl.parse(COIN)
    assert game.chance_role is not None
    tree, reasoner = tree_of(game)
    root = root_of(tree, reasoner, game.initial_state())
    assert tree.search(root, 200, chance=game.roles.index(game.chance_role)) == 200
    assert sorted(tree.value(edge.child, 1) for edge in tree.edges(root, 0)) == [0.0, 1.0]
    assert not tree.solved(root)


def test_a_state_reached_by_two_move_orders_is_one_node(tictactoe: Game) -> None:
    tree, reasoner = tree_of(tictactoe)
    start = tictactoe.initial_state()
    first = start.next({"xplayer": "(mark 1 1)", "oplayer": "noop"}).next(
        {"xplayer": "noop", "oplayer": "(mark 2 2)"}
    ).next({"xplayer": "(mark 3 3)", "oplayer": "noop"})
    second = start.next({"xplayer": "(mark 3 3)", "oplayer": "noop"}).next(
        {"xplayer": "noop", "oplayer": "(mark 2 2)"}
    ).next({"xplayer": "(mark 1 1)", "oplayer": "noop"})
    root = root_of(tree, reasoner, start)
    tree.search(root, 20_000)
    used = int(tree.meta[0])
    node = root_of(tree, reasoner, first)
    assert node == root_of(tree, reasoner, second)
    assert int(tree.meta[0]) == used, "the search had found the state: no node was added"
    assert tree.visits[node] > 0


def test_the_kernels_legal_moves_are_the_reasoners(tictactoe: Game) -> None:
    """The edges at a node are the role's legal moves as the game says them, in the same order."""
    player = UctPlayer(iterations=50, seed=1)
    player.start(tictactoe, "xplayer", 30, 30)
    assert player._whole is not None
    tree, terms = player._whole.tree, player._whole.terms
    rng = random.Random(3)
    state = tictactoe.initial_state()
    compared = 0
    while not state.is_terminal():
        node = root_of(tree, player._compiled, state)  # type: ignore[arg-type]
        tree.search(node, 50)
        for index, role in enumerate(tictactoe.roles):
            moves = [terms[e.output][1] for e in tree.edges(node, index)]
            assert sorted(map(str, moves)) == sorted(map(str, state.legal_moves(role)))
            compared += 1
        state = state.next({role: rng.choice(state.legal_moves(role)) for role in tictactoe.roles})
    assert compared >= 10


def test_choose_prefers_a_proven_value_to_weaker_means() -> None:
    edges = [Edge(0, 900, 0.4, None), Edge(1, 50, 0.5, 0.5), Edge(2, 40, 0.0, 0.0)]
    assert choose(edges, None).output == 1
    edges = [Edge(0, 900, 0.7, None), Edge(1, 50, 0.5, 0.5), Edge(2, 40, 0.0, 0.0)]
    assert choose(edges, None).output == 0
    assert choose([Edge(0, 10, 0.2, 0.0), Edge(1, 5, 0.9, 1.0)], 1.0).output == 1


# A puzzle where each of six moves is played once, in an order the player chooses: goal 100 when the
# first was a. Every iteration plays every move, so each move's average at a node counts every iteration
# through it; until the search proves a node, whose moves below it are then not played.
ORDER = """
(role p)
(init (round 0))
(move a) (move b) (move c) (move d) (move e) (move f)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal p ?m) (move ?m) (not (true (used ?m))))
(<= (next (used ?m)) (does p ?m))
(<= (next (used ?m)) (true (used ?m)))
(<= (next (first ?m)) (does p ?m) (true (round 0)))
(<= (next (first ?m)) (true (first ?m)))
(<= (next (round ?y)) (true (round ?x)) (succ ?x ?y))
(<= terminal (true (round 6)))
(<= (goal p 100) (true (first a)))
(<= (goal p 0) (not (true (first a))))
"""


def test_move_averages_count_every_iteration_that_played_the_move_there_or_later() -> None:
    warm_up()
    game = gdl.parse(ORDER)
    tree, reasoner = tree_of(game, averages=True)
    root = root_of(tree, reasoner, game.initial_state())
    compared = iterations = 0
    while not any(tree.solved(n) and not tree.terminal(n) for n in range(int(tree.meta[0]))):
        tree.search(root, 1, rave=3)
        iterations += 1
        for node in range(int(tree.meta[0])):
            if not tree.expanded(node) or len(tree.edges(node, 0)) < 2:
                continue
            edges, averages = tree.edges(node, 0), tree.averages(node, 0)
            through = sum(e.visits for e in edges)
            rewards = sum(e.visits * e.mean for e in edges)
            assert [n for n, _ in averages] == [through] * len(edges)
            assert [mean for _, mean in averages] == pytest.approx([rewards / through] * len(edges))
            compared += 1
    assert iterations >= 20 and compared >= iterations
    firsts = {str(player_move(game, e.output)): e for e in tree.edges(root, 0)}
    assert firsts["a"].mean == 1.0 and all(e.mean == 0.0 for m, e in firsts.items() if m != "a")


def player_move(game: Game, output: int) -> object:
    """The move of the kernel's legal ``output`` in a game of one role."""
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    return [move for move, _ in reasoner.net.legal[0]][output]


def test_a_kept_subtree_keeps_its_move_averages_and_grave_plays_the_win(tictactoe: Game) -> None:
    tree, reasoner = tree_of(tictactoe, averages=True)
    start = tictactoe.initial_state()
    tree.search(root_of(tree, reasoner, start), 3_000, rave=20)
    reached = start.next({"xplayer": "(mark 2 2)", "oplayer": "noop"}).next(
        {"xplayer": "noop", "oplayer": "(mark 1 1)"}
    )
    node = root_of(tree, reasoner, reached)
    before = subtree(tree, node)
    assert 1 < len(before) < int(tree.meta[0])
    assert any(n > 0 for *_, averages in before.values() for run in averages for n, _ in run)
    assert subtree(tree, tree.keep(node)) == before
    with pytest.raises(ValueError, match="without move averages"):
        tree_of(tictactoe)[0].search(0, 1, rave=20)
    player = started("uct:rave=20,seed=3,solve=0", tictactoe, "xplayer", clock=1)
    won = player.play(board(tictactoe, ["xx.", "oo.", "..."], "xplayer"), time.monotonic() + NEVER)
    assert str(won) == "(mark 1 3)"


# -- the player -----------------------------------------------------------------------------------------


def test_uct_plays_a_proven_win_at_once(tictactoe: Game) -> None:
    state = board(tictactoe, ["xx.", "oo.", "..."], "xplayer")
    player = started("uct:seed=1,solve=0", tictactoe, "xplayer", clock=0.5)
    begun = time.monotonic()
    assert str(player.play(state, begun + 60)) == "(mark 1 3)"
    assert time.monotonic() - begun < 30, "a proven win ends the search long before the deadline"
    assert player.info()["proven"] is True


def first_move_and_reply(spec: str, tictactoe: Game) -> tuple[UctPlayer, Tree, State]:
    """``spec``'s player as xplayer after its first move; its tree, and the state after oplayer's reply."""
    player = started(spec, tictactoe, "xplayer", clock=30)
    state = tictactoe.initial_state()
    move = player.play(state, time.monotonic() + NEVER)
    assert player._whole is not None
    after = state.next({"xplayer": move, "oplayer": "noop"})
    reply = after.legal_moves("oplayer")[0]
    return player, player._whole.tree, after.next({"xplayer": "noop", "oplayer": reply})


def test_uct_reuses_its_tree_for_the_state_reached(tictactoe: Game) -> None:
    player, tree, reached = first_move_and_reply("uct:iterations=2000,seed=2,solve=0", tictactoe)
    used = int(tree.meta[0])
    node = root_of(tree, player._compiled, reached)  # type: ignore[arg-type]
    assert node < used and tree.visits[node] > 0  # found, with the statistics of the earlier search


def test_uct_decoupled_selection_finds_dominant_simultaneous_moves() -> None:
    game = gdl.parse(DOMINANT)
    for role, best in (("row", "a"), ("column", "l")):
        player = started("uct:iterations=300,seed=2", game, role)
        assert str(player.play(game.initial_state(), time.monotonic() + NEVER)) == best


def test_uct_answers_before_its_deadline(tictactoe: Game) -> None:
    player = started("uct:margin=0.05,solve=0", tictactoe, "oplayer", clock=0.01)
    state = tictactoe.initial_state().next({"xplayer": "(mark 1 1)", "oplayer": "noop"})
    begun = time.monotonic()
    player.play(state, begun + 0.3)
    assert time.monotonic() - begun < 0.3 + slack(0.5)  # the deadline, late only by the load
    assert player.info()["iterations"] > 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["tictactoe.kif", "nim.kif", "rps.kif", "buttons.kif", "dice.kif"]),
    seed=st.integers(0, 2**16),
)
def test_uct_plays_legal_moves_to_the_end_of_random_matches(name: str, seed: int) -> None:
    game = gdl.load(GAMES / name)
    if game.has_percepts:
        return
    rng = random.Random(seed)
    spec = f"uct:seed={seed},iterations=200"
    players = {role: started(spec, game, role, clock=0.2) for role in game.players}
    state = game.initial_state()
    moves = 0
    while not state.is_terminal():
        joint = {}
        for role in game.roles:
            if role in players and rng.random() < 0.5:
                joint[role] = players[role].play(state, time.monotonic() + 0.2)
                assert joint[role] in state.legal_moves(role)
            else:
                joint[role] = rng.choice(state.legal_moves(role))
        state = state.next(joint)
        moves += 1
    assert moves > 0


def test_uct_falls_back_to_mcts_without_a_network(
    tictactoe: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    def too_large(*_: object) -> CompiledReasoner:
        raise GameTooLargeError("too large for this test")

    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    monkeypatch.setattr(uct_module, "build_compiled", too_large)
    player = started("uct:seed=1", game, "xplayer", clock=0.2)
    assert isinstance(player._fallback, MctsPlayer)
    state = board(game, ["xx.", "oo.", "..."], "xplayer")
    assert str(player.play(state, time.monotonic() + 0.5)) == "(mark 1 3)"


def test_uct_leaves_games_with_percepts_to_the_equilibrium_player() -> None:
    game = gdl.load(GAMES / "montyhall.kif")
    player = started("uct:seed=1", game, game.players[0], clock=5)
    assert isinstance(player._fallback, EquilibriumPlayer) and player.info()["solved"]


def test_uct_plays_a_puzzle_by_its_proven_plan_and_searches_a_puzzle_it_cannot_solve() -> None:
    buttons = gdl.load(GAMES / "buttons.kif")
    player = started("uct:seed=1", buttons, "robot", clock=5)
    assert isinstance(player._fallback, PuzzlePlayer) and player.info()["proven"]
    record = Match(buttons, {"robot": player}, start_clock=5, play_clock=2, isolate=False).run()
    assert record.completed and record.goals["robot"] == 100
    hopeless = started("uct:seed=1", buttons, "robot", clock=0.01)  # no time to solve: the search plays
    assert hopeless._fallback is None and hopeless._whole is not None


def test_uct_ponders_between_moves_and_stops_at_the_next_call(tictactoe: Game) -> None:
    player = UctPlayer(seed=4, solve=0)
    player.start(tictactoe, "xplayer", 0.01, 5.0)  # too short a start clock to search much
    state = tictactoe.initial_state()
    player.play(state, time.monotonic() + 0.3)
    thinking = player._pondering
    assert thinking is not None and thinking.is_alive()
    assert player._whole is not None
    tree = player._whole.tree
    before = int(tree.visits.sum())
    time.sleep(0.3)
    player.stop(state)
    assert player._pondering is None and not thinking.is_alive()
    assert int(tree.visits.sum()) > before


#: Run in a fresh interpreter: in the test process, threads of other tests (a player pondering, a tree
#: freed) change its size between the reading of the limit and the budget's own reading.
_BUDGET_UNDER_A_LIMIT = """
import resource
from gdl.players.uct.tree import tree_budget
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
assert tree_budget(100 << 20) == 100 << 20 or soft != resource.RLIM_INFINITY
with open("/proc/self/statm") as statm:
    used = int(statm.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (200 << 20), hard))
print(tree_budget(1 << 30))
"""


def test_the_tree_fits_in_the_address_space_a_worker_has_left() -> None:
    if not Path("/proc/self/statm").exists():
        pytest.skip("no /proc/self/statm: the tree takes the memory option as it is")
    done = subprocess.run(
        [sys.executable, "-c", _BUDGET_UNDER_A_LIMIT], capture_output=True, text=True, timeout=120, check=True
    )
    # Half of the 200 MB left, give or take what the interpreter took after the reading.
    assert 50 << 20 <= int(done.stdout) <= 100 << 20


#: ``flag`` holds in every reachable state (the network is folded on it); a state without it is
#: unreachable, and its goals differ.
FOLDED = """
(role r)
(init flag) (init (count 0))
(choice a) (choice b)
(<= (legal r (pick ?x)) (choice ?x))
(<= (next flag) (true flag))
(<= (next (count 1)) (true (count 0)))
(<= (next (picked ?x)) (does r (pick ?x)))
(<= terminal (true (count 1)))
(<= (goal r 100) (true (picked a)) (true flag))
(<= (goal r 50) (true (picked a)) (not (true flag)))
(<= (goal r 0) (true (picked b)))
"""


def test_uct_plays_an_unreachable_state_with_the_plain_search() -> None:
    game = gdl.parse(FOLDED)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner) and reasoner.kernels.mask != 0
    player = started("uct:seed=5,iterations=100", game, "r", clock=0.2)
    assert str(player.play(game.initial_state(), time.monotonic() + NEVER)) == "(pick a)"
    assert player._spare_player is None
    assert str(player.play(game.state(["(count 0)"]), time.monotonic() + 1)) == "(pick a)"
    assert player._spare_player is not None


def test_uct_falls_back_to_mcts_when_the_network_is_too_large_for_the_kernel(
    tictactoe: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gdl.engines.folding import FoldedKernels

    original = FoldedKernels.of
    calls = []

    def too_large_once(kernels: FoldedKernels, state: int) -> object:
        """The first call (uct's) fails as flattening a too large network does; mcts's then succeed."""
        calls.append(state)
        if len(calls) == 1:
            raise ValueError("network too large for the native kernel (test)")
        return original(kernels, state)

    monkeypatch.setattr(FoldedKernels, "of", too_large_once)
    player = started("uct:seed=1", tictactoe, "xplayer", clock=0.2)
    assert isinstance(player._fallback, MctsPlayer)
    state = board(tictactoe, ["xx.", "oo.", "..."], "xplayer")
    assert str(player.play(state, time.monotonic() + 0.5)) == "(mark 1 3)"


# -- keeping the subtree of the state reached -----------------------------------------------------------

ROUNDS = """
(role p) (role q)
(init (round 0))
(<= (legal ?r a) (role ?r))
(<= (legal ?r b) (role ?r))
(<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
(<= (next (hit ?n)) (does p ?m) (does q ?m) (true (round ?n)))
(<= (next (hit ?n)) (true (hit ?n)))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= terminal (true (round 3)))
(<= (goal p 100) (true (hit 2)))
(<= (goal p 0) (not (true (hit 2))))
(<= (goal q 0) (true (hit 2)))
(<= (goal q 100) (not (true (hit 2))))
"""


def subtree(tree: Tree, root: int) -> dict[int, tuple[object, ...]]:
    """Each node below ``root`` (linked by edges or joint moves), by its state: its visits, flags, proven
    values, each role's edges (move, visits, mean, and the child's state) and its joint moves' children's
    states."""
    found: dict[int, tuple[object, ...]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if tree.state(node) in found:
            continue
        edges = [tree.edges(node, role) for role in range(tree.roles)] if tree.expanded(node) else []
        joint: list[int] = []
        if tree.expanded(node) and tree.flags[node] & JOINT:
            base = int(tree.first[node, -1] + tree.counts[node, -1])
            joint = [int(c) for c in tree.children[base : base + int(np.prod(tree.counts[node]))]]
        stack += [c for c in joint if c >= 0]
        found[tree.state(node)] = (
            [tree.state(c) if c >= 0 else None for c in joint],
            int(tree.visits[node]), int(tree.flags[node]), tuple(tree.values[node]),
            [[(e.output, e.visits, e.mean, tree.state(e.child) if e.child >= 0 else None) for e in run]
             for run in edges],
            [tree.averages(node, role) for role in range(tree.roles)] if edges and len(tree.amaf[0]) else [],
        )
        stack += [e.child for run in edges for e in run if e.child >= 0]
    return found


def test_keeping_a_subtree_keeps_its_statistics_and_proofs_and_forgets_the_rest(tictactoe: Game) -> None:
    tree, reasoner = tree_of(tictactoe)
    start = tictactoe.initial_state()
    tree.search(root_of(tree, reasoner, start), 3_000)
    reached = start.next({"xplayer": "(mark 2 2)", "oplayer": "noop"}).next(
        {"xplayer": "noop", "oplayer": "(mark 1 1)"}
    )
    used = int(tree.meta[0])
    node = root_of(tree, reasoner, reached)
    assert int(tree.meta[0]) == used, "the search had found the state"
    before = subtree(tree, node)
    assert 1 < len(before) < used
    kept = tree.keep(node)
    assert subtree(tree, kept) == before
    assert int(tree.meta[0]) == len(before)
    assert int(tree.meta[1]) == sum(len(run) for _, _, _, _, runs, _ in before.values() for run in runs)
    for state in before:  # each kept node is found by its state: the table was filled again
        assert tree.root(state) < len(before) and int(tree.meta[0]) == len(before)
    assert root_of(tree, reasoner, start) == len(before), "the initial state was forgotten, and is added"
    fresh, _ = tree_of(tictactoe)
    fresh_root = root_of(fresh, reasoner, reached)
    fresh.search(fresh_root, 50_000)
    kept = root_of(tree, reasoner, reached)
    tree.search(kept, 50_000)
    assert tree.solved(kept) and fresh.solved(fresh_root)
    assert [tree.value(kept, r) for r in (0, 1)] == [fresh.value(fresh_root, r) for r in (0, 1)]


def test_keeping_a_node_where_both_roles_choose_keeps_the_children_its_joint_moves_link() -> None:
    warm_up()
    game = gdl.parse(ROUNDS)
    tree, reasoner = tree_of(game)
    start = game.initial_state()
    tree.search(root_of(tree, reasoner, start), 500)
    used = int(tree.meta[0])
    node = root_of(tree, reasoner, start.next({"p": "a", "q": "b"}))
    assert tree.flags[node] & JOINT
    before = subtree(tree, node)
    assert 4 < len(before) < used  # the node, the four children its joint moves link, and more
    kept = tree.keep(node)
    assert subtree(tree, kept) == before and int(tree.meta[0]) == len(before)
    # Each node's edges and joint moves' slots: 2 + 2 + 4 where both roles choose.
    assert int(tree.meta[1]) == 8 * sum(1 for entry in before.values() if entry[4])
    visits = int(tree.visits[kept])
    tree.search(kept, 500)
    assert int(tree.visits[kept]) > visits


@pytest.mark.parametrize("keep", [1, 0])
def test_uct_keeps_the_subtree_of_the_state_reached_when_its_tree_is_past_its_share(
    tictactoe: Game, monkeypatch: pytest.MonkeyPatch, keep: int
) -> None:
    spec = f"uct:iterations=3000,seed=2,ponder=0,keep={keep},solve=0"
    player, tree, reached = first_move_and_reply(spec, tictactoe)
    monkeypatch.setattr(uct_module, "KEEP_AT", 0.9 * tree.used)  # the tree is now past its share
    player.play(reached, time.monotonic() + NEVER)
    node = root_of(tree, player._compiled, reached)  # type: ignore[arg-type]
    iterations = player.info()["iterations"]
    if keep:
        assert tree.visits[node] > iterations, "the first search's visits below the state were kept"
    else:
        assert tree.visits[node] <= iterations + 1, "the tree was cleared"
