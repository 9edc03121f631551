"""Dynamic well-formedness over the whole corpus with a small budget (slow: run with ``-m slow``).

No game may crash the analysis, and every verdict must be honest: nothing universal is claimed
without a complete exploration, and every counterexample replays with legal moves to a state that
shows the failure. Where the exploration completes on a small game that declares ``base`` and
``input``, clingo counts the reachable states independently.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from clingo_gdl import ClingoGame

import gdl
from gdl.errors import GameDefinitionError
from gdl.wellformed import PROPERTIES, Counterexample, Report, analyse

CORPUS_GAMES = sorted((Path(__file__).resolve().parent.parent.parent / "shared/corpus/games").glob("*.kif"))
UNIVERSAL = ("terminating", "playable", "goals_defined", "monotonic")


def replay(game: gdl.Game, example: Counterexample) -> list[gdl.State]:
    states = [game.initial_state()]
    for joint in example.moves:
        states.append(states[-1].next(dict(zip(game.roles, joint, strict=True))))
    return states


def shows_failure(game: gdl.Game, example: Counterexample) -> bool:
    states = replay(game, example)
    final = states[-1]
    if example.property == "terminating":
        return example.cycle_start is not None and states[example.cycle_start] == final
    if example.property == "playable":
        try:
            return not final.is_terminal() and not all(final.legal_moves(r) for r in game.roles)
        except GameDefinitionError:
            return True
    if example.property in ("goals_defined", "monotonic"):
        try:
            after = final.goals()
        except GameDefinitionError:
            return example.property == "monotonic" or final.is_terminal()
        before = states[-2].goals() if len(states) > 1 else after
        return any(after[r] < before[r] for r in game.roles)
    return final.is_terminal()


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


def check_honest(report: Report, game: gdl.Game, max_states: int) -> None:
    assert report.reachable_states <= max_states
    for prop in PROPERTIES:
        assert report.verdict(prop) in (True, False, None)
    if not report.complete:
        assert all(report.verdict(p) is not True for p in UNIVERSAL)
        assert report.longest_play is None
    for prop in PROPERTIES:
        if report.verdict(prop) is False and (prop != "strongly_winnable" or len(game.roles) == 1):
            assert report.counterexample(prop) is not None, prop
    for example in report.counterexamples:
        assert report.verdict(example.property) is False
        assert shows_failure(game, example), example


@pytest.mark.slow
@pytest.mark.parametrize("path", CORPUS_GAMES, ids=[p.stem for p in CORPUS_GAMES])
def test_corpus_game_analysis_is_honest(path: Path, corpus: Path) -> None:
    game = gdl.load(path)
    report = analyse(game, max_states=300, seconds=3.0, playouts=20, depth_limit=300)
    check_honest(report, game, 300)
    text = path.read_text(encoding="utf-8").lower()
    if report.complete and "(base" in text and "(input" in text:
        assert report.reachable_states == clingo_count(path)
