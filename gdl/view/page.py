"""The viewer page: one self-contained HTML file (styles, script and every step's board inline) that
steps through a match, or follows one live from the server of :mod:`gdl.view.live`.

Step ``i`` shows state ``i``, the joint move that led to it with each player's time and error, and, in
a GDL-II match, each role's percepts after that move; the last step shows the goals. The arrow keys,
Home and End, the slider and the list of steps move between steps; ``#step-N`` in the address opens
step N. A GDL-II match can be seen as a whole or as one role sees it: its own moves and its percepts
(drawn on a board when they look like squares, as in Krieg-tictactoe).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from html import escape
from importlib import resources
from typing import Any

from gdl.syntax.model import Term
from gdl.view.board import Layout
from gdl.view.hints import Hints
from gdl.view.replay import NATURE, Replay


class MatchPage:
    """A record's steps drawn on a layout; :meth:`html` is the page, :meth:`step` one step's data."""

    def __init__(self, replay: Replay, base: Iterable[Term] = (), hints: Hints | None = None) -> None:
        seen = [f for state in replay.states for f in state]
        self.layout = Layout.infer([*base, *seen], hints)
        self.follow(replay)

    def follow(self, replay: Replay) -> None:
        """Show ``replay``, a longer record of the same match, on the board decided at the start."""
        self.replay = replay
        # What each role saw, drawn on a board of its own when its percepts look like squares.
        oriented = replace(self.layout.hints, board=None, counters=(), hide=(), control=None)
        self.percept_layouts = [
            Layout.infer(_terms(p for step in replay.percepts for p in step[r]), oriented)
            for r in range(len(replay.roles))
        ]

    def step(self, index: int) -> dict[str, Any]:
        """The data of step ``index`` (state ``index`` and the move that led to it) for the page."""
        replay = self.replay
        data: dict[str, Any] = {
            "index": index,
            "picture": self.layout.draw(replay.states[index], replay.spell).to_json(),
            "errors": list(replay.errors[index]) if index < len(replay.errors) else [],
            "moves": None,
            "times": None,
            "percepts": None,
            "views": None,
        }
        if index > 0 and index <= len(replay.moves):
            data["moves"] = [replay.spell(m) for m in replay.moves[index - 1]]
            if index - 1 < len(replay.times):
                data["times"] = list(replay.times[index - 1])
        if replay.percepts and 0 < index <= len(replay.percepts):
            data["percepts"] = [[replay.spell(p) for p in seen] for seen in replay.percepts[index - 1]]
        if replay.percepts:
            views = []
            for role, layout in enumerate(self.percept_layouts):
                so_far = _terms(p for step in replay.percepts[:index] for p in step[role])
                views.append(layout.draw(so_far, replay.spell).to_json())
            data["views"] = views
        return data

    def header(self, live: bool = False) -> dict[str, Any]:
        """What the page shows for the whole match."""
        replay = self.replay
        return {
            "game": replay.game,
            "matchId": replay.match_id,
            "roles": [replay.spell(r) for r in replay.roles],
            "players": list(replay.players),
            "nature": NATURE in replay.roles,
            "gdl2": replay.gdl2,
            "startClock": replay.start_clock,
            "playClock": replay.play_clock,
            "live": live,
            "end": self.end(),
        }

    def end(self) -> dict[str, Any]:
        replay = self.replay
        return {
            "completed": replay.completed,
            "aborted": replay.aborted,
            "abortReason": replay.abort_reason,
            "goals": list(replay.goals),
        }

    def html(self, live: bool = False) -> str:
        """The whole page; with ``live`` it follows the server's events (``events``, beside the page)."""
        data = {**self.header(live), "steps": [self.step(i) for i in range(len(self.replay.states))]}
        return render_page(f"{self.replay.game} · gdl view", MATCH_BODY, asset("match.js"), data)


def _terms(texts: Iterable[str]) -> list[Term]:
    from gdl.syntax.reader import parse_terms

    return [t for text in dict.fromkeys(texts) for t in parse_terms(text)]


def asset(name: str) -> str:
    """A file of the page (script or style), from the package."""
    return resources.files("gdl.view").joinpath("assets", name).read_text(encoding="utf-8")


def render_page(title: str, body: str, script: str, data: Any) -> str:
    """A page with the shared style, ``body``, and ``script`` run with ``DATA`` bound to ``data``."""
    # "</" inside a script would end it: JSON may say "<\/" instead.
    embedded = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width"><style>{asset("style.css")}</style></head>'
        f"<body>{body}<script>const DATA = {embedded};\n{script}</script></body></html>\n"
    )


MATCH_BODY = """
<header><h1 id="title"></h1><div class="sub" id="sub"></div></header>
<div id="nav"><button id="first" title="first (Home)">|◀</button><button id="prev" title="back (←)">◀</button>
<input type="range" id="slider" min="0" value="0"><button id="next" title="forward (→)">▶</button>
<button id="last" title="last (End)">▶|</button><span id="where"></span>
<label id="viewpick" hidden>view <select id="view"></select></label><span id="status"></span></div>
<main><div class="panel"><h2 id="boardtitle">board</h2><div id="board"></div><div id="counters"></div></div>
<div class="panel"><h2>moves</h2><table id="moves"></table><div id="percepts"></div><div id="goals"></div>
<h2 id="factstitle">other fluents</h2><ul class="facts" id="facts"></ul></div></main>
<div id="steps"></div>
"""
