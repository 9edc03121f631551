"""Captures in the uct player's playouts: a step plays the move that takes the piece the material
heuristic counts most against the mover (gdl/players/uct/playout_kernel.py's ``play_capture``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest
from test_uct_heuristic import a_plays_out

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct.decisive import watch
from gdl.players.uct.heuristic import piece_features, takeable, targets
from gdl.players.uct.tree import Heuristic, Tree, goal_values

#: Two roles take turns; the one in control takes one of the other's pieces or waits. A side with no
#: piece left loses; after six moves the game is drawn.
TAKE = """
(role a) (role b)
(init (control a)) (init (step 0))
(init (cell 1 1 pb)) (init (cell 1 2 pb)) (init (cell 2 2 pb))
(init (cell 3 1 pa)) (init (cell 4 1 pa)) (init (cell 3 2 pa))
(<= (legal ?r (take ?x ?y)) (true (control ?r)) (enemy ?r ?o) (true (cell ?x ?y ?o)))
(<= (legal ?r wait) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (cell ?x ?y ?o)) (true (cell ?x ?y ?o)) (not (taken ?x ?y)))
(<= (taken ?x ?y) (does ?r (take ?x ?y)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= aleft (true (cell ?x ?y pa)))
(<= bleft (true (cell ?x ?y pb)))
(<= terminal (not aleft))
(<= terminal (not bleft))
(<= terminal (true (step 6)))
(<= (goal a 100) (not bleft))
(<= (goal a 0) (not aleft) bleft)
(<= (goal a 50) aleft bleft)
(<= (goal b 100) (not aleft))
(<= (goal b 0) (not bleft) aleft)
(<= (goal b 50) aleft bleft)
(enemy a pb) (enemy b pa)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
"""
#: TAKE ended by its steps alone: no move brings the end about, so the watch has nothing to watch, and
#: keeps only the setters the captures ask for.
TAKE_BY_STEPS = TAKE.replace("(<= terminal (not aleft))", "").replace("(<= terminal (not bleft))", "")
#: TAKE where a take removes nothing: the pieces stay, as the marks of a game of marks do.
KEEP = TAKE.replace("(not (taken ?x ?y))", "")


def setting(rules: str = TAKE) -> tuple[CompiledReasoner, Heuristic]:
    """The reasoner of ``rules`` (TAKE's pieces) and a heuristic by hand: each of b's pieces costs a 0.1,
    and one on row 2 costs 0.3 more; each of a's pieces costs b 0.1; each side's pieces are worth 0.1 to
    it."""
    warm_up()
    reasoner = gdl.parse(rules).reasoner
    assert isinstance(reasoner, CompiledReasoner)
    fluents = reasoner.net.fluents
    features = piece_features(reasoner.net)
    everything = {owner: {b for b, f in enumerate(fluents) if f[-1] == owner} for owner in ("pa", "pb")}
    weights = np.zeros((2, len(features)))
    for f, group in enumerate(features):
        owners = {fluents[b][-1] for b in group}
        if set(group) == everything["pb"]:
            weights[:, f] = -0.1, 0.1
        elif owners == {"pb"} and all(fluents[b][2] == "2" for b in group):
            weights[0, f] = -0.3
        elif set(group) == everything["pa"]:
            weights[:, f] = 0.1, -0.1
    assert np.count_nonzero(weights) == 5, "the count of each side and b's row 2 are features"
    starts = np.cumsum([0, *(len(bases) for bases in features)]).astype(np.int32)
    bases = np.array([b for group in features for b in group], dtype=np.int32)
    heuristic = Heuristic(
        starts, bases, weights, np.full(2, 0.5), 1.0, np.full(2, 0.1), np.zeros(2), np.full(2, 0.5),
        *targets(features, weights),
    )
    return reasoner, heuristic


def pieces(reasoner: CompiledReasoner, row: npt.NDArray[np.uint8], owner: str) -> set[tuple[str, str]]:
    return {
        (str(f[1]), str(f[2])) for b, f in enumerate(reasoner.net.fluents) if row[b] and f[-1] == owner
    }


def test_the_targets_of_a_role_are_its_opponents_pieces() -> None:
    reasoner, heuristic = setting()
    fluents = reasoner.net.fluents
    starts, found = heuristic.target_starts, heuristic.targets
    assert {fluents[b] for b in found[starts[0] : starts[1]]} == {
        f for f in fluents if f[-1] == "pb"
    }
    assert {fluents[b] for b in found[starts[1] : starts[2]]} == {f for f in fluents if f[-1] == "pa"}
    # Worth most first: to a, b's pieces on row 2 are worth 0.1 + 0.3, the one on row 1 0.1.
    assert [fluents[b][2] for b in found[starts[0] : starts[1]]] == ["2", "2", "1"]


def test_a_roles_own_pieces_are_not_its_targets_whatever_their_line_weighs() -> None:
    reasoner, heuristic = setting()
    fluents = reasoner.net.fluents
    features = piece_features(reasoner.net)
    weights = heuristic.weights.copy()
    # a's pieces on row 1 weigh against a (as a home row may): moving them away would be no capture.
    row_one = [
        f for f, group in enumerate(features)
        if {fluents[b][-1] for b in group} == {"pa"} and all(fluents[b][2] == "1" for b in group)
    ]
    assert len(row_one) == 1
    weights[0, row_one[0]] = -0.5
    starts, found = targets(features, weights)
    assert {fluents[b][-1] for b in found[starts[0] : starts[1]]} == {"pb"}


def test_a_kind_every_role_weighs_below_0_is_no_ones_target() -> None:
    reasoner, heuristic = setting()
    fluents = reasoner.net.fluents
    features = piece_features(reasoner.net)
    weights = heuristic.weights.copy()
    # b's whole count now costs b too, as the blank cells of a game of marks may cost every role.
    whole_b = [f for f in range(len(features)) if weights[0, f] == -0.1 and weights[1, f] == 0.1]
    assert len(whole_b) == 1
    weights[1, whole_b[0]] = -0.1
    starts, found = targets(features, weights)
    assert starts[1] == starts[0]
    assert {fluents[b][-1] for b in found[starts[1] : starts[2]]} == {"pa"}


@pytest.mark.parametrize("rules", [TAKE, KEEP], ids=["taken", "kept"])
def test_only_the_targets_a_move_may_take_are_looked_for(rules: str) -> None:
    reasoner, heuristic = setting(rules)
    also = [(int(b), 0) for b in heuristic.targets]
    kept = takeable(heuristic, watch(reasoner.kernel, also))
    if rules == TAKE:
        assert list(kept.targets) == list(heuristic.targets)
        assert list(kept.target_starts) == list(heuristic.target_starts)
    else:
        assert len(heuristic.targets) == 6 and len(kept.targets) == 0
        assert list(kept.target_starts) == [0, 0, 0]


@pytest.mark.parametrize("rules", [TAKE, TAKE_BY_STEPS], ids=["watched", "unwatched"])
def test_a_capturing_step_takes_the_piece_worth_most_to_the_mover(rules: str) -> None:
    reasoner, heuristic = setting(rules)
    also = [(int(b), 0) for b in heuristic.targets]
    kept = watch(reasoner.kernel, also)
    assert kept.empty == (rules == TAKE_BY_STEPS)
    assert not watch(reasoner.kernel).empty or rules == TAKE_BY_STEPS
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5, watch=kept)
    tree.heuristic = heuristic
    tree.root(reasoner.initial())
    _, captured, _ = tree.sample(np.ones(200, dtype=np.int64), capture=1.0)
    _, drawn, _ = tree.sample(np.ones(200, dtype=np.int64))
    row_two = {("1", "2"), ("2", "2")}
    # a takes one of b's two pieces on row 2 (worth 0.4 to it each; the one on row 1 is worth 0.1).
    for row in captured:
        left = pieces(reasoner, row, "pb")
        assert ("1", "1") in left and len(left & row_two) == 1
        assert len(pieces(reasoner, row, "pa")) == 3
    # Drawn uniformly, a also waits or takes the piece on row 1 (each a quarter of the draws).
    assert sum(len(pieces(reasoner, row, "pb")) == 3 for row in drawn) > 10
    assert sum(("1", "1") not in pieces(reasoner, row, "pb") for row in drawn) > 10


def test_a_role_without_targets_captures_nothing() -> None:
    reasoner, heuristic = setting()
    features = piece_features(reasoner.net)
    # b's weight on a's pieces is dropped: none of them is a target of b's.
    weights = heuristic.weights.copy()
    weights[1, weights[1] < 0] = 0.0
    starts, found = targets(features, weights)
    assert starts[2] == starts[1]
    flat = dataclasses.replace(heuristic, weights=weights, target_starts=starts, targets=found)
    also = [(int(b), 0) for b in found]
    tree = Tree(reasoner.kernel, goal_values(reasoner), 1000, 10_000, 5, watch=watch(reasoner.kernel, also))
    tree.heuristic = flat
    tree.root(reasoner.initial())
    # Two moves: a captures; b draws at random among its three takes and its wait.
    _, states, _ = tree.sample(np.full(200, 2, dtype=np.int64), capture=1.0)
    assert all(len(pieces(reasoner, row, "pb")) == 2 for row in states)
    assert sum(len(pieces(reasoner, row, "pa")) == 3 for row in states) > 10
    assert sum(len(pieces(reasoner, row, "pa")) == 2 for row in states) > 10


def test_uct_with_captures_plays_legal_moves_and_reports_its_heuristic() -> None:
    game = gdl.parse(TAKE)
    # Bounded by work, not the clock; searched, not solved.
    player = UctPlayer(capture=0.5, seed=3, iterations=3000, ponder=0, solve=0)
    state = a_plays_out(player, game, lambda now: "wait" if now.is_legal("b", "wait") else "noop")
    assert state.goals()["a"] == 100, "a takes a piece each turn and b waits"
