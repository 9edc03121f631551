"""Engines against the Datalog evaluator: random walks compared step by step, and the games they use."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from gdl.check import CheckedProgram, check_text
from gdl.engines.compiled import DEFAULT_CODE_LIMIT, CompiledReasoner
from gdl.engines.datalog import DatalogReasoner
from gdl.engines.native_layout import DEPTH_LIMIT, NO_LEGAL_MOVE, SIZES, SWAP_INPUTS, TERMINAL
from gdl.errors import GameTooLargeError
from gdl.ground.grounding import term_of
from support.corpus import corpus_games

#: Corpus games of the default run: the benchmark games, recursion (cycle blocks), or, many roles.
QUICK = (
    "tictactoe", "connectfour", "breakthrough", "buttons", "hanoi", "nim1", "blocks", "eightpuzzle",
    "3pconnectfour", "ggpbase_test_case_5a", "ggpbase_test_distinct_beginning_rule", "coins",
)


def checked_game(path: Path) -> CheckedProgram:
    result = check_text(path.read_text(encoding="utf-8"), str(path))
    assert result.checked is not None
    return result.checked


def disagreements(
    checked: CheckedProgram, seeds: range, max_steps: int, code_limit: int = DEFAULT_CODE_LIMIT
) -> list[str]:
    """Walk at random with the compiled engine and the Datalog evaluator side by side."""
    compiled = CompiledReasoner(checked, code_limit=code_limit)
    reference = DatalogReasoner(checked)
    problems = []
    if compiled.roles != reference.roles:
        return [f"roles {compiled.roles} != {reference.roles}"]
    for seed in seeds:
        rng = random.Random(seed)
        ours, theirs = compiled.initial(), reference.initial()
        for step in range(max_steps + 1):
            where = f"seed {seed} step {step}"
            if compiled.fluents(ours) != reference.fluents(theirs):
                problems.append(f"{where}: states differ")
                break
            terminal = compiled.terminal(ours)
            if terminal != reference.terminal(theirs):
                problems.append(f"{where}: terminal differs (compiled {terminal})")
            legal = []
            for role in range(len(compiled.roles)):
                legal.append(compiled.legal(ours, role))
                if legal[-1] != reference.legal(theirs, role):
                    problems.append(f"{where}: legal moves of role {role} differ")
                goals = sorted(compiled.goals(ours, role), key=str)
                if goals != sorted(reference.goals(theirs, role), key=str):
                    problems.append(f"{where}: goals of role {role} differ")
            if terminal or not all(legal) or problems:
                break
            joint = [rng.choice(moves) for moves in legal]
            ours, theirs = compiled.next(ours, joint), reference.next(theirs, joint)
    return problems


#: Corpus games (of the 172 that are not GDL-II) that instantiate within the default budgets: 165 in
#: docs/engines.md, a few fewer allowed for the CPU-time budget on a busy machine.
INSTANTIATING = 160


def corpus_problems(
    corpus: Path, compare: Callable[[CheckedProgram], list[str]], at_least: int = INSTANTIATING
) -> list[str]:
    """The problems ``compare`` finds in every corpus game that instantiates; fewer than ``at_least``
    games compared is a problem too (a walk that silently checks less must not pass)."""
    problems, compared, passed_over = [], 0, []
    for path in corpus_games(corpus):
        result = check_text(path.read_text(encoding="utf-8"), str(path))
        if result.checked is None:
            passed_over.append(f"{path.stem} (does not check)")
            continue
        try:
            problems += [f"{path.stem}: {p}" for p in compare(result.checked)]
            compared += 1
        except GameTooLargeError:
            passed_over.append(f"{path.stem} (too large)")
        except SyntaxError as problem:
            # The Datalog evaluator's generated code can nest too deeply (statespacelarge); not ours.
            passed_over.append(f"{path.stem} (no reference: {problem})")
    if compared < at_least:
        problems.append(f"only {compared} games compared, at least {at_least} expected; not: {passed_over}")
    return problems


#: reach is recursive through the state: the network needs a cycle block.
REACH = """
(role r) (edge a b) (edge b c) (edge c a) (edge c d)
(init (link a b)) (init (at a))
(<= (reach ?x ?y) (true (link ?x ?y)))
(<= (reach ?x ?z) (true (link ?x ?y)) (reach ?y ?z))
(<= (legal r (add ?x ?y)) (edge ?x ?y) (not (true (link ?x ?y))))
(legal r wait)
(<= (next (link ?x ?y)) (true (link ?x ?y)))
(<= (next (link ?x ?y)) (does r (add ?x ?y)))
(<= (next (at ?x)) (true (at ?x)))
(<= terminal (reach a d) (reach d d))
(<= terminal (true (link c d)) (true (link b c)) (true (link c a)))
(<= (goal r 100) (reach a a))
(<= (goal r 0) (not (reach a a)))
"""


def reach_game() -> CheckedProgram:
    """:data:`REACH` checked, with the cycle block it is there for."""
    checked = check_text(REACH).checked
    assert checked is not None
    assert CompiledReasoner(checked).net.cycles
    return checked


#: Corpus games with cycle blocks in their networks (cubicup_3player) or simultaneous moves, beside QUICK.
MORE = ("cubicup_3player", "connectfoursimultaneous", "roshambo2", "simultaneoustictactoe", "gt_prisoner")


def replay_disagreements(
    checked: CheckedProgram, seeds: range, max_depth: int, starts: tuple[int, ...] = (), swap: int = -1
) -> list[str]:
    """Replay the recorded walks of the kernel through the Datalog evaluator, step by step: from the
    initial state, or from each of ``starts`` in turn (walking one seed from each); with ``swap`` 0 or
    1, the kernel takes inputs back that way, whichever its calibration chose."""
    compiled = CompiledReasoner(checked)
    net = compiled.net
    reference = DatalogReasoner(checked)
    roles = range(len(net.roles))
    fluents = [term_of(f) for f in net.fluents]
    legal_terms = [[term_of(move) for move, _ in entries] for entries in net.legal]
    goal_terms = [[term_of(value) for value, _ in entries] for entries in net.goals]
    columns, start = [], len(fluents)
    for entries in net.legal:
        columns.append(range(start, start + len(entries)))
        start += len(entries)
    problems = []
    for seed in seeds:
        origin = starts[seed % len(starts)] if starts else compiled.initial()
        # The kernel the reasoner plays from ``origin`` (gdl.engines.folding).
        kernel = compiled.kernels.of(origin)
        if swap >= 0:
            kernel.section(SIZES)[SWAP_INPUTS] = swap
        walk, rows = kernel.trace(origin, seed, max_depth)
        state = reference.from_fluents(compiled.fluents(origin))
        for step in range(walk.depth + 1):
            where = f"seed {seed} step {step}"
            row = rows[step]
            if {f for f, value in zip(fluents, row, strict=False) if value} != reference.fluents(state):
                return [*problems, f"{where}: states differ"]
            for role in roles:
                moves = tuple(m for m, k in zip(legal_terms[role], columns[role], strict=True) if row[k])
                if moves != reference.legal(state, role):
                    problems.append(f"{where}: legal moves of role {role} differ")
            if step < walk.depth:
                if reference.terminal(state):
                    problems.append(f"{where}: the kernel went on from a terminal state")
                chosen = row[start:]
                state = reference.next(state, [legal_terms[r][chosen[r]] for r in roles])
        if compiled.fluents(walk.state) != reference.fluents(state):
            problems.append(f"seed {seed}: the last state differs")
        terminal = reference.terminal(state)
        if walk.outcome == TERMINAL:
            if not terminal:
                problems.append(f"seed {seed}: the kernel stopped at a state that is not terminal")
            for role in roles:
                values = list(reference.goals(state, role))
                goal = walk.goals[role]
                # -1 when not exactly one goal value holds (pentago's rules give some ends two).
                if values != [goal_terms[role][goal]] if goal >= 0 else len(values) == 1:
                    problems.append(f"seed {seed}: goals of role {role} differ")
        elif walk.outcome == NO_LEGAL_MOVE:
            if terminal or all(reference.legal(state, role) for role in roles):
                problems.append(f"seed {seed}: the kernel found no legal move where there is one")
        elif terminal or walk.outcome != DEPTH_LIMIT or walk.depth != max_depth:
            problems.append(f"seed {seed}: stopped early ({walk.outcome}) at depth {walk.depth}")
    return problems


#: A game that counts 0, 1, 2, 3 and then has no legal move (its terminal state is never reached).
COUNTING_GAME = """
(role r) (init (n 0)) (succ 0 1) (succ 1 2) (succ 2 3)
(<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
(<= (legal r go) (true (n ?x)) (succ ?x ?y))
(<= terminal (true (n 9)))
(goal r 50)
"""
