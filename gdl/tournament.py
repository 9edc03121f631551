"""Tournaments: many matches between the same players, in parallel (processes or a cluster), roles rotated.

>>> from gdl.tournament import run_tournament
>>> result = run_tournament("games/tictactoe.kif", ["minimax", "random"], matches=4, play_clock=0.5)
>>> [s.losses for s in result.standings][0]
0

Match ``i`` gives role ``r`` to player ``(r + i) mod k`` (k roles, k players), so with two players
they swap sides every match. A player *wins* a match when its goal is higher than every other
role's, *loses* when some other role's goal is higher, and *draws* otherwise; in a single-player game
a win is goal 100 and a loss goal 0. Aborted matches are counted apart and left out of the standings.
"""

from __future__ import annotations

import contextlib
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import gdl
from gdl.backend import Backend, Outcome, Processes
from gdl.errors import PlayerSpecError
from gdl.files import read_text_file
from gdl.match import Match
from gdl.players import PLAYER_KINDS, make_player, parse_spec


@dataclass
class Standing:
    """How one player did over the tournament."""

    spec: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    errors: int = 0
    goals: list[int] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.goals) if self.goals else math.nan

    @property
    def ci95(self) -> float:
        """Half-width of the normal-approximation 95 % confidence interval of the mean goal."""
        if len(self.goals) < 2:
            return math.nan
        return 1.96 * statistics.stdev(self.goals) / math.sqrt(len(self.goals))


@dataclass
class TournamentResult:
    game: str
    roles: tuple[str, ...]
    standings: list[Standing]
    matches: list[dict[str, Any]]
    aborted: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "roles": list(self.roles),
            "standings": [
                {
                    "player": s.spec, "wins": s.wins, "draws": s.draws, "losses": s.losses,
                    "errors": s.errors, "mean": s.mean, "ci95": s.ci95,
                }
                for s in self.standings
            ],
            "aborted": self.aborted,
            "matches": self.matches,
        }


@lru_cache(maxsize=4)
def _load(text: str, file: str, engine: str) -> gdl.Game:
    return gdl.parse(text, engine=engine, file=file)


def play_one(
    text: str, file: str, engine: str, start_clock: float, play_clock: float,
    specs: list[str], seed: int | None,
) -> dict[str, Any]:
    """One match of the game ``text`` (named ``file``); ``specs`` are in role order. The game travels as
    text, since a cluster's workers need not share the driver's files; the summary is small."""
    game = _load(text, file, engine)
    players = {
        role: make_player(spec, None if seed is None else seed * 100 + index)
        for index, (role, spec) in enumerate(zip(game.players, specs, strict=True))
    }
    record = Match(game, players, start_clock, play_clock, seed=seed).run()
    return {
        "players": specs,
        "goals": [record.goals[r] for r in game.players] if record.completed else None,
        "errors": [record.error_count(r) for r in game.players],
        "errorMessages": sorted({
            error for step in [record.start_errors, *record.errors, record.stop_errors]
            for error in step.values() if error
        }),
        "steps": len(record.moves),
        "abortReason": record.abort_reason,
    }


def thinking_players(specs: list[str]) -> int:
    """How many CPUs a match keeps busy: one per player that thinks (searches), at least one."""
    return max(1, sum(PLAYER_KINDS[parse_spec(spec)[0]].thinks for spec in specs))


def run_tournament(
    path: str,
    specs: list[str],
    matches: int,
    *,
    start_clock: float = 1.0,
    play_clock: float = 1.0,
    jobs: int | None = None,
    seed: int | None = None,
    engine: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    backend: Backend[Any] | None = None,
) -> TournamentResult:
    """Play ``matches`` matches of the game in ``path`` between ``specs`` (one per role).

    They run on ``backend`` (see :mod:`gdl.backend`), by default ``jobs`` local processes. A match
    whose worker died is played again; one lost for good is recorded as aborted, with the reason.
    """
    text = read_text_file(path)
    game = _load(text, path, engine)
    for spec in specs:
        if parse_spec(spec)[0] == "human":
            raise PlayerSpecError("human players cannot play in tournaments (matches run in the background)")
        make_player(spec)  # a bad option is reported now, before any work starts
    if len(specs) != len(game.players):
        raise ValueError(f"{len(specs)} players given for the {len(game.players)} role(s) of {game.name}")
    if matches < 1:
        raise ValueError(f"the number of matches must be at least 1, got {matches}")
    k = len(specs)
    seats = [[(r + i) % k for r in range(k)] for i in range(matches)]
    calls = [([specs[p] for p in seats[i]], None if seed is None else seed + i) for i in range(matches)]
    summaries: list[dict[str, Any] | None] = [None] * matches
    with contextlib.ExitStack() as stack:
        if backend is None:
            backend = stack.enter_context(Processes(jobs))
        common = (text, path, engine, start_clock, play_clock)
        outcomes = backend.map(play_one, calls, common=common, cpus=thinking_players(specs))
        for done, outcome in enumerate(outcomes, 1):
            summaries[outcome.index] = _summary(outcome, *calls[outcome.index])
            if progress:
                progress(done, matches)
    standings = [Standing(spec) for spec in specs]
    result = TournamentResult(game.name, game.players, standings, [])
    for i, summary in enumerate(summaries):
        assert summary is not None
        summary["seats"] = seats[i]
        result.matches.append(summary)
        for role, player in enumerate(seats[i]):
            standings[player].errors += summary["errors"][role]
        if summary["goals"] is None:
            result.aborted += 1
            continue
        for role, player in enumerate(seats[i]):
            _score(standings[player], role, summary["goals"])
    return result


def _summary(outcome: Outcome[dict[str, Any]], specs: list[str], seed: int | None) -> dict[str, Any]:
    """A match's summary; a lost match is aborted with the reason; ``reruns`` says why earlier runs
    of a match were lost (the key is there only when some were)."""
    if outcome.value is None:
        summary: dict[str, Any] = {
            "players": specs, "goals": None, "errors": [0] * len(specs), "errorMessages": [], "steps": 0,
            "abortReason": f"its worker died: {outcome.lost}",
        }
    else:
        summary = outcome.value
    if outcome.reruns:
        summary["reruns"] = list(outcome.reruns)
    return summary


def _score(standing: Standing, role: int, goals: list[int]) -> None:
    mine = goals[role]
    standing.goals.append(mine)
    others = [g for r, g in enumerate(goals) if r != role]
    best_other = max(others) if others else None
    if best_other is None:
        won, lost = mine == 100, mine == 0
    else:
        won, lost = mine > best_other, mine < best_other
    standing.wins += won
    standing.losses += lost
    standing.draws += not won and not lost
