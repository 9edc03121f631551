"""The game manager: the match runner (:class:`gdl.match.Match`) with players reached over HTTP.

A :class:`RemotePlayer` stands in for a player at a URL: ``start`` sends START, ``play`` sends PLAY
with the previous joint move (nature's included: nature's moves are drawn by the runner), ``stop`` and
``abort`` send STOP and ABORT. In a GDL-II game (one with ``sees`` rules) the runner hands it the
player's view instead, and PLAY and STOP carry what the Dresden GameController sends: the turn, the
player's own last move and its percepts, never the others' moves. The match runner does the rest as it
does for local players: it enforces the clocks (plus a grace for the network), replaces a late,
failed, unreadable or illegal reply by a random legal move, records the error, and writes the record.
Local players may take part in the same match.

The runner calls players from worker threads; the HTTP exchanges of all remote players run on one
event loop in a background thread (:class:`Network`), so hundreds of matches can share it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Mapping
from types import TracebackType
from typing import Any, TypeVar

import aiohttp

from gdl.errors import PlayerConnectionError, PlayerTimeoutError, ProtocolError
from gdl.game import Game, State
from gdl.match import Match, MatchRecord
from gdl.players import Player, make_player
from gdl.protocol.http import shorten
from gdl.protocol.messages import (
    Abort,
    Message,
    Play,
    PlayII,
    Start,
    Stop,
    StopII,
    format_message,
    parse_move,
)
from gdl.syntax.model import Term
from gdl.views import View, plays_with_views

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds a reply may arrive after its clock has run out and still count: the network's share.
GRACE = 0.5


#: Replies above this size are refused unread: a move is a few bytes, and a reply of hundreds of
#: megabytes cost the manager gigabytes.
MAX_REPLY = 1 << 20


class _TooLong(Exception):
    """A reply passed :data:`MAX_REPLY` bytes."""


async def _read_bounded(response: aiohttp.ClientResponse) -> bytes:
    """The body of a reply, read only up to :data:`MAX_REPLY` bytes."""
    if (response.content_length or 0) > MAX_REPLY:
        raise _TooLong
    body = bytearray()
    async for chunk in response.content.iter_chunked(1 << 16):
        body += chunk
        if len(body) > MAX_REPLY:
            raise _TooLong
    return bytes(body)


class Network:
    """An event loop in a daemon thread with one HTTP client session, for blocking callers.

    Use it as a context manager, or call :meth:`close` when done.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="gdl-network", daemon=True)
        self._thread.start()
        self._session = self._run(self._open())

    @staticmethod
    async def _open() -> aiohttp.ClientSession:
        # No limit on connections: every player of every match may be waited for at once.
        return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def send(self, url: str, message: Message, timeout: float, spell: Callable[[object], str] = str) -> str:
        """Send ``message`` to ``url`` (its moves written by ``spell``); the reply, which must come within
        ``timeout`` seconds. Raises :class:`ProtocolError` when it does not come, or is not a successful
        reply in UTF-8 text."""
        return self._run(self._send(url, format_message(message, spell), max(timeout, 0.0)))

    async def _send(self, url: str, text: str, timeout: float) -> str:
        sent = time.monotonic()

        def failed(error: str, kind: type[ProtocolError] = PlayerConnectionError) -> ProtocolError:
            logger.debug("%s: %s", url, error)
            return kind(error)

        logger.debug("%s <- %s", url, shorten(text))
        try:
            async with self._session.post(
                url,
                data=text.encode(),
                headers={"Content-Type": "text/acl"},
                timeout=aiohttp.ClientTimeout(total=timeout),
            ) as response:
                body = await _read_bounded(response)
                status = response.status
        except TimeoutError:
            raise failed(f"no reply within {timeout:.2f} s", PlayerTimeoutError) from None
        except _TooLong:
            raise failed(f"reply longer than {MAX_REPLY} bytes", ProtocolError) from None
        except aiohttp.ClientError as problem:
            raise failed(f"connection failed: {type(problem).__name__}: {problem}") from None
        try:
            reply = body.decode("utf-8")
        except UnicodeDecodeError:
            raise failed(f"reply is not UTF-8 text: {shorten(repr(body), 60)}", ProtocolError) from None
        logger.debug("%s -> %s (%.3f s)", url, shorten(reply), time.monotonic() - sent)
        if status != 200:
            raise failed(f"HTTP {status}: {shorten(reply, 120)}")
        return reply.strip()

    def close(self) -> None:
        self._run(self._session.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> Network:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class RemotePlayer(Player):
    """A player at ``url``, seen through the GGP protocol. One object per role and match.

    The protocol's PLAY carries the previous joint move, which :meth:`Player.play` does not receive:
    the match runner's ``on_step`` hook hands it over through :meth:`observe`.
    """

    elsewhere = True

    def __init__(self, url: str, network: Network, match_id: str, grace: float = GRACE) -> None:
        self.url = url
        self.name = url
        self.network = network
        self.match_id = match_id
        self.grace = grace
        self.previous: tuple[Term, ...] | None = None
        #: How moves are written: as the rules spell them, once the game is known.
        self.spell: Callable[[object], str] = str
        #: Why the player did not take the match (START answered with an error or not ready): it is sent
        #: nothing more, since it has no such match (a START that timed out may still be taken).
        self.refused: str | None = None

    def start(self, game: Game, role: str, start_clock: float, play_clock: float) -> None:
        super().start(game, role, start_clock, play_clock)
        self.spell = game.spell
        # Canonical clauses on one line: no comments or layout of the source file travel the network;
        # names keep the rules' spelling, since the player may compare them case-sensitively.
        rules = " ".join(game.spell(rule) for rule in game.checked.program.rules)
        start = Start(self.match_id, game.spell(role), rules, start_clock, play_clock)
        try:
            reply = self._send(start, start_clock)
        except PlayerTimeoutError:
            raise
        except ProtocolError as problem:
            self.refused = str(problem)
            raise
        if reply.lower() != "ready":
            self.refused = f"START answered {shorten(reply, 60)!r} instead of ready"
            raise ProtocolError(self.refused)

    def observe(self, record: MatchRecord) -> None:
        """Note the joint move just played (the match runner's ``on_step`` hook)."""
        if record.moves:
            self.previous = tuple(parse_move(record.moves[-1][role]) for role in record.roles)

    def play(self, state: State, deadline: float) -> Term:
        reply = self._send(Play(self.match_id, self.previous), deadline - time.monotonic())
        return parse_move(reply)

    def stop(self, state: State) -> None:
        self._send(Stop(self.match_id, self.previous), self.play_clock)

    def abort(self, state: State) -> None:
        self._send(Abort(self.match_id), self.play_clock)

    def play_view(self, view: View, deadline: float) -> Term:
        reply = self._send(PlayII(self.match_id, *_last_step(view)), deadline - time.monotonic())
        return parse_move(reply)

    def stop_view(self, view: View) -> None:
        self._send(StopII(self.match_id, *_last_step(view)), self.play_clock)

    def abort_view(self, view: View) -> None:
        self._send(Abort(self.match_id), self.play_clock)

    def _send(self, message: Message, clock: float) -> str:
        if self.refused is not None and not isinstance(message, Start):
            if isinstance(message, (Play, PlayII)):
                raise PlayerConnectionError(f"not sent: the player did not take the match ({self.refused})")
            return ""  # STOP or ABORT of a match the player does not have
        # Give up within the runner's grace, so that a late call has ended before the next one is due.
        return self.network.send(self.url, message, clock + self.grace / 2, self.spell)


def _last_step(view: View) -> tuple[int, Term | None, tuple[Term, ...] | None]:
    """GDL-II's turn (the steps so far), the player's last move and its percepts (sorted) after it."""
    if not view.moves:
        return 0, None, None
    return len(view.moves), view.moves[-1], tuple(sorted(view.percepts[-1], key=str))


def is_url(spec: str) -> bool:
    """Whether a player description is a player server's URL (else it names a local player kind)."""
    return spec.startswith(("http://", "https://"))


def host(
    game: Game,
    players: Mapping[str, str],
    start_clock: float,
    play_clock: float,
    *,
    network: Network | None = None,
    grace: float = GRACE,
    max_steps: int | None = None,
    seed: int | None = None,
    on_step: Callable[[MatchRecord], None] | None = None,
    isolate: bool | None = None,
) -> MatchRecord:
    """Run one match; ``players`` maps each role to a URL (``http://host:port``) or a local player
    kind (``mcts:iterations=100``). STOP, or ABORT when the match is aborted, ends it for everyone.
    ``isolate`` is :class:`gdl.match.Match`'s, for the local players."""
    if network is None:
        with Network() as own:
            return host(
                game,
                players,
                start_clock,
                play_clock,
                network=own,
                grace=grace,
                max_steps=max_steps,
                seed=seed,
                on_step=on_step,
                isolate=isolate,
            )
    if not (float(start_clock).is_integer() and float(play_clock).is_integer()):
        # Players such as ggp-base's cannot read a fraction: they drop START and answer busy.
        raise ValueError(f"GGP clocks are whole seconds, not {start_clock:g} and {play_clock:g}")
    # A match id is one KIF word: a game file named "my game (2).kif" must not break every message.
    match_id = f"gdl.{re.sub(r'[^A-Za-z0-9_.-]+', '_', game.name)}.{uuid.uuid4().hex[:12]}"
    urls = [spec for spec in players.values() if is_url(spec)]

    def remote_id(role: str, url: str) -> str:
        # PLAY does not name the role, so a server playing two roles of a match needs an id for each.
        return match_id if urls.count(url) == 1 else f"{match_id}.{role}"

    built: dict[str, Player] = {
        role: RemotePlayer(spec, network, remote_id(role, spec), grace)
        if is_url(spec)
        else make_player(spec, seed)
        for role, spec in players.items()
    }
    remote = [player for player in built.values() if isinstance(player, RemotePlayer)]
    # In a GDL-II game each remote player learns only its view, which the runner hands it.
    observers = [] if plays_with_views(game) else remote

    def observe(record: MatchRecord) -> None:
        for player in observers:
            player.observe(record)
        if on_step is not None:
            on_step(record)

    # Every player is asked every step, even with one legal move: GGP players expect each PLAY.
    match = Match(
        game,
        built,
        start_clock,
        play_clock,
        grace=grace,
        seed=seed,
        ask_forced=True,
        max_steps=max_steps,
        on_step=observe,
        isolate=isolate,
    )
    try:
        record = match.run()
    except BaseException:
        # Interrupted (e.g. Ctrl-C): the remote players must not wait for a PLAY that never comes.
        for player in remote:
            try:
                player.abort(game.initial_state())
            except ProtocolError as problem:
                logger.info("%s: %s", player.url, problem)
        raise
    record.match_id = match_id
    return record
