"""Demand-driven evaluation by the magic-set rewriting: compute only the facts some query can use.

Bottom-up evaluation computes every fact of every relation, even where a rule only ever asks whether
one particular fact holds. Chess asks ``(not (threatened ?player ?kx ?ky ?u ?v))`` for the squares of
its own king and moves, yet its rules define ``threatened`` for every square, ignoring every other
square: millions of facts per state, of which a few dozen are ever looked at.

The rewriting passes bindings sideways, as a top-down prover would. A call of a rewritable relation
with some arguments bound (an *adornment*: which argument positions are bound) reads a copy of the
relation guarded by a *magic* relation holding the bound arguments that were asked for; magic facts are
derived from the guard and the literals that bind the call (its *sideways information passing*). Two
users need two variants of it, and :func:`rewrite_rules` takes them as options:

- The Datalog evaluator (:func:`rewrite`) makes one copy per adornment (``adorn=True``), and binds in
  the order the body is written (:func:`written_order`: GDL is written for Prolog, so that order binds
  what later literals need). Relations asked with nothing bound keep their name and rules, so the
  queries read the same relations as before.
- Grounding (:mod:`gdl.ground.relaxed`) must keep one atom per fact of the game, so it gives each
  relation a single adornment, the positions bound in every use (``adorn=False``), and binds with the
  literals of other relations first (:func:`bound_first_order`), since it plans its own joins.

Only positive literals (and ``distinct``) feed magic rules, so a magic relation never depends on a
negation it was not already below. The rewritten program still has to pass the checker's
stratification; when it does not, the caller keeps the original program.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from gdl.datalog.plan import split_disjunctions
from gdl.syntax.model import Atom, Distinct, Literal, Not, Or, Program, Rule, Term, Variable

#: Which argument positions of a call are bound, as a string of ``b`` and ``f``.
Adornment = str
#: A rule without ``or``: its head and body.
Conjunction = tuple[Atom, Sequence[Literal]]
#: A call of a rewritable relation, as a sideways order finds it: the index of its literal in the body,
#: its atom, the indexes of the literals before it that bind it, and the variables they (and the guard)
#: bind.
Call = tuple[int, Atom, list[int], set[str]]
#: A sideways order: given a body, the variables bound on entry and the rewritable relations, the order
#: of the rewritten body (indexes into the body) and each call of a rewritable relation.
Order = Callable[[Sequence[Literal], set[str], Collection[str]], tuple[list[int], list[Call]]]
#: Given a magic head, the literals that may feed it (the guard and the call's binders) and the whole
#: body, the body of the magic rule.
Feed = Callable[[Atom, list[Literal], Sequence[Literal]], list[Literal]]

#: Joins the parts of generated names: ";" starts a comment in KIF, so no name of a program has it, and
#: generated names never clash with the program's (a program's "~" did: wrong legal moves, silently).
SEPARATOR = ";"


def adorned_name(relation: str, adornment: Adornment) -> str:
    return f"{relation}{SEPARATOR}{adornment}"


#: How the name of a magic relation starts.
MAGIC = f"magic{SEPARATOR}"


def magic_name(relation: str, adornment: Adornment) -> str:
    return f"{MAGIC}{relation}{SEPARATOR}{adornment}"


def original_name(relation: str) -> str:
    """The relation of the program that a magic or adorned relation was made for (others: itself)."""
    return relation.removeprefix(MAGIC).partition(SEPARATOR)[0]


@dataclass(frozen=True)
class MagicProgram:
    """The rewritten program, and the relations it copied for bound calls (for reports and tests)."""

    program: Program
    #: (relation, arity, adornment) of every adorned copy.
    adorned: frozenset[tuple[str, int, Adornment]]


@dataclass(frozen=True)
class Rewritten:
    """One conjunction rewritten for one adornment of its head (None: the relation as it is asked)."""

    #: The index of the conjunction in the rules rewritten.
    source: int
    adornment: Adornment | None
    rule: tuple[Atom, tuple[Literal, ...]]
    #: The magic rules of the bound calls in its body.
    magic: tuple[tuple[Atom, tuple[Literal, ...]], ...]


def rewrite(
    program: Program, queries: Iterable[str], rewritable: Iterable[str], *, tests: bool = True
) -> MagicProgram:
    """The program restricted by demand from ``queries`` (relation names, asked with nothing bound),
    one copy per adornment, in written order.

    Only calls of ``rewritable`` relations are adorned; every other relation (facts, relations computed
    once and shared, inputs such as ``true``) is read as it is. Without ``tests``, a magic rule leaves
    out the calls before it that bind nothing it needs (see :func:`binding_feed`).
    """
    dynamic = frozenset(rewritable)
    out = [rule for rule in program.rules if rule.head.relation not in dynamic]
    asked = [rule for rule in program.rules if rule.head.relation in dynamic]
    conjunctions: list[Conjunction] = []
    rule_of: list[int] = []
    for number, rule in enumerate(asked):
        has_or = any(isinstance(literal, Or) for literal in rule.body)
        for head, body in split_disjunctions(rule) if has_or else [(rule.head, rule.body)]:
            conjunctions.append((head, body))
            rule_of.append(number)
    feed = None if tests else binding_feed
    rewritten = rewrite_rules(conjunctions, queries, dynamic, adorn=True, order=written_order, feed=feed)
    by_rule: dict[tuple[int, Adornment | None], list[Rewritten]] = {}
    for item in rewritten:
        by_rule.setdefault((rule_of[item.source], item.adornment), []).append(item)
    for (number, adornment), items in by_rule.items():
        rule = asked[number]
        if adornment is None and all(item.rule[1] == conjunctions[item.source][1] for item in items):
            out.append(rule)  # nothing to rewrite: keep the rule with its disjunctions
            continue
        for item in items:
            out.extend(Rule(head, body) for head, body in item.magic)
        out.extend(Rule(item.rule[0], item.rule[1], rule.span) for item in items)
    adorned = {
        (item.rule[0].relation.rpartition(SEPARATOR)[0], item.rule[0].arity, item.adornment)
        for item in rewritten
        if item.adornment is not None
    }
    return MagicProgram(Program(tuple(out), program.source), frozenset(adorned))


def rewrite_rules(
    rules: Sequence[Conjunction],
    queries: Iterable[str],
    rewritable: Collection[str],
    *,
    adorn: bool,
    order: Order,
    compounds: bool = False,
    feed: Feed | None = None,
) -> list[Rewritten]:
    """The rules that answer ``queries`` (asked with nothing bound) with demand passed sideways.

    ``adorn``: one copy of a relation per adornment it is called with, named by :func:`adorned_name`;
    else each relation gets the one adornment bound in every call (a relation with no position bound in
    some call is not rewritten), and its rules keep their name. ``order`` chooses the binders of each
    call. ``compounds``: a compound argument whose variables are bound counts as bound (else only ground
    terms and bound variables do: demands are then made only of values already present in facts, never
    of new terms). ``feed`` shapes the body of each magic rule (by default, the guard and the binders).

    Every rule of a relation that is not rewritable is kept (and read for calls); a rewritable relation's
    rules are kept for each adornment some query or call asks for. The result follows the order of
    ``rules``, each rewritten rule before the magic rules of its calls.
    """
    defined = {head.relation for head, _ in rules}
    asked = set(queries)
    candidates = frozenset(relation for relation in rewritable if relation in defined)
    # A query is a call with nothing bound: with one adornment per relation, it is not rewritten.
    single = {} if adorn else _single_adornments(rules, candidates - asked, order, compounds)
    if not adorn:
        candidates = frozenset(single)
    rules_of: dict[tuple[str, int], list[int]] = {}
    for number, (head, _) in enumerate(rules):
        rules_of.setdefault((head.relation, head.arity), []).append(number)
    todo: list[tuple[str, int, Adornment | None]] = [
        (relation, arity, None)
        for relation, arity in rules_of
        if relation in asked or relation not in candidates
    ]
    done: set[tuple[str, int, Adornment | None]] = set(todo)

    def call(atom: Atom, known: set[str]) -> tuple[Atom, Adornment | None]:
        """What a body reads for ``atom``, with ``known`` variables bound; schedules the rules it needs."""
        if atom.relation not in candidates:
            return atom, None
        if adorn:
            adornment = "".join("b" if _bindable(arg, known, compounds) else "f" for arg in atom.args)
            target = adorned_name(atom.relation, adornment)
        else:
            adornment, target = single[atom.relation], atom.relation
        key = (atom.relation, atom.arity, adornment if "b" in adornment else None)
        if key not in done:
            done.add(key)
            todo.append(key)
        if "b" not in adornment:
            return atom, None
        return Atom(target, atom.args, atom.span), adornment

    found: list[Rewritten] = []
    while todo:
        relation, arity, adornment = todo.pop()
        for number in rules_of.get((relation, arity), ()):
            rewritten = _rewrite_rule(number, rules[number], adornment, candidates, adorn, order, None, call)
            found.append(rewritten)
    found.sort(key=lambda item: item.source)  # stable: a rule's adornments in the order they were asked
    if feed is None:
        return found
    # The feed may name what it makes in the order it is called (the splitter's auxiliary relations):
    # called in the order of the rules, its results do not depend on the order demands were found in.
    return [
        _rewrite_rule(item.source, rules[item.source], item.adornment, candidates, adorn, order, feed, call)
        for item in found
    ]


def _rewrite_rule(
    number: int,
    rule: Conjunction,
    adornment: Adornment | None,
    candidates: frozenset[str],
    adorn: bool,
    order: Order,
    feed: Feed | None,
    call: Callable[[Atom, set[str]], tuple[Atom, Adornment | None]],
) -> Rewritten:
    """The rule for the relation's copy with ``adornment`` (None: the relation itself), and the magic
    rules of the bound calls in its body."""
    head, body = rule
    guard: list[Literal] = []
    known: set[str] = set()
    if adornment is not None:
        kept = _bound_args(head, adornment)
        guard = [Atom(magic_name(head.relation, adornment), kept, head.span)]
        known = set().union(*map(_names, kept))
        if adorn:
            head = Atom(adorned_name(head.relation, adornment), head.args, head.span)
    sequence, calls = order(body, known, candidates)
    replaced: dict[int, Literal] = {}
    magic: list[tuple[Atom, tuple[Literal, ...]]] = []
    for index, atom, binders, bound in calls:
        target, called = call(atom, bound)
        if called is None:
            continue
        demand = Atom(magic_name(atom.relation, called), _bound_args(atom, called), atom.span)
        # The binders as the rewritten body reads them (a call before this one reads its copy).
        feeding = [*guard, *(replaced.get(binder, body[binder]) for binder in binders)]
        magic.append((demand, tuple(feeding if feed is None else feed(demand, feeding, body))))
        literal = body[index]
        replaced[index] = Not(target, literal.span) if isinstance(literal, Not) else target
    new_body = (*guard, *(replaced.get(index, body[index]) for index in sequence))
    return Rewritten(number, adornment, (head, new_body), tuple(magic))


def binding_feed(head: Atom, feeding: list[Literal], body: Sequence[Literal]) -> list[Literal]:
    """The literals of ``feeding`` a magic rule keeps when calls that only test are left out.

    A call of a rewritten relation is kept only when it is the first literal to bind a variable of the
    demand, or of a literal kept; other atoms (the guard, facts, ``true``) are kept, and a ``distinct``
    whose variables the kept atoms bind. Leaving a test out only makes the demand larger, which is
    sound; and it cuts a dependency of a demand on the relation tested. That matters when the test sits
    above a negation: in ``(<= (legal ?p noop) ... (stuck ?b1 ?p) (true (cell ?b2 ?p)) (stuck ?b2
    ?p))`` with ``(<= (stuck ?b ?p) (not (movable ?p ?b)) ...)``, the demand for the second ``stuck``
    read the first, so it depended on itself through the negation, and the rewritten game could not be
    stratified (crisscross and chinesecheckers4 were then evaluated as written, a thousand times slower).
    """
    first: dict[str, int] = {}
    for position, literal in enumerate(feeding):
        if isinstance(literal, Atom):
            for name in _literal_names(literal):
                first.setdefault(name, position)
    calls = {
        position for position, literal in enumerate(feeding)
        if isinstance(literal, Atom)
        and SEPARATOR in literal.relation
        and not literal.relation.startswith(MAGIC)
    }
    kept = {position for position, literal in enumerate(feeding) if isinstance(literal, Atom)} - calls
    needed = set().union(_names_of(head), *(_literal_names(feeding[position]) for position in kept))
    todo = list(needed)
    while todo:
        binder = first.get(todo.pop())
        if binder is not None and binder not in kept:
            kept.add(binder)
            new = _literal_names(feeding[binder]) - needed
            needed |= new
            todo.extend(new)
    bound = set().union(*(_literal_names(feeding[position]) for position in kept))
    return [
        literal for position, literal in enumerate(feeding)
        if position in kept or (isinstance(literal, Distinct) and _literal_names(literal) <= bound)
    ]


def _names_of(atom: Atom) -> set[str]:
    return {variable.name for variable in atom.variables()}


def _single_adornments(
    rules: Sequence[Conjunction], candidates: frozenset[str], order: Order, compounds: bool
) -> dict[str, Adornment]:
    """For each relation whose every use binds some argument, the positions bound in every use."""
    arity = {head.relation: head.arity for head, _ in rules}
    remaining = set(candidates)
    while True:
        bound = {relation: set(range(arity[relation])) for relation in remaining}
        changed = True
        while changed:
            changed = False
            for head, body in rules:
                known: set[str] = set()
                if head.relation in remaining:
                    for i in bound[head.relation]:
                        known |= _names(head.args[i])
                for _, atom, _, before in order(body, known, remaining)[1]:
                    positions = {i for i, arg in enumerate(atom.args) if _bindable(arg, before, compounds)}
                    if not bound[atom.relation] <= positions:
                        bound[atom.relation] &= positions
                        changed = True
        unbound = {relation for relation in remaining if not bound[relation]}
        if not unbound:
            return {
                relation: "".join("b" if i in bound[relation] else "f" for i in range(arity[relation]))
                for relation in remaining
            }
        remaining -= unbound


def written_order(
    body: Sequence[Literal], known: set[str], rewritable: Collection[str]
) -> tuple[list[int], list[Call]]:
    """Literals in written order, except that a negation or ``distinct`` waits until every variable it
    reads is bound (as safety promises will happen); each call is bound by the literals before it."""
    bound = set(known)
    prefix: list[int] = []
    sequence: list[int] = []
    calls: list[Call] = []
    waiting: list[int] = []

    def add(index: int) -> None:
        literal = body[index]
        atom = literal.atom if isinstance(literal, Not) else literal
        if isinstance(atom, Atom) and atom.relation in rewritable:
            calls.append((index, atom, list(prefix), set(bound)))
        sequence.append(index)
        if not isinstance(literal, Not):
            prefix.append(index)
            bound.update(_literal_names(literal))

    for index, literal in enumerate(body):
        if isinstance(literal, Not | Distinct) and not _literal_names(literal) <= bound:
            waiting.append(index)
            continue
        add(index)
        for ready in [w for w in waiting if _literal_names(body[w]) <= bound]:
            waiting.remove(ready)
            add(ready)
    for index in waiting:
        add(index)  # unsafe as written; the checker reports it on the original program
    return sequence, calls


def bound_first_order(
    body: Sequence[Literal], known: set[str], rewritable: Collection[str]
) -> tuple[list[int], list[Call]]:
    """The body as written; calls are bound by the positive literals of other relations first, then by
    the calls before them, taken with the fewest unbound variables first; negated calls by every
    positive literal."""
    bound = set(known)
    before = [i for i, lit in enumerate(body) if isinstance(lit, Atom) and lit.relation not in rewritable]
    for index in before:
        bound |= _literal_names(body[index])
    pending = [
        index for index, lit in enumerate(body) if isinstance(lit, Atom) and lit.relation in rewritable
    ]
    calls: list[Call] = []
    while pending:
        chosen = min(pending, key=lambda index: len(_literal_names(body[index]) - bound))
        pending.remove(chosen)
        atom = body[chosen]
        assert isinstance(atom, Atom)
        calls.append((chosen, atom, list(before), set(bound)))
        before.append(chosen)
        bound |= _literal_names(atom)
    for index, negated in enumerate(body):
        if isinstance(negated, Not) and negated.atom.relation in rewritable:
            calls.append((index, negated.atom, list(before), set(bound)))
    return list(range(len(body))), calls


def _bound_args(atom: Atom, adornment: Adornment) -> tuple[Term, ...]:
    return tuple(arg for arg, mode in zip(atom.args, adornment, strict=True) if mode == "b")


def _bindable(term: Term, bound: set[str], compounds: bool) -> bool:
    """Whether a call passes ``term`` as bound: a ground term, or a variable already bound, or (with
    ``compounds``) any term whose variables are bound."""
    if compounds:
        return _names(term) <= bound
    return term.is_ground() or (isinstance(term, Variable) and term.name in bound)


def _names(term: Term) -> set[str]:
    return {variable.name for variable in term.variables()}


def _literal_names(literal: Literal) -> set[str]:
    return {variable.name for variable in literal.variables()}
