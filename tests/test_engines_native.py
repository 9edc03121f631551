"""The native depth charge (numba kernel over the flattened network) against the Datalog evaluator: every
step of its recorded walks is replayed through :class:`DatalogReasoner` (states, legal moves, terminal,
goals); its random choices are uniform (the known outcome rates of random tic-tac-toe); ``gdl bench``
and the single playouts of MCTS use it."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.engines import (
    COUNTING_GAME,
    MORE,
    QUICK,
    checked_game,
    corpus_problems,
    reach_game,
    replay_disagreements,
)
from support.games import STUCK

import gdl
from gdl.check import check_text
from gdl.engines.base import depth_charge
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.datalog import DatalogReasoner
from gdl.engines.native_layout import DEPTH_LIMIT, NO_LEGAL_MOVE, TERMINAL
from gdl.errors import GameDefinitionError
from gdl.ground.grounding import term_of
from gdl.players.mcts import MctsPlayer

ROOT = Path(__file__).resolve().parent.parent

@pytest.mark.parametrize("name", ["tictactoe.kif", "buttons.kif", "nim.kif", "rps.kif"])
def test_walks_of_our_games_agree_with_datalog(name: str) -> None:
    assert replay_disagreements(checked_game(ROOT / "games" / name), range(5), 100) == []


@pytest.mark.parametrize("name", sorted(set(QUICK + MORE)))
def test_walks_of_corpus_games_agree_with_datalog(corpus: Path, name: str) -> None:
    assert replay_disagreements(checked_game(corpus / "games" / f"{name}.kif"), range(3), 120) == []


@pytest.mark.parametrize("name", ["breakthrough", "connectfour", "cubicup_3player", "hanoi"])
def test_walks_from_states_met_on_the_way_agree_with_datalog(corpus: Path, name: str) -> None:
    # The kernel moves its saved network to each start by propagating the base propositions that differ
    # (near states), or evaluates it afresh (far ones); starts come back, and the last is the first.
    checked = checked_game(corpus / "games" / f"{name}.kif")
    compiled, rng = CompiledReasoner(checked), random.Random(7)
    starts = [compiled.depth_charge(compiled.initial(), rng, depth)[0] for depth in (1, 2, 30, 3, 8, 0)]
    assert replay_disagreements(checked, range(12), 60, (*starts, *starts[::-1])) == []


@pytest.mark.parametrize("swap", [0, 1])
@pytest.mark.parametrize("name", ["breakthrough", "cubicup_3player", "roshambo2"])
def test_both_ways_of_taking_inputs_back_agree_with_datalog(corpus: Path, name: str, swap: int) -> None:
    checked = checked_game(corpus / "games" / f"{name}.kif")
    assert replay_disagreements(checked, range(3), 80, swap=swap) == []


def test_walks_through_a_cycle_block_agree_with_datalog() -> None:
    assert replay_disagreements(reach_game(), range(20), 30) == []


def test_a_walk_stops_at_the_depth_limit_and_where_a_role_has_no_move() -> None:
    checked = check_text(COUNTING_GAME).checked
    assert checked is not None
    compiled = CompiledReasoner(checked)
    kernel, initial = compiled.kernel, compiled.initial()
    assert kernel.playout(initial, 0, 2)[1:3] == (2, DEPTH_LIMIT)
    assert kernel.playout(initial, 0, 10)[1:3] == (3, NO_LEGAL_MOVE)
    assert replay_disagreements(checked, range(1), 2) == []
    assert replay_disagreements(checked, range(1), 10) == []


def test_random_tictactoe_playouts_match_its_known_outcome_rates() -> None:
    # Uniformly random tic-tac-toe: the first player wins 58.5% and draws 12.7% of the games, which last
    # 7.6 moves on average (the figures of the batched engine's test).
    compiled = CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif"))
    rng = random.Random(3)
    wins = draws = moves = 0
    playouts = 40_000
    for _ in range(playouts):
        state, depth, terminal = compiled.depth_charge(compiled.initial(), rng, 100)
        assert terminal
        first = int(str(compiled.goals(state, 0)[0]))
        wins += first == 100
        draws += first == 50
        moves += depth
    assert abs(wins / playouts - 0.585) < 0.01
    assert abs(draws / playouts - 0.127) < 0.007
    assert abs(moves / playouts - 7.6) < 0.05


def test_the_goals_a_depth_charge_leaves_behind_are_those_of_its_last_state() -> None:
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    compiled, fresh = CompiledReasoner(checked), CompiledReasoner(checked)
    rng = random.Random(5)
    for _ in range(50):
        state, _, terminal = depth_charge(compiled, compiled.initial(), rng, 100)
        assert terminal and fresh.terminal(state)
        assert [compiled.goals(state, r) for r in range(2)] == [fresh.goals(state, r) for r in range(2)]


def test_the_generic_depth_charge_plays_through_the_reasoner_protocol() -> None:
    datalog = DatalogReasoner(checked_game(ROOT / "games" / "tictactoe.kif"))
    # The Datalog reasoner has its own depth charge: the protocol alone, without it.
    reference = SimpleNamespace(
        roles=datalog.roles, initial=datalog.initial, terminal=datalog.terminal, legal=datalog.legal,
        next=datalog.next,
    )
    assert not hasattr(reference, "depth_charge")
    state, depth, terminal = depth_charge(reference, reference.initial(), random.Random(1), 100)
    assert terminal and reference.terminal(state) and 5 <= depth <= 9
    state, depth, terminal = depth_charge(reference, reference.initial(), random.Random(1), 3)
    assert (depth, terminal) == (3, False) and not reference.terminal(state)


def test_mcts_single_playouts_score_random_tictactoe() -> None:
    # The first player's mean reward in random tic-tac-toe is 0.648 (a win 1, a draw 0.5; see above).
    game = gdl.load(ROOT / "games" / "tictactoe.kif", engine="compiled")
    player = MctsPlayer(seed=2)
    player.start(game, "xplayer", 10, 10)
    rewards = [player.rollout(game.initial_state()) for _ in range(4000)]
    assert abs(sum(first for first, _ in rewards) / len(rewards) - 0.648) < 0.03
    assert all(first + second == 1 for first, second in rewards)


@pytest.mark.parametrize("engine", ["compiled", "datalog"])
def test_a_playout_that_reaches_a_role_without_moves_raises_the_games_error(engine: str) -> None:
    game = gdl.parse(STUCK, engine=engine)
    player = MctsPlayer(seed=1)
    player.start(game, "free", 10, 10)
    with pytest.raises(GameDefinitionError, match="'blocked' has no legal move in non-terminal state"):
        player.rollout(game.initial_state())


@pytest.mark.slow
def test_walks_of_every_corpus_game_that_instantiates_agree_with_datalog(corpus: Path) -> None:
    assert corpus_problems(corpus, lambda checked: replay_disagreements(checked, range(3), 100)) == []


#: The benchmark games of ``gdl bench`` (tests/tools/bench_reference.py), and one with cycle blocks.
BENCH_GAMES = (
    "tictactoe", "connectfour", "breakthrough", "nim1", "hanoi", "buttons", "blocker", "cubicup_3player"
)


@pytest.mark.parametrize("name", BENCH_GAMES)
def test_the_flattened_network_agrees_with_the_generated_code_in_any_state(corpus: Path, name: str) -> None:
    # The kernel's network (legal outputs split on their shared conjunct, counters, sets kept by the
    # fanout, states reached by propagating differences or evaluated afresh) against the compiled
    # engine's code generated from the unflattened network, in arbitrary states, reachable or not.
    compiled = CompiledReasoner(checked_game(corpus / "games" / f"{name}.kif"))
    net = compiled.net
    bases = len(net.fluents)
    legal_terms = [[term_of(move) for move, _ in entries] for entries in net.legal]
    columns = [0]
    for entries in net.legal:
        columns.append(columns[-1] + len(entries))

    @settings(max_examples=40, deadline=None)
    @given(st.integers(0, 2**bases - 1), st.integers(0, 2**63 - 1))
    def agree(state: int, seed: int) -> None:
        # The kernel the reasoner plays from ``state`` (gdl.engines.folding).
        walk, rows = compiled.kernels.of(state).trace(state, seed, 1)
        row = rows[0]
        terminal, legal = compiled.analyse(state)
        assert [int(x) for x in row[:bases]] == [state >> b & 1 for b in range(bases)]
        for role, mask in enumerate(legal):
            values = row[bases + columns[role] : bases + columns[role + 1]]
            assert sum(int(v) << k for k, v in enumerate(values)) == mask
        assert (walk.depth == 0 and walk.outcome == TERMINAL) == terminal
        if walk.depth == 1:
            chosen = rows[0][bases + columns[-1] :]
            moves = [legal_terms[role][chosen[role]] for role in range(len(legal))]
            assert walk.state == compiled.next(state, moves)

    agree()
