"""The uct player's material heuristic: found where piece counts foretell the goals, and only there."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.game import Game, MoveLike, State
from gdl.ground.grounding import term_of
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct.heuristic import fit, piece_features, targets
from gdl.players.uct.layout import NO_ESTIMATE, NODES_USED
from gdl.players.uct.tree import Edge, Heuristic, Tree, goal_values

#: Eight steps; at each ``a`` paints the step's cell red or blue (red adds one to the score) while ``b``
#: bets heads or tails. The goals follow, as {goals} says, the score or b's last bet.
PAINT = """
(role a) (role b)
(init (step 0)) (init (score 0))
(<= (legal a (paint ?c)) (color ?c))
(<= (legal b (bet ?s)) (side ?s))
(<= (next (cell ?n ?c)) (true (step ?n)) (does a (paint ?c)))
(<= (next (cell ?n ?c)) (true (cell ?n ?c)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (score ?m)) (true (score ?n)) (does a (paint red)) (succ ?n ?m))
(<= (next (score ?n)) (true (score ?n)) (does a (paint blue)))
(<= (next (last ?s)) (does b (bet ?s)))
(<= terminal (true (step 8)))
(color red) (color blue) (side heads) (side tails)
{goals}
"""
BY_SCORE = """
(<= (goal a 100) (true (score ?n)) (high ?n))
(<= (goal a 0) (not won))
(<= won (true (score ?n)) (high ?n))
(<= (goal b 0) won)
(<= (goal b 100) (not won))
(high 5) (high 6) (high 7) (high 8)
"""
BY_BET = """
(<= (goal a 100) (true (last heads)))
(<= (goal a 0) (not (true (last heads))))
(<= (goal b 0) (true (last heads)))
(<= (goal b 100) (not (true (last heads))))
"""
SUCC = "".join(f"(succ {n} {n + 1})\n" for n in range(9))


def paint(goals: str) -> Game:
    warm_up()
    return gdl.parse(PAINT.replace("{goals}", goals) + SUCC)


def fitted(game: Game) -> tuple[Heuristic, list[str]]:
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5)
    tree.root(reasoner.initial())
    features = piece_features(reasoner.net)
    names = [str(reasoner.net.fluents[bases[0]][-1]) for bases in features]
    return fit(features, tree, 30.0, seed=1), names


def test_the_piece_relation_gives_a_feature_per_colour() -> None:
    game = paint(BY_SCORE)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    features = piece_features(reasoner.net)
    assert sorted(str(reasoner.net.fluents[bases[0]][-1]) for bases in features) == ["blue", "red"]
    assert all(len(bases) >= 8 for bases in features)


def test_the_heuristic_is_kept_where_counts_decide() -> None:
    heuristic, names = fitted(paint(BY_SCORE))
    assert heuristic.correlation >= 0.3
    red, blue = names.index("red"), names.index("blue")
    # More red is better for a and worse for b.
    assert heuristic.weights[0, red] > heuristic.weights[0, blue]
    assert heuristic.weights[1, red] < heuristic.weights[1, blue]


def test_the_heuristic_switches_itself_off_where_counts_do_not_matter() -> None:
    heuristic, _ = fitted(paint(BY_BET))
    assert heuristic.correlation == 0.0
    assert heuristic.weights.shape[1] == 0


def test_playouts_cut_off_are_scored_by_the_heuristic() -> None:
    game = paint(BY_SCORE)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5)
    tree.root(reasoner.initial())
    tree.heuristic = fit(piece_features(reasoner.net), tree, 30.0, seed=1)
    whole = tree.playouts(200)
    cut = tree.playouts(200, cutoff=2)
    # Played out, the goals are 0 or 1; cut off after two moves, predictions in between.
    assert set(np.unique(whole)) <= {0.0, 1.0}
    assert np.all((cut > 0) & (cut < 1))


def test_uct_with_cutoffs_plays_legal_moves_in_time() -> None:
    game = paint(BY_SCORE)
    player = UctPlayer(cutoff=3, seed=2, solve=0)
    player.start(game, "a", 2.0, 1.0)
    assert player.info().get("heuristic", 0) >= 0.3
    state = game.initial_state()
    while not state.is_terminal():
        deadline = time.monotonic() + 1.0
        move = player.play(state, deadline)
        assert move in state.legal_moves("a")
        state = state.next({"a": move, "b": state.legal_moves("b")[0]})
    player.stop(state)


#: PAINT with turns: b only waits, so a alone chooses and its moves lead to children of their own.
TURNS = PAINT.replace("(<= (legal b (bet ?s)) (side ?s))", "(legal b noop)").replace(
    "(<= (next (last ?s)) (does b (bet ?s)))", ""
)


def by_hand(reasoner: CompiledReasoner) -> Heuristic:
    """The heuristic of TURNS by hand: a red cell is worth 0.1 to a and costs b as much, a blue one the
    reverse; predictions centred on 0.5 with a spread of 0.1."""
    features = piece_features(reasoner.net)
    colours = [str(reasoner.net.fluents[bases[0]][-1]) for bases in features]
    weights = np.array([[0.1 if c == "red" else -0.1 for c in colours],
                        [-0.1 if c == "red" else 0.1 for c in colours]])
    starts = np.cumsum([0, *(len(bases) for bases in features)]).astype(np.int32)
    bases = np.array([b for group in features for b in group], dtype=np.int32)
    return Heuristic(
        starts, bases, weights, np.full(2, 0.5), 1.0, np.full(2, 0.1), np.zeros(2), np.full(2, 0.5),
        *targets(features, weights),
    )


def test_a_moves_first_visit_adds_the_prior_of_the_state_it_leads_to() -> None:
    warm_up()
    game = gdl.parse(TURNS.replace("{goals}", BY_SCORE) + SUCC)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5)
    root = tree.root(reasoner.initial())
    tree.heuristic = by_hand(reasoner)
    tree.search(root, 2, prior=1000)
    assert list(tree.heuristic.anchors) == [0.5, 0.5]  # no cell is painted at the root
    # Role a's legal outputs come first: an edge's output is its index in a's legal moves.
    edges = {str(term_of(reasoner.net.legal[0][edge.output][0])): edge for edge in tree.edges(root, 0)}
    red, blue = edges["(paint red)"], edges["(paint blue)"]
    assert red.visits == blue.visits == 1001
    # logistic(+-1) is 0.73 or 0.27, stretched around a's mean so far: red above a half, blue below.
    assert red.mean > 0.55 and blue.mean < 0.45
    without = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5)
    without.heuristic = tree.heuristic
    plain = without.root(reasoner.initial())
    without.search(plain, 2)
    assert [edge.visits for edge in without.edges(plain, 0)] == [1, 1]


def a_plays_out(player: UctPlayer, game: Game, answer: Callable[[State], MoveLike]) -> State:
    """Start ``player`` as ``a`` (a 2 s start clock) and play ``game`` to its end, ``b`` playing
    ``answer``; each of ``a``'s moves is checked legal. Its weak heuristic is checked kept. The final
    state."""
    player.start(game, "a", 2.0, 1.0)
    assert player.info().get("heuristic", 0) >= 0.1
    state = game.initial_state()
    while not state.is_terminal():
        move = player.play(state, time.monotonic() + 1.0)
        assert move in state.legal_moves("a")
        state = state.next({"a": move, "b": answer(state)})
    player.stop(state)
    return state


def test_uct_with_priors_keeps_a_weaker_heuristic_and_plays_legal_moves() -> None:
    game = gdl.parse(TURNS.replace("{goals}", BY_SCORE) + SUCC)
    player = UctPlayer(prior=6, seed=2, iterations=3000, ponder=0, solve=0)  # bounded by work, not the clock
    state = a_plays_out(player, game, lambda _: "noop")
    assert state.goals()["a"] == 100, "painting red at every step wins"


def test_cells_of_two_coordinates_add_a_count_per_line() -> None:
    game = gdl.load("games/tictactoe.kif")
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    fluents = reasoner.net.fluents
    features = piece_features(reasoner.net)
    described = [{(fluents[b][-1], tuple(fluents[b][1:-1])) for b in bases} for bases in features]
    # x, o and blank: a count each, then a count per row and per column of each (3 marks, 2 coordinates
    # of 3 values).
    assert len(features) == 3 + 3 * 2 * 3
    for cells in described[:3]:
        assert len(cells) == 9 and len({mark for mark, _ in cells}) == 1
    for cells in described[3:]:
        marks = {mark for mark, _ in cells}
        rows, columns = {x for _, (x, _) in cells}, {y for _, (_, y) in cells}
        assert len(cells) == 3 and len(marks) == 1 and (len(rows) == 1 or len(columns) == 1)



def estimated_tree() -> tuple[CompiledReasoner, Tree, int]:
    """TURNS won by the score, its tree with :func:`by_hand`'s heuristic, and the initial state's node."""
    warm_up()
    reasoner = gdl.parse(TURNS.replace("{goals}", BY_SCORE) + SUCC).reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5)
    tree.heuristic = by_hand(reasoner)
    return reasoner, tree, tree.root(reasoner.initial())


def a_moves(reasoner: CompiledReasoner, tree: Tree, node: int) -> dict[str, Edge]:
    """Role a's edges at ``node`` by their move (a's legal outputs are its moves' indexes)."""
    return {str(term_of(reasoner.net.legal[0][edge.output][0])): edge for edge in tree.edges(node, 0)}

def test_implicit_minimax_estimates_new_nodes_and_backs_up_the_best_child() -> None:
    reasoner, tree, root = estimated_tree()
    tree.search(root, 2, minimax=0.5)
    edges = a_moves(reasoner, tree, root)
    red, blue = edges["(paint red)"].child, edges["(paint blue)"].child
    # One red cell: a's prediction 0.6, one spread above the centre; b's one below.
    above, below = 1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(1.0))
    assert tree.value(red, 0) == pytest.approx(above) and tree.value(red, 1) == pytest.approx(below)
    assert tree.value(blue, 0) == pytest.approx(below) and tree.value(blue, 1) == pytest.approx(above)
    assert tree.value(root, 0) == pytest.approx(above), "a chooses at the root: its best child's value"
    assert tree.value(root, 1) == pytest.approx(below)
    # Deeper, each node a chooses at holds its best child's estimate (no state is reached two ways).
    tree.search(root, 400, minimax=0.5)
    checked = 0
    for node in range(int(tree.meta[NODES_USED])):
        if tree.solved(node) or not tree.expanded(node):
            continue
        children = [edge.child for edge in tree.edges(node, 0) if edge.child >= 0]
        estimated = [tree.value(child, 0) for child in children if tree.value(child, 0) != NO_ESTIMATE]
        if estimated:
            assert tree.value(node, 0) == max(estimated)
            checked += 1
    assert checked >= 20


def test_implicit_minimax_alone_follows_the_best_estimate() -> None:
    reasoner, tree, root = estimated_tree()
    ran = tree.search(root, 200, exploration=0.0, minimax=1.0)
    visits = {move: edge.visits for move, edge in a_moves(reasoner, tree, root).items()}
    # With the estimate alone and no exploration, blue is tried once and red, better, takes the rest,
    # down to a proven win.
    assert visits == {"(paint red)": ran - 1, "(paint blue)": 1}
    assert tree.solved(root) and tree.value(root, 0) == 1.0
