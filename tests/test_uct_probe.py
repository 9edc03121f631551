"""The uct player's probes (gdl.players.uct.probe_kernel): a node's role to move proven to win within a
few plies exactly where a plain minimax over the game's own states says it can force a win."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import gdl
from gdl.engines.compiled import CompiledReasoner
from gdl.game import State
from gdl.players import make_player
from gdl.players.uct.decisive import watch
from gdl.players.uct.layout import MOST_PROBE_PLIES, NODES_USED, WIN
from gdl.players.uct.tree import Tree, goal_values

GAMES = Path(__file__).parent.parent / "games"


def sole_choice(state: State) -> tuple[str, Iterator[State]] | None:
    """The one role with a choice in ``state`` and the states its moves lead to (the others' one move
    played), or None where not exactly one role chooses or a role has no move."""
    legal = {r: list(state.legal_moves(r)) for r in state.game.roles}
    choosing = [r for r, moves in legal.items() if len(moves) > 1]
    if len(choosing) != 1 or any(not moves for moves in legal.values()):
        return None
    mover = choosing[0]
    return mover, (state.next({r: (move if r == mover else moves[0]) for r, moves in legal.items()})
                   for move in legal[mover])


def wins_within(state: State, role: str, plies: int, best: dict[str, int]) -> bool:
    """Whether ``role`` reaches a terminal state with its best goal within ``plies`` plies from the
    non-terminal ``state``, against every move of the others, where one role alone chooses at each
    ply: the probe's question, answered by brute force over the game's states."""
    choice = sole_choice(state) if plies > 0 else None
    if choice is None:
        return False
    mover, children = choice
    ours = mover == role
    if not ours and plies < 2:
        return False
    for after in children:
        if after.is_terminal():
            won = after.goals()[role] >= best[role]
        else:
            won = wins_within(after, role, plies - 1, best)
        if won == ours:
            return ours
    return not ours


def wins_by_threats(state: State, role: str, plies: int, threats: int, best: dict[str, int]) -> bool:
    """The question of a probe that follows only forcing moves (``threats`` > 0), by brute force: as
    :func:`wins_within`, but at a ply of another role the answers after which ``role`` has no win at
    once are the only ones searched on, and where more than ``threats`` of them are left (more than none
    two plies from the end) ``role``'s move is not followed."""
    choice = sole_choice(state) if plies > 0 else None
    if choice is None:
        return False
    mover, after = choice
    if mover == role:
        return any(
            child.goals()[role] >= best[role] if child.is_terminal()
            else wins_by_threats(child, role, plies - 1, threats, best)
            for child in after
        )
    if plies < 2:
        return False
    kept = []
    for child in after:
        if child.is_terminal():
            if child.goals()[role] < best[role]:
                return False
        elif not wins_within(child, role, 1, best):
            kept.append(child)
            if len(kept) > (threats if plies > 2 else 0):
                return False
    return all(wins_by_threats(child, role, plies - 1, threats, best) for child in kept)


@cache
def loaded(path: Path) -> tuple[gdl.Game, CompiledReasoner]:
    game = gdl.load(path, engine="compiled")
    assert isinstance(game.reasoner, CompiledReasoner)
    return game, game.reasoner


def chooser(state: State) -> str | None:
    """The one role with more than one legal move in ``state``, if one alone has."""
    choosing = [r for r in state.game.roles if len(list(state.legal_moves(r))) > 1]
    return choosing[0] if len(choosing) == 1 else None


def random_states(game: gdl.Game, count: int, seed: int) -> list[State]:
    """States of random matches, at random depths, where one role alone chooses."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(rng.randrange(1, 60)):
            if state.is_terminal():
                break
            state = state.next({r: rng.choice(list(state.legal_moves(r))) for r in game.roles})
        if not state.is_terminal() and chooser(state) is not None:
            found.append(state)
    return found


def probed(
    tree: Tree, reasoner: CompiledReasoner, state: State, role: int, plies: int, threats: int = 0
) -> bool:
    """Whether a search of one iteration that probes its fresh root proves it won for ``role``."""
    tree.clear()
    root = tree.root(reasoner.from_fluents(state.fluents()))
    tree.search(root, 1, probe=plies, probe_visit=0, threats=threats)
    return tree.solved(root) and tree.value(root, role) >= WIN


@pytest.mark.parametrize(
    ("where", "name", "plies", "count"),
    [
        ("games", "tictactoe.kif", 3, 120),
        ("games", "tictactoe.kif", 5, 60),
        ("corpus", "connectfour.kif", 3, 60),
    ],
)
@pytest.mark.parametrize("watched", [True, False])
def test_a_probe_proves_a_win_exactly_where_minimax_finds_one(
    where: str, name: str, plies: int, count: int, watched: bool, request: pytest.FixtureRequest
) -> None:
    path = (GAMES if where == "games" else request.getfixturevalue("corpus") / "games") / name
    game, reasoner = loaded(path)
    # Watched, the last ply looks for the winning move through the watched literals; else among all.
    kernel = reasoner.kernel
    tree = Tree(kernel, goal_values(reasoner), 4096, 65_536, 3, watch=watch(kernel) if watched else None)
    proofs = 0
    states = random_states(game, count, seed=plies)
    for state in states:
        mover = chooser(state)
        assert mover is not None
        expected = wins_within(state, mover, plies, {r: 100 for r in game.roles})  # both games' best goal
        assert probed(tree, reasoner, state, game.roles.index(mover), plies) == expected, state
        proofs += expected
    # Both answers were compared, and often.
    assert len(states) == count
    assert 5 <= proofs <= count - 5, proofs


@pytest.mark.parametrize(("plies", "threats", "count"), [(5, 1, 80), (7, 1, 40), (7, 2, 40), (9, 3, 30)])
def test_a_probe_of_threats_proves_a_win_exactly_where_a_search_of_forcing_moves_finds_one(
    plies: int, threats: int, count: int
) -> None:
    game, reasoner = loaded(GAMES / "tictactoe.kif")
    kernel = reasoner.kernel
    tree = Tree(kernel, goal_values(reasoner), 4096, 65_536, 3, watch=watch(kernel))
    best = {r: 100 for r in game.roles}
    proofs = deeper = 0
    states = random_states(game, count, seed=plies + threats)
    for state in states:
        mover = chooser(state)
        assert mover is not None
        expected = wins_by_threats(state, mover, plies, threats, best)
        assert probed(tree, reasoner, state, game.roles.index(mover), plies, threats) == expected, state
        # A proof of forcing moves is a proof: the role does force the win within the plies.
        assert not expected or wins_within(state, mover, plies, best)
        proofs += expected
        deeper += expected and not wins_within(state, mover, 3, best)
    assert len(states) == count
    assert 5 <= proofs <= count - 5, proofs
    # Some of the wins lie beyond what a full probe of three plies proves.
    assert deeper > 0 or plies == 5


def test_a_probe_of_threats_in_breakthrough_proves_only_wins_the_role_forces(corpus: Path) -> None:
    game, reasoner = loaded(corpus / "games" / "breakthrough.kif")
    tree = Tree(reasoner.kernel, goal_values(reasoner), 4096, 65_536, 3, watch=watch(reasoner.kernel))
    best = {r: 100 for r in game.roles}
    rng = random.Random(4)
    compared = proofs = 0
    while compared < 40:
        # Late states of random matches, where forcing lines are short.
        state = game.initial_state()
        line = [state]
        while not state.is_terminal():
            state = state.next({r: rng.choice(list(state.legal_moves(r))) for r in game.roles})
            line.append(state)
        for state in line[-9:-3]:
            mover = chooser(state)
            assert mover is not None
            proven = probed(tree, reasoner, state, game.roles.index(mover), 5, 2)
            assert proven == wins_by_threats(state, mover, 5, 2, best), state
            proofs += proven
            compared += 1
    assert proofs >= 5, proofs


def test_the_player_plays_a_win_its_probe_proves_where_the_solver_alone_proves_none() -> None:
    game, _ = loaded(GAMES / "tictactoe.kif")
    # States where the role to move forces a win in three plies, not in one (a fork).
    forks = []
    for state in random_states(game, 200, seed=11):
        mover = chooser(state)
        assert mover is not None
        best = {r: 100 for r in game.roles}
        if wins_within(state, mover, 3, best) and not wins_within(state, mover, 1, best):
            forks.append((state, mover))
    assert len(forks) >= 5
    proven = {"probe=3": 0, "probe=0": 0}
    for state, mover in forks:
        for probe in proven:
            player = make_player(f"uct:iterations=40,ponder=0,seed=5,solve=0,{probe}")
            player.start(game, mover, 10, 10)
            move = player.play(state, time.monotonic() + 10)
            if player.info().get("proven"):
                proven[probe] += 1
                others = {r: next(iter(state.legal_moves(r))) for r in game.roles if r != mover}
                after = state.next({mover: move, **others})
                assert wins_within(after, mover, 2, {r: 100 for r in game.roles}), (state, move)
            player.stop(state)
    assert proven["probe=3"] == len(forks)
    assert proven["probe=0"] < len(forks)


def test_a_deep_probe_of_a_wide_game_gives_up_and_the_search_goes_on(corpus: Path) -> None:
    _, reasoner = loaded(corpus / "games" / "breakthrough.kif")
    tree = Tree(reasoner.kernel, goal_values(reasoner), 4096, 65_536, 3, watch=watch(reasoner.kernel))
    root = tree.root(reasoner.initial())
    # Seven plies from the start reach no end of breakthrough (a piece needs six moves to cross), and a
    # full search of them would play some 25^4 moves: each probe gives up after its budget of moves.
    assert tree.search(root, 300, probe=MOST_PROBE_PLIES, probe_visit=1) == 300
    assert not tree.solved(root)
    assert int(tree.meta[NODES_USED]) > 100
