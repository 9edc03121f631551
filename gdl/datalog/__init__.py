"""A stratified Datalog evaluator over interned ground terms: the reasoning core of gdl.

:func:`evaluate` runs any checked program with extra facts and returns its model; the game reasoner
(:mod:`gdl.engines.datalog`) drives :class:`Evaluator` and :class:`Database` per state.
"""

from gdl.datalog.evaluator import Database, Evaluator, Model, evaluate
from gdl.datalog.terms import TermTable

__all__ = ["Database", "Evaluator", "Model", "TermTable", "evaluate"]
