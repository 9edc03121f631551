"""What a player may not see is out of its reach: a peeking player finds no hidden fluent, whether it
plays in a process of its own (the default for GDL-II games) or in the referee's process with a game of
its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import GAMES
from support.peeking import Peeking

import gdl
from gdl.cli import main
from gdl.match import Match
from gdl.players import make_player
from gdl.players.isolated import IsolatedPlayer
from gdl.tournament import play_one
from gdl.workers import WorkerProcess


def _monty() -> gdl.Game:
    return gdl.load(GAMES / "montyhall.kif")


def _peek(matches: int, isolate: bool | None) -> tuple[int, list[list[str]]]:
    """Matches of Monty Hall by a peeking candidate: its wins, and what it found in each."""
    game = _monty()
    wins, found = 0, []
    for seed in range(matches):
        # In a process of its own, every object there is the player's to search.
        player = Peeking(everything=isolate is not False)
        record = Match(game, {"candidate": player}, play_clock=60, seed=seed, isolate=isolate).run()
        assert record.completed and not record.error_count("candidate"), record.errors
        info = next(step["candidate"] for step in record.infos if "found" in step.get("candidate", {}))
        assert info["visited"] > 1000  # it did search
        found.append(info["found"])
        wins += record.goals["candidate"] == 100
    return wins, found


def test_a_peeking_player_in_the_referees_process_finds_no_hidden_fluent() -> None:
    # isolate=False: the unsafe opt-out; still, the player is handed a game of its own, and the
    # referee's reasoner, its caches and states are not among what it was handed.
    wins, found = _peek(20, isolate=False)
    assert found == [[]] * 20
    assert wins < 20  # staying with door 1 wins a third of the matches


def test_by_default_a_gdl2_player_plays_in_its_own_process_where_nothing_holds_the_state() -> None:
    _, found = _peek(4, isolate=None)
    assert found == [[]] * 4


def test_gdl2_players_are_isolated_by_default_and_gdl_players_by_request() -> None:
    monty, tictactoe = _monty(), gdl.load(GAMES / "tictactoe.kif")
    isolated = Match(monty, {"candidate": "random"})
    assert isinstance(isolated.players["candidate"], IsolatedPlayer)
    assert not isinstance(Match(monty, {"candidate": "random"}, isolate=False).players["candidate"],
                          IsolatedPlayer)
    players = {"xplayer": "random", "oplayer": "random"}
    assert not any(isinstance(p, IsolatedPlayer) for p in Match(tictactoe, players).players.values())
    record = Match(tictactoe, players, isolate=True, seed=3).run()
    assert record.completed and not any(record.error_count(r) for r in tictactoe.players)
    human = make_player("human")
    assert Match(monty, {"candidate": human}).players["candidate"] is human


def test_a_player_that_cannot_be_pickled_is_refused_with_the_way_out() -> None:
    player = make_player("random")
    player.unpicklable = lambda: None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="cannot run in a process of its own"):
        Match(_monty(), {"candidate": player})
    assert Match(_monty(), {"candidate": player}, isolate=False).players["candidate"] is player


def test_an_in_process_player_gets_a_game_of_its_own_and_states_of_it() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    handed: list[object] = []

    class Noting(type(make_player("legal"))):  # type: ignore[misc]
        def start(self, game: gdl.Game, role: str, start_clock: float, play_clock: float) -> None:
            handed.append(game)
            super().start(game, role, start_clock, play_clock)

        def play(self, state: gdl.State, deadline: float) -> gdl.syntax.model.Term:
            handed.append(state)
            return super().play(state, deadline)

    record = Match(game, {"xplayer": Noting(), "oplayer": "random"}, seed=1, ask_forced=True).run()
    games = [h for h in handed if isinstance(h, gdl.Game)]
    states = [h for h in handed if isinstance(h, gdl.State)]
    assert len(games) == 1 and games[0] is not game and games[0].reasoner is not game.reasoner
    assert states and all(s.game is games[0] for s in states)
    assert [s.fluents() for s in states] == [s.fluents() for s in record.states[:-1]]



def test_play_and_tournament_isolate_gdl2_players_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[str] = []
    start = WorkerProcess.start

    def noted(worker: WorkerProcess) -> None:
        started.append(worker.name)
        start(worker)

    monkeypatch.setattr(WorkerProcess, "start", noted)
    monty = GAMES / "montyhall.kif"
    text = monty.read_text()
    summary = play_one(text, str(monty), "auto", 10, 5, None, None, ["random"], 1)
    assert summary["goals"] is not None and started == ["player of candidate"]
    assert play_one(text, str(monty), "auto", 10, 5, None, False, ["random"], 1)["goals"] is not None
    assert started == ["player of candidate"]
    assert main(["play", str(monty), "-p", "random", "--seed", "1", "-q"]) == 0
    assert started == ["player of candidate"] * 2
    assert main(["play", str(monty), "-p", "random", "--seed", "1", "-q", "--in-process"]) == 0
    assert main(["tournament", str(monty), "-p", "random", "-n", "1", "--in-process"]) == 0
    assert started == ["player of candidate"] * 2
    capsys.readouterr()


def test_a_script_without_a_main_guard_plays_isolated_players(tmp_path: Path) -> None:
    # The players' processes run gdl's code only: the script does not start over in each of them.
    script = tmp_path / "script.py"
    script.write_text(
        "import gdl\nfrom gdl.match import Match\n"
        f"game = gdl.load({str(GAMES / 'montyhall.kif')!r})\n"
        "record = Match(game, {'candidate': 'random'}, seed=1).run()\n"
        "print('errors', record.error_count('candidate'), record.completed)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.count("errors 0 True") == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
