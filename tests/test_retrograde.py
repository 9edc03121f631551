"""gdl.retrograde: solving games natively gives exactly the answers of the search over states."""

from __future__ import annotations

import contextlib
import io
import itertools
import re
import resource
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.graph_games import GraphGame
from support.paths import CORPUS, GAMES, shared_path

import gdl
import gdl.retrograde_values
import gdl.solve
from gdl import retrograde
from gdl.cli import main
from gdl.solve import Solution, solve
from gdl.syntax import read


@pytest.fixture(autouse=True, scope="module")
def _native_whatever_the_size() -> Iterator[None]:
    """Games of every size go to the native solver here (by default the smallest are searched)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 0)
        yield


def _both(text: str, **options: object) -> tuple[Solution, Solution]:
    """The solutions of the native solver (compiled engine) and of the search (Datalog engine)."""
    native = solve(gdl.parse(text, engine="compiled"), **options)  # type: ignore[arg-type]
    searched = solve(gdl.parse(text, engine="datalog"), **options)  # type: ignore[arg-type]
    return native, searched


def _same(native: Solution, searched: Solution) -> None:
    """The same answer, every concept compared exactly (the native solver adds a note that it ran)."""
    assert native.solved == searched.solved, (native.reason, searched.reason)
    if native.solved:
        assert native.notes == [*searched.notes, gdl.solve.NATIVE]
        fields = ("concept", "exact_value", "value", "pv", "strategies", "states")
        assert [getattr(native, f) for f in fields] == [getattr(searched, f) for f in fields]
    else:
        assert native.reason.split(":")[0] == searched.reason.split(":")[0]


@st.composite
def graph_games(
    draw: st.DrawFn,
    simultaneous: bool = False,
    nature: bool = False,
    zero_sum: bool = False,
    most_states: int = 14,
    acyclic: bool | None = None,
) -> GraphGame:
    """Small explicit games, most often solvable (successors later states, or any state), where one
    player moves in each state or, if ``simultaneous``, any of them; with nature (the role ``random``,
    anywhere among the roles) moving too if ``nature``; goals that may be missing, or constant-sum ones
    (always, and two players, if ``zero_sum``)."""
    choices = [("r0", "r1")] if zero_sum else [("r0",), ("r0", "r1"), ("r0", "r1", "r2")]
    players = draw(st.sampled_from(choices))
    names = list(players)
    if nature:
        names.insert(draw(st.integers(0, len(players))), "random")
    states = draw(st.integers(1, most_states))
    acyclic = draw(st.integers(0, 3)) > 0 if acyclic is None else acyclic
    terminal = tuple(draw(st.integers(0, 2)) == 0 or state == states - 1 for state in range(states))
    constant_sum = zero_sum or (len(players) == 2 and draw(st.booleans()))
    value = st.sampled_from([0, 25, 50, 100]) if draw(st.integers(0, 3)) > 0 else st.one_of(
        st.none(), st.sampled_from([0, 50, 100])
    )
    goals = []
    for _ in range(states):
        split = st.sampled_from([0, 10, 25, 50, 60, 100])
        drawn = [draw(split) if constant_sum else draw(value) for _ in players]
        if constant_sum:
            drawn[1] = 100 - drawn[0]  # type: ignore[operator]
        goals.append(tuple(None if name == "random" else drawn[players.index(name)] for name in names))
    moves = []
    for _ in range(states):
        if simultaneous:
            counts = [draw(st.integers(1, 3)) for _ in names]
        else:
            counts = [1] * len(names)
            counts[names.index(draw(st.sampled_from(players)))] = draw(st.integers(1, 3))
        if nature:
            counts[names.index("random")] = draw(st.integers(1, 3))
        moves.append(tuple(counts))
    successor = {}
    for state in range(states):
        for joint in itertools.product(*(range(n) for n in moves[state])):
            low = state + 1 if acyclic and state < states - 1 else 0
            successor[(state, joint)] = draw(st.integers(low, states - 1))
    return GraphGame(tuple(names), terminal, tuple(goals), tuple(moves), successor)


@contextlib.contextmanager
def _valued(where: str) -> Iterator[None]:
    """Exact values from the kernel as far as it goes, or (the bound on its fractions tiny, a state at a
    time) mostly from Python."""
    with pytest.MonkeyPatch.context() as patch:
        if where == "python":
            patch.setattr(gdl.retrograde_values, "LARGEST_PRODUCT", 2**16)
            patch.setattr(gdl.retrograde_values, "DEFERRED_AT_ONCE", 1)
        yield


@settings(max_examples=40, deadline=None)
@given(graph_games())
def test_random_turn_taking_games_get_the_searchs_answers(game: GraphGame) -> None:
    _same(*_both(game.kif()))


@pytest.mark.parametrize("where", ["kernel", "python"])
@pytest.mark.parametrize(
    "kind",
    [
        {"simultaneous": True},  # security values (and mixed minimax at times)
        {"simultaneous": True, "zero_sum": True},  # mixed minimax
        {"nature": True},  # backward induction in expectation
        {"simultaneous": True, "nature": True},
    ],
    ids=["simultaneous", "zero-sum", "nature", "simultaneous-nature"],
)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_random_games_with_simultaneous_moves_or_nature_get_the_searchs_answers(
    where: str, kind: dict[str, bool], data: st.DataObject
) -> None:
    game = data.draw(graph_games(**kind))
    with _valued(where):
        _same(*_both(game.kif()))


@settings(max_examples=5, deadline=None)
@given(graph_games(most_states=160, acyclic=True))
def test_random_games_of_more_states_and_propositions_than_a_word_has_lanes(game: GraphGame) -> None:
    # A base proposition per state: rows of up to three words, batches of up to 160 states and of 256
    # joint moves (the lanes of four words), from few states or many.
    _same(*_both(game.kif()))


@pytest.mark.parametrize("name", ["tictactoe.kif", "nim.kif", "buttons.kif"])
def test_bundled_games_get_the_searchs_answers(name: str) -> None:
    text = (GAMES / name).read_text()
    native, searched = _both(text)
    assert native.solved
    _same(native, searched)


@pytest.mark.parametrize(
    "name",
    [
        "games/roshambo2.kif",  # mixed minimax
        "games/gt_prisoner.kif",  # security values
        pytest.param("games/snake2p.kif", marks=pytest.mark.slow),  # 9,505 states
        pytest.param("games/simultaneoustictactoe.kif", marks=pytest.mark.slow),  # 12,829 states
    ],
)
def test_corpus_games_with_simultaneous_moves_get_the_searchs_answers(name: str) -> None:
    native, searched = _both(shared_path(CORPUS / name).read_text())
    assert native.solved
    _same(native, searched)


@pytest.mark.parametrize(
    "name",
    [
        "games/montyhall.kif",  # one player
        "gdl2/MontyHall2.gdl",  # two players choosing at once
        "games/meier.kif",  # 3,382 states, denominators past 2^64
    ],
)
def test_corpus_games_with_nature_seen_by_all_get_the_searchs_answers(name: str) -> None:
    """GDL-II games with their percepts left out: every role sees everything, nature still moves."""
    program = read(shared_path(CORPUS / name).read_text(), name).program
    native, searched = _both("\n".join(str(rule) for rule in program.rules if rule.head.relation != "sees"))
    assert native.solved and any("nature" in note for note in native.notes)
    _same(native, searched)


def test_a_state_limit_stops_the_exploration_at_that_many_states() -> None:
    native, searched = _both((GAMES / "tictactoe.kif").read_text(), max_states=100)
    assert not native.solved and native.reason == searched.reason == "not solved within budget"
    assert native.states == searched.states == 100


def _guess_the_number(numbers: int) -> str:
    """Matching pennies over ``numbers`` numbers: a joint move each to a terminal state of its own."""
    facts = " ".join(f"(num {n})" for n in range(numbers))
    return f"""(role a) (role b) (init (round 0)) {facts}
        (<= (legal ?r (pick ?n)) (role ?r) (num ?n))
        (<= (next (picked ?r ?n)) (does ?r (pick ?n))) (next (round 1))
        (<= terminal (true (round 1)))
        (<= (goal a 100) (true (picked a ?n)) (true (picked b ?n)))
        (<= (goal b 100) (true (picked a ?n)) (true (picked b ?m)) (distinct ?n ?m))
        (<= (goal a 0) (goal b 100)) (<= (goal b 0) (goal a 100))
        (<= (goal ?r 50) (role ?r) (true (round 0)))"""


def test_a_state_of_more_joint_moves_than_the_state_limit_is_explored_up_to_the_limit() -> None:
    """The first state has 3,600 joint moves: its arrays need room for the 1,000 states allowed, not for
    every successor."""
    text = _guess_the_number(60)
    limited = solve(gdl.parse(text, engine="compiled"), max_states=1000, memory=200_000)
    assert not limited.solved and limited.reason == "not solved within budget" and limited.states == 1000
    native, searched = _both(text)
    _same(native, searched)
    # a matches b's pick with probability 1/60 at best, whatever b does.
    assert native.states == 3601
    assert native.exact_value == {"a": str(Fraction(100, 60)), "b": str(100 - Fraction(100, 60))}


def test_a_state_space_that_will_not_fit_is_refused_with_its_size(tmp_path: Path) -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    solution = solve(game, memory=300_000)  # about 1,000 states of tictactoe
    assert not solution.solved
    assert "would not fit in 0.3 MiB" in solution.reason and "bytes a state" in solution.reason


def test_rock_paper_scissors_is_solved_natively_in_mixed_strategies() -> None:
    native, searched = _both((GAMES / "rps.kif").read_text())
    third = {"rock": 1 / 3, "paper": 1 / 3, "scissors": 1 / 3}
    assert native.strategies == {"left": third, "right": third}
    _same(native, searched)


def test_a_game_without_a_network_is_left_to_the_search() -> None:
    solution = solve(gdl.parse((GAMES / "rps.kif").read_text(), engine="datalog"))
    assert solution.solved and gdl.solve.NATIVE not in solution.notes


def test_by_default_small_games_are_searched_and_larger_ones_solved_natively() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 2_000)
        buttons = solve(gdl.load(GAMES / "buttons.kif"))  # 22 states
        tictactoe = solve(gdl.load(GAMES / "tictactoe.kif"))  # 5,478 states
    assert buttons.solved and gdl.solve.NATIVE not in buttons.notes
    assert tictactoe.solved and gdl.solve.NATIVE in tictactoe.notes and tictactoe.states == 5478


def test_a_game_with_a_state_of_many_joint_moves_is_not_searched_as_small() -> None:
    expanded: list[object] = []

    class CountedNode(gdl.solve._Node):
        def __init__(self, state: gdl.State, game: gdl.Game) -> None:
            expanded.append(state)
            super().__init__(state, game)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 2_000)
        patch.setattr(gdl.solve, "SMALL_GAME_JOINTS", 1_000)
        patch.setattr(gdl.solve, "_Node", CountedNode)
        solution = solve(gdl.parse(_guess_the_number(60), engine="compiled"))
    assert len(expanded) == 1  # the first state: its 3,600 joint moves are left to the native solver
    assert solution.solved and gdl.solve.NATIVE in solution.notes and solution.states == 3601


def test_the_clock_is_looked_at_between_short_calls_of_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine="compiled")
    ticks = iter(range(10**6))
    monkeypatch.setattr(retrograde.time, "monotonic", lambda: float(next(ticks)))  # a second a look
    shown: list[tuple[int, float]] = []
    found, stopped = retrograde.explore(
        game, game.initial_state(), 12.0, None, 1 << 30, lambda *a: shown.append(a)
    )
    assert stopped == "not solved within budget"
    # The first calls are short (64 states, then at most 4 times as many as the call before).
    expanded = int(found.counters[retrograde.EXPANDED])
    assert 64 <= expanded <= 64 * (1 + 4 + 16 + 64) and int(found.counters[retrograde.STATES]) < 5478
    assert [states for states, _ in shown] == sorted(states for states, _ in shown) and len(shown) >= 2
    assert shown[-1][0] == int(found.counters[retrograde.STATES])
    assert "of them expanded in" in retrograde.explored(found)


def test_progress_is_reported_while_exploring_and_the_last_report_counts_every_state() -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine="compiled")
    shown: list[tuple[int, float]] = []
    found, stopped = retrograde.explore(
        game, game.initial_state(), float("inf"), None, 1 << 30, lambda *a: shown.append(a)
    )
    assert stopped == "" and shown[-1][0] == int(found.counters[retrograde.STATES]) == 5478
    assert len(shown) >= 2  # the first call of the kernel expands 64 states (FIRST_CHUNK)


def test_the_address_space_limit_bounds_the_memory_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retrograde, "memory_room", lambda: 300_000)
    solution = solve(gdl.load(GAMES / "tictactoe.kif"))  # the default memory is far larger
    assert not solution.solved and "would not fit in 0.3 MiB" in solution.reason


def test_the_memory_room_is_three_quarters_of_what_is_left_under_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    monkeypatch.setattr(resource, "getrlimit", lambda _: (used + (8 << 20), resource.RLIM_INFINITY))
    room = retrograde.memory_room()
    assert room is not None and abs(room - (6 << 20)) < (1 << 20)
    monkeypatch.setattr(resource, "getrlimit", lambda _: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert retrograde.memory_room() is None


def test_an_unsolved_native_run_says_how_far_it_got(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--max-states", "3000"]) == 1
    out = capsys.readouterr().out
    rate = r"\d+\.\d\d s,? \(?[\d,]+ a second\)"
    assert re.search(r"tictactoe: not solved within budget \(3,000 states, " + rate, out)
    assert re.search(r"note: 3,000 states found, [\d,]+ of them expanded in " + rate, out)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_native_run_counts_the_states_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["solve", str(GAMES / "tictactoe.kif"), "--max-states", "3000"]) == 1
    shown = terminal.getvalue()
    assert re.search(r"\r\033\[Kgdl solve: 3,000 states searched, \d+ s, [\d,]+ a second", shown)
    assert shown.endswith("\r\033[K")


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.sets(st.integers(0, 2**192 - 1), min_size=1, max_size=300))
def test_a_table_grown_from_its_tags_holds_what_hashing_the_rows_again_gives(
    words: int, numbers: set[int]
) -> None:
    from gdl.retrograde_kernel import NUMBER_BITS, find_slot, home_shift, regrow, rehash, row_hash

    rows = sorted({n % 2 ** (64 * words) for n in numbers})
    keys = np.array([[(n >> (64 * w)) & (2**64 - 1) for w in range(words)] for n in rows], dtype=np.uint64)
    size = 1 << (2 * len(rows) - 1).bit_length()
    small, grown, hashed = (np.zeros(n, dtype=np.uint64) for n in (size, 2 * size, 2 * size))
    rehash(keys, small, len(rows))
    regrow(small, grown)
    rehash(keys, hashed, len(rows))
    assert sorted(grown.tolist()) == sorted(hashed.tolist())
    for number, row in enumerate(keys):
        slot = find_slot(keys, grown, np.uint64(home_shift(grown)), row, np.uint64(row_hash(row)))
        assert int(grown[slot]) & (2**NUMBER_BITS - 1) == number + 1


def test_the_arrays_grow_no_further_than_the_state_limit_needs() -> None:
    game = gdl.load(shared_path(CORPUS / "games/connectfour.kif"), engine="compiled")
    found, stopped = retrograde.explore(game, game.initial_state(), float("inf"), 100_000, 1 << 32, None)
    assert stopped == "not solved within budget" and int(found.counters[retrograde.STATES]) == 100_000
    # Doubling would have made room for 131,072 states: the limit and a little headroom are enough.
    assert found.capacity <= 100_000 + retrograde.HEADROOM < 131_072


def test_by_default_the_states_take_what_the_address_space_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine="compiled")
    monkeypatch.setattr(retrograde, "memory_room", lambda: 12 << 30)  # more than the default
    found, _ = retrograde.explore(game, game.initial_state(), float("inf"), 100, None, None)
    assert found.memory == 12 << 30
    monkeypatch.setattr(retrograde, "memory_room", lambda: None)  # no limit: the default
    found, _ = retrograde.explore(game, game.initial_state(), float("inf"), 100, None, None)
    assert found.memory == retrograde.DEFAULT_MEMORY
    found, _ = retrograde.explore(game, game.initial_state(), float("inf"), 100, 1 << 30, None)
    assert found.memory == 1 << 30


def test_an_edge_takes_the_bytes_the_memory_is_counted_in() -> None:
    from gdl.retrograde_kernel import reversed_graph

    game = gdl.load(GAMES / "tictactoe.kif", engine="compiled")
    found, stopped = retrograde.explore(game, game.initial_state(), float("inf"), None, 1 << 30, None)
    count = int(found.counters[retrograde.STATES])
    _, parents = reversed_graph(count, found.child_start, found.children)
    assert stopped == "" and found.children.itemsize + parents.itemsize == retrograde.EDGE_BYTES
    assert len(parents) == int(found.counters[retrograde.EDGES])


def test_states_whose_edges_did_not_fit_as_arrays_grew_are_explored_again_in_arrays_of_their_size() -> None:
    # About 120 bytes a state of tictactoe and 8 an edge: arrays grown by doubling to 7,936 states do not
    # fit in 1 MB with their edges, so the states are counted without them (5,478 states, 16,167 edges),
    # then explored again in arrays of that size, which fit, and solved.
    game = gdl.load(GAMES / "tictactoe.kif", engine="compiled")
    found, stopped = retrograde.explore(game, game.initial_state(), float("inf"), None, 1_000_000, None, True)
    assert stopped == "" and not found.counting and found.capacity < 7_936
    assert int(found.counters[retrograde.STATES]) == 5478 and int(found.counters[retrograde.EDGES]) == 16167
    solution = solve(gdl.load(GAMES / "tictactoe.kif"), memory=1_000_000)
    assert solution.solved and solution.value == {"xplayer": 50, "oplayer": 50}
    # Without counting past the memory (the puzzle solver's way), the same memory is refused.
    _, stopped = retrograde.explore(game, game.initial_state(), float("inf"), None, 1_000_000, None)
    assert "would not fit in" in stopped


def test_states_whose_edges_will_not_fit_are_still_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retrograde, "EDGE_BYTES", 200)  # edges dear enough not to fit even sized
    solution = solve(gdl.load(GAMES / "tictactoe.kif"), memory=1_500_000)
    assert not solution.solved and solution.states == 5478
    assert "all 5,478 reachable states counted, but with the 16,167 edges to them" in solution.reason
