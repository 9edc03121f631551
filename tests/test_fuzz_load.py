"""Fuzzing over rules and messages: whatever rules or messages arrive, loading and playing
gives a result or a clear error (a ValueError of gdl), never a traceback, within the budget of loading,
and within a memory limit (each load runs in a worker process whose address space is capped)."""

from __future__ import annotations

import contextlib
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hostile import BASE
from support.timing import slack

import gdl
from gdl.errors import LimitExceeded, ProtocolError
from gdl.protocol.messages import parse_message
from gdl.workers import Limits, run_limited

#: The budget each fuzzed game gets (CPU seconds), and the memory of its worker.
BUDGET = 3.0
LIMITS = Limits(memory=1 << 30, cpu_slack=BUDGET)

_NAMES = st.sampled_from(["p", "q", "r", "cell", "s", "Mark", "~p", "²", "x"])
_CONSTANTS = st.sampled_from(["0", "1", "2", "a", "b", "robot", "go", "stay"])


@st.composite
def _term(draw: st.DrawFn, depth: int = 0) -> str:
    choice = draw(st.integers(0, 4 if depth < 6 else 1))
    if choice == 0:
        return draw(_CONSTANTS)
    if choice == 1:
        return "?" + draw(st.sampled_from("xyz"))
    name = draw(_NAMES)
    args = draw(st.lists(_term(depth + 1), min_size=1, max_size=3))
    return f"({name} {' '.join(args)})"


@st.composite
def _literal(draw: st.DrawFn) -> str:
    atom = f"({draw(_NAMES)} {' '.join(draw(st.lists(_term(), min_size=1, max_size=3)))})"
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return f"(not {atom})"
    if kind == 1:
        return f"(distinct {draw(_term())} {draw(_term())})"
    if kind == 2:
        return f"(or {atom} {draw(_literal())})"
    if kind == 3:
        return f"(true {draw(_term())})"
    return atom


@st.composite
def _rules(draw: st.DrawFn) -> str:
    """A playable base game with random rules added (most of them refused by the checker, some not)."""
    rules = []
    for _ in range(draw(st.integers(1, 8))):
        heads = ["(legal robot {})", "(next {})", "({} {})", "terminal", "(goal robot {})"]
        head = draw(st.sampled_from(heads))
        head = head.format(draw(_term()), draw(_term())) if "{}" in head else head
        body = draw(st.lists(_literal(), max_size=6))
        rules.append(f"(<= {head} {' '.join(body)})")
    return BASE + "\n".join(rules)


class _Load:
    """Loads a game and plays a few random steps, in a worker process."""

    def run(self, text: str, engine: str) -> str:
        try:
            game = gdl.parse(text, engine=engine, max_seconds=BUDGET)
            state = game.initial_state()
            for _ in range(5):
                if state.is_terminal():
                    return f"goals {state.goals()}"
                state = state.next({role: state.legal_moves(role)[0] for role in game.roles})
            return "playing"
        except ValueError as problem:  # every domain error of gdl is a ValueError
            return f"refused: {type(problem).__name__}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rules(), st.sampled_from(["auto", "datalog"]))
def test_random_rules_load_or_are_refused_clearly_within_the_budget(text: str, engine: str) -> None:
    begun = time.monotonic()
    try:
        outcome = run_limited(_Load(), "run", BUDGET, LIMITS, text, engine)
    except LimitExceeded as problem:  # memory or CPU past the budget: a defect
        raise AssertionError(f"{problem} for:\n{text}") from None
    except ProtocolError as problem:  # an exception other than ValueError: a traceback
        raise AssertionError(f"{problem} for:\n{text}") from None
    assert outcome.startswith(("goals", "playing", "refused"))
    assert time.monotonic() - begun < slack(60)


_MESSAGE_WORDS = st.sampled_from(
    ["START", "PLAY", "STOP", "ABORT", "INFO", "PREVIEW", "NIL", "m1", "robot", "10", "1.5", "-3", "nan",
     "(", ")", " ", "\ufeff", "\x00", "\x1b[2J", "(role robot)", "?x", ";", "\n", "é", "1e999"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MESSAGE_WORDS, max_size=30).map("".join) | st.binary(max_size=200))
def test_random_messages_are_read_or_refused_clearly(data: str | bytes) -> None:
    # Either a message or a ProtocolError: any other exception fails the test.
    with contextlib.suppress(ProtocolError):
        parse_message(data if isinstance(data, bytes) else data.encode())
