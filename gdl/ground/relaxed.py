"""Exact rewritings of the relaxed program before it is grounded: rules no output needs are dropped, rule
bodies are split by variable elimination, and relations only asked with bound arguments are grounded on
demand."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from gdl.budget import checkpoint
from gdl.datalog.magic import bound_first_order, rewrite_rules
from gdl.datalog.plan import conjunctions
from gdl.ground.facts import Facts
from gdl.ground.grounding import OUTPUT_RELATIONS
from gdl.syntax.model import Atom, Distinct, Function, Literal, Not, Term, Variable


def expand_or(body: tuple[Literal, ...]) -> Iterator[list[Literal]]:
    """The body as a disjunction of conjunctions (``or`` multiplied out, within its bound)."""
    return (list(conjunction) for conjunction in conjunctions(body))


def literal_vars(literal: Literal) -> set[str]:
    return {variable.name for variable in literal.variables()}


class Splitter:
    """Splits rule bodies by eliminating variables into auxiliary relations (bucket elimination).

    A variable that occurs neither in the head nor outside a few literals (its *bucket*) is projected out:
    ``(<= h ... bucket ...)`` becomes ``(<= aux bucket)`` and ``(<= h ... aux ...)``, where ``aux`` keeps
    the bucket's variables still needed elsewhere. Both rules together hold exactly when the original
    does (the eliminated variables are existentially quantified in the body), so grounding stays exact,
    but the ground instances no longer multiply the choices of independent variables: a line of ten
    cells of any colour, or a move's origin when only its target matters, costs a sum instead of a
    product. Identical buckets share one auxiliary relation.
    """

    def __init__(
        self, taken: Iterable[str], dynamic: set[str], static: Facts, strict: bool = False
    ) -> None:
        self.strict = strict
        self.static = static
        self._functional: dict[tuple[str, tuple[int, ...]], bool] = {}
        self.taken = set(taken)
        self.dynamic = dynamic
        self.known: dict[tuple[tuple[str, ...], int], str] = {}
        #: The auxiliary rules made so far, as (head, body).
        self.rules: list[tuple[Atom, list[Literal]]] = []

    def split(self, head: Atom, literals: list[Literal]) -> list[Literal]:
        """The body of ``head``'s rule after eliminating what can be; auxiliary rules go to ``rules``."""
        head_vars = literal_vars(head)
        while True:
            best: tuple[int, int, str, list[Literal], list[str]] | None = None
            every = set().union(*map(literal_vars, literals)) if literals else set()
            for variable in sorted(every - head_vars):
                checkpoint()
                found = self._bucket(variable, literals, head_vars)
                # Strictly, the auxiliary relation is no larger than one of the bucket's relations: a
                # bucket cut off from the literals that bind it in the rule can be a cross product.
                if found is not None and not self._determined(*found) and (not self.strict or any(
                    isinstance(lit, Atom) and set(found[1]) <= literal_vars(lit) for lit in found[0]
                )):
                    bucket, keep = found
                    candidate = (len(keep), len(bucket), variable, bucket, keep)
                    if best is None or candidate[:3] < best[:3]:
                        best = candidate
            if best is None:
                return literals
            _, _, _, bucket, keep = best
            literals = [literal for literal in literals if not any(literal is b for b in bucket)]
            literals.append(self._auxiliary(bucket, keep))

    def _determined(self, bucket: list[Literal], keep: list[str]) -> bool:
        """Whether the kept variables determine the others through static functions (e.g. a successor
        relation): eliminating them would then add a relation as large as the rule, and gain nothing."""
        known = set(keep)
        progress = True
        while progress:
            progress = False
            for literal in bucket:
                if (
                    isinstance(literal, Atom)
                    and literal.relation in self.static.sets
                    and not literal_vars(literal) <= known
                    and self._is_function(literal, known)
                ):
                    known |= literal_vars(literal)
                    progress = True
        return set().union(*map(literal_vars, bucket)) <= known

    def _is_function(self, literal: Atom, known: set[str]) -> bool:
        positions = tuple(i for i, arg in enumerate(literal.args) if term_vars(arg) <= known)
        key = (literal.relation, positions)
        if key not in self._functional:
            facts = self.static.sets[literal.relation]
            self._functional[key] = len({tuple(args[i] for i in positions) for args in facts}) == len(facts)
        return self._functional[key]

    @staticmethod
    def _bucket(
        variable: str, literals: list[Literal], head_vars: set[str]
    ) -> tuple[list[Literal], list[str]] | None:
        """The literals to project ``variable`` out of, and the variables to keep; None when unsafe."""
        bucket = [literal for literal in literals if variable in literal_vars(literal)]
        bound = set().union(*(literal_vars(lit) for lit in bucket if isinstance(lit, Atom)))
        if not bound or any(not literal_vars(lit) <= bound for lit in bucket):
            return None
        # Literals within the bucket's variables narrow it at no cost.
        bucket += [
            literal
            for literal in literals
            if not any(literal is b for b in bucket) and literal_vars(literal) <= bound
        ]
        if len(bucket) >= len(literals):
            return None
        rest = [literal for literal in literals if not any(literal is b for b in bucket)]
        outside = head_vars.union(*map(literal_vars, rest))
        order: list[str] = []
        for literal in bucket:
            for var in literal.variables():
                if var.name in outside and var.name not in order:
                    order.append(var.name)
        return bucket, order

    def _auxiliary(self, bucket: list[Literal], keep: list[str]) -> Atom:
        # Variables renamed in order of appearance, so identical buckets get one relation.
        names: dict[str, str] = {name: f"v{i}" for i, name in enumerate(keep)}
        for literal in bucket:
            for var in literal.variables():
                names.setdefault(var.name, f"v{len(names)}")
        renamed = tuple(str(_rename(literal, names)) for literal in bucket)
        key = (renamed, len(keep))
        relation = self.known.get(key)
        if relation is None:
            relation = self._fresh(bucket)
            self.known[key] = relation
            if any(relation_of(literal) in self.dynamic for literal in bucket):
                self.dynamic.add(relation)
            head = Atom(relation, tuple(Variable(names[name]) for name in keep))
            self.rules.append((head, [_rename(literal, names) for literal in bucket]))
        return Atom(relation, tuple(Variable(name) for name in keep))

    def _fresh(self, bucket: list[Literal]) -> str:
        # A space never occurs in a KIF name, so the auxiliary relations cannot clash with the game's.
        base = " ".join(sorted({relation_of(lit) for lit in bucket} - {""}))
        name = f"aux {base}"
        number = 1
        while name in self.taken:
            number += 1
            name = f"aux{number} {base}"
        self.taken.add(name)
        return name


def relevant(rules: list[tuple[Atom, list[Literal]]]) -> list[tuple[Atom, list[Literal]]]:
    """The rules of the relations some output depends on (the others cannot change what is played)."""
    uses: dict[str, set[str]] = defaultdict(set)
    for head, body in rules:
        uses[head.relation].update(relation_of(literal) for literal in body)
    needed = {*OUTPUT_RELATIONS}
    stack = list(needed)
    while stack:
        for relation in uses.get(stack.pop(), ()):
            if relation not in needed:
                needed.add(relation)
                stack.append(relation)
    return [(head, body) for head, body in rules if head.relation in needed]


def demand(
    rules: list[tuple[Atom, list[Literal]]], dynamic: set[str], taken: set[str], static: Facts
) -> list[tuple[Atom, list[Literal]]]:
    """Rules rewritten so that relations only ever used with some arguments known are grounded on demand.

    The magic-set rewriting (:func:`gdl.datalog.magic.rewrite_rules`) of the relaxed program, one
    adornment per relation: a state-dependent relation ``r`` other than an output, whose every use
    (positive or negated) in a rule body has the arguments at some positions bound by the literals before
    it (non-demand literals first, then demand ones, most bound first; negated ones last), gets a magic
    relation of those arguments: one rule per use derives them from those literals, and every rule of
    ``r`` requires them. Only the atoms of ``r`` some rule instance refers to are derived, each with all
    its rule instances, so the network computes every atom it uses exactly. Magic literals are filters of
    the grounding only: they are not state-dependent, so they never appear in the ground rules.
    """
    rewritable = {
        head.relation
        for head, _ in rules
        if head.relation in dynamic and head.relation not in (*OUTPUT_RELATIONS, "true", "does")
    }
    # The magic rules only filter the grounding: their auxiliary relations are not state-dependent either.
    splitter = Splitter(taken, set(), static, strict=True)

    def feed(head: Atom, feeding: list[Literal], body: Sequence[Literal]) -> list[Literal]:
        connected = _connected(literal_vars(head), feeding)
        known = set().union(*map(literal_vars, connected))
        checks = [
            literal
            for literal in body
            if isinstance(literal, Distinct | Not)
            and relation_of(literal) not in dynamic
            and literal_vars(literal) <= known
        ]
        # Variables of the binders that the demand does not need only multiply its join.
        return splitter.split(head, [*connected, *checks])

    rewritten = rewrite_rules(
        rules, OUTPUT_RELATIONS, rewritable, adorn=False, order=bound_first_order, compounds=True, feed=feed
    )
    found = [(head, list(body)) for item in rewritten for head, body in (item.rule, *item.magic)]
    return [*splitter.rules, *found]


def _connected(wanted: set[str], literals: list[Literal]) -> list[Literal]:
    """The literals linked to ``wanted`` through shared variables (the others only multiply a join)."""
    chosen: list[Literal] = []
    reached = set(wanted)
    rest = list(literals)
    while True:
        linked = [literal for literal in rest if literal_vars(literal) & reached]
        if not linked:
            return [literal for literal in literals if any(literal is c for c in chosen)]
        for literal in linked:
            chosen.append(literal)
            reached |= literal_vars(literal)
        rest = [literal for literal in rest if not any(literal is c for c in linked)]


def term_vars(term: Term) -> set[str]:
    return {variable.name for variable in term.variables()}


def relation_of(literal: Literal) -> str:
    if isinstance(literal, Atom):
        return literal.relation
    if isinstance(literal, Not):
        return literal.atom.relation
    return ""


def _rename_term(term: Term, names: dict[str, str]) -> Term:
    if isinstance(term, Variable):
        return Variable(names[term.name])
    if isinstance(term, Function):
        return Function(term.name, tuple(_rename_term(arg, names) for arg in term.args))
    return term


def _rename(literal: Literal, names: dict[str, str]) -> Literal:
    if isinstance(literal, Atom):
        return Atom(literal.relation, tuple(_rename_term(arg, names) for arg in literal.args))
    if isinstance(literal, Not):
        return Not(Atom(literal.atom.relation, tuple(_rename_term(a, names) for a in literal.atom.args)))
    assert isinstance(literal, Distinct)
    return Distinct(_rename_term(literal.left, names), _rename_term(literal.right, names))
