"""Golden playthroughs of our own games (OpenSpiel style): write them with

    python -m tests.playthroughs.record

from the repository root. Each file follows one random game: for every state its fluents, whether it
is terminal, each role's legal moves and goals, the joint move played and, in a GDL-II game (one with
``sees`` rules), what each role saw after it (``percepts ROLE P1; P2``). Before a file is written
the walk is checked step by step against clingo (tests/support/oracle.py). ``tests/test_game_playthroughs.py``
replays the recorded moves and expects the same text.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import gdl
from gdl.errors import GameDefinitionError
from gdl.syntax.reader import parse_term

HERE = Path(__file__).resolve().parent
GAMES = HERE.parent.parent / "games"
SEED = 2026
SEPARATOR = "; "


def _goals(state: gdl.State) -> str:
    try:
        return SEPARATOR.join(f"{role} {value}" for role, value in state.goals().items())
    except GameDefinitionError:
        return "none"


def render(game: gdl.Game, moves: Sequence[dict[str, str]] | None = None, seed: int = SEED) -> str:
    """The playthrough text; follows ``moves`` when given, else picks moves at random with ``seed``."""
    rng = random.Random(seed)
    lines = [f"game {game.name}", f"roles {' '.join(game.roles)}"]
    state = game.initial_state()
    step = 0
    while True:
        terminal = state.is_terminal()
        lines += [
            "",
            f"state {step}",
            "fluents " + " ".join(sorted(map(str, state.fluents()))),
            f"terminal {str(terminal).lower()}",
            f"goals {_goals(state)}",
        ]
        if terminal:
            break
        legal = {role: [str(m) for m in state.legal_moves(role)] for role in game.roles}
        lines += [f"legal {role} {SEPARATOR.join(legal[role])}" for role in game.roles]
        if moves is None:
            joint = {role: rng.choice(legal[role]) for role in game.roles}
        elif step < len(moves):
            joint = moves[step]
        else:
            break
        lines.append("joint " + SEPARATOR.join(f"{role} {move}" for role, move in joint.items()))
        if game.has_percepts:
            seen = state.percepts(joint)
            lines += [
                " ".join(["percepts", role, SEPARATOR.join(sorted(map(str, seen[role])))]).rstrip()
                for role in game.roles
            ]
        state = state.next(joint)
        step += 1
    return "\n".join(lines) + "\n"


def recorded_moves(text: str) -> list[dict[str, str]]:
    """The joint moves of a playthrough file."""
    moves = []
    for line in text.splitlines():
        if line.startswith("joint "):
            pairs = (part.split(" ", 1) for part in line[len("joint ") :].split(SEPARATOR))
            moves.append({role: move for role, move in pairs})
    return moves


def _check_with_clingo(game: gdl.Game, text: str) -> None:
    from tests.support.oracle import WalkOracle

    oracle = WalkOracle(game.checked.program.rules)
    moves = recorded_moves(text)
    states = [game.initial_state()]
    for joint in moves:
        states.append(states[-1].next(joint))
    steps = oracle.evaluate(
        [s.fluents() for s in states],
        [{role: parse_term(move) for role, move in joint.items()} for joint in moves],
    )
    for i, (state, step) in enumerate(zip(states, steps, strict=True)):
        assert state.is_terminal() == step.terminal, f"{game.name} step {i}: terminal"
        if not step.terminal:
            for role in game.roles:
                assert [str(m) for m in state.legal_moves(role)] == step.legal[role], f"step {i}: legal"
        clingo_goals = SEPARATOR.join(f"{role} {' '.join(step.goals[role])}" for role in game.players)
        if all(len(step.goals[role]) == 1 for role in game.players):
            assert _goals(state) == clingo_goals, f"{game.name} step {i}: goals"
        if i + 1 < len(states):
            assert {str(f) for f in states[i + 1].fluents()} == step.next, f"step {i}: next"
            clingo_sees = getattr(step, "sees", None)  # once the oracle reports percepts
            if clingo_sees is not None:
                seen = states[i].percepts(moves[i])
                for role in game.roles:
                    assert sorted(map(str, seen[role])) == sorted(clingo_sees[role]), f"step {i}: sees"


def main() -> None:
    for path in sorted(GAMES.glob("*.kif")):
        game = gdl.load(path, engine="datalog")
        text = render(game)
        _check_with_clingo(game, text)
        target = HERE / f"{path.stem}.txt"
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
