"""Hypothesis strategies for random extensive-form games with perfect recall (two players, zero-sum).

A decision node's information set is keyed by its player, the player's own past (its information sets
and choices so far) and a small drawn "observation" bucket: nodes whose player has the same past and
draws the same bucket share the information set, so hidden information arises while recall stays
perfect. The number of actions is fixed per information set when it is first made.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from gdl.extensive.model import Chance, Decision, ExtensiveGame, Node, Terminal

PLAYERS = ("1", "2")


@st.composite
def games(draw: st.DrawFn, max_depth: int = 4, zero_sum: bool = True, constant: int = 0) -> ExtensiveGame:
    """Payoffs sum to ``constant`` at every terminal when ``zero_sum`` (else they are independent)."""
    actions_of: dict[str, int] = {}

    def node(depth: int, pasts: dict[str, str]) -> Node:
        kinds = ["decision", "decision", "chance", "terminal"]
        kind = "terminal" if depth >= max_depth else draw(st.sampled_from(kinds))
        if depth == 0 and kind == "terminal":
            kind = "decision"
        if kind == "terminal":
            first = draw(st.integers(-5, 5))
            second = constant - first if zero_sum else draw(st.integers(-5, 5))
            return Terminal({"1": first, "2": second})
        if kind == "chance":
            count = draw(st.integers(2, 3))
            weights = [draw(st.integers(1, 4)) for _ in range(count)]
            probabilities = [Fraction(w, sum(weights)) for w in weights]
            labels = [f"c{i}" for i in range(count)]
            return Chance(labels, probabilities, [node(depth + 1, pasts) for _ in labels])
        player = draw(st.sampled_from(PLAYERS))
        key = f"{player}{pasts[player]}/{draw(st.integers(0, 1))}"
        count = actions_of.setdefault(key, draw(st.integers(1, 3)))
        labels = [f"a{i}" for i in range(count)]
        children = [node(depth + 1, {**pasts, player: f"{pasts[player]}.{key}={a}"}) for a in labels]
        return Decision(player, key, labels, children)

    return ExtensiveGame(PLAYERS, node(0, {p: "" for p in PLAYERS}))
