"""The bandit-ambush maze: an application of the extensive-form toolkit (:mod:`gdl.extensive`), which
does not import it. A maze file (:mod:`gdl.bandits.maze`) becomes a two-player zero-sum game with chance
and hidden information (:mod:`gdl.bandits.game`), solved by the toolkit's sequence-form LP and reported
(:mod:`gdl.bandits.report`), or written as a GDL-II game (:mod:`gdl.bandits.kif`); ``gdl bandits`` is
its command (docs/bandits.md)."""
