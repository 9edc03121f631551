"""``gdl play`` and ``gdl tournament``: steps and boards shown, players assigned, errors explained."""

from __future__ import annotations

import io
import json
import random
import re
import sys
from pathlib import Path

import pytest

import gdl
from gdl.cli import main
from gdl.cli._common import split_players
from gdl.errors import PlayerSpecError
from gdl.render import render

GAMES = Path(__file__).resolve().parent.parent / "games"
TICTACTOE = str(GAMES / "tictactoe.kif")


def test_play_shows_every_step_with_a_board_and_the_goals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "match.json"
    status = main([
        "play", TICTACTOE, "--player", "xplayer=legal", "-p", "oplayer=random:seed=3",
        "--play-clock", "1", "-o", str(saved),
    ])
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("tictactoe: xplayer = legal, oplayer = random (play clock 1 s)")
    assert "initial state\n    1 2 3\n  3 . . .\n  2 . . .\n  1 . . .\n  (control xplayer)\n" in out
    assert "step 1: xplayer (mark 1 1); oplayer noop\n    1 2 3\n  3 . . .\n  2 . . .\n  1 x . .\n" in out
    record = json.loads(saved.read_text(encoding="utf-8"))
    steps = re.findall(r"^step (\d+):", out, re.MULTILINE)
    assert [int(s) for s in steps] == list(range(1, len(record["moves"]) + 1))
    goals = dict(zip(record["roles"], record["goalValues"], strict=True))
    assert f"goals: xplayer {goals['xplayer']}, oplayer {goals['oplayer']}" in out


def test_players_without_roles_take_the_roles_in_order_and_missing_ones_are_random(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", TICTACTOE, "-p", "legal", "--seed", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tictactoe: xplayer = legal, oplayer = random")
    assert "step 1" not in out and "goals: " in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-p", "xplayer=deepblue"], "unknown player kind: 'deepblue'"),
        (["-p", "white=legal"], "unknown role: 'white' (roles: xplayer, oplayer)"),
        (["-p", "xplayer=legal", "-p", "xplayer=random"], "role 'xplayer' is given two players"),
        (["-p", "legal", "-p", "legal", "-p", "legal"], "3 players given for 2 role(s)"),
        (["-p", "mcts:speed=9"], "unknown option 'speed' for mcts player"),
    ],
)
def test_bad_play_arguments_are_explained(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", TICTACTOE, *arguments]) == 2
    assert message in capsys.readouterr().err


def test_play_reports_a_missing_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["play", str(tmp_path / "none.kif")]) == 2
    assert "none.kif: no such file" in capsys.readouterr().err


def test_a_human_plays_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Centre first, then always the first legal move; nonsense lines are asked again.
    monkeypatch.setattr(sys, "stdin", io.StringIO("5\nwhat\n1\n1\n0\n1\n1\n"))
    assert main(["play", TICTACTOE, "-p", "xplayer=human", "-p", "oplayer=legal", "--play-clock", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "Legal moves for xplayer:\n    1. (mark 1 1)" in out
    assert "step 1: xplayer (mark 2 2); oplayer noop" in out
    assert out.count("not a legal move") == 2
    assert "errors:" not in out


def test_render_draws_boards_and_lists_other_fluents() -> None:
    game = gdl.load(GAMES / "tictactoe.kif")
    state = game.state(["(cell 1 1 x)", "(cell 1 2 b)", "(cell 2 1 o)", "(cell 2 2 b)", "(control oplayer)"])
    # the whole 3 x 3 board of the game's base propositions, though the state names four squares
    assert render(state) == "    1 2 3\n  3 . . .\n  2 . . .\n  1 x o .\n  (control oplayer)"
    buttons = gdl.load(GAMES / "buttons.kif")
    assert render(buttons.initial_state()) == "  (step 0)"
    lit = buttons.state(["(on q)", "(on p)", "(step 2)"])
    assert render(lit) == "  (on p)\n  (on q)\n  (step 2)"


def drawn_board(text: str) -> dict[tuple[str, str], str]:
    """The squares of a drawn board by (column label, row label), read back by the header's positions."""
    header, *rows = [line for line in text.splitlines() if not line.startswith("  (")]
    ends = [m.end() for m in re.finditer(r"\S+", header)]
    width = ends[1] - ends[0] - 1 if len(ends) > 1 else len(header.split()[0])
    board = {}
    for row in rows:
        for label, end in zip(header.split(), ends, strict=True):
            board[label, row.split()[0]] = row[end - width:end].strip()
    return board


def test_render_orders_numbers_numerically_and_completes_short_runs_only() -> None:
    cells = " ".join(f"(init (cell {x} {y} x))" for x, y in ((1, 1), (1, 100), (2, 2), (100, 1), (3, 2)))
    game = gdl.parse(f"(role r) {cells} (legal r wait) (<= (next (cell ?x ?y ?v)) (true (cell ?x ?y ?v)))"
                     "(<= terminal (true (cell 2 2 x))) (goal r 100)")
    lines = render(game.initial_state()).splitlines()
    assert lines[0].split() == ["1", "2", "3", "100"]  # 1..100 is too long a run to complete
    assert [line.split()[0] for line in lines[1:]] == ["100", "2", "1"]
    board = drawn_board("\n".join(lines))
    assert {k for k, v in board.items() if v == "x"} == {("1", "1"), ("1", "100"), ("2", "2"), ("100", "1"),
                                                          ("3", "2")}
    assert board["1", "2"] == ""  # (cell 1 2 _) is not a fluent: drawn blank


def test_render_puts_the_first_argument_across_and_completes_letters() -> None:
    cells = "(init (cell b 1 x)) (init (cell d 2 y)) (init (cell a 3 z)) (init (cell c 1 w))"
    game = gdl.parse(f"(role r) {cells} (legal r wait) (<= (next (cell ?x ?y ?v)) (true (cell ?x ?y ?v)))"
                     "(<= terminal (true (cell a 1 x))) (goal r 100)")
    drawn = render(game.initial_state()).splitlines()
    assert drawn == ["    a b c d", "  3 z      ", "  2       y", "  1   x w  "]


def test_connect_four_is_drawn_with_columns_across_and_pieces_stacked_from_the_bottom(corpus: Path) -> None:
    # Gravity is the oracle: in every drawn column the pieces fill the bottom rows without a gap, and a
    # drop into column x makes that column one piece taller.
    game = gdl.load(corpus / "games" / "connectfour.kif", engine="datalog")
    state, rng = game.initial_state(), random.Random(7)
    heights: dict[str, int] = {}
    for _ in range(14):
        mover = next(r for r in game.roles if str(state.legal_moves(r)[0]) != "noop")
        move = rng.choice(state.legal_moves(mover))
        state = state.next({r: move if r == mover else "noop" for r in game.roles})
        column = str(move.args[0])  # type: ignore[attr-defined]
        heights[column] = heights.get(column, 0) + 1
        if state.is_terminal():
            continue
        board = drawn_board(render(state))
        rows = sorted({row for _, row in board}, key=int)
        for label in {column for column, _ in board}:
            filled = [board[label, row] not in ("", ".") for row in rows]  # bottom row first
            assert filled == sorted(filled, reverse=True), f"gap in column {label}"
            assert sum(filled) == heights.get(label, 0)


# -- tournaments ---------------------------------------------------------------------------------------------


def test_split_players_keeps_options_with_their_player() -> None:
    assert split_players(["mcts:iterations=10,c=0.5,random"]) == ["mcts:iterations=10,c=0.5", "random"]
    assert split_players(["minimax", "legal"]) == ["minimax", "legal"]
    with pytest.raises(PlayerSpecError, match="comes before any player kind"):
        split_players(["c=1,mcts"])


def test_tournament_prints_a_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "tournament.json"
    status = main([
        "tournament", TICTACTOE, "-p", "minimax:depth=9", "-p", "legal", "--matches", "4",
        "--play-clock", "5", "--jobs", "2", "--seed", "1", "-o", str(saved),
    ])
    captured = capsys.readouterr()
    assert status == 0
    assert "\r" not in captured.err  # the progress bar is for terminals only
    lines = captured.out.splitlines()
    assert lines[0] == "tictactoe: 4 matches (0 aborted), roles rotated each match"
    assert lines[1].split() == ["player", "wins", "draws", "losses", "mean", "goal", "errors"]
    minimax_row, legal_row = (line.split() for line in lines[2:4])
    assert minimax_row[0] == "minimax:depth=9" and legal_row[0] == "legal"
    wins, draws, losses = (int(minimax_row[i]) for i in (1, 2, 3))
    assert (int(legal_row[1]), int(legal_row[2]), int(legal_row[3])) == (losses, draws, wins)
    assert wins + draws + losses == 4
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert [s["player"] for s in data["standings"]] == ["minimax:depth=9", "legal"]
    assert sum(s["wins"] + s["draws"] + s["losses"] for s in data["standings"]) == 8


def test_tournament_refuses_a_wrong_number_of_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", TICTACTOE, "-p", "legal", "--matches", "2"]) == 2
    assert "1 players given for the 2 role(s) of tictactoe" in capsys.readouterr().err
    assert main(["tournament", TICTACTOE, "-p", "legal", "-p", "chess", "--matches", "2"]) == 2
    assert "unknown player kind: 'chess'" in capsys.readouterr().err
    assert main(["tournament", TICTACTOE, "-p", "human", "-p", "legal", "--matches", "2"]) == 2
    assert "human players cannot play in tournaments" in capsys.readouterr().err


def test_tournament_seats_named_roles_and_says_why_matches_aborted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "tournament.json"
    status = main([
        "tournament", TICTACTOE, "-p", "oplayer=random", "-p", "xplayer=legal", "-n", "2", "-j", "1",
        "--max-steps", "2", "-q", "--engine", "datalog", "-o", str(saved),
    ])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out.startswith("tictactoe: 0 matches (2 aborted)")
    assert "gdl tournament: 2 matches aborted: no terminal state after 2 steps" in captured.err
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert [s["player"] for s in data["standings"]] == ["legal", "random"]  # role order: xplayer first
    assert [m["steps"] for m in data["matches"]] == [2, 2]


def test_the_whole_board_of_the_base_propositions_is_drawn() -> None:
    # a 4 x 3 board with one piece: every square is drawn, empty ones as '.'
    game = gdl.parse(
        "(role p) (col 1) (col 2) (col 3) (col 4) (row 1) (row 2) (row 3)"
        " (<= (base (cell ?x ?y p)) (col ?x) (row ?y)) (base done)"
        " (init (cell 2 1 p)) (legal p stop) (<= (next done) (does p stop)) (<= terminal (true done))"
        " (goal p 100)"
    )
    assert render(game.initial_state()).splitlines() == [
        "    1 2 3 4",
        "  3 . . . .",
        "  2 . . . .",
        "  1 . p . .",
    ]
