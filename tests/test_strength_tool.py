"""The strength benchmark (tests/tools/strength.py): matches through ``gdl host`` against opponents
served over HTTP, the seats rotating, one opponent server per role it plays, records kept."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

import selfplay
import strength

ROOT = Path(__file__).resolve().parent.parent
OPPONENT = shlex.join([*strength.GDL, "serve", "--host", "127.0.0.1", "--port", "{port}",
                       "--player", "random"])
#: Both servers on one core this process may use (the tool pins them with taskset). The random players
#: answer at once; the clocks are wide so that a loaded machine charges neither side an error.
CORE = str(min(os.sched_getaffinity(0)))
PINNED = ["--gdl-core", CORE, "--opponent-core", CORE]

THREE_ROLES = """
(role red) (role green) (role blue)
(init (step 0))
(number 1) (number 2)
(<= (legal ?r (pick ?n)) (role ?r) (number ?n))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (picked ?r ?n)) (does ?r (pick ?n)))
(succ 0 1) (succ 1 2)
(<= terminal (true (step 2)))
(<= (goal ?r 100) (role ?r) (true (picked ?r 2)))
(<= (goal ?r 0) (role ?r) (true (picked ?r 1)))
"""


def rows(output: str, game: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("|")[1:-1]]
            for line in output.splitlines() if line.startswith(f"| {game} |")]


def test_the_seats_rotate_and_the_records_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "records"
    status = strength.main([str(ROOT / "games" / "tictactoe.kif"), "--matches", "2", "--start-clock", "10",
                            "--play-clock", "5", "--player", "random", "--opponent-command", OPPONENT,
                            "--records", str(records), *PINNED])
    assert status == 0
    [row] = rows(capsys.readouterr().out, "tictactoe")
    assert row[1] == "2" and row[5:7] == ["0", "0"]  # two matches, no error on either side
    played = [json.loads((records / f"tictactoe-{match}.json").read_text()) for match in (1, 2)]
    gdl_goals = [record["goalValues"][match] for match, record in enumerate(played)]  # seat 1, then 2
    assert row[4] == f"{sum(gdl_goals) / 2:.1f}"
    gdl_urls = {record["playerNamesFromHost"][match] for match, record in enumerate(played)}
    opponent_urls = {record["playerNamesFromHost"][1 - match] for match, record in enumerate(played)}
    assert len(gdl_urls) == 1 and len(opponent_urls) == 1 and gdl_urls != opponent_urls
    assert all(record["goalValues"] and len(record["moves"]) >= 5 for record in played)


def test_a_game_of_three_roles_has_an_opponent_server_for_each_other_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "pick.kif"
    game.write_text(THREE_ROLES)
    records = tmp_path / "records"
    status = strength.main([str(game), "--matches", "3", "--start-clock", "10", "--play-clock", "5",
                            "--player", "random", "--opponent-command", OPPONENT, "--records", str(records),
                            *PINNED])
    assert status == 0
    [row] = rows(capsys.readouterr().out, "pick")
    assert row[1] == "3" and row[5:7] == ["0", "0"]
    played = [json.loads((records / f"pick-{match}.json").read_text()) for match in (1, 2, 3)]
    for match, record in enumerate(played):
        names = record["playerNamesFromHost"]
        assert len(set(names)) == 3  # gdl and two opponent servers
        assert names[match] == played[0]["playerNamesFromHost"][0]  # gdl's seat moves on each match
        assert len(record["moves"]) == 2


def test_a_game_of_more_roles_than_opponent_urls_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "pick.kif"
    game.write_text(THREE_ROLES)
    with pytest.raises(SystemExit) as ended:
        strength.main([str(game), "--opponent", "http://127.0.0.1:9/"])
    assert ended.value.code == 2
    assert "a game of 3 roles needs 2 opponent URLs; 1 given" in capsys.readouterr().err


def test_selfplay_seats_the_player_in_each_role_and_reports_its_share(
    capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(ROOT / "games" / "tictactoe.kif")
    assert selfplay.main([game, "--player", "minimax", "--opponent", "random", "--matches", "2"]) == 0
    assert selfplay.main([game, "--player", "random", "--opponent", "minimax", "--matches", "2"]) == 0
    output = capsys.readouterr().out
    strong, weak = rows(output, "tictactoe")
    # minimax never loses tictactoe, in either seat: a share of at least a half in every match
    assert strong[1] == weak[1] == "2"
    assert int(strong[2].rstrip(" %")) >= 50 >= int(weak[2].rstrip(" %"))
