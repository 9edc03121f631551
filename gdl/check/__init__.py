"""Checking: an unchecked program becomes a :class:`CheckedProgram`, or a list of diagnostics."""

from gdl.check.program import CheckedProgram, CheckResult, check, check_text

__all__ = ["CheckResult", "CheckedProgram", "check", "check_text"]
