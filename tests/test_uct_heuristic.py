"""The uct player's material heuristic: found where piece counts foretell the goals, and only there."""

from __future__ import annotations

import time

import numpy as np

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.game import Game
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct.heuristic import Heuristic, fit, piece_features
from gdl.players.uct.player import goal_values
from gdl.players.uct.tree import Tree

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
    player = UctPlayer(cutoff=3, seed=2)
    player.start(game, "a", 2.0, 1.0)
    assert player.info().get("heuristic", 0) >= 0.3
    state = game.initial_state()
    while not state.is_terminal():
        deadline = time.monotonic() + 1.0
        move = player.play(state, deadline)
        assert move in state.legal_moves("a")
        state = state.next({"a": move, "b": state.legal_moves("b")[0]})
    player.stop(state)
