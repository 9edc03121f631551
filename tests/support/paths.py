"""Where our games and the shared material are, and what a test does when something it needs is absent.

The shared material (the corpus, the JSON games) is ``../shared`` beside the repository, or the folder
named by the environment variable ``GDL_SHARED``. A test that needs something absent is skipped with
the reason, except under ``CI=true``: CI must check what it claims, so there it fails with the reason.
The same holds for a test dependency missing (``pytest.importorskip``: see ``tests/conftest.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
GAMES = ROOT / "games"
SHARED = Path(os.environ.get("GDL_SHARED") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus"
JSON_GAMES = SHARED / "json-games"


def in_ci() -> bool:
    """Whether the tests run in CI (``CI`` set to true, as CI services do)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def unavailable(what: str) -> NoReturn:
    """Skip the test (or the module, when called at import) for want of ``what``; under CI, fail it."""
    if in_ci():
        pytest.fail(f"{what}: CI=true runs every test, so this is a failure", pytrace=False)
    pytest.skip(what, allow_module_level=True)


def shared_path(path: Path) -> Path:
    """``path`` in the shared material, when it is there (see :func:`unavailable` when not)."""
    if not path.exists():
        unavailable(f"{path} is not present (the shared material is ../shared, or set GDL_SHARED)")
    return path


#: A mark: the test needs the shared corpus (skipped when it is absent, a failure under CI).
needs_corpus = pytest.mark.needs_shared(CORPUS)
#: A mark: the test needs the shared JSON games.
needs_json_games = pytest.mark.needs_shared(JSON_GAMES)
