"""The bandit-ambush maze as GDL-II: it passes the checker, and played by gdl's engine it is the same game.

The second test plays the exported rules with every reduced pure strategy of the agent (from the
brute-force oracle) against every plan the attacker's legal moves offer, averaging over the die, and
solves that matrix game: its value is the maze's value. The last test asks ``gdl solve`` itself, once the
GDL-II -> extensive-form pipeline is there.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from support.bandits_oracle import AgentStrategy, Oracle, solve_matrix_game

import gdl
import gdl.cli.solve
from gdl.bandits.kif import bandits_kif, first_dangers
from gdl.bandits.maze import Maze, read_maze
from gdl.check import check_text
from gdl.cli import main
from gdl.errors import BanditsExportError
from gdl.extensive import load_extensive
from gdl.extensive.from_gdl import GdlExtensiveGame
from gdl.extensive.lp import solve_lp

EXAMPLE = read_maze("5\n7\n#######\n#E---E#\n#S#-#D#\n#E--EG#\n#######\n1\n0.7\n")
#: A second maze: two bandits, gold on two ways, the alarm possible on three squares.
SECOND = Maze(("SE-G", "-#E-", "EG-D"), 2, Fraction(1, 2))


def agent_payoff(game: gdl.Game, plan: str, strategy: AgentStrategy) -> Fraction:
    """The agent's expected goal when it follows ``strategy`` and the attacker plays ``plan``."""
    first = game.initial_state().next({"agent": "noop", "attacker": plan, "random": "noop"})

    Cell = tuple[int, int]

    def expected(state: gdl.State, path: tuple[Cell, ...], hit: frozenset[Cell]) -> Fraction:
        if state.is_terminal():
            return Fraction(state.goals()["agent"])
        rolls = state.legal_moves("random")
        if len(rolls) > 1 or str(rolls[0]) != "noop":  # the die of an ambush on the agent's square
            after = [state.next({"agent": "noop", "attacker": "noop", "random": roll}) for roll in rolls]
            return sum((expected(s, path, hit | {path[-1]}) for s in after), Fraction(0)) / len(rolls)
        row, column = strategy[(path, hit)]
        step = state.next({"agent": f"(move {row} {column})", "attacker": "noop", "random": "noop"})
        return expected(step, (*path, (row, column)), hit)

    return expected(first, (game_start(game),), frozenset())


def game_start(game: gdl.Game) -> tuple[int, int]:
    (at,) = [str(f) for f in game.initial_state().fluents() if str(f).startswith("(at ")]
    row, column = at.strip("()").split()[1:]
    return int(row), int(column)


@pytest.mark.parametrize("maze", [EXAMPLE, SECOND], ids=["example", "second"])
def test_the_export_checks_clean(maze: Maze) -> None:
    result = check_text(bandits_kif(maze), "bandits.kif")
    assert result.checked is not None
    assert [d.format() for d in result.diagnostics] == []


@pytest.mark.parametrize("maze", [EXAMPLE, SECOND], ids=["example", "second"])
def test_the_export_played_by_the_engine_has_the_mazes_value(maze: Maze) -> None:
    game = gdl.parse(bandits_kif(maze))
    assert game.players == ("agent", "attacker") and game.chance_role == "random"
    oracle = Oracle(list(maze.rows), maze.bandits, maze.success)
    agents = list(oracle.agent_strategies((oracle.start,), frozenset()))
    plans = [str(move) for move in game.initial_state().legal_moves("attacker")]
    # A plan answers the alarm wherever it can go off first: one per placement and answers.
    assert len(plans) == len(set(plans)) > 0
    matrix = [[float(agent_payoff(game, plan, agent)) for plan in plans] for agent in agents]
    assert solve_matrix_game(np.array(matrix)) == pytest.approx(oracle.value(), abs=1e-9)


def test_the_examples_value_is_the_issues() -> None:
    oracle = Oracle(list(EXAMPLE.rows), EXAMPLE.bandits, EXAMPLE.success)
    assert oracle.value() == pytest.approx(5.054761904761906, abs=1e-9)


def test_the_alarm_squares_are_those_the_agent_can_reach_first() -> None:
    assert first_dangers(EXAMPLE) == ((1, 1), (3, 1))
    # Behind the destination a dangerous place cannot be first: the game ends at D.
    assert first_dangers(Maze(("SDE", "-#-", "---"), 1, Fraction(1, 2))) == ((0, 2),)
    assert first_dangers(Maze(("SD#", "-#E", "-#-"), 1, Fraction(1, 2))) == ()


def test_exports_that_gdl_cannot_hold_are_refused() -> None:
    with pytest.raises(BanditsExportError, match="die of 1001 sides"):
        bandits_kif(Maze(EXAMPLE.rows, 1, Fraction(2, 1001)))
    assert "(side 1000)" in bandits_kif(Maze(EXAMPLE.rows, 1, Fraction(123, 1000)))
    with pytest.raises(BanditsExportError, match="the attacker's plans would take up to"):
        bandits_kif(Maze(("S" + "E" * 40 + "D",), 4, Fraction(1, 2)))
    with pytest.raises(BanditsExportError, match="91 gold squares"):
        bandits_kif(Maze(("S" + "G" * 91 + "ED",), 1, Fraction(1, 2)))


@pytest.mark.parametrize("maze", [EXAMPLE, SECOND], ids=["example", "second"])
def test_the_gdl2_pipeline_gives_the_value_of_the_export(maze: Maze, tmp_path: Path) -> None:
    path = tmp_path / "bandits.kif"
    path.write_text(bandits_kif(maze), encoding="utf-8")
    game = load_extensive(path)  # what gdl solve reads a GDL-II file with
    # A GDL-II game's payoffs are its goals minus half their constant sum (100): the agent's goal is
    # the maze's payoff, so its value in goal units is the maze's.
    assert isinstance(game, GdlExtensiveGame) and game.goal_offset == 50
    value = solve_lp(game).value["agent"] + float(game.goal_offset)
    assert value == pytest.approx(oracle_value(maze), abs=1e-9)


def test_gdl_solve_gives_the_value_of_the_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bandits.kif"
    path.write_text(bandits_kif(EXAMPLE), encoding="utf-8")
    assert main(["solve", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert float(result["value"]["agent"]) + 50 == pytest.approx(oracle_value(EXAMPLE), abs=1e-9)


def oracle_value(maze: Maze) -> float:
    return Oracle(list(maze.rows), maze.bandits, maze.success).value()
