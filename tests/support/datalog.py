"""Random stratified programs (hypothesis strategies), and walks compared between two Datalog reasoners."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from gdl.engines.datalog import DatalogReasoner

CONSTANTS = ("a", "b", "c", "1")
VARIABLES = ("?x", "?y", "?z")
#: The checker asks every program to be a game; these facts make it one without touching the rest.
GAME = "(role r) (legal r go) (goal r 0) terminal\n"


@st.composite
def ground_terms(draw: st.DrawFn) -> str:
    constant = st.sampled_from(CONSTANTS)
    return draw(
        st.one_of(
            constant,
            constant.map(lambda c: f"(f {c})"),
            st.tuples(constant, constant).map(lambda p: f"(g {p[0]} (f {p[1]}))"),
        )
    )


def _body_term(draw: st.DrawFn, terms: tuple[str, ...] = VARIABLES + CONSTANTS) -> str:
    simple = st.sampled_from(terms)
    return draw(st.one_of(simple, simple, simple.map(lambda t: f"(f {t})")))


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, list[str]]:
    """(rules, extensional facts): relations ``p<i>`` at non-decreasing levels, negation only downwards."""
    facts = [f"(e {draw(ground_terms())} {draw(ground_terms())})" for _ in range(draw(st.integers(1, 6)))]
    facts += [f"(d {draw(ground_terms())})" for _ in range(draw(st.integers(1, 4)))]
    count = draw(st.integers(1, 5))
    arities = [draw(st.integers(0, 2)) for _ in range(count)]
    levels = sorted(draw(st.integers(0, 3)) for _ in range(count))
    relations = [("e", 2, -1), ("d", 1, -1)] + [(f"p{i}", arities[i], levels[i]) for i in range(count)]
    rules = []
    for i in range(count):
        for _ in range(draw(st.integers(1, 3))):
            rules.append(_rule(draw, i, relations, levels[i]))
    return "\n".join(rules), facts


def _rule(draw: st.DrawFn, index: int, relations: list[tuple[str, int, int]], level: int) -> str:
    """A safe rule that keeps the recursion restriction: recursive atoms use only terms bound below."""
    lower = [r for r in relations if r[2] < level]
    same = [r for r in relations if r[2] == level]
    body = []
    for _ in range(draw(st.integers(1, 2))):
        name, arity, _ = draw(st.sampled_from(lower))
        body.append(_atom(name, [_body_term(draw) for _ in range(arity)]))
    bound = tuple(v for v in VARIABLES if v in " ".join(body))
    known = bound + CONSTANTS
    recursive = draw(st.booleans())
    if recursive:
        name, arity, _ = draw(st.sampled_from(same))
        body.append(_atom(name, [_body_term(draw, known) for _ in range(arity)]))
    if bound and draw(st.booleans()):
        name, arity, _ = draw(st.sampled_from(lower))
        body.append(f"(not {_atom(name, [draw(st.sampled_from(known)) for _ in range(arity)])})")
    if bound and draw(st.booleans()):
        body.append(f"(distinct {draw(st.sampled_from(bound))} {_body_term(draw, known)})")
    if draw(st.booleans()):
        branches = []
        for _ in range(2):
            name, arity, other = draw(st.sampled_from(lower + same))
            recursive = recursive or other == level
            branches.append(_atom(name, [draw(st.sampled_from(known)) for _ in range(arity)]))
        body.append(f"(or {' '.join(branches)})")
    # Compound terms in the head of a recursive rule could make the model infinite.
    head_terms = st.sampled_from(known) if recursive else st.one_of(
        st.sampled_from(known), st.sampled_from(known).map(lambda t: f"(f {t})")
    )
    head = _atom(f"p{index}", [draw(head_terms) for _ in range(relations[index + 2][1])])
    return f"(<= {head} {' '.join(body)})"


def _atom(name: str, args: list[str]) -> str:
    return f"({name} {' '.join(args)})" if args else name


def same_walks(plain: DatalogReasoner, rewritten: DatalogReasoner, steps: int) -> None:
    rng = random.Random(7)
    a, b = plain.initial(), rewritten.initial()
    for _ in range(steps):
        assert plain.fluents(a) == rewritten.fluents(b)
        assert plain.terminal(a) == rewritten.terminal(b)
        legal = [plain.legal(a, role) for role in range(len(plain.roles))]
        assert legal == [rewritten.legal(b, role) for role in range(len(plain.roles))]
        if plain.terminal(a) or not all(legal):
            break
        moves = [rng.choice(options) for options in legal]
        a, b = plain.next(a, moves), rewritten.next(b, moves)
    for role in range(len(plain.roles)):
        assert plain.goals(a, role) == rewritten.goals(b, role)
