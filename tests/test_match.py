"""The match runner: records, clocks enforced against faulty players, the ggp-base JSON, tournaments."""

from __future__ import annotations

import io
import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.timing import slack

import gdl
from gdl.engines.base import depth_charge
from gdl.errors import UnknownRoleError
from gdl.game import Game, State
from gdl.match import Match, MatchRecord
from gdl.player_threads import LockedReasoner
from gdl.players import Player, make_player
from gdl.players.human import HumanPlayer
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_term
from gdl.tournament import run_tournament

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture(scope="module")
def tictactoe() -> Game:
    return gdl.load(GAMES / "tictactoe.kif")


class Faulty(Player):
    """Misbehaves in turn: raises, answers an illegal move, sleeps past the clock, answers junk text."""

    name = "faulty"

    def __init__(self, sleep: float) -> None:
        self.sleep = sleep
        self.calls = 0

    def play(self, state: State, deadline: float) -> Term:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("deliberate failure")
        if self.calls == 2:
            return gdl.syntax.reader.parse_term("(mark 9 9)")
        if self.calls == 3:
            time.sleep(self.sleep)
        return "(((not kif"  # type: ignore[return-value]  # a wrong answer type, as a server may get

    def info(self) -> dict[str, object]:
        raise KeyError("no report")


class Blocked(Player):
    """Never answers: waits on an event that the test sets at the end."""

    name = "blocked"

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def play(self, state: State, deadline: float) -> Term:
        self.release.wait()
        return state.legal_moves(self.role)[0]


def check_consistent(record: MatchRecord) -> None:
    """Every recorded step is a legal joint move leading to the next recorded state."""
    assert len(record.states) == len(record.moves) + 1 == len(record.times) + 1 == len(record.errors) + 1
    for before, joint, after in zip(record.states, record.moves, record.states[1:], strict=False):
        assert all(before.is_legal(role, move) for role, move in joint.items())
        assert before.next(joint) == after
    if record.completed:
        assert record.states[-1].is_terminal()
        assert record.goals == record.states[-1].goals()


def test_a_match_between_programs_is_recorded_step_by_step(tictactoe: Game) -> None:
    players = {"xplayer": make_player("legal"), "oplayer": make_player("random:seed=4")}
    record = Match(tictactoe, players, play_clock=2.0, seed=1).run()
    check_consistent(record)
    assert record.completed and not record.aborted
    assert record.states[0] == tictactoe.initial_state()  # the record's states are the game's own
    assert gdl.Match is Match
    assert record.players == {"xplayer": "legal", "oplayer": "random"}
    assert all(not error for step in record.errors for error in step.values())
    assert [step["xplayer"] for step in record.moves[::2]][:2] == ["(mark 1 1)", "(mark 1 2)"]


def test_what_players_report_about_their_search_is_recorded(tictactoe: Game) -> None:
    players = {"xplayer": make_player("minimax:depth=2"), "oplayer": make_player("mcts:iterations=20")}
    record = Match(tictactoe, players, play_clock=5).run()
    # x moves at even steps, o at odd ones; a role with a single legal move (the last cell) is not asked
    assert all(set(info) <= {"xplayer"} for info in record.infos[::2])
    assert all(set(info) <= {"oplayer"} for info in record.infos[1::2])
    assert record.infos[0]["xplayer"]["depth"] == 2
    assert record.infos[1]["oplayer"]["iterations"] == 20


def test_the_json_is_in_the_ggp_base_match_format(tictactoe: Game) -> None:
    players = {"xplayer": make_player("random:seed=1"), "oplayer": make_player("random:seed=2")}
    record = Match(tictactoe, players, start_clock=3, play_clock=2).run()
    data = json.loads(json.dumps(record.to_json()))
    for key in ("matchId", "states", "moves", "goalValues", "errors", "startClock", "playClock",
                "isCompleted", "isAborted", "stateTimes", "startTime", "playerNamesFromHost"):
        assert key in data
    assert (data["startClock"], data["playClock"]) == (3, 2)
    assert (data["isCompleted"], data["isAborted"]) == (True, False)
    # As ggp-base writes it: one errors entry for START, then one per step; no gdl-only startErrors.
    assert len(data["states"]) == len(data["moves"]) + 1 == len(data["errors"]) == len(data["stateTimes"])
    assert "startErrors" not in data and len(data["errorMessages"]) == len(data["errors"])
    assert data["goalValues"] == [record.goals["xplayer"], record.goals["oplayer"]]
    assert data["moves"][1] == ["noop", _spaced(record.moves[1]["oplayer"])]
    assert [parse_term(m) for m in data["moves"][0]] == [parse_term(m) for m in record.moves[0].values()]
    assert data["errors"][0] == ["", ""]
    assert data["states"][0].startswith("( ( cell 1 1 b ) ( cell 1 2 b ) ")
    first = parse_term(data["states"][0].replace("(", "(f ", 1))
    assert isinstance(first, gdl.syntax.model.Function)
    assert set(first.args) == tictactoe.initial_state().fluents()
    assert data["stateTimes"] == sorted(data["stateTimes"])


def _spaced(kif: str) -> str:
    return re.sub(r"\(", "( ", re.sub(r"\)", " )", kif))


def test_a_faulty_player_gets_errors_and_random_moves_and_the_match_goes_on(tictactoe: Game) -> None:
    clock = 0.3
    faulty = Faulty(sleep=2.0)
    players = {"xplayer": faulty, "oplayer": make_player("random:seed=2")}
    begun = time.monotonic()
    record = Match(tictactoe, players, play_clock=clock, seed=5).run()
    check_consistent(record)
    assert record.completed
    x_errors = [step["xplayer"] for step in record.errors[::2]]
    assert x_errors[0] == "RuntimeError: deliberate failure"
    assert x_errors[1] == "illegal move: (mark 9 9)"
    assert x_errors[2].startswith("no answer within the clock")
    # ggp-base's codes in the JSON: entry 0 is START, then one per step.
    codes = [step[0] for step in record.to_json()["errors"][1::2]]
    assert codes[:3] == ["RuntimeError: deliberate failure", "IL ( mark 9 9 )", "TO"]
    assert record.times[4]["xplayer"] < clock + slack(0.3)  # stopped waiting before the 2 s sleep ended
    assert all(step["oplayer"] == "" for step in record.errors)
    assert record.infos[2] == {"xplayer": {"error": "KeyError: 'no report'"}}  # answered, report failed
    # stop() queues behind the sleeping call, so it may miss its clock too
    assert record.error_count("xplayer") - len(record.stop_errors) == sum(map(bool, x_errors)) >= 3
    assert time.monotonic() - begun < 10 * clock + slack(4)


def test_a_player_that_never_answers_cannot_stop_the_match(tictactoe: Game) -> None:
    release = threading.Event()
    players = {"xplayer": Blocked(release), "oplayer": make_player("legal")}
    try:
        record = Match(tictactoe, players, play_clock=0.1, seed=3).run()
    finally:
        release.set()
    check_consistent(record)
    assert record.completed
    assert all(step["xplayer"].startswith("no answer") for step in record.errors[::2] if step["xplayer"])
    assert record.error_count("xplayer") >= 3


def test_the_game_is_given_back_unchanged_after_a_match() -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    reasoner = game.reasoner
    seen: list[object] = []

    class Watcher(Player):
        name = "watcher"

        def play(self, state: State, deadline: float) -> Term:
            seen.append(state.game.reasoner)
            return state.legal_moves(self.role)[0]

    record = Match(game, {"xplayer": Watcher(), "oplayer": make_player("random:seed=1")}, play_clock=1).run()
    assert record.completed
    assert seen and all(r is not reasoner for r in seen)  # locked while players think in their threads
    assert game.reasoner is reasoner
    assert record.states[0] == game.initial_state()


def test_a_stuck_player_keeps_the_lock_until_its_thread_ends() -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine="datalog")
    reasoner, release = game.reasoner, threading.Event()
    blocked = Blocked(release)
    try:
        record = Match(game, {"xplayer": blocked, "oplayer": make_player("legal")}, play_clock=0.05).run()
        assert record.completed and game.reasoner is reasoner  # the referee's game is as it was given
        own = blocked.game  # the player's game of its own, which the stuck call may still use
        assert own is not game and isinstance(own.reasoner, LockedReasoner)
    finally:
        release.set()
    for _ in range(200):
        if not isinstance(own.reasoner, LockedReasoner):
            break
        time.sleep(0.01)
    assert not isinstance(own.reasoner, LockedReasoner)


def test_errors_at_the_start_are_recorded_and_the_match_goes_on(tictactoe: Game) -> None:
    class BadStart(Player):
        name = "badstart"

        def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
            super().start(game, role, start_clock, play_clock)
            raise OSError("no memory for the tree")

        def play(self, state: State, deadline: float) -> Term:
            return state.legal_moves(self.role)[-1]

    record = Match(tictactoe, {"xplayer": BadStart(), "oplayer": make_player("legal")}, play_clock=1).run()
    assert record.start_errors == {"xplayer": "OSError: no memory for the tree"}
    assert record.completed and record.error_count("xplayer") == 1
    assert record.moves[0]["xplayer"] == "(mark 3 3)"


def test_roles_with_one_legal_move_are_asked_only_on_request(tictactoe: Game) -> None:
    class Counting(Player):
        name = "counting"
        asked = 0

        def play(self, state: State, deadline: float) -> Term:
            self.asked += 1
            return state.legal_moves(self.role)[0]

    for ask_forced in (False, True):
        x, o = Counting(), Counting()
        record = Match(tictactoe, {"xplayer": x, "oplayer": o}, play_clock=1, ask_forced=ask_forced).run()
        steps = len(record.moves)
        if ask_forced:
            assert x.asked == o.asked == steps
        else:
            roles = ("xplayer", "oplayer")
            choices = [sum(len(s.legal_moves(r)) > 1 for s in record.states[:-1]) for r in roles]
            assert [x.asked, o.asked] == choices
            assert x.asked + o.asked == steps  # tictactoe: exactly one role has a choice each step


def test_seeded_matches_repeat_exactly(tictactoe: Game) -> None:
    def moves() -> list[dict[str, str]]:
        players = {"xplayer": make_player("random", seed=8), "oplayer": make_player("random", seed=9)}
        return Match(tictactoe, players, play_clock=1).run().moves

    assert moves() == moves()


def test_a_match_too_long_is_aborted(tictactoe: Game) -> None:
    players = {"xplayer": make_player("legal"), "oplayer": make_player("legal")}
    record = Match(tictactoe, players, play_clock=1, max_steps=3).run()
    assert record.aborted and not record.completed
    assert record.abort_reason == "no terminal state after 3 steps"
    assert len(record.moves) == 3 and record.goals == {}
    assert record.to_json()["goalValues"] == []


def test_bad_matches_are_refused(tictactoe: Game) -> None:
    with pytest.raises(UnknownRoleError, match="no player for role"):
        Match(tictactoe, {"xplayer": make_player("legal")})
    with pytest.raises(UnknownRoleError, match="unknown role: 'white'"):
        Match(tictactoe, {"white": make_player("legal"), "oplayer": make_player("legal")})
    same = make_player("legal")
    with pytest.raises(ValueError, match="share one player object"):
        Match(tictactoe, {"xplayer": same, "oplayer": same})
    with pytest.raises(ValueError, match="clocks must be positive"):
        Match(tictactoe, {"xplayer": make_player("legal"), "oplayer": make_player("random")}, play_clock=0)


def test_a_human_is_waited_for_beyond_the_clock(tictactoe: Game) -> None:
    class SlowInput(io.StringIO):
        def readline(self, size: int | None = -1) -> str:
            time.sleep(0.3)  # longer than the play clock
            return super().readline()

    human = HumanPlayer(input=SlowInput("5\n1\n1\n1\n1\n"), output=io.StringIO())
    record = Match(tictactoe, {"xplayer": human, "oplayer": make_player("legal")}, play_clock=0.1).run()
    check_consistent(record)
    assert record.moves[0]["xplayer"] == "(mark 2 2)"
    assert record.error_count("xplayer") == 0
    assert record.to_json()["isPlayerHuman"] == [True, False]


def test_simultaneous_players_share_the_reasoner_safely() -> None:
    game = gdl.load(GAMES / "rps.kif")
    players = {role: make_player("mcts:iterations=200", seed=i) for i, role in enumerate(game.roles)}
    record = Match(game, players, play_clock=5, ask_forced=True).run()
    check_consistent(record)
    assert record.completed and not any(any(step.values()) for step in record.errors)


def test_a_scripted_tournament_swaps_roles_and_tallies_results() -> None:
    result = run_tournament(
        str(GAMES / "tictactoe.kif"), ["legal", "random"], matches=4, play_clock=1.0, jobs=2, seed=10
    )
    assert [m["seats"] for m in result.matches] == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert [m["players"] for m in result.matches][:2] == [["legal", "random"], ["random", "legal"]]
    legal, random_player = result.standings
    assert result.aborted == 0
    for standing in result.standings:
        assert standing.wins + standing.draws + standing.losses == 4 == len(standing.goals)
        assert standing.errors == 0
    assert legal.wins == random_player.losses and legal.losses == random_player.wins
    for match in result.matches:
        legal_role = match["seats"].index(0)
        assert match["goals"][legal_role] in legal.goals


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), name=st.sampled_from(["tictactoe", "rps", "nim", "buttons"]))
def test_random_matches_are_recorded_consistently(seed: int, name: str) -> None:
    game = _games(name)
    players = {role: make_player("random", seed=seed + i) for i, role in enumerate(game.roles)}
    record = Match(game, players, play_clock=5, seed=seed, ask_forced=seed % 2 == 0).run()
    check_consistent(record)
    assert record.completed and record.error_count(game.roles[0]) == 0
    data = record.to_json()
    assert len(data["moves"]) == len(record.moves) and all(len(m) == len(game.roles) for m in data["moves"])


_LOADED: dict[str, Game] = {}


def _games(name: str) -> Game:
    if name not in _LOADED:
        _LOADED[name] = gdl.load(GAMES / f"{name}.kif")
    return _LOADED[name]


@pytest.mark.parametrize("engine", ["compiled", "datalog"])
def test_players_in_a_match_get_the_reasoners_own_playouts(engine: str) -> None:
    game = gdl.load(GAMES / "tictactoe.kif", engine=engine)
    native = getattr(game.reasoner, "depth_charge", None)
    calls: list[int] = []
    ends: list[tuple[bool, bool]] = []

    class Roller(Player):
        name = "roller"

        def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
            super().start(game, role, start_clock, play_clock)
            own = game.reasoner.unlocked  # type: ignore[attr-defined]  # its own reasoner, locked
            playout = getattr(own, "depth_charge", None)
            if playout is not None:

                def counted(state: object, rng: random.Random, max_depth: int) -> tuple[object, int, bool]:
                    calls.append(max_depth)
                    return playout(state, rng, max_depth)  # type: ignore[no-any-return]

                own.depth_charge = counted

        def play(self, state: State, deadline: float) -> Term:
            locked = state.game.reasoner
            end, _, terminal = depth_charge(locked, locked.initial(), random.Random(1), 100)
            ends.append((terminal, locked.terminal(end)))
            return state.legal_moves(self.role)[0]

    record = Match(game, {"xplayer": Roller(), "oplayer": make_player("legal")}, play_clock=2).run()
    assert record.completed and ends and all(terminal and really for terminal, really in ends)
    assert len(calls) == (len(ends) if native is not None else 0)  # the native playout, under the lock


def test_fractional_clocks_are_whole_seconds_in_the_record(tictactoe: Game) -> None:
    players = {"xplayer": make_player("random:seed=1"), "oplayer": make_player("random:seed=2")}
    data = Match(tictactoe, players, start_clock=1.5, play_clock=0.5).run().to_json()
    # ggp-base reads the clocks as integers; the exact ones are kept in a gdl key.
    assert (data["startClock"], data["playClock"]) == (2, 0)
    assert data["clockSeconds"] == [1.5, 0.5]
