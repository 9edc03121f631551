"""The HTTP side of the player server (:mod:`gdl.protocol.server`): a GGP message comes as the body of
a POST (or, from ggp-base, in the path of a GET), read only as far as its kind may go; what a web page
could make a browser send is refused unless ``cors``; every failure is one line of a reply with its
status (400 for a bad request, 503 when busy, 413 too large, 403 and 415 from a web page, 500 for a
fault of the server), never a traceback, and the server keeps running."""

from __future__ import annotations

import logging
import socket
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from urllib.parse import unquote

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from gdl.errors import ProtocolError
from gdl.protocol.messages import HEAD, MAX_RULES_MESSAGE, Info, Message

logger = logging.getLogger(__name__)

#: Replies use the content type of the GGP protocol.
HEADERS = {"Content-Type": "text/acl"}

#: The CORS headers that ggp-base sends, so that browser-based game managers may talk to the player;
#: only with ``cors=True`` (``--cors``), since they also let any web page the operator visits start
#: matches.
CORS_HEADERS = {
    **HEADERS,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Allow-Age": "86400",
    "Access-Control-Max-Age": "86400",
}

#: The content type of GGP messages: a POST of any other is refused (unless ``cors``), since a web page
#: can make a browser post text/plain forms anywhere without asking.
GGP_CONTENT_TYPE = "text/acl"

def shorten(text: str, limit: int = 200) -> str:
    """A message cut short for a log line or a record, control characters escaped (a reply from the
    network must not reach a terminal raw: escape sequences can rewrite what it shows)."""
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[:limit] + "..."
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class _Busy(ProtocolError):
    """A START or PREVIEW beyond the server's capacity."""


class _Refused(ProtocolError):
    """A request refused whatever it says, with its HTTP status: too large, or from a web page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class HttpFront(ABC):
    """A GGP player on HTTP: the messages in, the replies out (with the CORS headers browser-based
    managers need where ``cors``); what the messages mean is the subclass's."""

    def __init__(self, cors: bool) -> None:
        self.cors = cors
        self.headers = CORS_HEADERS if cors else HEADERS

    @abstractmethod
    async def reply(self, message: Message, received: float) -> str:
        """The reply to one message received at ``received`` (a monotonic instant)."""

    @abstractmethod
    def _admit(self, head: bytes) -> int:
        """The largest body the message that starts with ``head`` may have (raising to refuse it)."""

    @abstractmethod
    async def _parse(self, body: bytes | str) -> Message:
        """The message a body holds."""

    @abstractmethod
    async def _open(self, app: web.Application) -> None:
        """Get ready, before listening."""

    @abstractmethod
    async def _close(self, app: web.Application) -> None:
        """End all work, once the server stops listening."""

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_RULES_MESSAGE)
        # Any path: ggp-base puts whole messages, line breaks included, in the path of a GET.
        app.router.add_route("*", r"/{path:[\s\S]*}", self.handle)
        app.on_startup.append(self._open)
        app.on_cleanup.append(self._close)
        return app

    async def handle(self, request: web.Request) -> web.Response:
        received = time.monotonic()
        peer = request.remote or "?"
        headers = self.headers
        if request.method == "OPTIONS":
            return web.Response(body=b"", headers=headers)
        try:
            self._refuse_cross_site(request)
            if request.method == "POST":
                body: bytes | str = await self._read(request)
            elif request.method == "GET":
                # ggp-base puts the message in the path of a GET; a bare GET asks who is there.
                body = unquote(request.raw_path.lstrip("/").lstrip("?")) or "(INFO)"
            else:
                raise ProtocolError(f"HTTP method {request.method} is not part of the GGP protocol")
            if logger.isEnabledFor(logging.DEBUG):  # the message as it came: KIF, as gdl host logs it
                text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
                logger.debug("%s <- %s", peer, shorten(text))
            message = await self._parse(body)
            if request.method == "GET" and not isinstance(message, Info):
                # A web page can make a browser send a GET: only questions, never a change of state.
                raise ProtocolError(f"{type(message).__name__.upper()} must be sent by POST, not GET")
            reply = await self.reply(message, received)
        except _Busy as problem:
            logger.warning("%s: refused: %s", peer, problem)
            return web.Response(body=f"busy: {problem}".encode(), status=503, headers=headers)
        except _Refused as problem:
            logger.warning("%s: refused: %s", peer, problem)
            return web.Response(body=f"error: {problem}".encode(), status=problem.status, headers=headers)
        except ProtocolError as problem:
            # One line, of bounded length: an error may quote a name of the rules, which can be long.
            said = shorten(str(problem), 1000)
            logger.warning("%s: bad request: %s", peer, said)
            return web.Response(body=f"error: {said}".encode(), status=400, headers=headers)
        except Exception as problem:  # a server must outlive any request
            logger.exception("%s: request failed", peer)
            text = f"error: internal error: {type(problem).__name__}: {problem}"
            return web.Response(body=text.encode(), status=500, headers=headers)
        logger.debug("%s -> %s (%.3f s)", peer, shorten(reply), time.monotonic() - received)
        return web.Response(body=reply.encode(), headers=headers)

    def _refuse_cross_site(self, request: web.Request) -> None:
        """Refuse what a web page can make a browser send (unless ``cors``): anything with an Origin, and
        POSTs of another content type than GGP's (a form's text/plain needs no preflight)."""
        if self.cors:
            return
        if "Origin" in request.headers:
            origin = shorten(request.headers["Origin"], 80)
            raise _Refused(403, f"cross-site request from {origin} (allowed only with --cors)")
        if request.method == "POST" and request.content_type != GGP_CONTENT_TYPE:
            shown = shorten(request.content_type, 80)
            raise _Refused(415, f"content type {shown}, not {GGP_CONTENT_TYPE} (others only with --cors)")

    async def _read(self, request: web.Request) -> bytes:
        """The body of a POST, read only as far as its kind of message may go (see
        :func:`gdl.protocol.messages.body_limit`): the first bytes tell the kind and the match id, and a
        PLAY for an unknown match or a START beyond capacity is refused before the rest is read."""
        limit = MAX_RULES_MESSAGE
        declared = request.content_length
        body = bytearray()
        admitted = False
        while True:
            if declared is not None and declared > limit:
                raise _Refused(413, f"a body of {declared} bytes, above the {limit} bytes allowed")
            chunk = await request.content.read(1 << 16)
            body += chunk
            if len(body) > limit:
                raise _Refused(413, f"a body above the {limit} bytes allowed")
            if not admitted and (len(body) >= HEAD or not chunk):
                limit, admitted = self._admit(bytes(body[:HEAD])), True
                continue  # checks the declared length against the limit of the kind
            if not chunk:
                return bytes(body)


@dataclass
class RunningServer:
    """A player server listening on a socket; ``url`` is where game managers reach it."""

    runner: web.AppRunner
    url: str
    port: int

    async def close(self) -> None:
        await self.runner.cleanup()


def _one_line(record: logging.LogRecord) -> bool:
    """aiohttp's log of a request that is not HTTP at all (a header too long, no Host, garbage): a
    warning of one line, not a traceback, since nothing went wrong inside the server."""
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, HttpProcessingError):
        record.msg = f"{shorten(record.getMessage())}: bad HTTP: {shorten(str(error.message), 120)}"
        record.args = None
        record.exc_info = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


async def start_server(server: HttpFront, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Start listening (port 0 picks a free port) and return at once."""
    if _one_line not in logging.getLogger("aiohttp.server").filters:
        logging.getLogger("aiohttp.server").addFilter(_one_line)
    sock = socket.create_server((host, port), reuse_port=False)
    runner = web.AppRunner(server.application(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    bound = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    return RunningServer(runner, f"http://{shown}:{bound}", bound)
