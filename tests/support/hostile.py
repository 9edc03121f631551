"""Rules and messages built to explode, as a hostile game manager might send them, each small."""

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


def static_spin(values: int = 100) -> str:
    """A static join of four loops over ``values`` facts that never adds a fact (its last test always
    fails): ``values ** 4`` rounds without a fact added, so a deadline checked only then never comes."""
    digits = " ".join(f"(d {i})" for i in range(values))
    return (
        BASE + digits + "\n(<= (spin ?a ?b ?c ?e) (d ?a) (d ?b) (d ?c) (d ?e)"
        " (distinct (f ?a ?b ?c ?e) (f ?a ?b ?c ?e)))\n(<= (legal robot stay) (spin ?a ?b ?c ?e))\n"
    )


def deep_nesting(levels: int = 5000) -> str:
    """A fact nested thousands of levels deep: recursion in the reader or the checker."""
    return BASE + "(deep " + "(f " * levels + "x" + ")" * (levels + 1) + "\n"


def nul_name() -> str:
    """A NUL character inside a name: the checker must refuse it, or it breaks every engine."""
    return BASE.replace("(p 1)", "(p a\x00b)")


#: A game that passes the checker and whose one legal move doubles in size every step: 2^21 leaves at
#: step 21, out of a few shared subterms in the player, megabytes as text.
DOUBLING = (
    "(role robot) (init (step 0)) (init (val a))\n"
    "(<= (legal robot (m ?v)) (true (val ?v)))\n"
    "(<= (next (val (f ?v ?v))) (true (val ?v)))\n"
    "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))\n"
    + " ".join(f"(succ {i} {i + 1})" for i in range(22))
    + "\n(<= terminal (true (step 22)))\n"
    "(<= (goal robot 100) (true (step 22))) (<= (goal robot 0) (not (true (step 22))))\n"
)


def tree(depth: int) -> str:
    """A binary tree of ``depth`` levels as KIF text, about 6 * 2^depth characters: a parse bomb."""
    return "a" if depth == 0 else f"(t {tree(depth - 1)} {tree(depth - 1)})"


HOSTILE = {
    "many-ors": many_ors(),
    "long-rule": long_rule(),
    "self-negation": self_negation(),
    "static-tables": static_tables(),
    "deep-nesting": deep_nesting(),
    "nul-name": nul_name(),
}


def negation_bomb(heads: int = 1700) -> str:
    """A relation negating itself under thousands of constant heads, each reading every head: the
    graph split by constant arguments has ``heads ** 2`` edges (69 kB: 3.2 GB)."""
    rules = "\n".join(f"(<= (n c{i}) (not (n ?x)) (d ?x))" for i in range(heads))
    return BASE + "(d c0)\n" + rules + "\n(<= (legal robot stay) (n c0))\n"
