"""gdl's plain Datalog engine (``check_text(..., game=False)`` and :func:`gdl.datalog.evaluate`) as an
evaluator of the ``datalog-conformance`` suite (PyPI), whose programs are written in Prolog syntax.

Names are renamed on the way in (``r0``, ``c0``...) and back on the way out: Datalog names are
case-sensitive (``A`` and ``a`` differ) while GDL ignores case, and quoted constants may hold anything.
Cases from Souffle use its convention (every identifier in a rule is a variable; constants are quoted
or numbers), the others Prolog's (a variable starts with a capital or ``_``). Syntax gdl does not have
(arithmetic, comparisons other than ``!=``) raises :class:`Unsupported`.
"""

from __future__ import annotations

import re
from itertools import count
from typing import Any

from gdl.check import check_text
from gdl.datalog import evaluate
from gdl.syntax.model import Atom, Constant

#: gdl's diagnostic codes, as the suite names the errors.
ERROR_CODES = {
    "relation-arity": ("arity_mismatch",),
    "unsafe-variable": ("unbound_variable", "safety_violations", "SafetyViolationError"),
    "unstratified": ("cyclic_negation",),
}

_ATOM = re.compile(r"^(not\s+|!\s*|\\\+\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?$", re.S)
_NUMBER = re.compile(r"^-?\d+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NEGATED = re.compile(r"^\s*(not\s|!|\\\+)")
#: Identifiers that are arguments (followed by "," or ")"), i.e. no relation names.
_WORD = re.compile(r"(?<![\"\w])([A-Za-z_][A-Za-z0-9_]*)\s*(?=[,)])")


class Unsupported(Exception):
    """Syntax the adapter does not translate (arithmetic, comparisons)."""


class DatalogError(Exception):
    """The checker refused the program; ``code`` is the suite's name for the first error."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts."""
    parts, depth, current, quoted = [], 0, "", False
    for char in text:
        if char == '"':
            quoted = not quoted
        if not quoted and char in "([":
            depth += 1
        if not quoted and char in ")]":
            depth -= 1
        if char == "," and depth == 0 and not quoted:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


class GdlEvaluator:
    """The suite's ``DatalogEvaluator`` protocol: ``evaluate(program)`` is the model."""

    def __init__(
        self, souffle: bool = False, expected_error: str | None = None, nemo: bool = False
    ) -> None:
        self.souffle = souffle
        #: Nemo reads a named variable met only in a negated literal as existential there; the others
        #: call it unsafe (only ``_`` is existential).
        self.nemo = nemo
        #: The suite names one error in several ways (``unbound_variable``, ``safety_violations``); a
        #: gdl error whose names include the expected one is reported by that name.
        self.expected_error = expected_error

    def evaluate(self, program: Any) -> dict[str, set[tuple[Any, ...]]]:
        self.relations: dict[str, str] = {}
        self.constants: dict[tuple[type, Any], str] = {}
        self.fresh = count()
        self.extra: list[str] = []
        rules = [self._rule(text) for text in program.rules] + self.extra
        facts = [
            Atom(self._relation(name), tuple(Constant(self._constant(value)) for value in row))
            for name, rows in program.facts.items()
            for row in rows
        ]
        result = check_text("\n".join(rules), game=False)
        arities: dict[str, set[int]] = {}
        for fact in facts:
            arities.setdefault(fact.relation, set()).add(len(fact.args))
        if any(len(found) > 1 for found in arities.values()):
            raise DatalogError("facts of one relation with different arities", self._code("relation-arity"))
        errors = [d for d in result.diagnostics if d.level.value == "error"]
        if errors or result.checked is None:
            first = errors[0]
            raise DatalogError(first.format(), self._code(first.code))
        try:
            model = evaluate(result.checked, facts)
        except ValueError as problem:
            raise DatalogError(str(problem), self._code("relation-arity")) from None
        names = {kif: name for name, kif in self.relations.items()}
        values = {kif: value for (_, value), kif in self.constants.items()}
        return {
            names[relation]: {tuple(values[str(arg)] for arg in row) for row in rows}
            for relation, rows in model.items()
            if relation in names
        }

    def _code(self, gdl_code: str) -> str:
        names = ERROR_CODES.get(gdl_code, (gdl_code,))
        return self.expected_error if self.expected_error in names else names[0]

    def _relation(self, name: str) -> str:
        return self.relations.setdefault(name, f"r{len(self.relations)}")

    def _constant(self, value: Any) -> str:
        return self.constants.setdefault((type(value), value), f"c{len(self.constants)}")

    def _rule(self, text: str) -> str:
        text = text.strip().removesuffix(".")
        head, arrow, body = text.partition(":-")
        parts = _split(body) if arrow else []
        variables: dict[str, str] = {}
        # A variable met only in a negated literal is existential there ("not s(X, P)": no s(X, any)).
        positive = " ".join([head, *(part for part in parts if not _NEGATED.match(part))])
        bound = set(_WORD.findall(positive)) if self.nemo else set(_WORD.findall(text)) - {"_"}
        literals = [self._literal(part, variables, bound) for part in parts]
        return f"(<= {self._literal(head.strip(), variables, bound)} {' '.join(literals)})"

    def _literal(self, text: str, variables: dict[str, str], bound: set[str]) -> str:
        if "!=" in text:
            left, right = text.split("!=", 1)  # both sides bound elsewhere (safety)
            return f"(distinct {self._term(left.strip(), variables)} {self._term(right.strip(), variables)})"
        match = _ATOM.match(text.strip())
        if match is None:
            raise Unsupported(f"literal {text!r}")
        negated, name, args = match.groups()
        local = dict(variables) if negated else variables
        if negated:
            existential = next(self.fresh)
            for word in set(_WORD.findall((args or "") + ")")) - bound:
                local[word] = f"?anon{existential}x{word}"
        terms = [self._term(arg, local) for arg in _split(args or "")]
        atom = f"({self._relation(name)} {' '.join(terms)})" if terms else self._relation(name)
        anonymous = [term for term in terms if term.startswith("?anon")]
        if negated and anonymous:
            # "not p(X, _)": no p(X, anything). GDL has no anonymous variables, so the projection of p
            # on the other arguments is a relation of its own, negated.
            kept = [term for term in terms if term not in anonymous]
            projection = f"r{len(self.relations)}"
            self.relations[f" projection {projection}"] = projection
            head = f"({projection} {' '.join(kept)})" if kept else projection
            self.extra.append(f"(<= {head} {atom})")
            atom = head
        return f"(not {atom})" if negated else atom

    def _term(self, text: str, variables: dict[str, str]) -> str:
        if text == "_":
            return f"?anon{next(self.fresh)}"
        if len(text) >= 2 and text[0] == text[-1] == '"':
            return self._constant(text[1:-1])
        if _NUMBER.match(text):
            return self._constant(int(text))
        if not _NAME.match(text):
            raise Unsupported(f"term {text!r}")
        if self.souffle or text[0].isupper() or text[0] == "_":
            return variables.setdefault(text, f"?v{len(variables)}")
        return self._constant(text)
