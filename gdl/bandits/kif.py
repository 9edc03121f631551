"""The bandit-ambush maze as a GDL-II game (``gdl bandits MAZE --kif OUT.kif``).

The roles are ``agent``, ``attacker`` and ``random`` (nature). The rules are those of
:mod:`gdl.bandits.game`, with two changes of form that GDL-II demands and that keep the game's
value:

- Nature moves uniformly, so an attack that succeeds with probability p = a/b is a roll of a b-sided
  die (``(roll 1)`` ... ``(roll b)``) that succeeds on 1 to a.
- In GDL-II every player knows how many steps have been played. Were the bandits to answer the alarm
  when it goes off, they would learn how long the agent's way to its first dangerous place was, which
  the game does not tell them. So the attacker's one move, at the start, is a plan: its placement and
  its answer to an alarm on each dangerous place where the agent may enter first
  (``(plan P A1 ... Am)``). A plan is exactly a reduced pure strategy of the bandits in the extensive
  form (they never learn anything before the alarm and act only there), so both games have the same
  reduced normal form and the same value.

Goals are 0..100: the agent's is its payoff (10 plus the gold at ``D``, else 0), the attacker's 100
minus it (a constant-sum game with the same equilibria as the zero-sum one).
"""

from __future__ import annotations

from collections import deque
from math import comb

from gdl.bandits.game import Play, placements, relocations
from gdl.bandits.maze import DANGER, DESTINATION, GOLD, OBSTACLE, Maze, Square
from gdl.errors import BanditsExportError

#: The most die sides the export accepts (p = 0.123 needs 1000).
MAX_SIDES = 1000
#: The most facts describing the attacker's plans the export writes.
MAX_PLAN_FACTS = 100_000


def first_dangers(maze: Maze) -> tuple[Square, ...]:
    """The dangerous places the agent may enter first: next to a square it can reach from ``S``
    without entering a dangerous place or ``D``. In reading order."""
    seen = {maze.start}
    queue = deque([maze.start])
    found: set[Square] = set()
    while queue:
        square = queue.popleft()
        for near in maze.neighbours(square):
            symbol = maze.symbol(near)
            if symbol == DANGER:
                found.add(near)
            elif symbol != DESTINATION and near not in seen:
                seen.add(near)
                queue.append(near)
    return tuple(square for square in maze.dangerous if square in found)


def _at(square: Square) -> str:
    return f"{square[0]} {square[1]}"


def _facts(maze: Maze) -> list[str]:
    lines = ["; The maze: the open squares' neighbours (up, down, left, right), and what squares hold."]
    height, width = len(maze.rows), len(maze.rows[0])
    for row in range(height):
        for column in range(width):
            square = (row, column)
            symbol = maze.symbol(square)
            if symbol == OBSTACLE:
                continue
            lines.extend(f"(adjacent {_at(square)} {_at(near)})" for near in maze.neighbours(square))
            if symbol == DANGER:
                lines.append(f"(danger {_at(square)})")
            elif symbol == GOLD:
                lines.append(f"(goldsquare {_at(square)})")
            elif symbol == DESTINATION:
                lines.append(f"(destination {_at(square)})")
    return lines


def _plans(maze: Maze) -> tuple[list[str], list[str]]:
    """Facts and rules of the attacker's plans: placements, where the alarm may go off, the answers."""
    alarms = first_dangers(maze)
    # At most, per placement: its name, k placed bandits, and 1 + k x |E| answers per alarm square.
    k, places = maze.bandits, len(maze.dangerous)
    bound = comb(places, k) * (1 + k + len(alarms) * (1 + k * places))
    if bound > MAX_PLAN_FACTS:
        raise BanditsExportError(
            f"the attacker's plans would take up to {bound} facts; the export writes {MAX_PLAN_FACTS} at most"
        )
    facts = ["; The attacker's plans: a placement, and an answer to the alarm wherever it can go off."]
    facts.extend(f"(alarmsquare {index} {_at(square)})" for index, square in enumerate(alarms, 1))
    for number, placement in enumerate(placements(maze), 1):
        name = f"p{number}"
        facts.append(f"(placement {name})")
        facts.extend(f"(placed {name} {_at(square)})" for square in sorted(placement))
        for index, square in enumerate(alarms, 1):
            if square in placement:
                facts.append(f"(answer {name} {index} none)")
                continue
            # The rules' own answers to an alarm there (the path before does not matter to them).
            alarmed = Play((maze.start, square), frozenset(), placement, placement, True, 0)
            for move in relocations(maze, alarmed):
                answer = "stay" if move is None else f"(shift {_at(move[0])} {_at(move[1])})"
                facts.append(f"(answer {name} {index} {answer})")
    answers = " ".join(f"?a{index}" for index in range(1, len(alarms) + 1))
    plan = f"(plan ?p{' ' + answers if answers else ''})"
    body = "".join(f" (answer ?p {index} ?a{index})" for index in range(1, len(alarms) + 1))
    rules = [
        f"(<= (legal attacker {plan}) (true (control place)) (placement ?p){body})",
        "(<= (legal attacker noop) (not (true (control place))))",
        f"(<= (next (bandit ?r ?c)) (does attacker {plan}) (placed ?p ?r ?c))",
    ]
    rules.extend(
        f"(<= (next (answerat ?r ?c ?a{index})) (does attacker {plan}) (alarmsquare {index} ?r ?c))"
        for index in range(1, len(alarms) + 1)
    )
    return facts, rules


RULES = """\
; The agent walks to a neighbouring open square it has not visited.
(<= (legal agent (move ?r2 ?c2))
    (true (control walk)) (true (at ?r ?c)) (adjacent ?r ?c ?r2 ?c2) (not (true (visited ?r2 ?c2))))
(<= (legal agent noop) (not (true (control walk))))
(<= (legal random noop) (not (true (control attack))))
(<= (legal random (roll ?i)) (true (control attack)) (side ?i))

(<= (next (at ?r ?c)) (does agent (move ?r ?c)))
(<= (next (at ?r ?c)) (true (at ?r ?c)) (does agent noop))
(<= (next (visited ?r ?c)) (does agent (move ?r ?c)))
(<= (next (visited ?r ?c)) (true (visited ?r ?c)))
(<= collecting (does agent (move ?r ?c)) (goldsquare ?r ?c))
(<= (next (gold ?m)) collecting (true (gold ?n)) (succ ?n ?m))
(<= (next (gold ?n)) (true (gold ?n)) (not collecting))
(<= (next (answerat ?r ?c ?a)) (true (answerat ?r ?c ?a)))

; The alarm: the first dangerous place entered holds no bandit. The plan says what the bandits do.
(<= (alarm ?r ?c) (does agent (move ?r ?c)) (danger ?r ?c) (not (true (bandit ?r ?c))) (not (true alarmed)))
(<= (next alarmed) (true alarmed))
(<= (next alarmed) (does agent (move ?r ?c)) (danger ?r ?c))
(<= (leaves ?r1 ?c1) (alarm ?r ?c) (true (answerat ?r ?c (shift ?r1 ?c1 ?r2 ?c2))))
(<= (arrives ?r2 ?c2) (alarm ?r ?c) (true (answerat ?r ?c (shift ?r1 ?c1 ?r2 ?c2))))
(<= (next (bandit ?r ?c)) (true (bandit ?r ?c)) (not (leaves ?r ?c)))
(<= (next (bandit ?r ?c)) (arrives ?r ?c))

; An ambush: the agent enters a bandit's square, sees it is attacked, and the die decides.
(<= ambush (does agent (move ?r ?c)) (true (bandit ?r ?c)))
(<= (sees agent (attacked ?r ?c)) (does agent (move ?r ?c)) (true (bandit ?r ?c)))
(<= (next (control attack)) ambush)
(<= (next (control walk)) (true (control place)))
(<= (next (control walk)) (does agent (move ?r ?c)) (not ambush))
(<= (next (control walk)) (does random (roll ?i)) (not (hit ?i)))
(<= (next caught) (does random (roll ?i)) (hit ?i))

(<= arrived (true (at ?r ?c)) (destination ?r ?c))
(<= canmove (true (at ?r ?c)) (adjacent ?r ?c ?r2 ?c2) (not (true (visited ?r2 ?c2))))
(<= terminal arrived)
(<= terminal (true caught))
(<= terminal (true (control walk)) (not canmove))

(<= (goal agent ?v) arrived (true (gold ?n)) (reward ?n ?v ?w))
(<= (goal attacker ?w) arrived (true (gold ?n)) (reward ?n ?v ?w))
(<= (goal agent 0) (not arrived))
(<= (goal attacker 100) (not arrived))
"""


def bandits_kif(maze: Maze) -> str:
    """The maze's game as GDL-II text; :class:`BanditsExportError` when it cannot be written."""
    golds = len(maze.squares(GOLD))
    if 10 + golds > 100:
        raise BanditsExportError(f"{golds} gold squares: GDL goals stop at 100, so 90 gold at most")
    sides, hits = maze.success.denominator, maze.success.numerator
    if sides > MAX_SIDES:
        raise BanditsExportError(
            f"p = {maze.success} needs a die of {sides} sides for random; the export allows {MAX_SIDES}"
        )
    drawing = "\n".join(f";   {row}" for row in maze.rows)
    facts, plan_rules = _plans(maze)
    lines = [
        "; The bandit-ambush maze, written by `gdl bandits --kif` (see docs/bandits.md):",
        drawing,
        f"; {maze.bandits} bandit(s); an attack succeeds with probability {maze.success}.",
        "; Squares are (row column) from 0, the top-left being (0 0).",
        "",
        "(role agent)",
        "(role attacker)",
        "(role random)",
        "",
        f"(init (at {_at(maze.start)}))",
        f"(init (visited {_at(maze.start)}))",
        "(init (gold 0))",
        "(init (control place))",
        "",
        *_facts(maze),
        "",
        f"; The die of an attack: {sides} side(s), success on the first {hits}.",
        *(f"(side {side})" for side in range(1, sides + 1)),
        *(f"(hit {side})" for side in range(1, hits + 1)),
        "",
        "; Gold counts and payoffs: (reward GOLD AGENT ATTACKER).",
        *(f"(succ {n} {n + 1})" for n in range(golds)),
        *(f"(reward {n} {10 + n} {90 - n})" for n in range(golds + 1)),
        "",
        *facts,
        "",
        *plan_rules,
        "",
        RULES,
    ]
    return "\n".join(lines)
