"""Imported by the fork server of the worker processes (see :mod:`gdl.workers`): it warms the
playout kernel up once, and every worker forked from it then starts with the kernel compiled."""

from gdl.engines.warm import warm_up

warm_up()
