"""Corpus-wide runs: one game per task, on local processes or a cluster (see :mod:`gdl.backend`).

``gdl check --dynamic`` and ``gdl solve`` over many games hand each game to a task. A task gets the
game's text, not its path, since a cluster's workers need not share the driver's files, and it
never raises for a bad game: a game that cannot be loaded or runs out of resources comes back with
the reason, like one whose worker died for good, so one game never stops the run.

>>> from gdl.backend import open_backend
>>> with open_backend(None, jobs=1) as backend:
...     [run] = run_games(backend, solve_game, [("games/tictactoe.kif", open("games/tictactoe.kif").read())],
...                       ("auto", 60.0, None))
>>> run.game, run.result.value
('tictactoe', {'xplayer': 50, 'oplayer': 50})
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gdl.backend import Backend
from gdl.errors import InvalidGameError
from gdl.extensive import (
    GDL_SUFFIXES,
    ExtensiveGameError,
    NotExtensiveError,
    is_extensive_text,
    read_extensive,
)
from gdl.extensive.solve_gdl2 import NoExtensiveForm, Solved, solve_gdl2
from gdl.extensive.solving import solve_extensive
from gdl.game import Game, parse
from gdl.solve import Solution, solve, solving_engine
from gdl.wellformed import Report, analyse


@dataclass(frozen=True, slots=True)
class GameRun:
    """What one game's task gave: the ``game``'s name and ``result``, or the ``problem`` that kept it
    from one; ``reruns`` says why earlier runs were lost (their worker died)."""

    file: str
    game: str = ""
    result: Any = None
    problem: str | None = None
    reruns: tuple[str, ...] = ()


def check_game(text: str, file: str, engine: str, max_states: int, seconds: float) -> GameRun:
    """Explore one game for its well-formedness properties (:func:`gdl.wellformed.analyse`)."""
    return _guarded(file, text, engine, lambda game: analyse(game, max_states, seconds))


def solve_game(
    text: str,
    file: str,
    engine: str,
    budget: float,
    max_states: int | None,
    method: str = "auto",
    iterations: int | None = None,
    tree_memory: int | None = None,
) -> GameRun:
    """Solve one game as ``gdl solve`` does a file alone: a GDL-II game (nature or percepts) through its
    extensive form by :func:`gdl.extensive.solve_gdl2.solve_gdl2` (the result: the solution, or a
    :class:`~gdl.extensive.solve_gdl2.Sampled` or :class:`~gdl.extensive.solve_gdl2.Refused` game too
    large to store), a .efg or .json game by :func:`gdl.extensive.solving.solve_extensive`, any other GDL
    game, or a GDL-II game without an extensive form gdl solves, by :func:`gdl.solve.solve` (which says
    why). ``tree_memory`` is the bytes a GDL-II game's tree may take (None: as :func:`solve_gdl2` plans in
    the task's process)."""
    if is_extensive_text(text, file):
        try:
            return _solved_extensive(text, file, method, iterations, budget, tree_memory)
        except NotExtensiveError:
            pass
        except ExtensiveGameError as problem:  # a bad file, an LP that failed or ran out of time
            return GameRun(file, problem=str(problem))
        except MemoryError as problem:
            return GameRun(file, problem=f"the solver ran out of resources ({type(problem).__name__})")

    def solved(game: Game) -> Solution:
        # As gdl solve does: a network for the solve where auto's budget gave the game to Datalog.
        return solve(solving_engine(game, budget) if engine == "auto" else game, budget, max_states)

    return _guarded(file, text, engine, solved)


def _solved_extensive(
    text: str, file: str, method: str, iterations: int | None, budget: float, tree_memory: int | None
) -> GameRun:
    """An extensive-form game's run; :class:`NotExtensiveError` for a GDL-II game without one gdl solves."""
    if Path(file).suffix.lower() not in GDL_SUFFIXES:
        extensive = read_extensive(text, file)
        return GameRun(file, extensive.title, solve_extensive(extensive, method, iterations, budget))
    outcome = solve_gdl2(text, file, method=method, iterations=iterations, seconds=budget, memory=tree_memory)
    if isinstance(outcome, NoExtensiveForm):
        raise NotExtensiveError(outcome.reason)
    if isinstance(outcome, Solved):
        return GameRun(file, outcome.solution.game.title, outcome.solution)
    return GameRun(file, outcome.title, outcome)


def _guarded(file: str, text: str, engine: str, work: Callable[[Game], Report | Solution]) -> GameRun:
    try:
        game = parse(text, engine, file)
        return GameRun(file, game.name, work(game))
    except InvalidGameError:
        return GameRun(file, problem=f"the game has errors (see `gdl check {file}`)")
    except ValueError as problem:  # a run-time promise of GDL the reasoner could not keep, too large...
        return GameRun(file, problem=str(problem))
    except (MemoryError, RecursionError) as problem:
        return GameRun(file, problem=f"the reasoner ran out of resources ({type(problem).__name__})")


def run_games(
    backend: Backend[Any],
    task: Callable[..., GameRun],
    games: Sequence[tuple[str, str]],
    arguments: tuple[Any, ...],
    done: Callable[[GameRun, int], None] | None = None,
) -> list[GameRun]:
    """Run ``task(text, file, *arguments)`` for each ``(file, text)`` of ``games``, one game per task.

    ``done`` is told of each game as it finishes, with how many have; the runs come back in the order
    of ``games``. A game whose worker died for good comes back with the reason as its problem.
    """
    runs: list[GameRun | None] = [None] * len(games)
    calls = [(text, file, *arguments) for file, text in games]
    for count, outcome in enumerate(backend.map(task, calls), 1):
        run = outcome.value or GameRun(games[outcome.index][0], problem=f"its worker died: {outcome.lost}")
        run = replace(run, reruns=outcome.reruns)
        runs[outcome.index] = run
        if done:
            done(run, count)
    return [run for run in runs if run is not None]


__all__ = ["GameRun", "check_game", "run_games", "solve_game"]
