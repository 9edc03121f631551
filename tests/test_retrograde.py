"""gdl.retrograde: solving turn-taking games natively gives exactly the answers of the search over states."""

from __future__ import annotations

import io
import itertools
import re
import resource
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.graph_games import GraphGame
from support.paths import GAMES

import gdl
import gdl.solve
from gdl import retrograde
from gdl.cli import main
from gdl.solve import Solution, solve


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
    assert native.solved == searched.solved, (native.reason, searched.reason)
    if native.solved:
        assert "solved by retrograde analysis on the compiled network" in native.notes
        assert (native.concept, native.value, native.pv, native.states) == (
            searched.concept, searched.value, searched.pv, searched.states,
        )
    else:
        assert native.reason.split(":")[0] == searched.reason.split(":")[0]


@st.composite
def turn_taking_games(draw: st.DrawFn, most_states: int = 14, acyclic: bool | None = None) -> GraphGame:
    """Small explicit games where one role moves in each state (its successors later states, or any
    state), with goals that may be missing."""
    names = draw(st.sampled_from([("r0",), ("r0", "r1"), ("r0", "r1", "r2")]))
    states = draw(st.integers(1, most_states))
    acyclic = draw(st.booleans()) if acyclic is None else acyclic
    terminal = tuple(draw(st.booleans()) or state == states - 1 for state in range(states))
    value = st.sampled_from([0, 25, 50, 100]) if draw(st.booleans()) else st.one_of(
        st.none(), st.sampled_from([0, 50, 100])
    )
    goals = tuple(tuple(draw(value) for _ in names) for _ in range(states))
    moves = []
    for _ in range(states):
        counts = [1] * len(names)
        counts[draw(st.integers(0, len(names) - 1))] = draw(st.integers(1, 3))
        moves.append(tuple(counts))
    successor = {}
    for state in range(states):
        for joint in itertools.product(*(range(n) for n in moves[state])):
            low = state + 1 if acyclic and state < states - 1 else 0
            successor[(state, joint)] = draw(st.integers(low, states - 1))
    return GraphGame(names, terminal, goals, tuple(moves), successor)


@settings(max_examples=40)
@given(turn_taking_games())
def test_random_turn_taking_games_get_the_searchs_answers(game: GraphGame) -> None:
    _same(*_both(game.kif()))


@settings(max_examples=5, deadline=None)
@given(turn_taking_games(most_states=160, acyclic=True))
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


def test_a_state_limit_stops_the_exploration_at_that_many_states() -> None:
    native, searched = _both((GAMES / "tictactoe.kif").read_text(), max_states=100)
    assert not native.solved and native.reason == searched.reason == "not solved within budget"
    assert native.states == searched.states == 100


def test_a_state_space_that_will_not_fit_is_refused_with_its_size(tmp_path: Path) -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    solution = solve(game, memory=300_000)  # about 1,000 states of tictactoe
    assert not solution.solved
    assert "would not fit in 0.3 MiB" in solution.reason and "bytes a state" in solution.reason


def test_simultaneous_moves_are_left_to_the_search() -> None:
    solution = solve(gdl.load(GAMES / "rps.kif"))
    assert solution.solved and "solved by retrograde analysis on the compiled network" not in solution.notes


def test_by_default_small_games_are_searched_and_larger_ones_solved_natively() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gdl.solve, "SMALL_GAME", 2_000)
        buttons = solve(gdl.load(GAMES / "buttons.kif"))  # 22 states
        tictactoe = solve(gdl.load(GAMES / "tictactoe.kif"))  # 5,478 states
    native = "solved by retrograde analysis on the compiled network"
    assert buttons.solved and native not in buttons.notes
    assert tictactoe.solved and native in tictactoe.notes and tictactoe.states == 5478


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
    from gdl.retrograde_kernel import NUMBER_BITS, _find, _hash, _shift, regrow, rehash

    rows = sorted({n % 2 ** (64 * words) for n in numbers})
    keys = np.array([[(n >> (64 * w)) & (2**64 - 1) for w in range(words)] for n in rows], dtype=np.uint64)
    size = 1 << (2 * len(rows) - 1).bit_length()
    small, grown, hashed = (np.zeros(n, dtype=np.uint64) for n in (size, 2 * size, 2 * size))
    rehash(keys, small, len(rows))
    regrow(small, grown)
    rehash(keys, hashed, len(rows))
    assert sorted(grown.tolist()) == sorted(hashed.tolist())
    for number, row in enumerate(keys):
        slot = _find(keys, grown, np.uint64(_shift(grown)), row, np.uint64(_hash(row)))
        assert int(grown[slot]) & (2**NUMBER_BITS - 1) == number + 1
