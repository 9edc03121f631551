"""Imported by the fork server of the worker processes (see :mod:`gdl.workers`): it warms the
playout kernel and the uct player's search kernels up once, and every worker forked from it then starts
with them compiled."""

from gdl.engines.warm import warm_up
from gdl.players.uct import warm_up as warm_up_search

warm_up()
warm_up_search()
