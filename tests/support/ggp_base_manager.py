"""A game manager that follows ggp-base's rules, for acceptance tests of ``gdl serve``.

Like ggp-base's GameServer it sends whole-second clocks, sends every player START, one PLAY per step
with the previous joint move and STOP, gives each reply the play clock plus one second, and compares a
reply with the legal moves *case-sensitively*, as terms (ggp-base's GdlPool keeps the spelling): a move
that differs from the rules in case is illegal (``IL move``) and replaced by a random legal move. Its
record is ggp-base's: ``errors`` one entry for START then one per step (``TO``, ``CE``, ``IL ...``).
The published rules are the game's file; the manager's own prover is gdl, used only for the legal moves
and the states, which it spells as the rules do.
"""

from __future__ import annotations

import http.client
import random
import re
import time
from typing import Any
from urllib.parse import urlsplit

import gdl

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def term_text(text: str) -> str:
    """A term as ggp-base compares it: its tokens, case kept, spacing normalised."""
    return " ".join(_TOKEN.findall(text))


def _send(url: str, message: str, timeout: float) -> tuple[str | None, str]:
    """The reply and ggp-base's error code ("" when the reply came)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    try:
        connection.request("POST", "/", body=message.encode(), headers={"Content-Type": "text/acl"})
        response = connection.getresponse()
        body = response.read(1 << 20).decode("utf-8", "replace").strip()
        return (body, "") if response.status == 200 else (None, "CE")
    except TimeoutError:
        return None, "TO"
    except OSError:
        return None, "CE"
    finally:
        connection.close()


def play_match(
    game: gdl.Game, urls: list[str], start_clock: int, play_clock: int, match_id: str,
    max_steps: int = 1000, seed: int = 0,
) -> dict[str, Any]:
    """One match between the players at ``urls`` (one per role, in role order); the ggp-base record."""
    rng = random.Random(seed)
    spell = game.spell
    roles = [spell(role) for role in game.roles]
    rules = " ".join(spell(rule) for rule in game.checked.program.rules)
    errors: list[list[str]] = []
    start = [
        _send(url, f"(START {match_id} {role} ({rules}) {start_clock} {play_clock})", start_clock + 1)
        for url, role in zip(urls, roles, strict=True)
    ]
    errors.append([code for _, code in start])
    state = game.initial_state()
    states = [state]
    moves: list[list[str]] = []
    previous = "NIL"
    while not state.is_terminal() and len(moves) < max_steps:
        joint, step_errors = [], []
        for url, role in zip(urls, game.roles, strict=True):
            legal = {term_text(spell(move)): move for move in state.legal_moves(role)}
            reply, code = _send(url, f"(PLAY {match_id} {previous})", play_clock + 1)
            if reply is not None and term_text(reply) in legal:
                joint.append(term_text(reply))
            else:
                if reply is not None:
                    code = f"IL {term_text(reply)}"
                joint.append(rng.choice(sorted(legal)))
            step_errors.append(code)
        errors.append(step_errors)
        moves.append(joint)
        state = state.next(dict(zip(game.roles, joint, strict=True)))
        states.append(state)
        previous = "(" + " ".join(joint) + ")"
    for url in urls:
        _send(url, f"(STOP {match_id} {previous})" if state.is_terminal() else f"(ABORT {match_id})", 5)
    return {
        "matchId": match_id,
        "startClock": start_clock,
        "playClock": play_clock,
        "startTime": round(time.time() * 1000),
        "roles": roles,
        "states": ["( " + " ".join(term_text(spell(f)) for f in sorted(s.fluents(), key=str)) + " )"
                   for s in states],
        "moves": moves,
        "errors": errors,
        "isCompleted": state.is_terminal(),
        # Nature (the role random of GDL-II games such as mastermind) has no goal.
        "goalValues": [goals[r] for r in game.roles if r in goals] if (goals := _goals(state)) else [],
    }


def _goals(state: gdl.State) -> dict[str, int]:
    return state.goals() if state.is_terminal() else {}


def replay(path: str, record: dict[str, Any]) -> None:
    """Check a record against the published rules, names compared case-sensitively as ggp-base does."""
    game = gdl.load(path)
    state = game.initial_state()
    for joint in record["moves"]:
        for role, move in zip(game.roles, joint, strict=True):
            legal = {term_text(game.spell(m)) for m in state.legal_moves(role)}
            assert move in legal, f"{move!r} is not a legal move of {role} as the rules spell it"
        state = state.next(dict(zip(game.roles, joint, strict=True)))
    if record["isCompleted"]:
        goals = state.goals()
        assert state.is_terminal() and record["goalValues"] == [goals[r] for r in game.roles if r in goals]
