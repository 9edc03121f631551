"""``gdl view RECORD``: step through a match record in the browser, and the ``--view`` option of
``gdl host`` and ``gdl tournament``, which serve the same page live."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import webbrowser
from pathlib import Path
from typing import Any

import gdl
from gdl.cli._common import add_command, load_game, output_file, port_number, write_text
from gdl.errors import HintsError, RecordError, ViewerError
from gdl.game import Game
from gdl.match import MatchRecord
from gdl.render import base_fluents
from gdl.tournament import TournamentResult
from gdl.view.hints import load_hints
from gdl.view.live import LiveMatch, LiveTournament, ViewServer
from gdl.view.page import MatchPage
from gdl.view.replay import Replay

#: Seconds ``--view`` waits for the page to open before the first move, so that it sees every move.
WAIT_FOR_PAGE = 15.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers,
        "view",
        "step through a match record in the browser",
        """Serves a page (or writes it as one self-contained HTML file with -o) that steps through a match
record: gdl's record (gdl play/host -o) or ggp-base's match JSON (Tiltyard's archives). Each step shows
the board, the moves, the time each player took and its errors; the end shows the goals. GDL-II matches
show nature's moves and the percepts, as a whole or as one role sees them. Arrow keys, Home, End and the
slider move between steps; #step-N opens step N. Boards are drawn from the rules when --game is given
(with its drawing hints, GAME.view.json beside it; see docs/viewer.md), else from the states alone.""",
        [
            "gdl view match.json",
            "gdl view match.json --game games/tictactoe.kif -o match.html",
            "gdl view tiltyard-match.json --port 8080",
        ],
    )
    parser.add_argument("record", metavar="RECORD", help="match record (JSON)")
    parser.add_argument(
        "--game", metavar="GAME", help="the game's rules (.kif): the whole board and its hints"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=output_file,
        metavar="FILE",
        help="write the page to FILE instead of serving it",
    )
    parser.add_argument("--port", type=port_number, default=0, help="port to serve on (default: a free one)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game = None
    if args.game:
        game = load_game(args.game, "datalog", "view")  # only the rules are needed: no engine to build
        if game is None:
            return 2
    try:
        text = Path(args.record).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        print(f"gdl view: cannot read {args.record}: {problem}", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except json.JSONDecodeError as problem:
        print(
            f"gdl view: {args.record}:{problem.lineno}:{problem.colno}: not JSON: {problem.msg}",
            file=sys.stderr,
        )
        return 2
    try:
        replay = Replay.from_json(data, game.roles if game else ())
        page = MatchPage(replay, base_fluents(game) if game else (), load_hints(args.game))
    except (RecordError, HintsError) as problem:
        print(f"gdl view: {args.record}: {problem}", file=sys.stderr)
        return 2
    html = page.html()
    if args.output:
        return 0 if write_text(args.output, html, "view") else 2
    try:
        server = ViewServer(port=args.port)
    except ViewerError as problem:
        print(f"gdl view: {problem}", file=sys.stderr)
        return 2
    with server:
        server.page("/", lambda: html)
        _show(server.url, wait=False)
        _serve_until_interrupted()
    return 0


def add_view_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--view [PORT]``: serve the page of ``what`` live (the same option in every command)."""
    parser.add_argument(
        "--view",
        nargs="?",
        const=0,
        default=None,
        type=port_number,
        metavar="PORT",
        help=f"watch {what} in the browser: serve its page (on PORT; default a free one) until Ctrl-C",
    )


def _show(url: str, wait: bool, server: ViewServer | None = None) -> None:
    """Say where the page is and open it in a browser; with ``wait``, give the page time to come."""
    print(f"viewer: {url}", file=sys.stderr, flush=True)
    # Without a display, webbrowser would start a text browser in this terminal: only say the address.
    graphical = sys.platform in ("darwin", "win32") or any(
        os.environ.get(name) for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")
    )
    if graphical and webbrowser.open(url) and wait and server is not None:
        server.wait_for_viewer(WAIT_FOR_PAGE)


def _serve_until_interrupted() -> None:
    print("viewer: serving until Ctrl-C", file=sys.stderr, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


class MatchViewer:
    """``--view`` for one match: :meth:`on_step` to the runner, then :meth:`finish` serves until Ctrl-C."""

    def __init__(self, game: Game, game_file: str, port: int) -> None:
        self.server = ViewServer(port=port)
        self.live = LiveMatch(self.server, base_fluents(game), load_hints(game_file))
        _show(self.server.url, wait=True, server=self.server)

    def on_step(self, record: MatchRecord) -> None:
        self.live.on_step(record)

    def finish(self, record: MatchRecord) -> None:
        self.live.finish(record)
        _serve_until_interrupted()
        self.server.close()


class TournamentViewer:
    """``--view`` for a tournament: standings and each finished match's replay."""

    def __init__(self, game_file: str, port: int) -> None:
        game = gdl.load(game_file, engine="datalog")  # the matches load their own
        self.server = ViewServer(port=port)
        self.live = LiveTournament(self.server, game.name, base_fluents(game), load_hints(game_file))
        _show(self.server.url, wait=True, server=self.server)

    def on_match(self, index: int, record: dict[str, Any] | None, so_far: TournamentResult) -> None:
        self.live.match_done(index, record, _finite(so_far.to_json()))

    def finish(self) -> None:
        self.live.finish()
        _serve_until_interrupted()
        self.server.close()


def _finite(data: Any) -> Any:
    """JSON without NaN (which JSON.parse refuses): null in its place."""
    if isinstance(data, float) and not math.isfinite(data):
        return None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_finite(v) for v in data]
    return data
