"""The plain Datalog engine against the ``datalog-conformance`` suite (PyPI): its plain cases (the
defeasible ones are another logic). Function-free recursion such as ``orbits(X,Y) :- orbits(X,Z),
orbits(Z,Y)`` is valid Datalog: GDL's recursion restriction applies only where a cycle builds compound
terms. The two files of several megabytes (lubm, hmmer) take minutes to read: they run with the slow
tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from datalog_conformance import ConformanceFailure, YamlTestRunner, get_tests_dir
from datalog_conformance import TestCase as Case
from support.datalog_conformance import GdlEvaluator, Unsupported

#: Files above this size are read only with the slow tests.
LARGE = 400_000


def _cases(path: Path) -> list[Case]:
    """The cases of one file, read with libyaml (the suite's own reader takes minutes)."""
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    if not isinstance(raw, dict) or "tests" not in raw:
        return [Case.from_dict(raw)]
    cases = []
    for entry in raw["tests"]:
        tags = [*raw.get("tags", []), *entry.get("tags", [])]
        merged = {"source": raw.get("source"), **entry, "tags": tags}
        cases.append(Case.from_dict({key: value for key, value in merged.items() if value is not None}))
    return cases


FILES = [
    pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if path.stat().st_size > LARGE else [])
    for path in sorted(get_tests_dir().rglob("*.yaml"))
    if "defeasible" not in path.relative_to(get_tests_dir()).parts
]


@pytest.mark.parametrize("path", FILES)
def test_conformance_file(path: Path) -> None:
    failures, unsupported, passed = [], [], 0
    for case in _cases(path):
        if case.program is None:
            continue
        souffle = "souffle" in path.stem
        evaluator = GdlEvaluator(souffle, case.expect_error, nemo=path.stem.startswith("nemo_"))
        runner = YamlTestRunner(evaluator)
        try:
            runner.run_test_case(case)
            passed += 1
        except Unsupported as problem:
            unsupported.append(f"{case.name}: {problem}")
        except ConformanceFailure as failure:
            if isinstance(failure.__cause__, Unsupported):
                unsupported.append(f"{case.name}: {failure.__cause__}")
            else:
                failures.append(f"{case.name}: {failure}")
    assert not failures, failures
    if not passed:
        pytest.skip(f"syntax gdl does not have: {unsupported}")


def test_the_suite_is_there() -> None:
    assert len(FILES) >= 40
