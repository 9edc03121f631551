"""Match records read for the viewer: gdl's record JSON (:meth:`gdl.match.MatchRecord.to_json`) and
ggp-base's match JSON (Tiltyard's archives), which gdl's extends with a few keys.

A state is the list of its fluents (``( ( cell 1 1 b ) ( control xplayer ) )``), moves are KIF texts,
``errors`` holds one entry for START and then one per step. gdl's keys (``gameName``, ``roles``,
``moveTimes``, ``errorMessages``, ``percepts``) are used when they are there; a ggp-base record names
its roles nowhere, so they are ``role 1``, ``role 2``, ... unless a game is given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gdl.errors import KifSyntaxError, RecordError
from gdl.syntax.model import Term
from gdl.syntax.reader import parse_terms
from gdl.syntax.spelling import spell

#: The role of nature in GDL-II records.
NATURE = "random"


@dataclass(frozen=True)
class Replay:
    """A match record, checked and ready to show: step ``i`` leads from ``states[i]`` by ``moves[i]``."""

    match_id: str
    game: str
    roles: tuple[str, ...]
    players: tuple[str, ...]
    start_clock: float
    play_clock: float
    states: tuple[tuple[Term, ...], ...]
    moves: tuple[tuple[str, ...], ...]
    #: Seconds each role's player took per step (None where the record does not say).
    times: tuple[tuple[float | None, ...], ...]
    #: Per state: the errors that led to it (the first entry: START's), per role ("" for none).
    errors: tuple[tuple[str, ...], ...]
    #: Per step: each role's percepts after it (GDL-II records only; empty otherwise).
    percepts: tuple[tuple[tuple[str, ...], ...], ...]
    goals: tuple[int | None, ...]
    completed: bool
    aborted: bool
    abort_reason: str
    #: How the record spells the names that are not lower case (the terms hold them in lower case).
    spellings: dict[str, str]

    def spell(self, item: object) -> str:
        """A term or name spelled as the record spells it."""
        return spell(item, self.spellings)

    @property
    def gdl2(self) -> bool:
        return bool(self.percepts) or NATURE in self.roles

    @classmethod
    def from_json(
        cls, data: Any, roles: Sequence[str] = (), parsed: Sequence[tuple[Term, ...]] = ()
    ) -> Replay:
        """The record in parsed JSON; ``roles`` name the roles when the record does not; ``parsed`` are
        the fluents of its first states when the caller has them (a live match), so they are not read
        again. :class:`RecordError` says what is wrong and where (a JSON path)."""
        if not isinstance(data, dict):
            raise RecordError(f"$: a match record is a JSON object, not {type(data).__name__}")
        texts = _list(data, "states", str)
        states = tuple(parsed[: len(texts)]) + tuple(
            _state(text, f"$.states[{i}]") for i, text in enumerate(texts) if i >= len(parsed)
        )
        if not states:
            raise RecordError("$.states: a match record has at least one state")
        moves = tuple(
            tuple(_strings(step, f"$.moves[{i}]")) for i, step in enumerate(_list(data, "moves", list))
        )
        width = (
            len(moves[0]) if moves else len(roles or _list(data, "roles", str) or _list(data, "goalValues"))
        )
        named = (
            tuple(_list(data, "roles", str)) or tuple(roles) or tuple(f"role {i + 1}" for i in range(width))
        )
        if len(states) not in (len(moves) + 1, len(moves)):
            raise RecordError(f"$.moves: {len(moves)} steps do not lead through {len(states)} states")
        for i, step in enumerate(moves):
            if len(step) != len(named):
                raise RecordError(f"$.moves[{i}]: {len(step)} moves for {len(named)} roles")
        errors = _errors(data, len(named), len(moves))
        players = tuple(_list(data, "playerNamesFromHost", str)) or ("",) * len(named)
        goals = tuple(_goal(v, f"$.goalValues[{i}]") for i, v in enumerate(_list(data, "goalValues")))
        times = tuple(
            tuple(
                float(t) if isinstance(t, int | float) and math.isfinite(t) else None
                for t in taken
            )
            for taken in _list(data, "moveTimes", list)
        )
        percepts = tuple(
            tuple(tuple(_strings(seen, f"$.percepts[{i}][{r}]")) for r, seen in enumerate(step))
            for i, step in enumerate(_list(data, "percepts", list))
        )
        for i, seen in enumerate(percepts):
            if len(seen) != len(named):
                raise RecordError(f"$.percepts[{i}]: percepts of {len(seen)} roles for {len(named)} roles")
        clocks = [_seconds(data, "startClock"), _seconds(data, "playClock")]
        if "clockSeconds" in data:
            exact = _list(data, "clockSeconds")
            if len(exact) != 2 or not all(
                isinstance(c, int | float) and not isinstance(c, bool) for c in exact
            ):
                raise RecordError("$.clockSeconds: expected two numbers, the start and play clocks")
            clocks = [float(c) for c in exact]
        return cls(
            match_id=str(data.get("matchId", "")),
            game=str(data.get("gameName", "") or _meta_name(data) or data.get("matchId", "")),
            roles=named,
            players=players + ("",) * (len(named) - len(players)),
            start_clock=clocks[0],
            play_clock=clocks[1],
            states=states,
            moves=moves,
            times=times,
            errors=errors,
            percepts=percepts,
            goals=goals,
            completed=bool(data.get("isCompleted", False)),
            aborted=bool(data.get("isAborted", False)),
            abort_reason=str(data.get("abortReason", "")),
            spellings=_spellings(data),
        )


def _list(data: dict[str, Any], key: str, kind: type | None = None) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise RecordError(f"$.{key}: expected a list, got {type(value).__name__}")
    if kind is not None:
        for i, item in enumerate(value):
            if not isinstance(item, kind):
                raise RecordError(f"$.{key}[{i}]: expected a {kind.__name__}, got {type(item).__name__}")
    return value


def _seconds(data: dict[str, Any], key: str) -> float:
    value = data.get(key, 0)
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RecordError(f"$.{key}: a clock is a number of seconds, got {value!r}")
    return float(value)


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"{where}: expected a list of strings")
    return [
        " ".join(v.replace("(", " ( ").replace(")", " ) ").split()).replace("( ", "(").replace(" )", ")")
        for v in value
    ]


def _state(text: str, where: str) -> tuple[Term, ...]:
    try:
        outer = parse_terms(text.strip().removeprefix("(").removesuffix(")"))
    except KifSyntaxError as problem:
        raise RecordError(f"{where}: not a list of fluents: {problem}") from None
    return tuple(outer)


def _goal(value: Any, where: str) -> int | None:
    if value is None or isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise RecordError(f"{where}: a goal is a number or null, got {value!r}")


def _errors(data: dict[str, Any], roles: int, steps: int) -> tuple[tuple[str, ...], ...]:
    """Per state, the errors that led to it; the words (``errorMessages``) where gdl wrote them."""
    found = _list(data, "errorMessages", list) or _list(data, "errors", list)
    rows = [tuple(str(e) if e else "" for e in row) for row in found]
    if len(rows) == steps:  # no START entry
        rows.insert(0, ("",) * roles)
    rows += [("",) * roles] * (steps + 1 - len(rows))
    return tuple(rows[: steps + 1])


def _spellings(data: dict[str, Any]) -> dict[str, str]:
    """The spelling of every name of the states and moves that is not in lower case."""
    texts = [*data.get("states", []), *(m for step in data.get("moves", []) for m in step)]
    words = {w for t in texts if isinstance(t, str) for w in re.findall(r"[^\s()]+", t)}
    return {w.lower(): w for w in sorted(words) if w != w.lower()}


def _meta_name(data: dict[str, Any]) -> str:
    """A ggp-base record's game, from ``gameMetaURL`` (``.../games/ticTacToe/v0/`` names ``ticTacToe``)."""
    parts = [p for p in str(data.get("gameMetaURL", "")).split("/") if p]
    while parts and re.fullmatch(r"v\d+", parts[-1]):
        parts.pop()
    return parts[-1] if len(parts) > 2 else ""
