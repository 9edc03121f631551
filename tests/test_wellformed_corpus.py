"""Dynamic well-formedness over the whole corpus with a small budget (slow: run with ``-m slow``).

No game may crash the analysis, and every verdict must be honest: nothing universal is claimed
without a complete exploration, and every counterexample replays with legal moves to a state that
shows the failure. Where the exploration completes on a small game that declares ``base`` and
``input``, clingo counts the reachable states independently.
"""

from __future__ import annotations

import importlib.util
from collections import deque
from pathlib import Path
from types import ModuleType

import pytest
from support.clingo_gdl import ClingoGame
from support.corpus import corpus_items
from support.paths import CORPUS

import gdl
from gdl.errors import GameDefinitionError
from gdl.wellformed import PROPERTIES, Counterexample

MAX_STATES = 300

CORPUS_GAMES = corpus_items(lambda: sorted((CORPUS / "games").glob("*.kif")), at_least=183)
UNIVERSAL = ("terminating", "playable", "goals_defined", "monotonic")


def replay(game: gdl.Game, example: Counterexample) -> list[gdl.State]:
    states = [game.initial_state()]
    for joint in example.moves:
        states.append(states[-1].next(dict(zip(game.roles, joint, strict=True))))
    return states


def shows_failure(game: gdl.Game, example: Counterexample, players: list[str]) -> bool:
    states = replay(game, example)
    final = states[-1]
    if example.property == "terminating" or example.cycle_start is not None:
        # a cycle: of non-termination, or a play that keeps a role from 100 by going round one
        return example.cycle_start is not None and states[example.cycle_start] == final
    if example.property == "playable":
        try:
            return not final.is_terminal() and not all(final.legal_moves(r) for r in game.roles)
        except GameDefinitionError:
            return True
    if example.property in ("goals_defined", "monotonic"):
        if example.property == "goals_defined" and not final.is_terminal():
            return False
        after, before = goals(final, players), goals(states[-2] if len(states) > 1 else final, players)
        return len(after) < len(players) or any(after[r] < before.get(r, after[r]) for r in after)
    return final.is_terminal()


def goals(state: gdl.State, players: list[str]) -> dict[str, int]:
    """The players that have exactly one goal value, and that value (read role by role)."""
    reasoner = state.game.reasoner
    data = reasoner.from_fluents(state.fluents())
    result = {}
    for role in players:
        values = reasoner.goals(data, state.game.role_index(role))
        if len(values) == 1 and str(values[0]).isdigit():
            result[role] = int(str(values[0]))
    return result


def clingo_count(path: Path) -> int:
    oracle = ClingoGame(path)
    seen = {oracle.initial}
    queue = deque([oracle.initial])
    while queue:
        state = queue.popleft()
        if oracle.terminal(state):
            continue
        for joint in oracle.joint_moves(state):
            successor = oracle.next(state, joint)
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return len(seen)


def _table_script() -> ModuleType:
    path = Path(__file__).resolve().parent / "tools" / "wellformedness_table.py"
    spec = importlib.util.spec_from_file_location("wellformedness_table", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS_GAMES, ids=lambda p: p.stem if p else "corpus-absent")
def test_corpus_game_analysis_is_honest(path: Path, corpus: Path) -> None:
    # Each game runs as `gdl check --dynamic --json` in its own process, with a memory limit: a game
    # the engine cannot ground must fail alone and with a clear message, not with a traceback.
    _, result, _ = _table_script().run(path, MAX_STATES, 3.0)
    if isinstance(result, str):
        assert result == "timeout" or result.startswith("error: gdl check: "), result
        return
    assert result["reachable_states"] <= MAX_STATES
    for prop in PROPERTIES:
        assert result[prop] in (True, False, None)
    if not result["complete"]:
        assert all(result[p] is not True for p in UNIVERSAL)
        assert result["longest_play"] is None
    players = [role for role in result["roles"] if role != "random"]
    for prop in PROPERTIES:
        if result[prop] is False and (prop != "strongly_winnable" or len(result["roles"]) == 1):
            assert any(c["property"] == prop for c in result["counterexamples"]), prop
    if result["counterexamples"]:
        game = gdl.load(path)
        for example in result["counterexamples"]:
            assert result[example["property"]] is False
            moves = tuple(tuple(joint[role] for role in game.roles) for joint in example["moves"])
            counterexample = Counterexample(
                example["property"], example["message"], moves, example["cycle_start"]
            )
            assert shows_failure(game, counterexample, players), example
    text = path.read_text(encoding="utf-8").lower()
    if result["complete"] and "(base" in text and "(input" in text:
        assert result["reachable_states"] == clingo_count(path)
