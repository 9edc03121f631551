"""The viewer served while matches are played: an aiohttp server in a background thread whose pages
follow the matches through server-sent events.

:class:`ViewServer` serves pages and event streams by path; :class:`LiveMatch` publishes one match's
steps (the match runner's ``on_step`` hook) and :class:`LiveTournament` a tournament's standings, with a
page per finished match. A subscriber that comes late is sent everything published before it came.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

from gdl.errors import ViewerError
from gdl.match import MatchRecord
from gdl.syntax.model import Term
from gdl.view.hints import Hints
from gdl.view.page import MatchPage, asset, render_page
from gdl.view.replay import Replay


class _Channel:
    """The messages of one page, kept for late subscribers, and the queues of those listening now."""

    def __init__(self) -> None:
        self.history: list[str] = []
        self.listeners: set[asyncio.Queue[str | None]] = set()
        self.closed = False


class ViewServer:
    """Pages and event streams on ``http://host:port/`` from an event loop in a daemon thread.

    Use it as a context manager, or call :meth:`close` when done. ``port`` 0 picks a free port.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._pages: dict[str, Callable[[], str]] = {}
        self._channels: dict[str, _Channel] = {}
        self._subscribed = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="gdl-view", daemon=True)
        self._thread.start()
        opening = asyncio.run_coroutine_threadsafe(self._open(host, port), self._loop)
        try:
            self._runner, self.url = opening.result()
        except OSError as problem:
            self._loop.call_soon_threadsafe(self._loop.stop)
            why = problem.strerror or problem
            raise ViewerError(f"cannot serve the viewer on {host}:{port}: {why}") from None

    async def _open(self, host: str, port: int) -> tuple[web.AppRunner, str]:
        app = web.Application()
        app.router.add_get("/{path:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError:
            await runner.cleanup()
            raise
        bound = runner.addresses[0][1]
        return runner, f"http://{host}:{bound}/"

    def page(self, path: str, html: Callable[[], str]) -> None:
        """Serve ``html()`` at ``path`` (``/`` or ``/match/3/``), and its events at ``path + "events"``."""
        self._loop.call_soon_threadsafe(self._add, path, html)

    def _add(self, path: str, html: Callable[[], str]) -> None:
        self._pages[path] = html
        self._channels.setdefault(path, _Channel())

    def publish(self, path: str, message: dict[str, Any], last: bool = False) -> None:
        """Send ``message`` to the page at ``path`` (from any thread); ``last`` ends its stream."""
        self._loop.call_soon_threadsafe(self._send, path, json.dumps(message), last)

    def _send(self, path: str, text: str, last: bool) -> None:
        channel = self._channels.setdefault(path, _Channel())
        channel.history.append(text)
        channel.closed = channel.closed or last
        for queue in channel.listeners:
            queue.put_nowait(text)
            if last:
                queue.put_nowait(None)

    def wait_for_viewer(self, timeout: float) -> bool:
        """Wait until some page subscribes to its events, at most ``timeout`` seconds."""
        return self._subscribed.wait(timeout)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        if path.endswith("/events") and path[: -len("events")] in self._pages:
            return await self._events(request, self._channels[path[: -len("events")]])
        if not path.endswith("/") and path + "/" in self._pages:
            raise web.HTTPFound(path + "/")
        if path not in self._pages:
            raise web.HTTPNotFound(text=f"no page at {path}")
        return web.Response(text=self._pages[path](), content_type="text/html")

    async def _events(self, request: web.Request, channel: _Channel) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        for sent in channel.history:
            queue.put_nowait(sent)
        if channel.closed:
            queue.put_nowait(None)
        channel.listeners.add(queue)
        self._subscribed.set()
        try:
            while (message := await queue.get()) is not None:
                await response.write(f"data: {message}\n\n".encode())
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            channel.listeners.discard(queue)
        return response

    def close(self) -> None:
        """Stop serving and end the thread."""
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> ViewServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class LiveMatch:
    """One match on a :class:`ViewServer` page: pass :meth:`on_step` to the match runner, and
    :meth:`finish` the record at the end."""

    def __init__(
        self, server: ViewServer, base: Iterable[Term] = (), hints: Hints | None = None, path: str = "/"
    ) -> None:
        self.server = server
        self.path = path
        self._base = tuple(base)
        self._hints = hints
        self._fluents: list[tuple[Term, ...]] = []
        self._page: MatchPage | None = None
        self._lock = threading.Lock()
        server.page(path, self._html)

    def _html(self) -> str:
        with self._lock:
            page = self._page
        if page is None:
            return render_page(
                "gdl view",
                "<p>waiting for the match to start…</p>",
                # The first state reloads the page, which then follows the match.
                "new EventSource('events').onmessage = () => location.reload();",
                None,
            )
        return page.html(live=True)  # the stream also tells a page opened late how the match ended

    def _update(self, record: MatchRecord) -> MatchPage:
        self._fluents += [tuple(s.fluents()) for s in record.states[len(self._fluents) :]]
        replay = Replay.from_json(record.to_json(), parsed=self._fluents)
        with self._lock:
            if self._page is None:
                self._page = MatchPage(replay, self._base, self._hints)
            else:
                self._page.follow(replay)
            return self._page

    def on_step(self, record: MatchRecord) -> None:
        """Publish the state just reached (the match runner's hook)."""
        page = self._update(record)
        self.server.publish(self.path, {"type": "step", "step": page.step(len(record.states) - 1)})

    def finish(self, record: MatchRecord) -> None:
        """Publish the end of the match: goals, or why it was aborted."""
        page = self._update(record)
        self.server.publish(self.path, {"type": "end", "end": page.end()}, last=True)


class LiveTournament:
    """A tournament's page on a :class:`ViewServer`: standings and matches, each finished match a
    replay at ``/match/N/``. :meth:`match_done` takes each match's summary with its record."""

    def __init__(
        self, server: ViewServer, game: str, base: Iterable[Term] = (), hints: Hints | None = None
    ) -> None:
        self.server = server
        self._game = game
        self._base = tuple(base)
        self._hints = hints
        self._state: dict[str, Any] = {"game": game, "standings": [], "matches": []}
        server.page(
            "/",
            lambda: render_page(
                f"{game} tournament · gdl view", TOURNAMENT_BODY, asset("tournament.js"), self._state
            ),
        )

    def match_done(self, index: int, record: dict[str, Any] | None, state: dict[str, Any]) -> None:
        """Match ``index`` has ended with ``record`` (ggp-base JSON; None when it was lost); ``state`` is
        the tournament so far (``standings`` and ``matches``, as
        :meth:`gdl.tournament.TournamentResult.to_json` gives them)."""
        if record is not None:
            html = MatchPage(Replay.from_json(record), self._base, self._hints).html()
            self.server.page(f"/match/{index}/", lambda: html)
        self._state = {"game": self._game, **state}
        self.server.publish("/", {"type": "tournament", **self._state})

    def finish(self) -> None:
        self.server.publish("/", {"type": "end"}, last=True)


TOURNAMENT_BODY = """
<header><h1 id="title"></h1><div class="sub" id="sub"></div></header>
<main><div class="panel"><h2>standings</h2><table id="standings"></table></div>
<div class="panel"><h2>matches</h2><table id="matches"></table></div></main>
"""
