"""The command line run in the test's own process."""

from __future__ import annotations

import signal

import pytest

from gdl.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exit:  # argparse refusing the command line (status 2, one line)
        status = int(exit.code or 0)
    captured = capsys.readouterr()
    assert "internal error" not in captured.err and "Traceback" not in captured.err
    return status, captured.out, captured.err


def at_a_terminal() -> None:
    """For ``Popen(preexec_fn=...)``: the child takes Ctrl-C as at a terminal. A child of a background
    job of a non-interactive shell (a CI script run with ``&``) inherits an ignored SIGINT, and Python
    keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
