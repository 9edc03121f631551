"""Many depth charges from one state in one call (:func:`gdl.engines.base.depth_charges`): the compiled
engine's native loop makes exactly the walks of single native playouts with the seeds ``seed + i``; the
goals it adds up are those the Datalog evaluator reads on the same end states; the fallback for engines
without it plays through the reasoner protocol; bad arguments are a clear ValueError."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.engines import COUNTING_GAME, MORE, checked_game, replay_disagreements
from support.games import STUCK

from gdl.check import check_text
from gdl.engines.base import Charges, depth_charge, depth_charges, goal_value
from gdl.engines.compiled import CompiledReasoner
from gdl.engines.datalog import DatalogReasoner
from gdl.engines.native_layout import DEPTH_LIMIT, NO_LEGAL_MOVE, STATE_OUT, TERMINAL
from gdl.player_threads import LockedReasoner

ROOT = Path(__file__).resolve().parent.parent
#: Corpus games for the comparisons: the two of the benchmark this API is for, turn-taking games of two
#: and three roles, simultaneous moves, a cycle block (cubicup_3player), a game with long walks.
CORPUS_GAMES = (
    "buttons",
    "hanoi",
    "tictactoe",
    "connectfour",
    "blocker",
    "breakthrough",
    "3pconnectfour",
    *MORE,
)


def singles(
    compiled: CompiledReasoner, state: int, seed: int, count: int, max_depth: int
) -> list[tuple[int, ...]]:
    """The walks of single native playouts with the seeds ``seed + i`` (mod 2**63): (last state, depth,
    outcome, each role's goal output)."""
    kernel = compiled.kernel
    walks = []
    for i in range(count):
        walk = kernel.playout(state, (seed + i) % 2**63, max_depth)
        walks.append((walk.state, walk.depth, walk.outcome, *walk.goals))
    return walks


def expected_charges(
    compiled: CompiledReasoner, state: int, seed: int, count: int, max_depth: int
) -> Charges[int]:
    """What :meth:`CompiledReasoner.depth_charges` must add up, from single playouts and the goal values
    of the network's goal outputs."""
    walks = singles(compiled, state, seed, count, max_depth)
    roles = range(len(compiled.roles))
    sums, counts = [0] * len(roles), [0] * len(roles)
    for _, _, outcome, *goals in walks:
        for role in roles:
            if outcome == TERMINAL and goals[role] >= 0:
                value = goal_value((compiled._goal_terms[role][goals[role]],))
                if value is not None:
                    sums[role] += value
                    counts[role] += 1
    terminal = sum(outcome == TERMINAL for _, _, outcome, *_ in walks)
    moves = sum(depth for _, depth, *_ in walks)
    return Charges(count, terminal, moves, tuple(sums), tuple(counts), walks[-1][0])


def seed_of(rng_seed: int) -> int:
    """The kernel's first seed for a ``random.Random(rng_seed)`` (one ``getrandbits(63)``)."""
    return random.Random(rng_seed).getrandbits(63)


@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_one_call_makes_the_walks_of_single_playouts(corpus: Path, name: str) -> None:
    compiled = CompiledReasoner(checked_game(corpus / "games" / f"{name}.kif"))
    initial = compiled.initial()
    # From the initial state, from states met on the way (the saved network moves there and back), with
    # a depth limit that cuts some walks short.
    starts = [initial, *(compiled.depth_charge(initial, random.Random(d), d)[0] for d in (1, 4, 2))]
    for number, start in enumerate([*starts, initial]):
        for max_depth in (200, 3):
            got = compiled.depth_charges(start, 25, random.Random(number), max_depth)
            want = expected_charges(compiled, start, seed_of(number), 25, max_depth)
            assert got == want, (name, number, max_depth)
            assert got.playouts == 25 and 0 <= got.terminal <= 25


def test_the_seeds_wrap_around_at_2_to_the_63() -> None:
    compiled = CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif"))
    kernel, initial = compiled.kernel, compiled.initial()
    last, tallies = kernel.charges(initial, 2**63 - 2, 5, 100)
    walks = singles(compiled, initial, 2**63 - 2, 5, 100)
    assert last == walks[-1][0]
    assert int(tallies[3]) == sum(depth for _, depth, *_ in walks)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), count=st.integers(1, 40), max_depth=st.integers(0, 12))
def test_any_seed_count_and_depth_give_the_walks_of_single_playouts(
    seed: int, count: int, max_depth: int
) -> None:
    compiled = _tictactoe()
    got = compiled.depth_charges(compiled.initial(), count, random.Random(seed), max_depth)
    assert got == expected_charges(compiled, compiled.initial(), seed_of(seed), count, max_depth)


_TICTACTOE: list[CompiledReasoner] = []


def _tictactoe() -> CompiledReasoner:
    if not _TICTACTOE:
        _TICTACTOE.append(CompiledReasoner(checked_game(ROOT / "games" / "tictactoe.kif")))
    return _TICTACTOE[0]


@pytest.mark.parametrize("name", ["buttons", "hanoi", "tictactoe", "blocker", "3pconnectfour", "roshambo2"])
def test_the_goals_added_up_are_those_datalog_reads_on_the_end_states(corpus: Path, name: str) -> None:
    checked = checked_game(corpus / "games" / f"{name}.kif")
    compiled, reference = CompiledReasoner(checked), DatalogReasoner(checked)
    roles = range(len(compiled.roles))
    charges = compiled.depth_charges(compiled.initial(), 30, random.Random(11), 500)
    sums, counts, terminal, moves = [0] * len(roles), [0] * len(roles), 0, 0
    for last, depth, _, *_ in singles(compiled, compiled.initial(), seed_of(11), 30, 500):
        state = reference.from_fluents(compiled.fluents(last))
        moves += depth
        if reference.terminal(state):
            terminal += 1
            for role in roles:
                value = goal_value(reference.goals(state, role))
                if value is not None:
                    sums[role] += value
                    counts[role] += 1
    assert (charges.terminal, charges.moves) == (terminal, moves)
    assert charges.goal_sums == tuple(sums) and charges.goal_counts == tuple(counts)
    # Every game here ends within 500 moves with one goal value per role.
    assert terminal == 30 and counts == [30] * len(roles)


def test_the_fallback_plays_through_the_reasoner_protocol() -> None:
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    reference = DatalogReasoner(checked)
    assert not hasattr(reference, "depth_charges")
    charges = depth_charges(reference, reference.initial(), 12, random.Random(4), 100)
    # The same random source makes the same walks one by one.
    rng, sums, moves = random.Random(4), [0, 0], 0
    for _ in range(12):
        state, depth, terminal = depth_charge(reference, reference.initial(), rng, 100)
        assert terminal
        moves += depth
        for role in range(2):
            sums[role] += int(str(reference.goals(state, role)[0]))
    assert charges == Charges(12, 12, moves, tuple(sums), (12, 12), state)
    # Random tic-tac-toe: every game is won, lost or drawn, so the two roles' goals add up to 100.
    assert sum(charges.goal_sums) == 100 * 12
    assert charges.mean_goal(0) == sums[0] / 12


@pytest.mark.parametrize("engine", ["compiled", "datalog"])
def test_walks_that_end_without_a_terminal_state_count_no_goals(engine: str) -> None:
    checked = check_text(STUCK).checked
    assert checked is not None
    reasoner = CompiledReasoner(checked) if engine == "compiled" else DatalogReasoner(checked)
    charges = depth_charges(reasoner, reasoner.initial(), 7, random.Random(0), 50)
    assert (charges.playouts, charges.terminal, charges.moves) == (7, 0, 0)
    assert charges.goal_counts == (0, 0) and charges.mean_goal(0) is None
    limited = depth_charges(reasoner, reasoner.initial(), 3, random.Random(0), 0)
    assert (limited.terminal, limited.moves) == (0, 0)


def test_the_kernel_counts_outcomes() -> None:
    checked = check_text(COUNTING_GAME).checked
    assert checked is not None
    kernel = CompiledReasoner(checked).kernel
    _, stuck = kernel.charges(0b1, 0, 4, 10)
    _, limited = kernel.charges(0b1, 0, 4, 2)
    assert stuck[NO_LEGAL_MOVE] == 4 and stuck[TERMINAL] == 0 and stuck[3] == 12
    assert limited[DEPTH_LIMIT] == 4 and limited[3] == 8


@pytest.mark.parametrize("engine", ["compiled", "datalog"])
@pytest.mark.parametrize(
    ("count", "max_depth", "message"),
    [
        (0, 10, "count must be a positive integer, not 0"),
        (-3, 10, "count must be a positive integer, not -3"),
        (2.5, 10, "count must be a positive integer, not 2.5"),
        (True, 10, "count must be a positive integer, not True"),
        (4, -1, "max_depth must be a non-negative integer, not -1"),
        (4, "9", "max_depth must be a non-negative integer, not '9'"),
    ],
)
def test_bad_arguments_are_a_clear_value_error(
    engine: str, count: object, max_depth: object, message: str
) -> None:
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    reasoner = _tictactoe() if engine == "compiled" else DatalogReasoner(checked)
    with pytest.raises(ValueError, match=f"^depth charges: {message}$"):
        depth_charges(reasoner, reasoner.initial(), count, random.Random(0), max_depth)  # type: ignore[arg-type]
    if engine == "compiled":
        with pytest.raises(ValueError, match=f"^depth charges: {message}$"):
            _tictactoe().depth_charges(reasoner.initial(), count, random.Random(0), max_depth)  # type: ignore[arg-type]


def bits_game(bases: int) -> str:
    """A game of ``bases`` base propositions, all true at first, one cleared per move until none holds."""
    numbers = " ".join(f"(index {k})" for k in range(bases))
    return f"""
    (role r) {numbers}
    (<= (init (on ?k)) (index ?k))
    (<= (legal r (clear ?k)) (true (on ?k)))
    (<= (next (on ?k)) (true (on ?k)) (not (does r (clear ?k))))
    (<= some (true (on ?k)))
    (<= terminal (not some))
    (goal r 100)
    """


@pytest.mark.parametrize("bases", [62, 63, 64, 65])
def test_states_of_63_base_propositions_or_fewer_are_handed_out_as_integers(bases: int) -> None:
    # The kernel hands the first 63 base propositions out as an integer, the rest through memory: walks
    # across the boundary agree with the Datalog evaluator, and their ends with the bytes in memory.
    checked = check_text(bits_game(bases)).checked
    assert checked is not None
    compiled = CompiledReasoner(checked)
    assert compiled.kernel.bases == bases
    for max_depth in (0, 1, 40, 100):
        last, depth, _, _ = compiled.kernel.run(compiled.initial(), max_depth, max_depth)
        assert last == int.from_bytes(compiled.kernel.section(STATE_OUT).tobytes(), "little")
        assert bin(last).count("1") == bases - depth
    assert replay_disagreements(checked, range(4), 70) == []


@pytest.mark.parametrize("engine", ["compiled", "datalog"])
def test_a_reasoner_locked_for_a_match_makes_the_same_charges(engine: str) -> None:
    checked = checked_game(ROOT / "games" / "tictactoe.kif")
    reasoner = CompiledReasoner(checked) if engine == "compiled" else DatalogReasoner(checked)
    locked = LockedReasoner(reasoner)
    got = depth_charges(locked, reasoner.initial(), 9, random.Random(6), 100)
    assert got == depth_charges(reasoner, reasoner.initial(), 9, random.Random(6), 100)
    assert got.terminal == 9 and sum(got.goal_sums) == 900
    with pytest.raises(ValueError, match="count must be a positive integer"):
        depth_charges(locked, reasoner.initial(), 0, random.Random(6), 100)
