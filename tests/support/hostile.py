"""Rules built to explode, as a hostile game manager might send them, each small."""

from __future__ import annotations

#: A valid one-player game the hostile rules are added to.
BASE = (
    "(role robot) (init (s 0)) (<= (legal robot go) (true (s 0))) (<= (next (s 1)) (does robot go))"
    " (<= terminal (true (s 1))) (<= (goal robot 100) (true (s 1))) (<= (goal robot 0) (true (s 0)))"
    " (p 1) (q 2)\n"
)


def many_ors(count: int = 40) -> str:
    """Forty two-way ``or`` in one body: a trillion conjunctions when multiplied out."""
    ors = " ".join(f"(or (p {i}) (q {i}))" for i in range(count))
    return BASE + f"(<= (r 1) {ors}) (<= (legal robot stay) (r 1))\n"


def long_rule(literals: int = 200) -> str:
    """A rule of two hundred literals over a graph of 900 edges: paths of length 200."""
    body = " ".join(f"(e ?x{i} ?x{i + 1})" for i in range(literals))
    edges = " ".join(f"(e {a} {b})" for a in range(30) for b in range(30))
    return BASE + edges + f"\n(<= (path ?x0 ?x{literals}) {body}) (<= (legal robot stay) (path 1 2))\n"


def self_negation(heads: int = 3000) -> str:
    """A relation negating itself under thousands of constant heads: the refined stratification's graph."""
    rules = "\n".join(f"(<= (n c{i}) (not (n c{i + 1})) (true (s 0)))" for i in range(heads))
    return BASE + rules + "\n(<= (legal robot stay) (n c0))\n"


def static_tables(relations: int = 24) -> str:
    """Two dozen static relations of a million facts each: under the cap per relation, not in total."""
    digits = " ".join(f"(d {i})" for i in range(100))
    tables = "\n".join(f"(<= (t{k} ?a ?b ?c) (d ?a) (d ?b) (d ?c))" for k in range(relations))
    moves = "\n".join(f"(<= (legal robot (m{k} ?a ?b ?c)) (t{k} ?a ?b ?c))" for k in range(relations))
    return BASE + digits + "\n" + tables + "\n" + moves + "\n"


def deep_nesting(levels: int = 5000) -> str:
    """A fact nested thousands of levels deep: recursion in the reader or the checker."""
    return BASE + "(deep " + "(f " * levels + "x" + ")" * (levels + 1) + "\n"


def nul_name() -> str:
    """A NUL character inside a name: the checker must refuse it, or it breaks every engine."""
    return BASE.replace("(p 1)", "(p a\x00b)")


HOSTILE = {
    "many-ors": many_ors(),
    "long-rule": long_rule(),
    "self-negation": self_negation(),
    "static-tables": static_tables(),
    "deep-nesting": deep_nesting(),
    "nul-name": nul_name(),
}
