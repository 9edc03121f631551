"""JSON games built for the tests, and hypothesis strategies that break them."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st


def even_or_odd() -> dict[str, Any]:
    """A small valid game, built here so that the tests do not need ../shared."""
    return {
        "name": "Even or odd",
        "start": "pick",
        "states": [
            {"name": "pick", "player": 1, "knowledge": "", "actions": [{"1": "1"}, {"2": "2"}]},
            {"name": "1", "player": 2, "knowledge": "", "actions": [{"even": "1 even"}, {"odd": "1 odd"}]},
            {"name": "1 even", "result": 1},
            {"name": "1 odd", "result": -1},
            {"name": "2", "player": 2, "knowledge": "", "actions": [{"even": "2 even"}, {"odd": "2 odd"}]},
            {"name": "2 even", "result": -1},
            {"name": "2 odd", "result": 1},
        ],
    }


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)
state_keys = st.sampled_from(["name", "player", "knowledge", "actions", "result", "start", "states"])


@st.composite
def mutated_games(draw: st.DrawFn) -> dict[str, Any]:
    """A valid game with a few states deleted, copied, changed or given odd actions."""
    document = even_or_odd()
    states: list[Any] = document["states"]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 5))
        if kind == 5 or not states:
            document[draw(state_keys)] = draw(json_values)
            continue
        index = draw(st.integers(0, len(states) - 1))
        state = states[index]
        if kind == 0:
            del states[index]
        elif kind == 1:
            states.append(copy.deepcopy(state))
        elif not isinstance(state, dict):
            states[index] = draw(json_values)
        elif kind == 2:
            state[draw(state_keys)] = draw(json_values)
        elif kind == 3 and isinstance(state.get("actions"), list):
            names = [s.get("name") for s in states if isinstance(s, dict)]
            target = draw(st.sampled_from([*names, "nowhere"]))
            state["actions"].append({draw(st.text(max_size=3)): target})
        else:
            state.pop(draw(state_keys), None)
    return document
