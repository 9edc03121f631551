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
from gdl.players import PLAYER_KINDS, assign_roles, make_player, parse_spec


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
    #: Whether Ctrl-C stopped the tournament: ``matches`` holds those played before.
    interrupted: bool = False

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
            "interrupted": self.interrupted,
            "matches": self.matches,
        }


@lru_cache(maxsize=4)
def _load(text: str, file: str, engine: str) -> gdl.Game:
    return gdl.parse(text, engine=engine, file=file)


def play_one(
    text: str, file: str, engine: str, start_clock: float, play_clock: float, max_steps: int | None,
    isolate: bool | None, specs: list[str], seed: int | None, keep_record: bool = False,
) -> dict[str, Any]:
    """One match of the game ``text`` (named ``file``); ``specs`` are in role order, ``isolate`` as for
    :class:`gdl.match.Match`. The game travels as text, since a cluster's workers need not share the
    driver's files; the summary is small, unless ``keep_record`` adds the whole record (ggp-base JSON)
    as ``record``."""
    game = _load(text, file, engine)
    players = {
        role: make_player(spec, None if seed is None else seed * 100 + index)
        for index, (role, spec) in enumerate(zip(game.players, specs, strict=True))
    }
    record = Match(
        game, players, start_clock, play_clock, seed=seed, max_steps=max_steps, isolate=isolate
    ).run()
    summary: dict[str, Any] = {
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
    if keep_record:
        summary["record"] = record.to_json()
    return summary


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
    max_steps: int | None = None,
    on_match: Callable[[int, dict[str, Any] | None, TournamentResult], None] | None = None,
    isolate: bool | None = None,
) -> TournamentResult:
    """Play ``matches`` matches of the game in ``path`` between ``specs`` (one per role, in role order,
    or ``ROLE=SPEC`` for the role a player takes in the first match); a match that has not ended after
    ``max_steps`` steps (None: no limit) is aborted.

    They run on ``backend`` (see :mod:`gdl.backend`), by default ``jobs`` local processes. A match
    whose worker died is played again; one lost for good is recorded as aborted, with the reason.
    ``on_match(i, record, so_far)`` is called as match ``i`` ends, with its record (ggp-base JSON; None
    when it was lost) and the tournament so far (unfinished matches are ``None`` in ``so_far.matches``).
    Ctrl-C stops the matches under way and gives the result of those played before (``interrupted``).
    ``isolate`` is :class:`gdl.match.Match`'s: by default each player of a GDL-II game runs in a process
    of its own; False plays them in their match's process (faster, unsafe with untrusted players).
    """
    text = read_text_file(path)
    game = _load(text, path, engine)
    if len(specs) != len(game.players):
        raise PlayerSpecError(
            f"{len(specs)} players given for the {len(game.players)} role(s) of {game.name}"
        )
    specs = list(assign_roles(game, specs, default=None).values())
    for spec in specs:
        if parse_spec(spec)[0] == "human":
            raise PlayerSpecError("human players cannot play in tournaments (matches run in the background)")
        make_player(spec)  # a bad option is reported now, before any work starts
    if matches < 1:
        raise ValueError(f"the number of matches must be at least 1, got {matches}")
    k = len(specs)
    seats = [[(r + i) % k for r in range(k)] for i in range(matches)]
    calls: list[tuple[Any, ...]] = [
        ([specs[p] for p in seats[i]], None if seed is None else seed + i, *([True] if on_match else []))
        for i in range(matches)
    ]
    summaries: list[dict[str, Any] | None] = [None] * matches
    interrupted = False
    with contextlib.ExitStack() as stack:
        if backend is None:
            backend = stack.enter_context(Processes(jobs))
        common = (text, path, engine, start_clock, play_clock, max_steps, isolate)
        outcomes = backend.map(play_one, calls, common=common, cpus=thinking_players(specs))
        try:
            for done, outcome in enumerate(outcomes, 1):
                summaries[outcome.index] = summary = _summary(outcome, *calls[outcome.index][:2])
                summary["seats"] = seats[outcome.index]
                if on_match:
                    on_match(outcome.index, summary.pop("record", None), _tally(game, specs, summaries))
                if progress:
                    progress(done, matches)
        except KeyboardInterrupt:  # the backend stopped the matches under way
            interrupted = True
    return _tally(game, specs, summaries, interrupted)


def _tally(
    game: gdl.Game, specs: list[str], summaries: list[dict[str, Any] | None], interrupted: bool = False
) -> TournamentResult:
    """The standings over the matches that have ended (the others are None, and kept as None in the
    result's matches while the tournament goes on, left out once it was interrupted)."""
    standings = [Standing(spec) for spec in specs]
    result = TournamentResult(game.name, game.players, standings, [], interrupted=interrupted)
    for summary in summaries:
        if summary is None:
            if not interrupted:
                result.matches.append(summary)  # type: ignore[arg-type]  # None only while matches play
            continue
        result.matches.append(summary)
        seats = summary["seats"]
        for role, player in enumerate(seats):
            standings[player].errors += summary["errors"][role]
        if summary["goals"] is None:
            result.aborted += 1
            continue
        for role, player in enumerate(seats):
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
