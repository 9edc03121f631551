"""A brute-force oracle for the bandit-ambush maze, written apart from gdl's game tree and sequence form.

It reads the maze rows itself, enumerates the agent's reduced pure strategies (one move for every
situation the agent can meet while following the strategy) and all the attacker's pure strategies (a
placement and an answer to the alarm on every dangerous place), plays every pair out with its own
simulator (an attack that fails multiplies the payoff by 1 - p; one that succeeds pays 0), and solves the
resulting matrix game with a plain linear program. Only tiny mazes: the number of pure strategies explodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations, islice, product
from math import prod

import highspy
import numpy as np

Cell = tuple[int, int]
#: What the agent knows: the cells it visited, in order, and those where it was attacked and survived.
Knowledge = tuple[tuple[Cell, ...], frozenset[Cell]]
AgentStrategy = dict[Knowledge, Cell]
#: A placement and, for every dangerous cell the alarm may go off on, the move (from, to) or None.
AttackerStrategy = tuple[frozenset[Cell], dict[Cell, tuple[Cell, Cell] | None]]


class TooLarge(Exception):
    """Too many pure strategies to enumerate."""


class Oracle:
    def __init__(self, rows: list[str], bandits: int, success: Fraction) -> None:
        self.rows, self.bandits, self.success = rows, bandits, success
        self.cells = {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "#"}
        self.start = next(cell for cell, ch in self.cells.items() if ch == "S")
        self.goal = next(cell for cell, ch in self.cells.items() if ch == "D")
        self.danger = sorted(cell for cell, ch in self.cells.items() if ch == "E")

    def free_next(self, path: tuple[Cell, ...]) -> list[Cell]:
        r, c = path[-1]
        near = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        return [n for n in near if n in self.cells and n not in path]

    def branches(self, path: tuple[Cell, ...], hit: frozenset[Cell], step: Cell) -> list[Knowledge]:
        """What the agent may know after entering ``step``: attacked there (and survived) or not."""
        longer = (*path, step)
        return [(longer, hit), (longer, hit | {step})] if self.cells[step] == "E" else [(longer, hit)]

    def count_agent_strategies(self, path: tuple[Cell, ...], hit: frozenset[Cell]) -> int:
        if path[-1] == self.goal or not self.free_next(path):
            return 1
        return sum(
            prod(self.count_agent_strategies(*branch) for branch in self.branches(path, hit, step))
            for step in self.free_next(path)
        )

    def agent_strategies(self, path: tuple[Cell, ...], hit: frozenset[Cell]) -> Iterator[AgentStrategy]:
        if path[-1] == self.goal or not self.free_next(path):
            yield {}
            return
        for step in self.free_next(path):
            branches = self.branches(path, hit, step)
            for parts in product(*(list(self.agent_strategies(*branch)) for branch in branches)):
                strategy: AgentStrategy = {(path, hit): step}
                for part in parts:
                    strategy.update(part)
                yield strategy

    def first_alarms(self) -> set[Cell]:
        """Dangerous cells next to a cell reachable from S without entering a dangerous cell or D: the
        only cells where the alarm can go off (an answer elsewhere is never used)."""
        reached, todo, found = {self.start}, [self.start], set()
        while todo:
            r, c = todo.pop()
            for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if self.cells.get(n) == "E":
                    found.add(n)
                elif n in self.cells and self.cells[n] != "D" and n not in reached:
                    reached.add(n)
                    todo.append(n)
        return found

    def attacker_strategies(self) -> Iterator[AttackerStrategy]:
        first = self.first_alarms()
        for placed in combinations(self.danger, self.bandits):
            alarms = [cell for cell in self.danger if cell not in placed and cell in first]
            answers = []
            for alarm in alarms:
                targets = [cell for cell in self.danger if cell not in placed and cell != alarm]
                answers.append([None, *((b, t) for b in placed for t in targets)])
            for chosen in product(*answers):
                yield frozenset(placed), dict(zip(alarms, chosen, strict=True))

    def payoff(self, agent: AgentStrategy, attacker: AttackerStrategy) -> Fraction:
        placed, answers = attacker
        where = set(placed)
        path: tuple[Cell, ...] = (self.start,)
        hit: frozenset[Cell] = frozenset()
        alive, gold, seen_danger = Fraction(1), 0, False
        while True:
            if path[-1] == self.goal:
                return alive * (10 + gold)
            if not self.free_next(path):
                return Fraction(0)
            step = agent[(path, hit)]
            path = (*path, step)
            gold += self.cells[step] == "G"
            if self.cells[step] == "E":
                if step in where:
                    alive *= 1 - self.success
                    hit = hit | {step}
                elif not seen_danger and answers[step] is not None:
                    moved = answers[step]
                    assert moved is not None
                    where = (where - {moved[0]}) | {moved[1]}
                seen_danger = True

    def value(self, most: int = 10**6) -> float:
        """The game's value; :class:`TooLarge` when the payoff matrix would pass ``most`` entries."""
        attackers = list(islice(self.attacker_strategies(), most + 1))
        count = self.count_agent_strategies((self.start,), frozenset())
        if count * len(attackers) > most:
            raise TooLarge(f"{count} x {len(attackers)} pure strategies")
        agents = list(self.agent_strategies((self.start,), frozenset()))
        matrix = np.array([[float(self.payoff(a, b)) for b in attackers] for a in agents])
        return solve_matrix_game(matrix)


def solve_matrix_game(matrix: np.ndarray) -> float:
    """The value of the zero-sum matrix game (row player maximises): max v, x^T A >= v, sum x = 1."""
    rows, columns = matrix.shape
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    inf = highspy.kHighsInf
    for _ in range(rows):
        h.addVar(0.0, inf)
    h.addVar(-inf, inf)  # v
    h.changeColCost(rows, -1.0)  # minimise -v
    for j in range(columns):
        # sum_i x_i A_ij - v >= 0
        h.addRow(0.0, inf, rows + 1, np.arange(rows + 1, dtype=np.int32), np.append(matrix[:, j], -1.0))
    h.addRow(1.0, 1.0, rows, np.arange(rows, dtype=np.int32), np.ones(rows))
    h.run()
    return float(h.getSolution().col_value[rows])
