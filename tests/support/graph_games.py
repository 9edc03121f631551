"""Small explicit games as a graph (states, terminal flags, goal values that may be missing, each role's
moves, a successor for every joint move), written as GDL: what the property tests of the dynamic checks
and of the solvers draw."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

Joint = tuple[int, ...]


@dataclass(frozen=True)
class GraphGame:
    names: tuple[str, ...]  # the second role may be GDL-II's random, which needs no goals
    terminal: tuple[bool, ...]
    goals: tuple[tuple[int | None, ...], ...]  # per state, per role
    moves: tuple[tuple[int, ...], ...]  # per state, per role: how many moves
    successor: dict[tuple[int, Joint], int]

    def joints(self, state: int) -> list[Joint]:
        return list(itertools.product(*(range(n) for n in self.moves[state])))

    def kif(self) -> str:
        names = self.names
        lines = [f"(role {name})" for name in names]
        lines += ["(init (at s0))", "(<= terminal (true (at never)))", "(<= (goal r0 0) (true (at never)))"]
        lines.append("(<= (legal r0 m0) (true (at never)))")
        for state, terminal in enumerate(self.terminal):
            if terminal:
                lines.append(f"(<= terminal (true (at s{state})))")
            for role, value in enumerate(self.goals[state]):
                if value is not None:
                    lines.append(f"(<= (goal {names[role]} {value}) (true (at s{state})))")
            for role, count in enumerate(self.moves[state]):
                lines += [f"(<= (legal {names[role]} m{m}) (true (at s{state})))" for m in range(count)]
            for joint in self.joints(state):
                does = " ".join(f"(does {names[role]} m{m})" for role, m in enumerate(joint))
                target = self.successor[(state, joint)]
                lines.append(f"(<= (next (at s{target})) (true (at s{state})) {does})")
        return "\n".join(lines)
