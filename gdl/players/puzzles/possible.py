"""Whether a goal can still be reached from a state: a sound test by the rules, without grounding them.

A puzzle whose rules cannot be grounded (sudoku's ``exactlyFirst`` has 387 million instances) is
searched over its own states, and a blind search of them never finds a grid whose every row, column and
square is right. :class:`Possibility` cuts that search: it answers whether ``(goal role value)`` may hold
in any state reachable from a given one, by solving the goal's rules top down over an abstraction of
every such state, and answers "no" only when no reachable state can satisfy them:

- ``(true f)`` may hold for a fluent true now, or one that some ``next`` rule may add (its body may
  hold, a ``(does r m)`` in it standing for ``(legal r m)``);
- ``(not (true f))`` fails only for a fluent true now that stays true (a rule ``(<= (next f) (true
  f))``): marks on a board, once made;
- relations that depend on neither ``true`` nor ``does`` are solved exactly, and a literal of one whose
  variables are partly bound is checked for a solution at once (forward checking: a row holding two 5s
  fails as soon as the second is read, not after the other seven cells are enumerated);
- every other negated literal, ``does`` aside, may hold.

Each literal is judged alone, so the test is coarse (two cells' marks are not tied together) but sound:
a state reachable from this one satisfies every literal the test lets through. Rules it cannot follow
(recursion through the fluents a move adds) and work past :data:`STEPS` end the test with "may hold".
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence

from gdl.errors import DeadlinePassedError
from gdl.players.puzzles.clauses import (
    Binding,
    Clause,
    Literal,
    Value,
    Var,
    add_free,
    clauses_of,
    is_ground,
    pattern_key,
    rename,
    resolve,
    unify,
    unify_all,
    variables,
)
from gdl.syntax.model import Rule

#: Steps (literals tried) one test may take before it gives up and answers "may hold".
STEPS = 200_000
#: Steps between two looks at the clock.
CLOCK_EVERY = 256
#: Answers kept (about static relations, and across states), past which they are forgotten and worked
#: out again.
MEMO_LIMIT = 400_000


#: A read of the state an answer depended on: the fluents matching a pattern, or whether a fluent is
#: true; an answer holds in another state where every one of its reads gives the same.
_Read = tuple[str, Value, object]


class _GiveUp(Exception):
    """The test met rules it does not follow, or ran out of steps: the goal may hold."""


class Possibility:
    """The test for the rules ``rules`` (a checked game's); see the module doc."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.clauses = clauses_of(rules)
        self.static = self._static_relations()
        #: Relations given by facts alone, their facts' arguments.
        self.facts = {relation: [clause.head for clause in clauses]
                      for relation, clauses in self.clauses.items()
                      if all(not clause.body and not clause.variables for clause in clauses)}
        # Fluents that stay true once true: the patterns of rules (<= (next f) (true f)).
        self.kept: list[Value] = []
        self.adding: list[Clause] = []
        # A rule reading (true f) for its own f only keeps a fluent already true: it adds none.
        for clause in self.clauses.get("next", []):
            keeps = [lit for lit in clause.body if lit.kind == "pos" and lit.relation == "true"
                     and lit.args == clause.head]
            if not keeps:
                self.adding.append(clause)
            elif len(clause.body) == 1:
                self.kept.append(clause.head[0])
        self._static_memo: dict[tuple[object, ...], bool] = {}
        self._fact_memo: dict[tuple[object, ...], list[tuple[Value, ...]]] = {}
        # The state asked about: its fluents by functor, and by (functor, argument number, constant).
        self._by_functor: dict[object, list[Value]] = {}
        self._by_argument: dict[tuple[object, int, object], list[Value]] = {}
        self._state_set: frozenset[Value] = frozenset()
        # Answers for this state, with the reads of the state each made; answers of ground literals kept
        # across states, used again while every read they made reads the same (see _reread).
        self._memo: dict[tuple[object, ...], tuple[object, frozenset[_Read]]] = {}
        self._lasting: dict[tuple[object, ...], tuple[bool, frozenset[_Read]]] = {}
        self._recorders: list[set[_Read]] = []
        self._adding_now: set[tuple[object, ...]] = set()
        self._steps = 0
        self._deadline = float("inf")

    def _static_relations(self) -> frozenset[str]:
        """The relations that depend on neither ``true`` nor ``does``."""
        dynamic = {"true", "does"}
        changed = True
        while changed:
            changed = False
            for relation, clauses in self.clauses.items():
                if relation not in dynamic and any(
                        lit.relation in dynamic for clause in clauses for lit in clause.body):
                    dynamic.add(relation)
                    changed = True
        return frozenset(set(self.clauses) - dynamic)

    def may_hold(
        self, fluents: Iterable[Value], relation: str, args: Sequence[Value], deadline: float = float("inf")
    ) -> bool:
        """Whether ``(relation args...)`` (ground values) may hold in a state reachable from the state
        of ``fluents`` (a sound test: False is a proof that it holds in none). Raises
        :class:`gdl.errors.DeadlinePassedError` past ``deadline`` (:func:`time.monotonic`, read every
        :data:`CLOCK_EVERY` steps)."""
        self._deadline = deadline
        self._by_functor = {}
        self._by_argument = {}
        for fluent in fluents:
            functor = fluent[0] if isinstance(fluent, tuple) else fluent
            self._by_functor.setdefault(functor, []).append(fluent)
            if isinstance(fluent, tuple):
                for number, arg in enumerate(fluent[1:]):
                    if isinstance(arg, str):
                        self._by_argument.setdefault((functor, number, arg), []).append(fluent)
        self._state_set = frozenset(v for values in self._by_functor.values() for v in values)
        self._memo = {}
        for memo in (self._static_memo, self._lasting):
            if len(memo) > MEMO_LIMIT:
                memo.clear()
        self._recorders = []
        self._adding_now = set()
        self._steps = 0
        try:
            return self._exists((Literal("pos", relation, tuple(args)),), {})
        except (_GiveUp, RecursionError):
            return True

    def _step(self) -> None:
        self._steps += 1
        if self._steps > STEPS:
            raise _GiveUp
        if not self._steps % CLOCK_EVERY and time.monotonic() >= self._deadline:
            raise DeadlinePassedError("the test of whether a goal may be reached ran out of time")

    # The search: generators of bindings under which a conjunction may hold.

    def _exists(self, goals: tuple[Literal, ...], binding: Binding) -> bool:
        """Whether the conjunction ``goals`` may hold: as :meth:`_solve`, but split into parts that share
        no unbound variable, each solved once (a part of static relations alone remembered for good)."""
        self._step()
        if not goals:
            return True
        if len(goals) == 1:
            literal = goals[0]
            if literal.kind == "pos" and literal.relation != "true" and literal.relation not in self.facts:
                if literal.relation in self.static:
                    return self._static_exists(literal, binding)
                if all(is_ground(arg, binding) for arg in literal.args):
                    return self._ground_may_hold(literal, binding)
                return self._clauses_hold(literal, binding)
        else:
            parts = self._parts(goals, binding)
            if len(parts) > 1:
                return all(self._part_exists(part, binding) for part in parts)
        return any(self._exists(rest, extended) for rest, extended in self._branches(goals, binding))

    def _part_exists(self, part: tuple[Literal, ...], binding: Binding) -> bool:
        if len(part) == 1 or not all(lit.relation in self.static or lit.kind == "distinct" for lit in part):
            return self._exists(part, binding)
        key = ("part", *pattern_key([(lit.kind, lit.relation, *lit.args) for lit in part], binding))
        known = self._static_memo.get(key)
        if known is None:
            known = self._exists(part, binding)
            self._static_memo[key] = known
        return known

    @staticmethod
    def _parts(goals: tuple[Literal, ...], binding: Binding) -> list[tuple[Literal, ...]]:
        """``goals`` grouped into parts connected by unbound variables (each ground literal alone)."""
        owner: dict[Var, list[Literal]] = {}
        groups: list[list[Literal]] = []
        for literal in goals:
            free: set[Var] = set()
            for arg in literal.args:
                add_free(arg, binding, free)
            joined: list[list[Literal]] = []
            for var in free:
                group = owner.get(var)
                if group is not None and not any(group is other for other in joined):
                    joined.append(group)
            if not joined:
                into: list[Literal] = []
                groups.append(into)
            else:
                into = joined[0]
                for other in joined[1:]:
                    into.extend(other)
                    other.clear()
                    for var, group in owner.items():
                        if group is other:
                            owner[var] = into
            into.append(literal)
            for var in free:
                owner[var] = into
        return [tuple(group) for group in groups if group]

    def _clauses_hold(self, literal: Literal, binding: Binding) -> bool:
        """Whether a rule for ``literal`` may give an instance of it."""
        relation = "legal" if literal.relation == "does" else literal.relation
        for clause in self.clauses.get(relation, []):
            head, body = rename(clause)
            unified = unify_all(literal.args, head, binding)
            if unified is not None and self._exists(body, unified):
                return True
        return False

    def _solve(self, goals: tuple[Literal, ...], binding: Binding) -> Iterator[Binding]:
        self._step()
        if not goals:
            yield binding
            return
        for rest, extended in self._branches(goals, binding):
            yield from self._solve(rest, extended)

    def _branches(
        self, goals: tuple[Literal, ...], binding: Binding
    ) -> Iterator[tuple[tuple[Literal, ...], Binding]]:
        """The literals left and the binding, for each answer to the literal solved next (see
        :meth:`_pick`) under which every static literal left may still hold."""
        index = self._pick(goals, binding)
        literal = goals[index]
        rest = goals[:index] + goals[index + 1:]
        for extended in self._answers(literal, binding):
            if extended is binding or self._forward_check(rest, extended):
                yield rest, extended

    def _pick(self, goals: tuple[Literal, ...], binding: Binding, now: bool = False) -> int:
        """The literal to solve next: a test (ground, or a negation or ``distinct`` once ground) first,
        then the one of fewest candidates among fluents (with ``now``, among those true now), then other
        relations, static ones last."""
        best, best_rank = 0, float("inf")
        for index, literal in enumerate(goals):
            ground = all(is_ground(arg, binding) for arg in literal.args)
            if ground:
                return index
            if literal.kind != "pos":
                continue  # not ready: a safe rule binds its variables elsewhere
            rank: float
            if literal.relation == "true":
                free = len(set(variables((resolve(literal.args[0], binding),))))
                if now:
                    rank = len(self._matching(resolve(literal.args[0], binding), note=False))
                elif free > 1:
                    rank = 1e4 * free  # not worth listing: most fluents of a kind, say
                else:
                    # The order of the search does not change its answer: no read of the state is noted.
                    recorders, self._recorders = self._recorders, []
                    try:
                        rank = len(self._fluents(literal.args[0], binding))
                    finally:
                        self._recorders = recorders
            elif literal.relation in self.facts:
                rank = len(self._matching_facts(literal, binding))
            else:
                # Rules: unknown, the fewer the more arguments are bound; static ones after the others.
                free = sum(not is_ground(arg, binding) for arg in literal.args)
                rank = (1e6 if literal.relation in self.static else 1e5) * (1 + free)
            if rank < best_rank:
                best, best_rank = index, rank
                if rank <= 1:
                    break
        return best

    def _matching_facts(self, literal: Literal, binding: Binding) -> list[tuple[Value, ...]]:
        """The facts of ``literal``'s relation (one given by facts alone) that match it."""
        key = (literal.relation, *pattern_key(literal.args, binding))
        found = self._fact_memo.get(key)
        if found is None:
            found = [fact for fact in self.facts[literal.relation]
                     if unify_all(literal.args, fact, binding) is not None]
            self._fact_memo[key] = found
        return found

    def _forward_check(self, goals: tuple[Literal, ...], binding: Binding) -> bool:
        """Whether every static literal left, partly bound, still has a solution."""
        for literal in goals:
            if literal.kind == "pos" and literal.relation in self.static and \
                    any(is_ground(arg, binding) for arg in literal.args) and \
                    not self._static_exists(literal, binding):
                return False
        return True

    def _static_exists(self, literal: Literal, binding: Binding) -> bool:
        key = (literal.relation, *pattern_key(literal.args, binding))
        known = self._static_memo.get(key)
        if known is None:
            known = self._clauses_hold(literal, binding)
            self._static_memo[key] = known
        return known

    def _answers(self, literal: Literal, binding: Binding) -> Iterator[Binding]:
        ground = all(is_ground(arg, binding) for arg in literal.args)
        if literal.kind == "distinct":
            if resolve(literal.args[0], binding) != resolve(literal.args[1], binding):
                yield binding
            return
        if literal.kind == "neg":
            if self._negation_may_hold(literal, binding):
                yield binding
            return
        if ground:
            if self._ground_may_hold(literal, binding):
                yield binding
            return
        if literal.relation == "true":
            for fluent in self._fluents(literal.args[0], binding):
                unified = unify(literal.args[0], fluent, binding)
                if unified is not None:
                    yield unified
            return
        if literal.relation in self.facts:
            for fact in self._matching_facts(literal, binding):
                unified = unify_all(literal.args, fact, binding)
                if unified is not None:
                    yield unified
            return
        yield from self._clause_answers(literal, binding)

    def _negation_may_hold(self, literal: Literal, binding: Binding) -> bool:
        if literal.relation in self.static:
            return not self._static_exists(Literal("pos", literal.relation, literal.args), binding)
        if literal.relation == "true":
            return not self._stays_true(resolve(literal.args[0], binding))
        if literal.relation == "does" or not all(is_ground(arg, binding) for arg in literal.args):
            return True
        return not self._surely(Literal("pos", literal.relation, literal.args), binding, 0)

    def _stays_true(self, fluent: Value) -> bool:
        """Whether ``fluent`` is true now and stays true (a rule keeps it)."""
        return self._is_true(fluent) and any(unify(kept, fluent, {}) is not None for kept in self.kept)

    def _surely(self, literal: Literal, binding: Binding, depth: int) -> bool:
        """Whether ``literal`` (ground, of a relation derived from the state) holds in every state
        reachable from this one: a rule for it whose body holds by fluents that stay true, static
        relations and ``distinct`` alone. (Not followed: other relations, and nesting past 32.)"""
        key = ("surely", literal.relation, *pattern_key(literal.args, binding))
        known = self._recalled(key)
        if known is not None:
            return bool(known[0])
        self._recorders.append(set())
        try:
            held = depth < 32 and any(
                self._surely_all(body, unified, depth)
                for head, body in map(rename, self.clauses.get(literal.relation, []))
                for unified in (unify_all(literal.args, head, binding),) if unified is not None)
        finally:
            reads = frozenset(self._recorders.pop())
        self._remember(key, (held, reads))
        return held

    def _surely_all(self, goals: tuple[Literal, ...], binding: Binding, depth: int) -> bool:
        self._step()
        if not goals:
            return True
        index = self._pick(goals, binding, now=True)
        literal = goals[index]
        rest = goals[:index] + goals[index + 1:]
        ground = all(is_ground(arg, binding) for arg in literal.args)
        if literal.relation in self.static or literal.kind == "distinct":
            answers: Iterable[Binding] = self._answers(literal, binding)
        elif literal.kind == "pos" and literal.relation == "true":
            pattern = resolve(literal.args[0], binding)
            answers = (unified for fluent in self._matching(pattern) if self._stays_true(fluent)
                       for unified in (unify(pattern, fluent, binding),) if unified is not None)
        elif literal.kind == "pos" and ground and literal.relation != "does":
            answers = (binding,) if self._surely(literal, binding, depth + 1) else ()
        else:
            return False
        return any(self._surely_all(rest, extended, depth) for extended in answers)

    def _ground_may_hold(self, literal: Literal, binding: Binding) -> bool:
        if literal.relation in self.static:
            return self._static_exists(literal, binding)
        if literal.relation == "true":
            fluent = resolve(literal.args[0], binding)
            return fluent in self._fluents(fluent, {})
        key = ("holds", literal.relation, *pattern_key(literal.args, binding))
        known = self._recalled(key)
        if known is None:
            lasting = self._lasting.get(key)
            if lasting is not None and all(self._reread(read) for read in lasting[1]):
                known = lasting
            else:
                self._recorders.append(set())
                try:
                    held = self._clauses_hold(literal, binding)
                finally:
                    reads = frozenset(self._recorders.pop())
                known = (held, reads)
                self._lasting[key] = known
            self._remember(key, known)
        return bool(known[0])

    def _recalled(self, key: tuple[object, ...]) -> tuple[object, frozenset[_Read]] | None:
        """An answer for this state, its reads passed on to the answers being worked out."""
        known = self._memo.get(key)
        if known is not None:
            for recorder in self._recorders:
                recorder |= known[1]
        return known

    def _remember(self, key: tuple[object, ...], known: tuple[object, frozenset[_Read]]) -> None:
        self._memo[key] = known
        for recorder in self._recorders:
            recorder |= known[1]

    def _note(self, read: _Read) -> None:
        for recorder in self._recorders:
            recorder.add(read)

    def _reread(self, read: _Read) -> bool:
        """Whether ``read`` reads the same in this state."""
        kind, value, seen = read
        now = self._is_true(value, note=False) if kind == "in" else self._matching(value, note=False)
        return now == seen

    def _is_true(self, fluent: Value, note: bool = True) -> bool:
        held = fluent in self._state_set
        if note:
            self._note(("in", fluent, held))
        return held

    def _matching(self, pattern: Value, note: bool = True) -> frozenset[Value]:
        """The fluents true now that match ``pattern`` (resolved)."""
        if isinstance(pattern, tuple):
            candidates = self._by_functor.get(pattern[0], [])
            for number, arg in enumerate(pattern[1:]):
                if isinstance(arg, str):
                    narrower = self._by_argument.get((pattern[0], number, arg), [])
                    if len(narrower) < len(candidates):
                        candidates = narrower
        elif isinstance(pattern, Var):
            candidates = [v for values in self._by_functor.values() for v in values]
        else:
            candidates = self._by_functor.get(pattern, [])
        found = frozenset(fluent for fluent in candidates if unify(pattern, fluent, {}) is not None)
        if note:
            self._note(("match", pattern, found))
        return found

    def _clause_answers(self, literal: Literal, binding: Binding) -> Iterator[Binding]:
        relation = "legal" if literal.relation == "does" else literal.relation
        for clause in self.clauses.get(relation, []):
            head, body = rename(clause)
            unified = unify_all(literal.args, head, binding)
            if unified is not None:
                yield from self._solve(body, unified)

    def _fluents(self, pattern: Value, binding: Binding) -> list[Value]:
        """The fluents matching ``pattern`` that may be true: true now, or added by a move."""
        key = ("fluents", *pattern_key((pattern,), binding))
        known = self._recalled(key)
        if known is not None:
            return known[0]  # type: ignore[return-value]
        if key in self._adding_now:
            raise _GiveUp  # a fluent added only through itself: not followed
        self._adding_now.add(key)
        self._recorders.append(set())
        try:
            found = sorted(self._matching(resolve(pattern, binding)), key=repr)
            seen = set(found)
            for clause in self.adding:
                head, body = rename(clause)
                unified = unify(pattern, head[0], binding)
                if unified is None:
                    continue
                for answer in self._solve(body, unified):
                    fluent = resolve(head[0], answer)
                    if not is_ground(fluent, {}):
                        raise _GiveUp
                    if fluent not in seen:
                        seen.add(fluent)
                        found.append(fluent)
        finally:
            reads = frozenset(self._recorders.pop())
            self._adding_now.discard(key)
        self._remember(key, (found, reads))
        return found

    def precondition(self, role: Value, move: Value) -> tuple[object, ...]:
        """What makes ``move`` legal for ``role`` in a state: the literals of its ``legal`` rules that
        read the state, instantiated by the move. Moves with the same precondition (the moves that fill
        one cell of a grid; every move, where none reads the state) come and go together."""
        found: list[object] = []
        for clause in self.clauses.get("legal", []):
            head, body = rename(clause)
            unified = unify_all((role, move), head, {})
            if unified is not None:
                reading = [lit for lit in body if lit.relation not in self.static and lit.kind != "distinct"]
                found.append(pattern_key([(lit.kind, lit.relation, *lit.args) for lit in reading], unified))
        return tuple(found)
