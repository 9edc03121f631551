"""The command line run in the test's own process."""

from __future__ import annotations

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
