"""Seeing games: match records stepped through in a browser (live or from a file), boards drawn from the
rules as SVG, and pictures of a game's rules (the relation dependency graph, the propositional network).

:mod:`gdl.view.board` draws states, :mod:`gdl.view.replay` reads match records, :mod:`gdl.view.page`
writes the viewer page, :mod:`gdl.view.live` serves it while matches are played, :mod:`gdl.view.graph`
and :mod:`gdl.view.network` draw rules. The library returns text (SVG, DOT, HTML); the command line
writes and serves it.
"""
