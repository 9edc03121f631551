"""The uct player's playouts: decisive and anti-decisive moves found on the network."""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np
import pytest
from support.timing import slack

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.game import Game
from gdl.ground.grounding import term_of
from gdl.players import make_player
from gdl.players.uct import UctPlayer, warm_up
from gdl.players.uct.decisive import WATCH_BASE, watch
from gdl.players.uct.player import GREEDY_MOST_MOVES, GREEDY_REDRAWS, THREAT_PROBES
from gdl.players.uct.tree import Tree, goal_values

GAMES = Path(__file__).resolve().parent.parent / "games"
CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "games"

#: One role, twenty steps: each step it may ``win`` (the game ends with 100) or take one of nine other
#: moves; the last step ends the game with 0.
RACE = """
(role p)
(init (step 0))
(<= (legal p win) (true (step ?n)))
(<= (legal p (go ?k)) (true (step ?n)) (digit ?k))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m) (does p (go ?k)))
(<= (next won) (does p win))
(<= terminal (true won))
(<= terminal (true (step 20)))
(<= (goal p 100) (true won))
(<= (goal p 0) (not (true won)))
"""

#: Two roles taking turns: ``a`` first moves ``block`` or one of seven ``idle`` moves; after an idle,
#: ``b`` may ``take`` (the game ends, b 100) or ``wait``; after a block (or a wait) a long walk of
#: ``a``'s and ``b``'s ``pass`` moves ends in a draw.
THREAT = """
(role a) (role b)
(init (control a)) (init (phase 0))
(<= (legal a block) (true (control a)) (true (phase 0)))
(<= (legal a (idle ?k)) (true (control a)) (true (phase 0)) (digit ?k))
(<= (legal a pass) (true (control a)) (not (true (phase 0))))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (legal b take) (true (control b)) (true open))
(<= (legal b wait) (true (control b)))
(<= (legal b (skip ?k)) (true (control b)) (digit ?k))
(<= (next open) (does a (idle ?k)))
(<= (next taken) (does b take))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (phase ?m)) (true (phase ?n)) (succ ?n ?m))
(<= terminal (true taken))
(<= terminal (true (phase 9)))
(<= (goal a 0) (true taken))
(<= (goal a 50) (not (true taken)))
(<= (goal b 100) (true taken))
(<= (goal b 50) (not (true taken)))
"""

#: Two roles taking turns: ``b``'s runner wins as soon as ``b`` moves, unless ``a`` first captures it
#: (one of ten moves); a long walk of idle and skip moves ends in a draw.
RUNNER = """
(role a) (role b)
(init (control a)) (init runner) (init (phase 0))
(<= (legal a capture) (true (control a)) (true runner))
(<= (legal a (idle ?k)) (true (control a)) (digit ?k))
(<= (legal a noop) (true (control b)))
(<= (legal b noop) (true (control a)))
(<= (legal b win) (true (control b)) (true runner))
(<= (legal b (skip ?k)) (true (control b)) (digit ?k))
(<= (next runner) (true runner) (not (does a capture)))
(<= (next won) (does b win))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (phase ?m)) (true (phase ?n)) (succ ?n ?m))
(<= terminal (true won))
(<= terminal (true (phase 9)))
(<= (goal a 0) (true won))
(<= (goal a 50) (not (true won)))
(<= (goal b 100) (true won))
(<= (goal b 50) (not (true won)))
"""

SUCC = "".join(f"(succ {n} {n + 1})\n" for n in range(20))
DIGITS = "".join(f"(digit {k})\n" for k in range(1, 10))


def load(rules: str) -> Game:
    warm_up()
    return gdl.parse(rules + SUCC + DIGITS)


def tree_at_start(game: Game, seed: int = 3) -> tuple[Tree, int]:
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree = Tree(reasoner.kernel, goal_values(reasoner), 20_000, 200_000, seed, watch=watch(reasoner.kernel))
    return tree, tree.root(reasoner.initial())


def test_the_watch_finds_the_winning_move_and_only_it() -> None:
    game = load(RACE)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    found = watch(reasoner.kernel)
    names = [str(move) for _, entries in enumerate(reasoner.net.legal) for move, _ in entries]
    setters = {names[k] for k in found.setters}
    assert setters == {"win"}
    assert WATCH_BASE in found.kinds


def test_playouts_take_a_winning_move_when_one_exists() -> None:
    tree, _ = tree_at_start(load(RACE))
    decisive = tree.playouts(200, decisive=1)
    assert np.all(decisive[:, 0] == 1.0)
    # Uniform playouts take it a tenth of the time a step, and so lose some of the 200.
    uniform = tree.playouts(200, decisive=0)
    assert 0 < uniform[:, 0].mean() < 1


def test_anti_decisive_playouts_avoid_moves_that_let_the_opponent_win() -> None:
    game = load(THREAT)
    tree, _ = tree_at_start(game)
    # Without the redraws a's first move is an idle seven times in eight, and b takes the win after it.
    plain = tree.playouts(1000, decisive=1)
    assert (plain[:, 0] == 0.5).mean() < 0.2
    tree, _ = tree_at_start(game)
    careful = tree.playouts(1000, decisive=1, anti=100)
    # The redraws go through a's legal moves from a random one on, and so find the block (but for the
    # set's reordering when a move is taken back, which may pass it by).
    assert (careful[:, 0] == 0.5).mean() > 0.85


def test_savers_capture_the_piece_about_to_win_where_redraws_rarely_find_it() -> None:
    game = load(RUNNER)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    found = watch(reasoner.kernel)
    names = [str(move) for entries in reasoner.net.legal for move, _ in entries]
    win = names.index("win")
    support = found.supports[found.support_starts[win] : found.support_starts[win + 1]]
    assert len(support) >= 1  # the runner (control may be the set's guard instead)
    tree, _ = tree_at_start(game)
    # One redraw: it finds the capture, one move in nine left, about a ninth of the time.
    redrawn = tree.playouts(1000, decisive=1, anti=1)
    assert (redrawn[:, 0] == 0.5).mean() < 0.3
    tree, _ = tree_at_start(game)
    # The capture flips the runner, which b's win reads: the one try a saver has finds it.
    saved = tree.playouts(1000, decisive=1, anti=1, savers=1)
    assert np.all(saved[:, 0] == 0.5)


def test_a_saver_is_not_made_up_where_none_exists() -> None:
    # In THREAT the threat comes from a's own move (an idle opens the take): no saver reads it, so
    # the redraws go on as before and still find the block.
    game = load(THREAT)
    tree, _ = tree_at_start(game)
    careful = tree.playouts(1000, decisive=1, anti=100, savers=1)
    assert (careful[:, 0] == 0.5).mean() > 0.85


def test_decisive_moves_need_the_role_to_move_alone() -> None:
    # The watch is there, but b's take is not legal before a has moved: a's playout move decides.
    game = load(THREAT)
    tree, _ = tree_at_start(game)
    rewards = tree.playouts(100, decisive=1)
    assert set(np.unique(rewards[:, 0])) <= {0.0, 0.5}


def corpus_game(name: str) -> Game:
    path = CORPUS / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{path} absent")
    warm_up()
    return gdl.load(path)


@pytest.mark.parametrize("name", ["connectfour", "breakthrough"])
@pytest.mark.parametrize("savers", [0, 1])
def test_trying_moves_leaves_the_network_as_it_was(name: str, savers: int) -> None:
    # Failed tries (a drop that lands below the cell a line needs) and redraws take moves back: every
    # node the search expands afterwards must still have the reasoner's legal moves.
    game = corpus_game(name)
    reasoner = game.reasoner
    assert isinstance(reasoner, CompiledReasoner)
    tree, root = tree_at_start(game)
    tree.search(root, 3000, decisive=1, anti=4, savers=savers)
    terms = [(role, move) for role, entries in enumerate(reasoner.net.legal) for move, _ in entries]
    expanded = [node for node in range(int(tree.meta[0])) if tree.expanded(node)]
    assert len(expanded) > 100
    for node in expanded[:300]:
        bits = tree.state(node)
        for r in range(len(game.roles)):
            moves = sorted(str(term_of(terms[edge.output][1])) for edge in tree.edges(node, r))
            assert moves == sorted(str(move) for move in reasoner.legal(bits, r))


POLICIES = ["uct:decisive=1", "uct:decisive=1,anti=4", "uct:decisive=1,anti=30,cutoff=20"]


@pytest.mark.parametrize("spec", POLICIES)
@pytest.mark.parametrize("name", ["tictactoe", "breakthrough"])
def test_uct_with_playout_policies_plays_legal_moves_before_its_deadlines(name: str, spec: str) -> None:
    game = gdl.load(GAMES / "tictactoe.kif") if name == "tictactoe" else corpus_game(name)
    warm_up()
    rng = random.Random(7)
    player = make_player(spec)
    role = game.roles[0]
    player.start(game, role, 1.0, 0.3)
    state = game.initial_state()
    for _ in range(12):
        if state.is_terminal():
            break
        begun = time.monotonic()
        move = player.play(state, begun + 0.3)
        assert time.monotonic() - begun < 0.3 + slack(0.5)  # the deadline, late only by the load
        assert move in state.legal_moves(role)
        others = {r: rng.choice(state.legal_moves(r)) for r in game.roles if r != role}
        state = state.next({role: move, **others})
    player.stop(state)


def test_uct_plays_greedy_playouts_where_the_role_to_move_has_few_moves() -> None:
    warm_up()
    tictactoe = gdl.load(GAMES / "tictactoe.kif")
    player = UctPlayer(seed=1, iterations=100, ponder=0, solve=0)
    player.start(tictactoe, "xplayer", 60.0, 1.0)  # as for breakthrough below
    assert (player.decisive, player.anti) == (1, GREEDY_REDRAWS)
    assert player.info()["greedy"] is True and 1 < player.info()["moves"] <= GREEDY_MOST_MOVES
    # Greedy playouts see the tactics the tree's probes of threats would: no probes.
    assert player.probe == 0 and player.info()["threats"] is False
    # Asked for, a policy is played as it is, and nothing is watched that it does not use.
    for spec, policy in [("uct:decisive=0", (0, 0)), ("uct:anti=4", (0, 4)), ("uct:decisive=1", (1, 0))]:
        chosen = make_player(f"{spec},iterations=100,ponder=0,solve=0")
        assert isinstance(chosen, UctPlayer)
        chosen.start(tictactoe, "xplayer", 5.0, 1.0)
        assert (chosen.decisive, chosen.anti) == policy
        assert chosen._whole is not None and chosen._whole.tree.watch.empty == (policy == (0, 0))
        assert "greedy" not in chosen.info()


def test_uct_plays_uniform_playouts_where_moves_are_many_or_simultaneous() -> None:
    breakthrough = corpus_game("breakthrough")
    player = UctPlayer(seed=1, iterations=100, ponder=0, capture=0)
    # A long start clock: the search that counts the moves may take a tenth of it, counted from the
    # start's first instant, and a loaded machine may spend seconds building the network before it.
    # The start's own search stops at its 100 iterations.
    player.start(breakthrough, breakthrough.roles[0], 60.0, 1.0)
    assert (player.decisive, player.anti) == (0, 0)
    assert player.info()["greedy"] is False and player.info()["moves"] > GREEDY_MOST_MOVES
    # The tactics uniform playouts miss, the tree's probes of threats look for: the watch is read for them.
    assert (player.probe, player.threats, player.probe_visit) == THREAT_PROBES
    assert player.info()["threats"] is True
    assert player._whole is not None and not player._whole.tree.watch.empty
    # Asked for, probes are searched as they are, and nothing is watched that nothing uses.
    plain = UctPlayer(seed=1, iterations=100, ponder=0, capture=0, probe=0)
    plain.start(breakthrough, breakthrough.roles[0], 60.0, 1.0)
    assert (plain.probe, plain.threats) == (0, 0) and "threats" not in plain.info()
    assert plain._whole is not None and plain._whole.tree.watch.empty
    rps = gdl.load(GAMES / "rps.kif")
    player.start(rps, rps.roles[0], 5.0, 1.0)
    assert (player.decisive, player.anti) == (0, 0) and not player.info().get("greedy")
    assert player.probe == 0 and not player.info().get("threats")
