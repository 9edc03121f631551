"""Interned ground terms: every ground term of an evaluation is a small positive int.

The evaluator joins, hashes and compares ints, never the dataclasses of the clause model. A constant is
interned by its name; a compound term by its functor and the ids of its arguments, so equal terms get
equal ids and a term's structure is read back through :attr:`TermTable.args` and
:attr:`TermTable.functor`.
"""

from __future__ import annotations

from gdl.syntax.model import Constant, Function, Term


class TermTable:
    """Two-way mapping between ground terms of the clause model and ints (ids start at 1)."""

    def __init__(self) -> None:
        #: Key of every id: a constant's name (str), or (functor id, argument ids...) for a compound.
        self.keys: list[str | tuple[int, ...]] = [""]
        #: Functor id of every term; 0 for a constant.
        self.functor: list[int] = [0]
        #: Argument ids of every term; () for a constant.
        self.args: list[tuple[int, ...]] = [()]
        self.ids: dict[str | tuple[int, ...], int] = {}
        self._functor_ids: dict[tuple[str, int], int] = {}
        self._functor_names: list[tuple[str, int]] = [("", 0)]
        self._terms: dict[int, Term] = {}
        self._texts: dict[int, str] = {}
        self._from_model: dict[Term, int] = {}
        self._by_object: dict[int, int] = {}

    def functor_id(self, name: str, arity: int) -> int:
        """The id of a function symbol (its own numbering, separate from term ids)."""
        key = (name, arity)
        found = self._functor_ids.get(key)
        if found is None:
            found = self._functor_ids[key] = len(self._functor_names)
            self._functor_names.append(key)
        return found

    def constant(self, name: str) -> int:
        found = self.ids.get(name)
        return self._add(name, 0, ()) if found is None else found

    def compound(self, key: tuple[int, ...]) -> int:
        """The id of the compound term ``key = (functor id, argument ids...)``, interning it if new."""
        found = self.ids.get(key)
        return self._add(key, key[0], key[1:]) if found is None else found

    def _add(self, key: str | tuple[int, ...], functor: int, args: tuple[int, ...]) -> int:
        new = len(self.keys)
        self.ids[key] = new
        self.keys.append(key)
        self.functor.append(functor)
        self.args.append(args)
        return new

    def intern(self, term: Term) -> int:
        """The id of a ground term of the clause model."""
        # Terms made by term() live as long as the table, so no other object can have their id().
        found = self._by_object.get(id(term))
        if found is not None:
            return found
        found = self._from_model.get(term)
        if found is not None:
            return found
        if isinstance(term, Constant):
            found = self.constant(term.name)
        elif isinstance(term, Function):
            functor = self.functor_id(term.name, len(term.args))
            found = self.compound((functor, *(self.intern(arg) for arg in term.args)))
        else:
            raise ValueError(f"not a ground term: {term}")
        self._from_model[term] = found
        return found

    def term(self, ident: int) -> Term:
        """The clause-model term of an id (cached, so repeated calls return the same object)."""
        found = self._terms.get(ident)
        if found is None:
            key = self.keys[ident]
            if isinstance(key, str):
                found = Constant(key)
            else:
                name, _ = self._functor_names[key[0]]
                found = Function(name, tuple(self.term(arg) for arg in key[1:]))
            self._terms[ident] = found
            self._by_object[id(found)] = ident
            self._from_model.setdefault(found, ident)
        return found

    def text(self, ident: int) -> str:
        """The canonical KIF text of an id."""
        found = self._texts.get(ident)
        if found is None:
            found = self._texts[ident] = str(self.term(ident))
        return found
